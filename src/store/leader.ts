// One daemon among those sharing the store does a thing only one may do (poll the Telegram bot): the
// one holding a PostgreSQL advisory lock. The lock is session-level, taken with pg_try_advisory_lock
// on a client taken out of the pool and kept as long as the lock is held, so the database itself lets
// go of it when that connection ends (the daemon killed, its network or the server gone). The others
// try again every little while. A holder whose connection fails, or stops answering, is told at once
// that it lost the lock, before the server could give it to another. It knows nothing of Telegram.
import type { Pool, PoolClient, QueryConfig } from 'pg';

/** askbridge's own space of advisory locks (the first key: "askb"), so that its locks meet no one else's. */
const LOCK_SPACE = 0x61736b62;
/** The things only one daemon does, each a lock of askbridge's space. */
export const LEADER_LOCKS = { telegram: 1 } as const;
export type LeaderLock = (typeof LEADER_LOCKS)[keyof typeof LEADER_LOCKS];

/** How often a daemon that does not hold the lock tries again, and the holder checks its connection. */
export const LEADER_RETRY_MS = 5_000;

/** Held here; held by another daemon; or nobody can tell (the store cannot be reached, so nobody holds it). */
export type LeaderState = 'held' | 'elsewhere' | 'unreachable';

export type Leadership = {
  state: () => LeaderState;
  /** Lets go of the lock (its connection ends) and tries no more. */
  close: () => void;
};

export type LeaderOptions = {
  /** Called on every change of state, 'held' and losing it included, as soon as it is known. */
  onChange: (state: LeaderState) => void;
  retryMs?: number;
};

export function holdLeadership(pool: Pool, lock: LeaderLock, options: LeaderOptions): Leadership {
  const retryMs = options.retryMs ?? LEADER_RETRY_MS;
  // None yet: the first outcome is told too.
  let state: LeaderState | undefined;
  let holder: PoolClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const set = (next: LeaderState) => {
    if (next === state) return;
    state = next;
    options.onChange(next);
  };
  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void (holder ? check() : attempt()), retryMs);
    timer.unref();
  };

  /** The holder's connection ended or failed: the lock is gone with it (the server releases it). */
  const lose = (client: PoolClient) => {
    if (holder !== client) return;
    holder = undefined;
    client.release(true);
    set('unreachable');
    schedule();
  };

  /** A query that gives up after the retry period: node-postgres reads query_timeout per query too, though its types do not say so. */
  const bounded = (text: string, values: unknown[] = []) => ({ text, values, query_timeout: retryMs }) as QueryConfig;

  async function attempt(): Promise<void> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch {
      if (!closed) set('unreachable');
      return schedule();
    }
    // A checked-out client's errors are its own: unheard, one would crash the daemon.
    const onEnd = () => lose(client);
    client.on('error', onEnd);
    let held: boolean;
    try {
      held = (await client.query<{ held: boolean }>(bounded('SELECT pg_try_advisory_lock($1::int, $2::int) AS held', [LOCK_SPACE, lock]))).rows[0]?.held === true;
    } catch {
      client.release(true); // its listener stays: the pool forgets it, and an error while it ends is heard
      if (!closed) set('unreachable');
      return schedule();
    }
    if (!held || closed) {
      client.off('error', onEnd);
      client.release(held); // one that took the lock as the daemon stopped ends, and the lock with it
      if (!closed) set('elsewhere');
      return schedule();
    }
    holder = client;
    client.once('end', onEnd);
    set('held');
    schedule();
  }

  /** The holder's connection still answers: a silent one (a network gone) counts as lost, before the server lets go. */
  async function check(): Promise<void> {
    const client = holder;
    if (!client) return attempt();
    try {
      await client.query(bounded('SELECT 1'));
      schedule();
    } catch {
      lose(client);
    }
  }

  void attempt();
  return {
    state: () => state ?? 'unreachable',
    close: () => {
      closed = true;
      clearTimeout(timer);
      const client = holder;
      holder = undefined;
      if (!client) return;
      // Ended, not returned to the pool: the lock goes with the connection (its end, no longer the holder's, tells nothing).
      client.release(true);
    },
  };
}
