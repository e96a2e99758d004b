// @ts-check
// Helpers for the benchmarks: statistics, timed child processes, a real daemon in temp dirs, and one
// cleanup list that runs whatever happens (error, Ctrl-C), so no daemon, hook or browser outlives a run.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { checkHello, newNonce, openLine, signQuestion } from '../dist/daemon/hook-identity.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BIN = join(REPO_ROOT, 'bin', 'askbridge.mjs');
export const HOOK_SCRIPT = join(REPO_ROOT, 'hooks', 'askbridge-hook.cjs');
export const FIXTURES_DIR = join(REPO_ROOT, 'tests', 'fixtures');
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

const PAGE_URL_LINE = /Answer page \(one-time link, pairs one browser\): (http:\/\/127\.0\.0\.1:(\d+)\/#pair=[A-Za-z0-9_-]+)/;

/** Wall-clock milliseconds on a clock that Chromium's `performance.timeOrigin + performance.now()` shares. */
export const epochNow = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Cleanup: last in, first out; each step runs once even if cleanup is triggered twice.

const cleanups = [];
export function onCleanup(fn) {
  const entry = { fn, done: false };
  cleanups.push(entry);
  return async () => {
    if (entry.done) return;
    entry.done = true;
    await fn();
  };
}
export async function runCleanups() {
  while (cleanups.length > 0) {
    const entry = cleanups.pop();
    if (entry.done) continue;
    entry.done = true;
    try {
      await entry.fn();
    } catch (error) {
      process.stderr.write(`cleanup: ${/** @type {Error} */ (error).message}\n`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics

/** Linear-interpolated quantile (q in 0..1) of an unsorted list. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function summarize(values) {
  return {
    n: values.length,
    min: Math.min(...values),
    p10: quantile(values, 0.1),
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
    max: Math.max(...values),
  };
}

// ---------------------------------------------------------------------------------------------
// Fixtures and environments

export function loadFixture(name) {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, `${name}.input.json`), 'utf8'));
}

/** The payloads Claude Code really sends (the malformed ones are for the tests only). */
export function validFixtureNames() {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.input.json') && !file.startsWith('9'))
    .map((file) => file.slice(0, -'.input.json'.length))
    .sort();
}

let uniqueCounter = 0;
/** A fixture as a new tool call: the same session and tool_use_id would attach to an old question. */
export function freshPayload(fixture, tag = 'b') {
  const payload = typeof fixture === 'string' ? loadFixture(fixture) : fixture;
  return { ...payload, tool_use_id: `${payload.tool_use_id}_${tag}${process.pid}_${++uniqueCounter}` };
}

/** Variables that would change how the daemon or the hook behave (attended or not, ports, logs). */
const SCRUBBED_ENV = ['ASKBRIDGE_HOME', 'ASKBRIDGE_PORT', 'ASKBRIDGE_DEBUG', 'ASKBRIDGE_LOG_LEVEL', 'ASKBRIDGE_UNATTENDED', 'CI', 'CLAUDE_CODE_SESSION_ATTENDED', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_PROJECT_DIR', 'CLAUDECODE', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'NODE_OPTIONS'];
export function baseEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of SCRUBBED_ENV) delete env[name];
  return { ...env, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Child processes

const liveChildren = new Set();
onCleanup(async () => {
  await Promise.all(
    [...liveChildren].map(
      (child) =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done(undefined);
          child.once('exit', done);
          child.kill('SIGKILL');
        }),
    ),
  );
});

/**
 * Spawns `node ARGS` with `stdin` written and closed. Times are epoch ms (epochNow): startedAt just
 * before spawn(), firstStdoutAt at the first stdout byte, exitedAt at the 'exit' event.
 */
export function runNode(args, { env, stdin = '' }) {
  const startedAt = epochNow();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  liveChildren.add(child);
  let stdout = '';
  let stderr = '';
  let firstStdoutAt;
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    firstStdoutAt ??= epochNow();
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  // `node -e 0` exits without reading stdin: a broken pipe there is expected.
  child.stdin.on('error', () => {});
  child.stdin.end(stdin);
  const exited = new Promise((resolveExit, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const exitedAt = epochNow();
      liveChildren.delete(child);
      // stdout may still be draining after 'exit'; 'close' means all of it was read.
      const finish = () => resolveExit({ code, signal, startedAt, exitedAt, firstStdoutAt, ms: exitedAt - startedAt, stdout, stderr });
      if (child.stdout.closed && child.stderr.closed) finish();
      else child.once('close', finish);
    });
  });
  return { child, startedAt, exited };
}

// ---------------------------------------------------------------------------------------------
// HTTP as a local client (bearer token, no Origin)

export function httpJson(port, token, method, path, body, timeoutMs = 5000) {
  return new Promise((resolveResponse, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request({
      host: '127.0.0.1',
      port,
      method,
      path,
      agent: false,
      timeout: timeoutMs,
      headers: { authorization: `Bearer ${token}`, ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }) },
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolveResponse({ status: res.statusCode, body: json, text });
      });
    });
    req.end(data);
  });
}

// ---------------------------------------------------------------------------------------------
// The daemon

/**
 * Starts `askbridge start` on a free port with its own state and config dirs. Resolves once it
 * printed its page link. `config` is written to $XDG_CONFIG_HOME/askbridge/config.json first.
 */
/** @param {{ config?: Record<string, unknown>, timeoutMs?: number }} [options] */
export async function startDaemon({ config, timeoutMs = 15_000 } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'askbridge-bench-home-'));
  const configHome = mkdtempSync(join(tmpdir(), 'askbridge-bench-config-'));
  if (config) {
    mkdirSync(join(configHome, 'askbridge'), { recursive: true });
    writeFileSync(join(configHome, 'askbridge', 'config.json'), JSON.stringify(config));
  }
  const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: configHome });
  const startedAt = epochNow();
  const child = spawn(process.execPath, [CLI_BIN, 'start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  // Stops the daemon (SIGTERM, then SIGKILL) and removes its directories; safe to call twice.
  const stop = onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(configHome, { recursive: true, force: true });
  });

  // The daemon logs a line per question: keep reading, or a full pipe would stall it. Keep only the tail.
  let stdout = '';
  let stderr = '';
  let urlLineAt;
  let match;
  let partial = '';
  const waiters = new Set();
  const logListeners = new Set();
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    if (!match) {
      stdout += chunk;
      match = PAGE_URL_LINE.exec(stdout);
      if (match) urlLineAt = epochNow();
    } else {
      stdout = (stdout + chunk).slice(-20_000);
    }
    if (logListeners.size > 0) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line);
        for (const listener of logListeners) listener(entry);
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  child.once('exit', () => {
    for (const wake of waiters) wake();
  });

  try {
    await new Promise((found, fail) => {
      const timer = setTimeout(() => fail(new Error(`the daemon printed no page link within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        if (match) {
          clearTimeout(timer);
          waiters.delete(check);
          found(undefined);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          waiters.delete(check);
          fail(new Error(`the daemon exited (${child.exitCode ?? child.signalCode}) before printing its page link`));
        }
      };
      waiters.add(check);
      check();
    });
  } catch (error) {
    await stop();
    throw new Error(`${/** @type {Error} */ (error).message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  }

  if (!match) throw new Error('unreachable: the wait above ends only with the page link');
  const port = Number(match[2]);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  return {
    child,
    pid: child.pid,
    port,
    token,
    home,
    configHome,
    pairingUrl: match[1],
    origin: `http://127.0.0.1:${port}`,
    startedAt,
    urlLineAt,
    /** For hooks and the CLI: found through daemon.json, as in real use (ASKBRIDGE_PORT unset). */
    clientEnv: (extra = {}) => baseEnv({ ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: configHome, ...extra }),
    api: (method, path, body) => httpJson(port, token, method, path, body),
    /** Calls `listener` with each JSON log line the daemon writes from now on (pino: `time` is epoch ms). */
    onLog(listener) {
      logListeners.add(listener);
      return () => logListeners.delete(listener);
    },
    output: () => ({ stdout, stderr }),
    stop,
  };
}

/** VmRSS (and VmHWM, the peak) of a process, in bytes (the kernel reports KiB). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

export const sleep = (ms) => new Promise((wake) => setTimeout(wake, ms));

/**
 * Asks a question the way the hook does (hello, then the signed question on its own socket) and
 * keeps the NDJSON response open. `accepted` and `settled` resolve with the epoch time of their
 * line; `sentAt` is when the question itself was sent (after the hello), `close()` withdraws it.
 */
export function openQuestion(port, token, payload, environment = {}) {
  const body = JSON.stringify({ payload, environment });
  let onAccepted;
  let onSettled;
  let onFailed;
  const accepted = new Promise((ok, fail) => {
    onAccepted = ok;
    onFailed = fail;
  });
  const settled = new Promise((ok) => (onSettled = ok));
  settled.catch(() => {});
  /** @type {{ sentAt: number, accepted: Promise<{ at: number, id: string }>, settled: Promise<{ at: number, event: Record<string, unknown> }>, req: import('node:http').ClientRequest | undefined, close(): void }} */
  const asked = { sentAt: NaN, accepted, settled, req: undefined, close: () => asked.req?.destroy() };
  const hookNonce = newNonce();
  fetch(`http://127.0.0.1:${port}/api/hook/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nonce: hookNonce }) })
    .then((response) => response.json())
    .then((hello) => {
      if (!checkHello(token, hookNonce, hello)) throw new Error('the daemon could not prove it holds the token');
      const credentials = { daemonNonce: hello.nonce, hookNonce };
      asked.sentAt = epochNow();
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/hook/questions',
        agent: false,
        headers: { authorization: signQuestion(token, credentials, body), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      asked.req = req;
      req.on('error', (error) => onFailed(error));
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          onFailed(new Error(`POST /api/hook/questions answered ${res.statusCode}`));
          res.resume();
          return;
        }
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffered += chunk;
          let newline;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = openLine(token, credentials, buffered.slice(0, newline));
            buffered = buffered.slice(newline + 1);
            if (!line) return onFailed(new Error('a hook line that is not signed for this request'));
            if (line.event === 'accepted') onAccepted({ at: epochNow(), id: line.body.id });
            if (line.event === 'settled') onSettled({ at: epochNow(), event: { event: 'settled', ...line.body } });
          }
        });
        res.on('error', () => {});
      });
      req.end(body);
    })
    .catch((error) => onFailed(error));
  return asked;
}

/**
 * A POST as Claude Code's http hook sends it: the payload as the body, the hook key in a header,
 * keep-alive (pass the same agent for every question, as Claude Code's one client does). `done`
 * resolves with the epoch time the whole response body had arrived, and the body.
 */
export function postAsHttpHook(port, key, payload, agent) {
  const body = JSON.stringify(payload);
  const startedAt = epochNow();
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/hook/ask',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-askbridge-hook-key': key, connection: 'keep-alive' },
  });
  const done = new Promise((ok, fail) => {
    req.on('error', fail);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => ok({ at: epochNow(), statusCode: res.statusCode, body: text }));
      res.on('error', fail);
    });
  });
  req.end(body);
  return { startedAt, done };
}
