// `askbridge start`: the daemon in the foreground (`npm start`), or with --background in a detached
// process that logs to the state directory, returning once it serves, with the page link printed.
// `--background --quiet` is what the SessionStart hook runs: it returns at once when the daemon
// runs, prints nothing (a SessionStart hook's stdout goes into Claude's context), and many of them
// at once still make one daemon (the lock decides).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CLI_PATH } from '../command-name.js';
import { makeFolders } from '../folders.js';
import { describeRunning, isHolderAlive, lockPaths, readLockHolder } from '../daemon/lock.js';
import { logsDir, openStateDir, resolveStateDir } from '../state-dir.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';

/** Starting takes well under a second; a loaded machine gets generous room before we call it failed. */
const BACKGROUND_READY_MS = 15_000;
const POLL_MS = 50;

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args: io.argv,
    options: {
      port: { type: 'string' },
      background: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      'log-file': { type: 'boolean', default: false },
      'public-url': { type: 'string' },
      listen: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
    },
    strict: true,
  });
  // Handed on as they were given to a daemon started in the background.
  const reachFlags = (['public-url', 'listen', 'tls-cert', 'tls-key'] as const).flatMap((name) => (values[name] === undefined ? [] : [`--${name}`, values[name]!]));
  if (values.quiet && !values.background) throw new CliError('--quiet goes with --background (a daemon in the foreground prints its page link and logs)', 2);
  if (values.background) return startInBackground(io, [...(values.port === undefined ? [] : ['--port', values.port]), ...reachFlags], values.quiet);
  // Loaded only here: the background start, run by every new Claude Code session, needs none of it.
  const { DaemonAlreadyRunning, DaemonStartError, runDaemonInForeground } = await import('../daemon/main.js');
  try {
    await runDaemonInForeground({
      env: io.env,
      ...(values.port === undefined ? {} : { port: Number(values.port) }),
      print: (line) => io.stdout(`${line}\n`),
      logToFile: values['log-file'],
      publicUrl: values['public-url'],
      ...(values.listen === undefined ? {} : { listen: { address: values.listen, tlsCert: values['tls-cert'], tlsKey: values['tls-key'] } }),
    });
  } catch (error) {
    if (error instanceof DaemonAlreadyRunning) {
      io.stderr(`${error.message}\n`);
      return;
    }
    if (error instanceof DaemonStartError) throw new CliError(error.message);
    throw error;
  }
}

/** Starts the daemon detached, and returns once it serves (at once when it runs already). */
export async function startInBackground(io: CommandIo, startFlags: string[], quiet: boolean): Promise<void> {
  const stateDir = openStateDir(resolveStateDir(io.env));
  stateDir.ensure();
  const lock = lockPaths(stateDir.paths.dir).lock;
  const holder = readLockHolder(lock);
  const info = stateDir.readDaemonInfo();
  // At once when it runs: the lock's holder lives and daemon.json names it.
  if (typeof holder === 'object' && isHolderAlive(holder) && info?.pid === holder.pid) {
    if (!quiet) io.stderr(`${describeRunning(holder, info)}\n`);
    return;
  }
  // The child's stderr goes to a file, not a pipe: the daemon outlives this command, and a write to
  // a pipe nobody reads any more would kill it.
  makeFolders(logsDir(stateDir.paths.dir), 0o700);
  const stderrFile = join(logsDir(stateDir.paths.dir), 'start.stderr');
  const stderrFd = openSync(stderrFile, 'w', 0o600);
  const child = spawn(process.execPath, [CLI_PATH, 'start', '--log-file', ...startFlags], {
    detached: true,
    stdio: ['ignore', 'ignore', stderrFd],
    env: io.env,
  });
  closeSync(stderrFd);
  const stderr = () => readFileSync(stderrFile, 'utf8');
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));

  // Ready: daemon.json names the child (it writes it once it listens). Or the child ended: it found
  // a daemon already running (exit 0, and says where), or it could not start (its one-line reason).
  const deadline = Date.now() + BACKGROUND_READY_MS;
  while (stateDir.readDaemonInfo()?.pid !== child.pid) {
    if (exited !== undefined) {
      const holder = readLockHolder(lock);
      if (exited === 0 && typeof holder === 'object' && isHolderAlive(holder)) {
        if (!quiet) io.stderr(stderr() || `askbridge is already running (pid ${holder.pid})\n`);
        return;
      }
      // The child said why in one line, as `askbridge start: <reason>`: that line, said once.
      throw new CliError(stderr().trim().split('\n').pop()?.replace(/^askbridge start: /, '') || `the daemon exited (${exited}) before it was ready: see \`askbridge logs\``);
    }
    if (Date.now() > deadline) throw new CliError(`the daemon (pid ${child.pid}) is not ready after ${BACKGROUND_READY_MS / 1000} s: see \`askbridge logs\``);
    await sleep(POLL_MS);
  }
  child.unref();

  if (quiet) return;
  const daemon = connectToDaemon(io.env);
  const pairing = await daemon.request('POST', '/api/pairings', {});
  io.stdout(`askbridge is running in the background (pid ${child.pid}); logs: askbridge logs\n`);
  if (pairing.status === 200) {
    // Loaded here: the SessionStart hook's `--quiet` path must not pay for zod.
    const [{ readReply }, { PairingReplySchema }] = await Promise.all([import('./replies.js'), import('../protocol.js')]);
    const { links } = readReply(PairingReplySchema, pairing.body, 'pairing link');
    io.stdout(`Answer page (one-time link, pairs one browser): ${links.local}\n`);
    if (links.public) io.stdout(`From a phone or another machine: run \`askbridge pair\` for a link and QR code (${links.public.split('#')[0]})\n`);
  }
}
