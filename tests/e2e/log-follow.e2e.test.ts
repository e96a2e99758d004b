// `askbridge logs --follow` while the daemon's log rotates (a test-only small rotation size, so that
// it rotates many times in a few seconds): every line the daemon writes meanwhile is shown exactly
// once, those written just before a rotation included. Real processes: the background daemon, the
// follower, and the SessionEnd requests whose reasons make the numbered lines.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { postSessionEndAsHttpHook, sessionEndPayload } from '../stack/hook-client.js';
import { killStrayProcesses, parseJson, startBackgroundDaemon, startCli } from '../stack/processes.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

const ENDED = 'session ended: its waiting questions withdrawn';

describe('askbridge logs --follow', () => {
  it('shows every line written across many rotations exactly once', async () => {
    // 8 KB files: about 30 of the lines below each.
    const { home, env, port, key, stop } = await startBackgroundDaemon(8 * 1024);
    cleanups.push(stop);
    const logLine = async (reason: string) => {
      const ended = await postSessionEndAsHttpHook({ port, key, payload: sessionEndPayload('s-follow', reason) });
      expect(ended.statusCode).toBe(200);
    };

    const follower = startCli(['logs', '--follow', '--json', '-n', '0'], env);
    const reasons = () =>
      follower
        .output()
        .stdout.split('\n')
        .filter((line) => line !== '')
        .map((line) => parseJson<{ msg?: string; reason?: string }>(line, 'a logs --follow line'))
        .filter((entry) => entry.msg === ENDED)
        .map((entry) => entry.reason);
    // From the first line the follower shows on, it follows: lines before it may or may not be shown (-n 0).
    let probe = 0;
    await waitUntil(
      async () => {
        await logLine(`probe-${probe++}`);
        return reasons().length > 0 || undefined;
      },
      10_000,
      'the follower to show a line',
    );

    const LINES = 800;
    for (let index = 0; index < LINES; index++) await logLine(`line-${index}`);
    await logLine('last');
    await waitUntil(() => reasons().includes('last') || undefined, 10_000, 'the follower to show the last line');
    follower.child.kill('SIGTERM');
    await follower.result;

    const files = readdirSync(join(home, 'logs')).filter((name) => /^daemon\.\d+\.log$/.test(name));
    const newest = Math.max(...files.map((name) => Number(name.split('.')[1])));
    expect(newest, 'the log rotated many times while followed').toBeGreaterThanOrEqual(8);
    const shown = reasons().filter((reason) => !reason?.startsWith('probe-'));
    expect(shown).toEqual([...Array.from({ length: LINES }, (_, index) => `line-${index}`), 'last']);
  });
});
