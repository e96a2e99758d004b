// Two-person approval end to end: the real daemon with two people (alice, bob) and a route that
// sends risky permissions to both and needs both to allow; Claude Code's PermissionRequest held open
// through the http hook; pages in Chromium paired for each person. One person's allow is kept and
// shown ("1 of 2: allowed by alice at 14:02") while the hook waits on; the same person on another
// device is refused (409) and the page says so; a second person's allow releases it, and any deny
// ends it. The CLI may deny but never allow, and no grant is taken. In Telegram (a stand-in Bot API,
// a chat paired for each person) the message says where it stands, and a second press by the same
// person is answered that a second person must. In `askbridge watch` (tmux) it offers only a deny.
// Many at once and typed: the page's Review all counts each person's allow once for every one ticked
// (the same person again is refused, the second person releases them); `askbridge answer --all`
// offers only to deny them; Telegram's typed confirmation of a risky one counts once per person.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PairingReply } from '../../src/protocol.js';
import { bashRuleSuggestion, decisionOf, permissionPayload, requestPermission, type HeldPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { pairOverHttp } from '../stack/page-client.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { activePrompt, openTerminal } from '../stack/terminal.js';
import { buttonData, buttonsOf, startTelegramApi, type TelegramApi, type TelegramChat } from '../stack/telegram-api.js';

const FORCE_PUSH = 'git push --force origin main';
const PROJECT = '/home/alice/projects/shop';
/** A project whose every permission two people must allow, risky or not. */
const BANK = '/home/alice/projects/bank';
const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const CLI_REFUSAL = 'two people must allow this from their own paired devices; the CLI may deny it';
const chromiumState = chromiumAvailability();

let daemon: Daemon;
let tg: TelegramApi;
let browser: Browser;
let sessions = 0;
const held: HeldPermission[] = [];
/** alice's phone and laptop, and bob's phone: each a page paired for its person. */
const pages: Record<'alicePhone' | 'aliceLaptop' | 'bobPhone', PairedPage> = {} as never;

/** A page paired for `person`, with a one-time code the local CLI's token asked for. */
async function pagePairedFor(person: string): Promise<PairedPage> {
  const pairing = await daemon.api<PairingReply>('POST', '/api/pairings', { person });
  expect(pairing.status).toBe(200);
  return openPairedPage(browser, daemon, { pairingUrl: pairing.body.links.local });
}

/** A private Telegram chat paired for `person`. */
async function chatPairedFor(person: string, id: number): Promise<TelegramChat> {
  const chat = tg.privateChat(id, person);
  const pairing = await daemon.api<{ code: string }>('POST', '/api/pairings/telegram', { person });
  expect(pairing.status).toBe(200);
  tg.sendText(chat, `/start ${pairing.body.code}`);
  await tg.waitForMessage((message) => message.chat.id === id && message.text === 'Paired: askbridge will ask here.', `${person}'s chat to be paired`);
  return chat;
}

async function forcePush(): Promise<HeldPermission> {
  const permission = await requestPermission(daemon, permissionPayload(`s-two-${++sessions}`, 'Bash', { command: FORCE_PUSH, description: 'Ship it' }, { cwd: PROJECT }));
  held.push(permission);
  return permission;
}

/** Whether the hook has had its answer by now (the daemon's status is the authority; this says nothing reached the hook either). */
async function hookAnswered(permission: HeldPermission): Promise<boolean> {
  return Promise.race([permission.response.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

/** 14:02: a time of day as the page's clock shows it (the same machine, the same zone). */
const clock = (at: number) => new Date(at).toTimeString().slice(0, 5);

/** Allows a risky approval on its card: "Allow…", then its confirmation. */
async function allowOn(card: Locator): Promise<void> {
  await card.getByRole('button', { name: 'Allow…' }).click();
  await card.getByRole('button', { name: 'Yes, allow it' }).click();
}

beforeAll(async () => {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-'));
  const addedAt = Date.now();
  await writeFile(join(home, 'people.json'), `${JSON.stringify([{ name: 'alice', groups: [], addedAt }, { name: 'bob', groups: [], addedAt }])}\n`);
  tg = await startTelegramApi([TOKEN]);
  const route = [
    { kind: ['permission'], risky: true, to: ['alice', 'bob'], approvals: 2 },
    { kind: ['permission'], project: BANK, to: ['alice', 'bob'], approvals: 2 },
  ];
  daemon = await startDaemon({ home, config: { waitSeconds: 300, approvalNoticeSeconds: 0, route, telegram: { token: TOKEN, apiRoot: tg.root } } });
  await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  if (!chromiumState.available) return;
  browser = await launchBrowser();
  pages.alicePhone = await pagePairedFor('alice');
  pages.aliceLaptop = await pagePairedFor('alice');
  pages.bobPhone = await pagePairedFor('bob');
});
afterEach(async () => {
  for (const each of held.splice(0)) each.abort();
  await killStrayProcesses();
});
afterAll(async () => {
  for (const paired of Object.values(pages)) await paired.context.close();
  await browser?.close();
  await daemon?.stop();
  await tg?.close();
});

describe.skipIf(!chromiumState.available)('a risky permission two people must allow', () => {
  it('waits after alice allows (her laptop offers no allow, another device of hers is refused) and is allowed once bob allows', async () => {
    const push = await forcePush();
    expect(push.view).toMatchObject({ route: { people: ['alice', 'bob'], approvals: 2 }, risk: { reasons: [expect.stringContaining('force-pushes')] }, choices: { remember: false, grant: false } });

    const onPhone = await openAsk(pages.alicePhone.page, push.view.id);
    expect(await onPhone.locator('.two-people').textContent()).toBe('Needs two people');
    await allowOn(onPhone);
    await onPhone.locator('.two-people-mine').waitFor({ state: 'visible' });
    expect(await onPhone.locator('.two-people-mine').textContent()).toBe('You allowed it: waiting for a second person');
    const once = await daemon.ask(push.view.id);
    expect(once).toMatchObject({ status: 'pending', allows: [{ person: 'alice', client: 'page' }] });
    const aliceAt = clock(once.allows![0]!.at);
    expect(await onPhone.locator('.two-people').textContent()).toBe(`1 of 2: allowed by alice at ${aliceAt}`);
    // Its allow gives way; Deny stays.
    expect(await onPhone.getByRole('button', { name: 'Allow…' }).isVisible()).toBe(false);
    expect(await onPhone.getByRole('button', { name: 'Deny', exact: true }).isVisible()).toBe(true);
    // Nor do its keys offer one: only the message's key is left.
    expect(await onPhone.locator('.approval-keys').textContent()).toBe('d writes a message');
    expect(await hookAnswered(push)).toBe(false);

    // alice's laptop knows she allowed it: it offers no allow.
    const onLaptop = await openAsk(pages.aliceLaptop.page, push.view.id);
    await expect.poll(() => onLaptop.locator('.two-people').textContent()).toBe(`1 of 2: allowed by alice at ${aliceAt}`);
    await onLaptop.locator('.two-people-mine').waitFor({ state: 'visible' });
    expect(await onLaptop.getByRole('button', { name: 'Allow…' }).isVisible()).toBe(false);
    // alice again, from a third device of hers: the daemon counts her once.
    const aliceTablet = await pairOverHttp(daemon, { person: 'alice' });
    const again = await aliceTablet.request<{ error: { code: string; message: string } }>('POST', `/api/asks/${push.view.id}/decide`, { behavior: 'allow', confirmRisky: true });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({ code: 'already_allowed', message: 'alice allowed it already: a second person must' });
    expect(await daemon.ask(push.view.id)).toMatchObject({ status: 'pending', allows: [{ person: 'alice' }] });
    expect(await hookAnswered(push)).toBe(false);

    // bob's page was told of alice's allow as it happened.
    const onBob = await openAsk(pages.bobPhone.page, push.view.id);
    await expect.poll(() => onBob.locator('.two-people').textContent()).toBe(`1 of 2: allowed by alice at ${aliceAt}`);
    await allowOn(onBob);
    expect(await decisionOf(push)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const settled = await daemon.ask(push.view.id);
    expect(settled).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'page', person: 'bob' }, allows: [{ person: 'alice' }, { person: 'bob' }] });
    const both = `2 of 2: allowed by alice at ${aliceAt} and bob at ${clock(settled.allows![1]!.at)}`;
    // Finished, every page shows both.
    for (const page of [pages.bobPhone.page, pages.alicePhone.page]) {
      await expect.poll(() => finishedLine(page, push.view.id)).toBe(both);
    }
  });

  it('is denied at once when bob denies after alice allowed', async () => {
    const push = await forcePush();
    await allowOn(await openAsk(pages.alicePhone.page, push.view.id));
    await expect.poll(async () => (await daemon.ask(push.view.id)).allows?.length).toBe(1);
    const onBob = await openAsk(pages.bobPhone.page, push.view.id);
    await onBob.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(await decisionOf(push)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny' } } });
    expect(await daemon.ask(push.view.id)).toMatchObject({ status: 'denied', source: { person: 'bob' }, allows: [{ person: 'alice' }] });
  });

  it('is never allowed by the CLI, nor with a grant or an "always allow"; the CLI may deny it', async () => {
    const push = await forcePush();
    const pending = await runCli(['pending'], daemon.env);
    expect(pending.stdout).toContain(`Needs two people (${CLI_REFUSAL}: --deny)`);
    expect(pending.stdout).not.toContain('--allow --confirm-risky');

    const cli = await runCli(['answer', push.view.id, '--allow', '--confirm-risky'], daemon.env);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(CLI_REFUSAL);
    // The daemon refuses it itself, whoever holds the token.
    const direct = await daemon.api<{ error: { code: string; message: string } }>('POST', `/api/asks/${push.view.id}/decide`, { behavior: 'allow', confirmRisky: true });
    expect(direct).toMatchObject({ status: 400, body: { error: { code: 'two_people_required', message: CLI_REFUSAL } } });

    // A person's allow that carries a grant, or an "always allow", is refused: each allows this one call.
    expect(await decideFrom(pages.alicePhone.page, push.view.id, { behavior: 'allow', confirmRisky: true, grant: { minutes: 15, scope: 'session' } })).toMatchObject({ status: 400, body: { error: { code: 'two_people_allow_once' } } });
    expect(await decideFrom(pages.alicePhone.page, push.view.id, { behavior: 'allow', confirmRisky: true, suggestion: 0 })).toMatchObject({ status: 400, body: { error: { code: 'two_people_allow_once' } } });
    expect(await daemon.ask(push.view.id)).toMatchObject({ status: 'pending' });
    expect((await daemon.ask(push.view.id)).allows).toBeUndefined();
    expect(await hookAnswered(push)).toBe(false);

    const denied = await runCli(['answer', push.view.id, '--deny'], daemon.env);
    expect(denied.code, denied.stderr).toBe(0);
    expect(await decisionOf(push)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
  });

  it('in askbridge watch, says who allowed it and offers only to deny it', async () => {
    const push = await forcePush();
    expect(await decideFrom(pages.alicePhone.page, push.view.id, { behavior: 'allow', confirmRisky: true })).toMatchObject({ status: 200, body: { ask: { status: 'pending' } } });
    const aliceAt = clock((await daemon.ask(push.view.id)).allows![0]!.at);
    const terminal = await openTerminal(['watch'], { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
    try {
      const screen = await terminal.waitForPrompt('Deny this call? Two people allow it, each on their own device');
      expect(screen).toContain(`1 of 2: allowed by alice at ${aliceAt}: ${CLI_REFUSAL}`);
      const choices = activePrompt(screen);
      expect(choices).toContain('1. Deny');
      expect(choices).not.toContain('Allow');
      await terminal.type('1');
      await terminal.waitForPrompt('A message for Claude (optional): Enter denies');
      await terminal.press('Enter');
      expect(await decisionOf(push)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
      expect(await daemon.ask(push.view.id)).toMatchObject({ status: 'denied', source: { client: 'cli' }, allows: [{ person: 'alice' }] });
      await terminal.press('C-c');
      expect(await terminal.exitCode()).toBe(0);
    } finally {
      await terminal.close();
    }
  });
});

/** A decision sent from a paired page with its own key, as its script sends one: the daemon's reply. */
function decideFrom(page: Page, id: string, decision: Record<string, unknown>): Promise<{ status: number; body: { error?: { code: string }; ask?: { status: string } } }> {
  return page.evaluate(
    async ({ id, body }) => {
      const reply = await fetch(`/api/asks/${id}/decide`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-askbridge-key': localStorage.getItem('askbridge.pageKey') ?? '' }, body: JSON.stringify(body) });
      return { status: reply.status, body: (await reply.json()) as { error?: { code: string }; ask?: { status: string } } };
    },
    { id, body: decision },
  );
}

/** The two-people line of a finished card, once the page has one. */
async function finishedLine(page: Page, id: string): Promise<string | null> {
  const line = page.locator(`article.is-finished[data-question-id="${id}"] .two-people`);
  return (await line.count()) === 0 ? null : line.textContent();
}

describe('a permission two people must allow, in Telegram', () => {
  it('says it needs two people, then who allowed it; the same person again is told a second person must; the second person releases it', async () => {
    const aliceChat = await chatPairedFor('alice', 3001);
    const bobChat = await chatPairedFor('bob', 3002);
    const before = tg.messages.length;
    const build = await requestPermission(daemon, permissionPayload(`s-two-${++sessions}`, 'Bash', { command: 'npm run build', description: 'Build it' }, { cwd: BANK, suggestions: [bashRuleSuggestion('npm run build:*')] }));
    held.push(build);
    const told = (chat: TelegramChat) => tg.waitForMessage((message) => tg.messages.indexOf(message) >= before && message.chat.id === chat.id && message.text.includes('npm run build'), `the permission in ${chat.id}`);
    const toAlice = await told(aliceChat);
    const toBob = await told(bobChat);
    expect(toAlice.text).toContain('Needs two people');
    // One allow each, of this call only: no "always allow", no grant.
    expect(buttonsOf(toAlice).map((button) => button.text)).toEqual(['Allow once', 'Deny', 'Deny with a message…']);

    /** Presses a button and returns the toast it was answered with. */
    const press = async (chat: TelegramChat, message: typeof toAlice, text: string) => {
      const query = tg.press(chat, message.message_id, buttonData(message, text));
      const answered = await tg.waitForCall((call) => call.method === 'answerCallbackQuery' && call.body.callback_query_id === query, `the press of ${text} to be answered`);
      return answered.body.text;
    };
    expect(await press(aliceChat, toAlice, 'Allow once')).toBe('Allowed: a second person must allow it too.');
    const once = await daemon.ask(build.view.id);
    expect(once).toMatchObject({ status: 'pending', allows: [{ person: 'alice', client: 'telegram' }] });
    const aliceLine = `1 of 2: allowed by alice at ${clock(once.allows![0]!.at)}`;
    // Every chat's message says so, and keeps its buttons for the second person.
    await tg.waitForMessage((message) => message === toBob && message.text.includes(aliceLine), "bob's message to say alice allowed it");
    expect(toBob.text).not.toContain('Needs two people');
    expect(buttonsOf(toBob).map((button) => button.text)).toContain('Allow once');

    expect(await press(aliceChat, toAlice, 'Allow once')).toBe('You allowed it already: a second person must');
    expect(await daemon.ask(build.view.id)).toMatchObject({ status: 'pending', allows: [{ person: 'alice' }] });
    expect(await hookAnswered(build)).toBe(false);

    await press(bobChat, toBob, 'Allow once');
    expect(await decisionOf(build)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const settled = await daemon.ask(build.view.id);
    const both = `2 of 2: allowed by alice at ${clock(settled.allows![0]!.at)} and bob at ${clock(settled.allows![1]!.at)}`;
    await tg.waitForMessage((message) => message === toAlice && message.text.endsWith(`Allowed by bob from Telegram\n${both}`), "alice's message to say both allowed it");
    expect(buttonsOf(toAlice)).toEqual([]);
  });
});

describe.skipIf(!chromiumState.available)('two people through every way of deciding many at once, or by a typed confirmation', () => {
  /** A permission of the bank project (two people must allow it, and it is not risky). */
  async function bankPermission(command: string): Promise<HeldPermission> {
    const permission = await requestPermission(daemon, permissionPayload(`s-two-${++sessions}`, 'Bash', { command, description: 'Run it' }, { cwd: BANK }));
    held.push(permission);
    return permission;
  }

  /** Opens the page's Review all once it offers `count` permissions, ticks every one, and allows them: the list's summary. */
  async function allowAllFrom(page: Page, count: number): Promise<Locator> {
    const button = page.locator('#review-all');
    await expect.poll(() => button.textContent()).toBe(`Review all ${count} permissions`);
    await button.click();
    const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
    await dialog.waitFor({ state: 'visible' });
    await expect.poll(() => dialog.locator('.review-item').count()).toBe(count);
    await dialog.getByRole('button', { name: 'Select all' }).click();
    await dialog.getByRole('button', { name: `Allow ${count} selected` }).click();
    return dialog;
  }

  it("the page's Review all: each person's allow counts once, the same person again is refused, and the second person's releases them", async () => {
    const build = await bankPermission('npm run build');
    const lint = await bankPermission('npm run lint');

    const onAlice = await allowAllFrom(pages.alicePhone.page, 2);
    await expect.poll(() => onAlice.locator('.review-summary').textContent()).toBe('2 allowed. 2 of them need a second person to allow them too, and still wait.');
    for (const each of [build, lint]) {
      const once = await daemon.ask(each.view.id);
      expect(once).toMatchObject({ status: 'pending', allows: [{ person: 'alice', client: 'page' }] });
      expect(await hookAnswered(each)).toBe(false);
      const item = onAlice.locator(`.review-item[data-question-id="${each.view.id}"]`);
      // Still in the list, unticked, and saying where it stands.
      expect(await item.getAttribute('data-status')).toBe('waiting');
      expect(await item.getByRole('checkbox').isChecked()).toBe(false);
      expect(await item.locator('.review-state').textContent()).toBe('You allowed it: waiting for a second person');
      expect(await item.locator('.two-people').textContent()).toBe(`1 of 2: allowed by alice at ${clock(once.allows![0]!.at)}`);
    }

    // alice again, from the same list: the daemon counts her once, and the list says so.
    await onAlice.getByRole('button', { name: 'Select all' }).click();
    await onAlice.getByRole('button', { name: 'Allow 2 selected' }).click();
    await expect.poll(() => onAlice.locator('.review-summary').textContent()).toBe('0 allowed. 2 not allowed again: you allowed them already, and a second person must: Bash: npm run build; Bash: npm run lint.');
    for (const each of [build, lint]) expect(await daemon.ask(each.view.id)).toMatchObject({ status: 'pending', allows: [{ person: 'alice' }] });
    await onAlice.getByRole('button', { name: 'Close' }).click();

    const onBob = await allowAllFrom(pages.bobPhone.page, 2);
    await expect.poll(() => onBob.locator('.review-summary').textContent()).toBe('2 allowed.');
    for (const each of [build, lint]) {
      expect(await decisionOf(each)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
      expect(await daemon.ask(each.view.id)).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'page', person: 'bob' }, allows: [{ person: 'alice' }, { person: 'bob' }] });
    }
    await onBob.getByRole('button', { name: 'Close' }).click();
  });

  it('askbridge answer --all never allows one, says who allowed it, and may deny it', async () => {
    const push = await forcePush();
    const build = await bankPermission('npm run build');
    expect(await decideFrom(pages.alicePhone.page, build.view.id, { behavior: 'allow' })).toMatchObject({ status: 200, body: { ask: { status: 'pending' } } });
    const aliceAt = clock((await daemon.ask(build.view.id)).allows![0]!.at);
    const terminal = await openTerminal(['answer', '--all'], { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
    try {
      // No list to allow from: only the one to deny.
      const screen = await terminal.waitForPrompt('Deny which?');
      expect(screen).toContain('Review all: 2 permissions wait');
      // Each says where it stands, then that it may only be denied here.
      expect(screen).toContain(`│  Needs two people: ${CLI_REFUSAL}\n`);
      expect(screen).toContain(`│  1 of 2: allowed by alice at ${aliceAt}: ${CLI_REFUSAL}\n`);
      expect(screen.replace(/\n/g, '')).toContain(`${CLI_REFUSAL}. It may be denied here.`);
      expect(screen).not.toContain('Allow which?');
      await terminal.type('2');
      await terminal.press('Enter');
      await terminal.waitForPrompt('A message for the one denied (optional): Enter denies');
      await terminal.press('Enter');
      await terminal.waitFor('0 allowed, 1 denied; 1 still waiting.');
      expect(await terminal.exitCode()).toBe(0);
    } finally {
      await terminal.close();
    }
    expect(await decisionOf(build)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
    expect(await daemon.ask(build.view.id)).toMatchObject({ status: 'denied', source: { kind: 'person', client: 'cli' }, allows: [{ person: 'alice' }] });
    const stillWaiting = await daemon.ask(push.view.id);
    expect(stillWaiting.status).toBe('pending');
    expect(stillWaiting.allows).toBeUndefined();
    expect(await hookAnswered(push)).toBe(false);
  });

  it("Telegram's typed confirmation of a risky one: alice's counts once, typed again it is refused, and bob's releases it", async () => {
    const aliceChat = await chatPairedFor('alice', 3011);
    const bobChat = await chatPairedFor('bob', 3012);
    const before = tg.messages.length;
    const push = await forcePush();
    const told = (chat: TelegramChat) => tg.waitForMessage((message) => tg.messages.indexOf(message) >= before && message.chat.id === chat.id && message.text.includes(FORCE_PUSH), `the force-push in ${chat.id}`);
    const toAlice = await told(aliceChat);
    const toBob = await told(bobChat);
    expect(toAlice.text).toContain('Needs two people');
    expect(buttonsOf(toAlice).map((button) => button.text)).toEqual(['Allow… (type to confirm)', 'Deny', 'Deny with a message…']);

    /** Presses Allow… under `message` and types `word` in reply to its prompt: the chat's next message after it. */
    const typedAllow = async (chat: TelegramChat, message: typeof toAlice, word: string) => {
      const from = tg.messages.length;
      tg.press(chat, message.message_id, buttonData(message, 'Allow… (type to confirm)'));
      const prompt = await tg.waitForMessage((each) => tg.messages.indexOf(each) >= from && each.chat.id === chat.id && each.reply_markup?.force_reply === true && each.text.startsWith('This is risky:'), `the confirmation prompt in ${chat.id}`);
      const typedAt = tg.messages.length;
      tg.reply(chat, prompt.message_id, word);
      return typedAt;
    };
    /** The chat's first new message sent since `from`. */
    const saidSince = (chat: TelegramChat, from: number) => tg.waitForMessage((each) => tg.messages.indexOf(each) >= from && each.chat.id === chat.id, `a reply in ${chat.id}`);

    expect((await saidSince(aliceChat, await typedAllow(aliceChat, toAlice, 'allow'))).text).toBe('Allowed: a second person must allow it too.');
    const once = await daemon.ask(push.view.id);
    expect(once).toMatchObject({ status: 'pending', allows: [{ person: 'alice', client: 'telegram' }] });
    expect(await hookAnswered(push)).toBe(false);
    await tg.waitForMessage((message) => message === toBob && message.text.includes(`1 of 2: allowed by alice at ${clock(once.allows![0]!.at)}`), "bob's message to say alice allowed it");

    // alice confirms it again: a second person must.
    expect((await saidSince(aliceChat, await typedAllow(aliceChat, toAlice, 'allow'))).text).toBe('You allowed it already: a second person must');
    expect(await daemon.ask(push.view.id)).toMatchObject({ status: 'pending', allows: [{ person: 'alice' }] });
    expect(await hookAnswered(push)).toBe(false);

    await typedAllow(bobChat, toBob, 'allow');
    expect(await decisionOf(push)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    expect(await daemon.ask(push.view.id)).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'telegram', person: 'bob' }, allows: [{ person: 'alice', client: 'telegram' }, { person: 'bob', client: 'telegram' }] });
  });
});
