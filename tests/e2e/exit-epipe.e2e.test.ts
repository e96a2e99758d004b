// `askbridge start | tee log` (or `npm start | tee log`), and the reader goes: Ctrl-C ends tee with
// the rest of the pipeline, or it ends on its own. The keeper's and the daemon's stdout and stderr
// are then a pipe nobody reads, where every write fails (EPIPE). What they still write there (a log
// line, the keeper's word on a crash) may neither keep them from stopping as they are told, nor keep
// the keeper from starting the daemon again after a crash; and neither spins on it.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/state-dir.js';
import { now, sleep, waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';

/** A stop takes well under a second; the keeper kills a daemon that has not stopped after 8 s. */
const STOPPED_WITHIN_MS = 5_000;

// Makes the daemon throw from its event loop when it gets SIGWINCH: a crash on demand.
const CRASH_ON_SIGWINCH = "--import=data:text/javascript,process.on('SIGWINCH',()=>setImmediate(()=>{throw(Error('boom'))}))";

const daemons: Daemon[] = [];
/** Every daemon process a test saw: one that did not stop is killed here, not left spinning. */
const daemonPids: number[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.stop();
  for (const pid of daemonPids.splice(0)) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
});

/** `askbridge start` in a process group of its own, as a shell runs a pipeline, its output read through pipes. */
async function startInPipeline(env: NodeJS.ProcessEnv = {}): Promise<{ daemon: Daemon; daemonPid: number }> {
  // setsid(1) makes a new session and group, then runs node in its own place (same pid).
  const daemon = await startDaemon({ launcher: () => ['setsid'], env });
  daemons.push(daemon);
  daemon.expectExit();
  const daemonPid = daemon.daemonPid();
  daemonPids.push(daemonPid);
  return { daemon, daemonPid };
}

/** The reader of stdout and stderr goes: from now on each write there fails with EPIPE. */
function closeReader(daemon: Daemon): void {
  daemon.child.stdout?.destroy();
  daemon.child.stderr?.destroy();
}

/** A request the daemon writes a log line for: a local program's (it has the token), refused. */
async function loggedRequest(daemon: Daemon): Promise<void> {
  const { status } = await daemon.api('GET', '/api/asks/no-such-ask');
  expect(status).toBeGreaterThanOrEqual(400);
}

/** What a pipe holds on Linux unless its size was changed (pipe(7)): 16 pages. */
const PIPE_CAPACITY_BYTES = 65_536;

/** An ask whose every field has the wrong type: refused, and logged with each problem (a line of some 4 KB). */
const WRONG_ASK = { questions: Array.from({ length: 4 }, () => ({ question: 1, header: 2, options: Array.from({ length: 4 }, () => ({ label: 1, description: 2 })), multiSelect: 'x' })) };

/**
 * The reader stops reading (a pager waiting for a key, a `tee` stuck on a slow disk) while the
 * daemon goes on logging: its pipe fills up, and lines wait in the daemon to be written.
 */
async function stallReaderWithLinesWaiting(daemon: Daemon): Promise<void> {
  const refuse = async () => expect((await daemon.api('POST', '/api/asks', WRONG_ASK)).status).toBe(400);
  await refuse();
  const line = await daemon.waitForLog((entry) => entry.msg === 'request refused' && entry.code === 'invalid_request', 5_000, 'the refused ask to be logged');
  daemon.child.stdout?.pause();
  daemon.child.stderr?.pause();
  // Four times what the pipe holds, in lines like that one: the pipe, and what the reading side had
  // taken in before it paused (a read takes up to 64 KiB), are full, and lines are left waiting.
  const requests = Math.ceil((4 * PIPE_CAPACITY_BYTES) / Buffer.byteLength(JSON.stringify(line)));
  for (let sent = 0; sent < requests; sent++) await refuse();
}

/** Ctrl-C in a terminal: SIGINT to every process of the foreground group. */
function pressCtrlC(daemon: Daemon): void {
  process.kill(-daemon.child.pid!, 'SIGINT');
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const probe = createServer();
    probe.once('error', () => answer(false));
    probe.listen({ host: '127.0.0.1', port }, () => probe.close(() => answer(true)));
  });
}

/** The keeper exited 0 and the daemon is gone, both within STOPPED_WITHIN_MS of `since`, and the port is free. */
async function expectStopped(daemon: Daemon, daemonPid: number, since: number): Promise<void> {
  const exited = await Promise.race([daemon.exited, sleep(STOPPED_WITHIN_MS).then(() => 'still running' as const)]);
  expect(exited, 'the keeper').toEqual({ code: 0, signal: null });
  await waitUntil(() => (isProcessAlive(daemonPid) ? undefined : true), Math.max(0, since + STOPPED_WITHIN_MS - now()), `the daemon (pid ${daemonPid}) to be gone`);
  expect(now() - since).toBeLessThan(STOPPED_WITHIN_MS);
  expect(await portIsFree(daemon.port)).toBe(true);
}

/** Once the daemon has stopped serving and removed its state files, which it does just before it exits. */
function whenStateFilesRemoved(daemon: Daemon): Promise<true> {
  return waitUntil(() => (existsSync(join(daemon.home, 'daemon.json')) ? undefined : true), STOPPED_WITHIN_MS, 'daemon.json to be removed');
}

describe('a daemon whose output nobody reads any more', () => {
  it('Ctrl-C while the reader has stopped reading, which then goes: the keeper and the daemon exit, and the port is free', async () => {
    const { daemon, daemonPid } = await startInPipeline();
    await stallReaderWithLinesWaiting(daemon);
    const signalled = now();
    pressCtrlC(daemon);
    // The reader goes as the daemon stops: whatever still waits to be written can no longer be.
    await whenStateFilesRemoved(daemon);
    closeReader(daemon);
    await expectStopped(daemon, daemonPid, signalled);
  });

  it('SIGTERM to the keeper while the reader has stopped reading, which then goes: the keeper and the daemon exit, and the port is free', async () => {
    const { daemon, daemonPid } = await startInPipeline();
    await stallReaderWithLinesWaiting(daemon);
    const signalled = now();
    daemon.child.kill('SIGTERM');
    await whenStateFilesRemoved(daemon);
    closeReader(daemon);
    await expectStopped(daemon, daemonPid, signalled);
  });

  it('the reader gone, a crash: the keeper, which says so on the closed stderr, starts the daemon again on its port; with lines logged since, Ctrl-C stops both', async () => {
    const { daemon, daemonPid: crashed } = await startInPipeline({ NODE_OPTIONS: CRASH_ON_SIGWINCH });
    closeReader(daemon);
    await loggedRequest(daemon);
    process.kill(crashed, 'SIGWINCH');
    const restarted = await waitUntil(
      async () => {
        let pid: number;
        try {
          pid = daemon.daemonPid();
        } catch {
          return undefined; // daemon.json between two daemons
        }
        return pid !== crashed && (await daemon.api('GET', '/api/asks').catch(() => undefined))?.status === 200 ? pid : undefined;
      },
      10_000,
      'a new daemon to serve on the port',
    );
    daemonPids.push(restarted);
    expect(daemon.running()).toBe(true);
    expect(isProcessAlive(crashed)).toBe(false);
    await loggedRequest(daemon);
    const signalled = now();
    pressCtrlC(daemon);
    await expectStopped(daemon, restarted, signalled);
  });
});
