// People end to end: the real daemon (with a bot pointed at the stand-in Bot API), the CLI and the
// page in headless Chromium. People are added, listed and removed with `askbridge people`; pages
// and a Telegram chat are paired for a person and show whose they are; a decision names who made it
// and from which device in history, the CSV, `listen --json`, Telegram and the page's finished card,
// from the pairing alone (never from a header); removing a person unpairs their devices and chats at
// once, and a page pairs more devices for its own person only.
import type { Browser, Page, WebSocket as PageSocket } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import type { AskView, DevicesReply } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { parseCsv } from '../stack/csv.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook, startCli, type RunningProcess } from '../stack/processes.js';
import { buttonData, startTelegramApi, type TelegramApi } from '../stack/telegram-api.js';
import { PAIR_LINE } from '../stack/telegram-pairing.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const QUESTION = 'Which database should the new orders service use?';

const chromium = chromiumAvailability();

describe.skipIf(!chromium.available)('people', () => {
  let tg: TelegramApi;
  let daemon: Daemon;
  let browser: Browser;
  let alice: PairedPage;
  let bob: PairedPage;
  let bobSocket: PageSocket;
  let runs = 0;
  const hooks: RunningProcess[] = [];

  beforeAll(async () => {
    tg = await startTelegramApi([TOKEN]);
    daemon = await startDaemon({ config: { telegram: { token: TOKEN, apiRoot: tg.root }, whenNobodyWatching: 'wait', waitSeconds: 120, approvalNoticeSeconds: 0 } });
    await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
    browser = await launchBrowser();
  });
  afterEach(async () => {
    for (const hook of hooks.splice(0)) hook.child.kill('SIGTERM');
  });
  afterAll(async () => {
    await killStrayProcesses();
    await browser?.close();
    await daemon?.stop();
    await tg?.close();
  });

  /** `askbridge open --print --person NAME`: a one-time link that pairs a browser as NAME's. */
  async function linkFor(person: string): Promise<string> {
    const result = await runCli(['open', '--print', '--person', person], daemon.env);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout.trim();
  }

  /** The name askbridge gave a person's one browser. */
  async function deviceOf(person: string): Promise<string> {
    const { body } = await daemon.api<DevicesReply>('GET', '/api/devices');
    const theirs = body.devices.filter((device) => device.person === person);
    expect(theirs).toHaveLength(1);
    return theirs[0]!.name;
  }

  /** A request from the page itself, with its key (and any other headers given): its status and body. */
  function fromPage(page: Page, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    return page.evaluate(
      async ({ method, path, body, headers }) => {
        const response = await fetch(path, { method, headers: { 'x-askbridge-key': localStorage.getItem('askbridge.pageKey') ?? '', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
      { method, path, body, headers },
    );
  }

  /** A question from the command hook, waiting. */
  async function ask(): Promise<{ hook: RunningProcess; view: AskView }> {
    const payload = freshPayload('01-single-select', `people${++runs}`);
    const hook = runHook(payload, daemon.env);
    hooks.push(hook);
    return { hook, view: await daemon.waitForAsk(payload.tool_use_id) };
  }

  const answersOf = async (hook: RunningProcess) => parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>((await hook.result).stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers;
  const historyLine = async (id: string) => waitUntil(async () => (await daemon.history()).find((line) => line.id === id), 5000, `the history line of ${id}`);

  it('adds, lists and removes people with the CLI, and refuses a bad name, a duplicate and an unknown person', async () => {
    for (const [name, group] of [['alice', 'dev'], ['bob', 'dev'], ['carol', 'ops']] as const) {
      const added = await runCli(['people', 'add', name, '--group', group], daemon.env);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).toContain(`added ${name} (groups: ${group})`);
    }
    const bad = await runCli(['people', 'add', 'not a name'], daemon.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('a name of letters, digits');
    const twice = await runCli(['people', 'add', 'alice'], daemon.env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('askbridge already knows a person named "alice"');

    const extra = await runCli(['people', 'add', 'dave'], daemon.env);
    expect(extra.code, extra.stderr).toBe(0);
    const removed = await runCli(['people', 'remove', 'dave'], daemon.env);
    expect(removed.code, removed.stderr).toBe(0);
    const again = await runCli(['people', 'remove', 'dave'], daemon.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('askbridge knows no person named "dave"');

    const listed = await runCli(['people', 'list'], daemon.env);
    const pairHint = (name: string) => `  no devices: ${askbridgeCommand(daemon.env)} pair --person ${name}`;
    expect(listed.stdout).toBe(['alice  groups: dev', pairHint('alice'), 'bob  groups: dev', pairHint('bob'), 'carol  groups: ops', pairHint('carol'), ''].join('\n'));

    // Pairing for someone askbridge does not know: refused, saying who it knows.
    for (const args of [['pair', '--person', 'dave'], ['pair', '--telegram', '--person', 'dave'], ['open', '--print', '--person', 'dave']]) {
      const refused = await runCli(args, daemon.env);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain('askbridge knows no person named "dave": the people are alice, bob, carol');
      expect(refused.stdout).toBe('');
    }
  });

  it('shows whose device each paired page is, and a page pairs more devices for its own person only', async () => {
    alice = await openPairedPage(browser, daemon, { pairingUrl: await linkFor('alice') });
    bob = await openPairedPage(browser, daemon, {
      pairingUrl: await linkFor('bob'),
      beforeNavigate: async (page) => {
        page.on('websocket', (socket) => {
          bobSocket = socket;
        });
      },
    });
    const aliceDevice = await deviceOf('alice');
    await alice.page.locator('#whoami', { hasText: `alice · ${aliceDevice}` }).waitFor({ state: 'visible' });
    await bob.page.locator('#whoami', { hasText: `bob · ${await deviceOf('bob')}` }).waitFor({ state: 'visible' });

    // A page paired with no person named: nothing changes.
    const nobodys = await openPairedPage(browser, daemon);
    expect(await nobodys.page.locator('#whoami').isHidden()).toBe(true);
    await nobodys.context.close();

    const devices = await runCli(['devices'], daemon.env);
    expect(devices.stdout).toMatch(new RegExp(`^[0-9a-f]{12} {2}browser {3}alice {2}${aliceDevice.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
    const people = await runCli(['people', 'list'], daemon.env);
    expect(people.stdout).toMatch(/^alice {2}groups: dev\n {2}[0-9a-f]{12} {2}browser {3}.*last seen just now$/m);

    const forBob = await fromPage(alice.page, 'POST', '/api/pairings', { person: 'bob' });
    expect(forBob.status).toBe(403);
    expect(forBob.body).toMatchObject({ error: { code: 'not_your_person' } });
    const forHerself = await fromPage(alice.page, 'POST', '/api/pairings', {});
    expect(forHerself.status).toBe(200);
  });

  it("records alice and her device for an answer from alice's page: history, the CSV, listen --json and the finished card", async () => {
    const listen = startCli(['listen', '--json'], daemon.env);
    hooks.push(listen);
    const { hook, view } = await ask();
    await waitUntil(() => listen.output().stdout.includes(view.id) || undefined, 5000, 'listen to print the question');
    // Bob looks at the question while alice answers it.
    await openAsk(bob.page, view.id);
    const card = await openAsk(alice.page, view.id);
    await card.getByRole('group', { name: QUESTION }).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    expect(await answersOf(hook)).toEqual({ [QUESTION]: 'SQLite' });

    const device = await deviceOf('alice');
    expect(await historyLine(view.id)).toMatchObject({ source: 'person', detail: 'page', person: 'alice', device });
    const history = await runCli(['history', '--limit', '1'], daemon.env);
    expect(history.stdout.split('\n')[0]).toContain(`person (page)  by alice on ${device}`);

    const csv = await fetch(`${daemon.url}api/history?format=csv`, { headers: { authorization: `Bearer ${daemon.token}` } });
    const [header, row] = parseCsv(await csv.text());
    expect(row?.[header!.indexOf('person')]).toBe('alice');
    expect(row?.[header!.indexOf('device')]).toBe(device);

    const resolved = await waitUntil(
      () => listen.output().stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === 'resolved' && line.id === view.id),
      5000,
      'listen to print the answer',
    );
    expect(resolved).toMatchObject({ by: 'person', detail: 'page', person: 'alice', device, ask: { source: { kind: 'person', client: 'page', person: 'alice', device } } });

    await bob.page.locator(`article.is-finished[data-question-id="${view.id}"]`, { hasText: `Answered by alice on ${device}` }).waitFor({ state: 'visible' });
  });

  it("records alice for a request from alice's page that names bob in its headers", async () => {
    const { hook, view } = await ask();
    const forged = { 'x-askbridge-person': 'bob', 'x-askbridge-device': "bob's phone", 'x-forwarded-user': 'bob', 'x-remote-user': 'bob' };
    const answered = await fromPage(alice.page, 'POST', `/api/asks/${view.id}/answer`, { responses: [{ question: QUESTION, selected: ['PostgreSQL (Recommended)'] }] }, forged);
    expect(answered.status).toBe(200);
    expect(await answersOf(hook)).toEqual({ [QUESTION]: 'PostgreSQL (Recommended)' });
    expect(await historyLine(view.id)).toMatchObject({ person: 'alice', device: await deviceOf('alice') });
  });

  it("unpairs bob's page at once when bob is removed, and leaves alice's", async () => {
    expect(bobSocket.isClosed()).toBe(false);
    const closed = new Promise<void>((resolve) => bobSocket.on('close', () => resolve()));
    const removed = await runCli(['people', 'remove', 'bob'], daemon.env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`removed bob, and unpaired ${await bob.page.evaluate(() => document.querySelector('#whoami')?.textContent?.split(' · ')[1] ?? '')}`);
    await closed;
    expect((await fromPage(bob.page, 'GET', '/api/session')).status).toBe(401);
    expect(await fromPage(alice.page, 'GET', '/api/session')).toMatchObject({ status: 200, body: { paired: true, person: 'alice' } });
    const { body } = await daemon.api<DevicesReply>('GET', '/api/devices');
    expect(body.devices.filter((device) => device.person === 'bob')).toEqual([]);
    await bob.context.close();
  });

  it('decides as carol from a chat paired with pair --telegram --person carol, and unpairs it when carol is removed', async () => {
    const chat = tg.privateChat(3003, 'carol');
    const paired = await runCli(['pair', '--telegram', '--person', 'carol'], daemon.env);
    const code = PAIR_LINE.exec(paired.stdout)?.[1];
    expect(code, paired.stdout + paired.stderr).toBeDefined();
    const sent = tg.messages.length;
    tg.sendText(chat, `/start ${code}`);
    await tg.waitForMessage((message) => tg.messages.indexOf(message) >= sent && message.chat.id === chat.id && message.text === 'Paired: askbridge will ask here.', 'the chat to be told it is paired');

    const { hook, view } = await ask();
    const message = await tg.waitForMessage((each) => each.chat.id === chat.id && each.text.includes(QUESTION) && each.reply_markup !== undefined, 'the question in the chat');
    tg.press(chat, message.message_id, buttonData(message, 'SQLite'));
    expect(await answersOf(hook)).toEqual({ [QUESTION]: 'SQLite' });
    await tg.waitForMessage((each) => each === message && each.text.endsWith('\n\nAnswered by carol from Telegram'), 'the message to say carol answered');
    expect(await historyLine(view.id)).toMatchObject({ source: 'person', detail: 'telegram', person: 'carol', device: 'Telegram: @carol' });

    const removed = await runCli(['people', 'remove', 'carol'], daemon.env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain('removed carol, and unpaired Telegram: @carol');
    const { body } = await daemon.api<DevicesReply>('GET', '/api/devices');
    expect(body.devices.filter((device) => device.kind === 'telegram')).toEqual([]);
    const people = await runCli(['people', 'list', '--json'], daemon.env);
    expect(parseJson<{ people: Array<{ name: string }> }>(people.stdout, 'people').people.map((person) => person.name)).toEqual(['alice']);
  });
});
