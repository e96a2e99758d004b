// Who may do what. Four kinds of caller reach the daemon:
// - the command hook: signed requests (hook-identity.ts), and never an Origin header;
// - the CLI: a bearer token read from the 0600 token file, and never an Origin header, so no web
//   page can act as either;
// - paired pages: an HttpOnly SameSite=Strict cookie AND a page key, both from trading a one-time
//   pairing code. Browsers send a host's cookies to every port of it, so any other server on
//   127.0.0.1 the browser visits receives the cookie; the key lives in the page origin's own
//   storage (port included), travels in a header (a WebSocket subprotocol for the upgrade), and is
//   what a sibling port can never read. Every page request, GET included, must also come from the
//   exact origin: an Origin header naming it, or `Sec-Fetch-Site: same-origin`;
// - anyone else: only the static page itself, and the pairing route (rate-limited).
// Every request must carry an allowed Host (against DNS rebinding): a loopback name the daemon
// actually holds, or a host the user configured.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import { sameSecret } from './hook-identity.js';

/** `hook`: no credentials at this gate and never an Origin; the route checks the hook's signature itself. */
export const ACCESS = ['public', 'hook', 'local', 'page', 'page-or-local'] as const;
export type Access = (typeof ACCESS)[number];
export type Principal = { kind: 'local' } | { kind: 'page'; sessionId: string } | { kind: 'anonymous' };

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

const PAIRING_CODE_TTL_MS = 10 * 60_000;
const PAGE_SESSION_TTL_MS = 30 * 24 * 60 * 60_000;
const MAX_PAIRING_CODES = 100;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The header a page sends its key in; on the WebSocket upgrade, the subprotocol `key.<key>` instead. */
export const PAGE_KEY_HEADER = 'x-askbridge-key';
/** The subprotocol the page asks for and the daemon selects. */
export const PAGE_PROTOCOL = 'askbridge';

/** A paired page, as kept on disk: hashes of its cookie and of its key, and when it expires. */
export type StoredPageSession = [cookieHash: string, expiresAt: number, keyHash: string];
export type PageSessionStore = { load(): StoredPageSession[]; save(entries: StoredPageSession[]): void };

export type AuthOptions = {
  token: string;
  /** The port the daemon listens on, read at request time (it may be chosen by the system). */
  port: () => number;
  /** Extra `host[:port]` values to accept, for a reverse proxy or tunnel the user set up. */
  extraHosts?: readonly string[];
  /** Keeps paired pages paired across daemon restarts (hashes and expiry times only). */
  pageSessionStore?: PageSessionStore;
  /** Whether the daemon holds [::1] too; if not, that name is refused. */
  holdsIpv6?: () => boolean;
  now?: () => number;
};

/** What a successful pairing gives the page: the cookie (HttpOnly) and the key (for its own storage). */
export type PairedPage = { cookie: string; key: string; maxAgeSeconds: number };
/** How trading a code went: paired, a code that does not pair (spent, expired, never made), or a pairing that could not be kept. */
export type PairingResult = { kind: 'paired'; page: PairedPage } | { kind: 'bad_code' } | { kind: 'not_saved'; reason: string };

export function createAuth(options: AuthOptions) {
  const now = options.now ?? Date.now;
  const tokenBuffer = Buffer.from(options.token);
  // Only hashes are kept, so a heap dump does not hand out live codes or cookies.
  const pairingCodes = new Map<string, number>(); // sha256(code) -> expiresAt
  // sha256(cookie value) -> when it expires, and sha256(page key)
  const pageSessions = new Map<string, { expiresAt: number; keyHash: string }>(
    (options.pageSessionStore?.load() ?? []).filter(([, expiresAt]) => expiresAt > now()).map(([cookieHash, expiresAt, keyHash]) => [cookieHash, { expiresAt, keyHash }]),
  );
  const storedSessions = (): StoredPageSession[] => [...pageSessions].map(([cookieHash, { expiresAt, keyHash }]) => [cookieHash, expiresAt, keyHash]);

  const cookieName = () => `askbridge_${options.port()}`;

  function allowedHosts(): Set<string> {
    const port = options.port();
    const ipv6 = options.holdsIpv6?.() ?? true;
    return new Set([`127.0.0.1:${port}`, `localhost:${port}`, ...(ipv6 ? [`[::1]:${port}`] : []), ...(options.extraHosts ?? [])]);
  }

  function isLocalToken(header: string | undefined): boolean | undefined {
    if (!header) return undefined;
    const match = /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header);
    if (!match) return false;
    const given = Buffer.from(match[1]!);
    return given.length === tokenBuffer.length && timingSafeEqual(given, tokenBuffer);
  }

  function readCookie(header: string | undefined): string | undefined {
    if (!header) return undefined;
    const name = cookieName();
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
    return protocols.split(',').map((protocol) => protocol.trim()).find((protocol) => protocol.startsWith('key.'))?.slice(4);
  }

  /** The page session of a request that holds both its cookie and its key; the cookie alone is worth nothing. */
  function pageSessionOf(request: FastifyRequest): string | undefined {
    const value = readCookie(request.headers.cookie);
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
    return id;
  }

  /** The onRequest guard: runs before routing is trusted, so it also guards the WebSocket upgrade. */
  async function guard(request: FastifyRequest): Promise<void> {
    const host = request.headers.host;
    if (!host || !allowedHosts().has(host.toLowerCase())) {
      throw new HttpError(403, 'forbidden_host', 'Host header not allowed');
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedHosts().has(originHost(origin) ?? '')) {
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
    request.principal = local ? { kind: 'local' } : pageSession ? { kind: 'page', sessionId: pageSession } : { kind: 'anonymous' };

    if (access === 'public') return;
    const { kind } = request.principal;
    const allowed = access === 'local' ? kind === 'local' : access === 'page' ? kind === 'page' : kind !== 'anonymous';
    if (!allowed) {
      throw new HttpError(401, 'unauthorized', access === 'local' ? 'a local token is required' : 'this page is not paired: run `askbridge open`');
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
    /** Whether an Authorization header carries the local token (undefined: no header). */
    isLocalToken,

    /** A one-time code for the page URL; it pairs exactly one browser within ten minutes. */
    createPairingCode(): string {
      const code = randomBytes(24).toString('base64url');
      for (const [hash, expiresAt] of pairingCodes) if (expiresAt < now()) pairingCodes.delete(hash);
      if (pairingCodes.size >= MAX_PAIRING_CODES) pairingCodes.delete(pairingCodes.keys().next().value!);
      pairingCodes.set(sha256(code), now() + PAIRING_CODE_TTL_MS);
      return code;
    },

    /** Whether this code would pair a page now (for the rate limit: a live code is not a guess). */
    isLivePairingCode(code: string | undefined): boolean {
      if (code === undefined) return false;
      const expiresAt = pairingCodes.get(sha256(code));
      return expiresAt !== undefined && expiresAt >= now();
    },

    /**
     * Trade a pairing code for a page session: a cookie and a key. The code is spent only once the
     * session is kept: when it cannot be saved (a full disk), the code still works for a retry.
     */
    pair(code: string): PairingResult {
      const hash = sha256(code);
      const expiresAt = pairingCodes.get(hash);
      if (expiresAt === undefined || expiresAt < now()) {
        pairingCodes.delete(hash);
        return { kind: 'bad_code' };
      }
      const cookie = randomBytes(32).toString('base64url');
      const key = randomBytes(32).toString('base64url');
      for (const [id, session] of pageSessions) if (session.expiresAt < now()) pageSessions.delete(id);
      const id = sha256(cookie);
      pageSessions.set(id, { expiresAt: now() + PAGE_SESSION_TTL_MS, keyHash: sha256(key) });
      try {
        options.pageSessionStore?.save(storedSessions());
      } catch (error) {
        pageSessions.delete(id);
        return { kind: 'not_saved', reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
      }
      pairingCodes.delete(hash);
      return { kind: 'paired', page: { cookie, key, maxAgeSeconds: Math.floor(PAGE_SESSION_TTL_MS / 1000) } };
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;

export function registerGuard(app: FastifyInstance, auth: Auth): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', auth.guard);
}

function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' || url.origin !== origin) return undefined;
    return url.host.toLowerCase();
  } catch {
    return undefined;
  }
}
