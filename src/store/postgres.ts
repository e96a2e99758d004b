// The daemon's connection to the shared store: a pool opened from the setting, the schema checked
// at start, the daemon registered in `daemons` and seen there again every little while, and whether
// the store can be reached now (and why not). A store that goes away never stops the daemon: the pool's
// errors are caught, and it is tried again with a growing pause until it answers. What is shared
// through it comes in later parts; this part only connects, checks and registers.
// pg is loaded only here, when a store is set (the bundle keeps it apart: scripts/bundle-daemon.mjs).
import type { Pool } from 'pg';
import type { StoreHealth } from '../protocol.js';
import { clientConfig, describeStoreError } from './connect.js';
import { appliedMigrations, compareSchema, knownMigrations, schemaProblem, type SchemaState } from './schema.js';
import { describeStoreUrl, type StoreSetting } from './setting.js';

/** The channel (LISTEN/NOTIFY) on which the daemons sharing a store tell each other what changed. */
export const STORE_CHANNEL = 'askbridge';

/** How often a daemon is seen again in `daemons`, which also tells whether the store still answers. */
export const SEEN_EVERY_MS = 15_000;
/** The first pause before trying an unreachable store again, and the longest (never over twice the seen interval). */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;

export type SharedStore = {
  health: () => StoreHealth;
  /** The pool, for what holds a connection of its own (leader.ts) and what is shared (daemon/shared-asks.ts). */
  pool: Pool;
  /** How often the daemon is seen again in `daemons`. */
  seenEveryMs: number;
  /** Why a query failed, in words, as the health says it (describeStoreError). */
  describeError: (error: unknown) => string;
  close: () => Promise<void>;
};

/** A database this daemon must not run on: its schema is newer, older, or not there. */
export class StoreSchemaError extends Error {
  constructor(
    readonly state: SchemaState,
    message: string,
  ) {
    super(message);
  }
}

export type StoreLog = { info: (fields: Record<string, unknown>, message: string) => void; warn: (fields: Record<string, unknown>, message: string) => void };

export type StoreOptions = {
  setting: StoreSetting;
  env: NodeJS.ProcessEnv;
  /** How askbridge is run here, for the hints in messages. */
  command: string;
  /** This daemon in `daemons`: its id (stable across its restarts) and where it is reached. */
  daemon: { id: string; url: string };
  log: StoreLog;
  /** The health changed (reachable or not, or another reason). */
  onChange: (health: StoreHealth) => void;
  /** How often the daemon is seen again (tests make it short). */
  seenEveryMs?: number;
};

/**
 * Opens the store. A schema the daemon cannot run on throws StoreSchemaError: the daemon does not
 * start. A store that cannot be reached does not throw: the daemon starts, reports it, and keeps trying.
 */
export async function openStore(options: StoreOptions): Promise<SharedStore> {
  const { setting, log } = options;
  const seenEveryMs = options.seenEveryMs ?? SEEN_EVERY_MS;
  const retryMaxMs = Math.min(RETRY_MAX_MS, 2 * seenEveryMs);
  const where = describeStoreUrl(setting.url);
  const { default: pg } = await import('pg');
  const pool: Pool = new pg.Pool({ ...clientConfig(setting.url, options.env), max: 6, idleTimeoutMillis: 10_000 });
  const startedAt = new Date();
  let health: StoreHealth = { where, reachable: false, reason: 'not checked yet', since: Date.now() };
  let timer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_FIRST_MS;
  let closed = false;
  // The schema is checked again after the store was away: it may come back migrated by a newer askbridge.
  let schemaChecked = false;

  const set = (reachable: boolean, reason?: string) => {
    if (health.reachable === reachable && health.reason === reason) return;
    health = { where, reachable, ...(reason === undefined ? {} : { reason }), since: Date.now() };
    if (reachable) log.info({ store: where }, 'the shared store answers');
    else log.warn({ store: where, reason }, 'the shared store cannot be used');
    options.onChange(health);
  };

  const schemaState = async () => compareSchema(await appliedMigrations(pool), knownMigrations());

  /** Sees the daemon again (registering it), after checking the schema when it has not been since the store was away. */
  const check = async () => {
    if (!schemaChecked) {
      const problem = schemaProblem(await schemaState(), options.command);
      if (problem) return set(false, problem);
      schemaChecked = true;
    }
    await pool.query(
      `INSERT INTO askbridge.daemons (id, url, started_at, seen_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, started_at = EXCLUDED.started_at, seen_at = now()`,
      [options.daemon.id, options.daemon.url, startedAt],
    );
    set(true);
  };

  const schedule = (ms: number) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  };

  const lost = (error: unknown) => {
    schemaChecked = false;
    set(false, describeStoreError(error, setting.url));
  };

  function run() {
    check().then(
      () => {
        if (closed) return;
        // A schema problem keeps it unusable: tried again at the longest pause (someone may migrate).
        retryMs = RETRY_FIRST_MS;
        schedule(health.reachable ? seenEveryMs : retryMaxMs);
      },
      (error: unknown) => {
        if (closed) return;
        lost(error);
        schedule(retryMs);
        retryMs = Math.min(retryMs * 2, retryMaxMs);
      },
    );
  }

  // An idle connection that breaks (the server stopped, the network went) is an error of the pool's:
  // never thrown, it only marks the store as away and tries again soon.
  pool.on('error', (error) => {
    if (closed) return;
    lost(error);
    schedule(RETRY_FIRST_MS);
  });

  try {
    const state = await schemaState();
    const problem = schemaProblem(state, options.command);
    if (problem) {
      await pool.end().catch(() => undefined);
      throw new StoreSchemaError(state, `${where}: ${problem}`);
    }
    schemaChecked = true;
    await check();
    schedule(seenEveryMs);
  } catch (error) {
    if (error instanceof StoreSchemaError) throw error;
    lost(error);
    schedule(retryMs);
  }

  return {
    health: () => health,
    pool,
    seenEveryMs,
    describeError: (error) => describeStoreError(error, setting.url),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await pool.end().catch(() => undefined);
    },
  };
}
