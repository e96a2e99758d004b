// An MCP server's request for input answered in a real Chromium against the real daemon: the form
// drawn from its schema (every kind of field), values checked before they are sent by the daemon's
// own checks (loaded only once a form is on screen), the held hook receiving exactly what was
// entered, Decline and Cancel as MCP means them, "Answer in the terminal" letting go at once, a
// link shown with its exact host and never opened by itself, and the server's words always text.
import { randomUUID } from 'node:crypto';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, waitForLivePage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { formPayload, requestElicitation, urlPayload } from '../stack/elicitations.js';
import { loadFixture } from '../stack/fixtures.js';
import { killStrayProcesses } from '../stack/processes.js';
import { submitPrompt } from '../stack/turn-ends.js';

const chromiumState = chromiumAvailability();
const CONTACT = loadFixture('elicitation/contact.json');
const EVERY_KIND = loadFixture('elicitation/every-kind.json');

/** The decision the held hook received, parsed. */
async function decisionOf(held: { response: Promise<{ statusCode: number; body: string }> }): Promise<unknown> {
  const { statusCode, body } = await held.response;
  expect(statusCode).toBe(200);
  return JSON.parse(body);
}

const field = (card: Locator, name: string) => card.locator(`[data-field="${name}"]`);

describe.skipIf(!chromiumState.available)('an MCP server’s request for input, in the page', () => {
  let daemon: Daemon;
  let browser: Browser;
  let paired: PairedPage;
  const checksFetched: string[] = [];

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    paired = await openPairedPage(browser, daemon);
    paired.page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/form-checks.js') checksFetched.push(request.url());
    });
    await waitForLivePage(paired.page);
  });
  afterEach(killStrayProcesses);
  afterAll(async () => {
    await paired?.context.close();
    await browser?.close();
    await daemon?.stop();
  });

  it('draws every kind of field, refuses values that do not fit where they are, and sends exactly what was entered', async () => {
    const { page } = paired;
    expect(checksFetched).toEqual([]);
    const held = await requestElicitation(daemon, formPayload(`elicit-${randomUUID()}`, EVERY_KIND, { server: 'deploy', message: 'Where should this go?' }));
    const card = await openAsk(page, held.view.id);
    expect(await card.locator('.elicit-ask').textContent()).toBe('MCP server deploy asks for input');
    // Defaults are filled in; the server's labels are shown, its values sent.
    await expect.poll(() => field(card, 'branch').locator('input').inputValue()).toBe('release/1.2');
    expect(await field(card, 'releaseDate').locator('input').inputValue()).toBe('2026-12-31');
    expect(await field(card, 'rowLimit').locator('input').inputValue()).toBe('100');
    expect(await field(card, 'dryRun').locator('input').isChecked()).toBe(true);
    expect(await field(card, 'environment').getByLabel('Staging').isChecked()).toBe(true);
    expect(await field(card, 'checks').getByLabel('lint').isChecked()).toBe(true);
    expect(await field(card, 'branch').textContent()).toContain('A release branch');
    expect(await field(card, 'rowLimit').textContent()).toContain('A whole number from 1 to 1000');

    await field(card, 'branch').locator('input').fill('main');
    await field(card, 'rowLimit').locator('input').fill('5000');
    await card.getByRole('button', { name: 'Accept' }).click();
    // The pattern is checked by RE2 in the page: the daemon's own checks, loaded now.
    await expect.poll(() => field(card, 'branch').locator('.q-error').textContent()).toBe('Branch: must match the pattern ^release/[0-9]+\\.[0-9]+$');
    expect(await field(card, 'rowLimit').locator('.q-error').textContent()).toBe('Row limit: at most 1000');
    expect(await field(card, 'rowLimit').locator('input').getAttribute('aria-invalid')).toBe('');
    expect(checksFetched).toHaveLength(1);
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'pending' });

    await field(card, 'branch').locator('input').fill('release/2.0');
    await field(card, 'homepage').locator('input').fill('https://shop.example.test/');
    await field(card, 'freezeAt').locator('input').fill('2026-12-31T18:30:05');
    await field(card, 'rowLimit').locator('input').fill('250');
    await field(card, 'ratio').locator('input').fill('0.5');
    await field(card, 'dryRun').locator('input').uncheck();
    await field(card, 'environment').getByLabel('Production').check();
    await field(card, 'region').getByLabel('Virginia').check();
    await field(card, 'checks').getByLabel('unit').check();
    await field(card, 'notify').getByLabel('Quality').check();
    const freezeAt = await page.evaluate(() => new Date('2026-12-31T18:30:05').toISOString().replace(/\.000Z$/, 'Z'));
    await card.getByRole('button', { name: 'Accept' }).click();
    expect(await decisionOf(held)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'Elicitation',
        action: 'accept',
        content: { branch: 'release/2.0', homepage: 'https://shop.example.test/', releaseDate: '2026-12-31', freezeAt, rowLimit: 250, ratio: 0.5, dryRun: false, environment: 'prod', region: 'us-east-1', checks: ['lint', 'unit'], notify: ['qa'] },
      },
    });
    const finished = page.locator(`article.is-finished[data-question-id="${held.view.id}"]`);
    await expect.poll(() => finished.locator('.status-title').textContent()).toBe('Accepted');
    expect(await finished.textContent()).toContain('Row limit250');
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'page' } });
  });

  it('Decline and Cancel reach the hook as MCP means them', async () => {
    const { page } = paired;
    for (const action of ['Decline', 'Cancel'] as const) {
      const held = await requestElicitation(daemon, formPayload(`elicit-${randomUUID()}`, CONTACT));
      const card = await openAsk(page, held.view.id);
      await card.getByRole('button', { name: action, exact: true }).click();
      expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: action.toLowerCase() } });
      await expect.poll(() => page.locator(`article.is-finished[data-question-id="${held.view.id}"] .status-title`).textContent()).toBe(action === 'Decline' ? 'Declined' : 'Cancelled');
    }
  });

  it('keeps the server’s words as text, and "Answer in the terminal" gives the hook an empty reply at once', async () => {
    const { page } = paired;
    const held = await requestElicitation(daemon, formPayload(`elicit-${randomUUID()}`, CONTACT, { server: 'forms<img src=x onerror="window.__pwned=1">', message: 'Who gets\u202E the report?' }));
    const card = await openAsk(page, held.view.id);
    expect(await card.locator('.elicit-server').textContent()).toBe('forms<img src=x onerror="window.__pwned=1">');
    expect(await card.textContent()).toContain('Who gets[U+202E] the report?');
    expect(await card.locator('button').allTextContents()).toEqual(['Accept', 'Answer in the terminal', 'Decline', 'Cancel']);
    expect(await page.locator('.item-turn[data-kind="elicitation"]').count()).toBe(1);
    // A required field left empty is refused in the page; nothing reaches the daemon.
    await card.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => field(card, 'email').locator('.q-error').isVisible()).toBe(true);
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'pending' });
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await card.getByRole('button', { name: 'Answer in the terminal' }).click();
    expect(await held.response).toMatchObject({ statusCode: 200, body: '' });
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'person', client: 'page' } });
  });

  it("names Codex on a form relayed from Codex, and hands it back to Codex's own dialog: the relay gets no reply", async () => {
    const { page } = paired;
    // As `askbridge attach codex` relays an MCP server's form, held until it is settled.
    const elicitation = { threadId: `thread-${randomUUID()}`, turnId: 'turn-1', serverName: 'forms', mode: 'form', _meta: null, message: 'Who gets the report?', requestedSchema: CONTACT };
    const relayed = daemon.api<{ reply: unknown }>('POST', '/api/attach/codex', { request: { kind: 'elicitation', requestId: 7, elicitation }, thread: { cwd: '/home/alice/acme-shop' }, environment: {} }, { held: true });
    const view = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === elicitation.threadId), 10_000, 'the relayed form to wait');
    const card = await openAsk(page, view.id);
    expect(await card.locator('.agent').first().textContent()).toBe('Codex');
    expect(await card.locator('button').allTextContents()).toEqual(['Accept', "Hand it back to Codex's dialog", 'Decline', 'Cancel']);
    expect(await card.locator('.elicit-means').textContent()).toContain('Codex shows its own dialog meanwhile: the first answer counts.');
    await card.getByRole('button', { name: "Hand it back to Codex's dialog" }).click();
    expect(await relayed).toMatchObject({ status: 200, body: { reply: null } });
    expect(await daemon.ask(view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'person', client: 'page' } });
  });

  it('shows where a link goes, opens it only on the person’s click, and Done accepts without values', async () => {
    const { page } = paired;
    const held = await requestElicitation(daemon, urlPayload(`elicit-${randomUUID()}`, 'https://login.example.test/device?code=ABCD'));
    const opened: string[] = [];
    paired.context.on('page', (other) => opened.push(other.url()));
    const card = await openAsk(page, held.view.id);
    expect(await card.locator('.elicit-host strong').textContent()).toBe('login.example.test');
    expect(await card.locator('.elicit-url').textContent()).toBe('https://login.example.test/device?code=ABCD');
    const link = card.getByRole('link', { name: 'Open login.example.test' });
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(opened).toEqual([]);
    await card.getByRole('button', { name: 'Done' }).click();
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept' } });
    await expect.poll(() => page.locator(`article.is-finished[data-question-id="${held.view.id}"] .status-title`).textContent()).toBe('Done');
    expect(opened).toEqual([]);
  });

  it('leaves once the session moves on', async () => {
    const { page } = paired;
    const sessionId = `elicit-${randomUUID()}`;
    const held = await requestElicitation(daemon, urlPayload(sessionId, 'https://login.example.test/device'));
    await openAsk(page, held.view.id);
    await submitPrompt(daemon, sessionId);
    expect(await held.response).toMatchObject({ statusCode: 200, body: '' });
    await page.locator(`article[data-question-id="${held.view.id}"][data-status="pending"]`).waitFor({ state: 'detached' });
    expect(await page.locator(`[data-ask-id="${held.view.id}"]`).count()).toBe(0);
  });
});
