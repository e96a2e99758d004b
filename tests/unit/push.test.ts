// Web Push's daemon side in memory: keys made once and kept 0600, a paired page's subscription
// checked field by field, kept per device and forgotten when the device is unpaired; and what a
// notice may say about a question.
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import { noticeOf, noticeSubject, noticeTitle } from '../../src/daemon/notice.js';
import { createPush, pushPayload, type Push } from '../../src/daemon/push.js';
import { PLACEHOLDER_PUSH_SUBJECT, pushSubject } from '../../src/daemon/public-url-setting.js';
import { parsePublicUrl, type PublicUrl } from '../../src/public-url.js';
import type { AskView } from '../../src/protocol.js';
import { buildTestApp, HOST, LOCAL, ORIGIN, type TestApp } from '../stack/app.js';
import { askView } from '../stack/views.js';

const silent = { info: () => {}, warn: () => {} };

let dir: string;
let paths: { vapidKeys: string; pushSubscriptions: string };
let push: Push;
let daemon: TestApp;
let app: App;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'askbridge-push-'));
  paths = { vapidKeys: join(dir, 'vapid-keys.json'), pushSubscriptions: join(dir, 'push-subscriptions.json') };
  push = createPush({ paths, subject: () => 'mailto:push@askbridge.invalid', log: silent });
  daemon = await buildTestApp({ push });
  app = daemon.app;
});
afterEach(async () => {
  await daemon.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A paired page's headers: its cookie, its key, its exact Origin. */
async function pairPage(): Promise<Record<string, string>> {
  return (await daemon.pairPage()).headers;
}

function subscription(endpoint = `https://fcm.googleapis.com/fcm/send/${randomBytes(8).toString('hex')}`) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
}

const status = async (page: Record<string, string>) => (await app.inject({ method: 'GET', url: '/api/push', headers: page })).json<{ publicKey: string; subscribed: boolean }>();

describe('Web Push keys', () => {
  it('are made once, kept 0600, and the same after a restart', () => {
    expect(push.publicKey()).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(statSync(paths.vapidKeys).mode & 0o777).toBe(0o600);
    expect(createPush({ paths, subject: () => 'mailto:push@askbridge.invalid', log: silent }).publicKey()).toBe(push.publicKey());
  });
});

describe('a push subscription', () => {
  it("is kept per device: the page learns the daemon's key, subscribes, and unsubscribes", async () => {
    const page = await pairPage();
    expect(await status(page)).toEqual({ publicKey: push.publicKey(), subscribed: false });
    const given = subscription();
    const saved = await app.inject({ method: 'POST', url: '/api/push/subscription', headers: page, payload: given });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await status(page)).subscribed).toBe(true);
    expect(statSync(paths.pushSubscriptions).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8'))).toMatchObject([{ endpoint: given.endpoint, keys: given.keys }]);

    // A new subscription from the same device replaces its old one.
    await app.inject({ method: 'POST', url: '/api/push/subscription', headers: page, payload: subscription() });
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8'))).toHaveLength(1);

    const removed = await app.inject({ method: 'DELETE', url: '/api/push/subscription', headers: page });
    expect(removed.json()).toEqual({ subscribed: false });
    expect((await status(page)).subscribed).toBe(false);
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8'))).toEqual([]);
  });

  it('is refused with the field that is wrong, and nothing is kept', async () => {
    const page = await pairPage();
    const good = subscription();
    const cases: Array<[unknown, RegExp]> = [
      [{ ...good, endpoint: 'http://push.example.test/send/1' }, /endpoint: http:\/\/push\.example\.test would carry the notice in the clear/],
      [{ ...good, endpoint: 'not a url' }, /endpoint: not a URL/],
      [{ ...good, keys: { ...good.keys, p256dh: Buffer.alloc(65, 4).toString('base64url').slice(0, 40) } }, /keys\.p256dh: must be the browser's P-256 public key/],
      [{ ...good, keys: { ...good.keys, p256dh: Buffer.alloc(65, 3).toString('base64url') } }, /keys\.p256dh: must be/],
      [{ ...good, keys: { ...good.keys, auth: randomBytes(8).toString('base64url') } }, /keys\.auth: must be the 16-byte auth secret/],
      [{ ...good, keys: { ...good.keys, auth: 'not*base64' } }, /keys\.auth: must be/],
      [{ endpoint: good.endpoint }, /keys: /],
      [{ ...good, extra: true }, /Unrecognized key: "extra"/],
    ];
    for (const [payload, message] of cases) {
      const response = await app.inject({ method: 'POST', url: '/api/push/subscription', headers: page, payload: payload as Record<string, unknown> });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    }
    // Only a push service browsers use: this machine, its network, or any other name is refused, with the reason.
    for (const endpoint of ['http://127.0.0.1:9/push', 'https://127.0.0.1/push', 'https://192.168.1.20/push', 'https://push.example.test/send/1']) {
      const response = await app.inject({ method: 'POST', url: '/api/push/subscription', headers: page, payload: subscription(endpoint) });
      expect(response.statusCode, endpoint).toBe(400);
      expect(response.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code: 'push_endpoint_refused', message: expect.stringContaining('push service') });
    }
    expect((await status(page)).subscribed).toBe(false);
    // Padded keys are kept unpadded.
    const taken = subscription();
    const padded = { ...taken, keys: { p256dh: `${taken.keys.p256dh}=`, auth: `${taken.keys.auth}==` } };
    expect((await app.inject({ method: 'POST', url: '/api/push/subscription', headers: page, payload: padded })).statusCode).toBe(200);
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8'))).toMatchObject([{ endpoint: taken.endpoint, keys: taken.keys }]);
  });

  it('is made by a paired page only, for its own device', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/push/subscription', headers: LOCAL, payload: subscription() })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/push', headers: { host: HOST, origin: ORIGIN } })).statusCode).toBe(401);
  });

  it('goes when its device is unpaired', async () => {
    const phone = await pairPage();
    const laptop = await pairPage();
    await app.inject({ method: 'POST', url: '/api/push/subscription', headers: phone, payload: subscription() });
    await app.inject({ method: 'POST', url: '/api/push/subscription', headers: laptop, payload: subscription() });
    const { devices } = (await app.inject({ method: 'GET', url: '/api/devices', headers: phone })).json<{ devices: Array<{ id: string; current: boolean }> }>();
    const phoneId = devices.find((device) => device.current)!.id;
    expect((await app.inject({ method: 'POST', url: `/api/devices/${phoneId}/revoke`, headers: LOCAL })).statusCode).toBe(200);
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8')).map((stored: { deviceId: string }) => stored.deviceId)).toEqual(devices.filter((device) => !device.current).map((device) => device.id));
    expect((await status(laptop)).subscribed).toBe(true);
  });
});

describe('the keys a subscription was made for', () => {
  it('are named with it; one kept before subscriptions named them is named at start with this daemon\'s keys', async () => {
    const phone = await pairPage();
    await app.inject({ method: 'POST', url: '/api/push/subscription', headers: phone, payload: subscription() });
    const [made] = JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8')) as Array<Record<string, unknown>>;
    expect(made!.vapidKey).toBe(push.publicKey());
    const { vapidKey: _, ...unnamed } = made!;
    writeFileSync(paths.pushSubscriptions, JSON.stringify([unnamed]));
    createPush({ paths, subject: () => 'mailto:push@askbridge.invalid', log: silent });
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8'))).toEqual([made]);
  });

  it('are not other keys: such a subscription counts for nobody and is dropped at the next push', async () => {
    const phone = await pairPage();
    await app.inject({ method: 'POST', url: '/api/push/subscription', headers: phone, payload: subscription() });
    expect((await status(phone)).subscribed).toBe(true);
    const [made] = JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8')) as Array<Record<string, unknown>>;
    writeFileSync(paths.pushSubscriptions, JSON.stringify([{ ...made, vapidKey: 'B'.repeat(87) }]));
    const again = createPush({ paths, subject: () => 'mailto:push@askbridge.invalid', log: silent });
    const deviceId = made!.deviceId as string;
    expect(again.isSubscribed(deviceId)).toBe(false);
    expect(again.subscribedDevices([deviceId])).toBe(0);
    again.send({ id: 'x', project: 'p', headers: [] }, { pairedDevices: [deviceId], tells: () => true, ttlSeconds: 60 });
    again.close();
    expect(JSON.parse(readFileSync(paths.pushSubscriptions, 'utf8'))).toEqual([]);
  });
});

describe('a notice', () => {
  const view = (questions: Array<{ question: string; header: string }>): AskView => askView({
    id: '3b0b5b5e-4a4f-4a53-9a43-0d6f2f3b8f10',
    sessionId: 's',
    toolUseId: 't',
    cwd: '/home/alice/projects/acme-shop',
    createdAt: 0,
    expiresAt: 1,
    timeout: { action: 'terminal', summary: '' },
    status: 'pending',
    questions: questions.map((question) => ({ ...question, multiSelect: false, options: [] })),
  });

  it('holds the project and the headers, cut short with invisible characters marked, and the text only when asked', () => {
    const asked = view([
      { question: 'Drop the production database?', header: `Deploy\u202E${'x'.repeat(100)}` },
      { question: 'Second?', header: '' },
    ]);
    const notice = noticeOf(asked, { fullText: false });
    expect(notice).toStrictEqual({ id: asked.id, project: 'acme-shop', headers: [expect.stringMatching(/^Deploy\[U\+202E\]x+…$/)] });
    expect(notice.headers[0]!.length).toBe(60);
    expect(noticeOf(asked, { fullText: true }).questions).toEqual(['Drop the production database?', 'Second?']);
  });

  it("says Claude finished, with its last words only when asked, marked and cut", () => {
    const finished: AskView = askView({ ...view([]), turnEnd: { lastMessage: `  Done.\u200B The key is hunter2 ${'y'.repeat(300)}`, repliesInARow: 0, replyLimit: 8 } });
    const bare = noticeOf(finished, { fullText: false });
    expect(bare).toStrictEqual({ id: finished.id, project: 'acme-shop', headers: [], turnEnd: {} });
    expect(noticeTitle(bare)).toBe('Claude finished in acme-shop');
    expect(noticeSubject(bare)).toBe('Reply to keep it going, or let it stop');
    expect(noticeOf(finished, { fullText: true }).turnEnd?.said).toMatch(/^Done\.\[U\+200B\] The key is hunter2 y+…$/);
    expect(noticeOf(finished, { fullText: true }).turnEnd?.said).toHaveLength(200);
  });

  it('says a session waits in its terminal, in words of its own kind, with the message only when asked', () => {
    const waiting: AskView = askView({ ...view([]), terminalWait: { kind: 'idle_prompt', message: 'Claude is waiting for your input' } });
    const bare = noticeOf(waiting, { fullText: false });
    expect(bare).toStrictEqual({ id: waiting.id, project: 'acme-shop', headers: [], terminalWait: { kind: 'idle_prompt' } });
    expect([noticeTitle(bare), noticeSubject(bare)]).toEqual(['Waiting for you in acme-shop', 'Claude waits for your next prompt in the terminal']);
    expect(noticeOf(waiting, { fullText: true }).terminalWait).toEqual({ kind: 'idle_prompt', message: 'Claude is waiting for your input' });
    expect(noticeSubject(noticeOf({ ...waiting, terminalWait: { kind: 'something_new', message: '' } }, { fullText: false }))).toBe('Waiting for you in the terminal');
  });

  it('offers the options of one single-select question of at most three, marked and cut, and a push carries them only when two or fewer', () => {
    const simple = (labels: string[], multiSelect = false): AskView => askView({ ...view([]), questions: [{ question: 'Which?', header: 'DB', multiSelect, options: labels.map((label) => ({ label, description: '' })) }] });
    const three = noticeOf(simple(['PostgreSQL', 'SQL\u202Eite', 'z'.repeat(50)]), { fullText: false });
    expect(three.options).toEqual(['PostgreSQL', 'SQL[U+202E]ite', `${'z'.repeat(39)}…`]);
    expect(JSON.parse(pushPayload(three))).not.toHaveProperty('options');
    expect(JSON.parse(pushPayload(noticeOf(simple(['A', 'B']), { fullText: false }))).options).toEqual(['A', 'B']);
    for (const none of [simple(['A', 'B', 'C', 'D']), simple(['A', 'B'], true), view([{ question: 'One?', header: '' }, { question: 'Two?', header: '' }])]) expect(noticeOf(none, { fullText: false })).not.toHaveProperty('options');
  });
});

describe("the pushes' sender (the VAPID subject)", () => {
  it("is the user config's push.subject when it says one, else the public URL over https, else a placeholder", () => {
    const url = (raw: string) => parsePublicUrl(raw) as PublicUrl;
    expect(pushSubject(url('https://box.tailnet.ts.net'), 'mailto:me@example.com')).toBe('mailto:me@example.com');
    expect(pushSubject(undefined, 'https://example.com/contact')).toBe('https://example.com/contact');
    expect(pushSubject(url('https://box.tailnet.ts.net'))).toBe('https://box.tailnet.ts.net/');
    expect(pushSubject(undefined)).toBe(PLACEHOLDER_PUSH_SUBJECT);
  });
});
