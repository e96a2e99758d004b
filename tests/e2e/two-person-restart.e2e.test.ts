// A permission two people must allow, across a daemon killed outright: the real daemon with people
// alice, bob and carol and a route that sends risky permissions to alice and bob and needs both to
// allow; opencode's permission relayed through askbridge's attach API (as `askbridge attach
// opencode` relays it), pages in Chromium paired for alice and bob, and carol's page over HTTP and
// its WebSocket. alice allows (1 of 2); the daemon is killed -9 and its keeper starts a new one on
// the same state directory; the relay comes back for it. The ask is back for alice's and bob's pages
// only, still "1 of 2: allowed by alice"; carol's page neither lists it nor hears of it; alice again
// is refused (409 already_allowed); bob's allow releases it to the relay; the audit trail verifies.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLine } from '../../src/audit-file.js';
import type { AskView, PairingReply } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, waitForLivePage, type PairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { recordMessages } from '../stack/live-feed.js';
import { pairOverHttp, type PageClient } from '../stack/page-client.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';

const PROJECT = '/home/alice/projects/shop';
const FORCE_PUSH = 'git push --force origin main';
const PERMISSION_ID = 'per_force_push';
const chromiumState = chromiumAvailability();

/** opencode's permission as the relay sends it on. */
const relayed = { request: { kind: 'permission', permission: { id: PERMISSION_ID, sessionID: 'ses_ship', permission: 'bash', patterns: [FORCE_PUSH], metadata: { command: FORCE_PUSH, description: 'Ship it' }, always: [] } }, session: { directory: PROJECT }, environment: {} };

type Relayed = { status: number; body: { ask: AskView; reply: unknown } };

let daemon: Daemon;
let browser: Browser;
let alice: PairedPage;
let bob: PairedPage;
let carol: PageClient;

/** A page paired for `person`, with a one-time code the local CLI's token asked for. */
async function pagePairedFor(person: string): Promise<PairedPage> {
  const pairing = await daemon.api<PairingReply>('POST', '/api/pairings', { person });
  expect(pairing.status).toBe(200);
  return openPairedPage(browser, daemon, { pairingUrl: pairing.body.links.local });
}

/** The relay's request, held until its ask is settled (or its connection drops). */
const relay = () => daemon.api<Relayed['body']>('POST', '/api/attach/opencode', relayed, { held: true });

/** Allows a risky approval on its card: "Allow…", then its confirmation. */
async function allowOn(card: Locator): Promise<void> {
  await card.getByRole('button', { name: 'Allow…' }).click();
  await card.getByRole('button', { name: 'Yes, allow it' }).click();
}

/** 14:02: a time of day as the page's clock shows it (the same machine, the same zone). */
const clock = (at: number) => new Date(at).toTimeString().slice(0, 5);

/** Whether a page's live feed, opened now, has the ask in its snapshot. */
async function inSnapshot(page: PageClient, id: string): Promise<boolean> {
  const origin = page.headers.origin!;
  const socket = new WebSocket(`ws://${new URL(origin).host}/ws`, ['askbridge', `key.${page.headers['x-askbridge-key']}`], { headers: { origin, cookie: page.headers.cookie! } });
  const feed = recordMessages(socket);
  try {
    await feed.waitFor((messages) => messages.some((message) => message.type === 'snapshot'));
    return feed.messages.some((message) => message.type === 'snapshot' && message.asks.some((ask) => ask.id === id));
  } finally {
    socket.close();
  }
}

/** A decision sent from a paired page with its own key, as its script sends one: the daemon's reply. */
function decideFrom(page: Page, id: string, decision: Record<string, unknown>): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  return page.evaluate(
    async ({ id, body }) => {
      const reply = await fetch(`/api/asks/${id}/decide`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-askbridge-key': localStorage.getItem('askbridge.pageKey') ?? '' }, body: JSON.stringify(body) });
      return { status: reply.status, body: (await reply.json()) as { error?: { code: string; message: string } } };
    },
    { id, body: decision },
  );
}

beforeAll(async () => {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-'));
  const addedAt = Date.now();
  await writeFile(join(home, 'people.json'), `${JSON.stringify(['alice', 'bob', 'carol'].map((name) => ({ name, groups: [], addedAt })))}\n`);
  const route = [{ kind: ['permission'], risky: true, to: ['alice', 'bob'], approvals: 2 }];
  daemon = await startDaemon({ home, config: { waitSeconds: 300, approvalNoticeSeconds: 0, route } });
  carol = await pairOverHttp(daemon, { person: 'carol' });
  if (!chromiumState.available) return;
  browser = await launchBrowser();
  alice = await pagePairedFor('alice');
  bob = await pagePairedFor('bob');
}, 60_000);

afterAll(async () => {
  await alice?.context.close();
  await bob?.context.close();
  await browser?.close();
  await killStrayProcesses();
  await daemon?.stop();
});

describe.skipIf(!chromiumState.available)('a permission two people must allow, across a daemon killed outright', () => {
  // A daemon killed and started again by its keeper: seconds on an idle machine, more on a loaded one.
  it("keeps its route and alice's allow: only alice's and bob's pages see it, alice cannot allow it twice, bob's allow releases it, and the audit trail verifies", async () => {
    // Settled one way or the other (it drops with the daemon), so that its end is never an unhandled rejection.
    const first = relay().then(
      (reply) => ({ dropped: false, reply }),
      (error: Error) => ({ dropped: true, reply: error.message }),
    );
    const ask = await daemon.waitForAsk(PERMISSION_ID);
    expect(ask).toMatchObject({ agent: 'opencode', route: { people: ['alice', 'bob'], approvals: 2, rule: 'route[0]' }, risk: { reasons: [expect.stringContaining('force-pushes')] } });
    expect(await inSnapshot(carol, ask.id)).toBe(false);

    await allowOn(await openAsk(alice.page, ask.id));
    await expect.poll(async () => (await daemon.ask(ask.id)).allows?.map((allow) => allow.person)).toEqual(['alice']);
    const aliceLine = `1 of 2: allowed by alice at ${clock((await daemon.ask(ask.id)).allows![0]!.at)}`;

    await daemon.crash();
    // The relay's held request dropped with the daemon; like `askbridge attach`, it relays the same permission again.
    expect(await first).toMatchObject({ dropped: true });
    const second = relay();

    const restored = await daemon.ask(ask.id);
    expect(restored).toMatchObject({ status: 'pending', route: { people: ['alice', 'bob'], approvals: 2, rule: 'route[0]' }, allows: [{ person: 'alice', client: 'page' }] });
    // Carol's page neither lists it, nor reaches it, nor hears of it.
    expect((await carol.request<{ asks: AskView[] }>('GET', '/api/asks')).body.asks.map((each) => each.id)).not.toContain(ask.id);
    expect((await carol.request('GET', `/api/asks/${ask.id}`)).status).toBe(404);
    expect(await inSnapshot(carol, ask.id)).toBe(false);
    expect((await carol.request('POST', `/api/asks/${ask.id}/decide`, { behavior: 'allow', confirmRisky: true })).status).toBe(404);

    // alice's and bob's pages come back by themselves, and say where it stands.
    for (const page of [alice.page, bob.page]) {
      await waitForLivePage(page, 15_000);
      const card = await openAsk(page, ask.id);
      await expect.poll(() => card.locator('.two-people').textContent()).toBe(aliceLine);
    }
    const again = await decideFrom(alice.page, ask.id, { behavior: 'allow', confirmRisky: true });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'already_allowed', message: 'alice allowed it already: a second person must' } } });

    await allowOn(await openAsk(bob.page, ask.id));
    const released: Relayed = await second;
    expect(released.status).toBe(200);
    expect(released.body.reply).toEqual({ route: 'permission.reply', body: { reply: 'once' } });
    expect(released.body.ask).toMatchObject({ id: ask.id, status: 'allowed', source: { person: 'bob' }, allows: [{ person: 'alice' }, { person: 'bob' }] });

    // One trail across both daemons: alice's allow, then bob's that settled it, chained and sealed.
    const verified = await runCli(['audit', 'verify'], daemon.env);
    expect(verified.code, verified.stderr).toBe(0);
    const lines = readFileSync(join(daemon.home, 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as AuditLine).filter((line) => line.ask === ask.id);
    expect(lines.map((line) => [line.event, line.decision.status, line.by.kind === 'person' ? line.by.person : line.by.kind, line.decision.allows?.map((allow) => allow.person)])).toEqual([
      ['allow', 'pending', 'alice', ['alice']],
      ['settled', 'allowed', 'bob', ['alice', 'bob']],
    ]);
    expect(lines[1]!.route).toEqual({ people: ['alice', 'bob'], approvals: 2, rule: 'route[0]' });
  }, 90_000);
});
