/**
 * `askbridge attach opencode` against the real opencode server (the pinned `opencode serve`): its
 * questions and permissions shown in askbridge and settled there, as a person does, and what the
 * model really read (the fake OpenAI-compatible API records every tool result).
 *
 * One opencode server, one daemon (a real `askbridge start`) and one real `askbridge attach
 * opencode` serve every case; each case prompts a new session, and the fake model plays one tool
 * call. A person decides in a paired page in Chromium (the first permission and the first question),
 * or through the daemon's API (POST /api/asks/:id/decide or /answer, what the page and the CLI
 * send). The last case stops the daemon: opencode's own prompt must stay.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { startCli, type RunningProcess } from '../stack/processes.js';
import { startFakeChat, type FakeChat } from './fake-chat.js';
import { startOpencode, type Opencode, type OpencodeEvent } from './opencode-serve.js';

/** opencode 1.18.33's own words to the model. */
const REJECTED_WITH_FEEDBACK = 'The user rejected permission to use this specific tool call with the following feedback:';
const ANSWERED = 'User has answered your questions:';

let chat: FakeChat;
let opencode: Opencode;
let daemon: Daemon;
let attach: RunningProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  chat = await startFakeChat();
  opencode = await startOpencode(chat.baseUrl);
  daemon = await startDaemon();
  attach = startCli(['attach', 'opencode', opencode.url], daemon.env);
  await waitUntil(() => (attach.output().stdout.includes('attached to opencode') ? true : undefined), 30_000, `the attach to start (${JSON.stringify(attach.output())})`);
  browser = await launchBrowser();
  ({ page } = await openPairedPage(browser, daemon));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (attach && attach.child.exitCode === null) {
    attach.child.kill('SIGINT');
    await attach.result;
  }
  await daemon?.stop();
  await opencode?.stop();
  await chat?.close();
}, 60_000);

/** The opencode ask of that session, once it waits in askbridge. */
function waitForOpencodeAsk(sessionId: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === 'opencode' && ask.sessionId === sessionId), 60_000, `an ask of opencode session ${sessionId}`);
}

/** Waits until the attach printed a line containing `text`. */
function waitForAttachLine(text: string): Promise<true> {
  return waitUntil(() => (attach.output().stdout.includes(text) ? true : undefined), 30_000, `"${text}" from the attach (${attach.output().stdout})`);
}

function bashStep(command: string) {
  return { tool: 'bash', input: { command, description: 'Print a marker' } };
}

describe('askbridge attach opencode', () => {
  it("a bash permission allowed with a click in the page runs the command, and the model reads its output", async () => {
    const marker = `allowed-${Date.now()}`;
    chat.play(bashStep(`echo ${marker}`));
    const sessionId = await opencode.prompt('run it');
    const ask = await waitForOpencodeAsk(sessionId);
    expect(ask.approval?.toolName).toBe('Bash');
    expect(ask.approval?.toolInput.command).toBe(`echo ${marker}`);
    expect(ask.approval?.suggestions).toEqual([{ label: 'Always allow bash: echo *' }]);
    expect(ask.cwd).toBe(opencode.project);

    const card = await openAsk(page, ask.id);
    expect(await card.locator('.meta-line').textContent()).toContain('opencode session');
    await card.getByRole('button', { name: 'Allow once', exact: true }).click();
    await chat.waitForToolResult((content) => content.includes(marker));
    const replied = await opencode.waitForEvent((event) => event.payload.type === 'permission.replied' && event.payload.properties.sessionID === sessionId);
    expect(replied.payload.properties.reply).toBe('once');
  });

  it('rejected with a message in askbridge, the command does not run and the model reads the message', async () => {
    const marker = `rejected-${Date.now()}`;
    chat.play(bashStep(`echo ${marker} > ran.txt`));
    const sessionId = await opencode.prompt('run it');
    const ask = await waitForOpencodeAsk(sessionId);
    const decided = await daemon.api('POST', `/api/asks/${ask.id}/decide`, { behavior: 'deny', message: `use printf for ${marker}` });
    expect(decided.status).toBe(200);
    const result = await chat.waitForToolResult((content) => content.includes(`use printf for ${marker}`));
    expect(result).toContain(REJECTED_WITH_FEEDBACK);
    expect(chat.toolResults().some((content) => content.trim() === marker)).toBe(false);
    const replied = await opencode.waitForEvent((event) => event.payload.type === 'permission.replied' && event.payload.properties.sessionID === sessionId);
    expect(replied.payload.properties.reply).toBe('reject');
  });

  it('deny and stop in askbridge rejects without words: opencode ends the turn, and its model is not asked again', async () => {
    const marker = `stopped-${Date.now()}`;
    chat.play(bashStep(`echo ${marker} > ran.txt`));
    const sessionId = await opencode.prompt('run it');
    const ask = await waitForOpencodeAsk(sessionId);
    const requestsBefore = chat.mainRequests();
    const decided = await daemon.api('POST', `/api/asks/${ask.id}/decide`, { behavior: 'deny', interrupt: true });
    expect(decided.status).toBe(200);
    const replied = await opencode.waitForEvent((event) => event.payload.type === 'permission.replied' && event.payload.properties.sessionID === sessionId);
    expect(replied.payload.properties).toMatchObject({ reply: 'reject' });
    expect(replied.payload.properties.message).toBeUndefined();
    // opencode says a session is idle with session.status {status: {type: 'idle'}}, and still with session.idle.
    const idle = (event: OpencodeEvent) => {
      const properties = event.payload.properties as { sessionID?: unknown; status?: { type?: unknown } } | undefined;
      return properties?.sessionID === sessionId && (event.payload.type === 'session.idle' || (event.payload.type === 'session.status' && properties.status?.type === 'idle'));
    };
    await opencode.waitForEvent(idle, 60_000, `session ${sessionId} to be idle`);
    expect(chat.mainRequests()).toBe(requestsBefore);
    expect(chat.toolResults().some((content) => content.includes(marker))).toBe(false);
  });

  it('"always allow" in askbridge sends opencode `always`', async () => {
    const marker = `always-${Date.now()}`;
    chat.play(bashStep(`echo ${marker}`));
    const sessionId = await opencode.prompt('run it');
    const ask = await waitForOpencodeAsk(sessionId);
    const decided = await daemon.api('POST', `/api/asks/${ask.id}/decide`, { behavior: 'allow', suggestion: 0 });
    expect(decided.status).toBe(200);
    await chat.waitForToolResult((content) => content.includes(marker));
    const replied = await opencode.waitForEvent((event) => event.payload.type === 'permission.replied' && event.payload.properties.sessionID === sessionId);
    expect(replied.payload.properties.reply).toBe('always');
  });

  it('a question answered in the page reaches the model', async () => {
    const question = `Which colour, ${Date.now()}?`;
    chat.play({ tool: 'question', input: { questions: [{ question, header: 'Colour', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cool' }] }] } });
    const sessionId = await opencode.prompt('ask me');
    const ask = await waitForOpencodeAsk(sessionId);
    expect(ask.questions).toEqual([{ question, header: 'Colour', multiSelect: false, options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cool' }] }]);
    const card = await openAsk(page, ask.id);
    await card.getByRole('group', { name: question }).getByRole('radio', { name: 'Blue', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    const result = await chat.waitForToolResult((content) => content.includes(question));
    expect(result).toContain(ANSWERED);
    expect(result).toContain(`"${question}"="Blue"`);
  });

  it('a question declined in askbridge is dismissed in opencode (its reject route)', async () => {
    const question = `Which shape, ${Date.now()}?`;
    chat.play({ tool: 'question', input: { questions: [{ question, header: 'Shape', options: [{ label: 'Round', description: '' }, { label: 'Square', description: '' }] }] } });
    const sessionId = await opencode.prompt('ask me');
    const ask = await waitForOpencodeAsk(sessionId);
    const declined = await daemon.api('POST', `/api/asks/${ask.id}/decline`);
    expect(declined.status).toBe(200);
    await opencode.waitForEvent((event) => event.payload.type === 'question.rejected' && event.payload.properties.sessionID === sessionId);
    expect((await opencode.api<Array<{ sessionID: string }>>('GET', '/question')).body.some((request) => request.sessionID === sessionId)).toBe(false);
  });

  it('a question answered in opencode first leaves askbridge and the page at once, and a late answer there is refused', async () => {
    const question = `Which size, ${Date.now()}?`;
    chat.play({ tool: 'question', input: { questions: [{ question, header: 'Size', options: [{ label: 'Small', description: '' }, { label: 'Large', description: '' }] }] } });
    const sessionId = await opencode.prompt('ask me');
    const ask = await waitForOpencodeAsk(sessionId);
    const row = page.locator(`[data-ask-id="${ask.id}"]`);
    await row.waitFor({ state: 'attached' });
    const waiting = await opencode.api<Array<{ id: string; sessionID: string }>>('GET', '/question');
    const pending = waiting.body.find((request) => request.sessionID === sessionId);
    expect(pending).toBeDefined();
    // As opencode's own TUI answers it.
    const reply = await opencode.api('POST', `/question/${pending!.id}/reply`, { answers: [['Large']] });
    expect(reply.body).toBe(true);
    await waitUntil(async () => ((await daemon.pending()).some((waitingAsk) => waitingAsk.id === ask.id) ? undefined : true), 10_000, 'the card to leave');
    await row.waitFor({ state: 'detached', timeout: 2_000 });
    expect((await daemon.ask(ask.id)).status).toBe('cancelled');
    const late = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question, selected: ['Small'] }] });
    expect(late.status).toBe(409);
    const result = await chat.waitForToolResult((content) => content.includes(question));
    expect(result).toContain(`"${question}"="Large"`);
    await waitForAttachLine(`question ${pending!.id}: settled in opencode, withdrawn from askbridge`);
  });

  it("with askbridge stopped, opencode's own prompt stays pending", async () => {
    await daemon.stop();
    const marker = `down-${Date.now()}`;
    // Not `echo`: the case above told opencode to always allow `echo *`.
    chat.play(bashStep(`printf '%s\\n' ${marker}`));
    const sessionId = await opencode.prompt('run it');
    const asked = await opencode.waitForEvent((event) => event.payload.type === 'permission.asked' && event.payload.properties.sessionID === sessionId);
    const id = String(asked.payload.properties.id);
    await waitForAttachLine(`permission ${id}: askbridge is not running`);
    const waiting = await opencode.api<Array<{ id: string }>>('GET', '/permission');
    expect(waiting.body.map((request) => request.id)).toContain(id);
    expect(chat.toolResults().some((content) => content.includes(marker))).toBe(false);
    // The person answers in opencode, as its TUI would: the session goes on.
    await opencode.api('POST', `/permission/${id}/reply`, { reply: 'once' });
    await chat.waitForToolResult((content) => content.includes(marker));
  });
});
