// Review all, in a real Chromium against the real daemon, with permissions asked for as Claude Code's
// PermissionRequest http hook asks: three wait; the list shows each with its whole input as its card
// does; two ticked are allowed, one denied with a message, and each hook gets exactly its decision;
// one settled elsewhere while the list is open is shown settled and left out, never decided twice;
// a plan stays out of the list; a risky one is shown with its mark and reasons, and is never allowed
// from the list (it stays waiting, and the list says to open its card) while the others ticked are; it all works from the keyboard alone (Tab, Space, Enter), and with a
// thumb on a phone with nothing wider than the screen, light and dark.
import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { denialMessage } from '../../src/daemon/decisions/claude-code-permission.js';
import { axeViolations, decisionOf, type HeldPermission, permissionPayload, requestPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openPairedPage, type PairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';

const chromiumState = chromiumAvailability();
const SHOTS = '/tmp/review-all-shots';
const DESK = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const MESSAGE = 'Use the test database instead';
const FORCE_PUSH = 'npm test && git push --force origin main';
const RISK_REASON = "force-pushes: rewrites the remote's history";
const LEFT_OUT = 'One risky permission was not allowed: it needs its own confirmation and still waits; open its card to allow it.';

/** What Claude Code's http hook receives for a decision. */
const hookGets = (decision: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

let daemon: Daemon;
let browser: Browser;
beforeAll(async () => {
  daemon = await startDaemon();
  if (chromiumState.available) browser = await launchBrowser();
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

let sessions = 0;

/** Three permissions from three sessions: a test command, a file edit, a migration; each withdrawn if a test leaves it waiting. */
async function threePermissions(tag: string): Promise<[HeldPermission, HeldPermission, HeldPermission]> {
  const session = () => `s-review-${tag}-${++sessions}`;
  const payloads = [
    permissionPayload(session(), 'Bash', { command: 'npm test -- --run cart', description: 'Run the cart tests' }),
    permissionPayload(session(), 'Edit', { file_path: '/home/alice/projects/shop/src/cart.ts', old_string: 'let sum = 0;', new_string: 'let sum = 0; // <b>total</b>' }),
    permissionPayload(session(), 'Bash', { command: `psql "$DATABASE_URL" -c 'SELECT count(*) FROM orders' # ${'x'.repeat(300)}`, description: 'Count the orders' }),
  ];
  const held: HeldPermission[] = [];
  for (const payload of payloads) {
    const one = await requestPermission(daemon, payload);
    cleanups.push(async () => one.abort());
    held.push(one);
  }
  return held as [HeldPermission, HeldPermission, HeldPermission];
}

async function pagedOpen(options: { viewport?: { width: number; height: number }; touch?: boolean } = {}): Promise<PairedPage> {
  const paired = await openPairedPage(browser, daemon, { viewport: options.viewport ?? DESK, ...(options.touch ? { touch: true } : {}) });
  cleanups.push(() => paired.context.close());
  return paired;
}

const itemOf = (page: Page, held: HeldPermission) => page.locator(`#review .review-item[data-question-id="${held.view.id}"]`);

describe.skipIf(!chromiumState.available)('Review all on the page', () => {
  it('allows the two ticked and denies the third with one message: each hook gets exactly its decision; a plan stays out', async () => {
    const [tests, edit, drop] = await threePermissions('mouse');
    const plan = await requestPermission(daemon, permissionPayload(`s-review-plan-${++sessions}`, 'ExitPlanMode', { plan: '# Add quantities' }, { permissionMode: 'plan' }));
    cleanups.push(async () => plan.abort());
    const { page } = await pagedOpen();

    const button = page.locator('#review-all');
    await expect.poll(() => button.textContent()).toBe('Review all 3 permissions');
    await button.click();
    const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
    await dialog.waitFor({ state: 'visible' });
    // Each with its whole input, as its card shows it: the command whole, the edit as a diff; the plan is not there.
    await expect.poll(() => dialog.locator('.review-item').count()).toBe(3);
    expect(await itemOf(page, drop).getByRole('figure', { name: 'Command' }).locator('pre').textContent()).toBe(drop.view.approval!.toolInput.command);
    expect(await itemOf(page, edit).locator('.diff ins').allTextContents()).toEqual(['+let sum = 0; // <b>total</b>']);
    expect(await page.evaluate(() => document.querySelectorAll('#review b').length)).toBe(0);
    expect(await dialog.locator(`[data-question-id="${plan.view.id}"]`).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // Nothing ticked: nothing sent, and it says so.
    await dialog.getByRole('button', { name: 'Allow selected' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('Tick the permissions to allow first.');

    await dialog.getByRole('checkbox', { name: /run a command Bash/ }).first().check();
    await itemOf(page, edit).getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Allow 2 selected' }).click();
    await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe('2 allowed.');
    expect(await decisionOf(tests)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(edit)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await itemOf(page, tests).getAttribute('data-status')).toBe('decided');
    expect(await itemOf(page, tests).getByRole('checkbox').isDisabled()).toBe(true);
    expect(await itemOf(page, tests).locator('.review-state').textContent()).toBe('Allowed once');
    expect(await daemon.ask(drop.view.id)).toMatchObject({ status: 'pending' });

    await itemOf(page, drop).getByRole('checkbox').check();
    await dialog.getByLabel('Message for each one denied (optional)').fill(MESSAGE);
    await dialog.getByRole('button', { name: 'Deny 1 selected' }).click();
    await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe('1 denied.');
    expect(await decisionOf(drop)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, MESSAGE) }));
    expect(await daemon.ask(plan.view.id)).toMatchObject({ status: 'pending' });

    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // One permission (and the plan) left: nothing to review all at once.
    expect(await button.isHidden()).toBe(true);
  });

  it('one settled elsewhere while the list is open is shown settled, unticked, and left out: it is never decided twice', async () => {
    const [first, second, third] = await threePermissions('elsewhere');
    const { page } = await pagedOpen();
    await page.locator('#review-all').click();
    const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
    await dialog.getByRole('button', { name: 'Select all' }).click();
    await expect.poll(() => dialog.getByRole('button', { name: 'Allow 3 selected' }).count()).toBe(1);

    const elsewhere = await runCli(['answer', second.view.id, '--deny'], daemon.env);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    await expect.poll(() => itemOf(page, second).getAttribute('data-status')).toBe('settled-elsewhere');
    expect(await itemOf(page, second).locator('.review-state').textContent()).toBe('Already settled: Denied from the CLI. Left out.');
    expect(await itemOf(page, second).getByRole('checkbox').isChecked()).toBe(false);

    await dialog.getByRole('button', { name: 'Allow 2 selected' }).click();
    await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe('2 allowed.');
    expect(await decisionOf(first)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(third)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(second)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Edit' }, undefined) }));
    expect((await daemon.ask(second.view.id)).source).toMatchObject({ kind: 'person', client: 'cli' });
  });

  it('one settled elsewhere just before the list sends is refused by the daemon and reported, not decided again', async () => {
    const [first, second] = await threePermissions('race');
    const { page } = await pagedOpen();
    await page.locator('#review-all').click();
    const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
    await itemOf(page, first).getByRole('checkbox').check();
    await itemOf(page, second).getByRole('checkbox').check();
    // While the list's first decision is on its way, the second is settled from the CLI: the list has
    // sent nothing for it yet, and its own decision for it comes second.
    await page.route('**/api/asks/*/decide', async (route) => {
      if (route.request().url().includes(first.view.id)) {
        const elsewhere = await runCli(['answer', second.view.id, '--deny', '--message', 'No'], daemon.env);
        expect(elsewhere.code, elsewhere.stderr).toBe(0);
      }
      await route.continue();
    });
    await dialog.getByRole('button', { name: 'Allow 2 selected' }).click();
    await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe('1 allowed. 1 already settled elsewhere, left out: Edit: /home/alice/projects/shop/src/cart.ts.');
    expect(await decisionOf(first)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(second)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Edit' }, 'No') }));
    await expect.poll(() => itemOf(page, second).getAttribute('data-status')).toBe('settled-elsewhere');
  });

  it('a risky one shows its mark and reasons, and is never allowed from the list: it stays waiting, the list says to open its card, the others ticked are allowed', async () => {
    const [tests, edit, drop] = await threePermissions('risky');
    const risky = await requestPermission(daemon, permissionPayload(`s-review-risky-${++sessions}`, 'Bash', { command: FORCE_PUSH, description: 'Ship it' }));
    cleanups.push(async () => risky.abort());
    const { page } = await pagedOpen();
    const button = page.locator('#review-all');
    await expect.poll(() => button.textContent()).toBe('Review all 4 permissions');
    await button.click();
    const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
    await dialog.waitFor({ state: 'visible' });
    const riskyItem = itemOf(page, risky);
    expect(await riskyItem.locator('.risk-mark .risk-reasons li').allTextContents()).toEqual([RISK_REASON]);
    expect(await riskyItem.locator('.review-alone').textContent()).toBe(`Allow it on its own card: ${RISK_REASON}. It may be denied here.`);
    expect(await itemOf(page, tests).locator('.risk-mark').count()).toBe(0);

    // Ticked alone: nothing is sent, and the list says where it is allowed.
    await riskyItem.getByRole('checkbox').check();
    // Allow counts only what it can allow.
    await dialog.getByRole('button', { name: 'Allow selected', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe(LEFT_OUT);
    expect((await daemon.ask(risky.view.id)).status).toBe('pending');

    // Every one ticked: the three others are allowed, the risky one left out, waiting and unticked.
    await dialog.getByRole('button', { name: 'Select all' }).click();
    expect(await dialog.getByRole('button', { name: 'Deny 4 selected' }).count()).toBe(1);
    await dialog.getByRole('button', { name: 'Allow 3 selected' }).click();
    await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe(`3 allowed. ${LEFT_OUT}`);
    for (const each of [tests, edit, drop]) expect(await decisionOf(each)).toEqual(hookGets({ behavior: 'allow' }));
    expect((await daemon.ask(risky.view.id)).status).toBe('pending');
    expect(await riskyItem.getAttribute('data-status')).toBe('waiting');
    expect(await riskyItem.getByRole('checkbox').isChecked()).toBe(false);
    expect(await riskyItem.locator('.review-state').textContent()).toBe('Not allowed here: still waiting. Open its card to allow it.');
  });

  it('works from the keyboard alone: Tab to it, Space ticks, Enter allows', async () => {
    const [first, second, third] = await threePermissions('keys');
    const { page } = await pagedOpen();
    await expect.poll(() => page.locator('#review-all').isVisible()).toBe(true);
    // From the top of the page, Tab until Review all has focus.
    await page.locator('body').focus();
    for (let presses = 0; presses < 40 && !(await page.locator('#review-all').evaluate((element) => element === document.activeElement)); presses++) await page.keyboard.press('Tab');
    expect(await page.locator('#review-all').evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
    await dialog.waitFor({ state: 'visible' });
    // The first in the list has focus: Space ticks it.
    expect(await itemOf(page, first).getByRole('checkbox').evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    // Tab on to the third's box (past what the second holds), Space ticks it.
    const thirdBox = itemOf(page, third).getByRole('checkbox');
    for (let presses = 0; presses < 30 && !(await thirdBox.evaluate((element) => element === document.activeElement)); presses++) await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    const allow = dialog.getByRole('button', { name: 'Allow 2 selected' });
    for (let presses = 0; presses < 30 && !(await allow.evaluate((element) => element === document.activeElement)); presses++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe('2 allowed.');
    expect(await decisionOf(first)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(third)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await daemon.ask(second.view.id)).toMatchObject({ status: 'pending' });
    // Esc closes the list; the page's own keys do nothing while it is open.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`on a phone (390×844, touch), ${colorScheme}: nothing is wider than the screen, and taps decide`, async () => {
      const [first, second, third] = await threePermissions(`phone-${colorScheme}`);
      const { page } = await pagedOpen({ viewport: PHONE, touch: true });
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      await page.locator('#review-all').tap();
      const dialog = page.getByRole('dialog', { name: 'Review all waiting permissions' });
      await dialog.waitFor({ state: 'visible' });
      const overflow = await page.evaluate(() => {
        const review = document.getElementById('review') as HTMLElement;
        return { page: document.documentElement.scrollWidth - document.documentElement.clientWidth, dialog: review.scrollWidth - review.clientWidth, width: review.getBoundingClientRect().width };
      });
      expect(overflow).toEqual({ page: 0, dialog: 0, width: PHONE.width });
      await page.screenshot({ path: `${SHOTS}/phone-${colorScheme}.png`, animations: 'disabled' });
      await itemOf(page, first).locator('.review-pick').tap();
      await itemOf(page, third).locator('.review-pick').tap();
      await dialog.getByRole('button', { name: 'Deny 2 selected' }).tap();
      await expect.poll(() => dialog.locator('.review-summary').textContent()).toBe('2 denied.');
      expect(await decisionOf(first)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, undefined) }));
      expect(await decisionOf(third)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, undefined) }));
      expect(await daemon.ask(second.view.id)).toMatchObject({ status: 'pending' });
      await page.screenshot({ path: `${SHOTS}/phone-${colorScheme}-decided.png`, animations: 'disabled' });
    });

    it(`at a desk (1280×900), ${colorScheme}: the list is readable and fits`, async () => {
      await threePermissions(`desk-${colorScheme}`);
      const { page } = await pagedOpen();
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      await page.locator('#review-all').click();
      await page.getByRole('dialog', { name: 'Review all waiting permissions' }).waitFor({ state: 'visible' });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/desk-${colorScheme}.png`, animations: 'disabled' });
    });
  }
});
