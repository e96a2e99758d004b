// `askbridge start`: the daemon in the foreground (`npm start`), or with --background in a detached
// process that logs to the state directory, returning once it serves, with the page link printed.
// `--background --quiet` is what the SessionStart hook runs: it returns at once when the daemon
// runs, prints nothing (a SessionStart hook's stdout goes into Claude's context), and many of them
// at once still make one daemon (the lock decides), each returning once that one serves. When
// another program holds the port, the session's http hooks would send it their questions and the
// hook key: then it prints one JSON document that warns the person and tells Claude not to ask
// through askbridge (what Claude Code does with each field: protocol.md, SessionStart).
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { askbridgeCommand, CLI_PATH } from '../command-name.js';
import { makeFolders } from '../folders.js';
import { describeGaveUp, describeNotServing, describeRunning, isHolderAlive, isServing, lockPaths, readLockHolder, RESTART_IMMINENT_MS, type LockHolder } from '../daemon/lock.js';
import { configuredPort, LOOPBACK_HOST, logsDir, openStateDir, resolveStateDir, type DaemonInfo, type StateDir } from '../state-dir.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';

/** askbridge's keeper holds the state directory, but its daemon keeps failing and will not serve soon. */
class KeeperNotServing extends CliError {}

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
  if (values.background) {
    const startFlags = [...(values.port === undefined ? [] : ['--port', values.port]), ...reachFlags];
    try {
      return await startInBackground(io, startFlags, values.quiet);
    } catch (error) {
      const port = configuredPort(io.env, values.port === undefined ? undefined : Number(values.port));
      // Only the SessionStart hook's start speaks to Claude Code; a person's start says why in one line.
      // askbridge's own keeper on the port is no other program: its reason is said as any other.
      if (!values.quiet || !(error instanceof CliError) || error instanceof KeeperNotServing || !(await someoneListens(port))) throw error;
      io.stdout(`${JSON.stringify(portTakenWarning(port, askbridgeCommand(io.env)))}\n`);
      return;
    }
  }
  // Loaded only here: the background start, run by every new Claude Code session, needs none of it.
  const { offerToWireClaudeCode } = await import('./first-start.js');
  await offerToWireClaudeCode(io, process.stdin.isTTY === true && process.stdout.isTTY === true);
  const { KeeperAlreadyRunning, KeeperStartError, runKeeper } = await import('../daemon/keeper.js');
  try {
    // The keeper holds the port and runs the daemon as its child, which prints the page link.
    await runKeeper({
      env: io.env,
      port: values.port === undefined ? undefined : Number(values.port),
      logToFile: values['log-file'],
      publicUrl: values['public-url'],
      ...(values.listen === undefined ? {} : { listen: { address: values.listen, tlsCert: values['tls-cert'], tlsKey: values['tls-key'] } }),
      report: (line) => io.stderr(`${line}\n`),
    });
  } catch (error) {
    if (error instanceof KeeperAlreadyRunning) {
      io.stderr(`${error.message}\n`);
      return;
    }
    if (error instanceof KeeperStartError) throw new CliError(error.message);
    throw error;
  }
}

/**
 * Starts the daemon detached, and returns once a daemon serves: at once when one runs already, and
 * when another start holds the state directory, once the daemon that one brings up serves.
 */
export async function startInBackground(io: CommandIo, startFlags: string[], quiet: boolean): Promise<void> {
  const stateDir = openStateDir(resolveStateDir(io.env));
  stateDir.ensure();
  const command = askbridgeCommand(io.env);
  const lock = lockPaths(stateDir.paths.dir).lock;
  const deadline = Date.now() + BACKGROUND_READY_MS;
  let saidWhy = false;
  for (;;) {
    // A daemon holds the state directory: it serves (then this returns at once), or another start
    // is bringing it up. One that stops before it serves (a daemon shutting down, a start that
    // failed) leaves the state directory to this start.
    const holder = liveHolder(lock);
    if (holder) {
      const running = await waitUntilServing(lock, stateDir, holder, deadline, command);
      if (running) {
        if (!quiet) io.stderr(`${describeRunning(running.holder, running.info, command)}\n`);
        return;
      }
    } else {
      // Why the last keeper gave up: said here, where the person sees it (the keeper says it in the log, and clears it).
      const gaveUp = stateDir.readGaveUp();
      if (gaveUp && !quiet && !saidWhy) io.stderr(`${describeGaveUp(gaveUp)}; starting again\n`);
      saidWhy = true;
      const pid = await startDetached(io.env, stateDir, lock, startFlags, deadline, command);
      if (pid !== undefined) {
        if (!quiet) await printPageLink(io, pid, command);
        return;
      }
      // Its child found another start holding the state directory: that one's daemon is waited for.
    }
    if (Date.now() > deadline) throw new CliError(`no daemon serves after ${BACKGROUND_READY_MS / 1000} s: see \`${command} logs\``);
  }
}

/**
 * Spawns the daemon, detached, and returns its pid once it serves (daemon.json names it: it writes
 * that once it listens); undefined when it found another start holding the state directory (it
 * exits 0); a CliError with its one-line reason when it could not start.
 */
async function startDetached(env: NodeJS.ProcessEnv, stateDir: StateDir, lock: string, startFlags: string[], deadline: number, command: string): Promise<number | undefined> {
  // The child's stderr goes to a file, not a pipe: the daemon outlives this command, and a write to
  // a pipe nobody reads any more would kill it.
  makeFolders(logsDir(stateDir.paths.dir), 0o700);
  const stderrFile = join(logsDir(stateDir.paths.dir), 'start.stderr');
  const stderrFd = openSync(stderrFile, 'w', 0o600);
  const child = spawn(process.execPath, [CLI_PATH, 'start', '--log-file', ...startFlags], {
    detached: true,
    stdio: ['ignore', 'ignore', stderrFd],
    env,
  });
  closeSync(stderrFd);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  while (servingDaemon(lock, stateDir)?.holder.pid !== child.pid) {
    if (exited === 0) return undefined;
    // The child said why in one line, as `askbridge start: <reason>`: that line, said once.
    if (exited !== undefined) throw new CliError(readFileSync(stderrFile, 'utf8').trim().split('\n').pop()?.replace(/^askbridge start: /, '') || `the daemon exited (${exited}) before it was ready: see \`${command} logs\``);
    if (Date.now() > deadline) throw new CliError(`the daemon (pid ${child.pid}) is not ready after ${BACKGROUND_READY_MS / 1000} s: see \`${command} logs\``);
    await sleep(POLL_MS);
  }
  child.unref();
  return child.pid;
}

/** What a person who started it sees: where it runs, and a link that pairs their browser. */
async function printPageLink(io: CommandIo, pid: number, command: string): Promise<void> {
  const daemon = connectToDaemon(io.env);
  const pairing = await daemon.request('POST', '/api/pairings', {});
  io.stdout(`askbridge is running in the background (pid ${pid}); logs: ${command} logs\n`);
  if (pairing.status === 200) {
    // Loaded here: the SessionStart hook's `--quiet` path must not pay for zod.
    const [{ readReply }, { PairingReplySchema }] = await Promise.all([import('./replies.js'), import('../protocol.js')]);
    const { links } = readReply(PairingReplySchema, pairing.body, 'pairing link');
    io.stdout(`Answer page (one-time link, pairs one browser): ${links.local}\n`);
    if (links.public) io.stdout(`From a phone or another machine: run \`${command} pair\` for a link and QR code (${links.public.split('#')[0]})\n`);
  }
}

type Running = { holder: LockHolder; info: DaemonInfo };

/** The live process that holds the state directory: its daemon, serving or on its way. */
function liveHolder(lock: string): LockHolder | undefined {
  const holder = readLockHolder(lock);
  return typeof holder === 'object' && isHolderAlive(holder) ? holder : undefined;
}

/** The daemon that serves now: the lock's holder lives, and daemon.json (written once it listens) names it and says it serves. */
function servingDaemon(lock: string, stateDir: StateDir): Running | undefined {
  const holder = liveHolder(lock);
  const info = stateDir.readDaemonInfo();
  return holder && info?.pid === holder.pid && isServing(info) ? { holder, info } : undefined;
}

/**
 * Waits for the daemon `holder` runs or brings up to serve; undefined when it stops first. A keeper
 * whose daemon failed and will not start again soon is not waited for: why is the error.
 */
async function waitUntilServing(lock: string, stateDir: StateDir, holder: LockHolder, deadline: number, command: string): Promise<Running | undefined> {
  for (;;) {
    const running = servingDaemon(lock, stateDir);
    if (running) return running;
    if (!isHolderAlive(holder)) return undefined;
    const info = stateDir.readDaemonInfo();
    if (info?.pid === holder.pid && info.restartAt !== undefined && info.restartAt - Date.now() > RESTART_IMMINENT_MS) throw new KeeperNotServing(describeNotServing(info, command));
    if (Date.now() > deadline) throw new CliError(`the daemon another start is bringing up (pid ${holder.pid}) is not ready after ${BACKGROUND_READY_MS / 1000} s: see \`${command} logs\``);
    await sleep(POLL_MS);
  }
}

/** Whether a program accepts connections on 127.0.0.1:PORT: after a start that failed, one that is not this askbridge. */
function someoneListens(port: number): Promise<boolean> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return Promise.resolve(false);
  return new Promise((answer) => {
    const socket = connect({ host: LOOPBACK_HOST, port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      answer(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      answer(false);
    });
    socket.once('error', () => answer(false));
  });
}

/**
 * What the SessionStart hook prints when another program holds the port: Claude Code 2.1.330 shows
 * `systemMessage` to the person, gives `additionalContext` to the model, and ignores `continue:
 * false` in an interactive session (kept: it is the documented way to stop one, should a version
 * honour it).
 */
function portTakenWarning(port: number, command: string) {
  const taken = `another program holds ${LOOPBACK_HOST}:${port}, where this session's askbridge hooks send their questions and the hook key: it could read them and answer in your place`;
  return {
    continue: false,
    stopReason: `askbridge: ${taken}. Stop that program and run \`${command} start\`, then start the session again.`,
    systemMessage: `askbridge: ${taken}. Stop that program and run \`${command} start\`, then start the session again; until then, do not answer questions through it.`,
    hookSpecificOutput: {
      hookEventName: 'SessionStart',
      additionalContext: `askbridge cannot be trusted in this session: another program holds ${LOOPBACK_HOST}:${port}, where askbridge's hooks send the user's questions. Do not call the AskUserQuestion tool in this session: ask the user in plain text instead, and tell them once that askbridge's port is taken by another program.`,
    },
  };
}
