// A broken config edit shows on every open page at once (chokidar), and goes away when fixed; a
// trusted project file that sets keys only the user config may set shows a warning, and applies.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';

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

  // Two pages and four edits, each read once the file holds still: a loaded machine takes its time.
  it('appears on an open page when the user config turns invalid, and leaves when it is fixed', { timeout: 60_000 }, async () => {
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

browserTests('the configuration banner for a trusted project file with keys only the user config sets', () => {
  let daemon: Daemon;
  let browser: Browser;
  let project: string;
  beforeAll(async () => {
    daemon = await startDaemon({ config: { waitSeconds: 60 } });
    browser = await launchBrowser();
    project = await mkdtemp(join(tmpdir(), 'askbridge-project-'));
    await mkdir(join(project, '.claude'));
  });
  afterEach(killStrayProcesses);
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  // Four processes (trust, the pairing link, a hook, config) and a page.
  it('warns on the page and in askbridge config (exit 0), naming the keys and the file, while the rest of the file applies', { timeout: 60_000 }, async () => {
    const file = join(project, '.claude', 'askbridge.json');
    await writeFile(file, JSON.stringify({ waitSeconds: 42, notify: [{ url: 'https://theirs.example.test/hook' }], push: { fullText: true } }));
    const trusted = await runCli(['trust', project], daemon.env);
    expect(trusted.code, trusted.stderr).toBe(0);
    const { page, context } = await openPairedPage(browser, daemon);
    const banner = page.locator('#banner');

    // A question asked in the project gets the file's waitSeconds.
    const payload = freshPayload('01-single-select', 'user-only-keys');
    payload.cwd = project;
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect(question.expiresAt - question.createdAt).toBe(42_000);

    const warning = `${file}: notify, push are read from the user config only (${join(daemon.home, 'xdg-config', 'askbridge', 'config.json')}); here they are ignored, and the rest of the file applies`;
    await banner.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toBe(`Configuration warning: ${warning}`);
    await daemon.waitForLog((entry) => entry.msg === 'project config file sets keys only the user config may: they are ignored, the rest applies' && entry.path === file);

    const config = await runCli(['config', '--cwd', project], daemon.env);
    expect(config.code, config.stderr).toBe(0);
    expect(config.stderr).toBe(`warning: ${warning}\n`);
    expect(config.stdout).toContain('(as the running daemon applies it)');
    expect(config.stdout).toMatch(/waitSeconds\s+42\s+\(project\)/);

    // The file deleted: nothing of it applies, so the warning leaves.
    await rm(file);
    await banner.waitFor({ state: 'hidden', timeout: 10_000 });
    hook.child.kill('SIGTERM');
    await hook.result;
    await context.close();
  });

  it('leaves once the file is trusted again without those keys', { timeout: 60_000 }, async () => {
    const file = join(project, '.claude', 'askbridge.json');
    await writeFile(file, JSON.stringify({ waitSeconds: 43, push: { fullText: true } }));
    expect((await runCli(['trust', project], daemon.env)).code).toBe(0);
    const { page, context } = await openPairedPage(browser, daemon);
    // The daemon reads the project file for `askbridge config`, as for a question asked there.
    expect((await runCli(['config', '--cwd', project], daemon.env)).stderr).toContain('push is read from the user config only');
    await page.getByText('Configuration warning: ').waitFor({ timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toContain(`${file}: push is read from the user config only`);

    await writeFile(file, JSON.stringify({ waitSeconds: 43 }));
    expect((await runCli(['trust', project], daemon.env)).code).toBe(0);
    await page.locator('#banner').waitFor({ state: 'hidden', timeout: 10_000 });
    await context.close();
  });
});
