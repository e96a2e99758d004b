// Headless Chromium with the answer page paired, as a person opens it from the link askbridge prints.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, LaunchOptions, Locator, Page } from 'playwright-core';
import type { Daemon } from './daemon.js';
import { runCli, stopProcess } from './processes.js';
import { cannotRunHere } from './unavailable.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Whether the browser tests can run (without Chromium: skipped with a message, or an error in CI). */
export function chromiumAvailability(): { available: true } | { available: false; reason: string } {
  if (existsSync(CHROMIUM_PATH)) return { available: true };
  const reason = `Chromium not found at ${CHROMIUM_PATH} (install the Debian "chromium" package)`;
  cannotRunHere('the browser end-to-end tests', reason);
  return { available: false, reason };
}

/** Headless Chromium; `options` changes how it is launched (e.g. who handles Ctrl-C), `extraArgs` adds flags (e.g. a TLS front's). */
export function launchBrowser(options: LaunchOptions = {}, extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs], ...options });
}

/** A fresh one-time pairing link from `askbridge open --print`. */
export async function newPairingUrl(daemon: Daemon): Promise<string> {
  const result = await runCli(['open', '--print'], daemon.env);
  if (result.code !== 0) throw new Error(`askbridge open --print exited ${result.code}: ${result.stderr}`);
  const url = result.stdout.trim();
  if (!url.startsWith(daemon.url) || !url.includes('#pair=')) throw new Error(`askbridge open --print printed no pairing link: ${result.stdout}`);
  return url;
}

/** Waits until the page shows it is paired and has its first snapshot from the daemon's live feed. */
export async function waitForLivePage(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.locator('#conn[data-state="live"]').waitFor({ state: 'attached', timeout: timeoutMs });
}

export type PairedPage = { context: BrowserContext; page: Page; pairingUrl: string };

export type OpenPairedPageOptions = {
  /** Runs on the new page before it loads (to add routes, listeners or init scripts). */
  beforeNavigate?: (page: Page) => Promise<void>;
  /** The link to pair with (e.g. daemon.pairingUrl, printed at start); a fresh one from the CLI by default. */
  pairingUrl?: string;
  /** How long the page may take to go live; 10 s by default. */
  liveTimeoutMs?: number;
  /** The window's size; Playwright's 1280×720 by default. */
  viewport?: { width: number; height: number };
  /** A touch screen, as a phone's: taps work. */
  touch?: boolean;
};

/**
 * A new browser context (its own cookies) paired with a one-time link (a fresh one unless
 * `options.pairingUrl` gives one), with the page live.
 */
export async function openPairedPage(browser: Browser, daemon: Daemon, options: OpenPairedPageOptions = {}): Promise<PairedPage> {
  const context = await browser.newContext({ ...(options.viewport ? { viewport: options.viewport } : {}), ...(options.touch ? { hasTouch: true, isMobile: true } : {}) });
  try {
    return await openPairedPageIn(context, daemon, options);
  } catch (error) {
    await context.close();
    throw error;
  }
}

/** The same, in a context that exists already (a browser's own default one). */
export async function openPairedPageIn(context: BrowserContext, daemon: Daemon, options: OpenPairedPageOptions = {}): Promise<PairedPage> {
  const pairingUrl = options.pairingUrl ?? (await newPairingUrl(daemon));
  const page = await context.newPage();
  await options.beforeNavigate?.(page);
  await page.goto(pairingUrl);
  await waitForLivePage(page, options.liveTimeoutMs);
  return { context, page, pairingUrl };
}

export type WindowedBrowser = {
  /** Chromium's own default context: its pages are hidden when their window is. */
  context: BrowserContext;
  /** Minimizes the page's window; resolves once the page says it is hidden. */
  hide(page: Page): Promise<void>;
  /** Restores the page's window; resolves once the page says it is visible. */
  show(page: Page): Promise<void>;
  close(): Promise<void>;
};

/**
 * Headless Chromium whose pages are hidden and shown as a person's are: minimizing a window hides
 * its page (document.visibilityState, visibilitychange). Pages of a browser Playwright launches
 * never are, since Playwright emulates focus, which keeps every page as if on screen; so this
 * Chromium is started here and Playwright attaches to it with noDefaults, which leaves its default
 * context as it is.
 */
export async function launchWindowedBrowser(): Promise<WindowedBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'askbridge-chromium-'));
  // A hidden page still gets its share of the CPU and its timers on time, so a loaded machine cannot starve it.
  const args = ['--headless', ...CHROMIUM_ARGS, '--disable-renderer-backgrounding', '--disable-background-timer-throttling', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'];
  const child = spawn(CHROMIUM_PATH, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    await stopProcess(child, 5000);
    await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  try {
    const endpoint = await new Promise<string>((found, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`Chromium printed no DevTools endpoint within 15 s\n${stderr}`)), 15_000);
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          found(match[1]!);
        }
      });
      child.once('exit', (code) => fail(new Error(`Chromium exited (${code}) before it listened\n${stderr}`)));
    });
    const browser = await chromium.connectOverCDP(endpoint, { noDefaults: true, isLocal: true });
    const context = browser.contexts()[0]!;
    const windowState = async (page: Page, state: 'minimized' | 'normal', visibility: 'hidden' | 'visible') => {
      const session = await context.newCDPSession(page);
      const { windowId } = await session.send('Browser.getWindowForTarget');
      await session.send('Browser.setWindowBounds', { windowId, bounds: { windowState: state } });
      await session.detach();
      await page.waitForFunction((wanted) => document.visibilityState === wanted, visibility, { timeout: 5000 });
    };
    return {
      context,
      hide: (page) => windowState(page, 'minimized', 'hidden'),
      show: (page) => windowState(page, 'normal', 'visible'),
      async close() {
        await browser.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Brings a waiting question set into focus in the page, as a person does: a click (or a tap, on a
 * phone) on its row in the inbox, unless it is in focus already. Returns its card.
 */
export async function openAsk(page: Page, id: string, how: 'click' | 'tap' = 'click'): Promise<Locator> {
  const card = page.locator(`article[data-question-id="${id}"][data-status="pending"]`);
  const row = page.locator(`[data-ask-id="${id}"]`);
  await row.waitFor({ state: 'attached' });
  if (!(await card.isVisible())) await (how === 'tap' ? row.tap() : row.click());
  await card.waitFor({ state: 'visible' });
  return card;
}
