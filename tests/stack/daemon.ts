// The daemon as a person runs it: `askbridge start` as a real process, with its own state directory
// and its own (empty, or given) user config, on a free port.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryLineSchema, type HistoryLine } from '../../src/history-file.js';
import { isProcessAlive } from '../../src/state-dir.js';
import { checkShape } from '../../src/protocol.js';
import type { AskView } from '../../src/protocol.js';
import { now, waitUntil } from './clock.js';
import { assertBuildIsFresh, baseEnv, CLI_BIN, REPO_ROOT, SCRIPTED_USER } from './env.js';
import { askOverHttp, type HookReply } from './hook-client.js';
import { stopProcess } from './processes.js';

const PAGE_URL_LINE = /^Answer page \(one-time link, pairs one browser\): (http:\/\/127\.0\.0\.1:(\d+)\/)#pair=([A-Za-z0-9_-]+)\s*$/m;

export type LogEntry = { level?: number; msg?: string; askId?: string; [key: string]: unknown };

export type Daemon = {
  /** The page's origin, e.g. http://127.0.0.1:41234/ */
  url: string;
  /** The one-time link the daemon printed at start. */
  pairingUrl: string;
  home: string;
  port: number;
  /** The bearer token of local programs (the CLI, WebSocket listeners) when the daemon started: $ASKBRIDGE_HOME/token. */
  token: string;
  /** Just before the daemon was spawned (now() clock). */
  startedAt: number;
  /** When its page link had been read from its stdout (now() clock). */
  linkPrintedAt: number;
  /** $ASKBRIDGE_HOME/history.jsonl, where the daemon appends each finished question. */
  historyFile: string;
  /** For the hook and the CLI: ASKBRIDGE_HOME set, ASKBRIDGE_PORT unset (found through daemon.json). */
  env: NodeJS.ProcessEnv;
  /** `askbridge start`: the keeper, which holds the port and the lock and runs the daemon process as its child. */
  child: ChildProcess;
  /** The daemon process the keeper runs now, as daemon.json names it (a crash replaces it). */
  daemonPid(): number;
  /** Resolves when the keeper (`askbridge start`) exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether the daemon process is still running. */
  running(): boolean;
  /** Everything the daemon wrote so far. */
  output(): { stdout: string; stderr: string };
  /** The daemon's JSON log lines so far. */
  logs(): LogEntry[];
  /** Waits for a log line matching `match`, among those already written or still to come. */
  waitForLog(match: (entry: LogEntry) => boolean, timeoutMs?: number, what?: string): Promise<LogEntry>;
  /** Asks as the command hook does (hello, then a signed question): `body` is the hook's request body. */
  askAsHook(body: string): Promise<HookReply>;
  /**
   * GET/POST the daemon's API as a local program (bearer token), like the CLI does. A reply is
   * awaited 5 s, unless `held`: a relay's request the daemon holds until its ask is settled.
   */
  api<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, how?: { held: true }): Promise<{ status: number; body: T }>;
  /** The http hook's key as it is now: $ASKBRIDGE_HOME/hook-key. */
  hookKey(): string;
  pending(): Promise<AskView[]>;
  /** One ask, pending or finished, as GET /api/asks/ID returns it. */
  ask(id: string): Promise<AskView>;
  /** The lines of history.jsonl, every question settled so far included (none before the first finishes). */
  history(): Promise<HistoryLine[]>;
  /** A finished ask, found by its tool call (history.jsonl names it), as GET /api/asks/ID returns it: who or what settled it, and when. */
  finishedAsk(toolUseId: string): Promise<AskView>;
  /** Waits until a pending ask for this tool call exists, and returns it. */
  waitForAsk(toolUseId: string, timeoutMs?: number): Promise<AskView>;
  /** Says that the test itself makes the daemon exit (`askbridge stop`, a signal): no warning then. */
  expectExit(): void;
  /**
   * kill -9 of the daemon and its keeper at once, as a reboot or an out-of-memory killer taking both:
   * nothing stops cleanly, nothing restarts it. Resolves once both are gone.
   */
  killOutright(): Promise<void>;
  /**
   * kill -9 of the daemon process alone, as a crash: its keeper holds the port and starts a new one.
   * Resolves once the new one serves.
   */
  crash(): Promise<void>;
  /** Stops the daemon (SIGTERM, then SIGKILL) and removes its state directory. Safe to call twice. */
  stop(): Promise<void>;
};

export type StartDaemonOptions = {
  /**
   * Written as the user config file ($XDG_CONFIG_HOME/askbridge/config.json), over
   * `whenNobodyWatching: "wait"` (SCRIPTED_USER, app.ts) unless `defaults` is set: then only what it
   * says (no file when there is nothing to say), and every default applies.
   */
  config?: Record<string, unknown>;
  defaults?: boolean;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /** Called as soon as the daemon process exists, before it is ready (to watch it from outside). */
  onSpawn?: (child: ChildProcess, home: string) => void;
  /** The state directory (a new temporary one by default); stop() removes it either way. */
  home?: string;
  /** Leave $XDG_CONFIG_HOME/askbridge uncreated, as on a new user's machine. */
  noConfigFolder?: boolean;
  /** A program that runs `node askbridge start` for the harness, with its own arguments first (systemd-socket-activate -l ...), given the environment the daemon is to have. */
  launcher?: (env: NodeJS.ProcessEnv) => string[];
  /** More arguments for `askbridge start` (--listen, --public-url ...). */
  args?: string[];
  /**
   * Wire Claude Code to it first, as a user does: `askbridge install --user` into its HOME, so that
   * every wait (the end of a turn included) reaches it. Without it, that HOME wires nothing.
   */
  wired?: boolean;
};

export async function startDaemon(options: StartDaemonOptions = {}): Promise<Daemon> {
  assertBuildIsFresh();
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'askbridge-e2e-')));
  // Never the machine's own ~/.config/askbridge/config.json: the defaults, or the config a test gives.
  const configHome = join(home, 'xdg-config');
  if (!options.noConfigFolder) await mkdir(join(configHome, 'askbridge'), { recursive: true });
  const userConfig = options.defaults ? options.config : { ...SCRIPTED_USER, ...options.config };
  if (userConfig && !options.noConfigFolder) await writeFile(join(configHome, 'askbridge', 'config.json'), JSON.stringify(userConfig, null, 2));
  // HOME too: a start in the foreground looks for Claude Code's settings there (cli/first-start.ts).
  const daemonEnv = baseEnv({ ASKBRIDGE_PORT: '0', HOME: home, ...options.env, ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: configHome });
  if (options.wired) {
    const installed = spawnSync(process.execPath, [CLI_BIN, 'install', '--user'], { cwd: REPO_ROOT, env: daemonEnv, encoding: 'utf8' });
    if (installed.status !== 0) throw new Error(`askbridge install --user failed: ${installed.stderr}`);
  }
  const startedAt = now();
  const command = [...(options.launcher?.(daemonEnv) ?? []), process.execPath, CLI_BIN, 'start', ...(options.args ?? [])];
  const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env: daemonEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  options.onSpawn?.(child, home);
  let stdout = '';
  let stderr = '';
  // Each JSON log line is parsed once, when its newline arrives.
  const entries: LogEntry[] = [];
  let partialLine = '';
  const logWaiters = new Set<() => void>();
  const notify = () => {
    for (const wake of logWaiters) wake();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        entries.push(JSON.parse(line) as LogEntry);
      } catch {
        // printed text that happens to start with a brace
      }
    }
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });
  let stopped = false;
  let exitExpected = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => {
      notify();
      if (!stopped && !exitExpected) console.error(`[harness] the daemon in ${home} exited (${code ?? signal}) without being stopped by the harness\n--- stderr\n${stderr.slice(-2000)}\n--- stdout (end)\n${stdout.slice(-2000)}`);
      done({ code, signal });
    });
  });

  async function stop(): Promise<void> {
    if (!stopped) {
      stopped = true;
      // The daemon process as the keeper last named it: a keeper killed after its grace leaves it running,
      // and it would go on writing into the folder removed below.
      let daemonPid: number | undefined;
      try {
        daemonPid = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')).daemonPid;
      } catch {
        // Not started far enough to say: the keeper is all there is.
      }
      await stopProcess(child, 5000);
      if (typeof daemonPid === 'number' && isProcessAlive(daemonPid)) {
        process.kill(daemonPid, 'SIGKILL');
        await waitUntil(() => (isProcessAlive(daemonPid) ? undefined : true), 10_000, `the daemon process ${daemonPid} to be gone`);
      }
    }
    await rm(home, { recursive: true, force: true });
  }

  let match: RegExpExecArray | null = null;
  let linkPrintedAt = Number.NaN;
  try {
    match = await new Promise<RegExpExecArray>((found, fail) => {
      const timer = setTimeout(() => fail(new Error(`the daemon printed no page link within ${options.startTimeoutMs ?? 15_000} ms`)), options.startTimeoutMs ?? 15_000);
      const check = () => {
        const line = PAGE_URL_LINE.exec(stdout);
        if (line) {
          linkPrintedAt = now();
          clearTimeout(timer);
          logWaiters.delete(check);
          found(line);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          logWaiters.delete(check);
          fail(new Error(`the daemon exited (${child.exitCode ?? child.signalCode}) before printing its page link`));
        }
      };
      logWaiters.add(check);
      check();
    });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  }

  const url = match[1]!;
  const port = Number(match[2]);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  // The CLI runs as the daemon's user: the same HOME (never the developer's own, which install would write to).
  const env = baseEnv({ ASKBRIDGE_HOME: home, HOME: daemonEnv.HOME });

  /** The token as it is now: a daemon its keeper started again after a crash made a new one. */
  const currentToken = () => {
    try {
      return readFileSync(join(home, 'token'), 'utf8').trim();
    } catch {
      return token;
    }
  };

  async function api<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, how?: { held: true }): Promise<{ status: number; body: T }> {
    let response: Response;
    try {
      response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        // A new connection each time, as each CLI command makes: one kept alive from a daemon that
        // crashed since (its keeper started another) would be a dead connection, not a finding.
        headers: { authorization: `Bearer ${currentToken()}`, connection: 'close', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(how?.held ? {} : { signal: AbortSignal.timeout(5000) }),
      });
    } catch (error) {
      // Say why: a daemon that died on its own is a finding, not a flaky network.
      const how = child.exitCode !== null || child.signalCode !== null ? `the daemon has exited (${child.exitCode ?? child.signalCode})` : 'the daemon is still running';
      throw new Error(`${method} ${path} failed (${(error as Error).message}); ${how}\n--- daemon stderr\n${stderr.slice(-2000)}\n--- daemon stdout\n${stdout.slice(-3000)}`, { cause: error });
    }
    return { status: response.status, body: (await response.json()) as T };
  }

  const daemon: Daemon = {
    url,
    pairingUrl: match[0].slice(match[0].indexOf('http')).trim(),
    home,
    port,
    token,
    startedAt,
    linkPrintedAt,
    historyFile: join(home, 'history.jsonl'),
    env,
    child,
    daemonPid() {
      const info = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { daemonPid?: unknown };
      if (typeof info.daemonPid !== 'number') throw new Error(`daemon.json names no daemon process: ${JSON.stringify(info)}`);
      return info.daemonPid;
    },
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    askAsHook: (body) => askOverHttp({ port, token, body }),
    output: () => ({ stdout, stderr }),
    logs: () => [...entries],
    waitForLog(matchEntry, timeoutMs = 10_000, what = 'a daemon log line') {
      return new Promise<LogEntry>((found, fail) => {
        const timer = setTimeout(() => {
          logWaiters.delete(check);
          fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- daemon stdout\n${stdout.slice(-4000)}`));
        }, timeoutMs);
        function check() {
          const entry = entries.find(matchEntry);
          if (entry) {
            clearTimeout(timer);
            logWaiters.delete(check);
            found(entry);
          }
        }
        logWaiters.add(check);
        check();
      });
    },
    api,
    hookKey() {
      return readFileSync(join(home, 'hook-key'), 'utf8').trim();
    },
    async pending() {
      const { status, body } = await api<{ asks: AskView[] }>('GET', '/api/asks');
      if (status !== 200) throw new Error(`GET /api/asks answered ${status}: ${JSON.stringify(body)}`);
      return body.asks;
    },
    async ask(id) {
      const { status, body } = await api<{ ask: AskView }>('GET', `/api/asks/${id}`);
      if (status !== 200) throw new Error(`GET /api/asks/${id} answered ${status}`);
      return body.ask;
    },
    async history() {
      // The daemon appends a line just after a question settles, so a hook may have its answer a
      // moment before the line is written: GET /api/history returns once every settled one is.
      if (daemon.running()) await daemon.api('GET', '/api/history?limit=1').catch(() => undefined);
      if (!existsSync(daemon.historyFile)) return [];
      return (await readFile(daemon.historyFile, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        // Strict here: every line the daemon writes must have the shape readers expect.
        .map((line) => {
          const checked = checkShape(HistoryLineSchema, JSON.parse(line));
          if (!checked.ok) throw checked.error;
          return checked.value;
        });
    },
    async finishedAsk(toolUseId) {
      const line = (await daemon.history()).find((entry) => entry.toolUseId === toolUseId);
      if (!line) throw new Error(`history.jsonl has no finished ask for the tool call ${toolUseId}`);
      return daemon.ask(line.id);
    },
    waitForAsk(toolUseId, timeoutMs = 10_000) {
      return waitUntil(async () => (await daemon.pending()).find((ask) => ask.toolUseId === toolUseId), timeoutMs, `ask ${toolUseId} to be pending`);
    },
    expectExit: () => {
      exitExpected = true;
    },
    async killOutright() {
      exitExpected = true;
      const daemonPid = daemon.daemonPid();
      // The daemon first: killed first, the keeper would have its daemon stop cleanly.
      process.kill(daemonPid, 'SIGKILL');
      child.kill('SIGKILL');
      await exited;
      await waitUntil(() => (isProcessAlive(daemonPid) ? undefined : true), 10_000, `the daemon process ${daemonPid} to be gone`);
    },
    async crash() {
      const killed = daemon.daemonPid();
      // Every daemon process that listened so far: the new one is none of them (a second crash must not find the first one's replacement).
      const listened = new Set(entries.filter((entry) => entry.msg === 'askbridge is listening').map((entry) => entry.pid));
      process.kill(killed, 'SIGKILL');
      await waitUntil(() => (isProcessAlive(killed) ? undefined : true), 10_000, `the daemon process ${killed} to be gone`);
      await daemon.waitForLog((entry) => entry.msg === 'askbridge is listening' && !listened.has(entry.pid), 20_000, 'the keeper to start a new daemon');
    },
    stop,
  };
  return daemon;
}
