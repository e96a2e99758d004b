// The end of Claude's turn and a wait in the terminal, in a real Chromium against the real daemon, as
// Claude Code's Stop and Notification http hooks send them: the away switch shows the daemon's state
// on every page and changes it; while away, Claude's last message is shown as markdown, safely, at a
// desk and on a phone, with no violation axe-core finds; Send reply gives the held Stop exactly the
// person's words, Done lets Claude stop, an empty reply is refused; the last reply Claude Code takes
// in a row is announced; a reply that comes after the person typed in the terminal is refused and the
// page says so; a wait in the terminal is shown, answers nothing, and leaves once the session moves on.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, waitForLivePage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { claudeHome } from '../stack/fixtures.js';
import { CLI_BIN } from '../stack/env.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { continuationOf, endTurn, type HeldStop, notifyWaiting, sendStop, setAway, stopPayload, submitPrompt } from '../stack/turn-ends.js';

const chromiumState = chromiumAvailability();
const SHOTS = '/tmp/approval-shots';
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Markup a prompt-injected model might write: if any of it ever became an element or ran, window.__pwned would be set. */
const HOSTILE_IMG = '<img src=x onerror="window.__pwned=1">';
const HOSTILE_SCRIPT = '<script>window.__pwned=2</script>';

const LAST_MESSAGE = [
  '## The cart has quantities',
  '',
  '- Added `quantity` to **Item**',
  '- `total()` multiplies by it',
  '',
  '```ts',
  'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);',
  '```',
  '',
  `Raw HTML stays text: ${HOSTILE_IMG} and ${HOSTILE_SCRIPT}, and [the docs](javascript:window.__pwned=3) are not a link.`,
  '',
  'Invisible: file\u202Etxt.exe and zero\u200Bwidth.',
  '',
  'Shall I add tests for it?',
].join('\n');

/** What Claude receives for a reply: the daemon's words, then exactly the person's (claude-code-stop.ts). */
const REPLY_PREFIX = 'The person replied from askbridge (they are away from this terminal). Treat their reply as their next message to you:\n\n';

describe.skipIf(!chromiumState.available)('the end of a turn and a wait in the terminal, in the page', () => {
  let daemon: Daemon;
  let browser: Browser;
  let claude: Awaited<ReturnType<typeof claudeHome>>;
  const held: HeldStop[] = [];
  const sessions = new Set<string>();
  const contexts: PairedPage[] = [];

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    claude = await claudeHome();
    daemon = await startDaemon({ env: { HOME: claude.home }, wired: true });
    browser = await launchBrowser();
  }, 30_000);

  afterEach(async () => {
    // A Stop still held is let go as Esc would; a wait in the terminal leaves once its session moves on.
    for (const stop of held.splice(0)) stop.abort();
    for (const session of sessions) await submitPrompt(daemon, session);
    sessions.clear();
    for (const paired of contexts.splice(0)) await paired.context.close();
    await expect.poll(async () => (await daemon.pending()).length, { timeout: 10_000 }).toBe(0);
    await setAway(daemon, false);
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
    await claude?.remove();
  });

  async function openPage(options: { viewport?: { width: number; height: number }; touch?: boolean } = {}): Promise<Page> {
    const paired = await openPairedPage(browser, daemon, { viewport: options.viewport ?? DESK, ...(options.touch ? { touch: true } : {}) });
    contexts.push(paired);
    return paired.page;
  }

  /** A session id as Claude Code's, cleaned up after the test. */
  function newSession(): string {
    const session = randomUUID();
    sessions.add(session);
    return session;
  }

  /** Claude finishes a turn while the person is away; its Stop is held until the test's end at the latest. */
  async function finishTurn(session: string, message: string, options: { promptId?: string; active?: boolean; cap?: string; transcript?: string } = {}) {
    const payload = { ...stopPayload(session, message, { ...(options.promptId ? { promptId: options.promptId } : {}), ...(options.active ? { active: true } : {}) }), ...(options.transcript ? { transcript_path: options.transcript } : {}) };
    const stop = await endTurn(daemon, payload, options.cap);
    held.push(stop);
    return stop;
  }

  /** A transcript as Claude Code writes it, for the session's title and branch. */
  function transcriptFor(session: string, title: string, branch: string): string {
    const common = { sessionId: session, cwd: '/home/alice/projects/shop', gitBranch: branch, version: '2.1.330' };
    const lines = [
      { ...common, type: 'user', message: { role: 'user', content: title } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
    ];
    const path = join(claude.projects, `${session}.jsonl`);
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return path;
  }

  /** The card once it has left the inbox: the title of its finished card. */
  async function finished(page: Page, id: string, status: string): Promise<Locator> {
    const card = page.locator(`#finished article[data-question-id="${id}"][data-status="${status}"]`);
    await card.waitFor({ state: 'attached' });
    return card;
  }

  const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);

  it('the away switch shows the daemon’s state on every page, changes it, and follows a change made elsewhere', async () => {
    const desk = await openPage();
    const phone = await openPage({ viewport: PHONE, touch: true });
    const deskSwitch = desk.getByRole('switch', { name: 'Away' });
    const phoneSwitch = phone.getByRole('switch', { name: 'Away' });
    for (const toggle of [deskSwitch, phoneSwitch]) {
      await expect.poll(() => toggle.isEnabled()).toBe(true);
      expect(await toggle.getAttribute('aria-checked')).toBe('false');
    }
    // It says what it does, in a line beside it, on a phone too (in the top bar, which stays on screen).
    expect(await phone.locator('#away-hint').textContent()).toBe('While away, when Claude finishes a turn it waits here for your reply.');
    expect(await phone.locator('#away-hint').isVisible()).toBe(true);
    expect(await phoneSwitch.evaluate((element) => element.closest('header')?.classList.contains('topbar'))).toBe(true);

    // Turned on in one page: the daemon and every other page know.
    await deskSwitch.click();
    await expect.poll(() => deskSwitch.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => phoneSwitch.getAttribute('aria-checked')).toBe('true');
    expect((await daemon.api<{ away: boolean }>('GET', '/api/away')).body).toMatchObject({ away: true });

    // Turned off from outside (the CLI): both pages follow.
    await setAway(daemon, false);
    await expect.poll(() => deskSwitch.getAttribute('aria-checked')).toBe('false');
    await expect.poll(() => phoneSwitch.getAttribute('aria-checked')).toBe('false');

    // From the keyboard: Space turns it on.
    await phoneSwitch.focus();
    await phone.keyboard.press('Space');
    await expect.poll(() => deskSwitch.getAttribute('aria-checked')).toBe('true');
    expect((await daemon.api<{ away: boolean }>('GET', '/api/away')).body).toMatchObject({ away: true });

    // Turning it off lets go of a turn's end that waits: Claude stops, and the card says why.
    const session = newSession();
    const stop = await finishTurn(session, 'All done.');
    await openAsk(desk, stop.view.id);
    await deskSwitch.click();
    expect(await continuationOf(stop)).toBeNull();
    expect(await (await finished(desk, stop.view.id, 'handed-to-terminal')).locator('.status-title').textContent()).toBe('You came back: Claude stopped');
    await expect.poll(() => phoneSwitch.getAttribute('aria-checked')).toBe('false');
    await phone.screenshot({ path: `${SHOTS}/turn-end-away-phone.png`, animations: 'disabled' });
    expect(await axeViolations(phone)).toEqual([]);
  }, 60_000);

  it('shows Claude’s last message as markdown, safely, at a desk and on a phone, light and dark, with no violation axe-core finds', async () => {
    await setAway(daemon, true);
    const session = newSession();
    const transcript = transcriptFor(session, 'Add quantities to the cart', 'feature/cart');
    const stop = await finishTurn(session, LAST_MESSAGE, { transcript });

    for (const [size, viewport] of [
      ['desk', DESK],
      ['phone', PHONE],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const touch = size === 'phone';
        const page = await openPage({ viewport, touch });
        await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        const row = page.locator(`[data-ask-id="${stop.view.id}"]`);
        await row.waitFor();
        expect(await row.locator('.kind-badge').textContent()).toBe('Turn end');
        // The start of what Claude said, on one line, its markdown's marks left out, as text.
        const rowText = (await row.locator('.item-text').textContent()) ?? '';
        expect(rowText.startsWith('Turn end The cart has quantities Added quantity to Item total() multiplies by it const total = items.reduce(')).toBe(true);
        expect(rowText.endsWith('…')).toBe(true);
        expect(await row.locator('img, script').count()).toBe(0);
        if (touch) await page.screenshot({ path: `${SHOTS}/turn-end-inbox-phone-${colorScheme}.png`, animations: 'disabled' });

        const card = await openAsk(page, stop.view.id, touch ? 'tap' : 'click');
        expect(await card.locator('.turn-ask').textContent()).toBe('Claude finished');
        expect(await card.locator('.card-title').textContent()).toBe('shop');
        // The session's title and branch, once the daemon has read its transcript.
        await expect.poll(() => card.locator('.context-about').textContent()).toBe('⎇ branch feature/cartAdd quantities to the cart');
        const body = card.locator('.turn-message');
        expect(await body.locator('.md-heading').textContent()).toBe('The cart has quantities');
        expect(await body.locator('ul > li').count()).toBe(2);
        expect(await body.locator('code').allTextContents()).toEqual(['quantity', 'total()', 'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);']);
        expect(await body.locator('strong').textContent()).toBe('Item');
        // HTML is shown as the text it is; the link is its words and its address, as text.
        const text = (await body.textContent()) ?? '';
        expect(text).toContain(HOSTILE_IMG);
        expect(text).toContain(HOSTILE_SCRIPT);
        expect(await body.locator('.md-href').textContent()).toBe(' (javascript:window.__pwned=3)');
        expect(await page.locator('.turn-message img, .turn-message script, .turn-message a, .turn-message [href], .turn-message [onerror]').count()).toBe(0);
        // Invisible characters are marked, never there themselves.
        expect(await body.locator('.invisible-char').allTextContents()).toEqual(['[U+202E]', '[U+200B]']);
        expect(text.includes('\u202e') || text.includes('\u200b')).toBe(false);
        // The time left, and what happens then, as a question's card says it.
        expect(await card.locator('.countdown').isVisible()).toBe(true);
        // Half an hour from its start; the minutes left, from that deadline, read just before and after
        // the page's text (a loaded machine takes minutes over the sizes and schemes before this one).
        expect(stop.view.expiresAt - stop.view.createdAt).toBe(30 * 60_000);
        const minutesLeft = () => Math.floor((stop.view.expiresAt - Date.now()) / 60_000);
        const [latest, countdown] = [minutesLeft(), await card.locator('.countdown-text').textContent()];
        const earliest = minutesLeft();
        expect(countdown).toMatch(/^in \d+:\d\d Claude stops, and its session waits at its prompt$/);
        const shownMinutes = Number(countdown!.match(/^in (\d+):/)![1]);
        expect(shownMinutes).toBeGreaterThanOrEqual(earliest);
        expect(shownMinutes).toBeLessThanOrEqual(latest);
        expect(await card.getByRole('textbox', { name: 'Reply to Claude' }).isVisible()).toBe(true);
        expect(await card.locator('.turn-limit').count()).toBe(0);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${size} ${colorScheme}`).toBeLessThanOrEqual(0);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: `${SHOTS}/turn-end-${size}-${colorScheme}.png`, fullPage: true, animations: 'disabled' });
        expect(await axeViolations(page), `${size} ${colorScheme}`).toEqual([]);
        expect(await pwned(page)).toBeUndefined();
      }
    }
    expect((await daemon.ask(stop.view.id)).status).toBe('pending');
  }, 240_000);

  it('marks a message that was cut, and shows a long one shortened until Show all', async () => {
    await setAway(daemon, true);
    const long = Array.from({ length: 4000 }, (_, index) => `Line ${index + 1}: the migration step went through without errors.`).join('\n');
    expect(long.length).toBeGreaterThan(100_000);
    const stop = await finishTurn(newSession(), long);
    expect(stop.view.turnEnd?.truncated).toBe(true);
    const page = await openPage({ viewport: PHONE, touch: true });
    const card = await openAsk(page, stop.view.id, 'tap');
    expect(await card.locator('.turn-cut').textContent()).toBe('cut');
    expect(await card.locator('.turn-cut-note').textContent()).toBe('Cut: only its first 100,000 characters are shown.');
    const body = card.locator('.turn-message');
    const toggle = card.getByRole('button', { name: 'Show all' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const shortHeight = await body.evaluate((element) => element.getBoundingClientRect().height);
    expect(shortHeight).toBeLessThan(PHONE.height);
    // The reply box is right under the shortened message.
    expect(await card.getByRole('textbox', { name: 'Reply to Claude' }).isVisible()).toBe(true);
    await toggle.tap();
    expect(await card.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
    expect(await body.evaluate((element) => element.getBoundingClientRect().height)).toBeGreaterThan(shortHeight * 10);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/turn-end-cut-phone.png`, animations: 'disabled' });
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it('Send reply gives Claude exactly the words, Done lets it stop, an empty reply is refused, Ctrl+Enter sends, and History says how each ended', async () => {
    await setAway(daemon, true);
    const page = await openPage();

    // An empty reply is refused in the page: nothing is sent, and the box says why.
    const first = await finishTurn(newSession(), 'I refactored the cart.');
    const card = await openAsk(page, first.view.id);
    const box = card.getByRole('textbox', { name: 'Reply to Claude' });
    await box.fill('   \n  ');
    await card.getByRole('button', { name: 'Send reply', exact: true }).click();
    expect(await card.locator('.turn-reply .q-error').textContent()).toBe('Write a reply first, or press Done to let Claude stop.');
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    expect(await box.evaluate((element) => element === document.activeElement)).toBe(true);
    expect((await daemon.ask(first.view.id)).status).toBe('pending');

    // A reply: the held Stop gets exactly the person's words, and the card says Replied with them.
    const words = 'Good. Now add tests for `total()`, <b>not</b> snapshots.\nThen run them.';
    await box.fill(words);
    expect(await card.locator('.turn-reply .q-error').isVisible()).toBe(false);
    await card.getByRole('button', { name: 'Send reply', exact: true }).click();
    expect(await continuationOf(first)).toBe(`${REPLY_PREFIX}${words}`);
    const replied = await finished(page, first.view.id, 'replied');
    expect(await replied.locator('.status-title').textContent()).toBe('Replied');
    expect(await replied.locator('.reply-words').textContent()).toBe(words);
    expect(await replied.locator('b').count()).toBe(0);
    expect((await daemon.ask(first.view.id)).reply).toBe(words);

    // Done: Claude stops. With words in the box, it is refused first: they would be lost unsent.
    const second = await finishTurn(newSession(), 'The build is green.');
    const secondCard = await openAsk(page, second.view.id);
    await secondCard.getByRole('textbox', { name: 'Reply to Claude' }).fill('one more thing');
    await secondCard.getByRole('button', { name: 'Done', exact: true }).click();
    expect(await secondCard.locator('.turn-reply .q-error').textContent()).toMatch(/^Done sends no reply/);
    expect((await daemon.ask(second.view.id)).status).toBe('pending');
    await secondCard.getByRole('textbox', { name: 'Reply to Claude' }).fill('');
    await secondCard.getByRole('button', { name: 'Done', exact: true }).click();
    expect(await continuationOf(second)).toBeNull();
    expect(await (await finished(page, second.view.id, 'done')).locator('.status-title').textContent()).toBe('Done: Claude stopped');

    // From the keyboard: r goes to the box; what is typed survives a reload; Ctrl+Enter sends it.
    const third = await finishTurn(newSession(), 'Shall I deploy?');
    const thirdCard = await openAsk(page, third.view.id);
    await thirdCard.locator('.turn-ask').focus();
    await page.keyboard.press('r');
    await page.keyboard.type('Not yet: wait for review.');
    await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('askbridge.draft.')).length)).toBe(1);
    await page.reload();
    const reloaded = await openAsk(page, third.view.id);
    const reloadedBox = reloaded.getByRole('textbox', { name: 'Reply to Claude' });
    expect(await reloadedBox.inputValue()).toBe('Not yet: wait for review.');
    await reloadedBox.focus();
    await page.keyboard.press('Control+Enter');
    expect(await continuationOf(third)).toBe(`${REPLY_PREFIX}Not yet: wait for review.`);
    // The last one left: focus goes to how it ended, and its draft is gone.
    await finished(page, third.view.id, 'replied');
    await expect.poll(() => page.evaluate(() => document.activeElement?.classList.contains('status-title'))).toBe(true);
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('askbridge.draft.')).length)).toBe(0);

    // Esc in the terminal: Claude Code closes the Stop request.
    const fourth = await finishTurn(newSession(), 'Working on it.');
    await openAsk(page, fourth.view.id);
    fourth.abort();
    expect(await (await finished(page, fourth.view.id, 'cancelled')).locator('.status-title').textContent()).toBe('Stopped in the terminal (Esc)');
    await page.locator('#finished-section').screenshot({ path: `${SHOTS}/turn-end-finished-desk.png`, animations: 'disabled' });

    await page.locator('#history-toggle').click();
    const entries = page.locator('#history-list .history-entry');
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(4);
    const outcomes = await page.locator('#history-list .history-turn .history-decision').allTextContents();
    expect(outcomes.slice(0, 4)).toEqual(['Turn end Stopped in the terminal (Esc)', 'Turn end Replied', 'Turn end Done: Claude stopped', 'Turn end Replied']);
    const repliedEntry = entries.filter({ hasText: 'I refactored the cart.' });
    expect(await repliedEntry.locator('.history-said').textContent()).toBe('Claude said: I refactored the cart.');
    expect(await repliedEntry.locator('.reply-words').textContent()).toBe(words);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/turn-end-history-desk.png`, animations: 'disabled' });
    expect(await axeViolations(page)).toEqual([]);
  }, 90_000);

  it('says when a reply is the last Claude Code takes in a row, and how the turn ended after it', async () => {
    await setAway(daemon, true);
    const page = await openPage();
    const session = newSession();
    const promptId = randomUUID();

    // Limit 2: the first reply is not the last.
    const first = await finishTurn(session, 'Step one is done.', { promptId, cap: '2' });
    expect(first.view.turnEnd).toMatchObject({ repliesInARow: 0, replyLimit: 2 });
    const firstCard = await openAsk(page, first.view.id);
    expect(await firstCard.locator('.turn-limit').count()).toBe(0);
    await firstCard.getByRole('textbox', { name: 'Reply to Claude' }).fill('Go on with step two.');
    await firstCard.getByRole('button', { name: 'Send reply', exact: true }).click();
    expect(await continuationOf(first)).toBe(`${REPLY_PREFIX}Go on with step two.`);

    // The same turn goes on and ends again: the next reply is the last.
    const second = await finishTurn(session, 'Step two is done.', { promptId, active: true, cap: '2' });
    expect(second.view.turnEnd).toMatchObject({ repliesInARow: 1, replyLimit: 2 });
    const secondCard = await openAsk(page, second.view.id);
    const limit = secondCard.locator('.turn-limit');
    expect(await limit.textContent()).toBe(
      'This is the last reply Claude Code takes in a row. It takes 2 replies in a row: after this one, when Claude next finishes, it stops instead of waiting here. CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in Claude Code’s environment raises the limit.',
    );
    const box = secondCard.getByRole('textbox', { name: 'Reply to Claude' });
    expect((await box.getAttribute('aria-describedby'))?.split(' ')).toContain(await limit.getAttribute('id'));
    await secondCard.screenshot({ path: `${SHOTS}/turn-end-last-reply-desk.png`, animations: 'disabled' });
    await box.fill('Finish with step three.');
    await secondCard.getByRole('button', { name: 'Send reply', exact: true }).click();
    expect(await continuationOf(second)).toBe(`${REPLY_PREFIX}Finish with step three.`);

    // The next end of that turn does not wait: Claude stops, and the page says why.
    const third = sendStop(daemon, stopPayload(session, 'Step three is done.', { promptId, active: true }), '2');
    held.push(third);
    expect(await continuationOf(third)).toBeNull();
    const limitCard = page.locator('#finished article[data-status="done"]').filter({ hasText: 'Step three is done.' });
    await limitCard.waitFor();
    expect(await limitCard.locator('.status-title').textContent()).toBe('Claude Code’s limit on replies in a row was reached: Claude stopped');
    expect(await limitCard.locator('.finished-detail').textContent()).toBe('It takes 2 in a row. CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in Claude Code’s environment raises the limit.');

    // A new turn of that session starts counting again.
    const fresh = await finishTurn(session, 'A new turn.', { cap: '2' });
    expect(fresh.view.turnEnd).toMatchObject({ repliesInARow: 0, replyLimit: 2 });
    expect(await (await openAsk(page, fresh.view.id)).locator('.turn-limit').count()).toBe(0);
  }, 60_000);

  it('a reply that arrives after the person typed in the terminal is refused with 409, and the page says so and keeps the words', async () => {
    await setAway(daemon, true);
    const page = await openPage();
    const session = newSession();
    const stop = await finishTurn(session, 'Which database?');
    const card = await openAsk(page, stop.view.id);
    await card.getByRole('textbox', { name: 'Reply to Claude' }).fill('PostgreSQL, please.');
    // The person types in the terminal while the page's reply is on its way.
    await page.route('**/api/sessions/*/reply', async (route) => {
      await submitPrompt(daemon, session, 'use sqlite');
      await waitUntil(async () => ((await daemon.ask(stop.view.id)).status === 'cancelled' ? true : undefined), 5000, 'the turn end to be settled by the terminal');
      await route.continue();
    });
    const reply = page.waitForResponse((response) => response.url().endsWith('/reply'));
    await card.getByRole('button', { name: 'Send reply', exact: true }).click();
    expect((await reply).status()).toBe(409);
    const late = await finished(page, stop.view.id, 'cancelled');
    expect(await late.locator('.status-title').textContent()).toBe('You typed in the terminal: your prompt went to Claude');
    expect(await late.locator('.finished-detail').textContent()).toBe('Your reply arrived after that, and was not sent.');
    expect(await late.locator('.unsent-words').textContent()).toBe('PostgreSQL, please.');
    // Claude Code got no block: the prompt typed in the terminal goes to Claude as the person's own.
    expect(await continuationOf(stop)).toBeNull();
    await page.unroute('**/api/sessions/*/reply');
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it('typing a reply near the deadline asks for more time; with nothing typed, the wait runs out and Claude stops', async () => {
    const short = await startDaemon({ config: { awaySeconds: 8 } });
    const stops: HeldStop[] = [];
    try {
      await setAway(short, true);
      const paired = await openPairedPage(browser, short, { viewport: DESK });
      contexts.push(paired);
      const { page } = paired;

      // The person types: the page asks for more time, and the card counts down from the new deadline.
      const typed = await endTurn(short, stopPayload(randomUUID(), 'Shall I go on?'));
      stops.push(typed);
      const card = await openAsk(page, typed.view.id);
      await card.getByRole('textbox', { name: 'Reply to Claude' }).pressSequentially('Yes, ');
      const extended = await waitUntil(async () => {
        const view = await short.ask(typed.view.id);
        return view.expiresAt > typed.view.expiresAt + 60_000 ? view : undefined;
      }, 5000, 'the turn end to get more time');
      expect(extended.status).toBe('pending');
      await expect.poll(() => card.locator('.countdown-text').textContent()).toMatch(/^in [12]:\d\d Claude stops/);
      await card.getByRole('textbox', { name: 'Reply to Claude' }).pressSequentially('go on.');
      await card.getByRole('button', { name: 'Send reply', exact: true }).click();
      expect(await continuationOf(typed)).toBe(`${REPLY_PREFIX}Yes, go on.`);

      // Nobody replies: at the deadline Claude stops, and the card says so.
      const untouched = await endTurn(short, stopPayload(randomUUID(), 'Anything else?'));
      stops.push(untouched);
      expect(await continuationOf(untouched)).toBeNull();
      expect(await (await finished(page, untouched.view.id, 'handed-to-terminal')).locator('.status-title').textContent()).toBe('No reply in time: Claude stopped');
    } finally {
      for (const stop of stops) stop.abort();
      await short.stop();
    }
  }, 60_000);

  it('promises no turn end where none reaches askbridge: the switch cannot be turned on, and names the one command that adds it', async () => {
    const unwired = await startDaemon();
    try {
      const paired = await openPairedPage(browser, unwired, { viewport: PHONE, touch: true });
      contexts.push(paired);
      const { page } = paired;
      const toggle = page.getByRole('switch', { name: 'Away' });
      const hint = page.locator('#away-hint');
      await expect.poll(() => hint.textContent()).toBe(`The end of a turn does not reach askbridge here. Nothing waits for your reply. To add it, run: node ${CLI_BIN} install --user`);
      // On a phone the top bar stays short: the rest folds under its first sentence, one tap away.
      const fix = hint.locator('.away-fix');
      expect(await fix.isVisible()).toBe(false);
      expect((await hint.boundingBox())!.height).toBeLessThan(50);
      await hint.getByText('The end of a turn does not reach askbridge here.').tap();
      expect(await fix.isVisible()).toBe(true);
      expect(await toggle.isEnabled()).toBe(false);
      await page.screenshot({ path: `${SHOTS}/turn-end-away-unwired-phone.png`, animations: 'disabled' });
      // Wired as it said: a page that connects again offers it, with its usual promise.
      expect((await runCli(['install', '--user'], unwired.env)).code).toBe(0);
      await waitUntil(async () => {
        await page.reload();
        await waitForLivePage(page);
        // Live: the daemon's away message came with the snapshot, and the hint says what it said.
        return (await toggle.isEnabled()) && (await hint.textContent()) === 'While away, when Claude finishes a turn it waits here for your reply.' ? true : undefined;
      }, 15_000, 'the switch to be offered once wired');
    } finally {
      await unwired.stop();
    }
  }, 60_000);

  it('a wait in the terminal is shown by its kind, answers nothing, counts nothing down, and leaves once the session moves on', async () => {
    // Claude Code's idle notification is a wait in the terminal only while the person is away.
    await setAway(daemon, true);
    const page = await openPage({ viewport: PHONE, touch: true });
    const kinds = [
      ['idle_prompt', 'Claude is waiting for your input\u200B', 'Claude waits for your next prompt in the terminal'],
      ['permission_prompt', 'Claude needs your permission to use Bash', 'A permission waits in the terminal'],
      ['elicitation_dialog', 'The github server asks for a token <img src=x onerror="window.__pwned=4">', 'An MCP server asks for input in the terminal'],
      ['something_new', 'Something else\u202E', 'Waiting for you in the terminal'],
    ] as const;
    const waits: Array<{ session: string; id: string; message: string; headline: string }> = [];
    for (const [kind, message, headline] of kinds) {
      const session = newSession();
      expect((await notifyWaiting(daemon, session, kind, message)).statusCode).toBe(200);
      const view = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === session && ask.terminalWait !== undefined), 10_000, `the ${kind} wait`);
      waits.push({ session, id: view.id, message, headline });
    }
    for (const wait of waits) {
      const row = page.locator(`[data-ask-id="${wait.id}"]`);
      await row.waitFor();
      expect(await row.locator('.item-text').textContent()).toBe(`Terminal ${wait.headline}`);
    }
    // No deadline in the inbox either: it lasts until the session moves on.
    expect(await page.locator('.group-left').allTextContents()).toEqual(['', '', '', '']);

    for (const wait of waits) {
      const back = page.locator('#back');
      if (await back.isVisible()) await back.tap();
      const card = await openAsk(page, wait.id, 'tap');
      expect(await card.locator('.turn-ask').textContent()).toBe(wait.headline);
      expect(await card.locator('.wait-message').textContent()).toBe(wait.message.replace('\u200B', '[U+200B]').replace('\u202E', '[U+202E]'));
      expect(await card.locator('button, textarea, input').count()).toBe(0);
      expect(await card.locator('.countdown').isVisible()).toBe(false);
      expect(await card.locator('img').count()).toBe(0);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/turn-end-terminal-wait-phone.png`, fullPage: true, animations: 'disabled' });
    expect(await axeViolations(page)).toEqual([]);
    expect(await pwned(page)).toBeUndefined();

    // The person types in each terminal: each card leaves, with no finished card and no history line.
    for (const wait of waits) {
      expect((await submitPrompt(daemon, wait.session)).statusCode).toBe(200);
      await page.locator(`[data-question-id="${wait.id}"]`).waitFor({ state: 'detached' });
      await page.locator(`[data-ask-id="${wait.id}"]`).waitFor({ state: 'detached' });
      expect((await daemon.ask(wait.id)).status).toBe('cancelled');
    }
    expect(await page.locator('#finished article').count()).toBe(0);
    expect(await page.locator('#empty').isVisible()).toBe(true);
    expect((await daemon.history()).filter((line) => waits.some((wait) => wait.id === line.id))).toEqual([]);
  }, 60_000);
});
