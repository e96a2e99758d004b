// Risky approvals end to end: the real daemon, Claude Code's permission hook request, and each
// channel. A force-push is marked with its reason on the page (Chromium), in `askbridge pending`, in
// Telegram (stand-in Bot API) and in its notice (a local ntfy receiver); it is never allowed by one
// tap: the page asks for a second explicit step, `answer --allow` needs --confirm-risky, `watch` (in
// a real terminal, tmux) and Telegram allow it only when the confirmation word is typed, and Telegram
// offers no Allow button and refuses a forged press. A safe command next to it is not marked. History
// keeps the reasons with the decision, and `askbridge history` and the page's History show them, a
// path in them with every escape sequence marked.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { decisionOf, permissionPayload, requestPermission, type HeldPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, parseJson, runCli } from '../stack/processes.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';
import { activePrompt, openTerminal } from '../stack/terminal.js';
import { buttonsOf, startTelegramApi, type TelegramApi, type TelegramChat } from '../stack/telegram-api.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const FORCE_PUSH = 'npm test && git push --force origin main';
const REASON = "force-pushes: rewrites the remote's history";
const PROJECT = '/home/alice/projects/shop';
/** A deletion outside the project whose path would retitle the terminal, were its reason printed raw. */
const HOSTILE_RM = 'rm -rf "/srv/data\u001b]0;pwned-title\u0007"';
const HOSTILE_REASON_MARKED = 'deletes /srv/data[U+001B]]0;pwned-title[U+0007] and everything in it, outside the project';
const chromiumState = chromiumAvailability();

let tg: TelegramApi;
let receiver: Receiver;
let daemon: Daemon;
let alice: TelegramChat;
let sessions = 0;
const held: HeldPermission[] = [];

beforeAll(async () => {
  tg = await startTelegramApi([TOKEN]);
  receiver = await startReceiver();
  daemon = await startDaemon({
    config: { telegram: { token: TOKEN, apiRoot: tg.root }, whenNobodyWatching: 'wait', waitSeconds: 120, approvalNoticeSeconds: 0, notify: [{ ntfy: `${receiver.origin}/ntfy/askbridge` }] },
  });
  await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  alice = tg.privateChat(2001, 'alice');
  const paired = await runCli(['pair', '--telegram'], daemon.env);
  const code = /\/start ([A-Za-z0-9_-]+)/.exec(paired.stdout)![1]!;
  tg.sendText(alice, `/start ${code}`);
  await tg.waitForMessage((message) => message.chat.id === alice.id && message.text === 'Paired: askbridge will ask here.', 'the chat to be paired');
});
afterEach(async () => {
  for (const each of held.splice(0)) each.abort();
  await killStrayProcesses();
});
afterAll(async () => {
  await daemon?.stop();
  await tg?.close();
  await receiver?.close();
});

async function bash(command: string): Promise<HeldPermission> {
  const permission = await requestPermission(daemon, permissionPayload(`s-risk-${++sessions}`, 'Bash', { command, description: 'Ship it' }, { cwd: PROJECT }));
  held.push(permission);
  return permission;
}

const allowed = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };

describe('a risky approval', () => {
  it('carries its reasons in its view, and a safe one carries none', async () => {
    const risky = await bash(FORCE_PUSH);
    const safe = await bash('npm test && git push origin main');
    expect(risky.view.risk).toEqual({ reasons: [REASON] });
    expect(safe.view.risk).toBeUndefined();
  });

  it('is marked in askbridge pending, and answer --allow needs --confirm-risky', async () => {
    const risky = await bash(FORCE_PUSH);
    const pending = await runCli(['pending'], daemon.env);
    expect(pending.stdout).toContain(`RISKY: ${REASON} (allow it with --allow --confirm-risky)`);
    const refused = await runCli(['answer', risky.view.id, '--allow'], daemon.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`is risky (${REASON}): read it with \`${askbridgeCommand(daemon.env)} pending\`, then allow it with --allow --confirm-risky`);
    expect((await daemon.ask(risky.view.id)).status).toBe('pending');
    // The API refuses it too, whoever calls it without the confirmation.
    const direct = await daemon.api('POST', `/api/asks/${risky.view.id}/decide`, { behavior: 'allow' });
    expect(direct.status).toBe(400);
    expect((await daemon.ask(risky.view.id)).status).toBe('pending');
    const confirmed = await runCli(['answer', risky.view.id, '--allow', '--confirm-risky'], daemon.env);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(await decisionOf(risky)).toEqual(allowed);
    const history = await runCli(['history', '--json'], daemon.env);
    const line = history.stdout
      .trim()
      .split('\n')
      .map((each) => parseJson<{ id: string; approval?: { risk?: string[] } }>(each, 'history line'))
      .find((each) => each.id === risky.view.id);
    expect(line?.approval?.risk).toEqual([REASON]);
  });

  it('says why it was risky in askbridge history, under its decision, with every escape sequence marked', async () => {
    const risky = await bash(HOSTILE_RM);
    expect(risky.view.risk?.reasons).toEqual([HOSTILE_REASON_MARKED.replace('[U+001B]', '\u001b').replace('[U+0007]', '\u0007')]);
    expect((await runCli(['answer', risky.view.id, '--deny'], daemon.env)).code).toBe(0);
    await decisionOf(risky);
    const history = await runCli(['history'], daemon.env);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(`  denied · Bash: rm -rf "/srv/data[U+001B]]0;pwned-title[U+0007]" · by cli\n  RISKY: ${HOSTILE_REASON_MARKED}\n`);
    expect(history.stdout).not.toContain('\u001b');
  });

  it('is told as risky in its notice, with no button that allows it', async () => {
    const risky = await bash(FORCE_PUSH);
    await expect.poll(() => receiver.to('/ntfy/').some((request) => request.body.includes(risky.view.id))).toBe(true);
    const body = parseJson<Record<string, unknown>>(receiver.to('/ntfy/').find((request) => request.body.includes(risky.view.id))!.body.toString('utf8'), 'ntfy body');
    expect(body).toMatchObject({ title: 'Risky permission from shop', message: 'Risky: Bash waits for permission; read why on the page', tags: ['permission', 'warning'] });
    expect(body.actions).toBeUndefined();
  });

  it('has no Allow button in Telegram, refuses a forged press, and is allowed by the typed confirmation only', async () => {
    const before = tg.messages.length;
    const risky = await bash(FORCE_PUSH);
    const message = await tg.waitForMessage((each) => tg.messages.indexOf(each) >= before && each.chat.id === alice.id && each.text.includes(FORCE_PUSH), 'the risky permission in the chat');
    expect(message.text).toContain(`⚠ Risky: ${REASON}`);
    const labels = buttonsOf(message).map((button) => button.text);
    expect(labels).not.toContain('Allow once');
    expect(labels).toContain('Allow… (type to confirm)');
    // A press with data the bot never gave (a forged allow) decides nothing.
    const forged = tg.press(alice, message.message_id, 'allow');
    const toast = await tg.waitForCall((call) => call.method === 'answerCallbackQuery' && call.body.callback_query_id === forged, 'the forged press to be answered');
    expect(toast.body.text).toBe('askbridge does not know this button (any more).');
    const allowData = buttonsOf(message).find((button) => button.text === 'Allow… (type to confirm)')!.callback_data!;
    tg.press(alice, message.message_id, allowData);
    const prompt = await tg.waitForMessage((each) => each.chat.id === alice.id && each.reply_markup?.force_reply === true && each.text.startsWith('This is risky:'), 'the confirmation prompt');
    tg.reply(alice, prompt.message_id, 'yes');
    await tg.waitForMessage((each) => each.chat.id === alice.id && each.text === 'Not allowed: to allow it, press Allow… again and type allow.', 'the wrong confirmation to be refused');
    expect((await daemon.ask(risky.view.id)).status).toBe('pending');
    tg.press(alice, message.message_id, allowData);
    const again = await tg.waitForMessage((each) => each !== prompt && each.chat.id === alice.id && each.reply_markup?.force_reply === true && each.text.startsWith('This is risky:'), 'the second confirmation prompt');
    tg.reply(alice, again.message_id, 'allow');
    expect(await decisionOf(risky)).toEqual(allowed);
  });
});

describe('a risky approval in askbridge watch', () => {
  it('is marked with its reasons; its Allow asks for the word typed: a wrong word allows nothing and says so, the right one allows it', async () => {
    const terminal = await openTerminal(['watch'], { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
    try {
      await terminal.waitFor('Waiting for questions.');
      const risky = await bash(FORCE_PUSH);
      const screen = await terminal.waitForPrompt('Allow this call?');
      expect(screen).toContain(`RISKY: ${REASON}`);
      const choices = activePrompt(screen);
      expect(choices).toContain('1. Allow once (risky)…');
      expect(choices).toContain('type allow to confirm');
      expect(choices).not.toContain('without asking');

      await terminal.type('1');
      await terminal.waitForPrompt('Risky: type allow to allow it');
      await terminal.type('yes');
      await terminal.waitForPrompt(/│ {2}yes/);
      await terminal.press('Enter');
      await terminal.waitFor('Not allowed: choose it again and type allow to allow it.');
      expect((await daemon.ask(risky.view.id)).status).toBe('pending');

      // Back at the choices: the right word allows it.
      await terminal.waitForPrompt('Allow this call?');
      await terminal.type('1');
      await terminal.waitForPrompt('Risky: type allow to allow it');
      await terminal.type('allow');
      await terminal.waitForPrompt(/│ {2}allow/);
      await terminal.press('Enter');
      await terminal.waitFor('Allowed once: Claude Code runs it.');
      expect(await decisionOf(risky)).toEqual(allowed);
      await terminal.press('C-c');
      expect(await terminal.exitCode()).toBe(0);
    } finally {
      await terminal.close();
    }
  });
});

describe.skipIf(!chromiumState.available)('a risky approval on the page', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the danger mark with its reason, and allows only after the second, explicit step', async () => {
    const risky = await bash(FORCE_PUSH);
    const { context, page } = await openPairedPage(browser, daemon, { viewport: { width: 360, height: 740 } });
    try {
      const card = await openAsk(page, risky.view.id);
      const mark = card.locator('.risk-mark');
      await expect.poll(() => mark.innerText()).toContain(REASON);
      const color = await mark.evaluate((element) => getComputedStyle(element).borderColor);
      expect(color).not.toBe('rgba(0, 0, 0, 0)');
      // `a` and the first button open the confirmation: nothing is decided yet.
      await card.getByRole('button', { name: 'Allow…' }).click();
      const yes = card.getByRole('button', { name: 'Yes, allow it' });
      await yes.waitFor({ state: 'visible' });
      expect((await daemon.ask(risky.view.id)).status).toBe('pending');
      await card.getByRole('button', { name: 'Cancel' }).click();
      await yes.waitFor({ state: 'hidden' });
      await page.keyboard.press('a');
      await yes.waitFor({ state: 'visible' });
      await page.keyboard.press('Enter');
      expect((await daemon.ask(risky.view.id)).status).toBe('pending');
      await yes.click();
      expect(await decisionOf(risky)).toEqual(allowed);
    } finally {
      await context.close();
    }
  });

  it('History says why each risky one was risky, under how it ended; a path in the reasons is marked, never raw', async () => {
    const allowedOne = await bash(FORCE_PUSH);
    expect((await runCli(['answer', allowedOne.view.id, '--allow', '--confirm-risky'], daemon.env)).code).toBe(0);
    await decisionOf(allowedOne);
    const hostile = await bash(HOSTILE_RM);
    expect((await runCli(['answer', hostile.view.id, '--deny'], daemon.env)).code).toBe(0);
    await decisionOf(hostile);
    const safe = await bash('npm run lint');
    expect((await runCli(['answer', safe.view.id, '--allow'], daemon.env)).code).toBe(0);
    await decisionOf(safe);
    const { context, page } = await openPairedPage(browser, daemon);
    try {
      await page.locator('#history-toggle').click();
      // Newest first: the first of each is this test's.
      const entries = page.locator('#history-list .history-entry');
      const allowedEntry = entries.filter({ hasText: `Allowed once: Bash ${FORCE_PUSH}` }).first();
      await expect.poll(() => allowedEntry.locator('.history-risk').textContent()).toBe(`Risky: ${REASON}`);
      const deniedEntry = entries.filter({ hasText: 'Denied: Bash rm -rf' }).first();
      expect(await deniedEntry.locator('.history-risk').textContent()).toBe(`Risky: ${HOSTILE_REASON_MARKED}`);
      expect(await deniedEntry.locator('.history-risk .invisible-char').allTextContents()).toEqual(['[U+001B]', '[U+0007]']);
      expect(await entries.filter({ hasText: 'Allowed once: Bash npm run lint' }).first().locator('.history-risk').count()).toBe(0);
      expect(await page.title()).not.toContain('pwned');
    } finally {
      await context.close();
    }
  });
});
