// The agent that asked, as the page shows it, in a real Chromium against the daemon's app listening
// on a real port: every card names Claude Code, Codex or opencode; the inbox keeps two agents apart
// even in one project and one session id; a Codex permission offers no "Deny and stop" (Codex cannot
// stop its turn from here, and the daemon refuses it with 400, losing nothing) while Claude Code's
// does; a finished card and History name the agent too. Asks are opened in the app's own store, as
// each agent's transport opens them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewAsk } from '../../src/daemon/asks/store.js';
import type { Agent, Question } from '../../src/protocol.js';
import { buildTestApp, type TestApp } from '../stack/app.js';
import { assertBuildIsFresh, REPO_ROOT } from '../stack/env.js';
import { chromiumAvailability, launchBrowser, openAsk, waitForLivePage } from '../stack/browser.js';
import { line, writeLines } from '../stack/history-lines.js';

const chromiumState = chromiumAvailability();

const SHOTS = '/tmp/shots-inbox';
/** Claude Code and Codex in one project, under one session id: still two groups. */
const PROJECT = '/home/alice/projects/acme-shop';
const SHARED_SESSION = '019a7c3e-5b2d-7000-8000-00000000c0de';

const question: Question = {
  question: 'Which payment provider should checkout use?',
  header: 'Payments',
  multiSelect: false,
  options: [
    { label: 'Stripe', description: 'Already used for invoices' },
    { label: 'Adyen', description: 'Cheaper at our volume' },
  ],
};

const opened = (agent: Agent, toolUseId: string, what: Pick<NewAsk, 'questions' | 'approval' | 'toolInput'>, sessionId = SHARED_SESSION, cwd = PROJECT): NewAsk => ({
  sessionId,
  toolUseId,
  cwd,
  ...what,
  waitMs: 600_000,
  timeout: { action: 'terminal', summary: "it stays with the terminal's own dialog" },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'http-hook',
  agent,
});

const permission = (agent: Agent, toolUseId: string, command: string, sessionId?: string, cwd?: string) =>
  opened(agent, toolUseId, { questions: [], toolInput: { command }, approval: { toolName: 'Bash', toolInput: { command }, suggestions: [] } }, sessionId, cwd);
const questions = (agent: Agent, toolUseId: string, sessionId?: string, cwd?: string) => opened(agent, toolUseId, { questions: [question], toolInput: { questions: [question] } }, sessionId, cwd);

/** Each group of the inbox, in order: its project, its agent, and how many wait in it. */
function inboxGroups(page: Page): Promise<Array<{ project: string; agent: string; count: string }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll('#inbox-list > .group')].map((group) => ({
      project: group.querySelector('.group-project')?.textContent ?? '',
      agent: group.querySelector('.group-agent')?.textContent?.trim() ?? '',
      count: group.querySelector('.count')?.textContent ?? '',
    })),
  );
}

describe.skipIf(!chromiumState.available)('the agent that asked, on the page', () => {
  let tested: TestApp;
  let port: number;
  let local: { host: string; authorization: string };
  let browser: Browser;
  let dir: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'askbridge-agents-'));
    // History as the daemon wrote it: a Codex line, a line from before agents were named (Claude Code's), a script's.
    const path = writeLines(dir, [
      line(1, { project: '/home/alice/projects/legacy' }),
      line(2, { project: '/home/alice/projects/acme-shop', agent: 'codex' }),
      line(3, { project: '/home/alice/projects/nightly', asker: { kind: 'script', name: 'release-check' } }),
      line(4, { project: '/home/alice/projects/notes', agent: 'opencode' }),
    ]);
    // The page as the daemon serves it: built (its modules are bundled into one script).
    assertBuildIsFresh();
    tested = await buildTestApp({ history: { path, flushed: async () => {} }, pageFolder: pathToFileURL(join(REPO_ROOT, 'dist', 'web', '/')) });
    ({ port, local } = await tested.listen());
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await tested?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A page paired with a one-time link, as a person opens it, live. */
  async function pairedPage(viewport: { width: number; height: number }, touch = false): Promise<Page> {
    const context = await browser.newContext({ viewport, ...(touch ? { hasTouch: true, isMobile: true } : {}) });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/#pair=${tested.app.askbridge.auth.createPairingCode()}`);
    await waitForLivePage(page);
    return page;
  }

  /** POST as the CLI does, over the real socket. */
  async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { authorization: local.authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it('names each agent, splits the inbox by agent, offers "Deny and stop" only to Claude Code, and refuses it for Codex with 400', async () => {
    const claude = tested.store.open(permission('claude-code', 'claude-bash', 'npm run deploy'));
    const codex = tested.store.open(permission('codex', 'codex-bash', 'rm -rf node_modules && npm ci'));
    const codexQuestion = tested.store.open(questions('codex', 'codex-question'));
    const opencode = tested.store.open(questions('opencode', 'opencode-question', 'ses_5f1c0a', '/home/alice/projects/notes'));

    const page = await pairedPage({ width: 1280, height: 900 });
    await page.locator('[data-ask-id]').nth(3).waitFor({ state: 'attached' });
    // Oldest first: Claude Code's group, then Codex's (two asks, same project and session id), then opencode's.
    expect(await inboxGroups(page)).toEqual([
      { project: 'acme-shop', agent: 'Claude Code', count: '1' },
      { project: 'acme-shop', agent: 'Codex', count: '2' },
      { project: 'notes', agent: 'opencode', count: '1' },
    ]);
    // A screen reader tells the two groups of one project apart by the agent.
    const names = await page.locator('#inbox-list > .group').evaluateAll((groups) =>
      groups.map((group) =>
        (group.getAttribute('aria-labelledby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent?.trim() ?? '')
          .join(' '),
      ),
    );
    expect(names[0]).toMatch(/^acme-shop1 Claude Code 019a7c3e$/);
    expect(names[1]).toMatch(/^acme-shop2 Codex 019a7c3e$/);

    // Claude Code's permission: named, and it can stop the turn.
    const claudeCard = await openAsk(page, claude.ask.id);
    expect(await claudeCard.locator('.meta-line').textContent()).toContain('Claude Code session 019a7c3e');
    expect(await claudeCard.locator('.approval-action').textContent()).toBe('Claude wants to run a command');
    expect(await claudeCard.getByRole('button', { name: 'Deny and stop', exact: true }).count()).toBe(1);

    // Codex's: named, told to Codex, and no "Deny and stop".
    const codexCard = await openAsk(page, codex.ask.id);
    expect(await codexCard.locator('.meta-line').textContent()).toContain('Codex session 019a7c3e');
    expect(await codexCard.locator('.approval-action').textContent()).toBe('Codex wants to run a command');
    expect(await codexCard.getByRole('button', { name: 'Deny and stop', exact: true }).count()).toBe(0);
    expect(await codexCard.getByRole('button', { name: 'Deny', exact: true }).count()).toBe(1);
    expect(await codexCard.getByLabel('Message for Codex (optional)').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/agents-desk.png` });

    // Whoever sends it anyway (an old page, a script) is refused, and the permission keeps waiting.
    const refused = await post(`/api/asks/${codex.ask.id}/decide`, { behavior: 'deny', interrupt: true });
    expect(refused).toEqual({ status: 400, json: { error: { code: 'interrupt_unsupported', message: 'Codex cannot stop its turn from here: deny, and say why in the message' } } });
    expect((await tested.ask(codex.ask.id)).status).toBe('pending');
    expect(await page.locator(`[data-ask-id="${codex.ask.id}"]`).count()).toBe(1);

    // Denied from the page with a message, as Codex takes it; the finished card names Codex.
    await codexCard.getByLabel('Message for Codex (optional)').fill('Keep node_modules; run npm ci in a clean checkout');
    await codexCard.getByRole('button', { name: 'Deny', exact: true }).click();
    await expect.poll(async () => (await tested.ask(codex.ask.id)).status).toBe('denied');
    expect((await tested.ask(codex.ask.id)).decision).toEqual({ behavior: 'deny', message: 'Keep node_modules; run npm ci in a clean checkout' });
    const finished = page.locator(`article.is-finished[data-question-id="${codex.ask.id}"]`);
    await finished.waitFor({ state: 'attached' });
    expect(await finished.locator('.finished-agent').textContent()).toBe('Codex');

    // Each question card names its agent too.
    const questionCard = await openAsk(page, codexQuestion.ask.id);
    expect(await questionCard.locator('.meta-line').textContent()).toContain('Codex session 019a7c3e');
    const opencodeCard = await openAsk(page, opencode.ask.id);
    expect(await opencodeCard.locator('.meta-line').textContent()).toContain('opencode session ses_5f1c');

    // Claude Code's permission can still be denied and stopped, from the page.
    const claudeAgain = await openAsk(page, claude.ask.id);
    await claudeAgain.getByRole('button', { name: 'Deny and stop', exact: true }).click();
    await expect.poll(async () => (await tested.ask(claude.ask.id)).decision).toEqual({ behavior: 'deny', interrupt: true });

    // On a phone: the inbox is a list of the groups, each naming its agent.
    const phone = await pairedPage({ width: 390, height: 844 }, true);
    await phone.locator('[data-ask-id]').nth(1).waitFor({ state: 'attached' });
    expect((await inboxGroups(phone)).map((group) => group.agent)).toEqual(['Codex', 'opencode']);
    await phone.screenshot({ path: `${SHOTS}/agents-phone-inbox.png` });
    const phoneCard = await openAsk(phone, codexQuestion.ask.id, 'tap');
    expect(await phoneCard.locator('.meta-line').isVisible()).toBe(true);
    await phone.screenshot({ path: `${SHOTS}/agents-phone-card.png` });

    expect(tested.store.decline(codexQuestion.ask.id, { client: 'cli' }).kind).toBe('answered');
    expect(tested.store.decline(opencode.ask.id, { client: 'cli' }).kind).toBe('answered');
  });

  it("offers what each agent takes: no Other or note where opencode takes only options, opencode's prompt to hand back to, and Gemini CLI by its name", async () => {
    const onlyOptions = tested.store.open({ ...questions('opencode', 'opencode-options', 'ses_7a2b0c', '/home/alice/projects/notes'), typedAnswers: [false] });
    const gemini = tested.store.open({ ...questions('gemini-cli', 'gemini-question', 'mcp:gemini-cli-mcp-client', '/home/alice/projects/site'), asker: { kind: 'mcp', name: 'gemini-cli-mcp-client' }, door: 'ask' });
    const claude = tested.store.open(questions('claude-code', 'claude-question', 'session-claude', '/home/alice/projects/shop'));
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const phone = viewport.width < 600;
      const page = await pairedPage(viewport, phone);
      /** The card of this ask, from the inbox (on a phone, back to the list first). */
      const open = async (id: string) => {
        const back = page.locator('#back');
        if (phone && (await back.isVisible())) await back.tap();
        return openAsk(page, id, phone ? 'tap' : 'click');
      };
      const opencodeCard = await open(onlyOptions.ask.id);
      const group = opencodeCard.getByRole('group', { name: question.question });
      expect(await group.getByRole('radio').count()).toBe(2);
      expect(await group.getByRole('radio', { name: 'Other' }).count()).toBe(0);
      expect(await opencodeCard.getByRole('button', { name: 'Add a note' }).count()).toBe(0);
      expect(await opencodeCard.locator('.q-keys').textContent()).toBe(' · keys 1–2');
      expect(await opencodeCard.getByRole('button', { name: "Hand it back to opencode's prompt", exact: true }).count()).toBe(1);
      await page.screenshot({ path: `${SHOTS}/agents-options-only-${viewport.width}.png` });

      const geminiCard = await open(gemini.ask.id);
      expect(await geminiCard.locator('.meta-line').textContent()).toContain('Gemini CLI through MCP');
      expect(await geminiCard.locator('.meta-line').textContent()).not.toContain('gemini-cli-mcp-client');
      const geminiGroup = page.locator('#inbox-list > .group', { has: page.locator(`[data-ask-id="${gemini.ask.id}"]`) });
      if (!phone) expect(await geminiGroup.locator('.group-meta').textContent()).toMatch(/^Gemini CLI through MCP·asked /);
      // Nothing is behind an MCP tool call to hand it back to.
      expect(await geminiCard.getByRole('button', { name: /Hand it back|Let the terminal answer/ }).count()).toBe(0);
      const claudeCard = await open(claude.ask.id);
      expect(await claudeCard.getByRole('group', { name: question.question }).getByRole('radio', { name: 'Other' }).count()).toBe(1);
      expect(await claudeCard.getByRole('button', { name: 'Let the terminal answer', exact: true }).count()).toBe(1);
    }
  });

  it("names the agent of each line in History: Claude Code for a line from before agents were named, a script's name for a script's", async () => {
    const page = await pairedPage({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const entries = page.locator('#history-list > li');
    await expect.poll(() => entries.count()).toBe(4);
    // Newest first.
    expect(await entries.locator('.history-project').allTextContents()).toEqual(['notes', 'nightly', 'acme-shop', 'legacy']);
    expect(await entries.locator('.history-agent').allTextContents()).toEqual(['opencode', 'script release-check', 'Codex', 'Claude Code']);
    await page.screenshot({ path: `${SHOTS}/agents-history.png` });
  });
});
