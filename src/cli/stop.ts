// `askbridge stop`: ends the keeper of this state directory (the process `askbridge start` runs,
// named by its lock), whether its daemon serves or keeps failing: the keeper tells the daemon to
// stop (waiting questions go back to their terminals), lets go of the port and exits. It returns
// once the keeper has really exited, so that "stopped" is true when it is printed (the port is free
// and a new start will not collide).
import { setTimeout as sleep } from 'node:timers/promises';
import { findKeeper, isHolderAlive, type LockHolder } from '../daemon/lock.js';
import { resolveStateDir } from '../state-dir.js';
import { askbridgeCommand } from '../command-name.js';
import { notRunning } from './client.js';
import { CliError, type CommandIo } from './command.js';

/** The keeper gives its daemon 8 s to stop, then kills it: past this, something holds the keeper up. */
const EXIT_WAIT_MS = 10_000;
const POLL_MS = 25;

export async function run(io: CommandIo): Promise<void> {
  // Only the keeper takes this lock, and it names the keeper's pid with the process's start time,
  // so a pid that another program took since is not signalled.
  const keeper = findKeeper(resolveStateDir(io.env), undefined)?.holder;
  if (!keeper) throw new CliError(notRunning(askbridgeCommand(io.env)));
  try {
    process.kill(keeper.pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw new CliError(`cannot stop askbridge's keeper (pid ${keeper.pid}): ${(error as Error).message}`);
  }
  if (!(await waitForExit(keeper, EXIT_WAIT_MS))) {
    throw new CliError(`askbridge's keeper (pid ${keeper.pid}) was asked to stop but is still running after ${EXIT_WAIT_MS / 1000} s: end it with \`kill ${keeper.pid}\``);
  }
  io.stderr('askbridge stopped\n');
}

async function waitForExit(keeper: LockHolder, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isHolderAlive(keeper)) {
    if (Date.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}
