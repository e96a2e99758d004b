// `tell: "away"`: the channels that tell a person something waits (here a webhook and an ntfy
// topic on a local receiver) stay quiet while the person is here (not away, a paired page in view),
// and what waits is told once they leave: the page's window minimized, or `askbridge away on`. The
// real daemon and hook, a real Chromium whose window is minimized for real, and the user config
// changed while the daemon runs (back to `always`: the same visible page no longer holds anything).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchWindowedBrowser, openPairedPageIn, type WindowedBrowser } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook, type RunningProcess } from '../stack/processes.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';

const chromiumState = chromiumAvailability();
let daemon: Daemon;
let receiver: Receiver;
let browser: WindowedBrowser;
let runs = 0;

const config = (tell: 'away' | 'always') => ({ tell, waitSeconds: 120, notify: [{ url: `${receiver.origin}/hook` }, { ntfy: `${receiver.origin}/ntfy/askbridge` }] });

beforeAll(async () => {
  if (!chromiumState.available) return;
  receiver = await startReceiver();
  daemon = await startDaemon({ config: config('away') });
  browser = await launchWindowedBrowser();
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await receiver?.close();
});

const toldAbout = (id: string) => receiver.received.filter((request) => request.body.includes(id));
const visiblePages = async () => (await daemon.api<{ visiblePages: number }>('GET', '/api/status')).body.visiblePages;

async function ask(): Promise<{ hook: RunningProcess; id: string }> {
  const payload = freshPayload('01-single-select', `tell-away-${++runs}`);
  const hook = runHook(payload, daemon.env);
  const { id } = await daemon.waitForAsk(payload.tool_use_id);
  return { hook, id };
}

async function answer({ hook, id }: { hook: RunningProcess; id: string }): Promise<void> {
  const answered = await runCli(['answer', id, '--pick', '1=SQLite'], daemon.env);
  expect(answered.code, answered.stderr).toBe(0);
  await hook.result;
}

const heldWhileHere = (id: string) => daemon.waitForLog((entry) => entry.askId === id && entry.msg === 'not told while the person is here (tell: away)', 10_000, `the notice of ${id} held`);

describe.skipIf(!chromiumState.available)('tell: "away"', () => {
  it('tells nothing while a paired page is in view, and tells what still waits once its window is minimized', async () => {
    const { page } = await openPairedPageIn(browser.context, daemon);
    await waitUntil(async () => ((await visiblePages()) === 1 ? true : undefined), 10_000, 'the page to say it is in view');

    const first = await ask();
    await heldWhileHere(first.id);
    expect(toldAbout(first.id)).toEqual([]);

    await browser.hide(page);
    await waitUntil(() => (toldAbout(first.id).length === 2 ? true : undefined), 10_000, 'the webhook and ntfy told once the page is hidden');

    // Hidden: a new question is told at once.
    const second = await ask();
    await waitUntil(() => (toldAbout(second.id).length === 2 ? true : undefined), 10_000, 'a question told while no page is in view');

    await browser.show(page);
    await answer(first);
    await answer(second);
    await page.close();
  });

  it('tells what waits once the person says they are away, with the page still in view', async () => {
    const { page } = await openPairedPageIn(browser.context, daemon);
    await waitUntil(async () => ((await visiblePages()) === 1 ? true : undefined), 10_000, 'the page to say it is in view');

    const waiting = await ask();
    await heldWhileHere(waiting.id);
    expect(toldAbout(waiting.id)).toEqual([]);

    const away = await runCli(['away', 'on'], daemon.env);
    expect(away.code, away.stderr).toBe(0);
    await waitUntil(() => (toldAbout(waiting.id).length === 2 ? true : undefined), 10_000, 'the webhook and ntfy told once away');
    expect((await runCli(['away', 'off'], daemon.env)).code).toBe(0);
    await answer(waiting);
    await page.close();
  });

  it('with `tell: "always"` (the default), the same page in view holds nothing back', async () => {
    const file = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
    await writeFile(file, JSON.stringify(config('always')));
    const tellNow = async () => (await daemon.api<{ config: { tell: string } }>('GET', `/api/config?cwd=${encodeURIComponent(daemon.home)}`)).body.config.tell;
    await waitUntil(async () => ((await tellNow()) === 'always' ? true : undefined), 10_000, 'the daemon to read the changed config');
    const { page } = await openPairedPageIn(browser.context, daemon);
    await waitUntil(async () => ((await visiblePages()) === 1 ? true : undefined), 10_000, 'the page to say it is in view');
    const waiting = await ask();
    await waitUntil(() => (toldAbout(waiting.id).length === 2 ? true : undefined), 10_000, 'the webhook and ntfy told at once');
    await answer(waiting);
    await page.close();
  });
});
