// The hook, the CLI and bare Node as real processes, started as Claude Code and a person start them.
// Every one of them is tracked until it exits, so that a failed test can still clean up after itself.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { now } from './clock.js';
import { baseEnv, CLI_BIN, HOOK_SCRIPT, REPO_ROOT } from './env.js';
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
  /** When its first stdout arrived (now() clock), if it wrote any. */
  firstStdoutAt: number | undefined;
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

function startProcess(args: string[], env: NodeJS.ProcessEnv, stdin: string | Buffer | null): RunningProcess {
  const startedAt = now();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  track(child);
  let stdout = '';
  let stderr = '';
  let firstStdoutAt: number | undefined;
  let endedAt = Number.NaN;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    firstStdoutAt ??= now();
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // The hook may exit before it reads all of stdin (it must not, but that is for the test to find).
  child.stdin.on('error', () => {});
  if (stdin === null) child.stdin.end();
  else child.stdin.end(stdin);
  const result = new Promise<ProcessResult>((resolveResult, reject) => {
    child.once('error', reject);
    child.once('exit', () => (endedAt = now()));
    // 'close' follows 'exit' once stdout and stderr are read to the end.
    child.once('close', (code, signal) => resolveResult({ stdout, stderr, code, signal, ms: endedAt - startedAt, endedAt, firstStdoutAt }));
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
