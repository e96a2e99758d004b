// A daemon that keeps failing must not hold anyone hostage. The keeper says why each daemon ended,
// in its own line and in daemon.json (which `status` and `start` read); while no daemon will serve
// for a while it answers 503 at once, so a hook falls back to its agent's own dialog; `stop` ends it;
// and after a few failures in a row it gives up, lets go of the port and says why.
//
// The failure is a real one: the daemon serves --listen with a TLS key that is then removed (a
// certificate renewal gone wrong). The daemon that runs keeps the key it read, so once it is killed
// each daemon the keeper starts again fails to start, with that reason.
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/state-dir.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { FRONT_NAME, freePort, opensslAvailability, selfSignedCertificate } from '../stack/tls-front.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await killStrayProcesses();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A daemon that serves --listen with its own certificate and key: `keyPath` is read by every daemon the keeper starts. */
async function started(): Promise<Daemon & { keyPath: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-crash-loop-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const { certPath, keyPath } = selfSignedCertificate(dir);
  const port = await freePort();
  const daemon = await startDaemon({ args: ['--listen', `127.0.0.1:${port}`, '--tls-cert', certPath, '--tls-key', keyPath, '--public-url', `https://${FRONT_NAME}:${port}`] });
  cleanups.push(() => daemon.stop());
  return Object.assign(daemon, { keyPath });
}

const WHY = /could not start \(code 1\): cannot read the TLS key \S+: ENOENT/;

/** Makes every daemon the keeper starts from now on fail, then kills the one that runs. */
function startCrashLoop(daemon: Daemon & { keyPath: string }): number {
  rmSync(daemon.keyPath);
  const killed = daemon.daemonPid();
  daemon.expectExit();
  process.kill(killed, 'SIGKILL');
  return killed;
}

/** The keeper's line for a failure after which it waits at least `ms` before it starts the next daemon. */
function waitForBackOff(daemon: Daemon, ms: number): Promise<{ crashes: number; delay: number }> {
  return waitUntil(
    () => {
      for (const match of daemon.output().stderr.matchAll(/askbridge keeper: the daemon \(pid \d+\) .*; (\d+) crashes in a row: restarting it in (\d+) ms; the port stays held/g)) {
        if (Number(match[2]) >= ms) return { crashes: Number(match[1]), delay: Number(match[2]) };
      }
      return undefined;
    },
    30_000,
    `the keeper to wait ${ms} ms or more before its next start`,
  );
}

/** What another local process gets when it tries to listen on 127.0.0.1:PORT: an error code, or 'bound' (then it lets go at once). */
function tryToBind(port: number): Promise<string> {
  return new Promise((settle) => {
    const squatter: Server = createServer();
    squatter.once('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    squatter.listen({ host: '127.0.0.1', port }, () => squatter.close(() => settle('bound')));
  });
}

const openssl = opensslAvailability('the crash loop tests');

describe.skipIf(!openssl.available)('a daemon that keeps failing', () => {
  it("the keeper's line, `status` and `start` say why: the keeper, its crash count and the last reason", async () => {
    const daemon = await started();
    const killed = startCrashLoop(daemon);
    await waitForBackOff(daemon, 2_000);
    expect(daemon.output().stderr).toMatch(new RegExp(`askbridge keeper: the daemon \\(pid ${killed}\\) exited \\(SIGKILL\\); restarting it at once; the port stays held`));
    expect(daemon.output().stderr).toMatch(new RegExp(`askbridge keeper: the daemon \\(pid \\d+\\) ${WHY.source}.*; 2 crashes in a row: restarting it in \\d+ ms`));

    const status = await runCli(['status', '--json'], daemon.env);
    expect(status.code).toBe(1);
    const state = JSON.parse(status.stdout) as { running: boolean; state: string; keeperPid: number; crashes: number; lastCrash: { reason: string } };
    expect(state).toMatchObject({ running: false, state: 'not-serving', keeperPid: daemon.child.pid });
    expect(state.crashes).toBeGreaterThanOrEqual(3);
    expect(state.lastCrash.reason).toMatch(WHY);

    const text = await runCli(['status'], daemon.env);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(new RegExp(`^askbridge's keeper \\(pid ${daemon.child.pid}\\) holds http://127\\.0\\.0\\.1:${daemon.port}/ but no daemon serves: \\d+ crashes since it started, the last at \\S+: ${WHY.source}`));
    // `start` says the same, and does not claim that askbridge runs.
    const start = await runCli(['start', '--background'], { ...daemon.env, ASKBRIDGE_PORT: '0' });
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(new RegExp(`^askbridge start: askbridge's keeper \\(pid ${daemon.child.pid}\\) holds http://127\\.0\\.0\\.1:${daemon.port}/ but no daemon serves: \\d+ crashes since it started`));
  });

  it("answers a hook's request with 503 at once while no daemon will serve for seconds, so the agent's own dialog asks", async () => {
    const daemon = await started();
    startCrashLoop(daemon);
    await waitForBackOff(daemon, 2_000);
    const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: freshPayload('01-single-select', 'during-back-off') });
    const response = await hook.response;
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ error: expect.stringMatching(/no daemon serves/) });
    // Well under the 5 s a held connection waited before it was reset.
    expect(response.at - hook.startedAt).toBeLessThan(1_500);
  });

  it('`askbridge stop` ends the keeper while no daemon serves: exit 0, the port free, the lock gone', async () => {
    const daemon = await started();
    startCrashLoop(daemon);
    await waitForBackOff(daemon, 2_000);
    const stop = await runCli(['stop'], daemon.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toBe('askbridge stopped\n');
    // It returned once the keeper had exited.
    expect(isProcessAlive(daemon.child.pid!)).toBe(false);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(await tryToBind(daemon.port)).toBe('bound');
    expect(existsSync(join(daemon.home, 'daemon.lock'))).toBe(false);
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);
  });

  it('after 5 failures in 2 minutes the keeper gives up: it exits 1 with the reason, lets go of the port, and the next status and start say why', async () => {
    const daemon = await started();
    startCrashLoop(daemon);
    expect(await daemon.exited).toEqual({ code: 1, signal: null });
    expect(daemon.output().stderr).toMatch(new RegExp(`askbridge keeper: the daemon failed 5 times in 2 minutes, the last: ${WHY.source}.*: giving up; the port and the state directory are let go\\n$`));
    expect(await tryToBind(daemon.port)).toBe('bound');
    expect(existsSync(join(daemon.home, 'daemon.lock'))).toBe(false);
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);

    const gaveUp = new RegExp(`askbridge gave up at \\S+ after 5 failures in 2 minutes, the last: ${WHY.source}`);
    const status = await runCli(['status'], daemon.env);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^askbridge is not running/);
    expect(status.stdout).toMatch(gaveUp);
    const json = JSON.parse((await runCli(['status', '--json'], daemon.env)).stdout) as { running: boolean; gaveUp?: { reason: string; crashes: number } };
    expect(json).toMatchObject({ running: false, gaveUp: { crashes: 5 } });
    expect(json.gaveUp!.reason).toMatch(WHY);

    // The next start says it once, and serves.
    const start = await runCli(['start', '--background'], { ...daemon.env, ASKBRIDGE_PORT: '0' });
    try {
      expect(start.code, start.stderr).toBe(0);
      expect(start.stderr).toMatch(gaveUp);
      const after = await runCli(['status'], daemon.env);
      expect(after.code).toBe(0);
      expect(after.stdout).not.toMatch(/gave up/);
    } finally {
      await runCli(['stop'], daemon.env);
    }
  }, 60_000);
});
