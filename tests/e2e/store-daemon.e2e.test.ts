// The daemon with a shared store set, against a real PostgreSQL (a throwaway cluster of this file's
// own): it registers itself and is seen again; a database it cannot run on (newer than it, or not
// migrated) or a URL with a password in the config keeps it from starting, with a clear message; a
// database that stops under it is reported (status, doctor, the page's banner) and found again
// when it comes back, the daemon running on throughout.
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReply } from '../../src/protocol.js';
import { sleep, waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { assertBuildIsFresh } from '../stack/env.js';
import { listenAsProgram } from '../stack/live-feed.js';
import { LATER_MIGRATION, LATEST_SCHEMA, postgresAvailability, startPostgres, type PostgresCluster } from '../stack/postgres.js';
import { parseJson, runCli } from '../stack/processes.js';
import { migratedDatabase } from '../stack/shared-store.js';

const postgres = postgresAvailability();
let cluster: PostgresCluster;
let daemon: Daemon | undefined;

beforeAll(async () => {
  if (!postgres.available) return;
  assertBuildIsFresh();
  cluster = await startPostgres();
}, 60_000);
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});
afterAll(async () => {
  await cluster?.remove();
});

/** A database of its own for a test, migrated by `askbridge store migrate` unless told not to. */
async function database(name: string, migrated = true): Promise<string> {
  if (migrated) return migratedDatabase(cluster, name);
  await cluster.createDatabase(name);
  return cluster.urlFor(name);
}

/** The daemon's environment: the password from PGPASSWORD, and the store looked at every 200 ms. */
const storeEnv = () => ({ PGPASSWORD: cluster.password, ASKBRIDGE_TEST_STORE_SEEN_MS: '200' });

async function statusOf(running: Daemon): Promise<StatusReply> {
  const result = await runCli(['status', '--json'], running.env);
  return parseJson<StatusReply>(result.stdout, 'status');
}

describe.skipIf(!postgres.available)('the daemon with a shared store', () => {
  it('registers itself in daemons and is seen there again', async () => {
    const url = await database('registers');
    daemon = await startDaemon({ config: { store: url }, env: storeEnv() });
    const id = `${hostname()}:${daemon.port}`;
    const [row] = await cluster.query<{ id: string; url: string; started_at: Date; seen_at: Date }>('SELECT id, url, started_at, seen_at FROM askbridge.daemons', 'registers');
    expect(row).toMatchObject({ id, url: daemon.url });
    await waitUntil(async () => {
      const [again] = await cluster.query<{ seen_at: Date }>('SELECT seen_at FROM askbridge.daemons', 'registers');
      return again && again.seen_at > row!.seen_at ? true : undefined;
    }, 5_000, 'the daemon to be seen again');
    expect(await statusOf(daemon)).toMatchObject({ store: { where: url, reachable: true } });
    const status = await runCli(['status'], daemon.env);
    expect(status.stdout).toContain(`shared store: ${url}, reachable\n`);
  });

  it('reports a database that stops under it, and finds it again when it starts, without stopping', async () => {
    const url = await database('restarts');
    daemon = await startDaemon({ config: { store: url }, env: storeEnv() });
    const pid = daemon.daemonPid();
    const feed = await listenAsProgram(daemon);
    try {
      await cluster.stop();
      const away = await waitUntil(async () => {
        const status = await statusOf(daemon!);
        return status.store?.reachable === false ? status : undefined;
      }, 10_000, 'status to say the store cannot be reached');
      expect(away.store?.reason).toMatch(new RegExp(`cannot reach the store at 127\\.0\\.0\\.1:${cluster.port}: connect ECONNREFUSED|shutting down`));
      const text = await runCli(['status'], daemon.env);
      expect(text.stdout).toMatch(new RegExp(`degraded: the shared store ${url.replace(/[.]/g, '\\.')} cannot be used since .*: `));
      const doctor = await runCli(['doctor', '--json'], daemon.env);
      expect(parseJson<{ findings: { id: string; message: string }[] }>(doctor.stdout, 'doctor').findings).toContainEqual(expect.objectContaining({ id: 'store-unusable', message: expect.stringContaining(url) }));
      await feed.waitFor((messages) => messages.some((message) => message.type === 'banner' && message.message?.startsWith('The shared store cannot be used (') === true));

      await cluster.start();
      await waitUntil(async () => ((await statusOf(daemon!)).store?.reachable ? true : undefined), 15_000, 'status to say the store answers again');
      await feed.waitFor((messages) => messages.at(-1)?.type === 'banner' && (messages.at(-1) as { message: string | null }).message === null);
      expect(daemon.running()).toBe(true);
      expect(daemon.daemonPid()).toBe(pid);
    } finally {
      feed.socket.close();
      // The cluster runs again for the next test whatever happened here.
      await cluster.start().catch(() => undefined);
    }
  });

  it('starts without the password, and says the store asked for one none was given', async () => {
    const url = await database('nopassword');
    daemon = await startDaemon({ config: { store: url }, env: { ASKBRIDGE_TEST_STORE_SEEN_MS: '200' } });
    expect(await statusOf(daemon)).toMatchObject({
      store: { where: url, reachable: false, reason: 'the store asks user "askbridge_test" for a password and none was given: set PGPASSWORD, or add a line to the password file (~/.pgpass, or the file PGPASSFILE names)' },
    });
    // Tried again and again meanwhile, never crashing.
    await daemon.waitForLog((entry) => entry.component === 'store' && entry.msg === 'the shared store cannot be used', 5_000, 'the failure to be logged');
    const pid = daemon.daemonPid();
    // Nothing to await: a few more tries (every 400 ms at most here) go by, and the daemon is the same.
    await sleep(1_500);
    expect(daemon.running()).toBe(true);
    expect(daemon.daemonPid()).toBe(pid);
  });

  it('refuses to start on a database newer than itself, naming both versions', async () => {
    const url = await database('newer');
    await cluster.query(`INSERT INTO askbridge.migrations (name, run_on) VALUES ('${LATER_MIGRATION}', now())`, 'newer');
    await expect(startDaemon({ config: { store: url }, env: storeEnv() })).rejects.toThrow(
      new RegExp(`askbridge start: the shared store cannot be used: .*newer: the store's schema is version ${LATEST_SCHEMA + 1}, newer than this askbridge's \\(version ${LATEST_SCHEMA}; it does not know ${LATER_MIGRATION}\\): upgrade askbridge`),
    );
  });

  it('refuses to start on a database with no schema, saying to run store migrate', async () => {
    const url = await database('unmigrated', false);
    await expect(startDaemon({ config: { store: url }, env: storeEnv() })).rejects.toThrow(/the shared store cannot be used: .*the store has no askbridge schema yet: run `.* store migrate`/);
    // Nothing was made in it.
    expect(await cluster.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'askbridge'", 'unmigrated')).toEqual([]);
  });

  it('refuses to start with a password in the config file URL', async () => {
    const url = await database('password');
    await expect(startDaemon({ config: { store: url.replace('@', ':hunter2@') }, env: storeEnv() })).rejects.toThrow(/the shared store cannot be used: .*must not carry a password/);
  });

  it('takes ASKBRIDGE_STORE over the config file', async () => {
    const url = await database('environment');
    daemon = await startDaemon({ config: { store: cluster.urlFor('not_this_one') }, env: { ...storeEnv(), ASKBRIDGE_STORE: url } });
    expect(await statusOf(daemon)).toMatchObject({ store: { where: url, reachable: true } });
    expect(await cluster.query('SELECT count(*)::int AS count FROM askbridge.daemons', 'environment')).toEqual([{ count: 1 }]);
  });
});
