// `askbridge stop`: asks the daemon to stop, then waits until its process has really exited, so
// that "stopped" is true when it is printed (the port is free and a new start will not collide).
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive, openStateDir, resolveStateDir } from '../state-dir.js';
import { connectToDaemon, NOT_RUNNING } from './client.js';
import { CliError, type CommandIo } from './command.js';

/** Closing pages and hooks takes well under a second; past this, something holds the daemon up. */
const EXIT_WAIT_MS = 10_000;
const POLL_MS = 25;

export async function run(io: CommandIo): Promise<void> {
  const daemon = connectToDaemon(io.env);
  const pid = openStateDir(resolveStateDir(io.env)).readDaemonInfo()?.pid;
  const { status } = await daemon.request('POST', '/api/shutdown', {});
  if (status !== 202) throw new CliError(NOT_RUNNING);
  if (pid !== undefined && !(await waitForExit(pid, EXIT_WAIT_MS))) {
    throw new CliError(`the daemon (pid ${pid}) was asked to stop but is still running after ${EXIT_WAIT_MS / 1000} s: end it with \`kill ${pid}\``);
  }
  io.stderr('askbridge stopped\n');
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

