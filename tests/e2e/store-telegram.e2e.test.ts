// Two daemons on one shared store (a throwaway PostgreSQL cluster of this file's own) and one Telegram
// bot (the stand-in Bot API, each daemon through a root of its own, so that its calls are told apart):
// only the daemon holding the store's lock polls the bot, the other makes no call to Telegram at all;
// status and doctor say which; when the poller is killed outright, the other takes over within a few
// of its tries and answers what is sent to the bot from then on. With the database stopped, nobody
// polls, and once it starts again, one does; a poller stopped the usual way hands over too.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReply } from '../../src/protocol.js';
import { now, sleep, waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { assertBuildIsFresh } from '../stack/env.js';
import { postgresAvailability, startPostgres, type PostgresCluster } from '../stack/postgres.js';
import { parseJson, runCli } from '../stack/processes.js';
import { migratedDatabase, startOnStore } from '../stack/shared-store.js';
import { startTelegramApi, type TelegramApi } from '../stack/telegram-api.js';
import { pair } from '../stack/telegram-pairing.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
/** How often a daemon that does not poll tries to take over, here. */
const RETRY_MS = 300;

const postgres = postgresAvailability();
let cluster: PostgresCluster;
let tg: TelegramApi;
const daemons: Daemon[] = [];

beforeAll(async () => {
  if (!postgres.available) return;
  assertBuildIsFresh();
  cluster = await startPostgres();
  tg = await startTelegramApi([TOKEN]);
}, 60_000);
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((daemon) => daemon.stop()));
  // The cluster runs again for the next test whatever happened in this one.
  await cluster?.start().catch(() => undefined);
});
afterAll(async () => {
  await tg?.close();
  await cluster?.remove();
});

type Named = { name: string; daemon: Daemon };

/** Two daemons on the store at `url`, started together, each with the bot through its own root. */
async function twoDaemons(url: string): Promise<Named[]> {
  const started = await Promise.all(
    ['a', 'b'].map(async (name) => {
      const daemon = await startOnStore(cluster, url, {
        config: { telegram: { token: TOKEN, apiRoot: tg.rootFor(name) } },
        env: { ASKBRIDGE_TEST_LEADER_RETRY_MS: String(RETRY_MS) },
      });
      daemons.push(daemon);
      return { name, daemon };
    }),
  );
  return started;
}

async function statusOf(daemon: Daemon): Promise<StatusReply> {
  return parseJson<StatusReply>((await runCli(['status', '--json'], daemon.env)).stdout, 'status');
}

/** Once one daemon polls and the other says another does: the poller, then the other. */
async function pollerOf(both: Named[]): Promise<[Named, Named]> {
  return waitUntil(
    async () => {
      const states = await Promise.all(both.map(async (each) => (await statusOf(each.daemon)).store?.telegram));
      const here = states.indexOf('polling_here');
      if (here === -1 || states[1 - here] !== 'polled_elsewhere' || !tg.openPolls().includes(both[here]!.name)) return undefined;
      return [both[here]!, both[1 - here]!] as [Named, Named];
    },
    15_000,
    'one daemon to poll the bot and the other to say another does',
  );
}

const callsVia = (name: string, method?: string) => tg.calls.filter((call) => call.via === name && (method === undefined || call.method === method));

describe.skipIf(!postgres.available)('one Telegram bot shared by the daemons of one store', () => {
  it('is polled by one daemon only, and by the other within a few tries once that one is killed outright', async () => {
    const [poller, other] = await pollerOf(await twoDaemons(await migratedDatabase(cluster, 'turns')));
    // A few of the other's tries go by: it never calls Telegram, not even getMe.
    await sleep(4 * RETRY_MS);
    expect(callsVia(other.name)).toEqual([]);
    expect(tg.openPolls()).toEqual([poller.name]);

    expect((await runCli(['status'], poller.daemon.env)).stdout).toContain('telegram: polling here\n');
    expect((await runCli(['status'], other.daemon.env)).stdout).toContain('telegram: polled by another daemon\n');
    expect((await runCli(['doctor'], other.daemon.env)).stdout).toContain('telegram: polled by another daemon');
    // Pairing is done from the daemon that polls: the other says so.
    const refused = await runCli(['pair', '--telegram'], other.daemon.env);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('another daemon sharing the store polls the bot: pair from that one');

    const killedAt = now();
    await poller.daemon.killOutright();
    await tg.waitForCall((call) => call.via === other.name && call.method === 'getUpdates', 'the other daemon to poll', 10_000);
    // The database lets go of the lock with the killed daemon's connection: the next try takes it.
    expect(now() - killedAt).toBeLessThan(5_000);
    expect((await statusOf(other.daemon)).store?.telegram).toBe('polling_here');

    // What is sent to the bot now reaches the daemon that took over, and its answer goes out.
    const alice = tg.privateChat(2001, 'alice');
    await pair(tg, other.daemon, alice);
    expect(callsVia(other.name, 'sendMessage').some((call) => call.body.chat_id === alice.id && call.body.text === 'Paired: askbridge will ask here.')).toBe(true);
  });

  it('is polled by nobody while the database is stopped, by one daemon again once it starts, and by the other once that one stops', async () => {
    const both = await twoDaemons(await migratedDatabase(cluster, 'away'));
    const [poller] = await pollerOf(both);

    await cluster.stop();
    // The poller stops at once: its lock went with its connection.
    await poller.daemon.waitForLog((entry) => entry.component === 'telegram' && entry.msg === 'the shared store cannot be reached: no daemon polls the Telegram bot until it can' && entry.stoppedHere === true, 10_000, 'the poller to say it stopped');
    await waitUntil(async () => ((await Promise.all(both.map(async (each) => (await statusOf(each.daemon)).store?.telegram))).every((state) => state === 'waiting_for_store') ? true : undefined), 10_000, 'both daemons to say they wait for the store');
    const polls = tg.calls.filter((call) => call.method === 'getUpdates').length;
    await sleep(4 * RETRY_MS);
    expect(tg.openPolls()).toEqual([]);
    expect(tg.calls.filter((call) => call.method === 'getUpdates')).toHaveLength(polls);
    expect((await runCli(['status'], poller.daemon.env)).stdout).toContain('telegram: waiting for the shared store\n');
    const doctor = await runCli(['doctor', '--json'], poller.daemon.env);
    expect(parseJson<{ findings: { id: string }[] }>(doctor.stdout, 'doctor').findings).toContainEqual(expect.objectContaining({ id: 'telegram-not-polled' }));

    await cluster.start();
    const [again, other] = await pollerOf(both);

    // A daemon stopped the usual way lets go of the lock as it stops: the other takes over.
    const stoppedAt = tg.calls.length;
    await again.daemon.stop();
    await tg.waitForCall((call) => tg.calls.indexOf(call) >= stoppedAt && call.via === other.name && call.method === 'getUpdates', 'the other daemon to poll', 10_000);
    expect((await statusOf(other.daemon)).store?.telegram).toBe('polling_here');
  });
});
