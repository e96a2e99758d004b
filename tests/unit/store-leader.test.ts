// The store's lock for what only one daemon may do (store/leader.ts), against a real PostgreSQL (a
// throwaway cluster of this file's own): one of two holds it, the other takes it once the holder lets
// go, and a holder whose connection is cut is told it lost the lock before the other can take it.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientConfig } from '../../src/store/connect.js';
import { holdLeadership, LEADER_LOCKS, type LeaderState, type Leadership } from '../../src/store/leader.js';
import { waitUntil } from '../stack/clock.js';
import { postgresAvailability, startPostgres, type PostgresCluster } from '../stack/postgres.js';

const RETRY_MS = 100;
const postgres = postgresAvailability();
let cluster: PostgresCluster;
const pools: pg.Pool[] = [];
const held: Leadership[] = [];

beforeAll(async () => {
  if (postgres.available) cluster = await startPostgres();
}, 60_000);
afterEach(async () => {
  for (const leadership of held.splice(0)) leadership.close();
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});
afterAll(async () => {
  await cluster?.remove();
});

type Contender = { name: string; leadership: Leadership };

/** A daemon's side of it: a pool of its own, and every change of state written down in `events`. */
function contend(name: string, events: string[]): Contender {
  const pool = new pg.Pool({ ...clientConfig(cluster.url, { PGPASSWORD: cluster.password }), application_name: `leader-test-${name}` });
  pool.on('error', () => undefined); // idle connections cut by the test
  pools.push(pool);
  const leadership = holdLeadership(pool, LEADER_LOCKS.telegram, { onChange: (state: LeaderState) => events.push(`${name} ${state}`), retryMs: RETRY_MS });
  held.push(leadership);
  return { name, leadership };
}

const stateIs = (contender: Contender, state: LeaderState) => waitUntil(() => (contender.leadership.state() === state ? true : undefined), 5_000, `${contender.name} to be ${state}`);

describe.skipIf(!postgres.available)('the store lock only one daemon holds', () => {
  it('is held by one of two, and taken by the other once the holder lets go', async () => {
    const events: string[] = [];
    const first = contend('first', events);
    await stateIs(first, 'held');
    const second = contend('second', events);
    await stateIs(second, 'elsewhere');
    first.leadership.close();
    await stateIs(second, 'held');
    expect(events).toEqual(['first held', 'second elsewhere', 'second held']);
  });

  it('tells a holder whose connection is cut that it lost the lock before the other can take it', async () => {
    const events: string[] = [];
    const first = contend('first', events);
    await stateIs(first, 'held');
    const second = contend('second', events);
    await stateIs(second, 'elsewhere');
    await cluster.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'leader-test-first'");
    await stateIs(second, 'held');
    expect(events.slice(0, 4)).toEqual(['first held', 'second elsewhere', 'first unreachable', 'second held']);
    // The first tries again, and finds it held elsewhere.
    await stateIs(first, 'elsewhere');
  });

  it('is held by nobody while the database is stopped, and by one again once it starts', async () => {
    const events: string[] = [];
    const first = contend('first', events);
    const second = contend('second', events);
    await waitUntil(() => (events.length >= 2 ? true : undefined), 5_000, 'both to know where the lock is');
    await cluster.stop();
    try {
      await Promise.all([stateIs(first, 'unreachable'), stateIs(second, 'unreachable')]);
    } finally {
      await cluster.start();
    }
    await waitUntil(() => ([first, second].map((each) => each.leadership.state()).sort().join() === 'elsewhere,held' ? true : undefined), 10_000, 'one to hold it again');
  });
});
