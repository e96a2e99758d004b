// However the daemon ends (a signal, a crash), waiting hooks fall through at once, so the terminal
// asks. Stopped, it leaves the state directory clean: no daemon.json, token or lock behind; crashed,
// its keeper starts it again on the port it kept.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';
import { waitUntil } from '../stack/clock.js';
import { expectHandedBackByStoppingDaemon } from '../stack/assertions.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';

// Makes the daemon throw from its event loop when it gets SIGWINCH: a crash on demand.
const CRASH_ON_SIGWINCH = "--import=data:text/javascript,process.on('SIGWINCH',()=>setImmediate(()=>{throw(Error('boom'))}))";

const daemons: Daemon[] = [];
afterAll(async () => {
  await killStrayProcesses();
  await Promise.all(daemons.map((daemon) => daemon.stop()));
});

/** A hook waiting on `daemon`, which says why it leaves (ASKBRIDGE_DEBUG=1). */
async function withWaitingHook(daemon: Daemon, tag: string) {
  const payload = freshPayload('01-single-select', tag);
  const hook = runHook(payload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' });
  const { id } = await daemon.waitForAsk(payload.tool_use_id);
  return { hook, id };
}

function expectCleanStateDir(daemon: Daemon): void {
  for (const file of ['daemon.json', 'token', 'daemon.lock']) expect(existsSync(join(daemon.home, file)), file).toBe(false);
}

describe('the daemon, whichever way it ends', () => {
  it('stops cleanly on SIGHUP (its terminal closed): exit 0, the waiting hook falls through at once', async () => {
    const daemon = await startDaemon();
    daemons.push(daemon);
    const { hook, id } = await withWaitingHook(daemon, 'sighup');
    daemon.expectExit();
    daemon.child.kill('SIGHUP');
    await expectHandedBackByStoppingDaemon(daemon, id, await hook.result);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expectCleanStateDir(daemon);
  });

  it('on a crash, lets the waiting hook fall through at once, logs why and exits 1; the keeper starts a new daemon on the same port', async () => {
    const daemon = await startDaemon({ env: { NODE_OPTIONS: CRASH_ON_SIGWINCH } });
    daemons.push(daemon);
    const { hook, id } = await withWaitingHook(daemon, 'crash');
    const crashed = daemon.daemonPid();
    process.kill(crashed, 'SIGWINCH');
    await expectHandedBackByStoppingDaemon(daemon, id, await hook.result);
    expect(daemon.logs().some((entry) => entry.msg === 'daemon crashed: stopping cleanly' && (entry.err as { message?: string } | undefined)?.message === 'boom')).toBe(true);
    // The keeper says how the daemon ended and why, and starts another, which serves on the same port.
    const said = await waitUntil(() => /the daemon \(pid (\d+)\) crashed \(code 1\): (.*); restarting it at once; the port stays held/.exec(daemon.output().stderr) ?? undefined, 10_000, 'the keeper to restart the crashed daemon');
    expect(said[1]).toBe(String(crashed));
    expect(said[2]).toContain('boom');
    await daemon.waitForLog((entry) => entry.msg === 'askbridge is listening' && entry.pid !== crashed, 10_000, 'the new daemon to serve');
    expect(daemon.daemonPid()).not.toBe(crashed);
    expect(daemon.running()).toBe(true);
    const status = await runCli(['status', '--json'], daemon.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: daemon.child.pid });
  });
});
