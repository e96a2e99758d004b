// End-to-end harness: the real daemon (`askbridge start`), the real hook process, the real CLI and a
// real headless Chromium, each as a separate process, talking over loopback exactly as in use.
// Everything started here is tracked so that a test file's afterAll can always clean it up.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HistoryLineSchema, type HistoryLine } from '../../src/history-file.js';
import { checkShape } from '../../src/protocol.js';
import { askOverHttp, type HookReply } from '../hook-client.js';
import type { QuestionView } from '../../src/protocol.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(HERE, '..', '..');
export const CLI_BIN = join(REPO_ROOT, 'bin', 'askbridge.mjs');
export const HOOK_SCRIPT = join(REPO_ROOT, 'hooks', 'askbridge-hook.cjs');
export const FIXTURES_DIR = resolve(HERE, '..', 'fixtures');
export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const PAGE_URL_LINE = /^Answer page \(one-time link, pairs one browser\): (http:\/\/127\.0\.0\.1:(\d+)\/)#pair=([A-Za-z0-9_-]+)\s*$/m;

/** Every hook and CLI process this harness started and that has not exited yet (daemons have stop()). */
const liveChildren = new Set<ChildProcess>();

function track(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}

/** Kill (SIGKILL) every hook or CLI process still running; for afterAll/afterEach, after a failure. */
export async function killStrayProcesses(): Promise<void> {
  const waits = [...liveChildren].map(
    (child) =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
}

// ---------------------------------------------------------------------------------------------
// Environment and build

/** Variables that would change how the daemon treats a question (unattended, CI) or what it prints. */
const SCRUBBED_ENV = [
  'ASKBRIDGE_HOME',
  'ASKBRIDGE_PORT',
  'ASKBRIDGE_DEBUG',
  'ASKBRIDGE_LOG_LEVEL',
  'ASKBRIDGE_UNATTENDED',
  'CI',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_PROJECT_DIR',
  'CLAUDECODE',
  'XDG_STATE_HOME',
  'XDG_CONFIG_HOME',
  'NODE_OPTIONS',
];

/**
 * Where askbridge looks for the user's config in every test that does not give its own: a folder
 * that does not exist, so no test ever reads the developer's ~/.config/askbridge/config.json.
 */
const NO_USER_CONFIG = join(tmpdir(), 'askbridge-tests-have-no-user-config');

/** process.env without anything that would make a run depend on the machine it runs on. */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED_ENV) delete env[name];
  return { ...env, XDG_CONFIG_HOME: NO_USER_CONFIG, ...extra };
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * The tests run the compiled daemon in dist/. Testing an old build gives misleading results, so
 * refuse to start when a source file is newer than its compiled file, or a page file differs.
 */
export function assertBuildIsFresh(): void {
  const src = join(REPO_ROOT, 'src');
  const dist = join(REPO_ROOT, 'dist');
  const stale: string[] = [];
  for (const file of listFiles(src)) {
    const rel = relative(src, file);
    if (rel.startsWith('web/')) {
      const built = join(dist, rel);
      if (!existsSync(built) || !readFileSync(built).equals(readFileSync(file))) stale.push(rel);
    } else if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) {
      const built = join(dist, rel.replace(/\.ts$/, '.js'));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(file).mtimeMs) stale.push(rel);
    }
  }
  if (stale.length > 0) {
    throw new Error(`dist/ is older than src/ (${stale.slice(0, 5).join(', ')}${stale.length > 5 ? ', ...' : ''}): run \`npm run build\` before the end-to-end tests`);
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/** Reads a fixture from tests/fixtures: `loadFixture('01-single-select.input.json')` (".json" optional). */
export function loadFixture<T = unknown>(name: string): T {
  return JSON.parse(readFixtureText(name)) as T;
}

export function readFixtureText(name: string): string {
  const file = join(FIXTURES_DIR, name.endsWith('.json') ? name : `${name}.json`);
  return readFileSync(file, 'utf8');
}

/** Fixture base names (e.g. "01-single-select") that have `suffix` (e.g. ".answer.json"). */
export function fixtureNames(suffix: string): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith(suffix))
    .map((file) => file.slice(0, -suffix.length))
    .sort();
}

export type HookPayload = {
  session_id: string;
  tool_use_id: string;
  tool_name: string;
  hook_event_name: string;
  cwd?: string;
  tool_input: { questions: QuestionView['questions']; [key: string]: unknown };
  [key: string]: unknown;
};

export type FixtureAnswer = {
  tool_use_id: string;
  responses: Array<{ question: string; selected: string[]; other: string | null; notes: string | null }>;
};

/** A copy of a fixture payload as a different tool call, so that tests never share a question. */
export function freshPayload(fixture: string, tag: string): HookPayload {
  const payload = loadFixture<HookPayload>(`${fixture}.input.json`);
  return { ...payload, tool_use_id: `${payload.tool_use_id}_${tag}` };
}

// ---------------------------------------------------------------------------------------------
// Processes

export type ProcessResult = {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Wall time from spawn to exit (stdio closed), in milliseconds. */
  ms: number;
  /** performance.now() when the process had exited and its output was read. */
  endedAt: number;
};

export type RunningProcess = {
  child: ChildProcess;
  pid: number;
  startedAt: number;
  result: Promise<ProcessResult>;
  /** Output so far, for waiting on a line. */
  output(): { stdout: string; stderr: string };
};

function startProcess(args: string[], env: NodeJS.ProcessEnv, stdin: string | Buffer | null): RunningProcess {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  track(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // The hook may exit before it reads all of stdin (it must not, but that is for the test to find).
  child.stdin.on('error', () => {});
  if (stdin === null) child.stdin.end();
  else child.stdin.end(stdin);
  const result = new Promise<ProcessResult>((resolveResult, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const endedAt = performance.now();
      resolveResult({ stdout, stderr, code, signal, ms: endedAt - startedAt, endedAt });
    });
  });
  if (child.pid === undefined) throw new Error(`could not start ${args.join(' ')}`);
  return { child, pid: child.pid, startedAt, result, output: () => ({ stdout, stderr }) };
}

/** What the hook reads on stdin: a fixture name ("01-single-select" or "...input.json"), a payload, or raw bytes. */
export type HookInput = string | HookPayload | Record<string, unknown> | Buffer;

/** Runs the real hook process with `input` on stdin, as Claude Code does. */
export function runHook(input: HookInput, env: NodeJS.ProcessEnv): RunningProcess {
  let stdin: string | Buffer;
  if (Buffer.isBuffer(input)) stdin = input;
  else if (typeof input === 'string') stdin = readFixtureText(input.endsWith('.json') ? input : `${input}.input.json`);
  else stdin = JSON.stringify(input);
  return startProcess([HOOK_SCRIPT], env, stdin);
}

/** The hook gave the question back to the terminal: exit 0 and nothing on stdout. */
export function expectSilentPassThrough(result: ProcessResult): void {
  expect(result.signal).toBeNull();
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('');
}

/** Runs `askbridge ARGS...` to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return startCli(args, env).result;
}

/** Starts `askbridge ARGS...` (with `stdin`, if given) and returns while it runs. */
export function startCli(args: string[], env: NodeJS.ProcessEnv, stdin: string | null = null): RunningProcess {
  return startProcess([CLI_BIN, ...args], env, stdin);
}

/** Runs `node -e 0`: the floor for any Node process's wall time on this machine. */
export function runBareNode(): Promise<ProcessResult> {
  return startProcess(['-e', '0'], baseEnv(), null).result;
}

/** Runs `start` `times` times in a row and returns every result, fastest first. */
export async function bestOf(times: number, start: () => RunningProcess): Promise<ProcessResult[]> {
  const results: ProcessResult[] = [];
  for (let run = 0; run < times; run++) results.push(await start().result);
  return results.sort((a, b) => a.ms - b.ms);
}

export function parseJson<T = unknown>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${what} is not JSON: ${JSON.stringify(text.slice(0, 500))}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The daemon

export type LogEntry = { level?: number; msg?: string; questionId?: string; [key: string]: unknown };

export type Daemon = {
  /** The page's origin, e.g. http://127.0.0.1:41234/ */
  url: string;
  /** The one-time link the daemon printed at start. */
  pairingUrl: string;
  home: string;
  port: number;
  /** $ASKBRIDGE_HOME/history.jsonl, where the daemon appends each finished question. */
  historyFile: string;
  /** For the hook and the CLI: ASKBRIDGE_HOME set, ASKBRIDGE_PORT unset (found through daemon.json). */
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  /** Resolves when the daemon process exits. */
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
  /** GET/POST the daemon's API as a local program (bearer token), like the CLI does. */
  api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }>;
  pending(): Promise<QuestionView[]>;
  /** One question, pending or finished, as GET /api/questions/ID returns it. */
  question(id: string): Promise<QuestionView>;
  /** The lines of history.jsonl so far (none before the first question finishes). */
  history(): Promise<HistoryLine[]>;
  /** Waits until a pending question for this tool call exists, and returns it. */
  waitForQuestion(toolUseId: string, timeoutMs?: number): Promise<QuestionView>;
  /** Says that the test itself makes the daemon exit (`askbridge stop`, a signal): no warning then. */
  expectExit(): void;
  /** Stops the daemon (SIGTERM, then SIGKILL) and removes its state directory. Safe to call twice. */
  stop(): Promise<void>;
};

function parseLogLines(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      entries.push(JSON.parse(line) as LogEntry);
    } catch {
      // a line still being written
    }
  }
  return entries;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((wake) => setTimeout(wake, ms));
}

export async function waitUntil<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, intervalMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export type StartDaemonOptions = {
  /** Written as the user config file ($XDG_CONFIG_HOME/askbridge/config.json); none by default. */
  config?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /** Called as soon as the daemon process exists, before it is ready (to watch it from outside). */
  onSpawn?: (child: ChildProcess, home: string) => void;
  /** The state directory (a new temporary one by default); stop() removes it either way. */
  home?: string;
  /** Leave $XDG_CONFIG_HOME/askbridge uncreated, as on a new user's machine. */
  noConfigFolder?: boolean;
};

export async function startDaemon(options: StartDaemonOptions = {}): Promise<Daemon> {
  assertBuildIsFresh();
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'askbridge-e2e-')));
  // Never the machine's own ~/.config/askbridge/config.json: the defaults, or the config a test gives.
  const configHome = join(home, 'xdg-config');
  if (!options.noConfigFolder) await mkdir(join(configHome, 'askbridge'), { recursive: true });
  if (options.config) await writeFile(join(configHome, 'askbridge', 'config.json'), JSON.stringify(options.config, null, 2));
  const daemonEnv = baseEnv({ ASKBRIDGE_PORT: '0', ...options.env, ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: configHome });
  const child = spawn(process.execPath, [CLI_BIN, 'start'], { cwd: REPO_ROOT, env: daemonEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  options.onSpawn?.(child, home);
  let stdout = '';
  let stderr = '';
  const logWaiters = new Set<() => void>();
  const notify = () => {
    for (const wake of logWaiters) wake();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
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
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killer);
      }
    }
    await rm(home, { recursive: true, force: true });
  }

  let match: RegExpExecArray | null = null;
  try {
    match = await new Promise<RegExpExecArray>((found, fail) => {
      const timer = setTimeout(() => fail(new Error(`the daemon printed no page link within ${options.startTimeoutMs ?? 15_000} ms`)), options.startTimeoutMs ?? 15_000);
      const check = () => {
        const line = PAGE_URL_LINE.exec(stdout);
        if (line) {
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
  const env = baseEnv({ ASKBRIDGE_HOME: home });

  async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    let response: Response;
    try {
      response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(5000),
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
    historyFile: join(home, 'history.jsonl'),
    env,
    child,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    askAsHook: (body) => askOverHttp({ port, token, body }),
    output: () => ({ stdout, stderr }),
    logs: () => parseLogLines(stdout),
    waitForLog(matchEntry, timeoutMs = 10_000, what = 'a daemon log line') {
      return new Promise<LogEntry>((found, fail) => {
        const timer = setTimeout(() => {
          logWaiters.delete(check);
          fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- daemon stdout\n${stdout.slice(-4000)}`));
        }, timeoutMs);
        function check() {
          const entry = parseLogLines(stdout).find(matchEntry);
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
    async pending() {
      const { status, body } = await api<{ questions: QuestionView[] }>('GET', '/api/questions');
      if (status !== 200) throw new Error(`GET /api/questions answered ${status}`);
      return body.questions;
    },
    async question(id) {
      const { status, body } = await api<{ question: QuestionView }>('GET', `/api/questions/${id}`);
      if (status !== 200) throw new Error(`GET /api/questions/${id} answered ${status}`);
      return body.question;
    },
    async history() {
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
    waitForQuestion(toolUseId, timeoutMs = 10_000) {
      return waitUntil(async () => (await daemon.pending()).find((question) => question.toolUseId === toolUseId), timeoutMs, `question ${toolUseId} to be pending`);
    },
    expectExit: () => {
      exitExpected = true;
    },
    stop,
  };
  return daemon;
}

/** `askbridge answer ID --pick N=LABEL --other N=TEXT --note N=TEXT` arguments for a fixture's answer. */
export function answerArgs(id: string, payload: HookPayload, answer: FixtureAnswer): string[] {
  const args = ['answer', id];
  for (const response of answer.responses) {
    const index = payload.tool_input.questions.findIndex((question) => question.question === response.question);
    if (index < 0) throw new Error(`the answer fixture names a question the input does not ask: ${response.question}`);
    for (const label of response.selected) args.push('--pick', `${index + 1}=${label}`);
    if (response.other !== null) args.push('--other', `${index + 1}=${response.other}`);
    if (response.notes !== null) args.push('--note', `${index + 1}=${response.notes}`);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------
// The browser

/**
 * Whether the browser tests can run. End-to-end tests must not skip silently in CI: there a missing
 * Chromium is an error. Elsewhere they skip, and say why.
 */
export function chromiumAvailability(): { available: true } | { available: false; reason: string } {
  if (existsSync(CHROMIUM_PATH)) return { available: true };
  const reason = `Chromium not found at ${CHROMIUM_PATH} (install the Debian "chromium" package)`;
  if (process.env.CI) throw new Error(`${reason}: the browser end-to-end tests cannot run, and CI must not skip them`);
  console.warn(`SKIPPING browser end-to-end tests: ${reason}`);
  return { available: false, reason };
}

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** A fresh one-time pairing link from `askbridge open --print`. */
export async function newPairingUrl(daemon: Daemon): Promise<string> {
  const result = await runCli(['open', '--print'], daemon.env);
  if (result.code !== 0) throw new Error(`askbridge open --print exited ${result.code}: ${result.stderr}`);
  const url = result.stdout.trim();
  if (!url.startsWith(daemon.url) || !url.includes('#pair=')) throw new Error(`askbridge open --print printed no pairing link: ${result.stdout}`);
  return url;
}

/** Waits until the page shows it is paired and has its first snapshot from the daemon's live feed. */
export async function waitForLivePage(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.locator('#conn[data-state="live"]').waitFor({ state: 'attached', timeout: timeoutMs });
}

export type PairedPage = { context: BrowserContext; page: Page; pairingUrl: string };

export type OpenPairedPageOptions = {
  /** Runs on the new page before it loads (to add routes, listeners or init scripts). */
  beforeNavigate?: (page: Page) => Promise<void>;
  /** The link to pair with (e.g. daemon.pairingUrl, printed at start); a fresh one from the CLI by default. */
  pairingUrl?: string;
  /** How long the page may take to go live; 10 s by default. */
  liveTimeoutMs?: number;
};

/**
 * A new browser context (its own cookies) paired with a one-time link (a fresh one unless
 * `options.pairingUrl` gives one), with the page live.
 */
export async function openPairedPage(browser: Browser, daemon: Daemon, options: OpenPairedPageOptions = {}): Promise<PairedPage> {
  const pairingUrl = options.pairingUrl ?? (await newPairingUrl(daemon));
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await options.beforeNavigate?.(page);
    await page.goto(pairingUrl);
    await waitForLivePage(page, options.liveTimeoutMs);
    return { context, page, pairingUrl };
  } catch (error) {
    await context.close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// A small real file system, to fill up or make read-only

export type SmallDisk = {
  /** Where it is mounted; undefined where mounting is not allowed (it needs root, as CI has). */
  path: string | undefined;
  /** Writes until the file system refuses (ENOSPC); returns the file to remove to free it. */
  fillUp(): string;
  remount(mode: 'ro' | 'rw'): void;
  unmount(): void;
};

export function mountSmallDisk(size: string, name: string): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), `askbridge-${name}-`));
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { stdio: 'ignore' });
    mounted = true;
  } catch {
    console.warn(`[${name}] cannot mount a tmpfs here (it needs root): skipped`);
  }
  return {
    path: mounted ? path : undefined,
    fillUp() {
      const filler = join(path, 'filler');
      for (const chunk of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1]) {
        try {
          for (;;) writeFileSync(filler, Buffer.alloc(chunk), { flag: 'a' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        }
      }
      return filler;
    },
    remount(mode) {
      execFileSync('mount', ['-o', `remount,${mode}`, path]);
    },
    unmount() {
      if (mounted) {
        execFileSync('mount', ['-o', 'remount,rw', path], { stdio: 'ignore' });
        execFileSync('umount', [path]);
      }
      rmSync(path, { recursive: true, force: true });
    },
  };
}
