// Reaching the daemon from another device: the public URL it accepts besides loopback, the Secure
// cookie it sets there, and paired browsers as devices that can be listed and revoked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import type { StoredPageSession } from '../../src/daemon/routes/auth.js';
import { deviceNameOf } from '../../src/daemon/device-name.js';
import { REVOKED_CLOSE_CODE } from '../../src/protocol.js';
import { parsePublicUrl, type PublicUrl } from '../../src/public-url.js';
import { buildTestApp, HOST as LOCAL_HOST, LOCAL, type TestApp } from '../stack/app.js';

const PUBLIC = parsePublicUrl('https://box.tailnet.ts.net') as PublicUrl;
const PHONE = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

let daemon: TestApp;
let app: App;
let saved: StoredPageSession[];

beforeEach(async () => {
  saved = [];
  daemon = await buildTestApp({ publicUrl: PUBLIC, pageSessionStore: { load: () => saved, update: (change) => (saved = change(saved)) } });
  app = daemon.app;
});
afterEach(async () => {
  await daemon.close();
});

/** Pairs through the public URL as a phone does. */
function pairPhone(userAgent = PHONE) {
  return daemon.pairPage({ host: PUBLIC.host, origin: PUBLIC.origin, userAgent });
}

describe('parsePublicUrl', () => {
  it.each([
    ['https://box.tailnet.ts.net', { origin: 'https://box.tailnet.ts.net', host: 'box.tailnet.ts.net', secure: true }],
    ['https://askbridge.example.com:8443/', { origin: 'https://askbridge.example.com:8443', host: 'askbridge.example.com:8443', secure: true }],
    ['http://localhost:9000', { origin: 'http://localhost:9000', host: 'localhost:9000', secure: false }],
  ])('takes %s', (raw, expected) => {
    expect(parsePublicUrl(raw)).toMatchObject(expected);
  });

  it.each([
    ['http://192.168.1.20:7433', /in the clear/],
    ['https://box.example.com/askbridge', /origin only/],
    ['https://user:secret@box.example.com', /no user name or password/],
    ['https://box.example.com/?x=1', /origin only/],
    ['ftp://box.example.com', /not http or https/],
    ['box.example.com', /not a URL/],
  ])('refuses %s and says why', (raw, reason) => {
    const parsed = parsePublicUrl(raw);
    expect('error' in parsed && parsed.error).toMatch(reason);
  });
});

describe('the public URL', () => {
  it('is accepted as Host and Origin besides loopback, with a Secure cookie over https only', async () => {
    const phone = await pairPhone();
    expect(phone.setCookie).toMatch(/; Secure$/);
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: phone.headers })).statusCode).toBe(200);

    const code = app.askbridge.auth.createPairingCode();
    const local = await app.inject({ method: 'POST', url: '/api/pair', headers: { host: LOCAL_HOST, origin: `http://${LOCAL_HOST}` }, payload: { code } });
    expect(String(local.headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it('refuses any other origin or host, even with a paired page’s cookie and key', async () => {
    const { headers } = await pairPhone();
    const attacks: Array<[Record<string, string>, string]> = [
      [{ ...headers, origin: 'http://box.tailnet.ts.net' }, 'forbidden_origin'],
      [{ ...headers, origin: 'https://box.tailnet.ts.net.evil.example' }, 'forbidden_origin'],
      [{ ...headers, origin: 'https://evil.example' }, 'forbidden_origin'],
      [{ ...headers, host: 'evil.example' }, 'forbidden_host'],
      [{ ...headers, host: 'box.tailnet.ts.net:8443' }, 'forbidden_host'],
    ];
    for (const [attack, code] of attacks) {
      const response = await app.inject({ method: 'GET', url: '/api/asks', headers: attack });
      expect(response.statusCode, JSON.stringify(attack)).toBe(403);
      expect(response.json<{ error: { code: string } }>().error.code).toBe(code);
    }
  });

  it('is the link a new pairing code comes with, and its QR code', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/pairings', headers: LOCAL });
    const { code, links, qr } = response.json<{ code: string; links: { local: string; public?: string }; qr: string[] }>();
    expect(links).toEqual({ local: `http://${LOCAL_HOST}/#pair=${code}`, public: `https://box.tailnet.ts.net/#pair=${code}` });
    expect(qr.length).toBeGreaterThan(20);
    expect(qr.every((row) => row.length === qr.length && /^[01]+$/.test(row))).toBe(true);
  });
});

describe('devices', () => {
  it('names each paired browser, lists it with the one asking marked, and keeps it on disk', async () => {
    const phone = await pairPhone();
    await pairPhone('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15');
    const { devices } = (await app.inject({ method: 'GET', url: '/api/devices', headers: phone.headers })).json<{ devices: Array<{ id: string; name: string; current: boolean }> }>();
    expect(devices.map((device) => device.name).sort()).toEqual(['Chrome on Android', 'Safari on macOS']);
    expect(devices.filter((device) => device.current).map((device) => device.name)).toEqual(['Chrome on Android']);
    expect(saved.map((session) => session.name).sort()).toEqual(['Chrome on Android', 'Safari on macOS']);
    expect(JSON.stringify(saved)).not.toContain(phone.headers['x-askbridge-key']);
  });

  it('revokes a device at once: its requests are refused and its open socket is closed', async () => {
    const phone = await pairPhone();
    const { socket } = await daemon.openPageSocket(phone);
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    const { devices } = (await app.inject({ method: 'GET', url: '/api/devices', headers: LOCAL })).json<{ devices: Array<{ id: string }> }>();

    const revoked = await app.inject({ method: 'POST', url: `/api/devices/${devices[0]!.id}/revoke`, headers: LOCAL });
    expect(revoked.statusCode).toBe(200);
    expect(await closed).toBe(REVOKED_CLOSE_CODE);
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: phone.headers })).statusCode).toBe(401);
    expect(saved).toEqual([]);
    const again = await app.inject({ method: 'POST', url: `/api/devices/${devices[0]!.id}/revoke`, headers: LOCAL });
    expect(again.statusCode).toBe(404);
  });

  it.each([
    [PHONE, 'Chrome on Android'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iPhone'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0', 'Edge on Windows'],
    [undefined, 'A browser'],
  ])('names %s as %s', (userAgent, name) => {
    expect(deviceNameOf(userAgent)).toBe(name);
  });
});
