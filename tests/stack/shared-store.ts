// Daemons on a shared store, for the store's end-to-end tests: a database of a test's own in the
// file's throwaway cluster (postgres.ts), migrated as a person migrates it, and a daemon started on
// it with the password in its environment and the store looked at often, so that a database that
// stops or comes back is noticed in a fraction of a second instead of seconds.
import { startDaemon, type Daemon, type StartDaemonOptions } from './daemon.js';
import { baseEnv } from './env.js';
import type { PostgresCluster } from './postgres.js';
import { runCli } from './processes.js';

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
