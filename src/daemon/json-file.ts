// A small JSON state file the daemon keeps (the people, the grants, the away switch, the paired
// Telegram chats, the push subscriptions): read whole and checked with its schema, written whole and
// atomically (0600, state-dir.ts). One that is absent is nothing to say; one that cannot be read or is
// not what askbridge writes is told to the caller (who logs it and goes on with its fallback), and is
// never a reason for the daemon not to start.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { writeFileAtomic } from '../state-dir.js';

/**
 * The file's value, checked; undefined when it is absent or unreadable. `unreadable` hears why for
 * anything but absence: the error's code, `not JSON`, or `not as askbridge writes it`.
 */
export function readJsonFile<T>(file: string, schema: z.ZodType<T>, unreadable?: (reason: string) => void): T | undefined {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unreadable?.((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    unreadable?.('not JSON');
    return undefined;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  unreadable?.('not as askbridge writes it');
  return undefined;
}

/** Replaces the file with this value, atomically; throws when it cannot be written (a full or read-only disk). */
export function writeJsonFile(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value)}\n`);
}
