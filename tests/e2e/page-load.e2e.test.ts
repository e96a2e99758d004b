// What the answer page costs to open, in a real Chromium against the real daemon: its first load,
// as transferred (headers and bodies, compressed as the daemon serves them), stays small, and no
// file is fetched twice.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

/** What a first load may transfer at most, headers and bodies together. */
const FIRST_LOAD_MAX_BYTES = 100_000;

describe.skipIf(!chromiumState.available)('the first load of the answer page', () => {
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

  it('transfers at most 100 kB and fetches each file once, the browser’s own favicon fetch included', async () => {
    const fetched: Array<Promise<{ path: string; bytes: number }>> = [];
    const { page, context } = await openPairedPage(browser, daemon, {
      beforeNavigate: async (newPage) => {
        newPage.on('requestfinished', (request) =>
          fetched.push(request.sizes().then((size) => ({ path: new URL(request.url()).pathname, bytes: size.responseHeadersSize + size.responseBodySize }))),
        );
      },
    });
    try {
      await page.waitForLoadState('networkidle');
      const loaded = await Promise.all(fetched);
      const times = new Map<string, number>();
      for (const { path } of loaded) times.set(path, (times.get(path) ?? 0) + 1);
      expect.soft([...times].filter(([, count]) => count > 1)).toEqual([]);
      const total = loaded.reduce((sum, entry) => sum + entry.bytes, 0);
      expect(total, loaded.map((entry) => `${entry.path} ${entry.bytes} B`).join(', ')).toBeLessThanOrEqual(FIRST_LOAD_MAX_BYTES);
    } finally {
      await context.close();
    }
  });
});
