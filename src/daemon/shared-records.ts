// This daemon's history.jsonl and audit.jsonl, copied to the shared store so that every daemon on it
// reads everyone's (store/records.ts). The files stay the first record, written before an answer is
// released (asks/history.ts, audit.ts): the store never sits in a decision's path. Each line is
// copied after, asynchronously, in batches, keyed so that a line copied twice is one row: history
// by this daemon and the SHA-256 of the line's text as written, the audit trail by the trail (the
// SHA-256 of its first line) and the line's own number. At start, after the store was away and after
// a copy that failed, it catches up from the files: history from the newest line the store has of
// this daemon's, the trail after the store's highest number of it. Then it reads on from where it
// stopped, never the whole file again for a line. It knows nothing of HTTP.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Pool } from 'pg';
import { readAuditLine, sha256Hex, trailIdOf } from '../audit-file.js';
import { parseHistoryText, rawChunksBackwards } from '../history-file.js';
import type { StoreLog } from '../store/postgres.js';

/** At most this many lines, or about this many bytes, go in one INSERT. */
const BATCH_LINES = 500;
const BATCH_BYTES = 1 << 20;
const READ_BYTES = 1 << 18;

export type SharedRecords = {
  /** A line was appended to one of the files: copied soon. */
  appended(): void;
  /** The store answers again: each file is caught up from what the store has. */
  reconnected(): void;
  /** Every line appended so far has been copied, or the copy failed (tried again later). */
  flushed(): Promise<void>;
  close(): Promise<void>;
};

export type SharedRecordsOptions = {
  pool: Pool;
  /** This daemon's id in `daemons`. */
  daemon: string;
  files: { history: string; audit: string };
  log: StoreLog;
  /** How soon a copy that failed is tried again (besides when the store answers again). */
  retryMs: number;
};

/** A file copied line by line: where its copy stands, and how its lines become rows. */
type Copied = {
  name: 'history' | 'audit';
  path: string;
  /** The file (its inode) and the byte up to which it is copied; undefined: catch up from the store first. */
  at: { ino: number; offset: number } | undefined;
  /** Where copying starts when catching up: the byte after the last line the store is known to have. */
  start(fd: number): Promise<number>;
  /** Writes these complete lines (text without newline); those that are not lines of this file are left out. */
  write(lines: string[]): Promise<void>;
};

export function shareRecords(options: SharedRecordsOptions): SharedRecords {
  const { pool, daemon: me, log } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let failing = false;
  // The store answered again: each file is caught up at the start of the next pass.
  let catchUp = false;
  let retry: NodeJS.Timeout | undefined;

  const history: Copied = {
    name: 'history',
    path: options.files.history,
    at: undefined,
    async start(fd) {
      const { rows } = await pool.query<{ at: Date | null }>('SELECT max(at) AS at FROM askbridge.history WHERE daemon = $1', [me]);
      const newest = rows[0]?.at?.getTime();
      if (newest === undefined) return 0;
      // Lines are appended as asks finish, so finishedAt grows down the file, except for the line a
      // relay's delivery adds later, which keeps its ask's time: it never marks where copying stopped.
      return startAfter(fd, (text) => {
        const line = parseHistoryText(text);
        return line !== undefined && line.delivery === undefined && Date.parse(line.finishedAt) < newest;
      });
    },
    async write(lines) {
      const rows = lines.flatMap((text) => {
        const line = parseHistoryText(text);
        return line ? [{ digest: sha256Hex(text), at: line.finishedAt, line: jsonbSafe(text) }] : [];
      });
      if (rows.length === 0) return;
      await pool.query(
        `INSERT INTO askbridge.history (daemon, digest, at, line)
         SELECT $1, digest, at, line::jsonb FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS copied(digest, at, line)
         ON CONFLICT (daemon, digest) DO NOTHING`,
        [me, rows.map((row) => row.digest), rows.map((row) => row.at), rows.map((row) => row.line)],
      );
    },
  };

  // The trail being copied: the SHA-256 of its file's first line, read again with each catch-up (a
  // trail moved away and begun anew is another trail).
  let trail: string | undefined;
  const audit: Copied = {
    name: 'audit',
    path: options.files.audit,
    at: undefined,
    async start(fd) {
      trail = firstLineOf(fd);
      if (trail === undefined) return 0;
      const { rows } = await pool.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM askbridge.audit WHERE trail = $1', [trail]);
      const highest = Number(rows[0]?.seq ?? 0);
      if (highest === 0) return 0;
      return startAfter(fd, (text) => {
        const read = readAuditLine(text);
        return read.ok && read.line.seq <= highest;
      });
    },
    async write(lines) {
      // A trail begun after the last catch-up: its first line names it.
      if (trail === undefined && lines[0] !== undefined) trail = trailIdOf(lines[0]);
      const rows = lines.flatMap((text) => {
        const read = readAuditLine(text);
        return read.ok ? [{ seq: read.line.seq, at: read.line.at, line: text }] : [];
      });
      if (rows.length === 0 || trail === undefined) return;
      await pool.query(
        `INSERT INTO askbridge.audit (trail, seq, daemon, at, line)
         SELECT $1, seq, $2, at, line FROM unnest($3::bigint[], $4::timestamptz[], $5::text[]) AS copied(seq, at, line)
         ON CONFLICT (trail, seq) DO NOTHING`,
        [trail, me, rows.map((row) => row.seq), rows.map((row) => row.at), rows.map((row) => row.line)],
      );
    },
  };

  /** Copies what is new in `file`: after catching up first, when it must. */
  async function copy(file: Copied): Promise<void> {
    const fd = openOrNothing(file.path);
    if (fd === undefined) {
      // No file yet: nothing to copy, and the one made later is copied from its start.
      file.at = { ino: -1, offset: 0 };
      if (file === audit) trail = undefined;
      return;
    }
    try {
      const { ino, size } = fstatSync(fd);
      // Another file under the name (a trail begun anew), or one cut shorter: caught up again.
      if (file.at && (file.at.ino !== ino || file.at.offset > size)) file.at = undefined;
      let offset = file.at?.offset ?? (await file.start(fd));
      file.at = undefined;
      for (;;) {
        const { lines, consumed } = completeLines(fd, offset, size);
        if (consumed === 0) break;
        await file.write(lines);
        offset += consumed;
        await nextTurn();
      }
      file.at = { ino, offset };
    } finally {
      closeSync(fd);
    }
  }

  async function run(): Promise<void> {
    do {
      again = false;
      if (catchUp) {
        catchUp = false;
        history.at = undefined;
        audit.at = undefined;
      }
      try {
        for (const file of [history, audit]) await copy(file);
        if (failing) log.info({}, 'history and the audit trail are copied to the shared store again');
        failing = false;
      } catch (error) {
        // Caught up from the files once the store answers again, or at the next try.
        if (!failing) log.warn({ error: (error as Error).message }, 'history or the audit trail could not be copied to the shared store: copied once it answers again');
        failing = true;
        if (!closed) {
          clearTimeout(retry);
          retry = setTimeout(kick, options.retryMs).unref();
        }
        return;
      }
    } while (again && !closed);
  }

  function kick(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = run().finally(() => {
      running = undefined;
    });
  }

  kick();
  return {
    appended: kick,
    reconnected() {
      catchUp = true;
      kick();
    },
    flushed: async () => {
      while (running) await running;
    },
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await running;
    },
  };
}

/**
 * The byte after the newest line, read backwards from the end, for which `copied` says the store
 * has it (and every line before it); 0 when there is none: the whole file is copied.
 */
async function startAfter(fd: number, copied: (text: string) => boolean): Promise<number> {
  for (const { lines } of rawChunksBackwards(fd)) {
    for (const line of lines) if (copied(line.text)) return line.start + Buffer.byteLength(line.text) + 1;
    await nextTurn();
  }
  return 0;
}

/** The complete lines (each ended by a newline) from `offset`, a batch at a time, and how many bytes they took. */
function completeLines(fd: number, offset: number, size: number, maxLines = BATCH_LINES): { lines: string[]; consumed: number } {
  const lines: string[] = [];
  let consumed = 0;
  let bytes = 0;
  let pending = Buffer.alloc(0);
  let position = offset;
  while (position < size && lines.length < maxLines && bytes < BATCH_BYTES) {
    const chunk = Buffer.alloc(Math.min(READ_BYTES, size - position));
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    position += read;
    const buffer = Buffer.concat([pending, chunk.subarray(0, read)]);
    let from = 0;
    for (let newline = buffer.indexOf(0x0a); newline >= 0 && lines.length < maxLines && bytes < BATCH_BYTES; newline = buffer.indexOf(0x0a, from)) {
      lines.push(buffer.subarray(from, newline).toString('utf8'));
      bytes += newline - from + 1;
      from = newline + 1;
    }
    consumed = bytes;
    pending = buffer.subarray(from);
    // A batch that is full leaves the rest for the next one.
    if (lines.length >= maxLines || bytes >= BATCH_BYTES) break;
  }
  return { lines, consumed };
}

/** The trail's name (the SHA-256 of its first line); undefined while it has no complete line. */
function firstLineOf(fd: number): string | undefined {
  const { lines } = completeLines(fd, 0, fstatSync(fd).size, 1);
  return lines[0] === undefined ? undefined : trailIdOf(lines[0]);
}

/**
 * A history line's JSON as jsonb takes it: jsonb refuses the escape of the NUL character, which
 * JSON.stringify writes for one in a model's text; it is kept as U+FFFD there (the digest is of the
 * line as written).
 */
export function jsonbSafe(json: string): string {
  return json.includes('\\u0000') ? json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd') : json;
}

function openOrNothing(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined;
  }
}
