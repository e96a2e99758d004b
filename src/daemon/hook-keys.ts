// Which hook keys an http hook may send. Without a shared store, this state directory's own (the
// hook-key file, read at each request, so a rotated key applies at once). With one, a remote hook's
// request may reach any daemon behind the front, whose own key differs: each daemon publishes the
// SHA-256 of its own key in the document `hook-keys` ({daemon id: digest}, documents.ts), at start
// and within a second of a rotation (the file is looked at every PUBLISH_CHECK_MS), and a key is
// accepted when it is this daemon's or its digest is any daemon's, compared in constant time. A
// rotated key stops working everywhere once its daemon has published the new digest. Only digests
// reach the store, never a key. No HTTP here.
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Document } from './documents.js';
import { sameSecret } from './hook-identity.js';

/** Each daemon's hook key, as the hex SHA-256 of it. */
export const HookKeyDigestsSchema = z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/));
type HookKeyDigests = z.infer<typeof HookKeyDigestsSchema>;

/** How often a daemon sharing a store looks whether its key was rotated: a rotation is published within a second. */
const PUBLISH_CHECK_MS = 500;

type Log = { info(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void };

const digestOf = (key: string) => createHash('sha256').update(key).digest();

export type HookKeys = {
  /** Whether an http hook sending this key may ask. */
  accepts(key: string): boolean;
  close(): void;
};

/** `ownKey`: this state directory's key as it is now; `shared`: the store's digests, and this daemon's name there. */
export function createHookKeys(options: { ownKey: () => string | undefined; shared?: { document: Document<HookKeyDigests>; daemon: string; log: Log } }): HookKeys {
  const { shared } = options;
  let timer: NodeJS.Timeout | undefined;
  if (shared) {
    let published: string | undefined;
    let failing = false;
    /** This daemon's digest in the store, when it is not there yet (a start, a rotation); tried again at the next look when the store cannot take it. */
    const publish = () => {
      const own = options.ownKey();
      if (own === undefined) return;
      const digest = digestOf(own).toString('hex');
      if (digest === published) return;
      try {
        shared.document.update((current) => ({ ...current, [shared.daemon]: digest }));
      } catch (error) {
        if (!failing) shared.log.warn({ error: (error as Error).message }, "this daemon's hook key could not be published to the shared store: the other daemons refuse it until it is");
        failing = true;
        return;
      }
      failing = false;
      if (published !== undefined) shared.log.info({}, "this daemon's rotated hook key is published: the old one is refused by every daemon on the store");
      published = digest;
    };
    publish();
    timer = setInterval(publish, PUBLISH_CHECK_MS);
    timer.unref();
  }
  return {
    accepts(key) {
      const own = options.ownKey();
      if (own !== undefined && sameSecret(key, own)) return true;
      if (!shared) return false;
      const given = digestOf(key);
      // Every digest is compared, so the time taken says nothing of which one, if any, matched.
      let found = false;
      for (const digest of Object.values(shared.document.read() ?? {})) {
        const known = Buffer.from(digest, 'hex');
        if (timingSafeEqual(known, given)) found = true;
      }
      return found;
    },
    close() {
      clearInterval(timer);
    },
  };
}
