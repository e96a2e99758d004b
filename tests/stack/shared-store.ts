// Daemons on a shared store, for the store's end-to-end tests: a database of a test's own in the
// file's throwaway cluster (postgres.ts), migrated as a person migrates it, and a daemon started on
// it with the password in its environment and the store looked at often, so that a database that
// stops or comes back is noticed in a fraction of a second instead of seconds; and a test file's
// cluster with the daemons its tests start, made and cleaned up around them (useStoreCluster).
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startDaemon, type Daemon, type StartDaemonOptions } from './daemon.js';
import { assertBuildIsFresh, baseEnv } from './env.js';
import { postgresAvailability, startPostgres, type PostgresCluster } from './postgres.js';
import { killStrayProcesses, runCli } from './processes.js';

/** A new database `name` of `cluster`, migrated by `askbridge store migrate`; its URL (no password). */
export async function migratedDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  await cluster.createDatabase(name);
  const url = cluster.urlFor(name);
  const result = await runCli(['store', 'migrate'], baseEnv({ ASKBRIDGE_STORE: url, PGPASSWORD: cluster.password }));
  if (result.code !== 0) throw new Error(`askbridge store migrate exited ${result.code}\n--- stderr\n${result.stderr}`);
  return url;
}

/** A daemon whose user config sets the store at `url` (over what `options.config` says), the password from PGPASSWORD. */
export function startOnStore(cluster: PostgresCluster, url: string, options: StartDaemonOptions = {}): Promise<Daemon> {
  return startDaemon({
    ...options,
    config: { ...options.config, store: url },
    env: { PGPASSWORD: cluster.password, ASKBRIDGE_TEST_STORE_SEEN_MS: '200', ...options.env },
  });
}

export type StoreCluster = {
  /** The file's cluster, made before its first test. */
  cluster(): PostgresCluster;
  /** `count` daemons on a new database of the cluster, migrated, started together (`options` for each by its index); stopped after the test. */
  onNewDatabase(count: number, options?: (index: number) => StartDaemonOptions): Promise<{ daemons: Daemon[]; url: string; name: string }>;
  /** A daemon the test started itself, stopped after it. */
  stopAfterTest(daemon: Daemon): Daemon;
};

/**
 * For a test file of the shared store, called at its top: a throwaway cluster of its own, made before
 * its tests (where PostgreSQL is installed); after each test, its hooks and CLI processes killed, its
 * daemons stopped and the cluster running again, whatever the test did to it; the cluster removed
 * after the file. Each test takes a new database of it, so that no test sees another's state.
 */
export function useStoreCluster(): StoreCluster {
  let cluster: PostgresCluster | undefined;
  const started: Daemon[] = [];
  let databases = 0;
  beforeAll(async () => {
    if (!postgresAvailability().available) return;
    assertBuildIsFresh();
    cluster = await startPostgres();
  }, 60_000);
  afterEach(async () => {
    await killStrayProcesses();
    await Promise.all(started.splice(0).map((daemon) => daemon.stop()));
    await cluster?.start().catch(() => undefined);
  });
  afterAll(async () => {
    await cluster?.remove();
  });
  const made = (): PostgresCluster => {
    if (!cluster) throw new Error('the cluster is made before the first test: use it in a test');
    return cluster;
  };
  return {
    cluster: made,
    async onNewDatabase(count, options = () => ({})) {
      const name = `db_${++databases}`;
      const url = await migratedDatabase(made(), name);
      const daemons = await Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const daemon = await startOnStore(made(), url, options(index));
          started.push(daemon);
          return daemon;
        }),
      );
      return { daemons, url, name };
    },
    stopAfterTest(daemon) {
      started.push(daemon);
      return daemon;
    },
  };
}
