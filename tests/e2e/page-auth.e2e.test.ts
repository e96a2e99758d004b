// A cookie alone is worth nothing, and no other process can serve askbridge's names. Browsers send
// a host's cookies to every port of it: a sibling server on another loopback port, visited by the
// paired browser, receives the askbridge cookie. Replayed, or used from that server's page, it must
// open nothing. And a process on [::1]:PORT must never be what http://localhost:PORT/ shows.
import { createServer as createNetServer } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';

const browserTests = chromiumAvailability().available ? describe : describe.skip;

browserTests('a sibling server on another loopback port', () => {
  let daemon: Daemon;
  let browser: Browser;
  let sibling: Server;
  let siblingPort: number;
  const cookiesSeen: string[] = [];
  // What the sibling's own page managed to do against the daemon, reported back to it.
  const reports: string[] = [];

  beforeAll(async () => {
    daemon = await startDaemon({ config: { waitSeconds: 60 } });
    browser = await launchBrowser();
    sibling = createServer((request, response) => {
      if (request.headers.cookie) cookiesSeen.push(request.headers.cookie);
      if (request.url?.startsWith('/report')) {
        reports.push(decodeURIComponent(request.url.slice('/report?'.length)));
        return response.writeHead(204).end();
      }
      // A page that tries the daemon's API and WebSocket with the browser's cookies.
      const target = `127.0.0.1:${daemon.port}`;
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><script>
        const report = (what) => fetch('/report?' + encodeURIComponent(what));
        fetch('http://${target}/api/asks', { credentials: 'include' }).then((r) => r.text().then((t) => report('fetch ' + r.status + ' ' + t.slice(0, 80))), (e) => report('fetch failed'));
        const ws = new WebSocket('ws://${target}/ws', ['askbridge', 'key.']);
        ws.onmessage = (m) => report('ws message ' + String(m.data).slice(0, 80));
        ws.onerror = () => report('ws error');
      </script>`);
    });
    await new Promise<void>((listening) => sibling.listen(0, '127.0.0.1', listening));
    siblingPort = (sibling.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await browser?.close();
    sibling?.closeAllConnections();
    sibling?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  it('gets the cookie from the browser, but neither its page nor a replay of the cookie can list, read, answer or listen', async () => {
    const payload = freshPayload('01-single-select', 'sibling');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const { context, page } = await openPairedPage(browser, daemon);
    await page.locator(`[data-question-id="${question.id}"]`).waitFor();

    // The same browser visits the sibling: it sends the askbridge cookie there.
    const visit = await context.newPage();
    await visit.goto(`http://127.0.0.1:${siblingPort}/`);
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const stolen = cookiesSeen.map((header) => header.split(';').map((part) => part.trim()).find((part) => part.startsWith(`askbridge_${daemon.port}=`))).find(Boolean);
    expect(stolen, 'browsers share cookies across the ports of a host').toBeDefined();
    expect(reports.join('\n')).not.toMatch(/fetch 200|ws message/);

    // Replayed from outside a browser: with a forged Origin, with none, claiming same-origin.
    const base = `http://127.0.0.1:${daemon.port}`;
    const headerSets: Array<Record<string, string>> = [
      { cookie: stolen! },
      { cookie: stolen!, origin: base },
      { cookie: stolen!, 'sec-fetch-site': 'same-origin' },
      { cookie: stolen!, origin: `http://127.0.0.1:${siblingPort}` },
    ];
    for (const headers of headerSets) {
      expect((await fetch(`${base}/api/asks`, { headers })).status, JSON.stringify(headers)).toBeGreaterThanOrEqual(401);
      expect((await fetch(`${base}/api/asks/${question.id}`, { headers })).status).toBeGreaterThanOrEqual(401);
      const answered = await fetch(`${base}/api/asks/${question.id}/answer`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ responses: [{ question: payload.tool_input.questions[0]!.question, selected: ['SQLite'] }] }),
      });
      expect(answered.status).toBeGreaterThanOrEqual(401);
    }
    expect((await daemon.ask(question.id)).status).toBe('pending');

    // The paired page itself still works: it answers.
    await page.locator(`[data-question-id="${question.id}"]`).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await page.locator(`[data-question-id="${question.id}"]`).getByRole('button', { name: 'Submit', exact: true }).click();
    expect(JSON.parse((await hook.result).stdout).hookSpecificOutput.updatedInput.answers).toEqual({ [payload.tool_input.questions[0]!.question]: 'SQLite' });
    await context.close();
  });
});

browserTests('the names localhost and [::1]', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a daemon holds [::1] on its port too: nothing else can take it, and Chromium at http://localhost:PORT/ gets askbridge', async () => {
    const daemon = await startDaemon();
    try {
      const squatter = createNetServer();
      const bound = await new Promise<string>((done) => {
        squatter.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'));
        squatter.listen({ host: '::1', port: daemon.port, ipv6Only: true }, () => done('bound'));
      });
      squatter.close();
      expect(bound).toBe('EADDRINUSE');
      const context = await browser.newContext();
      const page = await context.newPage();
      const response = await page.goto(`http://localhost:${daemon.port}/`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('askbridge');
      const ipv6 = await fetch(`http://[::1]:${daemon.port}/`);
      expect(ipv6.status).toBe(200);
      expect(ipv6.headers.get('content-security-policy')).toContain("default-src 'none'");
      await context.close();
    } finally {
      await daemon.stop();
    }
  });

  it('refuses to start, in one line, when another process holds [::1] on its port', async () => {
    // Find a port free on 127.0.0.1, then squat it on [::1] only.
    const probe = createNetServer();
    const port = await new Promise<number>((done) => probe.listen(0, '127.0.0.1', () => done((probe.address() as AddressInfo).port)));
    await new Promise((closed) => probe.close(closed));
    const squatter = createServer((_request, response) => response.end('<title>not askbridge</title>'));
    await new Promise<void>((listening) => squatter.listen({ host: '::1', port, ipv6Only: true }, listening));
    try {
      await expect(startDaemon({ env: { ASKBRIDGE_PORT: String(port) } })).rejects.toThrow(/another program holds \[::1\]:\d+, so a browser opening http:\/\/localhost:\d+\/ could reach it/);
    } finally {
      squatter.close();
    }
  });
});
