// The page telling a person that a question waits, in a real Chromium against the real daemon and
// hook: the title's count and the favicon's badge, a system notification while the page is hidden
// (and only for a question that still waits), the page telling the daemon whether it is in view,
// /#question=ID, the remembered sound switch, the service worker showing a push with the payload
// the daemon makes, and the installable app: manifest, icons and service worker served as they must
// be, under the CSP. The page is hidden for real, by minimizing its window (launchWindowedBrowser
// says why Playwright's own browser cannot).
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { chromiumAvailability, launchBrowser, launchWindowedBrowser, openAsk, openPairedPage, openPairedPageIn, type WindowedBrowser } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { noticeOf } from '../../src/daemon/notice.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook, type RunningProcess } from '../stack/processes.js';

const chromiumState = chromiumAvailability();
const SCREENSHOTS = { desktop: '/tmp/askbridge-notify-desktop.png', phone: '/tmp/askbridge-notify-phone.png', phoneMenu: '/tmp/askbridge-notify-phone-menu.png' };

let daemon: Daemon;
let runs = 0;

beforeAll(async () => {
  if (!chromiumState.available) return;
  // A rule answers "Instant" questions the moment they are asked: those never wait for anyone.
  daemon = await startDaemon({ config: { waitSeconds: 120, rules: [{ header: 'Instant', choose: 'Yes', when: 'immediately' }] } });
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
});

/** A question from the command hook, pending (unless a rule settles it at once). */
async function ask(change: (payload: HookPayload) => void = () => {}): Promise<{ hook: RunningProcess; id: string; payload: HookPayload }> {
  const payload = freshPayload('01-single-select', `notify${++runs}`);
  change(payload);
  const hook = runHook(payload, daemon.env);
  const { id } = await waitUntil(async () => (await daemon.api<{ asks: Array<{ id: string; toolUseId: string }> }>('GET', '/api/asks')).body.asks.find((ask) => ask.toolUseId === payload.tool_use_id), 10_000, 'the question to wait');
  return { hook, id, payload };
}

async function answer(id: string, hook: RunningProcess): Promise<void> {
  const answered = await runCli(['answer', id, '--pick', '1=SQLite'], daemon.env);
  expect(answered.code, answered.stderr).toBe(0);
  await hook.result;
}

type Shown = { title: string; body: string; tag: string };

/** The system notifications this page's origin shows now; asked only once none is on its way (see recordNotifications). */
function shownNotifications(page: Page): Promise<Shown[]> {
  return page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map(({ title, body, tag }) => ({ title, body, tag })));
}

/**
 * Records what a page asks of the Notifications API, passing every call on: each notification
 * shown (once Chromium has taken it) and each one closed. Asking Chromium for its notifications
 * (getNotifications) while it is still putting one on screen can make it drop that one: it
 * forgets those it does not show yet, and headless Chromium sometimes shows one a moment after
 * showNotification resolves. So the tests watch the calls, and ask Chromium only when all is still.
 */
async function recordNotifications(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const log = { shown: [] as Shown[], closed: [] as string[] };
    Object.assign(window, { notificationLog: log });
    const show = ServiceWorkerRegistration.prototype.showNotification;
    ServiceWorkerRegistration.prototype.showNotification = async function (title, options) {
      await show.call(this, title, options);
      log.shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
    };
    const close = Notification.prototype.close;
    Notification.prototype.close = function () {
      log.closed.push(this.tag);
      close.call(this);
    };
  });
}

const notificationLog = (page: Page) => page.evaluate(() => (window as unknown as { notificationLog: { shown: Shown[]; closed: string[] } }).notificationLog);

const visiblePages = async () => (await daemon.api<{ visiblePages: number }>('GET', '/api/status')).body.visiblePages;

describe.skipIf(!chromiumState.available)('the page, hidden and shown as a person’s', () => {
  let windowed: WindowedBrowser;
  let page: Page;
  const consoleProblems: string[] = [];

  beforeAll(async () => {
    windowed = await launchWindowedBrowser();
    await windowed.context.grantPermissions(['notifications'], { origin: new URL(daemon.url).origin });
    ({ page } = await openPairedPageIn(windowed.context, daemon, {
      beforeNavigate: async (newPage) => {
        newPage.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning') consoleProblems.push(message.text());
        });
        await recordNotifications(newPage);
      },
    }));
    await page.evaluate(() => navigator.serviceWorker.ready);
  });
  afterAll(async () => {
    await windowed?.close();
  });

  it('registers the service worker for the whole page, with nothing refused by the CSP, and is installable', async () => {
    const worker = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return { scope: registration.scope, script: registration.active?.scriptURL };
    });
    expect(worker).toEqual({ scope: daemon.url, script: `${daemon.url}sw.js` });
    const session = await windowed.context.newCDPSession(page);
    const manifest = await session.send('Page.getAppManifest');
    expect(manifest.errors).toEqual([]);
    expect(manifest.url).toBe(`${daemon.url}manifest.webmanifest`);
    const { installabilityErrors } = await session.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
    await session.detach();
    expect(consoleProblems.filter((text) => /Content Security Policy|Trusted ?Type|Refused/i.test(text))).toEqual([]);
  });

  it('tells the daemon whether it is in view', async () => {
    await waitUntil(async () => ((await visiblePages()) === 1 ? true : undefined), 5000, 'the page to say it is in view');
    await windowed.hide(page);
    await waitUntil(async () => ((await visiblePages()) === 0 ? true : undefined), 5000, 'the page to say it is hidden');
    await windowed.show(page);
    await waitUntil(async () => ((await visiblePages()) === 1 ? true : undefined), 5000, 'the page to say it is in view again');
  });

  it('counts the waiting questions in the title and badges the favicon', async () => {
    const icon = () => page.locator('link[rel="icon"]').getAttribute('href');
    expect(await page.title()).toBe('askbridge');
    expect(await icon()).toBe('/favicon.svg');
    const first = await ask();
    const second = await ask();
    await expect.poll(() => page.title()).toBe('(2) askbridge');
    expect(await icon()).toBe('/favicon-waiting.svg');
    await answer(first.id, first.hook);
    await expect.poll(() => page.title()).toBe('(1) askbridge');
    second.hook.child.kill('SIGTERM');
    await second.hook.result;
    await expect.poll(() => page.title()).toBe('askbridge');
    expect(await icon()).toBe('/favicon.svg');
  });

  it('notifies while hidden once its switch is on, only of questions that still wait, and closes a notification when its question ends', async () => {
    // Nothing is shown while notifications are off, even hidden.
    await windowed.hide(page);
    const before = await ask();
    // Hidden, the page cannot be clicked; its inbox has the question all the same.
    await page.locator(`[data-ask-id="${before.id}"]`).waitFor({ state: 'attached' });
    await answer(before.id, before.hook);
    await windowed.show(page);

    await page.locator('#alerts summary').click();
    const switchButton = page.getByRole('switch', { name: 'Notifications' });
    expect(await switchButton.getAttribute('aria-checked')).toBe('false');
    await switchButton.click();
    await expect.poll(() => switchButton.getAttribute('aria-checked')).toBe('true');
    await page.locator('#alerts summary').click();

    // Asked while the page is in view: the person sees it, no notification.
    const seen = await ask();
    await openAsk(page, seen.id);

    await windowed.hide(page);
    // A rule answers this one at once: it never waits, so it is never notified.
    const instant = freshPayload('01-single-select', `instant${++runs}`);
    instant.tool_input.questions[0]!.header = 'Instant';
    instant.tool_input.questions[0]!.options[1]!.label = 'Yes';
    expect((await runHook(instant, daemon.env).result).stdout).toContain('"Yes"');
    const withdrawn = await ask((payload) => (payload.tool_input.questions[0]!.header = 'Schema\u202E'));
    const tag = `askbridge-${withdrawn.id}`;
    // Shown in the order asked: had the page notified of any question before this one, it would be listed first.
    await expect.poll(async () => (await notificationLog(page)).shown).toEqual([{ title: 'Question from acme-shop', body: 'Schema[U+202E]', tag }]);

    withdrawn.hook.child.kill('SIGKILL');
    await expect.poll(async () => (await notificationLog(page)).closed).toContain(tag);

    const answered = await ask();
    await expect.poll(async () => (await notificationLog(page)).shown.map((shown) => shown.tag)).toEqual([tag, `askbridge-${answered.id}`]);
    await answer(answered.id, answered.hook);
    await expect.poll(async () => (await notificationLog(page)).closed).toContain(`askbridge-${answered.id}`);

    await windowed.show(page);
    await answer(seen.id, seen.hook);
    // All is still now: Chromium shows nothing of this page's any more.
    expect(await shownNotifications(page)).toEqual([]);
  });

  it('opens on the question of /#question=ID: scrolled to, its title focused, and the address cleaned', async () => {
    const questions = [await ask(), await ask(), await ask()];
    const target = questions[0]!.id;
    const other = await windowed.context.newPage();
    await other.setViewportSize({ width: 800, height: 500 });
    await other.goto(`${daemon.url}#question=${target}`);
    await expect.poll(() => other.evaluate(() => document.activeElement?.closest('article')?.getAttribute('data-question-id') ?? null)).toBe(target);
    expect(other.url()).toBe(daemon.url);
    const card = other.locator(`article[data-question-id="${target}"]`);
    expect(await card.evaluate((element) => element.classList.contains('is-called'))).toBe(true);
    const box = await card.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(500);
    await other.close();
    for (const { id, hook } of questions) await answer(id, hook);
  });
});

describe.skipIf(!chromiumState.available)('the page at a desk and on a phone', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('asks for permission to notify only when its switch is clicked, not when a question arrives', async () => {
    const { context, page } = await openPairedPage(browser, daemon, {
      // Counts the page's calls, and makes each one as the page made it.
      beforeNavigate: async (newPage) => {
        await newPage.addInitScript(() => {
          const asked = { count: 0 };
          const request = Notification.requestPermission.bind(Notification);
          Object.assign(window, { asked });
          Notification.requestPermission = (...args) => {
            asked.count++;
            return request(...args);
          };
        });
      },
    });
    const asked = () => page.evaluate(() => (window as unknown as { asked: { count: number } }).asked.count);
    const question = await ask();
    await openAsk(page, question.id);
    expect(await asked()).toBe(0);
    await page.locator('#alerts summary').click();
    await page.getByRole('switch', { name: 'Notifications' }).click();
    await expect.poll(asked).toBe(1);
    await answer(question.id, question.hook);
    await context.close();
  });

  it('shows a push as the daemon words it, leads the page to its question, and the page closes it once answered', async () => {
    const { context, page } = await openPairedPage(browser, daemon, { beforeNavigate: recordNotifications });
    const origin = new URL(daemon.url).origin;
    await context.grantPermissions(['notifications'], { origin });
    await page.evaluate(() => navigator.serviceWorker.ready);
    // What the worker shows, recorded in the worker as recordNotifications does in a page (DevTools keeps it running meanwhile).
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    await worker.evaluate(() => {
      const scope = globalThis as unknown as { registration: ServiceWorkerRegistration; shown: Shown[] };
      scope.shown = [];
      const show = scope.registration.showNotification.bind(scope.registration);
      scope.registration.showNotification = async (title, options) => {
        await show(title, options);
        scope.shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
      };
    });
    const others = [await ask(), await ask()];
    const question = await ask((payload) => (payload.tool_input.questions[0]!.header = 'Deploy'));

    // A push delivered to the worker as a push service would (through DevTools), with the payload the daemon makes for it.
    const session = await context.newCDPSession(page);
    const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
    session.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await session.send('ServiceWorker.enable');
    const { registrationId } = await waitUntil(() => registrations.find((registration) => registration.scopeURL === daemon.url), 5000, 'the worker registration');
    await session.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(noticeOf(await daemon.ask(question.id), { fullText: false })) });
    const tag = `askbridge-${question.id}`;
    await expect.poll(() => worker.evaluate(() => (globalThis as unknown as { shown: Shown[] }).shown)).toEqual([{ title: 'Question from acme-shop', body: 'Deploy', tag }]);
    // The end of a turn and a wait in the terminal, in their own words; model text only when the config lets it come.
    const view = await daemon.ask(question.id);
    const finished = { ...view, id: randomUUID(), questions: [], turnEnd: { lastMessage: 'Done: tests pass.', repliesInARow: 0, replyLimit: 8 } };
    const waiting = { ...view, id: randomUUID(), questions: [], terminalWait: { kind: 'idle_prompt', message: 'Claude is waiting for your input' } };
    const odd = { ...waiting, id: randomUUID(), terminalWait: { kind: '__proto__', message: '' } };
    for (const [notice, fullText] of [[finished, false], [finished, true], [waiting, false], [odd, false]] as const) {
      await session.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(noticeOf({ ...notice, id: fullText ? randomUUID() : notice.id }, { fullText })) });
    }
    await expect.poll(async () => (await worker.evaluate(() => (globalThis as unknown as { shown: Shown[] }).shown)).slice(1).map(({ title, body }) => [title, body])).toEqual([
      ['Claude finished in acme-shop', 'Reply to keep it going, or let it stop'],
      ['Claude finished in acme-shop', 'Done: tests pass.'],
      ['Waiting for you in acme-shop', 'Claude waits for your next prompt in the terminal'],
      ['Waiting for you in acme-shop', 'Waiting for you in the terminal'],
    ]);
    await worker.evaluate(async (keep) => {
      const { registration } = globalThis as unknown as { registration: ServiceWorkerRegistration };
      for (const notification of await registration.getNotifications()) if (notification.tag !== keep) notification.close();
    }, tag);

    // Clicked, the worker focuses the open page and names the question (a system notification cannot be clicked headless: this is its message).
    await worker.evaluate(async (id) => {
      const { clients } = globalThis as unknown as { clients: { matchAll(options: object): Promise<Array<{ postMessage(message: unknown): void }>> } };
      for (const client of await clients.matchAll({ type: 'window', includeUncontrolled: true })) client.postMessage({ type: 'question', id });
    }, question.id);
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('article')?.getAttribute('data-question-id') ?? null)).toBe(question.id);

    // Answered, the page closes the worker's notification: one tag per question, whoever showed it.
    await answer(question.id, question.hook);
    await expect.poll(async () => (await notificationLog(page)).closed).toEqual([tag]);
    expect(await shownNotifications(page)).toEqual([]);
    for (const { id, hook } of others) await answer(id, hook);
    await session.detach();
    await context.close();
  });

  it('remembers the sound switch, which is off at first', async () => {
    const { context, page } = await openPairedPage(browser, daemon);
    await page.locator('#alerts summary').click();
    const sound = page.getByRole('switch', { name: 'Sound' });
    expect(await sound.getAttribute('aria-checked')).toBe('false');
    await sound.click();
    expect(await sound.getAttribute('aria-checked')).toBe('true');
    await page.reload();
    expect(await page.getByRole('switch', { name: 'Sound', includeHidden: true }).getAttribute('aria-checked')).toBe('true');
    await context.close();
  });

  it('serves the manifest and its icons, and the service worker, each with its type', async () => {
    const get = (path: string) => fetch(new URL(path, daemon.url));
    const manifest = await get('/manifest.webmanifest');
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
    const { start_url, scope, display, icons } = (await manifest.json()) as { start_url: string; scope: string; display: string; icons: Array<{ src: string; sizes: string }> };
    expect({ start_url, scope, display }).toEqual({ start_url: '/', scope: '/', display: 'standalone' });
    for (const { src, sizes } of icons) {
      const icon = await get(src);
      expect(icon.headers.get('content-type')).toBe('image/png');
      const png = Buffer.from(await icon.arrayBuffer());
      // The PNG signature, then the IHDR chunk's width and height.
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(sizes);
    }
    const worker = await get('/sw.js');
    expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(worker.headers.get('content-security-policy')).toContain("default-src 'none'");
    const csp = (await get('/')).headers.get('content-security-policy')!;
    expect(csp).toContain("manifest-src 'self'");
    expect(csp).toContain("worker-src 'self'");
    expect((await get('/favicon-waiting.svg')).headers.get('content-type')).toBe('image/svg+xml');
  });

  it('looks right with a question waiting, at a desk and on a phone (screenshots for a human eye)', async () => {
    const question = await ask((payload) => (payload.tool_input.questions[0]!.header = 'Database'));
    for (const [size, path, menu] of [[{ width: 1280, height: 900 }, SCREENSHOTS.desktop, undefined], [{ width: 390, height: 844 }, SCREENSHOTS.phone, SCREENSHOTS.phoneMenu]] as const) {
      const { context, page } = await openPairedPage(browser, daemon, { viewport: size });
      await openAsk(page, question.id);
      expect(await page.title()).toBe('(1) askbridge');
      await page.screenshot({ path, animations: 'disabled' });
      expect(statSync(path).size).toBeGreaterThan(10_000);
      if (menu) {
        await page.locator('#alerts summary').click();
        await page.getByRole('switch', { name: 'Sound' }).click();
        await page.screenshot({ path: menu, animations: 'disabled' });
      }
      await context.close();
    }
    await answer(question.id, question.hook);
  });
});
