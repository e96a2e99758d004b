// The small JSON state the daemon keeps whole (the people, the paired pages, the grants, the away
// switch, the paired Telegram chats), one document each. Without a shared store, a document is a
// file of the state directory (json-file.ts). With one, it is a row of the store's `documents`, which
// every daemon sharing it reads and writes: a change is written there and told to the others
// (NOTIFY), who read it and tell their own listeners (a person removed, a device revoked). The file
// stays, as the copy a daemon starts from when the store cannot be reached. A change is refused
// while the store cannot be reached, as one is on a full disk: it would be lost to the others.
import type { Pool } from 'pg';
import { STORE_CHANNEL, type StoreLog } from '../store/postgres.js';
import type { z } from 'zod';
import { readJsonFile, writeJsonFile } from './json-file.js';

/** One document: its value, a way to replace it, and word of another daemon's change. */
export type Document<T> = {
  /** Its value; undefined when there is none yet, or it cannot be read (told to `unreadable`, once). */
  read(): T | undefined;
  /** Replaces it; throws, changing nothing, when it cannot be kept (a full disk, the store not reachable). */
  write(value: T): void;
  /** Another daemon sharing the store changed it: its new value, already in place. */
  onChange(listener: (value: T) => void): void;
};

/** The documents a daemon keeps, each by its name: the file's name in the state directory, without `.json`. */
export type DocumentName = 'people' | 'page-sessions' | 'grants' | 'away' | 'telegram-chats';

/** Where each document is (open()), and for a shared store, how changes made elsewhere come in. */
export type Documents = {
  open<T>(name: DocumentName, file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): Document<T>;
};

/** Documents in the state directory's files alone: no store. */
export const fileDocuments: Documents = {
  open<T>(_name: DocumentName, file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): Document<T> {
    return {
      read: () => readJsonFile(file, schema, unreadable),
      write: (value) => writeJsonFile(file, value),
      onChange: () => {},
    };
  },
};

/** What a notification of a changed document says. */
export type DocumentChanged = { kind: 'document'; name: string; daemon: string };

export type SharedDocuments = Documents & {
  /** Another daemon said it changed this document: read again. */
  changed(name: string): Promise<void>;
  /** Every document read again (after the store was away), and a document only this daemon has written there. */
  resync(): Promise<void>;
  /** Writes what is still to be written. */
  flushed(): Promise<void>;
};

/** One open document: its file, how a value is checked, its listeners, and its value as JSON once the store had one. */
type Slot = { file: string; parse: (value: unknown) => unknown; readFile: () => unknown; listeners: Set<(value: unknown) => void>; json: string | undefined };

/**
 * The documents of a daemon sharing a store: read at start from the store, where it answers (else
 * from the files, the copy of what it last read), and kept as the store has them. `reachable` says
 * whether the store can be written now.
 */
export async function openSharedDocuments(options: { pool: Pool; daemon: string; reachable: () => boolean; log: StoreLog }): Promise<SharedDocuments> {
  const { pool, log } = options;
  const slots = new Map<string, Slot>();
  // What the store had at start, by name, as JSON: read before any document is opened.
  const atStart = new Map<string, string>();
  try {
    const { rows } = await pool.query<{ name: string; body: unknown }>('SELECT name, body FROM askbridge.documents');
    for (const row of rows) atStart.set(row.name, JSON.stringify(row.body));
  } catch (error) {
    log.warn({ error: (error as Error).message }, 'the shared store could not be read at start: the people, devices and grants are as this daemon last had them');
  }
  let writing: Promise<void> = Promise.resolve();

  /** Writes a document to the store and tells the others; a failure is written again at the next resync. */
  function queueWrite(name: string, json: string): void {
    writing = writing
      .then(() =>
        pool.query(
          `WITH written AS (
             INSERT INTO askbridge.documents (name, body) VALUES ($1, $2)
             ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body, version = askbridge.documents.version + 1, updated_at = now()
             RETURNING name)
           SELECT pg_notify($3, $4) FROM written`,
          [name, json, STORE_CHANNEL, JSON.stringify({ kind: 'document', name, daemon: options.daemon } satisfies DocumentChanged)],
        ),
      )
      .then(
        () => undefined,
        (error: unknown) => log.warn({ document: name, error: (error as Error).message }, 'a change could not be written to the shared store: it is written again once the store answers'),
      );
  }

  /** A value read from the store: in place here (and in the file, its copy), and told. */
  function take(name: string, slot: Slot, body: unknown): void {
    const json = JSON.stringify(body);
    if (json === slot.json) return;
    const value = slot.parse(body);
    if (value === undefined) {
      log.warn({ document: name }, 'the shared store holds a document this daemon cannot read: it keeps its own');
      return;
    }
    slot.json = json;
    try {
      writeJsonFile(slot.file, value);
    } catch (error) {
      log.warn({ document: name, error: (error as Error).message }, 'the copy of a shared document could not be written to the state directory');
    }
    for (const listener of slot.listeners) listener(value);
  }

  return {
    open<T>(name: DocumentName, file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): Document<T> {
      const parse = (value: unknown) => {
        const parsed = schema.safeParse(value);
        if (!parsed.success) unreadable?.('not as askbridge writes it');
        return parsed.success ? parsed.data : undefined;
      };
      const slot: Slot = { file, parse, readFile: () => readJsonFile(file, schema, unreadable), listeners: new Set(), json: undefined };
      slots.set(name, slot);
      const stored = atStart.get(name);
      if (stored !== undefined) {
        const value = parse(JSON.parse(stored));
        if (value !== undefined) {
          slot.json = stored;
          try {
            writeJsonFile(file, value);
          } catch {
            // Only the copy is late; the store has it.
          }
        }
      }
      return {
        read: () => (slot.json === undefined ? readJsonFile(file, schema, unreadable) : schema.parse(JSON.parse(slot.json))),
        write(value) {
          if (!options.reachable()) throw new Error('the shared store cannot be reached: nothing was changed');
          writeJsonFile(file, value);
          slot.json = JSON.stringify(value);
          queueWrite(name, slot.json);
        },
        onChange(listener) {
          slot.listeners.add(listener as (value: unknown) => void);
        },
      };
    },

    async changed(name) {
      const slot = slots.get(name);
      if (!slot) return;
      const { rows } = await pool.query<{ body: unknown }>('SELECT body FROM askbridge.documents WHERE name = $1', [name]);
      if (rows[0]) take(name, slot, rows[0].body);
    },

    async resync() {
      const { rows } = await pool.query<{ name: string; body: unknown }>('SELECT name, body FROM askbridge.documents');
      const inStore = new Set<string>();
      for (const row of rows) {
        inStore.add(row.name);
        const slot = slots.get(row.name);
        if (slot) take(row.name, slot, row.body);
      }
      // A document the store does not have yet (the first daemon on a new store, or a change made
      // while it was away that never reached it): this daemon's is written there.
      for (const [name, slot] of slots) {
        if (inStore.has(name)) continue;
        const value = slot.readFile();
        if (value !== undefined) queueWrite(name, JSON.stringify(value));
      }
    },

    flushed: () => writing,
  };
}
