// The daemon and its keeper die (kill -9 of both) while a question waits and a person is typing its answer. It starts again
// on the same state directory and port: the page reconnects with what was typed still there, the
// hook re-attaches, and the one answer the person then gives is the one Claude gets.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';

const browserTests = chromiumAvailability().available ? describe : describe.skip;

browserTests('a daemon restart while a person is typing', () => {
  let browser: Browser;
  const daemons: Daemon[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    for (const daemon of daemons.reverse()) await daemon.stop();
  });

  it('keeps the question, the draft and the pairing, and delivers exactly the answer given after it', async () => {
    const first = await startDaemon({ config: { waitSeconds: 120 } });
    daemons.push(first);
    const payload = freshPayload('01-single-select', 'restart-draft');
    const hook = runHook(payload, first.env);
    const asked = await first.waitForAsk(payload.tool_use_id);
    const { page, context } = await openPairedPage(browser, first);
    const card = page.locator(`[data-question-id="${asked.id}"]`);
    const other = card.getByRole('textbox', { name: 'Other', exact: true });
    await other.fill('DuckDB, typed before the crash');

    await first.killOutright();
    const second = await startDaemon({ home: first.home, env: { ASKBRIDGE_PORT: String(first.port) }, config: { waitSeconds: 120 } });
    daemons.push(second);
    expect(second.port).toBe(first.port);

    // The page reconnects by itself (still paired: its key and cookie were kept) and the card is the same one.
    await page.locator('#conn-text', { hasText: 'Live' }).waitFor({ timeout: 15_000 });
    await second.waitForLog((entry) => entry.msg === 'question received' && entry.askId === asked.id, 10_000, 'the hook re-attaching');
    expect(await other.inputValue()).toBe('DuckDB, typed before the crash');
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const result = await hook.result;
    expect(result.code).toBe(0);
    const answers = JSON.parse(result.stdout).hookSpecificOutput.updatedInput.answers;
    expect(answers).toEqual({ [payload.tool_input.questions[0]!.question]: 'DuckDB, typed before the crash' });
    expect((await second.history()).filter((line) => line.id === asked.id)).toHaveLength(1);
    await context.close();
  });
});
