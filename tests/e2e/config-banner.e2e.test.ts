// A broken config edit shows on every open page at once (chokidar), and goes away when fixed.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';

const browserTests = chromiumAvailability().available ? describe : describe.skip;

browserTests('the configuration banner', () => {
  let daemon: Daemon;
  let browser: Browser;
  beforeAll(async () => {
    daemon = await startDaemon({ config: { waitSeconds: 60 } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('appears on an open page when the user config turns invalid, and leaves when it is fixed', async () => {
    const { page, context } = await openPairedPage(browser, daemon);
    const banner = page.locator('#banner');
    expect(await banner.isHidden()).toBe(true);
    const file = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');

    await writeFile(file, '{ "waitSeconds": "soon" }');
    await banner.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toMatch(/config\.json: waitSeconds: .*expected number/);
    await daemon.waitForLog((entry) => entry.msg === 'config file is invalid: keeping its last good version');

    const late = await openPairedPage(browser, daemon);
    await late.page.locator('#banner').waitFor({ state: 'visible', timeout: 5000 });

    await writeFile(file, '{ "waitSeconds": 30 }');
    await banner.waitFor({ state: 'hidden', timeout: 10_000 });

    // An editor that saves atomically: a new file renamed over the old one.
    await writeFile(`${file}.swp`, '{ "onTimeout": "never" }');
    await rename(`${file}.swp`, file);
    await banner.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toMatch(/config\.json: onTimeout/);
    await writeFile(`${file}.swp`, '{ "onTimeout": "recommended" }');
    await rename(`${file}.swp`, file);
    await banner.waitFor({ state: 'hidden', timeout: 10_000 });
    await late.context.close();
    await context.close();
  });
});

browserTests('the configuration banner on a new machine', () => {
  let daemon: Daemon;
  let browser: Browser;
  beforeAll(async () => {
    // No ~/.config/askbridge yet: the folder and the file are created after the daemon started.
    daemon = await startDaemon({ noConfigFolder: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('appears when a config file is created, broken, in a folder that did not exist, and leaves when it is fixed', async () => {
    const { page, context } = await openPairedPage(browser, daemon);
    const banner = page.locator('#banner');
    const folder = join(daemon.home, 'xdg-config', 'askbridge');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'config.json'), '{ "onTimeout": "sometimes" }');
    await banner.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toMatch(/config\.json: onTimeout/);
    await writeFile(join(folder, 'config.json'), '{ "onTimeout": "recommended" }');
    await banner.waitFor({ state: 'hidden', timeout: 10_000 });
    await context.close();
  });
});
