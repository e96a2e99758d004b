// A paired page that is left for another page stops counting as someone watching, in a real headless
// Chromium with its back/forward cache on (as a person's is), against the real daemon and real hook
// processes: a question then goes back to the terminal at once instead of waiting for nobody, and
// going back brings the page in the cache up to date, counted again and showing what it missed.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { now, waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runHook, startCli } from '../stack/processes.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';

const chromiumState = chromiumAvailability();

/**
 * How soon a page that was left stops counting. The heartbeat could not do it (a page in the cache
 * answers pings), and would take 15 to 30 s where it could: this is the page saying it is gone.
 */
const LEFT_WITHIN_MS = 5000;

const NOBODY_REACHABLE = { kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' };

type AllowOutput = { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } };

describe.skipIf(!chromiumState.available)('a paired page that is left for another page', () => {
  let daemon: Daemon;
  /** Another site (another origin) to go to. */
  let elsewhere: Receiver;
  let browser: Browser;
  let main: PairedPage;
  /** When the paired page's document began: a page shown from the back/forward cache is that same document. */
  let loadedAt: number;
  /** Why Chromium did not show the page from its back/forward cache, when it did not. */
  const notCached: string[] = [];

  beforeAll(async () => {
    elsewhere = await startReceiver();
    daemon = await startDaemon({ defaults: true });
    // Playwright turns the back/forward cache off by default; a person's Chromium has it on.
    browser = await launchBrowser({ ignoreDefaultArgs: ['--disable-back-forward-cache'] });
    main = await openPairedPage(browser, daemon);
    const cdp = await main.context.newCDPSession(main.page);
    cdp.on('Page.backForwardCacheNotUsed', (event) => notCached.push(...event.notRestoredExplanations.map((explanation) => explanation.reason)));
    await cdp.send('Page.enable');
    loadedAt = await main.page.evaluate(() => performance.timeOrigin);
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
    await elsewhere?.close();
  });

  const watchers = async () => (await daemon.api<{ watchers: number }>('GET', '/api/status')).body.watchers;

  it('counts while paired; once left it stops at once, and a question from the hook goes back to the terminal at once', async () => {
    expect(await watchers()).toBe(1);
    await main.page.goto(`${elsewhere.origin}/another-site`);
    await waitUntil(async () => ((await watchers()) === 0 ? true : undefined), LEFT_WITHIN_MS, 'the page that was left to stop counting');

    const payload = freshPayload('01-single-select', 'page-left');
    const started = now();
    const result = await runHook(payload, daemon.env).result;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(now() - started).toBeLessThan(10_000); // not the five minutes of waitSeconds
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual(NOBODY_REACHABLE);
  });

  it('going back shows the page from the back/forward cache: it counts again and shows the question that came while it was away', async () => {
    const { page } = main;
    // A terminal watches meanwhile (askbridge listen), so that the next question waits for a person.
    const listen = startCli(['listen', '--json'], daemon.env);
    await daemon.waitForLog((entry) => entry.msg === 'watcher connected' && entry.client === 'local', 10_000, 'the listener to connect');
    expect(await watchers(), 'the page that was left still counts').toBe(1);
    const payload = freshPayload('01-single-select', 'page-missed');
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);

    await page.goBack({ waitUntil: 'commit' }); // a page shown from the cache fires no load event
    await waitUntil(async () => ((await watchers()) === 2 ? true : undefined), LEFT_WITHIN_MS, 'the page to count again');
    // The same document as before it was left, not a new one: Chromium kept it in its cache.
    expect(await page.evaluate(() => performance.timeOrigin), `not shown from the back/forward cache: ${notCached.join(', ')}`).toBe(loadedAt);

    const card = await openAsk(page, id);
    await card.getByRole('radio', { name: 'SQLite', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    const output = parseJson<AllowOutput>((await hook.result).stdout, 'hook stdout');
    expect(output.hookSpecificOutput.updatedInput.answers).toEqual({ [payload.tool_input.questions[0]!.question]: 'SQLite' });
    listen.child.kill('SIGTERM');
    await listen.result;
  });
});
