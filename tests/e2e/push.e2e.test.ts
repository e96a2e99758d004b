// Web Push end to end: the real daemon, a local HTTP endpoint standing in for a browser's push
// service, and a device that subscribes through the daemon's API as a paired page does, with keys
// the test makes itself. What arrives must decrypt with those keys (RFC 8291), carry a VAPID JWT
// signed with the daemon's key for that push service, and say no more than the project and the
// headers. Nothing is pushed while a page is in view; a subscription its push service says is gone
// (410) is dropped. The stand-in is let through by ASKBRIDGE_TEST_PUSH_SERVICE, that origin alone:
// any other endpoint that is not a push service browsers use is refused when a page subscribes, and
// one kept on disk from before is never sent to.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { pairOverHttp, type PageClient } from '../stack/page-client.js';
import { killStrayProcesses, runCli, runHook, type RunningProcess } from '../stack/processes.js';
import { checkVapid, decryptPush, newSubscriptionKeys, type SubscriptionKeys } from '../stack/push-service.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';

const WAIT_SECONDS = 120;

let daemon: Daemon;
let receiver: Receiver;
let runs = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  daemon = await startDaemon({ config: { waitSeconds: WAIT_SECONDS }, env: { ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
  await receiver?.close();
});

type Device = { page: PageClient; keys: SubscriptionKeys; path: string };

/** A paired page whose browser subscribed at the stand-in push service, under `path`. */
async function subscribedDevice(path: string): Promise<Device> {
  const page = await pairOverHttp(daemon);
  const keys = newSubscriptionKeys();
  const saved = await page.request('POST', '/api/push/subscription', { endpoint: `${receiver.origin}${path}`, expirationTime: null, keys: keys.json });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return { page, keys, path };
}

/** A question from the command hook, pending; with its id. */
async function ask(tag: string, on: Daemon = daemon): Promise<{ hook: RunningProcess; id: string; header: string }> {
  const payload = freshPayload('01-single-select', `${tag}${++runs}`);
  const hook = runHook(payload, on.env);
  const { id } = await on.waitForAsk(payload.tool_use_id);
  return { hook, id, header: payload.tool_input.questions[0]!.header };
}

async function answer(id: string, hook: RunningProcess, on: Daemon = daemon): Promise<void> {
  const answered = await runCli(['answer', id, '--pick', '1=SQLite'], on.env);
  expect(answered.code, answered.stderr).toBe(0);
  await hook.result;
}

/** The pushes `device` got so far, decrypted. */
const pushesTo = (device: Device) => receiver.to(device.path).map((request) => JSON.parse(decryptPush(request.body, device.keys)) as { id: string });

const visiblePages = async () => (await daemon.api<{ visiblePages: number }>('GET', '/api/status')).body.visiblePages;

describe('Web Push', () => {
  it('pushes to a subscribed device when no page is in view: encrypted for it, signed by the daemon, the project and headers only', async () => {
    const phone = await subscribedDevice('/push/phone');
    const { body: status } = await phone.page.request<{ publicKey: string; subscribed: boolean }>('GET', '/api/push');
    expect(status.subscribed).toBe(true);

    const askedAt = Date.now();
    const { hook, id, header } = await ask('push');
    const [request] = await receiver.waitFor('/push/phone');
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-encoding']).toBe('aes128gcm');
    expect(request!.headers.urgency).toBe('high');
    // Kept for an offline phone as long as the question may be answered.
    expect(Number(request!.headers.ttl)).toBeGreaterThan(WAIT_SECONDS - 10);
    expect(Number(request!.headers.ttl)).toBeLessThanOrEqual(WAIT_SECONDS);

    const claims = checkVapid(request!.headers.authorization, { publicKey: status.publicKey, audience: receiver.origin });
    expect(claims.sub).toBe('mailto:push@askbridge.invalid');
    expect(claims.exp * 1000).toBeGreaterThan(askedAt);
    expect(claims.exp * 1000).toBeLessThanOrEqual(askedAt + 24 * 60 * 60_000);

    // The options of a question of two ride along: the worker shows them as buttons that answer it.
    expect(JSON.parse(decryptPush(request!.body, phone.keys))).toStrictEqual({ id, project: 'acme-shop', headers: [header], options: ['PostgreSQL (Recommended)', 'SQLite'] });
    // The keys the daemon signs with are its own, kept 0600.
    expect(JSON.parse(readFileSync(join(daemon.home, 'vapid-keys.json'), 'utf8')).publicKey).toBe(status.publicKey);
    await answer(id, hook);
    expect(receiver.to('/push/phone')).toHaveLength(1);
  });

  it("carries the question text only once the user's config says push.fullText, and the change needs no restart", async () => {
    const tablet = await subscribedDevice('/push/tablet');
    const userConfig = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
    await writeFile(userConfig, JSON.stringify({ waitSeconds: WAIT_SECONDS, push: { fullText: true } }));
    try {
      const { hook, id } = await ask('full-text');
      await waitUntil(() => (pushesTo(tablet).some((push) => push.id === id) ? true : undefined), 10_000, 'the push with the full text');
      expect(pushesTo(tablet).find((push) => push.id === id)).toStrictEqual({ id, project: 'acme-shop', headers: ['Database'], questions: ['Which database should the new orders service use?'], options: ['PostgreSQL (Recommended)', 'SQLite'] });
      await answer(id, hook);
    } finally {
      await writeFile(userConfig, JSON.stringify({ waitSeconds: WAIT_SECONDS }));
    }
  });

  it('signs as the public URL in use at each push: one written into the config while the daemon runs is the sender of the next push', async () => {
    const desk = await subscribedDevice('/push/desk');
    const { body: status } = await desk.page.request<{ publicKey: string }>('GET', '/api/push');
    const userConfig = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
    await writeFile(userConfig, JSON.stringify({ waitSeconds: WAIT_SECONDS, publicUrl: 'https://desk.example.test' }));
    try {
      await daemon.waitForLog((entry) => entry.msg === 'public URL changed: the new one is accepted, the old one no longer' && entry.to === 'https://desk.example.test', 10_000, 'the public URL to apply');
      const { hook, id } = await ask('live-subject');
      const [request] = await receiver.waitFor('/push/desk');
      expect(checkVapid(request!.headers.authorization, { publicKey: status.publicKey, audience: receiver.origin }).sub).toBe('https://desk.example.test/');
      await answer(id, hook);
    } finally {
      await writeFile(userConfig, JSON.stringify({ waitSeconds: WAIT_SECONDS }));
      await daemon.waitForLog((entry) => entry.msg === 'public URL changed: the new one is accepted, the old one no longer' && entry.to === null, 10_000, 'the public URL to go');
    }
  });

  it("signs as the user config's push.subject once it says one, whatever the public URL, from the next push on", async () => {
    const desk = await subscribedDevice('/push/subject');
    const { body: status } = await desk.page.request<{ publicKey: string }>('GET', '/api/push');
    const userConfig = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
    await writeFile(userConfig, JSON.stringify({ waitSeconds: WAIT_SECONDS, publicUrl: 'https://subject.example.test', push: { subject: 'mailto:ops@example.test' } }));
    try {
      await daemon.waitForLog((entry) => entry.msg === 'public URL changed: the new one is accepted, the old one no longer' && entry.to === 'https://subject.example.test', 10_000, 'the public URL to apply');
      const { hook, id } = await ask('subject');
      const [request] = await receiver.waitFor('/push/subject');
      expect(checkVapid(request!.headers.authorization, { publicKey: status.publicKey, audience: receiver.origin }).sub).toBe('mailto:ops@example.test');
      await answer(id, hook);
    } finally {
      await writeFile(userConfig, JSON.stringify({ waitSeconds: WAIT_SECONDS }));
      await waitUntil(() => (daemon.logs().filter((entry) => entry.msg === 'public URL changed: the new one is accepted, the old one no longer' && entry.to === null).length >= 2 ? true : undefined), 10_000, 'the public URL to go');
    }
  });

  it('pushes a question of three options without them: no notification shows three buttons', async () => {
    const tablet = await subscribedDevice('/push/three');
    const payload = freshPayload('01-single-select', `three${++runs}`);
    payload.tool_input.questions[0]!.options.push({ label: 'MySQL', description: '' });
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);
    await waitUntil(() => (pushesTo(tablet).some((push) => push.id === id) ? true : undefined), 10_000, 'the push');
    expect(pushesTo(tablet).find((push) => push.id === id)).toStrictEqual({ id, project: 'acme-shop', headers: ['Database'] });
    await answer(id, hook);
  });

  it('pushes nothing while a page says it is in view', async () => {
    const laptop = await subscribedDevice('/push/laptop');
    const watching = await pairOverHttp(daemon);
    const socket: WebSocket = await watching.openSocket();
    socket.send(JSON.stringify({ type: 'visibility', visible: true }));
    await waitUntil(async () => ((await visiblePages()) === 1 ? true : undefined), 5000, 'the page to be in view');

    const seen = await ask('visible');
    // The page looks away: the next question is pushed. Pushes leave in order, so once it has
    // arrived, one for the question asked while the page was in view would have too.
    socket.send(JSON.stringify({ type: 'visibility', visible: false }));
    await waitUntil(async () => ((await visiblePages()) === 0 ? true : undefined), 5000, 'the page to look away');
    const unseen = await ask('hidden');
    await waitUntil(() => (pushesTo(laptop).some((push) => push.id === unseen.id) ? true : undefined), 10_000, 'the push for the question asked while no page was in view');
    expect(pushesTo(laptop).map((push) => push.id)).toEqual([unseen.id]);

    socket.close();
    await answer(seen.id, seen.hook);
    await answer(unseen.id, unseen.hook);
  });

  it('drops a subscription whose push service says it is gone (410), and keeps the others', async () => {
    const gone = await subscribedDevice('/push/gone');
    const kept = await subscribedDevice('/push/kept');
    receiver.answer('/push/gone', () => 410);

    const first = await ask('gone');
    await receiver.waitFor('/push/gone');
    await waitUntil(async () => ((await gone.page.request<{ subscribed: boolean }>('GET', '/api/push')).body.subscribed ? undefined : true), 5000, 'the gone subscription to be dropped');
    const stored = JSON.parse(readFileSync(join(daemon.home, 'push-subscriptions.json'), 'utf8')) as Array<{ endpoint: string }>;
    expect(stored.map((subscription) => subscription.endpoint)).not.toContain(`${receiver.origin}/push/gone`);
    expect(stored.map((subscription) => subscription.endpoint)).toContain(`${receiver.origin}/push/kept`);

    const second = await ask('after-gone');
    await waitUntil(() => (pushesTo(kept).some((push) => push.id === second.id) ? true : undefined), 10_000, 'the push to the kept device');
    expect(receiver.to('/push/gone')).toHaveLength(1);
    await answer(first.id, first.hook);
    await answer(second.id, second.hook);
  });

  it('never holds up an answer: a push service that never answers costs the answer nothing', async () => {
    receiver.answer('/push/stuck', () => 'hang');
    await subscribedDevice('/push/stuck');
    const { hook, id } = await ask('stuck');
    await receiver.waitFor('/push/stuck');
    await answer(id, hook);
    // The answer has reached the hook while the push is still unanswered: it never waited for it.
    expect(receiver.hanging('/push/stuck')).toBe(1);
  });
});

describe('where the daemon pushes', () => {
  let elsewhere: Receiver;
  beforeAll(async () => {
    // A server on this machine that is not the test's push service: nothing may ever reach it.
    elsewhere = await startReceiver();
  });
  afterAll(() => elsewhere?.close());

  it('refuses an endpoint that is not a push service browsers use, says why, and keeps nothing', async () => {
    const page = await pairOverHttp(daemon);
    const keys = newSubscriptionKeys().json;
    const subscribe = (endpoint: string) => page.request<{ error: { code: string; message: string } }>('POST', '/api/push/subscription', { endpoint, expirationTime: null, keys });
    const refused: Array<[string, RegExp]> = [
      [`${elsewhere.origin}/push`, /http:\/\/ is not https/],
      [`https://127.0.0.1:${new URL(elsewhere.origin).port}/push`, /names a port/],
      ['https://127.0.0.1/push', /127\.0\.0\.1 is not a push service/],
      ['https://[::1]/push', /\[::1\] is not a push service/],
      ['https://192.168.1.20/push', /is not a push service/],
      ['https://169.254.169.254/latest/meta-data', /is not a push service/],
      ['https://[fe80::1]/push', /is not a push service/],
      ['https://fcm.googleapis.com.attacker.example/fcm/send/x', /is not a push service/],
      ['https://user:secret@fcm.googleapis.com/fcm/send/x', /user name or password/],
    ];
    for (const [endpoint, reason] of refused) {
      const response = await subscribe(endpoint);
      expect(response.status, endpoint).toBe(400);
      expect(response.body.error, endpoint).toMatchObject({ code: expect.stringMatching(/^(push_endpoint_refused|invalid_request)$/), message: expect.stringMatching(reason) });
    }
    expect((await page.request<{ subscribed: boolean }>('GET', '/api/push')).body.subscribed).toBe(false);

    // The push services browsers use are taken (and let go at once: nothing here may reach them).
    for (const endpoint of ['https://fcm.googleapis.com/fcm/send/abc', 'https://updates.push.services.mozilla.com/wpush/v2/abc', 'https://web.push.apple.com/abc', 'https://wns2-par02p.notify.windows.com/w/?token=abc']) {
      expect((await subscribe(endpoint)).status, endpoint).toBe(200);
      expect((await page.request('DELETE', '/api/push/subscription')).status).toBe(200);
    }
    expect(elsewhere.received).toHaveLength(0);
  });

  it('never pushes to an endpoint kept on disk that is not a push service, and drops it', async () => {
    const own = await startDaemon({ config: { waitSeconds: WAIT_SECONDS }, env: { ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });
    let running = own;
    try {
      const fresh = await pairOverHttp(own);
      const freshKeys = newSubscriptionKeys();
      expect((await fresh.request('POST', '/api/push/subscription', { endpoint: `${receiver.origin}/push/fresh`, expirationTime: null, keys: freshKeys.json })).status).toBe(200);
      const old = await pairOverHttp(own);
      const { body } = await old.request<{ devices: Array<{ id: string; current: boolean }> }>('GET', '/api/devices');
      const oldId = body.devices.find((device) => device.current)!.id;

      // As a daemon from before the rule kept it: a paired device subscribed at a server on this machine.
      own.expectExit();
      expect((await runCli(['stop'], own.env)).code).toBe(0);
      await own.exited;
      const file = join(own.home, 'push-subscriptions.json');
      const stored = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
      await writeFile(file, JSON.stringify([...stored, { deviceId: oldId, endpoint: `${elsewhere.origin}/push/old`, keys: newSubscriptionKeys().json, subscribedAt: Date.now() }]));
      running = await startDaemon({ home: own.home, config: { waitSeconds: WAIT_SECONDS }, env: { ASKBRIDGE_PORT: String(own.port), ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });

      const { hook, id } = await ask('kept-on-disk', running);
      // Pushes leave together: once the fresh device's has arrived, one to the old endpoint would have left too.
      await waitUntil(() => (receiver.to('/push/fresh').some((request) => (JSON.parse(decryptPush(request.body, freshKeys)) as { id: string }).id === id) ? true : undefined), 10_000, 'the push to the fresh device');
      expect(elsewhere.to('/push/old')).toHaveLength(0);
      await running.waitForLog((entry) => entry.msg === 'push subscription removed' && entry.why === 'its endpoint is not a push service', 5000, 'the old subscription dropped');
      expect((JSON.parse(readFileSync(file, 'utf8')) as Array<{ endpoint: string }>).map((subscription) => subscription.endpoint)).toEqual([`${receiver.origin}/push/fresh`]);
      await answer(id, hook, running);
    } finally {
      await running.stop();
    }
  });
});
