// The small JSON state the daemon keeps whole (the people, the paired pages, the grants, the away
// switch, the paired Telegram chats, Web Push's keys and subscriptions, the hook keys' digests), one
// document each. Without a shared store, a document is a file of the state directory (json-file.ts).
// With one, it is a row of the store's `documents`, which every daemon sharing it reads and writes:
// a change is written there and told to the others (NOTIFY), who read it and tell their own listeners
// (a person removed, a device revoked). The file stays, as the copy a daemon starts from when the
// store cannot be reached. A change is refused while the store cannot be reached, as one is on a
// full disk: it would be lost to the others.
//
// Two daemons may change one document at the same moment (two devices pairing on two daemons). A
// change is therefore kept as what it does (a function of the value), not as the value it made: the
// store is written only where its row is still at the version this daemon read (compare and swap on
// `version`); where another daemon wrote first, its value is read, this daemon's changes are made
// again on it, and that is written, until one write takes. Each daemon's changes are made on the
// other's, so none is lost, and the daemon whose write came second ends with the merged value,
// which its listeners are told as if another daemon had changed it.
import type { Pool } from 'pg';
import { STORE_CHANNEL, type StoreLog } from '../store/postgres.js';
import type { z } from 'zod';
import { readJsonFile, writeJsonFile } from './json-file.js';

/** One document: its value, a way to change it, and word of a change made elsewhere. */
export type Document<T> = {
  /** Its value; undefined when there is none yet, or it cannot be read (told to `unreadable`, once). */
  read(): T | undefined;
  /**
   * Changes it: `change` gets its value (undefined: none yet) and returns the new one, which update
   * returns. With a shared store the change may be made again, on a value another daemon wrote
   * meanwhile, so it says what to do to any value (add this, remove that), and does nothing else;
   * the merged value then reaches `onChange`. Throws, changing nothing, when it cannot be kept (a
   * full disk, the store not reachable).
   */
  update(change: (current: T | undefined) => T): T;
  /** Its value changed other than by this daemon's update alone (another daemon's change, or one merged with it): the new value, already in place. */
  onChange(listener: (value: T) => void): void;
};

/** The documents a daemon keeps, each by its name: the file's name in the state directory, without `.json`. */
export type DocumentName = 'people' | 'page-sessions' | 'grants' | 'away' | 'telegram-chats' | 'vapid-keys' | 'push-subscriptions' | 'hook-keys';

/** Where each document is (open()), and for a shared store, how changes made elsewhere come in. */
export type Documents = {
  open<T>(name: DocumentName, file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): Document<T>;
};

/** Documents in the state directory's files alone: no store. */
export const fileDocuments: Documents = {
  open<T>(_name: DocumentName, file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): Document<T> {
    const read = () => readJsonFile(file, schema, unreadable);
    return {
      read,
      update(change) {
        const next = change(read());
        writeJsonFile(file, next);
        return next;
      },
      onChange: () => {},
    };
  },
};

/** What a notification of a changed document says. */
export type DocumentChanged = { kind: 'document'; name: string; daemon: string };

export type SharedDocuments = Documents & {
  /** Another daemon said it changed this document: read again. */
  changed(name: string): Promise<void>;
  /** Every document read again (after the store was away), and what this daemon has not written there yet written. */
  resync(): Promise<void>;
  /** Writes what is still to be written. */
  flushed(): Promise<void>;
};

type Change = (current: unknown) => unknown;
/** A document's row as this daemon last read or wrote it: its body as JSON, and its version (0: not in the store; `json` is then this daemon's own, to write there). */
type Base = { json: string | undefined; version: number };

/**
 * One open document: its file, how a value is checked, its listeners, the store's row as last seen,
 * the changes made here that the store does not have yet (in order), and the value as this daemon
 * has it (the row with those changes made on it), as JSON.
 */
type Slot = { file: string; parse: (value: unknown) => unknown; listeners: Set<(value: unknown) => void>; base: Base; pending: Change[]; json: string | undefined };

/** A fresh copy of a value kept as JSON, for a change to work on. */
const copyOf = (json: string | undefined): unknown => (json === undefined ? undefined : JSON.parse(json));

/** The value as this daemon has it: the store's row with the changes it does not have yet made on it. */
const mergedValue = (slot: Slot): unknown => slot.pending.reduce((value, change) => change(value), copyOf(slot.base.json));

/**
 * The documents of a daemon sharing a store: read at start from the store, where it answers (else
 * from the files, the copy of what it last read), and kept as the store has them. `reachable` says
 * whether the store can be written now.
 */
export async function openSharedDocuments(options: { pool: Pool; daemon: string; reachable: () => boolean; log: StoreLog }): Promise<SharedDocuments> {
  const { pool, log } = options;
  const slots = new Map<string, Slot>();
  // What the store had at start, by name: read before any document is opened.
  const atStart = new Map<string, { body: unknown; version: number }>();
  try {
    const { rows } = await pool.query<{ name: string; body: unknown; version: string }>('SELECT name, body, version FROM askbridge.documents');
    for (const row of rows) atStart.set(row.name, { body: row.body, version: Number(row.version) });
  } catch (error) {
    log.warn({ error: (error as Error).message }, 'the shared store could not be read at start: the people, devices and grants are as this daemon last had them');
  }
  let writing: Promise<void> = Promise.resolve();
  const notice = (name: string) => JSON.stringify({ kind: 'document', name, daemon: options.daemon } satisfies DocumentChanged);

  /** Writes `json` where the row is still at `version` (inserts it where there is none); the new version, or undefined when another daemon wrote first. */
  async function swap(name: string, json: string, version: number): Promise<number | undefined> {
    const { rows } = await pool.query<{ version: string }>(
      version === 0
        ? `WITH written AS (
             INSERT INTO askbridge.documents (name, body) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING version)
           SELECT version, pg_notify($3, $4) FROM written`
        : `WITH written AS (
             UPDATE askbridge.documents SET body = $2, version = version + 1, updated_at = now() WHERE name = $1 AND version = $5 RETURNING version)
           SELECT version, pg_notify($3, $4) FROM written`,
      version === 0 ? [name, json, STORE_CHANNEL, notice(name)] : [name, json, STORE_CHANNEL, notice(name), version],
    );
    return rows[0] === undefined ? undefined : Number(rows[0].version);
  }

  /**
   * Writes this daemon's changes of a document (and the document itself where the store has none),
   * each batch made on the row as the store has it now, until a write takes; then the value as merged
   * is this daemon's, and told when it is not what its updates returned.
   */
  async function write(name: string, slot: Slot): Promise<void> {
    while (slot.pending.length > 0 || (slot.base.version === 0 && slot.base.json !== undefined)) {
      const changes = slot.pending.length;
      const json = JSON.stringify(mergedValue(slot));
      if (slot.base.version > 0 && json === slot.base.json) {
        slot.pending.splice(0, changes); // the store already says so
        continue;
      }
      const version = await swap(name, json, slot.base.version);
      if (version !== undefined) {
        slot.pending.splice(0, changes);
        // A newer row may have been read meanwhile (written on top of this one): it stays.
        if (version > slot.base.version) slot.base = { json, version };
        continue;
      }
      const { rows } = await pool.query<{ body: unknown; version: string }>('SELECT body, version FROM askbridge.documents WHERE name = $1', [name]);
      const row = rows[0];
      log.info({ document: name, changes }, 'another daemon changed this document first: this daemon\'s changes are made again on its value');
      slot.base = row ? { json: JSON.stringify(row.body), version: Number(row.version) } : { json: slot.base.json, version: 0 };
    }
    settle(name, slot);
  }

  /** Writes a document's changes after those already on their way; a failure is written again at the next resync. */
  function queueWrite(name: string, slot: Slot): void {
    writing = writing
      .then(() => write(name, slot))
      .catch((error: unknown) => log.warn({ document: name, error: (error as Error).message }, 'a change could not be written to the shared store: it is written again once the store answers'));
  }

  /** The value as this daemon has it now: in place (and in the file, its copy), and told when it changed. */
  function settle(name: string, slot: Slot): void {
    const value = mergedValue(slot);
    if (value === undefined) return;
    const json = JSON.stringify(value);
    if (json === slot.json) return;
    const parsed = slot.parse(value);
    if (parsed === undefined) {
      log.warn({ document: name }, 'the shared store holds a document this daemon cannot read: it keeps its own');
      return;
    }
    slot.json = json;
    try {
      writeJsonFile(slot.file, parsed);
    } catch (error) {
      log.warn({ document: name, error: (error as Error).message }, 'the copy of a shared document could not be written to the state directory');
    }
    for (const listener of slot.listeners) listener(slot.parse(copyOf(json)));
  }

  /** A row read from the store: the base of this daemon's value, unless it already had that version or a later one. */
  function take(name: string, slot: Slot, body: unknown, version: number): void {
    if (version <= slot.base.version) return;
    slot.base = { json: JSON.stringify(body), version };
    settle(name, slot);
  }

  return {
    open<T>(name: DocumentName, file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): Document<T> {
      const parse = (value: unknown) => {
        const parsed = schema.safeParse(value);
        if (!parsed.success) unreadable?.('not as askbridge writes it');
        return parsed.success ? parsed.data : undefined;
      };
      const stored = atStart.get(name);
      const fromStore = stored === undefined ? undefined : parse(stored.body);
      // Not in the store (or not readable there): this daemon's own file, to write there once it answers.
      const own = fromStore === undefined ? readJsonFile(file, schema, unreadable) : undefined;
      const base: Base = fromStore !== undefined ? { json: JSON.stringify(stored!.body), version: stored!.version } : { json: own === undefined ? undefined : JSON.stringify(own), version: 0 };
      const slot: Slot = { file, parse, listeners: new Set(), base, pending: [], json: base.json };
      slots.set(name, slot);
      if (fromStore !== undefined) {
        try {
          writeJsonFile(file, fromStore);
        } catch {
          // Only the copy is late; the store has it.
        }
      }
      const read = () => (slot.json === undefined ? undefined : schema.parse(copyOf(slot.json)));
      return {
        read,
        update(change) {
          if (!options.reachable()) throw new Error('the shared store cannot be reached: nothing was changed');
          const next = change(read());
          writeJsonFile(file, next);
          slot.json = JSON.stringify(next);
          slot.pending.push(change as Change);
          queueWrite(name, slot);
          return next;
        },
        onChange(listener) {
          slot.listeners.add(listener as (value: unknown) => void);
        },
      };
    },

    async changed(name) {
      const slot = slots.get(name);
      if (!slot) return;
      const { rows } = await pool.query<{ body: unknown; version: string }>('SELECT body, version FROM askbridge.documents WHERE name = $1', [name]);
      if (rows[0]) take(name, slot, rows[0].body, Number(rows[0].version));
    },

    async resync() {
      const { rows } = await pool.query<{ name: string; body: unknown; version: string }>('SELECT name, body, version FROM askbridge.documents');
      const inStore = new Set<string>();
      for (const row of rows) {
        inStore.add(row.name);
        const slot = slots.get(row.name);
        if (slot) take(row.name, slot, row.body, Number(row.version));
      }
      for (const [name, slot] of slots) {
        // A document the store does not have (the first daemon on a new store): this daemon's is written there.
        if (!inStore.has(name)) slot.base = { json: slot.base.json, version: 0 };
        // And changes a write that failed (the store away) left here.
        if (slot.pending.length > 0 || slot.base.version === 0) queueWrite(name, slot);
      }
    },

    flushed: () => writing,
  };
}
