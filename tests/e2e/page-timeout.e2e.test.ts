// What the page says a timeout policy will do, in a real Chromium against the real daemon: not only
// "in 9:58 the recommended option will be chosen" but which option, by its label, which rule answers
// and with what, or what Claude will be told. The labels are model text: shown as text, marked.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import axe from 'axe-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { hookBody, openQuestion, type OpenQuestion } from '../stack/hook-client.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();
const SCREENSHOTS = '/tmp/askbridge-page-timeout';

/** "in 9:5x " or "in 10:00 ": a ten-minute wait, a moment after the question arrived. */
const IN_TEN_MINUTES = String.raw`in (9:5\d|10:00) `;

describe.skipIf(!chromiumState.available)('what the page says a timeout policy will do', () => {
  let daemon: Daemon;
  let browser: Browser;
  let page: Page;
  let runs = 0;
  const held: OpenQuestion[] = [];

  beforeAll(async () => {
    daemon = await startDaemon({ config: { waitSeconds: 600, onTimeout: 'recommended' } });
    browser = await launchBrowser();
    ({ page } = await openPairedPage(browser, daemon, { viewport: { width: 1280, height: 800 } }));
  });

  afterEach(async () => {
    for (const question of held.splice(0)) question.close();
    await expect.poll(async () => (await daemon.pending()).length, { timeout: 10_000 }).toBe(0);
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  /** The user config, replaced whole as an editor saves it; the next question is planned with it. */
  async function userConfig(config: Record<string, unknown>): Promise<void> {
    const path = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
    await writeFile(`${path}.new`, JSON.stringify(config));
    await rename(`${path}.new`, path);
  }

  /** Asks as Claude Code's hook does, holding the question until the test ends; returns its card in the page. */
  async function ask(fixture: string, change: (payload: HookPayload) => void = () => {}): Promise<{ view: AskView; card: Locator }> {
    const payload = freshPayload(fixture, `timeout-${++runs}`);
    change(payload);
    const asked = openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(payload) });
    held.push(asked);
    await asked.accepted;
    const view = await daemon.waitForAsk(payload.tool_use_id);
    return { view, card: await openAsk(page, view.id) };
  }

  const countdownOf = (card: Locator) => card.locator('.countdown');

  it('names the recommended option that will be chosen, and every one of a multi-select', async () => {
    await userConfig({ waitSeconds: 600, onTimeout: 'recommended' });
    const single = await ask('01-single-select');
    expect(single.view.timeout).toEqual({
      action: 'recommended',
      summary: 'the recommended option will be chosen',
      answers: [{ question: 'Which database should the new orders service use?', selected: ['PostgreSQL (Recommended)'] }],
    });
    await expect.poll(() => countdownOf(single.card).textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}the recommended option “PostgreSQL \\(Recommended\\)” will be chosen$`));
    await page.screenshot({ path: `${SCREENSHOTS}-desk.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator(`[data-ask-id="${single.view.id}"]`).click();
    await page.screenshot({ path: `${SCREENSHOTS}-phone.png` });
    await page.locator('#back').click();
    await page.setViewportSize({ width: 1280, height: 800 });

    const multi = await ask('02-multi-select', (payload) => {
      const options = payload.tool_input.questions[0]!.options;
      options[1]!.label = 'Lint (Recommended)';
      options[3]!.label = 'E2E (recommended)';
    });
    await expect.poll(() => countdownOf(multi.card).textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}the recommended options “Lint \\(Recommended\\)” and “E2E \\(recommended\\)” will be chosen$`));
  });

  it('shows a label that tries markup or hides characters as the text it is, marked', async () => {
    await userConfig({ waitSeconds: 600, onTimeout: 'recommended' });
    const label = '<img src=x onerror="document.title=1">Deploy\u202Etxt.exe (Recommended)';
    const { card } = await ask('01-single-select', (payload) => {
      payload.tool_input.questions[0]!.options[0]!.label = label;
    });
    const countdown = countdownOf(card);
    await expect.poll(() => countdown.textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}the recommended option “<img src=x onerror="document.title=1">Deploy\\[U\\+202E\\]txt.exe \\(Recommended\\)” will be chosen$`));
    expect(await countdown.locator('img').count()).toBe(0);
    expect(await countdown.locator('.invisible-char').textContent()).toBe('[U+202E]');
  });

  it('names the rule that will answer and what it will answer with; with several questions, under each', async () => {
    await userConfig({
      waitSeconds: 600,
      onTimeout: 'recommended',
      rules: [
        { name: 'db', header: 'Database', choose: 'SQLite' },
        { name: 'sessions', header: 'Sessions', text: 'Keep them in Redis, as the rest of the stack does' },
      ],
    });
    const single = await ask('01-single-select');
    expect(single.view.timeout.answers).toEqual([{ question: 'Which database should the new orders service use?', selected: ['SQLite'], rule: '"db"' }]);
    await expect.poll(() => countdownOf(single.card).textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}the rule "db" will choose “SQLite”$`));

    const four = await ask('03-four-questions');
    await expect.poll(() => countdownOf(four.card).textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}rules and the recommended option will answer, as shown under each question$`));
    expect(await four.card.locator('fieldset .q-timeout').allTextContents()).toEqual([
      'If nobody answers in time: “OAuth via GitHub” (the recommended option)',
      'If nobody answers in time: “Keep them in Redis, as the rest of the stack does” (the rule "sessions")',
      'If nobody answers in time: “Admin” (the recommended option)',
      'If nobody answers in time: “Yes, now” (the recommended option)',
    ]);
    await page.screenshot({ path: `${SCREENSHOTS}-four-desk.png`, fullPage: true });
    // Evaluated over the DevTools protocol, as a tool does: the page's CSP allows no injected script.
    await page.evaluate(axe.source);
    for (const colorScheme of ['light', 'dark'] as const) {
      // Without motion, as the colours are measured at once (no transition between the two schemes).
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      const results = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
      expect(results.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), colorScheme).toEqual([]);
    }
    await page.screenshot({ path: `${SCREENSHOTS}-four-desk-dark.png` });
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SCREENSHOTS}-four-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('says that Claude will be told to proceed on its own judgment, or that the terminal will ask, and names no option then', async () => {
    await userConfig({ waitSeconds: 600, onTimeout: 'decline' });
    const declined = await ask('01-single-select');
    await expect.poll(() => countdownOf(declined.card).textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}Claude will be told nobody is available, and to proceed on its own judgment$`));
    expect(declined.view.timeout.answers).toBeUndefined();

    await userConfig({ waitSeconds: 600, onTimeout: 'terminal' });
    const terminal = await ask('03-four-questions');
    await expect.poll(() => countdownOf(terminal.card).textContent()).toMatch(new RegExp(`^${IN_TEN_MINUTES}the terminal will ask$`));
    expect(await terminal.card.locator('.q-timeout').count()).toBe(0);
  });
});
