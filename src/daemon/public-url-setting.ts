// The public URL while the daemon runs: the one it started with (from the flag, the environment or
// the user config), then each new publicUrl of the user config, which applies at once, unless the
// flag or the environment wins over the user config, or --listen serves the address it started
// with. It says, for `askbridge config` and `askbridge pair`, where the value in use comes from and
// what only a restart would change. It decides; main.ts applies a change (the guard, daemon.json,
// the log).
import { parsePublicUrl, type PublicUrl, type PublicUrlSource } from '../public-url.js';
import type { PublicUrlStatus } from '../public-url-status.js';

/** The VAPID subject of a daemon only this machine reaches (push services want an address; see pushSubject). */
export const PLACEHOLDER_PUSH_SUBJECT = 'mailto:push@askbridge.invalid';

/**
 * Who sends the pushes, in every VAPID JWT: the user config's push.subject when it says one, else the
 * public URL in use at that push, which some push services require to be a real address (Apple's
 * refuses localhost and reserved names); a placeholder otherwise.
 */
export function pushSubject(publicUrl: PublicUrl | undefined, configured?: string): string {
  if (configured !== undefined) return configured;
  return publicUrl?.secure && new URL(publicUrl.href).hostname !== 'localhost' ? publicUrl.href : PLACEHOLDER_PUSH_SUBJECT;
}

export type PublicUrlAtStart = {
  url: PublicUrl | undefined;
  source: PublicUrlSource;
  /** The user config's publicUrl when the daemon started (whether or not it is the one used). */
  userValue: string | undefined;
  /** The user config file's path. */
  userFile: string;
  /** --listen serves https with a certificate for the address the daemon started with. */
  listening: boolean;
};

/** What a new value of the user config's publicUrl did. */
export type PublicUrlChange =
  | { kind: 'same' }
  | { kind: 'applied'; from: PublicUrl | undefined; to: PublicUrl | undefined }
  | { kind: 'not-applied'; value: string | undefined; why: string };

const WINS: Partial<Record<PublicUrlSource, string>> = { flag: '--public-url', environment: 'ASKBRIDGE_PUBLIC_URL' };

export function createPublicUrlSetting(start: PublicUrlAtStart) {
  let url = start.url;
  let userValue = start.userValue;
  const fixedBy = WINS[start.source];
  const originOf = (raw: string | undefined) => {
    const parsed = raw === undefined || raw === '' ? undefined : parsePublicUrl(raw);
    return parsed && !('error' in parsed) ? parsed.origin : undefined;
  };

  /** What the user config says that is not in use, and why, once it differs from what is. */
  function userValueWaiting(): string | undefined {
    if (fixedBy !== undefined || !start.listening || originOf(userValue) === url?.origin) return undefined;
    return `the user config's publicUrl is ${userValue ?? 'not set'}, but --listen serves ${url?.origin ?? 'no public URL'} (the address its certificate names) until the daemon starts again`;
  }

  return {
    /** The public URL accepted now. */
    url: () => url,

    /** The user config's publicUrl, as a new good version of the file says it. */
    userChanged(value: string | undefined): PublicUrlChange {
      if (value === userValue) return { kind: 'same' };
      userValue = value;
      if (fixedBy !== undefined) return { kind: 'not-applied', value, why: `${fixedBy}, given when the daemon started, wins over the user config` };
      if (start.listening) return { kind: 'not-applied', value, why: '--listen serves the address it started with (its certificate names it) until the daemon starts again' };
      const next = value === undefined || value === '' ? undefined : parsePublicUrl(value);
      // The config file's schema refuses a bad one, so the last good file (and its address) stays: never seen here.
      if (next !== undefined && 'error' in next) return { kind: 'not-applied', value, why: next.error };
      if (next?.origin === url?.origin) return { kind: 'same' };
      const from = url;
      url = next;
      return { kind: 'applied', from, to: next };
    },

    status(): PublicUrlStatus {
      const source: PublicUrlSource = fixedBy !== undefined ? start.source : start.listening ? start.source : url ? 'user' : 'none';
      const notUsed = fixedBy !== undefined && userValue !== undefined && originOf(userValue) !== url?.origin ? userValue : undefined;
      const restart = userValueWaiting();
      return {
        ...(url ? { url: url.origin } : {}),
        source,
        userFile: start.userFile,
        ...(notUsed === undefined ? {} : { userValueNotUsed: notUsed }),
        ...(restart === undefined ? {} : { restartNeeded: restart }),
      };
    },
  };
}

export type PublicUrlSetting = ReturnType<typeof createPublicUrlSetting>;
