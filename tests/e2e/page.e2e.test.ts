// The answer page in a real headless Chromium, against the real daemon and real hook processes: a
// person's clicks must reach Claude Code byte for byte, withdrawn questions must leave the page at
// once, and of several answers exactly one may win.
import { statSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSON_DECLINE_REASON } from '../../src/daemon/decisions/claude-code.js';
import type { AskView } from '../../src/protocol.js';
import { fixtureNames, freshPayload, loadFixture, type FixtureAnswer, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { chromiumAvailability, launchBrowser, newPairingUrl, openPairedPage, waitForLivePage, type PairedPage } from '../stack/browser.js';

const SCREENSHOT_PATH = '/tmp/askbridge-e2e.png';
const ANSWERED_FIXTURES = fixtureNames('.answer.json');
const chromiumState = chromiumAvailability();

type AllowOutput = {
  hookSpecificOutput: {
    hookEventName: string;
    permissionDecision: string;
    updatedInput: { questions: unknown[]; answers: Record<string, string>; annotations?: Record<string, { notes?: string; preview?: string }>; [key: string]: unknown };
  };
};

const cardOf = (page: Page, id: string): Locator => page.locator(`article[data-question-id="${id}"]`);

/** Waits until the card for `id` has left the pending state; returns its status. */
async function waitUntilSettled(page: Page, id: string): Promise<string> {
  const settled = page.locator(`article[data-question-id="${id}"]:not([data-status="pending"])`);
  await settled.waitFor({ state: 'attached', timeout: 10_000 });
  return (await settled.getAttribute('data-status')) ?? '';
}

async function statusTitle(page: Page, id: string): Promise<string> {
  return ((await cardOf(page, id).locator('.status-title').textContent()) ?? '').trim();
}

/** Clicks (or types) what the person chose, as a person would: by the labels they read. */
async function fillAnswer(card: Locator, payload: HookPayload, answer: FixtureAnswer): Promise<void> {
  for (const response of answer.responses) {
    const question = payload.tool_input.questions.find((q) => q.question === response.question);
    if (!question) throw new Error(`the answer fixture names a question the input does not ask: ${response.question}`);
    const group = card.getByRole('group', { name: response.question });
    const role = question.multiSelect ? 'checkbox' : 'radio';
    for (const label of response.selected) await group.getByRole(role, { name: label, exact: true }).check();
    if (response.other !== null) await group.getByRole('textbox', { name: 'Other', exact: true }).fill(response.other);
    if (response.notes !== null) await writeNote(group, response.notes);
  }
}

/** The note sits behind its "Add a note" toggle: one click (or key) away, but not in the way. */
async function writeNote(group: Locator, text: string): Promise<void> {
  await group.getByRole('button', { name: 'Add a note', exact: true }).click();
  await group.getByRole('textbox', { name: 'Note', exact: true }).fill(text);
}

/**
 * Makes the page deaf to the daemon's "resolved" events for one tool call, as if they were still on
 * the wire: the page then answers a question that another tab, the CLI or a dying hook already settled.
 */
async function withholdResolvedEvents(page: Page, toolUseId: () => string | undefined): Promise<void> {
  await page.routeWebSocket(/\/ws$/, (route) => {
    const server = route.connectToServer();
    server.onMessage((message) => {
      if (typeof message === 'string') {
        const parsed = JSON.parse(message) as { type?: string; ask?: AskView };
        if (parsed.type === 'resolved' && parsed.ask?.toolUseId === toolUseId()) return;
      }
      route.send(message);
    });
    route.onMessage((message) => server.send(message));
  });
}

/** Clicks each page's Submit button for question `id` at the same wall-clock moment. */
async function clickSubmitTogether(pages: Page[], id: string): Promise<void> {
  const at = Date.now() + 300;
  await Promise.all(
    pages.map((page) =>
      page.evaluate(
        ({ id: askId, at: when }) =>
          new Promise<boolean>((done) => {
            setTimeout(() => {
              const button = document.querySelector<HTMLButtonElement>(`article[data-question-id="${askId}"] button[type="submit"]`);
              button?.click();
              done(button !== null);
            }, Math.max(0, when - Date.now()));
          }),
        { id, at },
      ),
    ),
  );
}

describe.skipIf(!chromiumState.available)('the answer page in Chromium', () => {
  let daemon: Daemon;
  let browser: Browser;
  let main: PairedPage;

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    main = await openPairedPage(browser, daemon);
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  it('has answer fixtures to test', () => {
    expect(ANSWERED_FIXTURES.length).toBeGreaterThanOrEqual(5);
  });

  it('removes the one-time code from the address bar once paired', () => {
    expect(main.pairingUrl).toContain('#pair=');
    expect(main.page.url()).toBe(daemon.url);
  });

  it.each(ANSWERED_FIXTURES)('answers %s from the page: the hook prints exactly the expected decision', async (name) => {
    const { page } = main;
    const payload = loadFixture<HookPayload>(`${name}.input.json`);
    const answer = loadFixture<FixtureAnswer>(`${name}.answer.json`);
    const expected = loadFixture<AllowOutput>(`${name}.expected-allow.json`);

    const hook = runHook(name, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const card = cardOf(page, question.id);
    await card.waitFor();
    expect(await card.getAttribute('data-status')).toBe('pending');
    expect(await card.locator('fieldset legend').count()).toBe(payload.tool_input.questions.length);

    await fillAnswer(card, payload, answer);
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(result.signal).toBeNull();
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual(expected);

    expect(await waitUntilSettled(page, question.id)).toBe('answered');
    expect(await statusTitle(page, question.id)).toBe('Answered');
    // The finished card shows what Claude received, question by question.
    const shown = await card.locator('.answer-a').allTextContents();
    expect(shown).toEqual(Object.values(expected.hookSpecificOutput.updatedInput.answers));
  });

  it('sends Other text in a multi-select as one more ", " item, and a note as an annotation', async () => {
    const { page } = main;
    const payload = freshPayload('02-multi-select', 'other-and-note');
    const question = payload.tool_input.questions[0]!;
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const card = cardOf(page, view.id);
    const group = card.getByRole('group', { name: question.question });
    // Clicked out of option order: the answer must list them in option order, Other last.
    await group.getByRole('checkbox', { name: 'Type check', exact: true }).check();
    await group.getByRole('checkbox', { name: 'Unit tests', exact: true }).check();
    await group.getByRole('textbox', { name: 'Other', exact: true }).fill('Playwright smoke test');
    await writeNote(group, 'only on pull requests, "main" too');
    expect(await group.getByRole('checkbox', { name: 'Other', exact: true }).isChecked()).toBe(true);
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const output = parseJson<AllowOutput>((await hook.result).stdout, 'hook stdout');
    expect(output.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(output.hookSpecificOutput.updatedInput.questions).toStrictEqual(payload.tool_input.questions);
    expect(output.hookSpecificOutput.updatedInput.answers).toStrictEqual({ [question.question]: 'Unit tests, Type check, Playwright smoke test' });
    expect(output.hookSpecificOutput.updatedInput.annotations).toStrictEqual({ [question.question]: { notes: 'only on pull requests, "main" too' } });
    expect(await waitUntilSettled(page, view.id)).toBe('answered');
    expect(await card.locator('.answer-note').textContent()).toBe('Note: only on pull requests, "main" too');
  });

  it('toggles a checkbox with Enter without sending the card, and chooses an option by clicking its preview', async () => {
    const { page } = main;
    const payload = freshPayload('02-multi-select', 'enter-and-preview');
    const question = payload.tool_input.questions[0]!;
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const card = cardOf(page, view.id);
    const group = card.getByRole('group', { name: question.question });
    const unitTests = group.getByRole('checkbox', { name: 'Unit tests', exact: true });
    await unitTests.focus();
    await page.keyboard.press('Enter');
    expect(await unitTests.isChecked()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await unitTests.isChecked()).toBe(false);
    expect(await card.getAttribute('data-status')).toBe('pending');
    // Every text a model wrote reads in its own direction.
    expect(await group.locator('.option-label[dir="auto"]').count()).toBe(question.options.length);
    expect(await group.locator('.q-text').getAttribute('dir')).toBe('auto');
    await card.getByRole('button', { name: 'Let the terminal answer', exact: true }).click();
    await hook.result;

    const withPreview = freshPayload('01-single-select', 'preview-click');
    const options = withPreview.tool_input.questions[0]!.options.map((option, index) => ({ ...option, preview: `schema ${index}:\n  id INTEGER PRIMARY KEY` }));
    withPreview.tool_input.questions[0]!.options = options;
    const previewHook = runHook(withPreview, daemon.env);
    const previewView = await daemon.waitForAsk(withPreview.tool_use_id);
    const previewCard = cardOf(page, previewView.id);
    const second = 1;
    // A single-select shows the preview of the option in focus beside the list, as Claude Code does.
    await previewCard.getByRole('radio', { name: options[second]!.label, exact: true }).focus();
    const previewBody = previewCard.locator('.preview-side .preview-body');
    await expect.poll(() => previewBody.textContent()).toContain(`schema ${second}:`);
    expect(await previewBody.getAttribute('tabindex')).toBe('0');
    await previewBody.click();
    expect(await previewCard.getByRole('radio', { name: options[second]!.label, exact: true }).isChecked()).toBe(true);
    await previewCard.getByRole('button', { name: 'Let the terminal answer', exact: true }).click();
    await previewHook.result;
  });

  it('hands the question back to the terminal (hook prints nothing) with "Let the terminal answer"', async () => {
    const { page } = main;
    const payload = freshPayload('03-four-questions', 'terminal-button');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await cardOf(page, view.id).getByRole('button', { name: 'Let the terminal answer', exact: true }).click();
    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(result.signal).toBeNull();
    expect(result.stdout).toBe('');
    expect(await waitUntilSettled(page, view.id)).toBe('handed-to-terminal');
    expect(await statusTitle(page, view.id)).toBe('Handed to the terminal');
    const after = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${view.id}`);
    expect(after.body.ask.status).toBe('handed-to-terminal');
    expect(after.body.ask.source).toEqual({ kind: 'person', client: 'page', device: expect.any(String) });
  });

  it('refuses the tool call with a reason for Claude when the person clicks "Decline"', async () => {
    const { page } = main;
    const payload = freshPayload('01-single-select', 'decline-button');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await cardOf(page, view.id).getByRole('button', { name: 'Decline', exact: true }).click();
    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: PERSON_DECLINE_REASON },
    });
    expect(PERSON_DECLINE_REASON).toMatch(/declined/);
    expect(await waitUntilSettled(page, view.id)).toBe('declined');
    expect(await statusTitle(page, view.id)).toBe('Declined');
  });

  it('does not send an incomplete card: a question without a choice is pointed out and the hook keeps waiting', async () => {
    const { page } = main;
    const payload = freshPayload('03-four-questions', 'incomplete');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const card = cardOf(page, view.id);
    const answered = payload.tool_input.questions[0]!;
    await card.getByRole('group', { name: answered.question }).getByRole('radio', { name: answered.options[0]!.label, exact: true }).check();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    // Three questions still lack an answer: each says so, and nothing was sent.
    await card.locator('.q-error:not([hidden])').nth(2).waitFor({ state: 'visible' });
    expect(await card.locator('.q-error:not([hidden])').count()).toBe(3);
    expect(await card.locator('fieldset[aria-invalid="true"]').count()).toBe(3);
    expect(posts).toEqual([]);
    expect(await card.getAttribute('data-status')).toBe('pending');
    expect((await daemon.api<{ ask: AskView }>('GET', `/api/asks/${view.id}`)).body.ask.status).toBe('pending');
    expect(hook.child.exitCode).toBeNull();

    hook.child.kill('SIGTERM');
    expect((await hook.result).stdout).toBe('');
  });

  it('shows a new question in an already-open page without a reload', async () => {
    const { page } = await openPairedPage(browser, daemon);
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    await page.evaluate(() => {
      (window as unknown as { askbridgeMarker: string }).askbridgeMarker = 'same document';
    });
    await page.locator('#empty').waitFor({ state: 'visible' });

    const payload = freshPayload('01-single-select', 'live-push');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await cardOf(page, view.id).waitFor({ state: 'visible' });
    expect(await page.locator('#empty').isHidden()).toBe(true);
    expect(await page.title()).toBe('(1) askbridge');
    expect(navigations).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { askbridgeMarker?: string }).askbridgeMarker)).toBe('same document');

    hook.child.kill('SIGTERM');
    expect((await hook.result).stdout).toBe('');
    await page.context().close();
  });

  it('takes the card out of the pending state when the hook is killed, as its connection closes, and refuses a late answer from the page', async () => {
    const payload = freshPayload('01-single-select', 'killed');
    const watching = main.page;
    // A second tab that has not heard of the withdrawal yet, so that it can still send an answer.
    const late = await openPairedPage(browser, daemon, { beforeNavigate: (page) => withholdResolvedEvents(page, () => payload.tool_use_id) });

    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await cardOf(watching, view.id).waitFor();
    const lateCard = cardOf(late.page, view.id);
    await lateCard.getByRole('radio', { name: 'SQLite', exact: true }).check();

    hook.child.kill('SIGKILL');
    const status = await waitUntilSettled(watching, view.id);
    expect(status).toBe('cancelled');
    // Withdrawn because the killed hook's connection closed, not at a timeout.
    const settled = await daemon.waitForLog((entry) => entry.msg === 'question settled' && entry.askId === view.id, 10_000, "the killed hook's question to be settled");
    expect(settled).toMatchObject({ status: 'cancelled', source: 'hook-gone' });
    expect(await statusTitle(watching, view.id)).toMatch(/^Withdrawn/);
    const result = await hook.result;
    expect(result.signal).toBe('SIGKILL');
    expect(result.stdout).toBe('');

    // The late tab still shows the question; its answer must be refused, and it must say so.
    expect(await lateCard.getAttribute('data-status')).toBe('pending');
    const answerResponse = late.page.waitForResponse((response) => response.url().endsWith(`/api/asks/${view.id}/answer`));
    await lateCard.getByRole('button', { name: 'Submit', exact: true }).click();
    expect((await answerResponse).status()).toBe(409);
    expect(await waitUntilSettled(late.page, view.id)).toBe('cancelled');
    expect(await statusTitle(late.page, view.id)).toMatch(/^Withdrawn/);
    expect(await lateCard.locator('.finished-detail').textContent()).toBe('This happened before your answer arrived.');

    const after = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${view.id}`);
    expect(after.body.ask.status).toBe('cancelled');
    expect(after.body.ask.answers).toBeUndefined();
    await late.context.close();
  });

  it('lets exactly one of two tabs win when both click Submit at the same moment', async () => {
    const tabs = [await openPairedPage(browser, daemon), await openPairedPage(browser, daemon)];
    const labels = ['PostgreSQL (Recommended)', 'SQLite'];
    const statuses: number[] = [];
    for (const { page } of tabs) {
      page.on('response', (response) => {
        if (response.url().endsWith('/answer')) statuses.push(response.status());
      });
    }
    const payload = freshPayload('01-single-select', 'race');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    for (const [index, { page }] of tabs.entries()) await cardOf(page, view.id).getByRole('radio', { name: labels[index]!, exact: true }).check();

    await clickSubmitTogether(
      tabs.map(({ page }) => page),
      view.id,
    );

    const output = parseJson<AllowOutput>((await hook.result).stdout, 'hook stdout');
    const chosen = output.hookSpecificOutput.updatedInput.answers[payload.tool_input.questions[0]!.question];
    expect(labels).toContain(chosen);
    const winner = labels.indexOf(chosen!);
    const loser = 1 - winner;

    expect(await waitUntilSettled(tabs[winner]!.page, view.id)).toBe('answered');
    expect(await waitUntilSettled(tabs[loser]!.page, view.id)).toBe('answered');
    expect(await statusTitle(tabs[winner]!.page, view.id)).toBe('Answered');
    expect(await statusTitle(tabs[loser]!.page, view.id)).toMatch(/^(Already answered elsewhere|Answered in another tab)$/);
    // Both tabs show the one answer that won.
    for (const { page } of tabs) expect(await cardOf(page, view.id).locator('.answer-a').allTextContents()).toEqual([chosen]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    console.log(`[measure] simultaneous submit: tab ${winner + 1} won; answer responses ${JSON.stringify(statuses)}`);
    for (const { context } of tabs) await context.close();
  });

  it('tells a tab that answers after another tab won that it was already answered elsewhere', async () => {
    const payload = freshPayload('01-single-select', 'second-tab');
    const first = await openPairedPage(browser, daemon);
    const second = await openPairedPage(browser, daemon, { beforeNavigate: (page) => withholdResolvedEvents(page, () => payload.tool_use_id) });
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await cardOf(first.page, view.id).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await cardOf(second.page, view.id).getByRole('radio', { name: 'PostgreSQL (Recommended)', exact: true }).check();

    await cardOf(first.page, view.id).getByRole('button', { name: 'Submit', exact: true }).click();
    const output = parseJson<AllowOutput>((await hook.result).stdout, 'hook stdout');
    expect(Object.values(output.hookSpecificOutput.updatedInput.answers)).toEqual(['SQLite']);

    const refused = second.page.waitForResponse((response) => response.url().endsWith(`/api/asks/${view.id}/answer`));
    await cardOf(second.page, view.id).getByRole('button', { name: 'Submit', exact: true }).click();
    expect((await refused).status()).toBe(409);
    expect(await waitUntilSettled(second.page, view.id)).toBe('answered');
    expect(await statusTitle(second.page, view.id)).toBe('Already answered elsewhere');
    expect(await cardOf(second.page, view.id).locator('.finished-detail').textContent()).toBe('It was answered in another tab first.');
    expect(await cardOf(second.page, view.id).locator('.answer-a').allTextContents()).toEqual(['SQLite']);
    await first.context.close();
    await second.context.close();
  });

  it('shows the not-paired message on a page that was never paired, and sends it no questions', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await page.goto(daemon.url);
    await page.getByRole('heading', { name: 'This page is not paired.' }).waitFor({ state: 'visible' });
    expect(await page.locator('#conn').getAttribute('data-state')).toBe('unpaired');
    expect(await page.locator('#board').isHidden()).toBe(true);

    const payload = freshPayload('01-single-select', 'unpaired');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    // The paired page has it, so it was pushed; the unpaired one must not.
    await cardOf(main.page, view.id).waitFor();
    expect(await page.locator('article[data-question-id]').count()).toBe(0);
    expect(sockets).toEqual([]);
    // Not even by asking directly, from the page's own origin.
    const direct = await page.evaluate(async () => {
      const list = await fetch('/api/asks');
      const received = await new Promise<string>((done) => {
        const socket = new WebSocket(`ws://${location.host}/ws`);
        socket.onmessage = () => done('message');
        socket.onerror = () => done('refused');
        socket.onclose = () => done('refused');
        setTimeout(() => done('no answer'), 3000);
      });
      return { status: list.status, body: (await list.text()).slice(0, 200), received };
    });
    expect(direct.status).toBe(401);
    expect(direct.body).not.toContain(view.id);
    expect(direct.received).toBe('refused');

    hook.child.kill('SIGTERM');
    expect((await hook.result).stdout).toBe('');
    await context.close();
  });

  it('refuses a pairing link that was already used, and the refused page receives no questions', async () => {
    // The link printed by `askbridge start` pairs one browser...
    const first = await browser.newContext();
    const firstPage = await first.newPage();
    await firstPage.goto(daemon.pairingUrl);
    await waitForLivePage(firstPage);

    // ...and only one: a second browser with the same link is told so.
    const second = await browser.newContext();
    const secondPage = await second.newPage();
    await secondPage.goto(daemon.pairingUrl);
    await secondPage.getByRole('heading', { name: 'This page is not paired.' }).waitFor({ state: 'visible' });
    expect(await secondPage.locator('#unpaired-detail').textContent()).toMatch(/already used or has expired/);
    expect(await secondPage.locator('#conn').getAttribute('data-state')).toBe('unpaired');

    // The same holds for a link from `askbridge open`.
    const fresh = await newPairingUrl(daemon);
    const third = await browser.newContext();
    await (await third.newPage()).goto(fresh);
    const fourth = await browser.newContext();
    const fourthPage = await fourth.newPage();
    await fourthPage.goto(fresh);
    await fourthPage.getByRole('heading', { name: 'This page is not paired.' }).waitFor({ state: 'visible' });

    const payload = freshPayload('01-single-select', 'reused-link');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await cardOf(firstPage, view.id).waitFor();
    expect(await secondPage.locator('article[data-question-id]').count()).toBe(0);
    expect(await fourthPage.locator('article[data-question-id]').count()).toBe(0);

    hook.child.kill('SIGTERM');
    expect((await hook.result).stdout).toBe('');
    for (const context of [first, second, third, fourth]) await context.close();
  });

  it('renders a pending four-question card (screenshot for a human eye)', async () => {
    const { context, page } = await openPairedPage(browser, daemon);
    const payload = freshPayload('03-four-questions', 'screenshot');
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const card = cardOf(page, view.id);
    await card.waitFor({ state: 'visible' });
    const legends = await card.locator('fieldset legend').allTextContents();
    expect(legends).toHaveLength(4);
    for (const [index, question] of payload.tool_input.questions.entries()) expect(legends[index]).toContain(question.question);
    expect(await card.getByRole('radio').count()).toBe(3 + 1 + 2 + 1 + 2 + 1);
    expect(await card.getByRole('checkbox').count()).toBe(4 + 1);
    await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
    expect(statSync(SCREENSHOT_PATH).size).toBeGreaterThan(10_000);

    hook.child.kill('SIGTERM');
    expect((await hook.result).stdout).toBe('');
    await context.close();
  });

  it('gets each of 20 answers in a row from the Submit click to its waiting hook, as the person who clicked', async () => {
    // How long each takes: the bench, row 2c.
    const { page } = main;
    for (let run = 0; run < 20; run++) {
      const payload = freshPayload('01-single-select', `timing-${run}`);
      const label = run % 2 === 0 ? 'SQLite' : 'PostgreSQL (Recommended)';
      const hook = runHook(payload, daemon.env);
      const view = await daemon.waitForAsk(payload.tool_use_id);
      const card = cardOf(page, view.id);
      await card.getByRole('radio', { name: label, exact: true }).check();
      const submit = card.getByRole('button', { name: 'Submit', exact: true });
      await submit.waitFor({ state: 'visible' });
      await submit.click();
      const result = await hook.result;
      expect(result.code).toBe(0);
      expect(Object.values(parseJson<AllowOutput>(result.stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers)).toEqual([label]);
      expect(await daemon.ask(view.id)).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'page' } });
    }
  }, 120_000);
});
