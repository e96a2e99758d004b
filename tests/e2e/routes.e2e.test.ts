// Routes end to end: the real daemon with people alice, bob and carol and a user config routing
// ~/projects/shop to alice. A question from that project is alice's alone: her page (real Chromium)
// shows its card and answers it; bob's page does not list it, cannot fetch it, never hears of it on
// its WebSocket, cannot answer it, and does not find it in the history; his Telegram chat is not told.
// A question from elsewhere is everyone's. A remote hook installed with `--person carol` asks for
// carol's session: with no rule matching, only carol's device sees it. `doctor --route` names the
// rule and its people.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSON_HEADER } from '../../src/http-hook.js';
import type { AskView, ServerMessage } from '../../src/protocol.js';
import type { HistoryLine } from '../../src/history-file.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, loadFixture, type FixtureAnswer, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { recordMessages, type RecordedMessages } from '../stack/live-feed.js';
import { pairingUrlFor, pairOverHttp, type PageClient } from '../stack/page-client.js';
import { runCli } from '../stack/processes.js';
import { startTelegramApi, type TelegramApi, type TelegramChat } from '../stack/telegram-api.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const chromium = chromiumAvailability();

let home: string;
let shop: string;
let daemon: Daemon;
let tg: TelegramApi;
let browser: Browser;
let alice: PageClient;
let bob: PageClient;
let carol: PageClient;
let bobsFeed: RecordedMessages & { socket: WebSocket };
let bobsChat: TelegramChat;
let runs = 0;

/** A question through the http hook (this machine, the hook key), from `cwd`; the hook's request stays open until it is settled. */
function ask(cwd: string, headers: Record<string, string> = {}) {
  const payload: HookPayload = { ...freshPayload('01-single-select', `routes${++runs}`), cwd };
  const held = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload, headers });
  return { payload, held, view: () => daemon.waitForAsk(payload.tool_use_id) };
}

const answerOf = (payload: HookPayload) => ({ responses: loadFixture<FixtureAnswer>('01-single-select.answer.json').responses.map((response) => ({ ...response, question: payload.tool_input.questions[0]!.question })) });
const listed = async (page: PageClient) => (await page.request<{ asks: AskView[] }>('GET', '/api/asks')).body.asks.map((ask) => ask.id);
const heard = (feed: RecordedMessages, id: string) =>
  feed.messages.some((message: ServerMessage) => (message.type === 'snapshot' ? message.asks.some((ask) => ask.id === id) : 'ask' in message && message.ask.id === id));

/** A page's live feed, every message recorded from the first (its snapshot), once that snapshot has arrived. */
async function feedOf(page: PageClient): Promise<RecordedMessages & { socket: WebSocket }> {
  const origin = page.headers.origin!;
  const socket = new WebSocket(`ws://${new URL(origin).host}/ws`, ['askbridge', `key.${page.headers['x-askbridge-key']}`], { headers: { origin, cookie: page.headers.cookie! } });
  const feed = { socket, ...recordMessages(socket) };
  await feed.waitFor((messages) => messages.some((message) => message.type === 'snapshot'));
  return feed;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'askbridge-routes-'));
  shop = join(home, 'projects', 'shop');
  await mkdir(join(shop, 'src'), { recursive: true });
  await writeFile(
    join(home, 'people.json'),
    JSON.stringify([
      { name: 'alice', groups: ['shop'], addedAt: 1 },
      { name: 'bob', groups: [], addedAt: 2 },
      { name: 'carol', groups: [], addedAt: 3 },
    ]),
  );
  tg = await startTelegramApi([TOKEN]);
  daemon = await startDaemon({
    home,
    config: { whenNobodyWatching: 'wait', waitSeconds: 120, telegram: { token: TOKEN, apiRoot: tg.root }, route: [{ name: 'shop', project: '~/projects/shop', to: ['alice'] }] },
  });
  await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  [alice, bob, carol] = await Promise.all([pairOverHttp(daemon, { person: 'alice' }), pairOverHttp(daemon, { person: 'bob' }), pairOverHttp(daemon, { person: 'carol' })]);
  bobsFeed = await feedOf(bob);
  // Bob's Telegram chat, paired for him.
  bobsChat = tg.privateChat(2002, 'bob');
  const code = await daemon.api<{ code: string }>('POST', '/api/pairings/telegram', { person: 'bob' });
  expect(code.status).toBe(200);
  tg.sendText(bobsChat, `/start ${code.body.code}`);
  await tg.waitForMessage((message) => message.chat.id === bobsChat.id && message.text === 'Paired: askbridge will ask here.', "bob's chat to be paired");
  if (chromium.available) browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  bobsFeed?.socket.close();
  await browser?.close();
  await daemon?.stop();
  await tg?.close();
});

describe('a question from a project routed to alice', () => {
  it("is alice's alone: her page lists it and answers it; bob's lists nothing, gets 404, never hears of it, cannot answer it, and his chat is not told", async () => {
    const question = ask(join(shop, 'src'));
    const view = await question.view();
    expect(view.route).toEqual({ people: ['alice'], approvals: 1, rule: 'shop' });

    expect(await listed(alice)).toContain(view.id);
    expect(await listed(bob)).not.toContain(view.id);
    expect((await bob.request('GET', `/api/asks/${view.id}`)).status).toBe(404);
    expect((await alice.request('GET', `/api/asks/${view.id}`)).status).toBe(200);
    expect((await bob.request('POST', `/api/asks/${view.id}/extend`, {})).status).toBe(404);
    // A page of bob's that connects now gets a snapshot without it; alice's, with it.
    const [bobsLater, alicesLater] = await Promise.all([feedOf(bob), feedOf(alice)]);
    expect(heard(bobsLater, view.id)).toBe(false);
    expect(heard(alicesLater, view.id)).toBe(true);
    bobsLater.socket.close();
    alicesLater.socket.close();

    // A question from elsewhere is everyone's: bob's feed and chat hear of it, after alice's was opened.
    const elsewhere = ask(join(home, 'elsewhere'));
    const other = await elsewhere.view();
    expect(other.route).toBeUndefined();
    expect(await listed(bob)).toContain(other.id);
    expect(await listed(alice)).toContain(other.id);
    await bobsFeed.waitFor((messages) => messages.some((message) => message.type === 'added' && message.ask.id === other.id));
    const question0 = other.questions[0]!.question;
    await tg.waitForMessage((message) => message.chat.id === bobsChat.id && message.text.includes(question0), "bob's chat to be told of the question from elsewhere");
    expect(heard(bobsFeed, view.id)).toBe(false);

    // Bob's answer finds nothing, and settles nothing.
    const refused = await bob.request<{ error: { code: string } }>('POST', `/api/asks/${view.id}/answer`, answerOf(question.payload));
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect((await daemon.ask(view.id)).status).toBe('pending');

    // Alice answers it; the hook gets her answer; bob's feed never heard of it, not even its end.
    const answered = await alice.request<{ ask: AskView }>('POST', `/api/asks/${view.id}/answer`, answerOf(question.payload));
    expect(answered.status).toBe(200);
    expect(answered.body.ask.source).toMatchObject({ kind: 'person', person: 'alice' });
    expect((await question.held.response).statusCode).toBe(200);
    await bob.request('POST', `/api/asks/${other.id}/decline`);
    await elsewhere.held.response;
    await bobsFeed.waitFor((messages) => messages.some((message) => message.type === 'resolved' && message.ask.id === other.id));
    expect(heard(bobsFeed, view.id)).toBe(false);
    // Both ask the same question: bob's chat was told once, of the one from elsewhere (alice's was told first, had it been).
    expect(tg.messages.filter((message) => message.chat.id === bobsChat.id && message.text.includes(question0))).toHaveLength(1);

    // The history keeps the route: alice reads the line, bob does not (the question from elsewhere, both).
    const history = async (page: PageClient) => (await page.request<{ entries: HistoryLine[] }>('GET', '/api/history')).body.entries.map((line) => line.id);
    expect(await history(alice)).toEqual(expect.arrayContaining([view.id, other.id]));
    expect(await history(bob)).toContain(other.id);
    expect(await history(bob)).not.toContain(view.id);
    const csv = await fetch(`${daemon.url}api/history?format=csv`, { headers: bob.headers });
    expect(await csv.text()).not.toContain(view.id);
  }, 60_000);

  it.skipIf(!chromium.available)("alice's page shows its card; bob's page does not", async () => {
    const [alicesPage, bobsPage] = await Promise.all([
      openPairedPage(browser, daemon, { pairingUrl: await pairingUrlFor(daemon, 'alice') }),
      openPairedPage(browser, daemon, { pairingUrl: await pairingUrlFor(daemon, 'bob') }),
    ]);
    try {
      const question = ask(shop);
      const elsewhere = ask(join(home, 'elsewhere'));
      const [view, other] = await Promise.all([question.view(), elsewhere.view()]);
      const card = await openAsk(alicesPage.page, view.id);
      expect(await card.isVisible()).toBe(true);
      // Bob's page lists the question from elsewhere, which came after: alice's would be there by now.
      await bobsPage.page.locator(`[data-ask-id="${other.id}"]`).waitFor({ state: 'attached' });
      expect(await bobsPage.page.locator(`[data-ask-id="${view.id}"]`).count()).toBe(0);
      await alice.request('POST', `/api/asks/${view.id}/decline`);
      await alice.request('POST', `/api/asks/${other.id}/decline`);
      await Promise.all([question.held.response, elsewhere.held.response]);
    } finally {
      await alicesPage.context.close();
      await bobsPage.context.close();
    }
  }, 60_000);
});

describe("a remote hook that names whose session it is", () => {
  it("remote-hook --person carol: with no rule matching, only carol's device sees the session's questions", async () => {
    const printed = await runCli(['remote-hook', '--url', daemon.url, '--machine', 'box', '--person', 'carol'], daemon.env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toContain('--person carol');
    const settings = JSON.parse(printed.stdout) as { hooks: { PreToolUse: Array<{ hooks: Array<{ headers: Record<string, string> }> }> } };
    const { headers } = settings.hooks.PreToolUse[0]!.hooks[0]!;
    expect(headers[PERSON_HEADER]).toBe('carol');
    const named = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('x-askbridge-env-')));

    const question = ask(join(home, 'elsewhere'), named);
    const view = await question.view();
    expect(view).toMatchObject({ person: 'carol', machine: 'box', route: { people: ['carol'], approvals: 1 } });
    expect(await listed(carol)).toContain(view.id);
    expect(await listed(alice)).not.toContain(view.id);
    expect(await listed(bob)).not.toContain(view.id);
    await carol.request('POST', `/api/asks/${view.id}/decline`);
    expect((await question.held.response).statusCode).toBe(200);
  }, 30_000);

  it("a name that is not a person's is refused with 400, and nothing opens", async () => {
    const payload: HookPayload = { ...freshPayload('01-single-select', `routes${++runs}`), cwd: shop };
    const refused = await postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload, headers: { [PERSON_HEADER]: 'not a name' } }).response;
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'bad_person' } });
    expect((await daemon.pending()).some((ask) => ask.toolUseId === payload.tool_use_id)).toBe(false);
  });

  it('install --person without --url is refused: only a remote hook names a person', async () => {
    const refused = await runCli(['install', '--user', '--person', 'carol'], daemon.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--person');
  });
});

describe('askbridge doctor --route', () => {
  it('names the rule that matches a project and its people, and who of them could see it', async () => {
    const shown = await runCli(['doctor', '--route', '--project', join(shop, 'src')], daemon.env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('rule: shop (to alice)');
    expect(shown.stdout).toContain('people: alice');
    expect(shown.stdout).toMatch(/alice \(groups @shop\): [1-9]\d* paired device\(s\), 0 Telegram chat\(s\)/);

    const elsewhere = await runCli(['doctor', '--route', '--project', home, '--person', 'carol'], daemon.env);
    expect(elsewhere.stdout).toContain("no rule matches: it goes to the session's own person");
    expect(elsewhere.stdout).toContain('people: carol');
  });
});

describe('an ask routed to people none of whom could see it', () => {
  it("goes to the agent's own dialog at once, as when nobody is reachable; once one of them watches, it waits", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'askbridge-routes-reach-'));
    await mkdir(join(folder, 'projects', 'shop'), { recursive: true });
    await writeFile(join(folder, 'people.json'), JSON.stringify([{ name: 'alice', groups: [], addedAt: 1 }, { name: 'bob', groups: [], addedAt: 2 }]));
    // The default whenNobodyWatching ("wait-if-reachable"), and a webhook, which is told only of asks with no route.
    const other = await startDaemon({ home: folder, defaults: true, config: { notify: [{ url: 'http://127.0.0.1:9/hook' }], route: [{ project: '~/projects/shop', to: ['alice'] }] } });
    try {
      const bobs = await (await pairOverHttp(other, { person: 'bob' })).openSocket();
      const question = (cwd: string) => {
        const payload: HookPayload = { ...freshPayload('01-single-select', `reach${++runs}`), cwd };
        return { payload, held: postAsHttpHook({ port: other.port, key: other.hookKey(), payload }) };
      };
      // Bob's page watches, but alice has no device, chat or page: her ask is not held for nobody.
      const alone = question(join(folder, 'projects', 'shop'));
      expect((await alone.held.response).statusCode).toBe(200);
      expect(await other.finishedAsk(alone.payload.tool_use_id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', trigger: 'nobody-reachable' } });
      // A question for everyone waits: bob watches.
      const everyones = question(folder);
      await other.waitForAsk(everyones.payload.tool_use_id);
      // Once alice's page is open, her asks wait for her.
      const alices = await (await pairOverHttp(other, { person: 'alice' })).openSocket();
      const waits = question(join(folder, 'projects', 'shop'));
      const view = await other.waitForAsk(waits.payload.tool_use_id);
      expect(view.route?.people).toEqual(['alice']);
      bobs.close();
      alices.close();
    } finally {
      await other.stop();
    }
  }, 60_000);
  it('does not start with people defined and a user config it cannot read: every ask would reach everyone', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'askbridge-routes-broken-'));
    await writeFile(join(folder, 'people.json'), JSON.stringify([{ name: 'alice', groups: [], addedAt: 1 }]));
    // Two approvals is the most a rule may ask for: the file does not read.
    const start = startDaemon({ home: folder, config: { route: [{ project: '~/projects/shop', to: ['alice'], approvals: 3 }] } });
    await expect(start).rejects.toThrow(/the user config cannot be read, and with people defined askbridge does not start without its routes/);
    // With nobody defined, it starts as before, on its defaults, and says what is wrong.
    const alone = await startDaemon({ home: await mkdtemp(join(tmpdir(), 'askbridge-routes-alone-')), config: { route: [{ project: '~/projects/shop', to: ['alice'], approvals: 3 }] } });
    await alone.stop();
  }, 60_000);
});
