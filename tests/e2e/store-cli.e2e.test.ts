// `askbridge store migrate` and `askbridge store status` against a real PostgreSQL (a throwaway
// cluster of this file's own, tests/stack/postgres.ts): the schema made once and only once, the
// versions said, a newer database left alone, and every way of not getting in said clearly.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuildIsFresh, baseEnv } from '../stack/env.js';
import { LATER_MIGRATION as LATER, LATEST_SCHEMA as LATEST, postgresAvailability, SHIPPED_MIGRATIONS as SHIPPED, startPostgres, type PostgresCluster } from '../stack/postgres.js';
import { parseJson, runCli } from '../stack/processes.js';
import { freePort } from '../stack/tls-front.js';

const postgres = postgresAvailability();
let cluster: PostgresCluster;
let root: string;

beforeAll(async () => {
  if (!postgres.available) return;
  assertBuildIsFresh();
  cluster = await startPostgres();
  root = mkdtempSync(join(tmpdir(), 'askbridge-store-cli-'));
}, 60_000);
afterAll(async () => {
  await cluster?.remove();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The CLI's environment: a user config of its own with `config` in it, and PGPASSWORD unless told otherwise. */
function envWith(config: Record<string, unknown> | undefined, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const configHome = mkdtempSync(join(root, 'config-'));
  mkdirSync(join(configHome, 'askbridge'));
  if (config) writeFileSync(join(configHome, 'askbridge', 'config.json'), JSON.stringify(config));
  return baseEnv({ XDG_CONFIG_HOME: configHome, HOME: root, ASKBRIDGE_HOME: join(configHome, 'state'), PGPASSWORD: cluster.password, ...extra });
}

type StoreStatus = { store: string; from: string; reachable: boolean; reason?: string; schema: { database?: number | null; daemon: number; state?: string }; problem?: string };

describe.skipIf(!postgres.available)('askbridge store', () => {
  it('migrate makes the schema in its own namespace, and a second run does nothing and says so', async () => {
    await cluster.createDatabase('fresh');
    const env = envWith({ store: cluster.urlFor('fresh') });

    const before = await runCli(['store', 'status', '--json'], env);
    expect(before.code).toBe(1);
    expect(parseJson<StoreStatus>(before.stdout, 'store status')).toMatchObject({ reachable: true, schema: { database: null, daemon: LATEST, state: 'unmigrated' }, problem: expect.stringContaining('store migrate') });

    const first = await runCli(['store', 'migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`migrated the store ${cluster.urlFor('fresh')} to schema version ${LATEST}: ran ${SHIPPED.join(', ')}\n`);
    const tables = await cluster.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'askbridge' ORDER BY table_name", 'fresh');
    expect(tables.map((table) => table.table_name)).toEqual(['asks', 'audit', 'daemons', 'documents', 'history', 'migrations', 'requests']);
    // Nothing of askbridge's outside its schema.
    expect(await cluster.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'", 'fresh')).toEqual([]);

    const second = await runCli(['store', 'migrate'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`the store ${cluster.urlFor('fresh')} is at schema version ${LATEST} already: nothing to migrate\n`);
    expect(await cluster.query('SELECT name FROM askbridge.migrations', 'fresh')).toEqual(SHIPPED.map((name) => ({ name })));

    const after = await runCli(['store', 'status'], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`store: ${cluster.urlFor('fresh')} (from ${join(env.XDG_CONFIG_HOME!, 'askbridge', 'config.json')})\nreachable\nschema version: ${LATEST} in the database, ${LATEST} in this askbridge (current)\n`);
  });

  it('leaves a database newer than this askbridge alone, naming both versions', async () => {
    await cluster.createDatabase('future');
    const env = envWith({ store: cluster.urlFor('future') });
    expect((await runCli(['store', 'migrate'], env)).code).toBe(0);
    // A migration a later askbridge ran.
    await cluster.query(`INSERT INTO askbridge.migrations (name, run_on) VALUES ('${LATER}', now())`, 'future');

    const status = await runCli(['store', 'status', '--json'], env);
    expect(status.code).toBe(1);
    expect(parseJson<StoreStatus>(status.stdout, 'store status')).toMatchObject({ schema: { database: LATEST + 1, daemon: LATEST, state: 'newer' } });

    const migrate = await runCli(['store', 'migrate'], env);
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toMatch(new RegExp(`^askbridge store: .*the store's schema is version ${LATEST + 1}, newer than this askbridge's \\(version ${LATEST}; it does not know ${LATER}\\): upgrade askbridge .*; nothing was changed\n$`));
    expect(await cluster.query('SELECT count(*)::int AS count FROM askbridge.migrations', 'future')).toEqual([{ count: SHIPPED.length + 1 }]);
  });

  it('refuses a URL with a password in the config file, and says where the password goes instead', async () => {
    const withPassword = cluster.url.replace('@', ':hunter2@');
    const env = envWith({ store: withPassword });
    for (const action of ['status', 'migrate']) {
      const result = await runCli(['store', action], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/store: a store URL in a config file must not carry a password .*PGPASSWORD or a password file \(~\/\.pgpass, or the file PGPASSFILE names\)/);
      expect(result.stderr).not.toContain('hunter2');
    }
  });

  it('takes ASKBRIDGE_STORE over the config file', async () => {
    const nothingThere = `postgres://askbridge_test@127.0.0.1:${await freePort()}/askbridge`;
    const env = envWith({ store: nothingThere }, { ASKBRIDGE_STORE: cluster.url });
    const result = await runCli(['store', 'status', '--json'], env);
    expect(parseJson<StoreStatus>(result.stdout, 'store status')).toMatchObject({ store: cluster.url, from: 'ASKBRIDGE_STORE', reachable: true });
  });

  it('says why it cannot get in: a wrong password, no password, no such database, nothing listening', async () => {
    const wrong = await runCli(['store', 'migrate'], envWith({ store: cluster.url }, { PGPASSWORD: 'not-the-password' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(`askbridge store: the store refused the password of user "askbridge_test" (password authentication failed for user "askbridge_test"): check PGPASSWORD or the password file (~/.pgpass, or PGPASSFILE)\n`);

    const env = envWith({ store: cluster.url });
    delete env.PGPASSWORD;
    const none = await runCli(['store', 'migrate'], env);
    expect(none.stderr).toBe('askbridge store: the store asks user "askbridge_test" for a password and none was given: set PGPASSWORD, or add a line to the password file (~/.pgpass, or the file PGPASSFILE names)\n');

    // The password file works where PGPASSWORD is not set.
    const passwordFile = join(root, 'pgpass');
    writeFileSync(passwordFile, `127.0.0.1:${cluster.port}:*:askbridge_test:${cluster.password}\n`, { mode: 0o600 });
    const fromFile = await runCli(['store', 'status', '--json'], { ...env, PGPASSFILE: passwordFile });
    expect(parseJson<StoreStatus>(fromFile.stdout, 'store status')).toMatchObject({ reachable: true });

    const noDatabase = await runCli(['store', 'migrate'], envWith({ store: cluster.urlFor('nothing_here') }));
    expect(noDatabase.stderr).toBe(`askbridge store: there is no database "nothing_here" at 127.0.0.1:${cluster.port}: create it (docs/shared-store.md), or fix the URL\n`);

    const port = await freePort();
    const unreachable = await runCli(['store', 'status'], envWith({ store: `postgres://askbridge_test@127.0.0.1:${port}/askbridge` }));
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toContain(`not reachable: cannot reach the store at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });

  it('says when no store is set, and status is content with that', async () => {
    const env = envWith(undefined);
    const status = await runCli(['store', 'status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^no store is set: askbridge keeps its state in files/);
    const migrate = await runCli(['store', 'migrate'], env);
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toMatch(/^askbridge store: no store is set: set "store" in .*config\.json to a postgres:\/\/ URL, or ASKBRIDGE_STORE/);
  });
});
