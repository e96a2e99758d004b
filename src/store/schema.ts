// The store's schema: the migration files askbridge ships (migrations/*.sql, found from the package
// root, so a clone and an installed package alike find them), and how a database's schema compares
// with them. A database that ran a migration this askbridge does not know is newer than it: the
// daemon refuses to run on it. One that lacks some is older: `askbridge store migrate` brings it up.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ownFolders } from '../package-root.js';

/** The PostgreSQL schema that holds every table of askbridge's, and the table of migrations run. */
export const STORE_SCHEMA = 'askbridge';
export const MIGRATIONS_TABLE = 'migrations';

/** The folder of migration files, from the package root (a bundle does not move it). */
export function migrationsDir(): string {
  return fileURLToPath(new URL('migrations/', ownFolders(import.meta.url).packageRoot));
}

/** The migrations this askbridge knows, oldest first, by name (a file's name without .sql). */
export function knownMigrations(): string[] {
  return readdirSync(migrationsDir())
    .filter((name) => /^\d{4}_[a-z0-9-]+\.sql$/.test(name))
    .sort()
    .map((name) => name.slice(0, -'.sql'.length));
}

/** A schema version: the number a migration's name starts with (0001_first-schema is 1). */
export function versionOf(migration: string): number {
  return Number.parseInt(migration, 10);
}

/** The newest version among these migrations; 0 for none. */
export function latestVersion(migrations: readonly string[]): number {
  return Math.max(0, ...migrations.map(versionOf));
}

export type SchemaState =
  | { kind: 'current'; version: number }
  | { kind: 'unmigrated'; daemon: number }
  | { kind: 'older'; database: number; daemon: number }
  | { kind: 'newer'; database: number; daemon: number; unknown: string[] };

/** Something that runs a query: a pg.Client or a pg.Pool. */
export type Queryable = { query: (text: string) => Promise<{ rows: unknown[] }> };

/** The names of the migrations the database has run, oldest first; none when it has no table of them yet. */
export async function appliedMigrations(db: Queryable): Promise<string[]> {
  try {
    const { rows } = await db.query(`SELECT name FROM ${STORE_SCHEMA}.${MIGRATIONS_TABLE} ORDER BY run_on, id`);
    return rows.map((row) => String((row as { name: unknown }).name));
  } catch (error) {
    // undefined_table: no migration ever ran here.
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === '42P01') return [];
    throw error;
  }
}

/** How the database's schema stands against the migrations this askbridge ships. */
export function compareSchema(applied: readonly string[], known: readonly string[]): SchemaState {
  const daemon = latestVersion(known);
  if (applied.length === 0) return { kind: 'unmigrated', daemon };
  const database = latestVersion(applied);
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) return { kind: 'newer', database, daemon, unknown };
  if (known.some((name) => !applied.includes(name))) return { kind: 'older', database, daemon };
  return { kind: 'current', version: daemon };
}

/** Why a daemon cannot run on this schema, in words; undefined when it can. */
export function schemaProblem(state: SchemaState, command: string): string | undefined {
  switch (state.kind) {
    case 'current':
      return undefined;
    case 'unmigrated':
      return `the store has no askbridge schema yet: run \`${command} store migrate\` (it makes schema version ${state.daemon})`;
    case 'older':
      return `the store's schema is version ${state.database}, older than this askbridge's (version ${state.daemon}): run \`${command} store migrate\``;
    case 'newer':
      return `the store's schema is version ${state.database}, newer than this askbridge's (version ${state.daemon}; it does not know ${state.unknown.join(', ')}): upgrade askbridge on this machine to the version that migrated it`;
  }
}
