// From a phone, and from a Claude Code session on another machine: through a real TLS reverse proxy
// (Caddy, with its internal CA) in front of the daemon, which still listens on loopback only and
// accepts the proxy's public origin because its public URL names it.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH } from '../../src/http-hook.js';
import { chromiumAvailability, launchBrowser, openAsk, waitForLivePage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { baseEnv } from '../stack/env.js';
import { freshPayload, loadFixture } from '../stack/fixtures.js';
import { parseJson, runCli } from '../stack/processes.js';
import { caddyAvailability, prepareTlsFront, throughFront, type TlsFront } from '../stack/tls-front.js';

const chromium = chromiumAvailability();
const caddy = caddyAvailability();
const PHONE_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

let front: TlsFront;
let daemon: Daemon;
let browser: Browser;
let phone: { context: BrowserContext; page: Page };
let hookKey: string;

describe.skipIf(!chromium.available || !caddy.available)('through a TLS front (Caddy)', () => {
  beforeAll(async () => {
    front = await prepareTlsFront();
    daemon = await startDaemon({ env: { ASKBRIDGE_PUBLIC_URL: front.origin } });
    await front.forwardTo(daemon.port);
    hookKey = daemon.hookKey();
    browser = await launchBrowser({}, front.chromiumArgs);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    await front?.stop();
  });

  it('pairs a phone with the link askbridge pair prints, with a Secure cookie, and the phone answers a remote hook', async () => {
    const paired = await runCli(['pair', '--no-qr'], daemon.env);
    expect(paired.code).toBe(0);
    const link = paired.stdout.trim();
    expect(link).toMatch(new RegExp(`^${front.origin.replace(/[.]/g, '\\.')}/#pair=[A-Za-z0-9_-]+$`));

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, userAgent: PHONE_UA });
    const page = await context.newPage();
    await page.goto(link);
    await waitForLivePage(page);
    phone = { context, page };
    const cookies = await context.cookies(front.origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' });

    // A Claude Code session elsewhere: its http hook posts through the public URL with the hook key.
    const payload = freshPayload('01-single-select', 'remote');
    const hook = throughFront(front, { method: 'POST', path: HTTP_HOOK_PATH, headers: { [HOOK_KEY_HEADER]: hookKey }, body: JSON.stringify(payload) });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const card = await openAsk(page, question.id, 'tap');
    await card.getByRole('radio', { name: 'PostgreSQL (Recommended)', exact: true }).tap();
    await card.getByRole('button', { name: 'Submit', exact: true }).tap();

    const reply = await hook;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(loadFixture('01-single-select.expected-allow.json'));
    expect((await daemon.ask(question.id)).source).toEqual({ kind: 'person', client: 'page', device: 'Chrome on Android' });
  });

  it('takes a question from a machine wired by askbridge install --url, and the page says which machine asked', async () => {
    const project = await mkdtemp(join(tmpdir(), 'askbridge-remote-project-'));
    try {
      // On the other machine: the command askbridge remote-hook prints here.
      const printed = await runCli(['remote-hook', '--machine', 'ci-runner'], daemon.env);
      expect(printed.code).toBe(0);
      const install = /askbridge (install --url .+)$/m.exec(printed.stderr)?.[1];
      expect(install, printed.stderr).toBeDefined();
      const args = install!.split(' ').map((word) => word.replace(/^'(.*)'$/, '$1'));
      expect((await runCli([...args, '--project', project], baseEnv({ HOME: project }))).code).toBe(0);

      // Claude Code would POST to the entry's URL with its headers ($CI and the like empty here).
      const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8'));
      // What remote-hook prints to paste is exactly what that command writes.
      expect(settings).toEqual(JSON.parse(printed.stdout));
      const entry = settings.hooks.PreToolUse[0].hooks[0] as { url: string; headers: Record<string, string> };
      expect(entry.url).toBe(`${front.origin}${HTTP_HOOK_PATH}`);
      expect(printed.stdout).toContain(entry.headers[HOOK_KEY_HEADER]);
      const headers = Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, value.startsWith('$') ? '' : value]));
      const payload = freshPayload('01-single-select', 'remote-installed');
      const hook = throughFront(front, { method: 'POST', path: new URL(entry.url).pathname, headers, body: JSON.stringify(payload) });
      const question = await daemon.waitForAsk(payload.tool_use_id);
      expect(question.machine).toBe('ci-runner');
      const card = await openAsk(phone.page, question.id, 'tap');
      await expect.poll(async () => card.locator('.meta-line').textContent()).toContain('on ci-runner');
      await card.getByRole('radio', { name: 'SQLite', exact: true }).tap();
      await card.getByRole('button', { name: 'Submit', exact: true }).tap();
      expect((await hook).status).toBe(200);

      // Its SessionEnd entry reaches the daemon the same way, and withdraws that machine's waiting question.
      const ending = settings.hooks.SessionEnd[0].hooks[0] as { url: string; headers: Record<string, string> };
      expect(ending).toEqual({ type: 'http', url: `${front.origin}/api/hook/session-end`, headers: { [HOOK_KEY_HEADER]: entry.headers[HOOK_KEY_HEADER], 'x-askbridge-machine': 'ci-runner' } });
      const next = freshPayload('01-single-select', 'remote-session-end');
      const waiting = throughFront(front, { method: 'POST', path: new URL(entry.url).pathname, headers, body: JSON.stringify(next) });
      const withdrawn = await daemon.waitForAsk(next.tool_use_id);
      const ended = await throughFront(front, { method: 'POST', path: new URL(ending.url).pathname, headers: ending.headers, body: JSON.stringify({ session_id: next.session_id, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }) });
      expect(ended).toMatchObject({ status: 200, body: '' });
      expect(await waiting).toMatchObject({ status: 200, body: '' });
      expect(await daemon.ask(withdrawn.id)).toMatchObject({ status: 'cancelled', source: { kind: 'session-ended' }, machine: 'ci-runner' });
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it('refuses a wrong hook key through the front with 401, and nothing waits (the terminal asks)', async () => {
    const payload = freshPayload('01-single-select', 'remote-wrong-key');
    const reply = await throughFront(front, { method: 'POST', path: HTTP_HOOK_PATH, headers: { [HOOK_KEY_HEADER]: `${hookKey}x` }, body: JSON.stringify(payload) });
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body).error.code).toBe('bad_hook_key');
    expect(await daemon.pending()).toEqual([]);
  });

  it('still refuses every other origin through the front, even with a paired cookie and key', async () => {
    const cookie = (await phone.context.cookies(front.origin))[0]!;
    const key = await phone.page.evaluate(() => localStorage.getItem('askbridge.pageKey'));
    const headers = { cookie: `${cookie.name}=${cookie.value}`, 'x-askbridge-key': key ?? '' };
    expect((await throughFront(front, { method: 'GET', path: '/api/asks', headers: { ...headers, origin: front.origin } })).status).toBe(200);
    for (const origin of ['https://evil.example', front.origin.replace('https:', 'http:'), `${front.origin}.evil.example`, 'null']) {
      const reply = await throughFront(front, { method: 'GET', path: '/api/asks', headers: { ...headers, origin } });
      expect(reply.status, origin).toBe(403);
    }
    expect((await throughFront(front, { method: 'GET', path: '/api/asks', headers: { ...headers, 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
  });

  it("pairs another device from a paired page's QR code, which the page lists and can revoke", async () => {
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const laptop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const first = await desktop.newPage();
      await first.goto((await runCli(['pair', '--no-qr'], daemon.env)).stdout.trim());
      await waitForLivePage(first);
      await first.getByRole('button', { name: 'Devices' }).click();
      await first.getByRole('button', { name: 'Pair a phone or another browser' }).click();
      // The QR code carries the link shown beside it, at the public URL.
      await expect.poll(() => first.locator('.qr').getAttribute('aria-label')).toMatch(/^QR code of https:\/\/askbridge\.test:\d+\/#pair=/);
      const link = (await first.locator('.pair-link code').textContent()) ?? '';
      expect(await first.locator('.qr').getAttribute('aria-label')).toBe(`QR code of ${link}`);

      const second = await laptop.newPage();
      await second.goto(link);
      await waitForLivePage(second);
      // The laptop's own view of itself names its device.
      const laptopId = await second.evaluate(async () => {
        const response = await fetch('/api/devices', { headers: { 'x-askbridge-key': localStorage.getItem('askbridge.pageKey') ?? '' } });
        return ((await response.json()) as { devices: Array<{ id: string; current: boolean }> }).devices.find((device) => device.current)?.id;
      });
      // Closing and opening the list reads it again.
      await first.getByRole('button', { name: 'Devices' }).click();
      await first.getByRole('button', { name: 'Devices' }).click();
      const laptopRow = first.locator(`#devices-list li[data-device-id="${laptopId}"]`);
      await laptopRow.waitFor();
      expect(await first.locator('#devices-list li').filter({ hasText: 'this browser' }).count()).toBe(1);

      await laptopRow.getByRole('button', { name: /^Revoke / }).click();
      // At once: the daemon closed its socket as revoked (a dropped one would be tried again first).
      await second.locator('#unpaired').waitFor({ state: 'visible', timeout: 10_000 });
      expect(await second.locator('#unpaired-detail').textContent()).toBe('This device was unpaired.');
      expect(await first.locator('#conn').getAttribute('data-state')).toBe('live');
    } finally {
      await desktop.close();
      await laptop.close();
    }
  });

  it('lists the phone as a device, and revoking it disconnects the page at once', async () => {
    const listed = await runCli(['devices', '--json'], daemon.env);
    const devices = parseJson<Array<{ id: string; name: string }>>(listed.stdout, 'askbridge devices --json');
    const device = devices.find((entry) => entry.name === 'Chrome on Android');
    expect(device, listed.stdout).toBeDefined();

    expect((await runCli(['devices', '--revoke', device!.id], daemon.env)).code).toBe(0);
    // At once: the daemon closed its socket as revoked (a dropped one would be tried again first).
    await phone.page.locator('#unpaired').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await phone.page.locator('#unpaired-detail').textContent()).toBe('This device was unpaired.');
    const cookie = (await phone.context.cookies(front.origin))[0]!;
    const reply = await throughFront(front, { method: 'GET', path: '/api/session', headers: { cookie: `${cookie.name}=${cookie.value}`, origin: front.origin } });
    expect(reply.status).toBe(401);
    await phone.context.close();
  });
});
