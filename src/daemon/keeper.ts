// The keeper: the process `askbridge start` runs, which holds the daemon's port for as long as it
// runs, whatever happens to the daemon. The http hook trusts whatever answers on 127.0.0.1:PORT, so
// a port let go for a moment (a crash, an out-of-memory abort) could be taken by any local process,
// which would then receive the questions and the hook key, and answer in the person's place.
//
// The keeper takes the state directory's lock, binds 127.0.0.1:PORT and [::1]:PORT (or listens on the
// sockets a service manager passed it: systemd's LISTEN_FDS) and the --listen address, and runs the
// daemon (main.ts) as its child, handing it every accepted connection over the IPC channel, with the
// door it came through (the daemon speaks TLS on --listen's). When the daemon crashes, the keeper
// keeps accepting, holds the new connections for a few seconds (holding-pen.ts bounds what they
// take), starts the daemon again and hands them to it: no port of askbridge's is free for a moment,
// so none can be taken. It says why each daemon ended, on stderr and in daemon.json (`status`
// reads it). While no daemon will serve for more than a second (it keeps crashing, and the keeper
// waits longer each time), it answers 503 at once, so a hook falls back to its agent's own dialog
// instead of waiting. After CRASH_BUDGET failures within CRASH_WINDOW_MS it stops trying: it lets go
// of the port and the lock, leaves the reason in gave-up.json and exits 1. The daemon exiting 0
// means stop: `askbridge stop` (a signal to the keeper), or a signal. The keeper imports nothing
// heavy: it runs on every `askbridge start`.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { askbridgeCommand } from '../command-name.js';
import { createHoldingPen } from './holding-pen.js';
import { acquireDaemonLock, describeGaveUp, describeRunning, RESTART_IMMINENT_MS, type DaemonLock } from './lock.js';
import { configuredPort, LOOPBACK_HOST, openStateDir, resolveStateDir, stateDirWriteError, type DaemonFailure, type PortHolder, type StateDir } from '../state-dir.js';
import { markInvisible } from '../visible-text.js';
import { VERSION } from '../version.js';

export type KeeperOptions = {
  env: NodeJS.ProcessEnv;
  port?: number | undefined;
  logToFile: boolean;
  publicUrl?: string | undefined;
  /** --listen ADDR:PORT with --tls-cert and --tls-key, as given on the command line. */
  listen?: { address: string; tlsCert?: string | undefined; tlsKey?: string | undefined } | undefined;
  /** Where the keeper says what happens to the daemon (a crash, a restart): stderr. */
  report: (line: string) => void;
};

/** What the keeper tells the daemon it runs, as its one argument (JSON): nothing secret. */
export type DaemonChildOptions = {
  port: number;
  keeperPid: number;
  portHeldBy: PortHolder;
  holdsIpv6: boolean;
  logToFile: boolean;
  /** A daemon started again after a crash: it prints no new page link (the pages stay paired). */
  restarted: boolean;
  /** The keeper's count of daemons that ended without being asked to, and the last: the daemon writes them into daemon.json. */
  crashes: number;
  lastCrash?: DaemonFailure | undefined;
  publicUrl?: string | undefined;
  listen?: ListenAt | undefined;
};

/** --listen, checked: the keeper listens at host:port, the daemon serves TLS there with the certificate and key. */
export type ListenAt = { address: string; host: string; port: number; tlsCert: string; tlsKey: string };

/** Which listening socket a connection came to: loopback (plain http), or --listen (TLS). */
export type Door = 'loopback' | 'listen';

/** Keeper to daemon: a connection (with its socket) and its door, or stop. */
export type ToDaemon = { type: 'connection'; id: number; door: Door } | { type: 'stop' };
/** Daemon to keeper: it serves; it received a connection; it is about to exit 1 (it could not start, or crashed), and why. */
export type ToKeeper = { type: 'serving' } | { type: 'received'; id: number } | { type: 'failed'; message: string };

/** The keeper could not start the daemon: one line that says why. */
export class KeeperStartError extends Error {}
/** Another live keeper holds this state directory: nothing to start. */
export class KeeperAlreadyRunning extends Error {}

/**
 * Restarts after the first (which is at once) wait four times as long each time, up to the cap:
 * 0.5 s for a cause that passes at once, then 2 s and 8 s, during which nobody is kept waiting.
 */
const FIRST_BACKOFF_MS = 500;
const BACKOFF_FACTOR = 4;
const MAX_BACKOFF_MS = 30_000;
/** A daemon that served this long is no longer part of a crash loop: the next crash restarts it at once. */
const STABLE_MS = 30_000;
/**
 * This many failures within the window, and the keeper stops trying. Five in a row come within
 * about 11 s of waiting (at once, 0.5, 2, 8 s): a cause that lasts that long (a missing TLS key, a
 * setting askbridge refuses, a question on disk it cannot load) does not go away by itself, and
 * the person learns it from `status` instead of a keeper that retries forever. A daemon that serves
 * for minutes between crashes (one killed now and then) stays well under it.
 */
const CRASH_BUDGET = 5;
const CRASH_WINDOW_MS = 2 * 60_000;
/** A connection answered 503 is closed this long after, if the other end has not closed it first. */
const REFUSED_LINGER_MS = 1_000;
/** The longest reason kept, from the first line of what the daemon said. */
const MAX_REASON_CHARS = 300;
/** The daemon's own stop takes at most 5 s (main.ts); past this it is killed. */
const STOP_WAIT_MS = 8_000;
/** systemd passes its sockets from this descriptor on (sd_listen_fds(3)). */
const SD_LISTEN_FDS_START = 3;

const DAEMON_ENTRY = fileURLToPath(new URL('./daemon-process.js', import.meta.url));

/**
 * Runs the keeper. Resolves once the daemon first serves (its page link printed by it); the keeper
 * then runs until the daemon stops (exit 0) or a signal, and exits the process itself.
 */
export async function runKeeper(given: KeeperOptions): Promise<void> {
  // Its stderr may be a pipe whose reader has gone (`askbridge start 2>&1 | tee log`, ended): what it
  // reports there is lost (EPIPE), and the keeper goes on holding the port and running the daemon.
  process.stderr.on('error', () => {});
  const options: KeeperOptions = {
    ...given,
    report: (line) => {
      try {
        given.report(line);
      } catch {
        // stderr is a file that cannot be written (a full disk): the line is lost
      }
    },
  };
  // Flags first: a start refused for them changes nothing.
  const listen = options.listen === undefined ? undefined : checkListen(options.listen);
  const dir = resolveStateDir(options.env);
  const stateDir = openStateDir(dir);
  let attempt: Awaited<ReturnType<typeof acquireDaemonLock>>;
  try {
    stateDir.ensure();
    // Taken before anything is written, so a second start changes nothing of the running daemon's.
    attempt = await acquireDaemonLock(dir);
  } catch (error) {
    const diskError = stateDirWriteError(dir, error);
    throw diskError ? new KeeperStartError(diskError) : error;
  }
  if (!attempt.acquired) {
    const running = stateDir.readDaemonInfo();
    const description = describeRunning(attempt.holder, running, askbridgeCommand(options.env));
    // A keeper whose daemon does not serve is no askbridge that runs: this start failed.
    throw running?.pid === attempt.holder.pid && running.restartAt !== undefined ? new KeeperStartError(description) : new KeeperAlreadyRunning(description);
  }
  let held: HeldPort;
  try {
    // Why the previous keeper stopped trying: said once, by this start.
    const gaveUp = stateDir.readGaveUp();
    if (gaveUp) {
      options.report(`${describeGaveUp(gaveUp)}; starting again`);
      stateDir.removeGaveUp();
    }
    // The token of this run, on disk before the port is held: a hook or the CLI that reaches the
    // port reads the token the daemon behind it proves itself with, whichever daemon that is
    // (one the keeper starts again after a crash keeps it).
    stateDir.writeNewToken();
    held = await holdPort(options);
  } catch (error) {
    attempt.lock.release();
    const diskError = stateDirWriteError(dir, error);
    throw diskError ? new KeeperStartError(diskError) : error;
  }
  if (listen) {
    try {
      held.servers.push({ server: await bindListen(listen), door: 'listen' });
    } catch (error) {
      for (const { server } of held.servers) server.close();
      attempt.lock.release();
      throw error;
    }
  }
  await keep(options, stateDir, attempt.lock, held, listen);
}

type HeldPort = { servers: Array<{ server: Server; door: Door }>; port: number; holdsIpv6: boolean; heldBy: PortHolder };

/**
 * --listen as given: ADDRESS:PORT, and the certificate and key to serve TLS with, since a port
 * beyond loopback is served only over TLS. The daemon reads the files (tls-listener.ts).
 */
function checkListen(flags: NonNullable<KeeperOptions['listen']>): ListenAt {
  const match = /^(.+):(\d{1,5})$/.exec(flags.address);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) throw new KeeperStartError(`--listen ${flags.address}: expected ADDRESS:PORT, for example 0.0.0.0:8443`);
  if (!flags.tlsCert || !flags.tlsKey) {
    throw new KeeperStartError(`--listen ${flags.address} serves beyond loopback, which askbridge does only over TLS: give --tls-cert FILE and --tls-key FILE (or keep it on loopback behind Tailscale Serve, Caddy or an SSH tunnel)`);
  }
  return { address: flags.address, host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port, tlsCert: flags.tlsCert, tlsKey: flags.tlsKey };
}

/** The --listen address, held by the keeper as loopback is: a daemon that crashes leaves it to nobody. */
async function bindListen(listen: ListenAt): Promise<Server> {
  const server = newServer();
  try {
    await startListening(server, { host: listen.host, port: listen.port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new KeeperStartError(`${listen.address} is in use: choose another --listen port`);
    throw new KeeperStartError(`cannot listen on ${listen.address} (--listen): ${(error as Error).message}`);
  }
  return server;
}

/** The listening sockets: the service manager's, when it passed some to this process, else bound here. */
async function holdPort(options: KeeperOptions): Promise<HeldPort> {
  const passed = passedSocketCount(options.env);
  if (passed > 0) return listenOnPassedSockets(passed);
  const port = configuredPort(options.env, options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new KeeperStartError(`invalid port "${port}": use 1-65535, or 0 for any free port`);
  return bindLoopback(port);
}

/** How many sockets systemd passed to this very process (LISTEN_PID names it), per sd_listen_fds(3). */
function passedSocketCount(env: NodeJS.ProcessEnv): number {
  if (env.LISTEN_PID !== String(process.pid)) return 0;
  const count = Number(env.LISTEN_FDS);
  return Number.isInteger(count) && count > 0 ? count : 0;
}

const newServer = () => createServer({ pauseOnConnect: true });

function startListening(server: Server, how: { host: string; port: number; ipv6Only?: boolean } | { fd: number }): Promise<void> {
  return new Promise((listening, failed) => {
    server.once('error', failed);
    server.listen(how, () => {
      server.off('error', failed);
      listening();
    });
  });
}

/**
 * 127.0.0.1 and, where the system has it, [::1], on the same port. Browsers try [::1] for
 * localhost: a port left free there could be taken by any process, which would then be served as
 * http://localhost:PORT. So [::1] held by someone else is a refusal to start, not a warning.
 */
async function bindLoopback(port: number): Promise<HeldPort> {
  const ipv4 = newServer();
  try {
    await startListening(ipv4, { host: '127.0.0.1', port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new KeeperStartError(`port ${port} is in use: stop what uses it, or start with ASKBRIDGE_PORT=<another port>`);
    throw error;
  }
  const boundPort = (ipv4.address() as { port: number }).port;
  const ipv6 = newServer();
  try {
    await startListening(ipv6, { host: '::1', port: boundPort, ipv6Only: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return { servers: [{ server: ipv4, door: 'loopback' }], port: boundPort, holdsIpv6: false, heldBy: 'keeper' }; // no IPv6 loopback: nobody can take [::1] either
    ipv4.close();
    if (code === 'EADDRINUSE') {
      throw new KeeperStartError(`another program holds [::1]:${boundPort}, so a browser opening http://localhost:${boundPort}/ could reach it instead of askbridge: stop it, or start with ASKBRIDGE_PORT=<another port>`);
    }
    throw error;
  }
  return { servers: [ipv4, ipv6].map((server) => ({ server, door: 'loopback' as const })), port: boundPort, holdsIpv6: true, heldBy: 'keeper' };
}

/** The service manager's sockets: each must listen on a loopback address, all on one port (the daemon listens beyond loopback only with --listen). */
async function listenOnPassedSockets(count: number): Promise<HeldPort> {
  const servers: Server[] = [];
  for (let fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + count; fd++) {
    const server = newServer();
    await startListening(server, { fd });
    servers.push(server);
  }
  const addresses = servers.map((server) => server.address()).filter((address) => typeof address === 'object' && address !== null);
  const ports = new Set(addresses.map((address) => address.port));
  const close = () => {
    for (const server of servers) server.close();
  };
  if (addresses.length !== servers.length || ports.size !== 1 || !addresses.every((address) => address.address === '127.0.0.1' || address.address === '::1')) {
    close();
    throw new KeeperStartError(`the service manager passed sockets on ${addresses.map((address) => `${address.address}:${address.port}`).join(', ') || 'no TCP address'}: askbridge takes only 127.0.0.1:PORT and [::1]:PORT, on one port`);
  }
  if (!addresses.some((address) => address.address === '127.0.0.1')) {
    close();
    throw new KeeperStartError('the service manager passed no socket on 127.0.0.1: askbridge needs 127.0.0.1:PORT');
  }
  return { servers: servers.map((server) => ({ server, door: 'loopback' as const })), port: addresses[0]!.port, holdsIpv6: addresses.some((address) => address.address === '::1'), heldBy: 'service' };
}

/** Runs the daemon on the held port until it stops; restarts it when it crashes, until it has failed too often. */
function keep(options: KeeperOptions, stateDir: StateDir, lock: DaemonLock, held: HeldPort, listen: ListenAt | undefined): Promise<void> {
  const childOptions: Omit<DaemonChildOptions, 'restarted' | 'crashes' | 'lastCrash'> = {
    port: held.port,
    keeperPid: process.pid,
    portHeldBy: held.heldBy,
    holdsIpv6: held.holdsIpv6,
    logToFile: options.logToFile,
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    ...(listen === undefined ? {} : { listen }),
  };
  // The sockets are this process's alone: the daemon gets connections, never the listening sockets.
  const { LISTEN_PID: _pid, LISTEN_FDS: _fds, LISTEN_FDNAMES: _names, ...childEnv } = options.env;
  // For tests only: a small heap for the daemon alone, to make it run out of memory.
  const heapMb = Number(options.env.ASKBRIDGE_TEST_DAEMON_HEAP_MB);
  const execArgv = [...process.execArgv, ...(Number.isInteger(heapMb) && heapMb > 0 ? [`--max-old-space-size=${heapMb}`] : [])];

  let child: ChildProcess | undefined;
  let serving = false;
  let everServed = false;
  let crashesInARow = 0;
  /** Every daemon that ended without being asked to: how many, the last, and when each of those in the window ended. */
  let crashes = 0;
  let lastCrash: DaemonFailure | undefined;
  const recentCrashes: number[] = [];
  const command = askbridgeCommand(options.env);
  const unavailable = unavailableAnswer(command);
  let restartTimer: NodeJS.Timeout | undefined;
  /** Until then no daemon will serve within RESTART_IMMINENT_MS: connections are answered 503 at once. */
  let refuseUntil = 0;
  let stopping = false;
  let nextConnectionId = 1;
  const waiting = createHoldingPen<Door>();
  /** Handed to the daemon, not yet received by it: a daemon that dies before it does leaves them to the next one. */
  const inFlight = new Map<number, { socket: Socket; door: Door }>();

  let firstServe: { resolve: () => void; reject: (error: Error) => void };
  const firstServed = new Promise<void>((resolve, reject) => (firstServe = { resolve, reject }));

  const hand = (socket: Socket, door: Door) => {
    if (socket.destroyed) return;
    if (!child?.connected || !serving) return hold(socket, door);
    const id = nextConnectionId++;
    inFlight.set(id, { socket, door });
    // keepOpen: the keeper's copy stays open until the daemon says it has the socket, so a daemon
    // that dies between the two loses no connection.
    child.send({ type: 'connection', id, door } satisfies ToDaemon, socket, { keepOpen: true }, (error) => {
      // Not sent: held again, unless the daemon's exit has already taken it back.
      if (error && inFlight.delete(id)) hold(socket, door);
    });
  };
  const hold = (socket: Socket, door: Door) => {
    if (stopping) return void socket.destroy();
    if (Date.now() < refuseUntil) return refuse(socket, door, unavailable);
    waiting.hold(socket, door);
  };
  const handHeld = () => {
    for (const { socket, tag } of waiting.release()) hand(socket, tag);
  };
  const refuseHeld = () => {
    for (const { socket, tag } of waiting.release()) refuse(socket, tag, unavailable);
  };

  for (const { server, door } of held.servers) {
    server.on('connection', (socket: Socket) => {
      socket.on('error', () => {}); // a client that resets while its connection is held
      hand(socket, door);
    });
    // A listening socket that fails (it should not) leaves the port: say so, and stop.
    server.on('error', (error) => {
      options.report(`askbridge keeper: the listening socket failed (${error.message}): stopping`);
      stop(1);
    });
  }

  /** While no daemon serves, daemon.json says so (the last daemon wrote the rest), for `status`, `start` and every command. */
  const recordNotServing = (restartAt: number) => {
    const last = stateDir.readDaemonInfo();
    const { daemonPid: _gone, ...base } =
      last?.pid === process.pid ? last : { pid: process.pid, port: held.port, host: LOOPBACK_HOST, version: VERSION, startedAt: Date.now(), portHeldBy: held.heldBy };
    try {
      stateDir.writeDaemonInfo({ ...base, crashes, ...(lastCrash ? { lastCrash } : {}), restartAt });
    } catch (error) {
      options.report(`askbridge keeper: daemon.json could not be written (${(error as Error).message}): \`${command} status\` cannot say why no daemon serves`);
    }
  };

  const start = () => {
    restartTimer = undefined;
    serving = false;
    const daemon = fork(DAEMON_ENTRY, [JSON.stringify({ ...childOptions, restarted: everServed, crashes, lastCrash } satisfies DaemonChildOptions)], {
      env: childEnv,
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = daemon;
    let failure: string | undefined;
    let servedAt: number | undefined;
    daemon.on('message', (message: ToKeeper) => {
      if (message.type === 'received') {
        inFlight.get(message.id)?.socket.destroy(); // the keeper's copy only: the daemon holds the connection
        inFlight.delete(message.id);
      } else if (message.type === 'serving') {
        serving = true;
        servedAt = Date.now();
        refuseUntil = 0;
        if (!everServed) {
          everServed = true;
          firstServe.resolve();
        }
        handHeld();
      } else if (message.type === 'failed') failure = message.message;
    });
    daemon.on('error', (error) => options.report(`askbridge keeper: the daemon process failed: ${error.message}`));
    daemon.once('exit', (code, signal) => {
      child = undefined;
      serving = false;
      // What it had not received yet goes to the next daemon.
      for (const { socket, door } of inFlight.values()) hold(socket, door);
      inFlight.clear();
      if (stopping) return void finish();
      if (code === 0) return void stop(0);
      if (!everServed) {
        stopping = true;
        // Its reason goes to the start that waits for it, which says it and exits 1.
        finish(false);
        return firstServe.reject(new KeeperStartError(failure ?? `the daemon exited (${code ?? signal}) before it served`));
      }
      const now = Date.now();
      const reason = describeExit(code, signal, failure, servedAt !== undefined);
      crashes++;
      lastCrash = { at: now, reason };
      recentCrashes.push(now);
      while (recentCrashes[0]! <= now - CRASH_WINDOW_MS) recentCrashes.shift();
      if (recentCrashes.length >= CRASH_BUDGET) return giveUp(reason);
      // One that never served, or served only a moment, is part of a crash loop: each waits longer.
      crashesInARow = servedAt !== undefined && now - servedAt >= STABLE_MS ? 1 : crashesInARow + 1;
      const delay = crashesInARow === 1 ? 0 : Math.min(FIRST_BACKOFF_MS * BACKOFF_FACTOR ** (crashesInARow - 2), MAX_BACKOFF_MS);
      if (delay > RESTART_IMMINENT_MS) {
        // Nobody is kept waiting that long: the agents ask in their own dialogs meanwhile.
        refuseUntil = now + delay - RESTART_IMMINENT_MS;
        refuseHeld();
      }
      recordNotServing(now + delay);
      options.report(`askbridge keeper: the daemon (pid ${daemon.pid}) ${reason}; ${crashesInARow > 1 ? `${crashesInARow} crashes in a row: ` : ''}restarting it ${delay === 0 ? 'at once' : `in ${delay} ms`}; the port stays held`);
      restartTimer = setTimeout(start, delay);
    });
  };

  let exitCode = 0;
  let killTimer: NodeJS.Timeout | undefined;
  /** Stop the daemon (it hands waiting questions back), then let go of everything. */
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    clearTimeout(restartTimer);
    if (!child) return void finish();
    if (child.connected) child.send({ type: 'stop' } satisfies ToDaemon, () => {});
    else child.kill('SIGTERM');
    const running = child;
    killTimer = setTimeout(() => running.kill('SIGKILL'), STOP_WAIT_MS);
  };
  /** Too many failures: the reason stays in gave-up.json for `status` and the next start; the port and the lock go. */
  const giveUp = (reason: string) => {
    stopping = true;
    exitCode = 1;
    refuseHeld();
    const gaveUp = { at: Date.now(), crashes: CRASH_BUDGET, withinMs: CRASH_WINDOW_MS, reason };
    try {
      stateDir.writeGaveUp(gaveUp);
    } catch {
      // a full disk: the line below says it all the same
    }
    options.report(`askbridge keeper: the daemon failed ${CRASH_BUDGET} times in ${CRASH_WINDOW_MS / 60_000} minutes, the last: ${reason}: giving up; the port and the state directory are let go`);
    finish();
  };
  /** Lets go of the port and the lock, and exits; `exit` false: the caller's promise says why it ended. */
  const finish = (exit = true) => {
    clearTimeout(killTimer);
    waiting.closeAll();
    for (const { server } of held.servers) server.close();
    // The daemon removes daemon.json and the token when it stops; one that crashed could not.
    stateDir.removeDaemonInfo(process.pid);
    lock.release();
    if (exit) process.exit(exitCode);
  };

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) {
        // A second signal: at once.
        child?.kill('SIGKILL');
        return;
      }
      stop(0);
    });
  }

  start();
  return firstServed;
}

/** Why a daemon ended, in one line: how it exited, and what it said before, when it said something. */
function describeExit(code: number | null, signal: NodeJS.Signals | null, failure: string | undefined, served: boolean): string {
  const how = signal ?? `code ${code}`;
  if (failure === undefined) return `exited (${how})`;
  // Its own words may carry text it was given (a question's): marked, as everything shown in a terminal.
  const said = markInvisible(failure.split('\n', 1)[0]!.slice(0, MAX_REASON_CHARS));
  return `${served ? 'crashed' : 'could not start'} (${how}): ${said}`;
}

/** The 503 `refuse` sends; `command` runs askbridge here (askbridgeCommand). */
function unavailableAnswer(command: string): string {
  const body = JSON.stringify({ error: `no daemon serves now: askbridge keeps failing to start it (\`${command} status\` says why)` });
  return `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * The answer while no daemon will serve soon: a 503, which a hook takes as "no decision" (Claude
 * Code's http hook shows its own dialog; the command hook lets the terminal ask). What the client
 * sent is read and dropped, so that closing does not reset the connection before the answer is
 * read. --listen speaks TLS, which only the daemon does: there the connection is closed, which
 * every client there takes as the same.
 */
function refuse(socket: Socket, door: Door, unavailable: string): void {
  if (door === 'listen') return void socket.destroy();
  socket.on('data', () => {});
  socket.resume();
  socket.end(unavailable);
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}
