// History and the audit trail as the shared store holds them: every daemon's lines, copied there
// after its own files (daemon/shared-records.ts). Read for the page's history, `askbridge history`
// and `askbridge audit`, a page of rows at a time, so that a history of years is never in memory at
// once. Each reader takes a connected client or the daemon's pool; it writes nothing.
import type { Pool } from 'pg';
import { historyLineFrom, newestOnly, type HistoryFilter, type HistoryLine } from '../history-file.js';

/** A connected client (a command) or the daemon's pool. */
type Db = Pick<Pool, 'query'>;

/** How many rows one query reads. */
const PAGE_ROWS = 500;

/**
 * The newest `limit` history lines that `keep`, every daemon's, newest first (as history.jsonl is
 * read: a relayed decision's later line stands for its first), each naming the daemon that wrote it.
 */
export async function readStoreHistory(db: Db, options: { limit: number; keep: HistoryFilter }): Promise<HistoryLine[]> {
  const found: HistoryLine[] = [];
  const current = newestOnly();
  let after: { at: Date; seq: string } | undefined;
  for (;;) {
    const { rows } = await db.query<{ seq: string; daemon: string; at: Date; line: unknown }>(
      `SELECT seq::text AS seq, daemon, at, line FROM askbridge.history
       ${after ? 'WHERE (at, seq) < ($2, $3::bigint)' : ''} ORDER BY at DESC, seq DESC LIMIT $1`,
      after ? [PAGE_ROWS, after.at, after.seq] : [PAGE_ROWS],
    );
    for (const row of rows) {
      const line = historyLineFrom(row.line);
      if (!line) continue;
      const named = { ...line, daemon: row.daemon };
      if (current(named) && options.keep(named)) found.push(named);
      if (found.length >= options.limit) return found;
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE_ROWS) return found;
    after = { at: last.at, seq: last.seq };
  }
}

/** One audit line as the store keeps it: its trail, its number there, the daemon that copied it, and its exact text. */
export type StoredAuditLine = { trail: string; seq: number; daemon: string; line: string };

/** Every trail's lines from `since` (included) to `until` (not included), by their time, then trail and number. */
export async function* storeAuditLines(db: Db, range: { since: number | undefined; until: number | undefined }): AsyncGenerator<StoredAuditLine> {
  const since = range.since === undefined ? null : new Date(range.since);
  const until = range.until === undefined ? null : new Date(range.until);
  let after: { at: Date; trail: string; seq: string } | undefined;
  for (;;) {
    const { rows } = await db.query<{ trail: string; seq: string; daemon: string; at: Date; line: string }>(
      `SELECT trail, seq::text AS seq, daemon, at, line FROM askbridge.audit
       WHERE ($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)
       ${after ? 'AND (at, trail, seq) > ($4, $5, $6::bigint)' : ''} ORDER BY at, trail, seq LIMIT $1`,
      after ? [PAGE_ROWS, since, until, after.at, after.trail, after.seq] : [PAGE_ROWS, since, until],
    );
    for (const row of rows) yield { trail: row.trail, seq: Number(row.seq), daemon: row.daemon, line: row.line };
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE_ROWS) return;
    after = { at: last.at, trail: last.trail, seq: last.seq };
  }
}

/** The trails in the store, oldest first, each with the daemon that copied its first line. */
export async function storeAuditTrails(db: Db): Promise<{ trail: string; daemon: string }[]> {
  const { rows } = await db.query<{ trail: string; daemon: string; at: Date }>('SELECT DISTINCT ON (trail) trail, daemon, at FROM askbridge.audit ORDER BY trail, seq');
  return rows.sort((a, b) => a.at.getTime() - b.at.getTime()).map(({ trail, daemon }) => ({ trail, daemon }));
}

/** One trail's lines in the store, by their number. */
export async function* storeTrailLines(db: Db, trail: string): AsyncGenerator<StoredAuditLine> {
  let after = 0;
  for (;;) {
    const { rows } = await db.query<{ seq: string; daemon: string; line: string }>(
      'SELECT seq::text AS seq, daemon, line FROM askbridge.audit WHERE trail = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [trail, after, PAGE_ROWS],
    );
    for (const row of rows) yield { trail, seq: Number(row.seq), daemon: row.daemon, line: row.line };
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE_ROWS) return;
    after = Number(last.seq);
  }
}
