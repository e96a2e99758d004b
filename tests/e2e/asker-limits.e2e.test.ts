// What one asker can make the daemon hold, with the real daemon, hooks and CLI at the real limits:
// whoever holds the hook key, asking 1 MiB questions from a new machine name each time, is refused
// (503, the terminal asks) once the hook key's share of the bytes is held, so the daemon stays up
// and small; the listing (GET /api/asks, a page's snapshot, `askbridge pending`) stays within what
// may wait and keeps working; and another asker's question (the command hook's) is still taken and
// listed. A script that floods is held to its share of the count, and Claude Code's http hook still asks.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MACHINE_HEADER } from '../../src/http-hook.js';
import { MAX_PENDING, WAITING_BYTES, CREDENTIAL_SHARE } from '../../src/daemon/limits.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { listenAsProgram } from '../stack/live-feed.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';

const WAIT_MS = 20_000;
const daemons: Daemon[] = [];
afterEach(async () => {
  await killStrayProcesses();
});
afterAll(async () => {
  for (const daemon of daemons) await daemon.stop();
});

/** The daemon's resident memory now, in bytes: the process `start` runs, or the daemon it runs as its child. */
function residentBytes(daemon: Daemon): number {
  const started = daemon.child.pid!;
  const children = readFileSync(`/proc/${started}/task/${started}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  const pid = children[0] ?? String(started);
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  if (!line) throw new Error('no VmRSS for the daemon');
  return Number(line[1]) * 1024;
}

/**
 * A question of about 1 MiB, as large as a body may be: a 100,000-character preview on each option
 * (what the page lists), and about 600 KB more in a field the daemon ignores.
 */
function largeQuestion(tag: string): HookPayload {
  const payload = freshPayload('01-single-select', tag);
  for (const [index, option] of payload.tool_input.questions[0]!.options.entries()) option.preview = `${tag} ${index} ${'p'.repeat(99_900)}`;
  return { ...payload, padding: 'x'.repeat(600_000) };
}

describe('whoever holds the hook key, flooding 1 MiB questions from a new machine name each', () => {
  it.skipIf(process.platform !== 'linux')('is refused once the hook key holds its share; the daemon stays up and small, every listing works, and the command hook still asks', async () => {
    const daemon = await startDaemon({ config: { waitSeconds: 600 } });
    daemons.push(daemon);
    const key = daemon.hookKey();
    const before = residentBytes(daemon);

    const flood = 80;
    const held: Array<ReturnType<typeof postAsHttpHook>> = [];
    let refused = 0;
    const refusals: Array<{ statusCode: number; body: string }> = [];
    for (let batch = 0; batch < flood / 10; batch++) {
      const sent = Array.from({ length: 10 }, (_, index) => {
        const at = batch * 10 + index;
        return postAsHttpHook({ port: daemon.port, key, payload: largeQuestion(`flood-${at}`), headers: { [MACHINE_HEADER]: `machine-${at}` } });
      });
      held.push(...sent);
      for (const asked of sent) {
        asked.response.then(
          (response) => {
            refused++;
            refusals.push(response);
          },
          () => undefined,
        );
      }
    }
    // Every question is either waiting (the daemon logs it) or refused (the refusal comes back at once).
    const received = () => daemon.logs().filter((entry) => entry.msg === 'question received').length;
    await waitUntil(() => (received() + refused === flood ? true : undefined), 60_000, 'every flooded question to be waiting or refused');
    const listed = await daemon.pending();
    expect(listed).toHaveLength(received());
    const hookKeyShare = WAITING_BYTES * CREDENTIAL_SHARE;
    // Each holds its view (200 KB of previews) and its input (as much): as many as the hook key's share holds, and not one more.
    const each = Buffer.byteLength(JSON.stringify(listed[0])) + Buffer.byteLength(JSON.stringify(largeQuestion('flood-0').tool_input));
    expect(listed.length).toBe(Math.floor(hookKeyShare / each));
    expect(refusals.every((response) => response.statusCode === 503 && JSON.parse(response.body).error.code === 'pending_too_large')).toBe(true);
    expect(JSON.parse(refusals[0]!.body).error.message).toMatch(/^the questions waiting from the askers with the hook key together would hold more than 16\.0 MiB, as much as one credential may \(this one holds 0\.4 MiB\): this one goes to the terminal$/);
    // Logged once for the flood, not once per refusal.
    await daemon.waitForLog((entry) => entry.msg === 'asker over a limit: its new questions are refused until some are settled');
    expect(daemon.logs().filter((entry) => entry.msg === 'asker over a limit: its new questions are refused until some are settled')).toHaveLength(1);
    expect(daemon.logs().filter((entry) => entry.msg === 'request refused')).toHaveLength(0);

    // The daemon is up, and holds about what waits: no request bodies besides.
    expect(daemon.running()).toBe(true);
    const grown = residentBytes(daemon) - before;
    console.log(`[measure] flood of ${flood} 1 MiB questions: ${listed.length} waiting, ${refused} refused, RSS grew ${(grown / 2 ** 20).toFixed(0)} MiB`);
    expect(grown).toBeLessThan(256 * 2 ** 20);

    // The listing: within what may wait, quick, and the same on the live feed and in the CLI.
    const started = performance.now();
    const listing = await fetch(`http://127.0.0.1:${daemon.port}/api/asks`, { headers: { authorization: `Bearer ${daemon.token}` } });
    const text = await listing.text();
    const took = performance.now() - started;
    console.log(`[measure] GET /api/asks: ${listing.status}, ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB in ${took.toFixed(0)} ms`);
    expect(listing.status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(hookKeyShare);
    const feed = await listenAsProgram(daemon);
    await feed.waitFor((messages) => messages.some((message) => message.type === 'snapshot'));
    const snapshot = feed.messages.find((message) => message.type === 'snapshot');
    expect(snapshot?.type === 'snapshot' && snapshot.asks.length).toBe(listed.length);
    const pending = await runCli(['pending', '--json'], daemon.env);
    expect(pending.code).toBe(0);
    expect((JSON.parse(pending.stdout) as AskView[]).length).toBe(listed.length);

    // Claude Code's own question, through the command hook, is taken, listed and answered.
    const own = freshPayload('01-single-select', 'own-question');
    const hook = runHook(own, daemon.env);
    const question = await daemon.waitForAsk(own.tool_use_id);
    await feed.waitFor((messages) => messages.some((message) => message.type === 'added' && message.ask.id === question.id));
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook.result).code).toBe(0);

    feed.socket.close();
    for (const asked of held) asked.abort();
    await daemon.stop();
  }, 90_000);
});

describe('a script that floods', () => {
  it('is held to its share of the count: its next questions are refused (503), and Claude Code\'s http hook still asks', async () => {
    // A total of 8: each asker may hold 2.
    const daemon = await startDaemon({ env: { ASKBRIDGE_TEST_MAX_PENDING: '8' }, config: { waitSeconds: 600 } });
    daemons.push(daemon);
    const ask = (index: number) =>
      fetch(`http://127.0.0.1:${daemon.port}/api/asks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ asker: { kind: 'script', name: 'flood' }, questions: [{ question: `Deploy ${index}?`, header: 'Deploy', options: [{ label: 'Yes', description: '' }, { label: 'No', description: '' }] }] }),
        signal: AbortSignal.timeout(WAIT_MS),
      });
    const controller = new AbortController();
    const waiting = [0, 1].map((index) => fetch(`http://127.0.0.1:${daemon.port}/api/asks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ asker: { kind: 'script', name: 'flood' }, questions: [{ question: `Waiting ${index}?`, header: 'W', options: [{ label: 'Yes', description: '' }, { label: 'No', description: '' }] }] }),
      signal: controller.signal,
    }).catch(() => undefined));
    await waitUntil(async () => ((await daemon.pending()).length === 2 ? true : undefined), WAIT_MS, 'the first two to wait');
    const refused = await Promise.all([2, 3, 4].map(ask));
    for (const response of refused) {
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: { code: 'too_many_pending', message: '2 questions are waiting from a script with the token, as many as one asker may: this one goes to the terminal' } });
    }
    // The log line is written as the first one is refused; the harness reads it a moment later.
    await daemon.waitForLog((entry) => entry.msg === 'asker over a limit: its new questions are refused until some are settled');
    expect(daemon.logs().filter((entry) => entry.msg === 'asker over a limit: its new questions are refused until some are settled')).toEqual([
      expect.objectContaining({ asker: 'a script with the token', limit: 'asks', scope: 'asker', max: 2 }),
    ]);

    const payload = freshPayload('01-single-select', 'while-a-script-floods');
    const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook.response).statusCode).toBe(200);
    expect(MAX_PENDING / 4).toBe(1024); // the real share of one asker
    controller.abort();
    await Promise.all(waiting);
    await daemon.stop();
  });
});
