// Claude Code's suggestions (its dialog's "Yes, and ...") in words, end to end: the real daemon,
// asked as Claude Code's PermissionRequest http hook asks, with a suggestion of each kind. Each one
// reads as what choosing it does (it adds, replaces or removes rules, folders or a mode, and where),
// in the same words on the page (a real Chromium), in `askbridge pending` and in Telegram (a
// stand-in Bot API); one that cannot be put in true words is offered nowhere; and the one chosen
// goes back to Claude Code exactly as it came.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decisionOf, type HeldPermission, permissionPayload, type PermissionSuggestion, requestPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { buttonsOf, startTelegramApi, type TelegramApi } from '../stack/telegram-api.js';
import type { Browser } from 'playwright-core';

const chromiumState = chromiumAvailability();
const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const PAIR_LINE = /^Send this to @askbridge_test_bot in Telegram within 10 minutes: \/start ([A-Za-z0-9_-]+)\n$/;

/** A suggestion of each kind Claude Code makes, and two it could be sent that no words here would say truly. */
const SENT: PermissionSuggestion[] = [
  { type: 'replaceRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }], behavior: 'ask', destination: 'localSettings' },
  { type: 'grantEverything', destination: 'userSettings' },
  { type: 'removeRules', rules: [{ toolName: 'Bash', ruleContent: 'rm -rf *' }], behavior: 'deny', destination: 'userSettings' },
  { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'git push *' }], behavior: 'allow', destination: 'session', mode: 'bypassPermissions' },
  { type: 'removeDirectories', directories: ['/home/alice/projects/shared'], destination: 'session' },
  { type: 'setMode', mode: 'acceptEdits', destination: 'projectSettings' },
  { type: 'addDirectories', directories: ['/srv/data'], destination: 'session' },
  { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'curl *' }], behavior: 'deny', destination: 'userSettings' },
];
/** What each one that may be offered does, in the order sent. */
const WORDS = [
  "Replace every ask rule in this project's local settings with `Bash(npm test)`",
  'Remove the deny rule `Bash(rm -rf *)` from your user settings (every project)',
  'Remove `/home/alice/projects/shared` from the folders allowed in this session',
  'Allow all edits in this project (its shared settings)',
  'Allow access to `/srv/data` for this session',
  'Always deny `Bash(curl *)` in every project',
];
const OFFERED = [SENT[0], SENT[2], SENT[4], SENT[5], SENT[6], SENT[7]];

let tg: TelegramApi;
let daemon: Daemon;
let browser: Browser;
const held: HeldPermission[] = [];

describe.skipIf(!chromiumState.available)("Claude Code's suggestions, in words", () => {
  beforeAll(async () => {
    tg = await startTelegramApi([TOKEN]);
    daemon = await startDaemon({ config: { telegram: { token: TOKEN, apiRoot: tg.root }, whenNobodyWatching: 'wait', waitSeconds: 120, approvalNoticeSeconds: 0 } });
    await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
    browser = await launchBrowser();
  }, 60_000);
  afterEach(async () => {
    for (const permission of held.splice(0)) permission.abort();
    await killStrayProcesses();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    await tg?.close();
  });

  it('says what each kind does, the same on the page, in the terminal and in Telegram; offers none it cannot say; and sends back exactly the one chosen', async () => {
    // A chat paired as a person pairs it: `askbridge pair --telegram`, then /start CODE.
    const alice = tg.privateChat(1001, 'alice');
    const paired = await runCli(['pair', '--telegram'], daemon.env);
    const code = PAIR_LINE.exec(paired.stdout)?.[1];
    expect(code, paired.stdout + paired.stderr).toBeDefined();
    tg.sendText(alice, `/start ${code}`);
    await tg.waitForMessage((message) => message.chat.id === alice.id && message.text === 'Paired: askbridge will ask here.', 'the chat to be paired');

    const command = 'npm test -- --run suggestions';
    const permission = await requestPermission(daemon, permissionPayload('s-suggestions', 'Bash', { command, description: 'Run the tests' }, { suggestions: SENT }));
    held.push(permission);
    expect(permission.view.approval!.suggestions.map((suggestion) => suggestion.label)).toEqual(WORDS);
    await daemon.waitForLog((entry) => entry.msg === 'suggestions not offered: askbridge cannot put them in words' && entry.sent === SENT.length && entry.offered === WORDS.length);

    // The terminal: each by the number `answer --allow-suggestion` takes.
    const pending = await runCli(['pending'], daemon.env);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout.split('\n').filter((line) => line.includes('- suggestion '))).toEqual(WORDS.map((words, index) => `       - suggestion ${index + 1}: ${words}`));

    // Telegram: the same words under the input, and a numbered button each.
    const message = await tg.waitForMessage((each) => each.chat.id === alice.id && each.text.includes(command), 'the permission in the chat');
    expect(message.text).toContain(`\n\nOr allow, and also:\n${WORDS.map((words, index) => `${index + 1}. ${words}`).join('\n')}`);
    const numbered = buttonsOf(message).filter((button) => /^\d\. /.test(button.text));
    expect(numbered.map((button) => button.text.slice(0, 3))).toEqual(WORDS.map((_words, index) => `${index + 1}. `));

    // The page: a button each, in the same words, the rule or folder as code; the second one chosen goes back exactly as it came.
    const { page } = await openPairedPage(browser, daemon);
    const card = await openAsk(page, permission.view.id);
    const buttons = card.locator('.btn-suggestion');
    expect(await buttons.allTextContents()).toEqual(WORDS.map((words) => words.replaceAll('`', '')));
    expect(await buttons.first().locator('code').allTextContents()).toEqual(['Bash(npm test)']);
    await buttons.nth(1).click();
    expect(await decisionOf(permission)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedPermissions: [OFFERED[1]] } } });
    expect((await daemon.ask(permission.view.id)).decision).toEqual({ behavior: 'allow', suggestion: 1 });
  }, 60_000);
});
