// page-sessions.json: the paired pages, so that a daemon restart does not unpair them. Only hashes
// (of each page's cookie and key) and expiry times are kept, 0600, written atomically. A file from
// an older askbridge (sessions without a key) loads as empty: those pages pair again.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../state-dir.js';
import type { PageSessionStore, StoredPageSession } from './auth.js';

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const PageSessionsSchema = z.array(z.tuple([hash, z.number(), hash]));

export function createPageSessionFile(path: string): PageSessionStore {
  return {
    load(): StoredPageSession[] {
      try {
        const parsed = PageSessionsSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
        return parsed.success ? parsed.data : [];
      } catch {
        return [];
      }
    },
    save(entries) {
      writeFileAtomic(path, `${JSON.stringify(entries)}\n`);
    },
  };
}
