// The hook, the CLI and bare Node as real processes, started as Claude Code and a person start them.
// Every one of them is tracked until it exits, so that a failed test can still clean up after itself.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { now } from './clock.js';
import { assertBuildIsFresh, baseEnv, CLI_BIN, HOOK_SCRIPT, REPO_ROOT, SCRIPTED_USER } from './env.js';
import { readFixtureText, type HookPayload } from './fixtures.js';

/** Every hook and CLI process started here that has not exited yet (daemons have stop()). */
const liveChildren = new Set<ChildProcess>();

function track(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}

/** Resolves once `child` has exited (at once if it already has). */
export function whenExited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

/** SIGTERM, then SIGKILL if `child` is still running `graceMs` later; resolves once it has exited. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await whenExited(child);
  clearTimeout(killer);
}

/** Kill (SIGKILL) every hook or CLI process still running; for afterAll/afterEach, after a failure. */
export async function killStrayProcesses(): Promise<void> {
  for (const child of liveChildren) child.kill('SIGKILL');
  await Promise.all([...liveChildren].map(whenExited));
}

export type ProcessResult = {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Wall time from spawn to exit, in milliseconds. */
  ms: number;
  /** When the process exited (now() clock); the result comes once its output is read too. */
  endedAt: number;
};

export type RunningProcess = {
  child: ChildProcess;
  pid: number;
  /** Just before spawn (now() clock). */
  startedAt: number;
  result: Promise<ProcessResult>;
  /** Output so far, for waiting on a line. */
  output(): { stdout: string; stderr: string };
};

/** Who a process runs as, and where (another user's processes start in a folder of their own). */
type Identity = { uid: number; gid: number; cwd: string };

function startProcess(args: string[], env: NodeJS.ProcessEnv, stdin: string | Buffer | null, identity?: Identity): RunningProcess {
  const startedAt = now();
  const child = spawn(process.execPath, args, { cwd: identity?.cwd ?? REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], ...(identity ? { uid: identity.uid, gid: identity.gid } : {}) });
  track(child);
  let stdout = '';
  let stderr = '';
  let endedAt = Number.NaN;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // The hook may exit before it reads all of stdin (it must not, but that is for the test to find).
  child.stdin.on('error', () => {});
  if (stdin === null) child.stdin.end();
  else child.stdin.end(stdin);
  const result = new Promise<ProcessResult>((resolveResult, reject) => {
    child.once('error', reject);
    child.once('exit', () => (endedAt = now()));
    // 'close' follows 'exit' once stdout and stderr are read to the end.
    child.once('close', (code, signal) => resolveResult({ stdout, stderr, code, signal, ms: endedAt - startedAt, endedAt }));
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

/** Runs `askbridge ARGS...` to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return startCli(args, env).result;
}

/** Starts `askbridge ARGS...` (with `stdin`, if given) and returns while it runs. */
export function startCli(args: string[], env: NodeJS.ProcessEnv, stdin: string | null = null): RunningProcess {
  return startProcess([CLI_BIN, ...args], env, stdin);
}

/** Starts Node with `args` as another user (tests/stack/neighbour.ts), stdin closed. */
export function startNode(args: string[], env: NodeJS.ProcessEnv, identity: Identity): RunningProcess {
  return startProcess(args, env, null, identity);
}

/** Runs `node -e 0`: the floor for any Node process's wall time on this machine. */
export function runBareNode(): Promise<ProcessResult> {
  return startProcess(['-e', '0'], baseEnv(), null).result;
}

/** What a Node process had loaded when it exited. */
export type LoadedModules = {
  /** Every file loaded through require (CommonJS), as absolute paths. */
  files: string[];
  /** Node's own public modules (`net`, `http`...), its internal ones left out. */
  builtins: string[];
  /** Whether Node's ES module loader ever started: any `import`, static or dynamic, starts it. */
  esModuleLoader: boolean;
};

/**
 * A reporter for a Node process to require before its own code (through NODE_OPTIONS, in `env`): as
 * the process exits, it writes every module it loaded, which read() returns. What the hook costs to
 * start is what it loads.
 */
export async function moduleReport(): Promise<{ env: NodeJS.ProcessEnv; read(): Promise<LoadedModules> }> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-modules-'));
  const reporter = join(dir, 'report-modules.cjs');
  const report = join(dir, 'modules.json');
  await writeFile(
    reporter,
    `process.on('exit', () => {
  const loaded = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => name.slice('NativeModule '.length));
  require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({
    files: Object.keys(require.cache).filter((file) => file !== __filename),
    builtins: loaded.filter((name) => !name.startsWith('internal/')),
    esModuleLoader: loaded.includes('internal/modules/esm/loader'),
  }));
});
`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${JSON.stringify(reporter)}` },
    async read() {
      try {
        return parseJson<LoadedModules>(await readFile(report, 'utf8'), 'the module report');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

export function parseJson<T = unknown>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${what} is not JSON: ${JSON.stringify(text.slice(0, 500))}`);
  }
}

/**
 * A daemon as the SessionStart hook leaves it: `askbridge start --background` in a new state
 * directory, logging to its rotated files, each at most `logFileBytes` (tests rotate it in
 * seconds). `stop` runs `askbridge stop` and removes the directory.
 */
export async function startBackgroundDaemon(logFileBytes: number): Promise<{ home: string; env: NodeJS.ProcessEnv; port: number; key: string; stop: () => Promise<void> }> {
  assertBuildIsFresh();
  const home = mkdtempSync(join(tmpdir(), 'askbridge-background-'));
  const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config'), ASKBRIDGE_TEST_LOG_FILE_BYTES: String(logFileBytes) });
  mkdirSync(join(home, 'xdg-config', 'askbridge'), { recursive: true });
  writeFileSync(join(home, 'xdg-config', 'askbridge', 'config.json'), JSON.stringify(SCRIPTED_USER));
  const stop = async () => {
    await runCli(['stop'], env);
    rmSync(home, { recursive: true, force: true });
  };
  const started = await runCli(['start', '--background'], env);
  if (started.code !== 0) {
    await stop();
    throw new Error(`askbridge start --background exited ${started.code}: ${started.stderr}`);
  }
  const port = Number(new URL(parseJson<{ url: string }>((await runCli(['status', '--json'], env)).stdout, 'status').url).port);
  return { home, env, port, key: readFileSync(join(home, 'hook-key'), 'utf8').trim(), stop };
}
