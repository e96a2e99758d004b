// Approvals in the page, in a real Chromium against the real daemon, asked for as Claude Code's
// PermissionRequest http hook asks: each tool's card shows its exact input (a command, a diff, a
// file, an address that is never a link, an MCP call, a plan as markdown), at a desk and on a phone,
// light and dark, with no violation axe-core finds; each button sends exactly its decision, which
// the hook receives; a double click or a key pressed twice decides one card, not the next; hostile
// input stays text; a card decided elsewhere leaves as a question does; History says how each ended.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, bashRuleSuggestion, decisionOf, type HeldPermission, permissionPayload, type PermissionSuggestion, requestPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { sleep } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();
const SHOTS = '/tmp/approval-shots';
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 360, height: 740 };
const FILE = '/home/alice/projects/shop/src/cart.ts';

/** Markup a prompt-injected model might put anywhere: if it ever became an element, it would set window.__pwned. */
const HOSTILE_HTML = '<img src=x onerror="window.__pwned=1">';

const PLAN = [
  '## Add quantities to the cart',
  '',
  '1. Add `quantity` to **Item**',
  '2. Update `total()` to multiply by it',
  '3. Tests:',
  '   - `cart.test.ts`',
  '',
  '```ts',
  'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);',
  '```',
  '',
  `Raw HTML stays text: ${HOSTILE_HTML} and [a link](https://evil.example/steal) is not followed.`,
].join('\n');

const WRITE_CONTENT = Array.from({ length: 120 }, (_, index) => `export const value${index + 1} = compute(${index + 1}); // ${HOSTILE_HTML}`).join('\n');

type Kind = {
  name: string;
  tool: string;
  input: Record<string, unknown>;
  suggestions?: PermissionSuggestion[];
  /** What the card must show of it (runs at every size and in both themes). */
  check(card: Locator, page: Page): Promise<void>;
};

/** The text a monospace block holds, exactly (its invisible characters are marked in it). */
const blockText = (locator: Locator) => locator.evaluate((element) => element.textContent ?? '');

const KINDS: Kind[] = [
  {
    name: 'bash',
    tool: 'Bash',
    input: { command: 'npm run migrate -- --env=staging && psql "$DATABASE_URL" -c "SELECT count(*) FROM orders"', description: 'Run the staging migrations, then count orders', timeout: 120000, run_in_background: true },
    suggestions: [bashRuleSuggestion('npm run migrate:*')],
    async check(card) {
      await expect.poll(() => card.locator('.tool-description').textContent()).toBe('Claude says: Run the staging migrations, then count orders');
      expect(await blockText(card.getByRole('figure', { name: 'Command' }).locator('pre'))).toBe(this.input.command);
      expect(await card.locator('.tool-field', { hasText: 'Timeout' }).locator('dd').textContent()).toBe('120000 ms (2 min)');
      expect(await card.locator('.tool-field', { hasText: 'Runs in the background' }).locator('dd').textContent()).toBe('yes');
      expect(await card.locator('.btn-suggestion').textContent()).toMatch(/^Always allow .*npm run migrate:\*/);
    },
  },
  {
    name: 'edit',
    tool: 'Edit',
    input: { file_path: FILE, old_string: 'export function total(items) {\n  let sum = 0;\n  return sum;\n}', new_string: 'export function total(items: Item[]): number {\n  let sum = 0;\n  for (const item of items) sum += item.price * item.quantity;\n  return sum;\n}', replace_all: true },
    async check(card) {
      expect(await card.locator('.tool-path').textContent()).toBe(FILE);
      expect(await card.locator('.diff del').allTextContents()).toEqual(['−export function total(items) {']);
      expect(await card.locator('.diff ins').allTextContents()).toEqual(['+export function total(items: Item[]): number {', '+  for (const item of items) sum += item.price * item.quantity;']);
      expect(await card.locator('.diff .diff-same').allTextContents()).toEqual(['   let sum = 0;', '   return sum;', ' }']);
      expect(await card.locator('.tool-field', { hasText: 'Replace' }).locator('dd').textContent()).toBe('every occurrence');
      // Red and green, told apart by more than colour: a sign, and <del>/<ins>.
      const [removed, added] = await Promise.all([card.locator('.diff del').first(), card.locator('.diff ins').first()].map((line) => line.evaluate((element) => getComputedStyle(element).backgroundColor)));
      expect(removed).not.toBe(added);
    },
  },
  {
    name: 'multiedit',
    tool: 'MultiEdit',
    input: { file_path: '/home/alice/projects/shop/README.md', edits: [{ old_string: '# Shop', new_string: '# Shop service' }, { old_string: 'npm start', new_string: 'npm run dev', replace_all: true }] },
    async check(card) {
      expect(await card.locator('.tool-path').textContent()).toBe('/home/alice/projects/shop/README.md');
      const figures = card.locator('figure:has(.diff)');
      expect(await figures.locator('figcaption').allTextContents()).toEqual(['Edit 1 of 2 · 1 line removed, 1 line added', 'Edit 2 of 2, every occurrence · 1 line removed, 1 line added']);
      expect(await figures.nth(0).locator('del').textContent()).toBe('−# Shop');
      expect(await figures.nth(0).locator('ins').textContent()).toBe('+# Shop service');
      expect(await figures.nth(1).locator('del').textContent()).toBe('−npm start');
      expect(await figures.nth(1).locator('ins').textContent()).toBe('+npm run dev');
    },
  },
  {
    name: 'write',
    tool: 'Write',
    input: { file_path: '/home/alice/projects/shop/src/generated.ts', content: WRITE_CONTENT },
    async check(card) {
      const figure = card.getByRole('figure', { name: /^Content/ });
      expect(await figure.locator('figcaption').textContent()).toBe(`Content · 120 lines, ${WRITE_CONTENT.length.toLocaleString('en')} characters`);
      const toggle = figure.getByRole('button', { name: 'Show all 120 lines' });
      // Collapsed: the first 40 lines, and it says how many are not shown.
      expect(await blockText(figure.locator('pre'))).toBe(WRITE_CONTENT.split('\n').slice(0, 40).join('\n'));
      expect(await figure.locator('.tool-hidden').textContent()).toBe('… 80 more lines not shown.');
      await toggle.click();
      expect(await blockText(figure.locator('pre'))).toBe(WRITE_CONTENT);
      expect(await figure.locator('.tool-hidden').isVisible()).toBe(false);
      await figure.getByRole('button', { name: 'Show less' }).click();
      expect(await figure.getByRole('button', { name: 'Show all 120 lines' }).getAttribute('aria-expanded')).toBe('false');
      // The markup in it is text: no element was made of it.
      expect(await card.locator('img').count()).toBe(0);
    },
  },
  {
    name: 'read',
    tool: 'Read',
    input: { file_path: '/etc/hosts', offset: 10, limit: 5 },
    async check(card) {
      expect(await card.locator('.tool-path').textContent()).toBe('/etc/hosts');
      expect(await card.locator('.tool-field', { hasText: 'From line' }).locator('dd').textContent()).toBe('10');
      expect(await card.locator('.tool-field', { hasText: 'Lines' }).locator('dd').textContent()).toBe('5');
    },
  },
  {
    name: 'webfetch',
    tool: 'WebFetch',
    // A Cyrillic а in the host name: the site line shows the name a browser would really go to.
    input: { url: 'https://exаmple.com/install?step=<b>1</b>', prompt: 'Find the install steps' },
    async check(card) {
      expect(await card.locator('.tool-url').textContent()).toBe('https://exаmple.com/install?step=<b>1</b>');
      expect(await card.locator('.tool-host code').textContent()).toBe('xn--exmple-4nf.com');
      expect(await card.locator('a, [href]').count()).toBe(0);
      expect(await card.locator('b').count()).toBe(0);
      expect(await card.locator('.tool-field', { hasText: 'What to look for' }).locator('dd').textContent()).toBe('Find the install steps');
    },
  },
  {
    name: 'mcp',
    tool: 'mcp__github__create_issue',
    input: { owner: 'alice', repo: 'shop', title: 'Totals are off by a cent', labels: ['bug'] },
    async check(card) {
      expect(await card.locator('.tool-field', { hasText: 'Server' }).locator('dd').textContent()).toBe('github');
      expect(await card.locator('.tool-field', { hasText: 'Tool' }).locator('dd').textContent()).toBe('create_issue');
      expect(await blockText(card.getByRole('figure', { name: 'Arguments' }).locator('pre'))).toBe(JSON.stringify(this.input, null, 2));
    },
  },
  {
    name: 'unknown',
    tool: 'Frobnicate',
    input: { level: 11, targets: ['a', 'b'], nested: { deep: true } },
    async check(card) {
      expect(await card.locator('.approval-action').textContent()).toBe('Claude wants to use a tool');
      expect(await card.locator('.tool-name').textContent()).toBe('Frobnicate');
      expect(await blockText(card.getByRole('figure', { name: 'Input' }).locator('pre'))).toBe(JSON.stringify(this.input, null, 2));
    },
  },
  {
    name: 'plan',
    tool: 'ExitPlanMode',
    input: { plan: PLAN },
    suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
    async check(card) {
      const body = card.locator('.plan-body');
      expect(await body.locator('.md-heading').textContent()).toBe('Add quantities to the cart');
      expect(await body.locator('ol > li').count()).toBe(3);
      expect(await body.locator('ol code').allTextContents()).toEqual(['quantity', 'total()', 'cart.test.ts']);
      expect(await body.locator('strong').textContent()).toBe('Item');
      expect(await body.locator('.md-code').textContent()).toContain('item.price * item.quantity');
      expect(await body.textContent()).toContain(HOSTILE_HTML);
      expect(await body.locator('img, a, [href]').count()).toBe(0);
      expect(await card.locator('.kind-badge').textContent()).toBe('Plan');
      expect(await card.getByRole('button', { name: 'Approve, I’ll approve edits manually' }).isVisible()).toBe(true);
    },
  },
];

describe.skipIf(!chromiumState.available)('approvals in the page', () => {
  let daemon: Daemon;
  let browser: Browser;
  const held: HeldPermission[] = [];
  const contexts: PairedPage[] = [];

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    daemon = await startDaemon({ config: { waitSeconds: 600 } });
    browser = await launchBrowser();
  });

  afterEach(async () => {
    for (const permission of held.splice(0)) permission.abort();
    for (const paired of contexts.splice(0)) await paired.context.close();
    await expect.poll(async () => (await daemon.pending()).length, { timeout: 10_000 }).toBe(0);
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  /** A paired page, closed after the test. */
  async function openPage(options: { viewport?: { width: number; height: number }; touch?: boolean } = {}): Promise<Page> {
    const paired = await openPairedPage(browser, daemon, { viewport: options.viewport ?? DESK, ...(options.touch ? { touch: true } : {}) });
    contexts.push(paired);
    return paired.page;
  }

  /** Claude Code asks for a permission, in a session of its own unless given one; it waits until decided or the test ends. */
  async function ask(tool: string, input: Record<string, unknown>, options: { suggestions?: PermissionSuggestion[]; session?: string } = {}): Promise<HeldPermission> {
    // A UUID, as Claude Code's: the inbox names a session by its first characters.
    const session = options.session ?? randomUUID();
    const permission = await requestPermission(daemon, permissionPayload(session, tool, input, options.suggestions ? { suggestions: options.suggestions } : {}));
    held.push(permission);
    return permission;
  }

  /** The approval's card in focus, from the inbox (on a phone, back to the list first). */
  async function show(page: Page, id: string, how: 'click' | 'tap' = 'click'): Promise<Locator> {
    const back = page.locator('#back');
    const card = page.locator(`article[data-question-id="${id}"][data-status="pending"]`);
    if (!(await card.isVisible()) && (await back.isVisible())) await (how === 'tap' ? back.tap() : back.click());
    return openAsk(page, id, how);
  }

  /** The card once it has left the inbox: its finished card, and the title that says how it ended. */
  async function finished(page: Page, id: string, status: string): Promise<string> {
    const card = page.locator(`article[data-question-id="${id}"][data-status="${status}"]`);
    await card.waitFor({ state: 'attached' });
    return (await card.locator('.status-title').textContent()) ?? '';
  }

  it("shows each tool's exact input at a desk and on a phone, light and dark, with no violation axe-core finds", async () => {
    await openPage();
    const asked = new Map<string, HeldPermission>();
    for (const kind of KINDS) asked.set(kind.name, await ask(kind.tool, kind.input, kind.suggestions ? { suggestions: kind.suggestions } : {}));

    for (const [size, viewport] of [
      ['desk', DESK],
      ['phone', PHONE],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const touch = size === 'phone';
        const page = await openPage({ viewport, touch });
        await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        // In the inbox, each approval wears its kind's badge and says what it asks for.
        for (const kind of KINDS) {
          const row = page.locator(`[data-ask-id="${asked.get(kind.name)!.view.id}"]`);
          expect(await row.locator('.kind-badge').textContent(), kind.name).toBe(kind.tool === 'ExitPlanMode' ? 'Plan' : 'Permission');
        }
        expect(await page.locator(`[data-ask-id="${asked.get('bash')!.view.id}"] .item-text`).textContent()).toBe(`Permission Bash: ${String(KINDS[0]!.input.command)}`);
        if (size === 'phone' && (await page.locator('#back').isVisible())) await page.locator('#back').tap();
        await page.screenshot({ path: `${SHOTS}/inbox-${size}-${colorScheme}.png`, fullPage: true, animations: 'disabled' });

        for (const kind of KINDS) {
          const card = await show(page, asked.get(kind.name)!.view.id, touch ? 'tap' : 'click');
          expect(await card.getAttribute('data-kind'), kind.name).toBe(kind.tool === 'ExitPlanMode' ? 'plan' : 'permission');
          await kind.check(card, page);
          // Nothing on the card is wider than the screen: long commands and paths wrap or scroll inside their block.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${kind.name} ${size}`).toBeLessThanOrEqual(0);
          // From the top: a full-page shot taken while scrolled draws the sticky top bar mid-page.
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: `${SHOTS}/${kind.name}-${size}-${colorScheme}.png`, fullPage: true, animations: 'disabled' });
          expect(await axeViolations(page), `${kind.name} ${size} ${colorScheme}`).toEqual([]);
        }
        expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      }
    }
  }, 400_000);

  it('sends exactly the decision of each button: allow once, a suggestion, deny with a message, deny and stop, the terminal', async () => {
    const page = await openPage();
    const suggestions = [bashRuleSuggestion('npm test:*'), { type: 'addDirectories', directories: ['/home/alice/projects/shared'], destination: 'session' }];
    const hookDecision = (decision: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

    // Allow once: Claude Code's call runs as it asked, with no rule added.
    const once = await ask('Bash', { command: 'npm test', description: 'Run the tests' }, { suggestions });
    await (await show(page, once.view.id)).getByRole('button', { name: 'Allow once', exact: true }).click();
    expect(await decisionOf(once)).toEqual(hookDecision({ behavior: 'allow' }));
    expect(await finished(page, once.view.id, 'allowed')).toBe('Allowed once');

    // The second suggestion: sent back to Claude Code exactly as it came.
    const always = await ask('Bash', { command: 'npm test -- --watch=false' }, { suggestions });
    const alwaysCard = await show(page, always.view.id);
    const labels = await alwaysCard.locator('.btn-suggestion').allTextContents();
    // In the daemon's words, the rule or folder between backticks shown as code.
    expect(labels).toEqual(always.view.approval!.suggestions.map((suggestion) => suggestion.label.replaceAll('`', '')));
    await alwaysCard.locator('.btn-suggestion').nth(1).click();
    expect(await decisionOf(always)).toEqual(hookDecision({ behavior: 'allow', updatedPermissions: [suggestions[1]] }));
    expect(await finished(page, always.view.id, 'allowed')).toBe(`Allowed: ${labels[1]}`);

    // Deny with a message: Claude reads the person's words.
    const denied = await ask('Bash', { command: 'npm run migrate -- --env=production' });
    const deniedCard = await show(page, denied.view.id);
    await deniedCard.getByRole('textbox', { name: 'Message for Claude (optional)' }).fill('  Use the staging database instead  ');
    await deniedCard.getByRole('button', { name: 'Deny', exact: true }).click();
    const deniedDecision = (await decisionOf(denied)) as { hookSpecificOutput: { decision: Record<string, unknown> } };
    expect(deniedDecision.hookSpecificOutput.decision).toMatchObject({ behavior: 'deny' });
    expect(deniedDecision.hookSpecificOutput.decision).not.toHaveProperty('interrupt');
    expect(String(deniedDecision.hookSpecificOutput.decision.message)).toContain('Use the staging database instead');
    expect((await daemon.ask(denied.view.id)).decision).toEqual({ behavior: 'deny', message: 'Use the staging database instead' });
    expect(await finished(page, denied.view.id, 'denied')).toBe('Denied');
    expect(await page.locator(`article[data-question-id="${denied.view.id}"] .answer-note`).textContent()).toBe('Message: Use the staging database instead');

    // Deny and stop: Claude's turn ends too. Claude Code would drop a message sent with it, so a typed
    // one is refused in the page, nothing is sent, and clearing it lets the stop through.
    const stopped = await ask('Bash', { command: 'rm -rf build' });
    const stoppedCard = await show(page, stopped.view.id);
    await stoppedCard.getByRole('textbox').fill('Not on main');
    await stoppedCard.getByRole('button', { name: 'Deny and stop', exact: true }).click();
    expect(await stoppedCard.locator('.approval-deny .q-error').textContent()).toMatch(/^Claude Code does not pass a message on when it stops Claude/);
    expect((await daemon.ask(stopped.view.id)).status).toBe('pending');
    await stoppedCard.getByRole('textbox').fill('');
    await stoppedCard.getByRole('button', { name: 'Deny and stop', exact: true }).click();
    const stoppedDecision = (await decisionOf(stopped)) as { hookSpecificOutput: { decision: Record<string, unknown> } };
    expect(stoppedDecision.hookSpecificOutput.decision).toMatchObject({ behavior: 'deny', interrupt: true });
    expect((await daemon.ask(stopped.view.id)).decision).toEqual({ behavior: 'deny', interrupt: true });
    expect(await finished(page, stopped.view.id, 'denied')).toBe('Denied and stopped');

    // Leave it to the terminal: no decision, Claude Code's own dialog decides.
    const left = await ask('Edit', { file_path: FILE, old_string: 'a', new_string: 'b' });
    await (await show(page, left.view.id)).getByRole('button', { name: 'Leave it to the terminal', exact: true }).click();
    expect(await decisionOf(left)).toBeNull();
    expect(await finished(page, left.view.id, 'handed-to-terminal')).toBe('Left to the terminal');
  }, 60_000);

  it('approves a plan, with a suggestion, or sends it back with feedback that must not be empty', async () => {
    const page = await openPage();
    const suggestions: PermissionSuggestion[] = [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }];
    const plan = (text: string) => ({ plan: text });
    let decideRequests = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/decide')) decideRequests++;
    });

    // Approve: the plan's input goes back, which is what approves it.
    const approved = await ask('ExitPlanMode', plan('## Step one\n\nDo it.'), { suggestions });
    await (await show(page, approved.view.id)).getByRole('button', { name: 'Approve, I’ll approve edits manually' }).click();
    expect(await decisionOf(approved)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: plan('## Step one\n\nDo it.') } } });
    expect(await finished(page, approved.view.id, 'allowed')).toBe('Plan approved');

    // Approve with the suggestion (a mode): the suggestion as it came.
    const withMode = await ask('ExitPlanMode', plan('## Step two'), { suggestions });
    const withModeCard = await show(page, withMode.view.id);
    await withModeCard.locator('.btn-suggestion').click();
    expect(await decisionOf(withMode)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: plan('## Step two'), updatedPermissions: suggestions } } });

    // Feedback: refused while empty (nothing is sent), then sent as the deny's message.
    const changed = await ask('ExitPlanMode', plan('## Step three'), { suggestions });
    const changedCard = await show(page, changed.view.id);
    const before = decideRequests;
    const feedback = changedCard.getByRole('textbox', { name: 'What should Claude change?' });
    await feedback.fill('   ');
    await changedCard.getByRole('button', { name: 'Tell Claude what to change' }).click();
    expect(await changedCard.locator('.approval-deny .q-error').textContent()).toMatch(/^Write what Claude should change first/);
    expect(await feedback.getAttribute('aria-invalid')).toBe('true');
    expect(await feedback.evaluate((element) => element === document.activeElement)).toBe(true);
    await sleep(300);
    expect(decideRequests).toBe(before);
    expect((await daemon.pending()).map((view) => view.id)).toContain(changed.view.id);
    await feedback.fill('Keep the old API and add a migration step first');
    expect(await changedCard.locator('.approval-deny .q-error').isVisible()).toBe(false);
    const sent = page.waitForRequest((request) => request.url().endsWith('/decide'));
    await changedCard.getByRole('button', { name: 'Tell Claude what to change' }).click();
    expect((await sent).postDataJSON()).toEqual({ behavior: 'deny', message: 'Keep the old API and add a migration step first' });
    const denied = (await decisionOf(changed)) as { hookSpecificOutput: { decision: Record<string, unknown> } };
    expect(denied.hookSpecificOutput.decision).toMatchObject({ behavior: 'deny' });
    expect(String(denied.hookSpecificOutput.decision.message)).toContain('Keep the old API and add a migration step first');
    expect(await finished(page, changed.view.id, 'denied')).toBe('Plan sent back with changes');
  }, 60_000);

  it('decides one card per double click or double key press, never the one that takes its place; keys and focus', async () => {
    const page = await openPage();
    let decides: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/decide')) decides.push(request.postDataJSON());
    });
    const session = randomUUID();
    const first = await ask('Bash', { command: 'npm run lint' }, { session });
    const second = await ask('Bash', { command: 'npm run build' }, { session, suggestions: [bashRuleSuggestion('npm run build:*')] });
    const third = await ask('Bash', { command: 'npm run deploy' }, { session });
    const fourth = await ask('Bash', { command: 'npm pack' }, { session, suggestions: [bashRuleSuggestion('npm pack:*'), bashRuleSuggestion('npm:*')] });

    // A double click on Allow once: the first card is allowed; the second, which takes its place under the pointer, is not.
    const firstCard = await show(page, first.view.id);
    const allowFirst = firstCard.getByRole('button', { name: 'Allow once', exact: true });
    const box = (await allowFirst.boundingBox())!;
    await allowFirst.dblclick();
    expect(await decisionOf(first)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const secondCard = page.locator(`article[data-question-id="${second.view.id}"][data-status="pending"]`);
    await secondCard.waitFor({ state: 'visible' });
    // Focus went with it: to what the second card asks (not to a button), so keys act on it.
    expect(await page.evaluate(() => document.activeElement?.closest('article')?.getAttribute('data-question-id'))).toBe(second.view.id);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('approval-ask'))).toBe(true);
    // A slow double click: its second click comes after the reply, when the second card is already there.
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await sleep(1000);
    expect(decides).toEqual([{ behavior: 'allow' }]);
    expect((await daemon.pending()).map((view) => view.id)).toContain(second.view.id);
    // Its buttons work again once the moment has passed.
    await expect.poll(() => secondCard.getByRole('button', { name: 'Allow once', exact: true }).isEnabled()).toBe(true);

    // `a` pressed twice, the second time once the third card has taken the second's place: only the second is allowed.
    decides = [];
    await page.keyboard.press('a');
    await page.keyboard.press('a');
    expect(await decisionOf(second)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const thirdCard = page.locator(`article[data-question-id="${third.view.id}"][data-status="pending"]`);
    await thirdCard.waitFor({ state: 'visible' });
    await page.keyboard.press('a');
    await page.keyboard.press('Enter');
    await sleep(1000);
    expect(decides).toEqual([{ behavior: 'allow' }]);
    expect((await daemon.pending()).map((view) => view.id)).toContain(third.view.id);

    // `d` goes to the message; Ctrl+Enter there denies with it.
    await page.keyboard.press('d');
    const message = thirdCard.getByRole('textbox', { name: 'Message for Claude (optional)' });
    expect(await message.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type('not on a Friday');
    expect(await message.inputValue()).toBe('not on a Friday');
    await page.keyboard.press('Control+Enter');
    // The hook's reply comes once the decision is made; only then is the view sure to carry it.
    expect(await decisionOf(third)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
    expect((await daemon.ask(third.view.id)).decision).toEqual({ behavior: 'deny', message: 'not on a Friday' });

    // A number key, as in Claude Code's dialog: 3 is the second suggestion.
    const fourthCard = page.locator(`article[data-question-id="${fourth.view.id}"][data-status="pending"]`);
    await fourthCard.waitFor({ state: 'visible' });
    // Keys decide once its buttons do: after the moment a card that took another's place holds them.
    await expect.poll(() => fourthCard.getByRole('button', { name: 'Allow once', exact: true }).isEnabled()).toBe(true);
    await fourthCard.locator('.approval-ask').focus();
    await page.keyboard.press('3');
    expect(await decisionOf(fourth)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedPermissions: [bashRuleSuggestion('npm:*')] } } });
    // The last one left: focus goes to how it ended.
    await page.locator(`article[data-question-id="${fourth.view.id}"][data-status="allowed"]`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.classList.contains('status-title'))).toBe(true);
  }, 60_000);

  it('keeps hostile input as text: escape sequences and bidi marked, HTML inert, a 100 KB command whole and scrollable', async () => {
    const page = await openPage({ viewport: PHONE, touch: true });

    const sneaky = await ask('Bash', { command: 'echo "\u001b[31mhello\u001b[0m" && mv notes\u202Etxt.exe /tmp', description: 'Print a \u202Egreeting' });
    const sneakyCard = await show(page, sneaky.view.id, 'tap');
    const command = sneakyCard.getByRole('figure', { name: 'Command' }).locator('pre');
    expect(await blockText(command)).toBe('echo "[U+001B][31mhello[U+001B][0m" && mv notes[U+202E]txt.exe /tmp');
    expect(await command.locator('.invisible-char').allTextContents()).toEqual(['[U+001B]', '[U+001B]', '[U+202E]']);
    expect(await sneakyCard.locator('.tool-description').textContent()).toBe('Claude says: Print a [U+202E]greeting');
    const shown = (await sneakyCard.textContent()) ?? '';
    expect(shown.includes('\u001b') || shown.includes('\u202e')).toBe(false);
    await page.screenshot({ path: `${SHOTS}/hostile-phone.png`, fullPage: true, animations: 'disabled' });

    // 100 KB in one command: all of it in the page, in a block that scrolls to its end.
    const words = [];
    for (let index = 0; words.join(' ').length < 100 * 1024; index++) words.push(`--flag-${index}=${'v'.repeat(index % 7)}`);
    const huge = `./deploy.sh ${words.join(' ')} END-OF-COMMAND`;
    expect(huge.length).toBeGreaterThan(100 * 1024);
    const big = await ask('Bash', { command: huge });
    const bigCard = await show(page, big.view.id, 'tap');
    const block = bigCard.getByRole('figure', { name: 'Command' }).locator('pre');
    expect(await blockText(block)).toBe(huge);
    const scrolled = await block.evaluate((element) => {
      const before = { scrollHeight: element.scrollHeight, clientHeight: element.clientHeight };
      element.scrollTop = element.scrollHeight;
      const text = element.lastChild as Text;
      const range = document.createRange();
      range.setStart(text, text.length - 'END-OF-COMMAND'.length);
      range.setEnd(text, text.length);
      const end = range.getBoundingClientRect();
      const box = element.getBoundingClientRect();
      return { ...before, scrollTop: element.scrollTop, endVisible: end.top >= box.top && end.bottom <= box.bottom + 1, boxHeight: box.height, viewport: window.innerHeight };
    });
    expect(scrolled.scrollHeight).toBeGreaterThan(scrolled.clientHeight * 10);
    expect(scrolled.scrollTop).toBeGreaterThan(0);
    expect(scrolled.endVisible).toBe(true);
    // The block fits the phone's screen, so the buttons are never more than a block away.
    expect(scrolled.boxHeight).toBeLessThan(scrolled.viewport * 0.7);
    expect(await bigCard.getByRole('button', { name: 'Allow once', exact: true }).isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/huge-command-phone.png`, animations: 'disabled' });

    // HTML in a file's content, in a field nobody expected, in an MCP tool's arguments: text, never an element.
    const html = await ask('Write', { file_path: '/tmp/x.html', content: `<p>hi</p>${HOSTILE_HTML}<script>window.__pwned=2</script>`, [HOSTILE_HTML]: HOSTILE_HTML });
    const htmlCard = await show(page, html.view.id, 'tap');
    expect(await blockText(htmlCard.getByRole('figure', { name: /^Content/ }).locator('pre'))).toBe(`<p>hi</p>${HOSTILE_HTML}<script>window.__pwned=2</script>`);
    expect(await htmlCard.locator('.tool-others dt').textContent()).toBe(HOSTILE_HTML);
    expect(await htmlCard.locator('img, script, p:text-is("hi")').count()).toBe(0);
    await sleep(200);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it('leaves when decided elsewhere or answered in the terminal, says who won a race, and History says how each ended', async () => {
    const page = await openPage();

    // Allowed from the CLI while the page shows it.
    const byCli = await ask('Bash', { command: 'npm run cli-allowed' });
    await show(page, byCli.view.id);
    expect((await daemon.api('POST', `/api/asks/${byCli.view.id}/decide`, { behavior: 'allow' })).status).toBe(200);
    expect(await finished(page, byCli.view.id, 'allowed')).toBe('Allowed once from the CLI');
    expect(await page.locator(`article[data-question-id="${byCli.view.id}"][data-status="pending"]`).count()).toBe(0);

    // Answered in the terminal: Claude Code closes its hook's request once its own dialog was answered.
    const inTerminal = await ask('Bash', { command: 'npm run terminal-allowed' });
    await show(page, inTerminal.view.id);
    inTerminal.abort();
    expect(await finished(page, inTerminal.view.id, 'cancelled')).toBe('Answered in the terminal');

    // A race: the CLI denies it while the page's allow is on its way; the page says who won.
    const raced = await ask('Bash', { command: 'npm run raced' });
    const racedCard = await show(page, raced.view.id);
    await page.route('**/api/asks/*/decide', async (route) => {
      expect((await daemon.api('POST', `/api/asks/${raced.view.id}/decide`, { behavior: 'deny', message: 'no' })).status).toBe(200);
      await route.continue();
    });
    const reply = page.waitForResponse((response) => response.url().endsWith('/decide'));
    await racedCard.getByRole('button', { name: 'Allow once', exact: true }).click();
    expect((await reply).status()).toBe(409);
    expect(await finished(page, raced.view.id, 'denied')).toBe('Already decided: denied from the CLI');
    expect(await page.locator(`article[data-question-id="${raced.view.id}"] .finished-detail`).textContent()).toBe('It was decided elsewhere before your choice arrived.');
    expect(((await decisionOf(raced)) as { hookSpecificOutput: { decision: { behavior: string } } }).hookSpecificOutput.decision.behavior).toBe('deny');
    await page.unroute('**/api/asks/*/decide');

    // Decided in this page: allowed once, and denied with a message.
    const mine = await ask('Read', { file_path: '/home/alice/projects/shop/package.json' });
    await (await show(page, mine.view.id)).getByRole('button', { name: 'Allow once', exact: true }).click();
    await decisionOf(mine);
    const refused = await ask('WebFetch', { url: 'https://example.com/x', prompt: 'read it' });
    const refusedCard = await show(page, refused.view.id);
    await refusedCard.getByRole('textbox', { name: 'Message for Claude (optional)' }).fill('not that site');
    await refusedCard.getByRole('button', { name: 'Deny', exact: true }).click();
    await decisionOf(refused);
    await page.locator('#finished-section').screenshot({ path: `${SHOTS}/finished-desk.png`, animations: 'disabled' });

    await page.locator('#history-toggle').click();
    const entries = page.locator('#history-list .history-entry');
    await expect.poll(() => entries.count()).toBeGreaterThanOrEqual(5);
    const lines = await page.locator('#history-list .history-decision').allTextContents();
    expect(lines).toEqual(
      expect.arrayContaining([
        'Permission Denied: WebFetch https://example.com/x',
        'Permission Allowed once: Read /home/alice/projects/shop/package.json',
        'Permission Denied: Bash npm run raced',
        'Permission Answered in the terminal: Bash npm run terminal-allowed',
        'Permission Allowed once: Bash npm run cli-allowed',
      ]),
    );
    const refusedEntry = entries.filter({ hasText: 'WebFetch https://example.com/x' });
    expect(await refusedEntry.locator('.answer-note').textContent()).toBe('Message: not that site');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/history-desk.png`, animations: 'disabled' });
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);
});
