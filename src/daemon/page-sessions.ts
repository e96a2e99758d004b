// page-sessions.json (or the shared store's document of that name): the paired pages, so that a
// daemon restart does not unpair them. Only hashes (of each page's cookie and key), expiry times and
// each page's device (a public id, a name, when it paired and was last seen) are kept, 0600, written atomically. A file from before devices had
// names loads with a made-up name; one from before pages had keys loads as empty: those pages pair again.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { PersonNameSchema } from '../protocol.js';
import type { Documents } from './documents.js';
import type { PageSessionStore, StoredPageSession } from './routes/auth.js';

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const SessionSchema = z.object({
  cookieHash: hash,
  keyHash: hash,
  expiresAt: z.number(),
  id: z.string().regex(/^[0-9a-f]{12}$/),
  name: z.string().max(100),
  pairedAt: z.number(),
  lastSeen: z.number(),
  person: PersonNameSchema.optional(),
});
/** Before devices: [cookieHash, expiresAt, keyHash]. */
const UnnamedSessionSchema = z.tuple([hash, z.number(), hash]).transform(
  ([cookieHash, expiresAt, keyHash]): StoredPageSession => ({ cookieHash, keyHash, expiresAt, id: randomBytes(6).toString('hex'), name: 'a browser paired earlier', pairedAt: 0, lastSeen: 0 }),
);
const PageSessionsSchema = z.array(z.union([SessionSchema, UnnamedSessionSchema]));

/** The paired pages, kept as the document `page-sessions` (documents.ts): on every daemon sharing a store, a page paired on one is paired on all. */
export function pageSessionsIn(documents: Documents, file: string): PageSessionStore {
  const document = documents.open('page-sessions', file, PageSessionsSchema);
  return {
    load: () => document.read() ?? [],
    update: (change) => document.update((current) => change(current ?? [])),
    onChange: (listener) => document.onChange(listener),
  };
}
