/**
 * A team against the real Claude Code client: three people (alice and bob on call, carol on the
 * shop), each with a page paired for them in Chromium, and carol with a Telegram chat too (the
 * stand-in Bot API). The user config routes risky permissions to the on-call group, two of whom must
 * allow, and the shop's questions to alice and carol. One claude session in the shop asks a question,
 * then force-pushes:
 * - the question reaches alice's and carol's pages and carol's chat, never bob's page; carol answers
 *   it with a tap in Telegram, and Claude gets exactly that answer;
 * - the force-push reaches alice's and bob's pages, never carol's page or chat; alice's allow is one
 *   of two (Claude still waits, nothing is pushed), bob's releases it, and the push runs;
 * - history names who decided each, and `askbridge audit verify` passes on the trail the daemon wrote,
 *   then names the line edited afterwards.
 *
 * One daemon (a real `askbridge start`); the people added and the pages and chat paired with the
 * real CLI, as a person does. The route's project rule is written once the project exists: the
 * running daemon reads the user config again at once, and `askbridge doctor --route` says when.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLine } from '../../src/audit-file.js';
import type { AskView } from '../../src/protocol.js';
import { launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { runCli } from '../stack/processes.js';
import { buttonData, startTelegramApi, type TelegramApi, type TelegramChat } from '../stack/telegram-api.js';
import { PAIR_LINE } from '../stack/telegram-pairing.js';
import { pendingApprovalIn, pendingAskIn, resolveClaudeUnderTest, startAskbridgeDaemon, type ClaudeUnderTest } from './askbridge-stack.js';
import { bashStep } from './fake-anthropic.js';
import { DATABASE } from './questions.js';
import { createShop, git, prompt, startShopSession, stepResult } from './shop.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const FORCE_PUSH = 'git push --force origin main';
const FORCE_PUSH_REASON = "force-pushes: rewrites the remote's history";
const PEOPLE = ['alice', 'bob', 'carol'] as const;
type Name = (typeof PEOPLE)[number];

let claudeCode: ClaudeUnderTest;
let daemon: Daemon;
let tg: TelegramApi;
let browser: Browser;
const pages = {} as Record<Name, PairedPage>;
let carolChat: TelegramChat;
let cleanups: Array<() => Promise<unknown>> = [];

async function cli(...args: string[]): Promise<string> {
  const result = await runCli(args, daemon.env);
  if (result.code !== 0) throw new Error(`askbridge ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** Whether a page shows this ask at all: an inbox row or a card. */
const shows = (page: Page, id: string) => page.locator(`[data-ask-id="${id}"], [data-question-id="${id}"]`).count();

/** What carol's chat was sent that names `text`. */
const toldCarol = (text: string) => tg.messages.filter((message) => message.chat.id === carolChat.id && message.text.includes(text));

beforeAll(async () => {
  claudeCode = await resolveClaudeUnderTest();
  console.log(`Claude Code under test: ${claudeCode.versionLine} [${claudeCode.bin}; ${claudeCode.origin}]`);
  tg = await startTelegramApi([TOKEN]);
  daemon = await startAskbridgeDaemon({ config: { waitSeconds: 300, approvalNoticeSeconds: 0, telegram: { token: TOKEN, apiRoot: tg.root } } });
  await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  await cli('people', 'add', 'alice', '--group', 'oncall');
  await cli('people', 'add', 'bob', '--group', 'oncall');
  await cli('people', 'add', 'carol');
  browser = await launchBrowser();
  for (const name of PEOPLE) {
    pages[name] = await openPairedPage(browser, daemon, { pairingUrl: (await cli('open', '--person', name, '--print')).trim() });
    pages[name].page.setDefaultTimeout(15_000);
  }
  carolChat = tg.privateChat(4001, 'carol');
  const code = PAIR_LINE.exec(await cli('pair', '--telegram', '--person', 'carol'))![1]!;
  tg.sendText(carolChat, `/start ${code}`);
  await tg.waitForMessage((message) => message.chat.id === carolChat.id && message.text === 'Paired: askbridge will ask here.', "carol's chat to be paired");
}, 300_000);

afterEach(async () => {
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await tg?.close();
});

describe('a team on one daemon, with the real client', () => {
  it("routes the shop's question to its people and a risky push to two on-call people, who must both allow it; history and the audit trail say who did what", async () => {
    const { project, remote } = await createShop({ daemon, claudeBin: claudeCode.bin, files: { 'README.md': '# Shop\n' }, defer: (cleanup) => cleanups.push(cleanup) });

    // The routes, in the user config: the running daemon applies them at once.
    const userConfig = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
    const config = JSON.parse(await readFile(userConfig, 'utf8')) as Record<string, unknown>;
    config.route = [
      { name: 'risky needs two', kind: ['permission'], risky: true, to: ['@oncall'], approvals: 2 },
      { name: 'shop', project: project.dir, to: ['alice', 'carol'] },
    ];
    await writeFile(userConfig, JSON.stringify(config, null, 2));
    const explained = await waitUntil(
      async () => {
        const result = await runCli(['doctor', '--route', '--project', project.dir, '--kind', 'question'], daemon.env);
        return result.stdout.includes('shop') ? result.stdout : undefined;
      },
      10_000,
      'the daemon to apply the routes',
    );
    expect(explained).toContain('alice');
    expect(explained).toContain('carol');
    expect(explained).not.toContain('bob');

    const session = await startShopSession({
      daemon,
      claudeBin: claudeCode.bin,
      project,
      steps: [{ tool: 'AskUserQuestion', input: DATABASE }, bashStep(FORCE_PUSH, 'Replace main on the remote'), { text: 'Pushed.' }],
      defer: (cleanup) => cleanups.push(cleanup),
    });
    const { fake, claude } = session;
    const resultOf = (step: number) => stepResult(daemon, session, step);
    await prompt(session, 'Pick a database, then push.');

    // 1. The question: alice's and carol's, never bob's.
    const question: AskView = await pendingAskIn(daemon, claude, project.dir, 'the question', (ask) => ask.questions.length > 0);
    expect(question.route).toEqual({ people: ['alice', 'carol'], approvals: 1, rule: 'shop' });
    await openAsk(pages.alice.page, question.id);
    await openAsk(pages.carol.page, question.id);
    const toCarol = await tg.waitForMessage((message) => message.chat.id === carolChat.id && message.text.includes('Which database should we use?'), "the question in carol's chat");
    expect(await shows(pages.bob.page, question.id)).toBe(0);
    // carol answers it with a tap in Telegram: exactly that answer reaches Claude.
    tg.press(carolChat, toCarol.message_id, buttonData(toCarol, 'SQLite'));
    const answered = await resultOf(0);
    expect(answered.isError).toBe(false);
    expect(answered.text).toContain('"Which database should we use?"="SQLite"');
    expect(await daemon.ask(question.id)).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'telegram', person: 'carol' } });

    // 2. The force-push: alice's and bob's, never carol's; two of them must allow it.
    const push = await pendingApprovalIn(daemon, claude, project.dir, 'Bash', FORCE_PUSH);
    expect(push.risk).toEqual({ reasons: [FORCE_PUSH_REASON] });
    expect(push.route).toEqual({ people: ['alice', 'bob'], approvals: 2, rule: 'risky needs two' });
    const onAlice = await openAsk(pages.alice.page, push.id);
    expect(await onAlice.locator('.two-people').textContent()).toBe('Needs two people');
    await onAlice.getByRole('button', { name: 'Allow…' }).click();
    await onAlice.getByRole('button', { name: 'Yes, allow it' }).click();
    await onAlice.locator('.two-people-mine').waitFor({ state: 'visible' });
    const once = await daemon.ask(push.id);
    expect(once).toMatchObject({ status: 'pending', allows: [{ person: 'alice', client: 'page' }] });
    // One allow of two: Claude still waits, and nothing was pushed.
    expect(fake.stepResult(1)).toBeUndefined();
    expect(await git(remote, 'rev-parse', 'main')).not.toBe(await git(project.dir, 'rev-parse', 'HEAD'));

    const onBob = await openAsk(pages.bob.page, push.id);
    await expect.poll(() => onBob.locator('.two-people').textContent()).toMatch(/^1 of 2: allowed by alice at \d\d:\d\d$/);
    await onBob.getByRole('button', { name: 'Allow…' }).click();
    await onBob.getByRole('button', { name: 'Yes, allow it' }).click();
    const forced = await resultOf(1);
    expect(forced.isError).toBe(false);
    expect(forced.text).toContain('(forced update)');
    expect(await git(remote, 'rev-parse', 'main')).toBe(await git(project.dir, 'rev-parse', 'HEAD'));
    await claude.waitForScreen('Pushed.', 10_000);
    expect(await daemon.ask(push.id)).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'page', person: 'bob' }, allows: [{ person: 'alice' }, { person: 'bob' }] });
    // carol was never shown nor told of it.
    expect(await shows(pages.carol.page, push.id)).toBe(0);
    expect(toldCarol(FORCE_PUSH)).toEqual([]);
    expect(await shows(pages.bob.page, question.id)).toBe(0);

    // 3. History names who decided each.
    const history = await cli('history', '--limit', '2');
    expect(history).toMatch(/by bob on [^\n]+/);
    expect(history).toMatch(/by carol from Telegram/);

    // 4. The audit trail: every decision with its person, device and input; verify passes, then names an edited line.
    const trailFile = join(daemon.home, 'audit.jsonl');
    const trail = (await readFile(trailFile, 'utf8')).trimEnd().split('\n');
    console.log(`The audit trail:\n${trail.join('\n')}`);
    const lines = trail.map((text) => JSON.parse(text) as AuditLine);
    const ofPush = lines.filter((line) => line.ask === push.id);
    expect(ofPush.map((line) => [line.event, line.by])).toEqual([
      ['allow', expect.objectContaining({ person: 'alice', client: 'page' })],
      ['settled', expect.objectContaining({ kind: 'person', person: 'bob', client: 'page' })],
    ]);
    expect(ofPush[1]).toMatchObject({ input: { approval: { toolName: 'Bash', toolInput: { command: FORCE_PUSH } }, risk: [FORCE_PUSH_REASON] }, decision: { status: 'allowed' } });
    expect(lines.find((line) => line.ask === question.id)).toMatchObject({ event: 'settled', by: { person: 'carol', client: 'telegram' }, decision: { status: 'answered' } });
    expect(await cli('audit', 'verify')).toMatch(new RegExp(`^ok: ${trail.length} lines, from `));

    const edited = trail.findIndex((text) => text.includes('"allow"') && text.includes(push.id));
    await writeFile(trailFile, `${trail.map((text, index) => (index === edited ? text.replace('"alice"', '"mallory"') : text)).join('\n')}\n`);
    const tampered = await runCli(['audit', 'verify'], daemon.env);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout + tampered.stderr).toContain(`line ${edited + 1}: edited`);
  }, 300_000);
});
