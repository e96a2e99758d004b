// Who may do what. Four kinds of caller reach the daemon:
// - hooks: the command hook's signed requests (hook-identity.ts) or the http hook's key, and never
//   an Origin header;
// - the CLI: a bearer token read from the 0600 token file, and never an Origin header, so no web
//   page can act as either;
// - paired pages: an HttpOnly SameSite=Strict cookie AND a page key, both from trading a one-time
//   pairing code. Browsers send a host's cookies to every port of it, so any other server on
//   127.0.0.1 the browser visits receives the cookie; the key lives in the page origin's own
//   storage (port included), travels in a header (a WebSocket subprotocol for the upgrade), and is
//   what a sibling port can never read. Every page request, GET included, must also come from the
//   exact origin: an Origin header naming it, or `Sec-Fetch-Site: same-origin`;
// - anyone else: only the static page itself, the pairing route (rate-limited), and the one-tap
//   route, where a capability for one option of one question is the credential (one-tap.ts).
// Every request must carry an allowed Host (against DNS rebinding): a loopback name the daemon
// actually holds, or the host of the public URL the user configured (public-url.ts); an Origin
// must be exactly a loopback origin or the public URL's. The public URL can change while the daemon
// runs (the user config): from that moment the new one is accepted and the old one is not. Paired
// pages are devices the person can list and revoke; revoking one stops its cookie and key at once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PAGE_KEY_HEADER, PAGE_KEY_PROTOCOL_PREFIX, PAIRING_CODE_TTL_MS } from '../../protocol.js';
import type { PublicUrl } from '../../public-url.js';
import { HttpError } from '../errors.js';
import { sameSecret } from '../hook-identity.js';

/** `hook`: no credentials at this gate and never an Origin; the route checks the hook's signature itself. */
export const ACCESS = ['public', 'hook', 'local', 'page', 'page-or-local'] as const;
export type Access = (typeof ACCESS)[number];
/** `hook`: set by a hook route once the hook key or the command hook's signature is checked. */
/** A page's `person`: the person its device was paired for (absent: paired with no person named). */
export type Principal = { kind: 'local' } | { kind: 'page'; sessionId: string; deviceId: string; person?: string } | { kind: 'hook' } | { kind: 'anonymous' };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** What a refusal calls the body's fields: the http hook's body is Claude Code's `payload`. */
    bodyName?: string;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const PAGE_SESSION_TTL_MS = 30 * 24 * 60 * 60_000;
const MAX_PAIRING_CODES = 100;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * A paired browser, as the person sees it and can revoke it: an id that is no secret, a name, when
 * it was last seen, and whose it is (`askbridge pair --person NAME`; absent: paired with no person named).
 */
export type Device = { id: string; name: string; pairedAt: number; lastSeen: number; person?: string };
/** A paired page, as kept on disk: hashes of its cookie and of its key, when it expires, and its device. */
export type StoredPageSession = Device & { cookieHash: string; keyHash: string; expiresAt: number };
/**
 * Where the paired pages are kept: read at start, changed by a change made on them as kept (documents.ts: with a
 * shared store, on another daemon's pairing made meanwhile too), which returns them as changed;
 * `onChange`: another daemon sharing the store changed them, or merged its change with this one's.
 */
export type PageSessionStore = {
  load(): StoredPageSession[];
  update(change: (entries: StoredPageSession[]) => StoredPageSession[]): StoredPageSession[];
  onChange?(listener: (entries: StoredPageSession[]) => void): void;
};
/** How revoking a device went: `not_saved` left it paired, as the file on disk still says it is. */
export type RevokeResult = { kind: 'revoked' } | { kind: 'not_found' } | { kind: 'not_saved'; reason: string };

/** A device's last-seen time is written to disk at most this often (it changes on every request). */
const LAST_SEEN_SAVE_MS = 60_000;

export type AuthOptions = {
  token: string;
  /** The port the daemon listens on, read at request time (it may be chosen by the system). */
  port: () => number;
  /** The one address besides loopback where pages reach the daemon (public-url.ts), until setPublicUrl changes it. */
  publicUrl?: PublicUrl | undefined;
  /** Keeps paired pages paired across daemon restarts (hashes and expiry times only). */
  pageSessionStore?: PageSessionStore;
  /** Whether the daemon holds [::1] too; if not, that name is refused. */
  holdsIpv6?: () => boolean;
  /**
   * Whether askbridge still knows a person (people.ts): a page paired for someone removed is not
   * paired, even should its unpairing not have reached the disk. Absent: every person is known.
   */
  isKnownPerson?: (person: string) => boolean;
  now?: () => number;
};

/** What a successful pairing gives the page: the cookie (HttpOnly) and the key (for its own storage). */
export type PairedPage = { cookie: string; key: string; maxAgeSeconds: number };
/**
 * How trading a code went: paired, a code that does not pair (spent, expired, never made), one made
 * for a person askbridge no longer knows (removed since), or a pairing that could not be kept.
 */
export type PairingResult = { kind: 'paired'; page: PairedPage } | { kind: 'bad_code' } | { kind: 'unknown_person'; person: string } | { kind: 'not_saved'; reason: string };

export function createAuth(options: AuthOptions) {
  const now = options.now ?? Date.now;
  const tokenBuffer = Buffer.from(options.token);
  // Only hashes are kept, so a heap dump does not hand out live codes or cookies.
  // sha256(code) -> when it expires, whose device it pairs, and whether that person was removed since
  // (it then pairs nobody, and is kept until it expires only to say why).
  const pairingCodes = new Map<string, { expiresAt: number; person?: string; removed?: true }>();
  // sha256(cookie value) -> the session: when it expires, sha256(page key), and its device
  const pageSessions = new Map<string, Omit<StoredPageSession, 'cookieHash'>>(
    (options.pageSessionStore?.load() ?? []).filter((stored) => stored.expiresAt > now()).map(({ cookieHash, ...session }) => [cookieHash, session]),
  );
  const devicesGone = new Set<(deviceIds: string[]) => void>();
  // Paired or revoked on another daemon sharing the store: the same here, and a revoked device's pages are told.
  options.pageSessionStore?.onChange?.((entries) => {
    const before = new Map(pageSessions);
    pageSessions.clear();
    for (const { cookieHash, ...session } of entries) {
      // A last-seen time this daemon has not written yet stays.
      if (session.expiresAt > now()) pageSessions.set(cookieHash, { ...session, lastSeen: Math.max(session.lastSeen, before.get(cookieHash)?.lastSeen ?? 0) });
    }
    const gone = new Set([...before.values()].map((session) => session.id));
    for (const session of pageSessions.values()) gone.delete(session.id);
    if (gone.size > 0) for (const listener of devicesGone) listener([...gone]);
  });
  let lastSeenSavedAt = now();
  /**
   * Makes a change to the sessions as kept; a failure is the caller's to report (pairing, revoking)
   * or to shrug off (last seen). Pairing and revoking change what is kept first and memory only once
   * that is on disk, so that a restart never brings back a device that was shown as revoked, nor
   * drops one that was shown as paired.
   */
  const saveSessions = (change: (entries: StoredPageSession[]) => StoredPageSession[]) => options.pageSessionStore?.update(change);
  /** Every session's last-seen time as this daemon has it, where it is later than the one kept. */
  const withLastSeen = (entries: StoredPageSession[]) =>
    entries.map((stored) => {
      const lastSeen = pageSessions.get(stored.cookieHash)?.lastSeen ?? 0;
      return lastSeen > stored.lastSeen ? { ...stored, lastSeen } : stored;
    });
  const reasonOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

  /**
   * The page's cookie, named by the port the browser reached: loopback pages of two daemons on one
   * machine keep theirs apart (cookies ignore ports), and through the public URL it is the front's,
   * so that the daemons sharing a store behind one front read the same cookie, whichever one serves.
   */
  const cookieName = (host: string | undefined) => {
    const reached = publicUrl && host?.toLowerCase() === publicUrl.host ? new URL(publicUrl.origin) : undefined;
    return `askbridge_${reached ? reached.port || (reached.protocol === 'https:' ? '443' : '80') : options.port()}`;
  };
  let publicUrl = options.publicUrl;

  function loopbackHosts(): string[] {
    const port = options.port();
    const ipv6 = options.holdsIpv6?.() ?? true;
    return [`127.0.0.1:${port}`, `localhost:${port}`, ...(ipv6 ? [`[::1]:${port}`] : [])];
  }
  function allowedHosts(): Set<string> {
    return new Set([...loopbackHosts(), ...(publicUrl ? [publicUrl.host] : [])]);
  }
  /** Exactly the page's own origins: http on loopback, and the public URL's. */
  function allowedOrigins(): Set<string> {
    return new Set([...loopbackHosts().map((host) => `http://${host}`), ...(publicUrl ? [publicUrl.origin] : [])]);
  }

  function isLocalToken(header: string | undefined): boolean | undefined {
    if (!header) return undefined;
    const match = /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header);
    if (!match) return false;
    const given = Buffer.from(match[1]!);
    return given.length === tokenBuffer.length && timingSafeEqual(given, tokenBuffer);
  }

  function readCookie(header: string | undefined, host: string | undefined): string | undefined {
    if (!header) return undefined;
    const name = cookieName(host);
    for (const part of header.split(';')) {
      const index = part.indexOf('=');
      if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
    }
    return undefined;
  }

  /** The page key: the header on requests, the `key.` subprotocol on the WebSocket upgrade (browsers cannot set headers there). */
  function pageKeyOf(request: FastifyRequest): string | undefined {
    const header = request.headers[PAGE_KEY_HEADER];
    if (typeof header === 'string') return header;
    const protocols = request.headers['sec-websocket-protocol'];
    if (typeof protocols !== 'string') return undefined;
    return protocols.split(',').map((protocol) => protocol.trim()).find((protocol) => protocol.startsWith(PAGE_KEY_PROTOCOL_PREFIX))?.slice(PAGE_KEY_PROTOCOL_PREFIX.length);
  }

  /** The page session of a request that holds both its cookie and its key; the cookie alone is worth nothing. */
  function pageSessionOf(request: FastifyRequest): { id: string; deviceId: string; person?: string } | undefined {
    const value = readCookie(request.headers.cookie, request.headers.host);
    if (!value) return undefined;
    const id = sha256(value);
    const session = pageSessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt < now()) {
      pageSessions.delete(id);
      return undefined;
    }
    const key = pageKeyOf(request);
    if (key === undefined || !sameSecret(sha256(key), session.keyHash)) return undefined;
    if (session.person !== undefined && options.isKnownPerson?.(session.person) === false) return undefined;
    session.lastSeen = now();
    if (session.lastSeen - lastSeenSavedAt > LAST_SEEN_SAVE_MS) {
      lastSeenSavedAt = session.lastSeen;
      try {
        saveSessions(withLastSeen);
      } catch {
        // Only a last-seen time is late on disk; it is written again with the next change.
      }
    }
    return { id, deviceId: session.id, ...(session.person === undefined ? {} : { person: session.person }) };
  }

  /** The onRequest guard: runs before routing is trusted, so it also guards the WebSocket upgrade. */
  async function guard(request: FastifyRequest): Promise<void> {
    const host = request.headers.host;
    if (!host || !allowedHosts().has(host.toLowerCase())) {
      throw new HttpError(403, 'forbidden_host', 'Host header not allowed');
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin.toLowerCase())) {
      throw new HttpError(403, 'forbidden_origin', 'cross-origin requests are not allowed');
    }
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      throw new HttpError(403, 'forbidden_origin', 'cross-site requests are not allowed');
    }

    const access = request.routeOptions.config.access ?? 'local';
    if (access === 'hook') {
      if (origin !== undefined) throw new HttpError(403, 'hook_from_browser', 'the hook endpoints do not take requests from a browser');
      request.principal = { kind: 'anonymous' };
      return;
    }
    const local = isLocalToken(request.headers.authorization);
    if (local === false) throw new HttpError(401, 'bad_token', 'invalid token');
    if (local === true && origin !== undefined) {
      // A browser sends Origin on every cross-origin request: a web page can never act as the hook or the CLI.
      throw new HttpError(403, 'token_from_browser', 'the local token is not accepted from a browser');
    }
    const pageSession = local ? undefined : pageSessionOf(request);
    request.principal = local
      ? { kind: 'local' }
      : pageSession
        ? { kind: 'page', sessionId: pageSession.id, deviceId: pageSession.deviceId, ...(pageSession.person === undefined ? {} : { person: pageSession.person }) }
        : { kind: 'anonymous' };

    if (access === 'public') return;
    const { kind } = request.principal;
    const allowed = access === 'local' ? kind === 'local' : access === 'page' ? kind === 'page' : kind !== 'anonymous';
    if (!allowed) {
      throw new HttpError(401, 'unauthorized', access === 'local' ? 'a local token is required' : 'this page is not paired: run `askbridge open` on the machine running askbridge');
    }
    // Cookies ride along to every port of the host, and on cross-site requests SameSite misses:
    // every page request must come from the exact origin. Browsers send Origin on state changes and
    // on the upgrade; on a same-origin GET they send none, but say Sec-Fetch-Site: same-origin.
    if (kind === 'page' && origin === undefined) {
      const changesState = request.method !== 'GET' && request.method !== 'HEAD';
      const isUpgrade = request.headers.upgrade?.toLowerCase() === 'websocket';
      if (changesState || isUpgrade || request.headers['sec-fetch-site'] !== 'same-origin') {
        throw new HttpError(403, 'origin_required', 'a page request must come from the page itself (Origin or Sec-Fetch-Site: same-origin)');
      }
    }
  }

  return {
    guard,
    cookieName,
    /** The public URL accepted now, if any. */
    publicUrl: () => publicUrl,
    /** From now on this public URL is accepted, and no other (none: loopback only). */
    setPublicUrl(next: PublicUrl | undefined): void {
      publicUrl = next;
    },
    /** Whether a Host header is one the daemon accepts now. */
    isAllowedHost: (host: string | undefined) => host !== undefined && allowedHosts().has(host.toLowerCase()),
    /** Whether an Authorization header carries the local token (undefined: no header). */
    isLocalToken,

    /** A one-time code for the page URL; it pairs exactly one browser within ten minutes, as `person`'s device when one is named. */
    createPairingCode(person?: string): string {
      const code = randomBytes(24).toString('base64url');
      for (const [hash, { expiresAt }] of pairingCodes) if (expiresAt < now()) pairingCodes.delete(hash);
      if (pairingCodes.size >= MAX_PAIRING_CODES) pairingCodes.delete(pairingCodes.keys().next().value!);
      pairingCodes.set(sha256(code), { expiresAt: now() + PAIRING_CODE_TTL_MS, ...(person === undefined ? {} : { person }) });
      return code;
    },

    /** Whether this code would pair a page now (for the rate limit: a live code is not a guess). */
    isLivePairingCode(code: string | undefined): boolean {
      if (code === undefined) return false;
      const pairing = pairingCodes.get(sha256(code));
      return pairing !== undefined && pairing.removed === undefined && pairing.expiresAt >= now();
    },

    /** The person was removed: every code made for them pairs nobody from now on, even should they be added again. */
    withdrawPairingCodes(person: string): void {
      for (const [hash, pairing] of pairingCodes) if (pairing.person === person) pairingCodes.set(hash, { ...pairing, removed: true });
    },

    /**
     * Trade a pairing code for a page session: a cookie and a key. The code is spent only once the
     * session is kept: when it cannot be saved (a full disk), the code still works for a retry.
     */
    pair(code: string, deviceName: string): PairingResult {
      const hash = sha256(code);
      const pairing = pairingCodes.get(hash);
      if (pairing === undefined || pairing.expiresAt < now()) {
        pairingCodes.delete(hash);
        return { kind: 'bad_code' };
      }
      // A device of someone askbridge no longer knows would be refused on every request: it is not made.
      if (pairing.person !== undefined && (pairing.removed || options.isKnownPerson?.(pairing.person) === false)) {
        pairingCodes.delete(hash);
        return { kind: 'unknown_person', person: pairing.person };
      }
      const cookie = randomBytes(32).toString('base64url');
      const key = randomBytes(32).toString('base64url');
      const paired: StoredPageSession = { cookieHash: sha256(cookie), expiresAt: now() + PAGE_SESSION_TTL_MS, keyHash: sha256(key), id: randomBytes(6).toString('hex'), name: deviceName, pairedAt: now(), lastSeen: now(), ...(pairing.person === undefined ? {} : { person: pairing.person }) };
      try {
        saveSessions((entries) => [...withLastSeen(entries).filter((stored) => stored.expiresAt >= now()), paired]);
      } catch (error) {
        return { kind: 'not_saved', reason: reasonOf(error) };
      }
      for (const [id, session] of pageSessions) if (session.expiresAt < now()) pageSessions.delete(id);
      const { cookieHash, ...session } = paired;
      pageSessions.set(cookieHash, session);
      pairingCodes.delete(hash);
      return { kind: 'paired', page: { cookie, key, maxAgeSeconds: Math.floor(PAGE_SESSION_TTL_MS / 1000) } };
    },

    /** Every paired browser that has not expired, most recently seen first. */
    devices(): Device[] {
      return [...pageSessions.values()]
        .filter((session) => session.expiresAt >= now())
        .map(({ id, name, pairedAt, lastSeen, person }) => ({ id, name, pairedAt, lastSeen, ...(person === undefined ? {} : { person }) }))
        .sort((a, b) => b.lastSeen - a.lastSeen);
    },

    /**
     * Unpairs a device once the list without it is on disk: its cookie and key stop working at once
     * (its sockets are the caller's to close). When the list cannot be written, the device stays
     * paired, here as on disk, and the caller says so: a revoke that a restart would undo is refused.
     */
    /** Told of the devices another daemon sharing the store unpaired (their sockets here are the listener's to close). */
    onDevicesGone(listener: (deviceIds: string[]) => void): void {
      devicesGone.add(listener);
    },

    revokeDevice(deviceId: string): RevokeResult {
      const entry = [...pageSessions].find(([, session]) => session.id === deviceId);
      if (!entry) return { kind: 'not_found' };
      const [cookieHash] = entry;
      try {
        saveSessions((entries) => entries.filter((stored) => stored.cookieHash !== cookieHash));
      } catch (error) {
        return { kind: 'not_saved', reason: reasonOf(error) };
      }
      pageSessions.delete(cookieHash);
      return { kind: 'revoked' };
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;

export function registerGuard(app: FastifyInstance, auth: Auth): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', auth.guard);
}

