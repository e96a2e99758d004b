// The public URL as a running daemon holds it (public-url.ts): the address it accepts now, where
// that value comes from, and what would change only with a restart. The daemon sends it with
// `askbridge config` and `askbridge pair`, which say it the same way. Apart from public-url.ts,
// which the CLI's fastest paths load and which must not load zod.
import { z } from 'zod';
import { PUBLIC_URL_SOURCES, type PublicUrlSource } from './public-url.js';

export const PublicUrlStatusSchema = z
  .object({
    /** The origin accepted besides loopback now (https://box.tailnet.ts.net); absent: only this machine reaches the daemon. */
    url: z.string().optional(),
    source: z.enum(PUBLIC_URL_SOURCES),
    /** The user config file, where publicUrl is set. */
    userFile: z.string(),
    /** The user config's publicUrl while the flag or the environment wins over it: not used. */
    userValueNotUsed: z.string().optional(),
    /** What applies only once the daemon starts again, and why; absent when all the files say applies now. */
    restartNeeded: z.string().optional(),
  })
  .meta({ title: 'public URL' });
export type PublicUrlStatus = z.infer<typeof PublicUrlStatusSchema>;

/** Where a value comes from, as `askbridge config` names it (`user`: the user file, as for every other key). */
const SOURCE_NAMES: Record<PublicUrlSource, string> = {
  flag: 'the --public-url the daemon started with',
  environment: 'ASKBRIDGE_PUBLIC_URL when the daemon started',
  user: 'user',
  none: 'not set',
};

export function publicUrlSourceName(source: PublicUrlSource): string {
  return SOURCE_NAMES[source];
}

/** What a person should know beyond the value: a user file's value that is not used, a restart that is needed. */
export function publicUrlNotes(status: PublicUrlStatus): string[] {
  return [
    ...(status.userValueNotUsed === undefined
      ? []
      : [`publicUrl ${status.userValueNotUsed} in ${status.userFile} is not used: ${SOURCE_NAMES[status.source]} wins over the user config (start the daemon without it to use the file's)`]),
    ...(status.restartNeeded === undefined ? [] : [`restart needed: ${status.restartNeeded} (stop the daemon, then start it)`]),
  ];
}
