// The page's smaller habits, in a real Chromium against the real daemon: answering one question of a
// set brings the next into focus; History shows the notes people added and counts in words; Esc
// closes whatever panel was opened last and gives focus back to its button; and a pairing link that
// paired its browser, or whose ten minutes are up, leaves the Devices panel.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, waitForLivePage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { hookBody, openQuestion, type OpenQuestion } from '../stack/hook-client.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();
const SCREENSHOTS = '/tmp/askbridge-page-panels';
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** What has focus: its role and accessible name as a test reads them, and the question it is in. */
function focused(page: Page): Promise<{ tag: string; type: string | null; label: string; question: string | null }> {
  return page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    const labelId = active?.getAttribute('aria-labelledby');
    const label = (labelId ? document.getElementById(labelId)?.textContent : (active?.getAttribute('aria-label') ?? active?.textContent)) ?? '';
    const question = active?.closest('fieldset')?.querySelector('.q-text')?.textContent ?? null;
    return { tag: active?.tagName.toLowerCase() ?? '', type: active instanceof HTMLInputElement ? active.type : null, label: label.trim(), question };
  });
}

describe.skipIf(!chromiumState.available)('the page: focus, History, panels and pairing links', () => {
  let daemon: Daemon;
  let browser: Browser;
  let runs = 0;
  const held: OpenQuestion[] = [];

  beforeAll(async () => {
    daemon = await startDaemon({ config: { waitSeconds: 600 } });
    browser = await launchBrowser();
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

  /** Asks as Claude Code's hook does; the question waits until answered or the test ends. */
  async function ask(fixture: string, change: (payload: HookPayload) => void = () => {}): Promise<{ view: AskView; asked: OpenQuestion }> {
    const payload = freshPayload(fixture, `panels-${++runs}`);
    change(payload);
    const asked = openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(payload) });
    held.push(asked);
    await asked.accepted;
    return { view: await daemon.waitForAsk(payload.tool_use_id), asked };
  }

  it('brings the next question into focus once a single-select one is answered by a number key, Enter or a click; not after Other, a multi-select or an arrow key', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: DESK });
    try {
      const { view } = await ask('03-four-questions');
      const card = await openAsk(page, view.id);
      const [auth, sessions, roles, audit] = view.questions.map((question) => card.getByRole('group', { name: question.question }));
      await auth!.getByRole('radio', { name: 'OAuth via GitHub', exact: true }).focus();

      // A number key answers Auth: Sessions comes into focus, on its first option.
      await page.keyboard.press('2');
      expect(await auth!.getByRole('radio', { name: 'Email magic link', exact: true }).isChecked()).toBe(true);
      expect(await focused(page)).toEqual({ tag: 'input', type: 'radio', label: 'Redis', question: 'Where should sessions be stored?' });

      // An arrow moves within the question, as in any radio group: focus stays there.
      await page.keyboard.press('ArrowDown');
      expect(await focused(page)).toMatchObject({ label: 'Signed cookies', question: 'Where should sessions be stored?' });

      // Enter on an option chooses it and moves on, to the multi-select Roles.
      await page.keyboard.press('Enter');
      expect(await sessions!.getByRole('radio', { name: 'Signed cookies', exact: true }).isChecked()).toBe(true);
      expect(await focused(page)).toEqual({ tag: 'input', type: 'checkbox', label: 'Admin', question: 'Which roles do you need on day one?' });

      // In a multi-select more may follow: focus stays.
      await page.keyboard.press('3');
      expect(await roles!.getByRole('checkbox', { name: 'Viewer', exact: true }).isChecked()).toBe(true);
      expect(await focused(page)).toMatchObject({ label: 'Viewer', question: 'Which roles do you need on day one?' });

      // A click answers too: a click on Auth's first option brings Sessions, on its chosen option.
      await auth!.getByText('OAuth via GitHub', { exact: true }).click();
      expect(await auth!.getByRole('radio', { name: 'OAuth via GitHub', exact: true }).isChecked()).toBe(true);
      await expect.poll(() => focused(page)).toEqual({ tag: 'input', type: 'radio', label: 'Signed cookies', question: 'Where should sessions be stored?' });

      // The last question has no next one: focus stays on what was clicked.
      await audit!.getByText('Later', { exact: true }).click();
      expect(await audit!.getByRole('radio', { name: 'Later', exact: true }).isChecked()).toBe(true);
      expect(await focused(page)).toMatchObject({ label: 'Later', question: 'Should I add audit logging now?' });

      // "Other" by its number: the person types next, so its text box keeps focus, key after key.
      await auth!.getByRole('radio', { name: 'OAuth via GitHub', exact: true }).focus();
      await page.keyboard.press('4');
      await page.keyboard.type('SSO through the company IdP 2');
      expect(await focused(page)).toEqual({ tag: 'input', type: 'text', label: 'Other', question: 'Which auth method should the admin panel use?' });
      expect(await auth!.getByRole('textbox', { name: 'Other', exact: true }).inputValue()).toBe('SSO through the company IdP 2');
    } finally {
      await context.close();
    }
  });

  it('shows in History the note a person added to an answer, as text, and counts the list in words', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: DESK });
    try {
      const note = 'only behind the <b>VPN</b>\u200B for now';
      const { view, asked } = await ask('01-single-select', (payload) => {
        payload.cwd = '/home/alice/projects/noted';
      });
      const card = await openAsk(page, view.id);
      await card.getByRole('radio', { name: 'SQLite', exact: true }).check();
      await card.getByRole('button', { name: 'Add a note', exact: true }).click();
      await card.getByRole('textbox', { name: 'Note', exact: true }).fill(note);
      await card.getByRole('button', { name: 'Submit', exact: true }).click();
      await asked.settled;

      await page.getByRole('button', { name: 'History', exact: true }).click();
      const entries = page.locator('#history-list > li');
      await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(1);
      const count = (await daemon.history()).length;
      await expect.poll(() => page.locator('#history-status').textContent()).toBe(`${count} finished question${count === 1 ? '' : 's'}`);
      const entry = entries.nth(0);
      expect(await entry.locator('.history-project').textContent()).toBe('noted');
      expect(await entry.locator('.answer-a').allTextContents()).toEqual(['SQLite']);
      expect(await entry.locator('.answer-note').textContent()).toBe('Note: only behind the <b>VPN</b>[U+200B] for now');
      expect(await entry.locator('.answer-note b').count()).toBe(0);

      await page.getByRole('searchbox', { name: 'Search history' }).fill('behind the');
      await expect.poll(() => page.locator('#history-status').textContent()).toBe('1 matching question');
      await page.screenshot({ path: `${SCREENSHOTS}-history-desk.png` });
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: `${SCREENSHOTS}-history-phone.png` });
    } finally {
      await context.close();
    }
  });

  it('closes the panel opened last with Esc, History, Devices, the bell and the keys list, and gives focus back to its button', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: DESK });
    try {
      const history = page.getByRole('button', { name: 'History', exact: true });
      const devices = page.getByRole('button', { name: 'Devices', exact: true });
      const search = page.getByRole('searchbox', { name: 'Search history' });

      // History opens on its search; Esc there first empties a search, as in any search box, then closes.
      await history.click();
      await search.waitFor({ state: 'visible' });
      await page.keyboard.type('nothing like this');
      await page.keyboard.press('Escape');
      expect(await search.inputValue()).toBe('');
      expect(await page.locator('#history').isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      expect(await page.locator('#history').isHidden()).toBe(true);
      expect(await history.getAttribute('aria-expanded')).toBe('false');
      expect(await focused(page)).toMatchObject({ tag: 'button', label: 'History' });

      // Devices, then History: Esc closes History first (focus was in it: back to its button), then
      // Devices (focus was not in it: it stays where it is).
      await devices.click();
      await page.getByRole('button', { name: 'Pair a phone or another browser' }).focus();
      await history.click();
      await search.waitFor({ state: 'visible' });
      await page.keyboard.press('Escape');
      expect(await page.locator('#history').isHidden()).toBe(true);
      expect(await page.locator('#devices').isVisible()).toBe(true);
      expect(await focused(page)).toMatchObject({ tag: 'button', label: 'History' });
      await page.keyboard.press('Escape');
      expect(await page.locator('#devices').isHidden()).toBe(true);
      expect(await devices.getAttribute('aria-expanded')).toBe('false');
      expect(await focused(page)).toMatchObject({ tag: 'button', label: 'History' });

      // The bell's menu: Esc from its switch closes it, and focus is back on the bell.
      await page.locator('#alerts summary').click();
      await page.locator('#sound-switch').focus();
      await page.keyboard.press('Escape');
      expect(await page.locator('#alerts').getAttribute('open')).toBeNull();
      expect(await focused(page)).toMatchObject({ label: 'Notifications and sound' });

      // The keys list, from an option of the question in focus: Esc closes it, focus goes back to the option.
      const { view } = await ask('01-single-select');
      const card = await openAsk(page, view.id);
      await card.getByRole('radio', { name: 'SQLite', exact: true }).focus();
      await page.keyboard.press('?');
      expect(await page.locator('#keys').isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      expect(await page.locator('#keys').isVisible()).toBe(false);
      expect(await focused(page)).toMatchObject({ type: 'radio', label: 'SQLite' });
    } finally {
      await context.close();
    }
  });

  it('takes a pairing link out of the Devices panel once it has paired a browser', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: DESK });
    const other = await browser.newContext();
    try {
      await page.getByRole('button', { name: 'Devices', exact: true }).click();
      await page.getByRole('button', { name: 'Pair a phone or another browser' }).click();
      const box = page.locator('#pair-box');
      const link = (await box.locator('.pair-link code').textContent()) ?? '';
      expect(link).toContain('#pair=');
      // No public URL: a QR code of this loopback link would give a phone a link it cannot open.
      expect(await box.locator('svg.qr').count()).toBe(0);
      expect(await box.textContent()).toContain('This link works only on this computer');
      await page.screenshot({ path: `${SCREENSHOTS}-pairing-desk.png` });

      // Another browser pairs with it: the link leaves the panel, which says why.
      const phone = await other.newPage();
      await phone.goto(link);
      await waitForLivePage(phone);
      await expect.poll(() => box.locator('.pair-link').count(), { timeout: 10_000 }).toBe(0);
      expect(await box.locator('svg.qr').count()).toBe(0);
      expect(await box.textContent()).toMatch(/^.+ is paired\. That link is spent: it pairs nothing more\. To pair another browser, make a new link\.$/);
      // The new browser is in the list.
      expect(await page.locator('#devices-list .device').count()).toBe((await pagesPaired(daemon)).length);
      await page.screenshot({ path: `${SCREENSHOTS}-paired-desk.png` });
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: `${SCREENSHOTS}-paired-phone.png` });
    } finally {
      await other.close();
      await context.close();
    }
  });

  it('takes a pairing link out of the Devices panel when its ten minutes are up', async () => {
    const { page, context } = await openPairedPage(browser, daemon, { viewport: PHONE, beforeNavigate: (page) => page.clock.install() });
    try {
      await page.getByRole('button', { name: 'Devices', exact: true }).click();
      await page.getByRole('button', { name: 'Pair a phone or another browser' }).click();
      const box = page.locator('#pair-box');
      await box.locator('.pair-link').waitFor({ state: 'visible' });
      await page.screenshot({ path: `${SCREENSHOTS}-pairing-phone.png` });
      await page.clock.fastForward('09:58');
      expect(await box.locator('.pair-link').count()).toBe(1);
      await page.clock.fastForward('00:03');
      await expect.poll(() => box.locator('.pair-link').count()).toBe(0);
      expect(await box.locator('svg.qr').count()).toBe(0);
      expect(await box.textContent()).toBe('That link has expired: it pairs nothing now. To pair another browser, make a new link.');
    } finally {
      await context.close();
    }
  });
});

/** The paired browsers, as the daemon lists them. */
async function pagesPaired(daemon: Daemon): Promise<unknown[]> {
  const { body } = await daemon.api<{ devices: unknown[] }>('GET', '/api/devices');
  return body.devices;
}
