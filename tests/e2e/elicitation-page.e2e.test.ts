// An MCP server's request for input in a real Chromium against the real daemon, until its form comes
// to the page: its card names the server and shows its message and where its link goes as text
// (markup stays text, invisible characters are marked), offers only "Let the terminal answer", which
// gives the held hook an empty reply at once (Claude Code's own dialog asks), and leaves the page
// when the session moves on.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, waitForLivePage, type PairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { formPayload, requestElicitation, urlPayload } from '../stack/elicitations.js';
import { loadFixture } from '../stack/fixtures.js';
import { killStrayProcesses } from '../stack/processes.js';
import { submitPrompt } from '../stack/turn-ends.js';

const chromiumState = chromiumAvailability();
const CONTACT = loadFixture('elicitation/contact.json');

describe.skipIf(!chromiumState.available)('an MCP server’s request for input, in the page', () => {
  let daemon: Daemon;
  let browser: Browser;
  let paired: PairedPage;

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    paired = await openPairedPage(browser, daemon);
    await waitForLivePage(paired.page);
  });
  afterEach(killStrayProcesses);
  afterAll(async () => {
    await paired?.context.close();
    await browser?.close();
    await daemon?.stop();
  });

  it('shows the server’s words as text, offers only "Let the terminal answer", and that gives the hook an empty reply at once', async () => {
    const { page } = paired;
    const held = await requestElicitation(daemon, formPayload(`elicit-${randomUUID()}`, CONTACT, { server: 'forms<img src=x onerror="window.__pwned=1">', message: 'Who gets\u202E the report?' }));
    const card = await openAsk(page, held.view.id);
    await expect.poll(() => card.locator('.turn-ask').textContent()).toBe('MCP server “forms<img src=x onerror="window.__pwned=1">” asks for input');
    expect(await card.textContent()).toContain('Who gets[U+202E] the report?');
    expect(await card.textContent()).toContain('Its form asks for: name, email, age');
    expect(await card.locator('button').allTextContents()).toEqual(['Let the terminal answer']);
    expect(await page.locator('.item-turn[data-kind="elicitation"]').count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await card.getByRole('button', { name: 'Let the terminal answer' }).click();
    expect(await held.response).toMatchObject({ statusCode: 200, body: '' });
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'person', client: 'page' } });
    await page.locator(`article[data-question-id="${held.view.id}"]`).waitFor({ state: 'detached' });
  });

  it('shows where a link goes, never as a link, and leaves once the session moves on', async () => {
    const { page } = paired;
    const sessionId = `elicit-${randomUUID()}`;
    const held = await requestElicitation(daemon, urlPayload(sessionId, 'https://login.example.test/device'));
    const card = await openAsk(page, held.view.id);
    expect(await card.textContent()).toContain('Its link goes to login.example.test');
    expect(await card.locator('a').count()).toBe(0);
    await submitPrompt(daemon, sessionId);
    expect(await held.response).toMatchObject({ statusCode: 200, body: '' });
    await page.locator(`article[data-question-id="${held.view.id}"]`).waitFor({ state: 'detached' });
    expect(await page.locator(`[data-ask-id="${held.view.id}"]`).count()).toBe(0);
  });
});
