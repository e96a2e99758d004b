// A push's buttons in a real Chromium: the service worker shows a simple question's options as the
// notification's actions, and one of them answers the question as this device (its cookie, and the
// key the page keeps for its worker), marked as answered from a notification; a refused answer
// opens the page on the question instead. No two buttons read the same: options alike for longer
// than a button are cut where they differ, or get none. A question of three options gets no
// buttons. A renewed push subscription reaches the daemon from the worker alone.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { noticeOf } from '../../src/daemon/notice.js';
import { pushPayload } from '../../src/daemon/push.js';
import { waitUntil } from '../stack/clock.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook, type RunningProcess } from '../stack/processes.js';
import { newSubscriptionKeys } from '../stack/push-service.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';

const chromiumState = chromiumAvailability();

type Shown = { title: string; body: string; tag: string; actions: Array<{ action: string; title: string }> };
/** What the worker's own functions are, seen from a test evaluating in it (sw.js declares them at its top level). */
type WorkerScope = {
  registration: ServiceWorkerRegistration;
  shown: Shown[];
  held?: Notification;
  onNotificationClick(notification: Notification, action: string): Promise<void>;
  renewSubscription(event: { newSubscription?: unknown }): Promise<void>;
};

let daemon: Daemon;
let receiver: Receiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let worker: Worker;
let session: CDPSession;
let registrationId: string;
let runs = 0;

/** The key the page keeps for its worker, as the worker reads it (sw.js). */
const keyForWorker = () => worker.evaluate(async () => (await (await caches.match('/page-key', { cacheName: 'askbridge-page-key' }))?.text()) ?? null);

describe.skipIf(!chromiumState.available)('the buttons of a push, in the service worker', () => {
  beforeAll(async () => {
    receiver = await startReceiver();
    daemon = await startDaemon({ config: { waitSeconds: 120 }, env: { ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });
    browser = await launchBrowser();
    ({ context, page } = await openPairedPage(browser, daemon));
    await context.grantPermissions(['notifications'], { origin: new URL(daemon.url).origin });
    await page.evaluate(() => navigator.serviceWorker.ready);
    worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    await waitUntil(async () => ((await keyForWorker()) ? true : undefined), 5000, 'the page to keep its key for its worker');
    // What the worker shows, recorded as it shows it (asking Chromium while it shows one can drop it: see notify-page).
    await worker.evaluate(() => {
      const scope = globalThis as unknown as WorkerScope;
      scope.shown = [];
      const show = scope.registration.showNotification.bind(scope.registration);
      scope.registration.showNotification = async (title, options) => {
        await show(title, options);
        const { actions = [] } = options as { actions?: Shown['actions'] };
        scope.shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '', actions: actions.map(({ action, title: button }) => ({ action, title: button })) });
      };
    });
    // The page told where the worker sends it (a question it is to open).
    await page.evaluate(() => {
      const told: unknown[] = [];
      Object.assign(window, { told });
      navigator.serviceWorker.addEventListener('message', (event) => told.push(event.data));
    });
    session = await context.newCDPSession(page);
    const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
    session.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await session.send('ServiceWorker.enable');
    ({ registrationId } = await waitUntil(() => registrations.find((registration) => registration.scopeURL === daemon.url), 5000, 'the worker registration'));
  }, 60_000);
  afterEach(killStrayProcesses);
  afterAll(async () => {
    await session?.detach();
    await browser?.close();
    await daemon?.stop();
    await receiver?.close();
  });

  /** A question from the command hook, waiting. */
  async function ask(change: (payload: HookPayload) => void = () => {}): Promise<{ hook: RunningProcess; id: string; payload: HookPayload }> {
    const payload = freshPayload('01-single-select', `push-actions${++runs}`);
    change(payload);
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);
    return { hook, id, payload };
  }

  /** Delivers to the worker, as a push service would (through DevTools), what the daemon pushes for this ask; returns what it showed. */
  async function push(id: string): Promise<Shown> {
    const data = pushPayload(noticeOf(await daemon.ask(id), { fullText: false }));
    await session.send('ServiceWorker.deliverPushMessage', { origin: new URL(daemon.url).origin, registrationId, data });
    const tag = `askbridge-${id}`;
    return waitUntil(async () => (await worker.evaluate(() => (globalThis as unknown as WorkerScope).shown)).find((shown) => shown.tag === tag), 5000, `the notification for ${id}`);
  }

  /** Takes hold of the notification shown for `id`, as the system does while a person looks at it. */
  const holdNotification = (id: string) =>
    worker.evaluate(async (tag) => {
      const scope = globalThis as unknown as WorkerScope;
      const [notification] = await scope.registration.getNotifications({ tag });
      if (!notification) throw new Error(`no notification ${tag}`);
      scope.held = notification;
    }, `askbridge-${id}`);

  /**
   * A click on a button of the notification held: a system notification cannot be clicked headless
   * (nor a trusted notificationclick made), so the worker's own handler of notificationclick is
   * called, with that notification and that action.
   */
  const clickButton = (action: string) => worker.evaluate((chosen) => (globalThis as unknown as WorkerScope).onNotificationClick((globalThis as unknown as WorkerScope).held!, chosen), action);

  const answersOf = async (hook: RunningProcess) => Object.values(parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>((await hook.result).stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers);

  it('shows the options of a question of two as buttons, and one answers it as this device, from a notification', async () => {
    const { hook, id, payload } = await ask();
    const shown = await push(id);
    expect(shown).toEqual({ title: 'Question from acme-shop', body: 'Database', tag: `askbridge-${id}`, actions: [{ action: 'option-0', title: 'PostgreSQL (Recommended)' }, { action: 'option-1', title: 'SQLite' }] });
    // Read back from Chromium: the notification it holds has those buttons.
    const held = await worker.evaluate(async (tag) => (await (globalThis as unknown as WorkerScope).registration.getNotifications({ tag })).map((notification) => (notification as Notification & { actions: Array<{ action: string; title: string }> }).actions.map(({ action, title }) => ({ action, title }))), `askbridge-${id}`);
    expect(held).toEqual([shown.actions]);

    await holdNotification(id);
    await clickButton('option-1');
    expect(await answersOf(hook)).toEqual(['SQLite']);
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual({ kind: 'person', client: 'notification', device: expect.any(String) });
    // Answered, its notification is gone.
    expect(await worker.evaluate(async (tag) => (await (globalThis as unknown as WorkerScope).registration.getNotifications({ tag })).length, `askbridge-${id}`)).toBe(0);
  });

  it('opens the page on the question when the answer is refused: it was answered meanwhile', async () => {
    const { hook, id } = await ask();
    await push(id);
    await holdNotification(id);
    const answered = await runCli(['answer', id, '--pick', '1=PostgreSQL (Recommended)'], daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    expect(await answersOf(hook)).toEqual(['PostgreSQL (Recommended)']);

    // Told by the worker (it may not focus the window here: no real click came before).
    await clickButton('option-1');
    await expect.poll(() => page.evaluate(() => (window as unknown as { told: unknown[] }).told)).toContainEqual({ type: 'question', id });
    expect((await daemon.ask(id)).source).toEqual({ kind: 'person', client: 'cli' });
  });

  it('never shows two buttons that read the same: options alike for their first 40 characters are cut where they differ; alike but for spaces, none', async () => {
    const shared = 'Deploy the release to the production cluster now, ';
    const apart = await ask((payload) => {
      payload.tool_input.questions[0]!.options = [
        { label: `${shared}during business hours`, description: '' },
        { label: `${shared}tonight after midnight`, description: '' },
      ];
    });
    const shown = await push(apart.id);
    expect(shown.actions).toEqual([{ action: 'option-0', title: '…now, during business hours' }, { action: 'option-1', title: '…now, tonight after midnight' }]);
    await holdNotification(apart.id);
    await clickButton('option-1');
    expect(await answersOf(apart.hook)).toEqual([`${shared}tonight after midnight`]);

    const alike = await ask((payload) => {
      payload.tool_input.questions[0]!.options = [
        { label: 'Use SQLite', description: '' },
        { label: 'Use  SQLite', description: '' },
      ];
    });
    expect((await push(alike.id)).actions).toEqual([]);
    alike.hook.child.kill('SIGTERM');
    await alike.hook.result;
  });

  it('gives a question of three options no buttons', async () => {
    const { hook, id } = await ask((payload) => payload.tool_input.questions[0]!.options.push({ label: 'MySQL', description: '' }));
    expect((await push(id)).actions).toEqual([]);
    hook.child.kill('SIGTERM');
    await hook.result;
  });

  it('gives the daemon a renewed push subscription from the worker alone, with this device’s credentials', async () => {
    // pushsubscriptionchange cannot be made to fire (nor a push service reached) here: the worker's own
    // handler is called with the event as a browser gives it, its new subscription at the test's push service.
    const endpoint = `${receiver.origin}/push/renewed`;
    const keys = newSubscriptionKeys().json;
    await worker.evaluate(
      async ([url, subscriptionKeys]) => {
        const newSubscription = { toJSON: () => ({ endpoint: url, expirationTime: null, keys: subscriptionKeys }) };
        await (globalThis as unknown as WorkerScope).renewSubscription({ newSubscription });
      },
      [endpoint, keys] as const,
    );
    const subscribed = await page.evaluate(async (key) => (await (await fetch('/api/push', { headers: { 'x-askbridge-key': localStorage.getItem(key) ?? '' } })).json()) as { subscribed: boolean }, 'askbridge.pageKey');
    expect(subscribed.subscribed).toBe(true);
    const stored = JSON.parse(await readFile(join(daemon.home, 'push-subscriptions.json'), 'utf8')) as Array<{ endpoint: string }>;
    expect(stored.map((subscription) => subscription.endpoint)).toEqual([endpoint]);
  });

  it('forgets the key it keeps for its worker once the device is unpaired', async () => {
    const key = await page.evaluate(() => localStorage.getItem('askbridge.pageKey'));
    expect(await keyForWorker()).toBe(key);
    const { body } = await daemon.api<{ devices: Array<{ id: string }> }>('GET', '/api/devices');
    for (const device of body.devices) expect((await daemon.api('POST', `/api/devices/${device.id}/revoke`)).status).toBe(200);
    await waitUntil(async () => ((await keyForWorker()) === null ? true : undefined), 5000, 'the key to be forgotten');
    expect(await page.evaluate(() => localStorage.getItem('askbridge.pageKey'))).toBeNull();
  });
});
