// Two daemons on one shared store (a throwaway PostgreSQL cluster of this file's own) behind one TLS
// front (Caddy, forwarding to the first daemon that answers, then the other), as a team runs them,
// and a real Chromium page paired through the front. The page is paired once, on whichever daemon
// served it, and is a paired page of both; the command hook's question on the other daemon reaches it.
// When the daemon the page is on is killed outright, the page reconnects through the front to the
// other one, still paired, and the question is still there to answer: its hook gets that answer.
// A device unpaired on one daemon is unpaired on the other at once, and its page there closes.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openAsk, waitForLivePage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { assertBuildIsFresh } from '../stack/env.js';
import { freshPayload, loadFixture } from '../stack/fixtures.js';
import { postgresAvailability, startPostgres, type PostgresCluster } from '../stack/postgres.js';
import { parseJson, runCli, runHook } from '../stack/processes.js';
import { migratedDatabase, startOnStore } from '../stack/shared-store.js';
import { caddyAvailability, prepareTlsFront, type TlsFront } from '../stack/tls-front.js';
import type { DevicesReply, StatusReply } from '../../src/protocol.js';

const chromium = chromiumAvailability();
const caddy = caddyAvailability();
const postgres = postgresAvailability();

let cluster: PostgresCluster;
let front: TlsFront;
let browser: Browser;
let first: Daemon;
let second: Daemon;

describe.skipIf(!chromium.available || !caddy.available || !postgres.available)('two daemons sharing a store behind one front', () => {
  beforeAll(async () => {
    assertBuildIsFresh();
    cluster = await startPostgres();
    const url = await migratedDatabase(cluster, 'team');
    front = await prepareTlsFront();
    const start = () => startOnStore(cluster, url, { env: { ASKBRIDGE_PUBLIC_URL: front.origin } });
    [first, second] = await Promise.all([start(), start()]);
    await front.forwardTo(first.port, second.port);
    browser = await launchBrowser({}, front.chromiumArgs);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([first?.stop(), second?.stop()]);
    await front?.stop();
    await cluster?.remove();
  });

  /** A browser paired through the front, on the daemon that serves it (the first while it runs), live. */
  async function pairThroughFront() {
    const paired = await runCli(['pair', '--no-qr'], first.env);
    expect(paired.code, paired.stderr).toBe(0);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(paired.stdout.trim());
    await waitForLivePage(page);
    return { context, page };
  }

  /** The browsers a daemon knows as paired. */
  async function devicesOf(daemon: Daemon) {
    return parseJson<DevicesReply['devices']>((await runCli(['devices', '--json'], daemon.env)).stdout, 'devices');
  }

  it('unpairs a device everywhere: revoked on one daemon, its page on the other closes as unpaired', async () => {
    const { context, page } = await pairThroughFront();
    // The second daemon knows the device too, from the store.
    const device = await waitUntil(async () => (await devicesOf(second))[0], 5_000, 'the second daemon to know the device');
    const revoked = await runCli(['devices', '--revoke', device.id], second.env);
    expect(revoked.code, revoked.stderr).toBe(0);
    await page.locator('#conn[data-state="unpaired"]').waitFor({ state: 'attached', timeout: 5_000 });
    expect(await devicesOf(first)).toEqual([]);
    await context.close();
  });

  it('keeps a page paired through the front when its daemon is killed: it reconnects to the other, where the question still waits, and answers it', async () => {
    const { context, page } = await pairThroughFront();
    await waitUntil(async () => (await devicesOf(second)).length === 1 || undefined, 5_000, 'the second daemon to know the device');

    // A question the command hook asks the second daemon: shown on the page, which the first serves.
    const payload = freshPayload('01-single-select', 'front');
    const hook = runHook(payload, second.env);
    const question = await second.waitForAsk(payload.tool_use_id);
    await openAsk(page, question.id);
    expect((await second.api<StatusReply>('GET', '/api/status')).body.watchers).toBe(0);

    await first.killOutright();
    // The page reconnects through the front to the second daemon: still paired, and the question is there.
    await waitUntil(async () => (await second.api<StatusReply>('GET', '/api/status')).body.watchers === 1 || undefined, 20_000, 'the page to reconnect to the second daemon');
    await waitForLivePage(page);
    const card = await openAsk(page, question.id);
    await card.getByRole('radio', { name: 'PostgreSQL (Recommended)', exact: true }).click();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(loadFixture('01-single-select.expected-allow.json'));
    expect((await second.ask(question.id)).source).toMatchObject({ kind: 'person', client: 'page' });
    await context.close();
  });
});
