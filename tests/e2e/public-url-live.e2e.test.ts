// The phone path, honestly: without a public URL `askbridge pair` prints no QR code a phone could
// not open, and says what to do; a publicUrl written into the user config applies while the daemon
// runs (the new origin and Host are accepted, the old ones no longer, pairing links and Secure
// cookies follow), unless --public-url wins over it, which `askbridge config` and the log say.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH } from '../../src/http-hook.js';
import { chromiumAvailability, launchBrowser, openAsk, waitForLivePage } from '../stack/browser.js';
import { startDaemon, type Daemon, type LogEntry } from '../stack/daemon.js';
import { freshPayload, loadFixture } from '../stack/fixtures.js';
import { parseJson, runCli } from '../stack/processes.js';
import { caddyAvailability, prepareTlsFront, throughFront, type TlsFront } from '../stack/tls-front.js';

const OLD = 'https://old-phone.example.test';
const NEW = 'https://new-phone.example.test:8443';
const CHANGED = 'public URL changed: the new one is accepted, the old one no longer';
/** Any character of a QR code as `uqr` draws it in a terminal. */
const QR_BLOCKS = /[█▀▄]/;

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A request to the daemon's loopback port naming any Host and Origin, as a front forwards one (or a rebinding page sends one). */
function requestAs(daemon: Daemon, options: { method: 'GET' | 'POST'; path: string; host: string; origin?: string; body?: unknown }): Promise<Reply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port: daemon.port,
        method: options.method,
        path: options.path,
        headers: { host: options.host, connection: 'close', ...(options.origin ? { origin: options.origin } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The page itself, as a browser loads it through the public URL `origin`. */
const loadPage = (daemon: Daemon, origin: string) => requestAs(daemon, { method: 'GET', path: '/', host: new URL(origin).host });

const userConfigFile = (daemon: Daemon) => join(daemon.home, 'xdg-config', 'askbridge', 'config.json');

const changedTo = (origin: string | null) => (entry: LogEntry) => entry.msg === CHANGED && entry.to === origin;

describe('askbridge pair without a public URL', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('prints no QR code, says how to reach askbridge from a phone, and gives a link for another browser on this machine', async () => {
    const paired = await runCli(['pair'], daemon.env);
    expect(paired.code).toBe(0);
    expect(paired.stdout).not.toMatch(QR_BLOCKS);
    expect(paired.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${daemon.port}/#pair=[A-Za-z0-9_-]+\\n$`));
    expect(paired.stderr).toContain('No public URL is set, so a phone or another machine cannot open a link to askbridge: no QR code.');
    expect(paired.stderr).toContain('Tailscale Serve, Caddy, or an SSH tunnel: see "From your phone" in docs/remote.md');
    expect(paired.stderr).toContain(`set its address as "publicUrl" in ${userConfigFile(daemon)}; the running daemon applies it at once`);
    expect(paired.stderr).toMatch(/For another browser on this machine, .* \(or run .*open\):/);
  });

  it('askbridge config says that no public URL is set', async () => {
    const shown = await runCli(['config'], daemon.env);
    expect(shown.stdout).toMatch(/^ {2}publicUrl {11}\(none\) {9}\(not set: only this machine reaches askbridge: see "From your phone" in docs\/remote\.md\)$/m);
    const json = parseJson<{ publicUrl: unknown }>((await runCli(['config', '--json'], daemon.env)).stdout, 'askbridge config --json');
    expect(json.publicUrl).toEqual({ source: 'none', userFile: userConfigFile(daemon) });
  });
});

describe('a publicUrl written into the user config while the daemon runs', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon({ config: { publicUrl: OLD } });
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('is accepted at once, for pairing links, Secure cookies and daemon.json, and the previous one no longer is', { timeout: 30_000 }, async () => {
    expect((await loadPage(daemon, OLD)).status).toBe(200);
    expect((await loadPage(daemon, NEW)).status).toBe(403);

    await writeFile(userConfigFile(daemon), JSON.stringify({ publicUrl: NEW }));
    await daemon.waitForLog(changedTo(NEW), 10_000, 'the new public URL to apply');

    const paired = await runCli(['pair'], daemon.env);
    expect(paired.code).toBe(0);
    const [link, ...qr] = paired.stdout.split('\n');
    expect(link).toMatch(/^https:\/\/new-phone\.example\.test:8443\/#pair=[A-Za-z0-9_-]+$/);
    expect(qr.join('\n')).toMatch(QR_BLOCKS);
    expect(paired.stderr).not.toContain('No public URL');
    expect(paired.stderr).not.toContain('restart needed');

    // The new origin and Host are the page's now; the old ones are refused, as any other.
    expect((await loadPage(daemon, NEW)).status).toBe(200);
    const old = await loadPage(daemon, OLD);
    expect(old.status).toBe(403);
    expect(JSON.parse(old.body).error.code).toBe('forbidden_host');
    const oldOrigin = await requestAs(daemon, { method: 'GET', path: '/', host: `127.0.0.1:${daemon.port}`, origin: OLD });
    expect(JSON.parse(oldOrigin.body).error.code).toBe('forbidden_origin');

    // Pairing through the new address: its link's code, from its origin, gets a Secure cookie.
    const code = new URL(link!).hash.replace('#pair=', '');
    const fromOld = await requestAs(daemon, { method: 'POST', path: '/api/pair', host: new URL(OLD).host, origin: OLD, body: { code } });
    expect(fromOld.status).toBe(403);
    const fromNew = await requestAs(daemon, { method: 'POST', path: '/api/pair', host: new URL(NEW).host, origin: NEW, body: { code } });
    expect(fromNew.status).toBe(200);
    expect(String(fromNew.headers['set-cookie'])).toMatch(/; Secure$/);

    // Remote machines are wired to the new address too (remote-hook reads daemon.json).
    const remote = await runCli(['remote-hook', '--machine', 'ci-runner'], daemon.env);
    expect(remote.stdout).toContain(`"url": "${NEW}${HTTP_HOOK_PATH}"`);
    expect(JSON.parse(readFileSync(join(daemon.home, 'daemon.json'), 'utf8')).publicUrl).toBe(`${NEW}/`);

    const shown = await runCli(['config'], daemon.env);
    expect(shown.stdout).toMatch(/^ {2}publicUrl {11}https:\/\/new-phone\.example\.test:8443 \(user\)$/m);
    const json = parseJson<{ publicUrl: unknown }>((await runCli(['config', '--json'], daemon.env)).stdout, 'askbridge config --json');
    expect(json.publicUrl).toEqual({ url: NEW, source: 'user', userFile: userConfigFile(daemon) });
  });

  it('is not accepted while it is not valid: the last good one stays', { timeout: 30_000 }, async () => {
    await writeFile(userConfigFile(daemon), JSON.stringify({ publicUrl: 'http://plain.example.test' }));
    await daemon.waitForLog((entry) => entry.msg === 'config file is invalid: keeping its last good version' && String(entry.error).includes('publicUrl'), 10_000, 'the invalid edit to be seen');
    expect((await loadPage(daemon, 'http://plain.example.test')).status).toBe(403);
    expect((await loadPage(daemon, NEW)).status).toBe(200);
    expect((await runCli(['pair', '--no-qr'], daemon.env)).stdout).toMatch(/^https:\/\/new-phone\.example\.test:8443\/#pair=/);
  });

  it('taken out of the file, leaves only loopback, and pair says how to set one again', { timeout: 30_000 }, async () => {
    await writeFile(userConfigFile(daemon), JSON.stringify({ waitSeconds: 60 }));
    await daemon.waitForLog(changedTo(null), 10_000, 'the public URL to go');
    expect((await loadPage(daemon, NEW)).status).toBe(403);
    const paired = await runCli(['pair'], daemon.env);
    expect(paired.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#pair=[A-Za-z0-9_-]+\n$/);
    expect(paired.stderr).toContain('No public URL is set');
    expect(JSON.parse(readFileSync(join(daemon.home, 'daemon.json'), 'utf8')).publicUrl).toBeUndefined();
  });
});

describe('a publicUrl in the user config while --public-url is given', () => {
  const FLAG = 'https://flag.example.test';
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon({ config: { publicUrl: OLD }, args: ['--public-url', FLAG] });
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('is not used, and askbridge config and the log say so, when the daemon starts and when the file changes', { timeout: 30_000 }, async () => {
    const atStart = await daemon.waitForLog((entry) => entry.msg === 'publicUrl in the user config is not used: the flag or the environment wins over it');
    expect(atStart).toMatchObject({ publicUrl: OLD, inUse: FLAG, source: 'flag' });
    const shown = await runCli(['config'], daemon.env);
    expect(shown.stdout).toMatch(/^ {2}publicUrl {11}https:\/\/flag\.example\.test \(the --public-url the daemon started with\)$/m);
    expect(shown.stdout).toContain(`    publicUrl ${OLD} in ${userConfigFile(daemon)} is not used: the --public-url the daemon started with wins over the user config`);

    await writeFile(userConfigFile(daemon), JSON.stringify({ publicUrl: NEW }));
    const refused = await daemon.waitForLog((entry) => entry.msg === 'publicUrl changed in the user config, but does not apply', 10_000, 'the change to be refused');
    expect(refused).toMatchObject({ publicUrl: NEW, inUse: FLAG });
    expect((await loadPage(daemon, NEW)).status).toBe(403);
    expect((await loadPage(daemon, FLAG)).status).toBe(200);
    expect((await runCli(['pair', '--no-qr'], daemon.env)).stdout).toMatch(/^https:\/\/flag\.example\.test\/#pair=/);
    const json = parseJson<{ publicUrl: unknown }>((await runCli(['config', '--json'], daemon.env)).stdout, 'askbridge config --json');
    expect(json.publicUrl).toEqual({ url: FLAG, source: 'flag', userFile: userConfigFile(daemon), userValueNotUsed: NEW });
  });
});

const chromium = chromiumAvailability();
const caddy = caddyAvailability();

describe.skipIf(!chromium.available || !caddy.available)('a publicUrl set while the daemon runs, through a TLS front (Caddy)', () => {
  let front: TlsFront;
  let daemon: Daemon;
  let browser: Browser;
  beforeAll(async () => {
    front = await prepareTlsFront();
    daemon = await startDaemon();
    await front.forwardTo(daemon.port);
    browser = await launchBrowser({}, front.chromiumArgs);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    await front?.stop();
  });

  it("pairs a phone through the front once its address is written into the config, and drops it when the address changes again", { timeout: 60_000 }, async () => {
    expect((await throughFront(front, { method: 'GET', path: '/' })).status).toBe(403);
    await writeFile(userConfigFile(daemon), JSON.stringify({ publicUrl: front.origin }));
    await daemon.waitForLog(changedTo(front.origin), 10_000, 'the front to become the public URL');

    const paired = await runCli(['pair', '--no-qr'], daemon.env);
    const link = paired.stdout.trim();
    expect(link.startsWith(`${front.origin}/#pair=`)).toBe(true);
    // Nothing waits for a restart: Web Push signs as the public URL in use at each push.
    expect(paired.stderr).not.toContain('restart needed');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(link);
    await waitForLivePage(page);
    const [cookie] = await context.cookies(front.origin);
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' });

    // A question from another machine, through the front, answered on the phone.
    const payload = freshPayload('01-single-select', 'live-public-url');
    const hook = throughFront(front, { method: 'POST', path: HTTP_HOOK_PATH, headers: { [HOOK_KEY_HEADER]: daemon.hookKey() }, body: JSON.stringify(payload) });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const card = await openAsk(page, question.id, 'tap');
    await card.getByRole('radio', { name: 'PostgreSQL (Recommended)', exact: true }).tap();
    await card.getByRole('button', { name: 'Submit', exact: true }).tap();
    const reply = await hook;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(loadFixture('01-single-select.expected-allow.json'));

    // The address moves elsewhere: the open page is cut off at once, and its cookie and key no longer work there.
    await writeFile(userConfigFile(daemon), JSON.stringify({ publicUrl: OLD }));
    await daemon.waitForLog(changedTo(OLD), 10_000, 'the public URL to move');
    await page.locator('#conn[data-state="reconnecting"]').waitFor({ state: 'attached', timeout: 10_000 });
    const key = await page.evaluate(() => localStorage.getItem('askbridge.pageKey'));
    const session = await throughFront(front, { method: 'GET', path: '/api/session', headers: { cookie: `${cookie!.name}=${cookie!.value}`, 'x-askbridge-key': key ?? '', origin: front.origin } });
    expect(session.status).toBe(403);
    await context.close();
  });
});
