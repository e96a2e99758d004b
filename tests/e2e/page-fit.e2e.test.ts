// The page at the sizes people use, in a real Chromium against the real daemon: at a desk, a set of
// two questions shows its questions and its Submit button without scrolling; on a phone, the
// options come first and what the session was doing is one tap away; the History tab, open, looks
// selected, not like an error; a long machine name or session wraps rather than scrolling the page
// sideways; and a command or a rule the daemon names between backticks reads as
// code, not as backticks.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashRuleSuggestion, permissionPayload, requestPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { claudeHome, freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

/** Common desk windows, smallest height last. */
const DESKS = [
  { width: 1280, height: 800 },
  { width: 1280, height: 900 },
  { width: 1440, height: 900 },
  { width: 1366, height: 768 },
];
const PHONE = { width: 390, height: 844 };

/** What Claude said before asking, as long as it often is. */
const SAID = `I looked at the orders service. ${'The schema has grown, and the reporting queries now scan the whole table. '.repeat(6)}Two things to settle first.`;

/** Whether the element is inside the window and the topmost thing at its centre (not under a sticky bar). */
async function inView(element: Locator): Promise<{ box: unknown; seen: boolean }> {
  return element.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const within = box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return { box: { top: box.top, bottom: box.bottom, window: window.innerHeight }, seen: within && top !== null && (top === node || node.contains(top)) };
  });
}

describe.skipIf(!chromiumState.available)('the page at desk and phone sizes', () => {
  let daemon: Daemon;
  let claude: Awaited<ReturnType<typeof claudeHome>>;
  let browser: Browser;
  let askId: string;

  beforeAll(async () => {
    claude = await claudeHome();
    daemon = await startDaemon({ env: { HOME: claude.home } });
    browser = await launchBrowser();
    // A set of two questions, with what Claude said before asking in its transcript.
    const payload = { ...freshPayload('08-commas-quotes', 'page-fit'), session_id: 'c0ffee00-0000-4000-8000-0000000000f1' };
    const common = { sessionId: payload.session_id, cwd: payload.cwd, gitBranch: 'feature/reporting', version: '2.1.330' };
    const lines = [
      { ...common, type: 'user', message: { role: 'user', content: 'Speed up the reporting page without new infrastructure' } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: SAID }] } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: payload.tool_use_id, name: 'AskUserQuestion', input: payload.tool_input }] } },
    ];
    const transcript = join(claude.projects, `${payload.session_id}.jsonl`);
    writeFileSync(transcript, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: { ...payload, transcript_path: transcript } }).response.catch(() => {});
    askId = (await daemon.waitForAsk(payload.tool_use_id)).id;
    await waitUntil(async () => (await daemon.ask(askId)).context?.said === SAID || undefined, 10_000, 'what Claude said to reach the ask');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
    await claude?.remove();
  });

  it.each(DESKS)('at $width×$height, both questions and Submit are on the first screen', async (viewport) => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport });
    try {
      const card = await openAsk(page, askId);
      await card.locator('.said-text').waitFor();
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const legend of await card.locator('.q-legend').all()) expect(await inView(legend)).toMatchObject({ seen: true });
      expect(await inView(card.getByRole('button', { name: 'Submit', exact: true }))).toMatchObject({ seen: true });
    } finally {
      await context.close();
    }
  });

  it('on a phone, the options come first and what Claude said is one tap away', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: PHONE, touch: true });
    try {
      const card = await openAsk(page, askId, 'tap');
      const show = card.getByRole('button', { name: 'What Claude said' });
      await show.waitFor();
      expect(await show.getAttribute('aria-expanded')).toBe('false');
      expect(await card.locator('.said-text').isVisible()).toBe(false);
      // What comes before the options, from the card's top: less than half of the screen.
      const [top, option] = [await card.boundingBox(), await card.locator('.option').first().boundingBox()];
      expect(option!.y - top!.y).toBeLessThan(PHONE.height / 2);
      await show.tap();
      expect(await show.getAttribute('aria-expanded')).toBe('true');
      expect(await card.locator('.said-text').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('on a phone, a long machine name and session on the meta line wrap inside the window: nothing scrolls sideways', async () => {
    // opencode on another machine, relayed: its host is the machine the card names, as long as a name may be.
    const machine = `build-${'x'.repeat(50)}.example`; // 64 characters, the most a machine's name may be
    const question = { question: 'Which branch?', header: 'Branch', options: [{ label: 'main', description: 'as usual' }, { label: 'next', description: 'the new one' }] };
    const body = { request: { kind: 'question', question: { id: 'que_phone_meta', sessionID: `ses_${'y'.repeat(40)}`, questions: [question] } }, session: { directory: `/home/alice/${'deeply/'.repeat(20)}project` }, machine, environment: {} };
    const held = daemon.api('POST', '/api/attach/opencode', body, { held: true });
    const { id } = await daemon.waitForAsk('que_phone_meta');
    const { page, context } = await openPairedPage(browser, daemon, { viewport: PHONE, touch: true });
    try {
      const card = await openAsk(page, id, 'tap');
      await expect.poll(() => card.locator('code.machine').textContent()).toBe(machine);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
      expect(widths.page).toBeLessThanOrEqual(widths.window);
      const meta = await card.locator('.meta-line').boundingBox();
      expect(meta!.x + meta!.width).toBeLessThanOrEqual(PHONE.width);
    } finally {
      await context.close();
      await daemon.api('POST', '/api/attach/withdraw', { agent: 'opencode', sessionId: `ses_${'y'.repeat(40)}`, toolUseId: 'que_phone_meta', machine });
      expect((await held).status).toBe(200);
    }
  });

  it('on a phone, the History tab when open has the selected look, not the colours of an error', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: PHONE, touch: true });
    try {
      const tab = page.locator('#history-toggle');
      await tab.tap();
      await expect.poll(() => tab.getAttribute('aria-expanded')).toBe('true');
      const look = await tab.evaluate((node) => {
        const probe = document.createElement('span');
        document.body.append(probe);
        const colourOf = (value: string) => {
          probe.style.color = value;
          return getComputedStyle(probe).color;
        };
        const seen = getComputedStyle(node);
        const found = { color: seen.color, background: seen.backgroundColor, danger: colourOf('var(--danger)'), dangerSoft: colourOf('var(--danger-soft)'), accentText: colourOf('var(--accent-text)'), accentSoft: colourOf('var(--accent-soft)') };
        probe.remove();
        return found;
      });
      expect(look.color).not.toBe(look.danger);
      expect(look.background).not.toBe(look.dangerSoft);
      expect({ color: look.color, background: look.background }).toEqual({ color: look.accentText, background: look.accentSoft });
    } finally {
      await context.close();
    }
  });

  it('shows the rule of an “always allow” suggestion as code, without its backticks', async () => {
    const held = await requestPermission(daemon, permissionPayload('c0ffee00-0000-4000-8000-0000000000f2', 'Bash', { command: 'npm test', description: 'Run the tests' }, { suggestions: [bashRuleSuggestion('npm test:*')] }));
    const { page, context } = await openPairedPage(browser, daemon, { viewport: { width: 1280, height: 900 } });
    try {
      const card = await openAsk(page, held.view.id);
      const suggestion = card.locator('.btn-suggestion');
      expect(await suggestion.textContent()).not.toContain('`');
      expect(await suggestion.locator('code').allTextContents()).toEqual(['Bash(npm test:*)']);
    } finally {
      await context.close();
      held.abort();
    }
  });

  it('shows the command in the red box of a used link as code, without its backticks', async () => {
    const link = (await openPairedPage(browser, daemon)).pairingUrl;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(link);
      const detail = page.locator('#unpaired-detail');
      await detail.waitFor({ state: 'visible' });
      expect(await detail.textContent()).not.toContain('`');
      expect(await detail.locator('code').allTextContents()).toEqual(['askbridge open']);
    } finally {
      await context.close();
    }
  });
});
