// `askbridge store migrate|status`: the shared store (docs/shared-store.md), without the daemon.
// migrate makes or brings up the schema with node-pg-migrate's runner, from the SQL files askbridge
// ships (a second run has nothing to do and says so; a database newer than this askbridge is left
// alone); status says where the store is, whether it answers (and why not), and the database's
// schema version against this askbridge's.
import { parseArgs } from 'node:util';
import type { Client } from 'pg';
import { askbridgeCommand } from '../command-name.js';
import { connectClient, describeStoreError, StoreConnectError } from '../store/connect.js';
import { appliedMigrations, compareSchema, knownMigrations, latestVersion, MIGRATIONS_TABLE, migrationsDir, schemaProblem, STORE_SCHEMA, type SchemaState } from '../store/schema.js';
import { chooseStore, describeStoreSource, describeStoreUrl, type StoreSetting } from '../store/setting.js';
import { userConfigPath } from '../config.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: io.argv, allowPositionals: true, strict: true, options: { json: { type: 'boolean', default: false } } });
  const askbridge = askbridgeCommand(io.env);
  const [action, ...extra] = positionals;
  if (extra.length > 0 || (action !== 'migrate' && action !== 'status')) throw new CliError(`use: ${askbridge} store migrate | status [--json]`, 2);
  const choice = chooseStore(io.env);
  if (choice.kind === 'error') throw new CliError(choice.message);
  if (choice.kind === 'none') {
    if (action === 'status') {
      if (values.json) io.stdout(`${JSON.stringify({ store: null })}\n`);
      else io.stdout(`no store is set: askbridge keeps its state in files in its state directory (set "store" in ${userConfigPath(io.env)}, or ASKBRIDGE_STORE: docs/shared-store.md)\n`);
      return 0;
    }
    throw new CliError(`no store is set: set "store" in ${userConfigPath(io.env)} to a postgres:// URL, or ASKBRIDGE_STORE (docs/shared-store.md)`);
  }
  return action === 'migrate' ? migrate(io, choice.setting, askbridge) : status(io, choice.setting, askbridge, values.json);
}

/** A connected client, or the reason there is none as a CliError. */
async function connect(io: CommandIo, setting: StoreSetting): Promise<Client> {
  try {
    return await connectClient(setting.url, io.env);
  } catch (error) {
    if (error instanceof StoreConnectError) throw new CliError(error.message);
    throw error;
  }
}

async function migrate(io: CommandIo, setting: StoreSetting, askbridge: string): Promise<number> {
  const where = describeStoreUrl(setting.url);
  const client = await connect(io, setting);
  try {
    const before = compareSchema(await appliedMigrations(client), knownMigrations());
    if (before.kind === 'newer') throw new CliError(`${where}: ${schemaProblem(before, askbridge)}; nothing was changed`);
    if (before.kind === 'current') {
      io.stdout(`the store ${where} is at schema version ${before.version} already: nothing to migrate\n`);
      return 0;
    }
    const { runner } = await import('node-pg-migrate');
    const quiet = () => undefined;
    const ran = await runner({
      dbClient: client,
      dir: migrationsDir(),
      direction: 'up',
      schema: STORE_SCHEMA,
      createSchema: true,
      migrationsSchema: STORE_SCHEMA,
      migrationsTable: MIGRATIONS_TABLE,
      // All or nothing, and one migrate at a time: a second one waits for the first, then finds nothing to do.
      singleTransaction: true,
      advisoryLockMode: 'wait',
      logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    });
    io.stdout(`migrated the store ${where} to schema version ${latestVersion(knownMigrations())}: ran ${ran.map((migration) => migration.name).join(', ')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`the migration of ${where} failed, and changed nothing: ${describeStoreError(error, setting.url)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

type Seen = { id: string; url: string; startedAt: string; seenAt: string };

async function status(io: CommandIo, setting: StoreSetting, askbridge: string, json: boolean): Promise<number> {
  const where = describeStoreUrl(setting.url);
  const from = describeStoreSource(setting);
  const daemonVersion = latestVersion(knownMigrations());
  let client: Client;
  try {
    client = await connect(io, setting);
  } catch (error) {
    const reason = (error as Error).message;
    if (json) io.stdout(`${JSON.stringify({ store: where, from, reachable: false, reason, schema: { daemon: daemonVersion } })}\n`);
    else io.stdout(`store: ${where} (from ${from})\nnot reachable: ${reason}\nthis askbridge's schema version: ${daemonVersion}\n`);
    return 1;
  }
  let state: SchemaState;
  let daemons: Seen[] = [];
  try {
    state = compareSchema(await appliedMigrations(client), knownMigrations());
    if (state.kind !== 'unmigrated') {
      const { rows } = await client.query<{ id: string; url: string; started_at: Date; seen_at: Date }>(`SELECT id, url, started_at, seen_at FROM ${STORE_SCHEMA}.daemons ORDER BY seen_at DESC`);
      daemons = rows.map((row) => ({ id: row.id, url: row.url, startedAt: row.started_at.toISOString(), seenAt: row.seen_at.toISOString() }));
    }
  } catch (error) {
    throw new CliError(describeStoreError(error, setting.url));
  } finally {
    await client.end().catch(() => undefined);
  }
  const databaseVersion = state.kind === 'current' ? state.version : state.kind === 'unmigrated' ? null : state.database;
  const problem = schemaProblem(state, askbridge);
  if (json) {
    io.stdout(`${JSON.stringify({ store: where, from, reachable: true, schema: { database: databaseVersion, daemon: daemonVersion, state: state.kind }, ...(problem ? { problem } : {}), daemons })}\n`);
  } else {
    const lines = [
      `store: ${where} (from ${from})`,
      'reachable',
      `schema version: ${databaseVersion ?? 'none'} in the database, ${daemonVersion} in this askbridge${problem ? `: ${problem}` : ' (current)'}`,
      ...daemons.map((daemon) => `daemon ${daemon.id} at ${daemon.url}, started ${daemon.startedAt}, last seen ${daemon.seenAt}`),
    ];
    io.stdout(`${lines.join('\n')}\n`);
  }
  return problem ? 1 : 0;
}
