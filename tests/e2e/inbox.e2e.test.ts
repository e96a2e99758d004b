// The page as an inbox, in a real Chromium against the real daemon: many sessions at a glance, one
// set in focus, answered from the keyboard alone; previews as markdown that no prompt injection can
// turn into markup; drafts that survive a reload and a daemon restart; and no accessibility
// violation that axe-core can find, in light and dark, at a desk and on a phone.
import { readFile } from 'node:fs/promises';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { hookBody, openQuestion, type OpenQuestion } from '../stack/hook-client.js';
import { killStrayProcesses, parseJson, runHook } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

type AllowOutput = { hookSpecificOutput: { permissionDecision: string; updatedInput: { answers: Record<string, string>; annotations?: Record<string, { notes?: string }> } } };

/** The session ids of ten sessions, each working in its own project. */
const SESSIONS = Array.from({ length: 10 }, (_, index) => ({ id: `5e551011-0000-4000-8000-${String(index).padStart(12, '0')}`, cwd: `/home/alice/projects/project-${index}` }));

function sessionPayload(fixture: string, tag: string, session: { id: string; cwd: string }): HookPayload {
  return { ...freshPayload(fixture, tag), session_id: session.id, cwd: session.cwd };
}

/** What the page shows in the inbox, in order: each group's project and the ids of its rows. */
function inboxOrder(page: Page): Promise<Array<{ project: string; ids: string[] }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll('#inbox-list > .group')].map((group) => ({
      project: group.querySelector('.group-project')?.textContent ?? '',
      ids: [...group.querySelectorAll<HTMLElement>('[data-ask-id]')].map((row) => row.dataset.askId ?? ''),
    })),
  );
}

const focusedId = (page: Page) => page.evaluate(() => document.querySelector<HTMLElement>('#focus article')?.dataset.questionId ?? null);

describe.skipIf(!chromiumState.available)('the page as an inbox', () => {
  let daemon: Daemon;
  let browser: Browser;
  const held: OpenQuestion[] = [];

  beforeAll(async () => {
    daemon = await startDaemon({ config: { waitSeconds: 600 } });
    browser = await launchBrowser();
  });

  // Every test starts with nothing waiting.
  afterEach(async () => {
    for (const question of held.splice(0)) question.close();
    await killStrayProcesses();
    await expect.poll(async () => (await daemon.pending()).length, { timeout: 10_000 }).toBe(0);
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  /** Asks as Claude Code's hook does, holding the connection open until the test closes it. */
  async function hold(payload: HookPayload): Promise<{ view: AskView; asked: OpenQuestion }> {
    const asked = openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(payload) });
    held.push(asked);
    await asked.accepted;
    return { view: await daemon.waitForAsk(payload.tool_use_id), asked };
  }

  it('groups 30 questions from 10 sessions, oldest first, and moves the focus to the next one on each answer', async () => {
    const fixtures = ['01-single-select', '02-multi-select', '08-commas-quotes'];
    const asked: Array<{ view: AskView; session: number }> = [];
    // Sessions take turns, so that every group holds questions asked far apart.
    for (let index = 0; index < 30; index++) {
      const session = (index * 7) % 10;
      const { view } = await hold(sessionPayload(fixtures[index % 3]!, `inbox-${index}`, SESSIONS[session]!));
      asked.push({ view, session });
    }
    const { page, context } = await openPairedPage(browser, daemon, { viewport: { width: 1280, height: 900 } });
    await page.locator('[data-ask-id]').nth(29).waitFor({ state: 'attached' });

    // Groups in the order of their oldest question; rows in each, oldest first.
    const expected: Array<{ project: string; ids: string[] }> = [];
    for (const { view, session } of asked) {
      const project = `project-${session}`;
      let group = expected.find((entry) => entry.project === project);
      if (!group) expected.push((group = { project, ids: [] }));
      group.ids.push(view.id);
    }
    expect(await inboxOrder(page)).toEqual(expected);
    expect(await page.locator('#pending-count').textContent()).toBe('30');
    expect(await page.locator('.group').first().locator('.count').textContent()).toBe('3');

    // The oldest is in focus; answering it brings the next of the same session, then the oldest
    // waiting anywhere (here: the next group, as each holds three).
    const order = expected.flatMap((group) => group.ids);
    expect(await focusedId(page)).toBe(order[0]);
    for (const [step, id] of order.slice(0, 4).entries()) {
      const card = page.locator(`article[data-question-id="${id}"]`);
      await card.getByRole('button', { name: 'Let the terminal answer', exact: true }).click();
      await expect.poll(() => focusedId(page)).toBe(order[step + 1]);
      expect(await page.locator(`[data-ask-id="${id}"]`).count()).toBe(0);
      // The focus is on the new set's first question, ready for the keyboard.
      expect(await page.evaluate(() => document.activeElement?.closest('article')?.getAttribute('data-question-id') ?? null)).toBe(order[step + 1]);
    }
    expect((await daemon.ask(order[0]!)).status).toBe('handed-to-terminal');
    // A set answered elsewhere leaves the inbox of this page at once.
    await daemon.api('POST', `/api/asks/${order[10]}/terminal`, {});
    await page.locator(`[data-ask-id="${order[10]}"]`).waitFor({ state: 'detached' });
    expect(await page.locator('#pending-count').textContent()).toBe('25');
    await page.screenshot({ path: '/tmp/askbridge-inbox-desktop.png' });

    const phone = await openPairedPage(browser, daemon, { viewport: { width: 390, height: 844 }, touch: true });
    await phone.page.locator('[data-ask-id]').nth(24).waitFor({ state: 'attached' });
    // On a phone the inbox is a list; a tap opens one set full screen, and "All waiting" goes back.
    expect(await phone.page.locator('#focus article').isVisible()).toBe(false);
    await phone.page.screenshot({ path: '/tmp/askbridge-inbox-phone.png' });
    const card = await openAsk(phone.page, order[6]!, 'tap');
    expect(await phone.page.locator('#inbox-list').isVisible()).toBe(false);
    const submit = card.getByRole('button', { name: 'Submit', exact: true });
    expect(await submit.isVisible()).toBe(true);
    const box = (await submit.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    expect(box.height).toBeGreaterThanOrEqual(44);
    await phone.page.screenshot({ path: '/tmp/askbridge-inbox-phone-open.png' });
    await phone.page.getByRole('button', { name: 'All waiting' }).tap();
    expect(await phone.page.locator('#inbox-list').isVisible()).toBe(true);
    await phone.context.close();

    for (const question of held.splice(0)) question.close();
    await expect.poll(() => page.locator('[data-ask-id]').count()).toBe(0);
    expect(await page.locator('#empty').isVisible()).toBe(true);
    await context.close();
  });

  it('answers single, multi, Other and a note from the keyboard alone, and moves between sets with j and k', async () => {
    const single = sessionPayload('01-single-select', 'keys-single', SESSIONS[0]!);
    const multi = sessionPayload('02-multi-select', 'keys-multi', SESSIONS[1]!);
    const singleHook = runHook(single, daemon.env);
    const first = await daemon.waitForAsk(single.tool_use_id);
    const multiHook = runHook(multi, daemon.env);
    const second = await daemon.waitForAsk(multi.tool_use_id);
    const { page, context } = await openPairedPage(browser, daemon);
    await page.locator(`[data-ask-id="${second.id}"]`).waitFor({ state: 'attached' });
    expect(await focusedId(page)).toBe(first.id);

    // j and k move between the waiting sets, focus included.
    await page.locator('body').focus();
    await page.keyboard.press('j');
    expect(await focusedId(page)).toBe(second.id);
    await page.keyboard.press('k');
    expect(await focusedId(page)).toBe(first.id);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('radio');

    // ? lists the keys; Escape closes the list.
    await page.keyboard.press('?');
    expect(await page.locator('#keys').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.locator('#keys').isVisible()).toBe(false);

    // Single: 2 picks the second option; Tab reaches "Add a note"; Enter opens it; Ctrl+Enter sends.
    await page.keyboard.press('2');
    await page.keyboard.press('Tab'); // the Other text box
    await page.keyboard.press('Tab'); // Add a note
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add a note');
    await page.keyboard.press('Enter');
    await page.keyboard.type('picked from the keyboard');
    await page.keyboard.press('Control+Enter');
    const singleOut = parseJson<AllowOutput>((await singleHook.result).stdout, 'hook stdout');
    const singleQuestion = single.tool_input.questions[0]!;
    expect(singleOut.hookSpecificOutput.updatedInput.answers).toEqual({ [singleQuestion.question]: singleQuestion.options[1]!.label });
    expect(singleOut.hookSpecificOutput.updatedInput.annotations).toEqual({ [singleQuestion.question]: { notes: 'picked from the keyboard' } });

    // Multi comes into focus by itself: 1 and 3 tick, 3 again unticks, 4 ticks; the last number is Other.
    await expect.poll(() => focusedId(page)).toBe(second.id);
    const multiQuestion = multi.tool_input.questions[0]!;
    for (const key of ['1', '3', '3', '4', String(multiQuestion.options.length + 1)]) await page.keyboard.press(key);
    await page.keyboard.type('Smoke test');
    await page.keyboard.press('Control+Enter');
    const multiOut = parseJson<AllowOutput>((await multiHook.result).stdout, 'hook stdout');
    const labels = [multiQuestion.options[0]!.label, multiQuestion.options[3]!.label, 'Smoke test'];
    expect(multiOut.hookSpecificOutput.updatedInput.answers).toEqual({ [multiQuestion.question]: labels.join(', ') });
    await context.close();
  });

  it('renders a preview as markdown, and a preview that tries HTML, script or links stays text: nothing runs, nothing is violated', async () => {
    const payload = sessionPayload('01-single-select', 'markdown', SESSIONS[2]!);
    const hostile = [
      '## Plan',
      '',
      '```ts',
      'const answer: number = 42; // the one',
      '```',
      '',
      '| name | kind |',
      '|------|------|',
      '| id   | int  |',
      '',
      '- one',
      '- **two**',
      '',
      '<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>',
      '',
      '<iframe srcdoc="<script>parent.__pwned=3</script>"></iframe>',
      '',
      '[click me](javascript:window.__pwned=4) ![alt text](https://example.invalid/x.png)',
    ].join('\n');
    payload.tool_input.questions[0]!.options[0]!.preview = hostile;
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const { page, context } = await openPairedPage(browser, daemon, {
      beforeNavigate: async (newPage) => {
        await newPage.addInitScript(() => {
          const seen: string[] = [];
          (window as unknown as { __violations: string[] }).__violations = seen;
          document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
        });
      },
    });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const card = await openAsk(page, view.id);
    const preview = card.locator('.preview-side .preview-body');
    await preview.locator('.md-code').waitFor();
    // Markdown: a heading's text, highlighted code, a table, a list.
    expect(await preview.locator('.md-heading').textContent()).toBe('Plan');
    expect(await preview.locator('.md-code .tok-keyword').first().textContent()).toBe('const');
    expect(await preview.locator('.md-code .tok-comment').textContent()).toBe('// the one');
    expect(await preview.locator('table th').allTextContents()).toEqual(['name', 'kind']);
    expect(await preview.locator('li').allTextContents()).toEqual(['one', 'two']);
    // What could have been markup is text: no element of it exists, and it reads as written.
    for (const tag of ['img', 'script', 'iframe', 'a']) expect(await preview.locator(tag).count()).toBe(0);
    const text = (await preview.textContent()) ?? '';
    expect(text).toContain('<img src=x onerror="window.__pwned=1">');
    expect(text).toContain('<script>window.__pwned=2</script>');
    expect(text).toContain('click me (javascript:window.__pwned=4)');
    expect(text).toContain('[image: alt text]');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null)).toBeNull();
    expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(daemon.url.replace(/\/$/, '')))).toEqual([]);
    await card.getByRole('button', { name: 'Decline', exact: true }).click();
    await hook.result;
    await context.close();
  });

  it('keeps what was picked and typed through a reload and a daemon restart, and clears it once answered', async () => {
    const first = await startDaemon({ config: { waitSeconds: 120 } });
    const payload = sessionPayload('03-four-questions', 'draft', SESSIONS[3]!);
    const hook = runHook(payload, first.env);
    const view = await first.waitForAsk(payload.tool_use_id);
    let second: Daemon | undefined;
    const { page, context } = await openPairedPage(browser, first);
    try {
      const card = await openAsk(page, view.id);
      const [q1, q2] = payload.tool_input.questions;
      const group1 = card.getByRole('group', { name: q1!.question });
      await group1.getByRole('radio', { name: q1!.options[1]!.label, exact: true }).check();
      await group1.getByRole('button', { name: 'Add a note', exact: true }).click();
      await group1.getByRole('textbox', { name: 'Note', exact: true }).fill('kept through a restart');
      await card.getByRole('group', { name: q2!.question }).getByRole('textbox', { name: 'Other', exact: true }).fill('typed, not sent');

      const checkDraft = async () => {
        const restored = await openAsk(page, view.id);
        const group = restored.getByRole('group', { name: q1!.question });
        expect(await group.getByRole('radio', { name: q1!.options[1]!.label, exact: true }).isChecked()).toBe(true);
        expect(await group.getByRole('textbox', { name: 'Note', exact: true }).inputValue()).toBe('kept through a restart');
        expect(await restored.getByRole('group', { name: q2!.question }).getByRole('textbox', { name: 'Other', exact: true }).inputValue()).toBe('typed, not sent');
        return restored;
      };
      await page.reload();
      await checkDraft();

      // The daemon and its keeper both killed outright: nothing restarts it until the next start.
      await first.killOutright();
      second = await startDaemon({ home: first.home, env: { ASKBRIDGE_PORT: String(first.port) }, config: { waitSeconds: 120 } });
      await second.waitForLog((entry) => entry.msg === 'question received' && entry.askId === view.id, 10_000, 'the hook re-attaching');
      await page.reload();
      await page.locator('#conn-text', { hasText: 'Live' }).waitFor({ timeout: 15_000 });
      const restored = await checkDraft();
      await restored.getByRole('button', { name: 'Let the terminal answer', exact: true }).click();
      expect((await hook.result).stdout).toBe('');
      // The page clears the draft once it knows the question ended: when the reply to its click is in.
      await page.locator(`article[data-question-id="${view.id}"][data-status="handed-to-terminal"]`).waitFor({ state: 'attached' });
      expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('askbridge.draft.')))).toEqual([]);
    } finally {
      await context.close();
      hook.child.kill('SIGKILL');
      await killStrayProcesses();
      await second?.stop();
      await first.stop();
    }
  });

  it('asks the daemon for more time while a person types near the deadline, and the countdown shows it', async () => {
    const short = await startDaemon({ config: { waitSeconds: 40 } });
    const payload = sessionPayload('01-single-select', 'more-time', SESSIONS[6]!);
    const hook = runHook(payload, short.env);
    const view = await short.waitForAsk(payload.tool_use_id);
    const { page, context } = await openPairedPage(browser, short);
    try {
      const card = await openAsk(page, view.id);
      const extends_: number[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith(`/api/asks/${view.id}/extend`)) extends_.push(request.timing().startTime);
      });
      // Merely looking asks for nothing.
      await page.waitForTimeout(300);
      expect(extends_).toEqual([]);
      expect((await short.ask(view.id)).expiresAt).toBe(view.expiresAt);

      // Typing with 40 s left: the deadline moves to two minutes from now, and every page is told.
      await card.getByRole('textbox', { name: 'Other', exact: true }).pressSequentially('thinking it over');
      await expect.poll(async () => (await short.ask(view.id)).expiresAt).toBeGreaterThan(view.expiresAt + 60_000);
      const extended = await short.ask(view.id);
      expect(extended.expiresAt).toBeLessThanOrEqual(extended.extendableUntil!);
      await expect.poll(() => card.locator('.countdown').textContent()).toMatch(/^in (1:5\d|2:00) /);
      // One request for the burst of keys, not one per key.
      expect(extends_).toHaveLength(1);
      await card.getByRole('button', { name: 'Submit', exact: true }).click();
      const output = parseJson<AllowOutput>((await hook.result).stdout, 'hook stdout');
      expect(Object.values(output.hookSpecificOutput.updatedInput.answers)).toEqual(['thinking it over']);
    } finally {
      await context.close();
      hook.child.kill('SIGKILL');
      await short.stop();
    }
  });

  it('shows finished questions in History, searchable, and exports them as JSON and CSV', async () => {
    // Projects of their own: the other tests' questions are in this daemon's history too.
    const answered = sessionPayload('01-single-select', 'history-answered', { id: SESSIONS[7]!.id, cwd: '/home/alice/projects/ledger' });
    const declined = sessionPayload('02-multi-select', 'history-declined', { id: SESSIONS[8]!.id, cwd: '/home/alice/projects/warehouse' });
    const { page, context } = await openPairedPage(browser, daemon);
    const answeredHook = runHook(answered, daemon.env);
    const card = await openAsk(page, (await daemon.waitForAsk(answered.tool_use_id)).id);
    await card.getByRole('radio', { name: 'SQLite', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    await answeredHook.result;
    const declinedHook = runHook(declined, daemon.env);
    const declinedView = await daemon.waitForAsk(declined.tool_use_id);
    await daemon.api('POST', `/api/asks/${declinedView.id}/decline`, {});
    await declinedHook.result;

    await page.getByRole('button', { name: 'History', exact: true }).click();
    const entries = page.locator('#history-list > li');
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(2);
    // Newest first, each with who or what settled it and the answer given.
    expect(await entries.nth(0).locator('.history-project').textContent()).toBe('warehouse');
    expect(await entries.nth(0).locator('.history-source').textContent()).toMatch(/^declined/);
    expect(await entries.nth(1).locator('.history-source').textContent()).toMatch(/^answered by a person/);
    expect(await entries.nth(1).locator('.answer-a').allTextContents()).toEqual(['SQLite']);

    await page.getByRole('searchbox', { name: 'Search history' }).fill('LEDGER');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.nth(0).locator('.history-project').textContent()).toBe('ledger');
    await page.getByRole('searchbox', { name: 'Search history' }).fill('no such thing anywhere');
    await expect.poll(() => page.locator('#history-status').textContent()).toBe('Nothing matches.');
    await page.getByRole('searchbox', { name: 'Search history' }).fill('/home/alice/projects/');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(csv.suggestedFilename()).toBe('askbridge-history.csv');
    const csvText = await readFile((await csv.path())!, 'utf8');
    const [header, ...rows] = csvText.trim().split('\r\n');
    expect(header).toBe('finished,asked,project,session,asker,machine,status,source,detail,person,device,header,question,answer,note,tool,target,decision,suggestion,message,interrupt,said,reply,delivery,risk');
    expect(rows.some((row) => row.includes('/home/alice/projects/ledger') && row.includes(',SQLite,'))).toBe(true);
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    const exported = JSON.parse(await readFile((await json.path())!, 'utf8')) as { entries: Array<{ id: string; project: string }> };
    expect(exported.entries.map((entry) => entry.id)).toContain(declinedView.id);
    await context.close();
  });

  it('says so when the daemon stops, instead of promising questions the moment Claude asks', async () => {
    const own = await startDaemon();
    const { page, context } = await openPairedPage(browser, own);
    try {
      const empty = page.locator('#empty-text');
      expect(await empty.textContent()).toBe('No questions waiting. They appear here the moment Claude asks.');
      own.expectExit();
      await own.stop();
      await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('reconnecting');
      expect(await empty.textContent()).toMatch(/^askbridge is not reachable right now/);
      expect(await empty.textContent()).not.toContain('the moment Claude asks');
    } finally {
      await context.close();
      await own.stop();
    }
  });

  it('has no accessibility violation axe-core can find, in light and dark, at a desk and on a phone', async () => {
    const payload = sessionPayload('03-four-questions', 'axe', SESSIONS[4]!);
    payload.tool_input.questions[0]!.options[0]!.preview = '```sql\nSELECT 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |';
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    let runs = 0;
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page, context } = await openPairedPage(browser, daemon, { viewport });
        await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        // A finished set too, declined while this page looks on.
        const finished = sessionPayload('01-single-select', `axe-finished-${++runs}`, SESSIONS[5]!);
        const finishedHook = runHook(finished, daemon.env);
        const done = await daemon.waitForAsk(finished.tool_use_id);
        await page.locator(`[data-ask-id="${done.id}"]`).waitFor({ state: 'attached' });
        await daemon.api('POST', `/api/asks/${done.id}/decline`, {});
        await finishedHook.result;
        await page.locator(`article[data-question-id="${done.id}"][data-status="declined"]`).waitFor({ state: 'attached' });
        await openAsk(page, view.id);
        // Evaluated over the DevTools protocol, as a tool does: the page's CSP allows no injected script.
        await page.evaluate(axe.source);
        const results = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
        const violations = results.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
        expect(violations, `${viewport.width}px ${colorScheme}`).toEqual([]);
        await context.close();
      }
    }
    hook.child.kill('SIGTERM');
    await hook.result;
  }, 120_000);
});
