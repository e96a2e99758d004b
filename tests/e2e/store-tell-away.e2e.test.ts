// `tell: "away"` across the daemons of one store (a throwaway PostgreSQL cluster of this file's own):
// a person looking at a page of daemon B is here for daemon A too. A question asked at A (its hook
// there, its webhook and ntfy topic on a local receiver) is not told while a page paired with B is
// in view, and is told once that page's window is minimized for real, or once B stops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchWindowedBrowser, openPairedPageIn, type WindowedBrowser } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postgresAvailability } from '../stack/postgres.js';
import { runHook, type RunningProcess } from '../stack/processes.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';
import { useStoreCluster } from '../stack/shared-store.js';

/** How long word of a page in view may take to reach the other daemon, on a machine running other tests too. */
const TOLD_WITHIN_MS = 10_000;

const postgres = postgresAvailability();
const chromiumState = chromiumAvailability();
const store = useStoreCluster();
let receiver: Receiver;
let browser: WindowedBrowser;
let runs = 0;

beforeAll(async () => {
  if (!postgres.available || !chromiumState.available) return;
  [receiver, browser] = await Promise.all([startReceiver(), launchWindowedBrowser()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

/** A, whose questions tell a webhook and an ntfy topic only while nobody is here, and B, on a new database of the store. */
async function twoDaemons(): Promise<{ a: Daemon; b: Daemon }> {
  const config = { tell: 'away', waitSeconds: 120, notify: [{ url: `${receiver.origin}/hook` }, { ntfy: `${receiver.origin}/ntfy/askbridge` }] };
  const { daemons } = await store.onNewDatabase(2, (index) => (index === 0 ? { config } : {}));
  return { a: daemons[0]!, b: daemons[1]! };
}

const toldAbout = (id: string) => receiver.received.filter((request) => request.body.includes(id));
const visiblePages = async (daemon: Daemon) => (await daemon.api<{ visiblePages: number }>('GET', '/api/status')).body.visiblePages;

async function askAt(daemon: Daemon): Promise<{ hook: RunningProcess; id: string }> {
  const payload = freshPayload('01-single-select', `store-tell-${++runs}`);
  const hook = runHook(payload, daemon.env);
  const { id } = await daemon.waitForAsk(payload.tool_use_id);
  return { hook, id };
}

/** Waits until `daemon` says that this many people look at pages of the other daemons. */
const pagesInViewElsewhere = (daemon: Daemon, viewers: number) =>
  daemon.waitForLog((entry) => entry.msg === 'the pages in view at the other daemons changed' && entry.viewers === viewers, TOLD_WITHIN_MS, `${viewers} viewer(s) in view at the other daemon`);
const heldWhileHere = (daemon: Daemon, id: string) => daemon.waitForLog((entry) => entry.askId === id && entry.msg === 'not told while the person is here (tell: away)', TOLD_WITHIN_MS, `the notice of ${id} held`);

describe.skipIf(!postgres.available || !chromiumState.available)('tell: "away" with the daemons of one store', () => {
  it("holds a question asked at A while a page of B is in view, and tells it once that page's window is minimized", async () => {
    const { a, b } = await twoDaemons();
    const { page } = await openPairedPageIn(browser.context, b);
    await waitUntil(async () => ((await visiblePages(b)) === 1 ? true : undefined), TOLD_WITHIN_MS, 'the page to say it is in view');
    await pagesInViewElsewhere(a, 1);
    const first = await askAt(a);
    await heldWhileHere(a, first.id);
    expect(toldAbout(first.id)).toEqual([]);

    await browser.hide(page);
    await waitUntil(() => (toldAbout(first.id).length === 2 ? true : undefined), TOLD_WITHIN_MS, 'the webhook and ntfy told once the page of B is hidden');
    // Nobody in view: a new question at A is told at once.
    const second = await askAt(a);
    await waitUntil(() => (toldAbout(second.id).length === 2 ? true : undefined), TOLD_WITHIN_MS, 'a question told while no page is in view');
    await page.close();
  }, 90_000);

  it('tells a question held for a page of B once B stops', async () => {
    const { a, b } = await twoDaemons();
    const { page } = await openPairedPageIn(browser.context, b);
    await waitUntil(async () => ((await visiblePages(b)) === 1 ? true : undefined), TOLD_WITHIN_MS, 'the page to say it is in view');
    await pagesInViewElsewhere(a, 1);
    const held = await askAt(a);
    await heldWhileHere(a, held.id);

    await b.stop();
    await pagesInViewElsewhere(a, 0);
    await waitUntil(() => (toldAbout(held.id).length === 2 ? true : undefined), TOLD_WITHIN_MS, 'the webhook and ntfy told once B stopped');
    await page.close();
  }, 90_000);
});
