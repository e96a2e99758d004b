// Two daemons on one shared store (a throwaway PostgreSQL cluster of this file's own) share what
// each kept alone before. Browsers pairing at the same moment, one on each daemon, are all paired on
// both: neither daemon's write of the paired pages loses the other's. A remote http hook's key, made
// by one daemon, is accepted by the other, and refused there once the first rotates it (only its
// digest is in the store). A device that turned push on through one daemon is pushed by the other,
// signed with the one set of VAPID keys they share; a daemon that joins with keys of its own signs
// with the store's instead, and says so.
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DevicesReply } from '../../src/protocol.js';
import { newPairingUrl } from '../stack/browser.js';
import { now, waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { pairOverHttp } from '../stack/page-client.js';
import { postgresAvailability, startPostgres, type PostgresCluster } from '../stack/postgres.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';
import { checkVapid, decryptPush, newSubscriptionKeys } from '../stack/push-service.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';
import { migratedDatabase, startOnStore } from '../stack/shared-store.js';

const postgres = postgresAvailability();
let cluster: PostgresCluster;
let url: string;
let receiver: Receiver;
let first: Daemon;
let second: Daemon;

/** A daemon on the store that lets the test's stand-in push service through. */
const start = (options: { home?: string } = {}) => startOnStore(cluster, url, { ...options, config: { waitSeconds: 120 }, env: { ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });

describe.skipIf(!postgres.available)('what two daemons on one store keep together', () => {
  beforeAll(async () => {
    cluster = await startPostgres();
    url = await migratedDatabase(cluster, 'documents');
    receiver = await startReceiver();
    [first, second] = await Promise.all([start(), start()]);
  }, 90_000);
  afterEach(killStrayProcesses);
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await receiver?.close();
    await cluster?.remove();
  });

  /** A page's request with its cookie under `daemon`'s name (a front gives every daemon the same one), its key and `daemon`'s Origin. */
  async function asPage(daemon: Daemon, page: { cookie: string; key: string }, path: string) {
    const origin = daemon.url.replace(/\/$/, '');
    const response = await fetch(`${origin}${path}`, { headers: { origin, cookie: `askbridge_${daemon.port}=${page.cookie}`, 'x-askbridge-key': page.key }, signal: AbortSignal.timeout(5000) });
    await response.body?.cancel();
    return response.status;
  }

  /** Trades a one-time code for a page session on `daemon`, as the page does. */
  async function pair(daemon: Daemon, code: string) {
    const origin = daemon.url.replace(/\/$/, '');
    const paired = await fetch(`${origin}/api/pair`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(paired.status, await paired.clone().text()).toBe(200);
    const { key } = (await paired.json()) as { key: string };
    const cookie = (paired.headers.get('set-cookie') ?? '').split(';')[0]!.split('=').slice(1).join('=');
    return { cookie, key };
  }

  const devicesOf = async (daemon: Daemon) => (await daemon.api<DevicesReply>('GET', '/api/devices')).body.devices;

  it('pairs browsers at the same moment on both daemons, and every one of them is paired on both', async () => {
    const ROUNDS = 5;
    const pages: Array<{ cookie: string; key: string }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const codes = await Promise.all([first, second].map(async (daemon) => new URL(await newPairingUrl(daemon)).hash.slice('#pair='.length)));
      // Both pairings are written to the store at once, each daemon from the paired pages as it had them.
      pages.push(...(await Promise.all([pair(first, codes[0]!), pair(second, codes[1]!)])));
    }
    for (const daemon of [first, second]) {
      await waitUntil(async () => ((await devicesOf(daemon)).length === 2 * ROUNDS ? true : undefined), 5_000, `the ${daemon === first ? 'first' : 'second'} daemon to know every device`);
    }
    const kept = (await cluster.query<{ body: unknown[] }>("SELECT body FROM askbridge.documents WHERE name = 'page-sessions'", 'documents'))[0]!.body;
    expect(kept).toHaveLength(2 * ROUNDS);
    for (const page of pages) {
      expect(await asPage(first, page, '/api/devices')).toBe(200);
      expect(await asPage(second, page, '/api/devices')).toBe(200);
    }
  });

  /** What the second daemon answers an http hook sending `key` (a body it refuses once the key is taken: 400). */
  const secondAnswersKey = async (key: string) => (await postAsHttpHook({ port: second.port, key, payload: {} }).response).statusCode;

  it("accepts the first daemon's hook key on the second, and refuses it there within a second of its rotation", async () => {
    const key = first.hookKey();
    expect(second.hookKey()).not.toBe(key);
    // A remote hook's question with the first daemon's key, sent to the second (as a front may): asked there, and answered.
    const payload = freshPayload('01-single-select', 'remote-key');
    const asked = postAsHttpHook({ port: second.port, key, payload });
    const { id } = await second.waitForAsk(payload.tool_use_id);
    const answered = await runCli(['answer', id, '--pick', '1=SQLite'], second.env);
    expect(answered.code, answered.stderr).toBe(0);
    const reply = await asked.response;
    expect(reply.statusCode, reply.body).toBe(200);
    expect(JSON.stringify(JSON.parse(reply.body))).toContain('SQLite');
    // The store holds digests, never a key.
    const digests = (await cluster.query<{ body: Record<string, string> }>("SELECT body FROM askbridge.documents WHERE name = 'hook-keys'", 'documents'))[0]!.body;
    expect(Object.values(digests)).toHaveLength(2);
    expect(JSON.stringify(digests)).not.toContain(key);
    expect(JSON.stringify(digests)).not.toContain(second.hookKey());

    const rotated = await runCli(['install', '--rotate-key'], first.env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedAt = now();
    await waitUntil(async () => ((await secondAnswersKey(key)) === 401 ? true : undefined), 5_000, 'the second daemon to refuse the rotated key');
    expect(now() - rotatedAt).toBeLessThan(1_500);
    const refused = await postAsHttpHook({ port: second.port, key, payload: freshPayload('01-single-select', 'old-key') }).response;
    expect(refused.statusCode).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'bad_hook_key' } });
    // The new key works on both; the first refuses the old one too.
    expect(await secondAnswersKey(first.hookKey())).toBe(400);
    expect((await postAsHttpHook({ port: first.port, key, payload: {} }).response).statusCode).toBe(401);
    await expect(secondAnswersKey(randomBytes(32).toString('base64url'))).resolves.toBe(401);
  });

  it('pushes, from the daemon holding a question, to a device that turned push on through the other', async () => {
    const phone = await pairOverHttp(first);
    const keys = newSubscriptionKeys();
    const saved = await phone.request('POST', '/api/push/subscription', { endpoint: `${receiver.origin}/push/phone`, expirationTime: null, keys: keys.json });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const { body: status } = await phone.request<{ publicKey: string; subscribed: boolean }>('GET', '/api/push');
    // Both daemons sign with the same keys.
    const onSecond = await pairOverHttp(second);
    expect((await onSecond.request<{ publicKey: string }>('GET', '/api/push')).body.publicKey).toBe(status.publicKey);

    // A question the command hook asks the second daemon: it pushes to the phone.
    const payload = freshPayload('01-single-select', 'push-across');
    const hook = runHook(payload, second.env);
    const { id } = await second.waitForAsk(payload.tool_use_id);
    const [request] = await receiver.waitFor('/push/phone', 1, 10_000);
    checkVapid(request!.headers.authorization, { publicKey: status.publicKey, audience: receiver.origin });
    expect(JSON.parse(decryptPush(request!.body, keys))).toMatchObject({ id, project: 'acme-shop' });
    const answered = await runCli(['answer', id, '--pick', '1=SQLite'], second.env);
    expect(answered.code, answered.stderr).toBe(0);
    expect((await hook.result).code).toBe(0);
  });

  it("makes a daemon that joins with VAPID keys of its own sign with the store's, and say so", async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-own-keys-'));
    const curve = createECDH('prime256v1');
    curve.generateKeys();
    await writeFile(join(home, 'vapid-keys.json'), JSON.stringify({ publicKey: curve.getPublicKey().toString('base64url'), privateKey: Buffer.concat([Buffer.alloc(32 - curve.getPrivateKey().length), curve.getPrivateKey()]).toString('base64url') }), { mode: 0o600 });
    const third = await start({ home });
    try {
      await third.waitForLog((entry) => entry.msg?.startsWith("Web Push signs with the shared store's VAPID keys") === true, 5_000, 'the third daemon to say it signs with the shared keys');
      const page = await pairOverHttp(third);
      const shared = (await (await pairOverHttp(first)).request<{ publicKey: string }>('GET', '/api/push')).body.publicKey;
      expect((await page.request<{ publicKey: string }>('GET', '/api/push')).body.publicKey).toBe(shared);
    } finally {
      await third.stop();
    }
  });
});

