// A throwaway PostgreSQL cluster for the shared store's tests, one per test file: initdb into a
// temporary folder (a test role with a scram-sha-256 password), listening on 127.0.0.1 at a free
// port and on a unix socket in its own folder, started and stopped with `pg_ctl -w`, restartable with
// its data (a test stops the database under a running daemon and starts it again), removed at the
// end. initdb and postgres refuse to run as root: as root, they run as the `postgres` system user
// (Debian's package makes it), which owns the temporary folder. No service of the machine is used.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './tls-front.js';
import { cannotRunHere } from './unavailable.js';
import { knownMigrations, latestVersion } from '../../src/store/schema.js';

/** The role every test connects as: the cluster's superuser, with a password. */
export const TEST_ROLE = 'askbridge_test';
const TEST_PASSWORD = 'a-test-password-only-here';

export type PostgresCluster = {
  port: number;
  /** The database made for the test (more with createDatabase). */
  database: string;
  /** postgres://askbridge_test@127.0.0.1:PORT/DATABASE: no password, as the config file holds it. */
  url: string;
  /** The password of the test role, as PGPASSWORD gives it. */
  password: string;
  /** A URL for another database of this cluster. */
  urlFor(database: string): string;
  /** Runs SQL as the test role in `database` (default: the test's), and returns its rows. */
  query<T = Record<string, unknown>>(sql: string, database?: string): Promise<T[]>;
  createDatabase(name: string): Promise<void>;
  /** pg_ctl -w stop (fast: connections are closed) and start, the data kept. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster and removes its folder. Safe to call twice. */
  remove(): Promise<void>;
};

/** The folder of PostgreSQL's programs: Debian's /usr/lib/postgresql/VERSION/bin (newest), else initdb's on PATH. */
export function postgresBinDir(): string | undefined {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((version) => existsSync(join(debian, version, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  for (const folder of (process.env.PATH ?? '').split(':')) {
    if (folder && existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'pg_ctl'))) return folder;
  }
  return undefined;
}

/** Whether the store's tests can run here (without PostgreSQL: skipped with a message, or an error in CI). */
export function postgresAvailability(): { available: true } | { available: false; reason: string } {
  if (postgresBinDir() !== undefined) return { available: true };
  const reason = 'PostgreSQL\'s initdb not found under /usr/lib/postgresql/*/bin or on PATH (install the Debian "postgresql" package)';
  cannotRunHere('the shared store tests', reason);
  return { available: false, reason };
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error('PostgreSQL is not installed (postgresAvailability says so first)');
  const root = mkdtempSync(join(tmpdir(), 'askbridge-pg-'));
  const data = join(root, 'data');
  const sockets = join(root, 'sockets');
  const log = join(root, 'postgres.log');
  const passwordFile = join(root, 'password');
  mkdirSync(sockets);
  writeFileSync(passwordFile, `${TEST_PASSWORD}\n`);
  // As root: everything belongs to the postgres user, which runs every program of the cluster.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const owner = postgresUser();
    for (const path of [root, sockets, passwordFile]) chownSync(path, owner.uid, owner.gid);
    chmodSync(root, 0o700);
  }
  const run = (program: string, args: string[]) => {
    const [command, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, program), ...args] : [join(bin, program), ...args];
    try {
      execFileSync(command!, rest, { stdio: 'pipe', encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    } catch (error) {
      const failed = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${program} ${args.join(' ')} failed: ${failed.stderr || failed.stdout || failed.message}`);
    }
  };
  run('initdb', ['-D', data, '-U', TEST_ROLE, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--no-sync']);
  const port = await freePort();
  // fsync off: a test's data need not survive a power cut, and the disk is shared.
  const options = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  let running = false;
  const start = async () => {
    run('pg_ctl', ['-w', '-D', data, '-l', log, '-o', options, 'start']);
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    run('pg_ctl', ['-w', '-D', data, '-m', 'fast', 'stop']);
    running = false;
  };
  await start();
  const urlFor = (database: string) => `postgres://${TEST_ROLE}@127.0.0.1:${port}/${database}`;
  const query = async <T>(sql: string, database = 'askbridge'): Promise<T[]> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: TEST_ROLE, database, password: TEST_PASSWORD });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const createDatabase = async (name: string) => {
    await query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`, 'postgres');
  };
  await createDatabase('askbridge');
  let removed = false;
  return {
    port,
    database: 'askbridge',
    url: urlFor('askbridge'),
    password: TEST_PASSWORD,
    urlFor,
    query,
    createDatabase,
    stop,
    start,
    remove: async () => {
      if (removed) return;
      removed = true;
      try {
        await stop();
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** The postgres system user's ids, from the passwd database. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }));
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root, and there is no postgres user to run PostgreSQL as (install the Debian "postgresql" package, which makes it)');
  }
}

/** The migrations this askbridge ships, oldest first, and the schema version they make. */
export const SHIPPED_MIGRATIONS = knownMigrations();
export const LATEST_SCHEMA = latestVersion(SHIPPED_MIGRATIONS);
/** A migration only a later askbridge would know: what a database migrated by one has run. */
export const LATER_MIGRATION = `${String(LATEST_SCHEMA + 1).padStart(4, '0')}_from-a-later-askbridge`;
