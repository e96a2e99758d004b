/**
 * A team with the real Codex and the real opencode: two people, alice and bob, each with a page
 * paired for them in Chromium, and routes by agent in the user config (Codex's asks to bob,
 * opencode's to alice). One daemon (a real `askbridge start`) serves both agents:
 * - Codex (its TUI in tmux, the PermissionRequest hook `askbridge install --codex --user` wrote)
 *   asks to run a command: the approval reaches bob's page only; bob allows it there, the command
 *   runs and the model reads its output;
 * - opencode (`opencode serve`, relayed by a real `askbridge attach opencode`) asks a question: it
 *   reaches alice's page only; alice answers it there, and the model reads exactly her answer;
 * - history names who decided each, and from which device.
 *
 * The people are added and the pages paired with the real CLI, as a person does; the models are the
 * suite's stand-ins (fake-responses.ts for Codex, fake-chat.ts for opencode).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { runCli, startCli, type RunningProcess } from '../stack/processes.js';
import { hookEnvOf, startAskbridgeDaemon } from './askbridge-stack.js';
import { setUpCodex, startCodex, type CodexSession, type CodexSetup } from './codex-tmux.js';
import { startFakeChat, type FakeChat } from './fake-chat.js';
import { startOpencode, type Opencode } from './opencode-serve.js';

/** Codex's command: its output proves it ran ($((6*7)) is only ever 42 once a shell ran it). */
const COMMAND = 'echo ASKBRIDGE_TEAM_$((6*7))';
const RAN = 'ASKBRIDGE_TEAM_42';
/** Codex's own approval dialog: it never shows while askbridge holds the approval. */
const DIALOG = 'Would you like to run the following command?';
/** opencode 1.18.33's own words to the model. */
const ANSWERED = 'User has answered your questions:';
/** The browser each page runs in, as askbridge names its device. */
const DEVICE = 'Chrome on Linux';
const ROUTE = [
  { name: 'codex to bob', agent: ['codex'], to: ['bob'] },
  { name: 'opencode to alice', agent: ['opencode'], to: ['alice'] },
];

let daemon: Daemon;
let codexSetup: CodexSetup;
let codex: CodexSession | undefined;
let chat: FakeChat;
let opencode: Opencode;
let attach: RunningProcess | undefined;
let browser: Browser;
const pages = {} as Record<'alice' | 'bob', PairedPage>;

async function cli(...args: string[]): Promise<string> {
  const result = await runCli(args, daemon.env);
  if (result.code !== 0) throw new Error(`askbridge ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** Whether a page shows this ask at all: an inbox row or a card. */
const shows = (page: Page, id: string) => page.locator(`[data-ask-id="${id}"], [data-question-id="${id}"]`).count();

/** The waiting ask of `agent` that `match` picks, once the daemon shows it. */
function pendingOf(agent: string, match: (ask: AskView) => boolean, what: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === agent && match(ask)), 60_000, what);
}

/** The history line of a finished ask, once written. */
function historyOf(id: string) {
  return waitUntil(async () => (await daemon.history()).find((line) => line.id === id), 10_000, `the history line of ${id}`);
}

beforeAll(async () => {
  daemon = await startAskbridgeDaemon({ config: { waitSeconds: 300, approvalNoticeSeconds: 0, route: ROUTE } });
  await cli('people', 'add', 'alice');
  await cli('people', 'add', 'bob');
  browser = await launchBrowser();
  for (const name of ['alice', 'bob'] as const) {
    pages[name] = await openPairedPage(browser, daemon, { pairingUrl: (await cli('open', '--person', name, '--print')).trim() });
    pages[name].page.setDefaultTimeout(15_000);
  }
  codexSetup = await setUpCodex(hookEnvOf(daemon));
  console.log(`Codex under test: ${codexSetup.codex.version} [${codexSetup.codex.bin}]`);
  chat = await startFakeChat();
  opencode = await startOpencode(chat.baseUrl);
  const relay = startCli(['attach', 'opencode', opencode.url], daemon.env);
  attach = relay;
  await waitUntil(() => (relay.output().stdout.includes('attached to opencode') ? true : undefined), 30_000, `the attach to start (${JSON.stringify(relay.output())})`);
}, 180_000);

afterAll(async () => {
  await codex?.stop();
  if (attach && attach.child.exitCode === null) {
    attach.child.kill('SIGINT');
    await attach.result;
  }
  await browser?.close();
  await daemon?.stop();
  await opencode?.stop();
  await chat?.close();
  await codexSetup?.remove();
}, 60_000);

describe('a team with Codex and opencode, routed by agent', () => {
  it("Codex's approval is bob's alone: allowed on his page, the command runs, and history names bob", async () => {
    codexSetup.model.play([{ exec: COMMAND, justification: 'Print the marker' }, { say: 'Finished.' }]);
    codex = await startCodex(codexSetup, hookEnvOf(daemon));
    await codex.submit('print the marker');
    const ask = await pendingOf('codex', (each) => each.approval?.toolInput.command === COMMAND, "Codex's approval in askbridge");
    expect(ask.route).toEqual({ people: ['bob'], approvals: 1, rule: 'codex to bob' });
    await codex.waitForScreen('Waiting for an answer in askbridge');

    const card = await openAsk(pages.bob.page, ask.id);
    // alice's page got every event before bob's card showed (the daemon sends them in order): never this one.
    expect(await shows(pages.alice.page, ask.id)).toBe(0);
    await card.getByRole('button', { name: 'Allow once', exact: true }).click();
    const output = await waitUntil(() => codexSetup.model.outputs().find((result) => result.callId === 'call-0'), 30_000, "the command's result at the model").catch(async (error: unknown) => {
      throw new Error(`${String(error)}; Codex showed:\n${await codex?.screen()}`);
    });
    expect(output.output).toContain(RAN);
    await codex.waitForScreen('Finished.');
    expect(await codex.screen()).not.toContain(DIALOG);

    expect(await daemon.ask(ask.id)).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'page', person: 'bob', device: DEVICE } });
    expect(await historyOf(ask.id)).toMatchObject({ agent: 'codex', status: 'allowed', source: 'person', person: 'bob', device: DEVICE });
    expect(await shows(pages.alice.page, ask.id)).toBe(0);
    // The CLI's history says it in words, on the ask's first line.
    expect((await cli('history', '--limit', '1')).split('\n')[0]).toMatch(new RegExp(`  by bob on ${DEVICE}  .*  asked by Codex$`));
  });

  it("opencode's question is alice's alone: answered on her page, the model reads exactly her answer, and history names alice", async () => {
    const question = `Which colour, ${Date.now()}?`;
    chat.play({ tool: 'question', input: { questions: [{ question, header: 'Colour', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cool' }] }] } });
    const sessionId = await opencode.prompt('ask me');
    const ask = await pendingOf('opencode', (each) => each.sessionId === sessionId, 'the opencode question in askbridge');
    expect(ask.route).toEqual({ people: ['alice'], approvals: 1, rule: 'opencode to alice' });

    const card = await openAsk(pages.alice.page, ask.id);
    expect(await shows(pages.bob.page, ask.id)).toBe(0);
    await card.getByRole('group', { name: question }).getByRole('radio', { name: 'Blue', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    const result = await chat.waitForToolResult((content) => content.includes(question));
    expect(result).toContain(ANSWERED);
    expect(result).toContain(`"${question}"="Blue"`);
    expect(result).not.toContain('Red');

    expect(await daemon.ask(ask.id)).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'page', person: 'alice', device: DEVICE } });
    expect(await historyOf(ask.id)).toMatchObject({ agent: 'opencode', status: 'answered', source: 'person', person: 'alice', device: DEVICE });
    expect(await shows(pages.bob.page, ask.id)).toBe(0);
    expect((await cli('history', '--limit', '1')).split('\n')[0]).toMatch(new RegExp(`  by alice on ${DEVICE}  .*  asked by opencode$`));
  });
});
