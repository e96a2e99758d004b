// The page at the sizes people use, in a real Chromium against the real daemon: a command or a rule
// the daemon names between backticks reads as code, not as backticks.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashRuleSuggestion, permissionPayload, requestPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

describe.skipIf(!chromiumState.available)('the page at desk and phone sizes', () => {
  let daemon: Daemon;
  let browser: Browser;

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
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
