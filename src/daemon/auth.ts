// Who may do what. Three kinds of caller reach the daemon:
// - local programs (the hook, the CLI): a bearer token read from the 0600 token file, and never an
//   Origin header, so no web page can act as one;
// - paired pages: an HttpOnly SameSite=Strict cookie obtained by trading a one-time pairing code,
//   and on anything that changes state (and the WebSocket upgrade) an exact same-origin Origin;
// - anyone else: only the static page itself.
// Every request must carry an allowed Host (against DNS rebinding).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

/** `hook`: no credentials at this gate and never an Origin; the route checks the hook's signature itself. */
export const ACCESS = ['public', 'hook', 'local', 'page', 'page-or-local'] as const;
export type Access = (typeof ACCESS)[number];
export type Principal = { kind: 'local' } | { kind: 'page'; sessionId: string } | { kind: 'anonymous' };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const PAIRING_CODE_TTL_MS = 10 * 60_000;
const PAGE_SESSION_TTL_MS = 30 * 24 * 60 * 60_000;
const MAX_PAIRING_CODES = 100;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export type AuthOptions = {
  token: string;
  /** The port the daemon listens on, read at request time (it may be chosen by the system). */
  port: () => number;
  /** Extra `host[:port]` values to accept, for a reverse proxy or tunnel the user set up. */
  extraHosts?: readonly string[];
  /** Keeps paired pages paired across daemon restarts (hashes and expiry times only). */
  pageSessionStore?: { load(): Array<[string, number]>; save(entries: Array<[string, number]>): void };
  now?: () => number;
};

export function createAuth(options: AuthOptions) {
  const now = options.now ?? Date.now;
  const tokenBuffer = Buffer.from(options.token);
  // Only hashes are kept, so a heap dump does not hand out live codes or cookies.
  const pairingCodes = new Map<string, number>(); // sha256(code) -> expiresAt
  const pageSessions = new Map<string, number>(options.pageSessionStore?.load().filter(([, expiresAt]) => expiresAt > now())); // sha256(cookie value) -> expiresAt

  const cookieName = () => `askbridge_${options.port()}`;

  function allowedHosts(): Set<string> {
    const port = options.port();
    return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...(options.extraHosts ?? [])]);
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

  function pageSessionOf(request: FastifyRequest): string | undefined {
    const value = readCookie(request.headers.cookie);
    if (!value) return undefined;
    const id = sha256(value);
    const expiresAt = pageSessions.get(id);
    if (expiresAt === undefined) return undefined;
    if (expiresAt < now()) {
      pageSessions.delete(id);
      return undefined;
    }
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
    // Cookies ride along on cross-site requests that SameSite misses (same-site subdomains, old
    // browsers); an exact Origin on every state change and on the upgrade closes that gap.
    const changesState = request.method !== 'GET' && request.method !== 'HEAD';
    const isUpgrade = request.headers.upgrade?.toLowerCase() === 'websocket';
    if (kind === 'page' && (changesState || isUpgrade) && origin === undefined) {
      throw new HttpError(403, 'origin_required', 'an Origin header is required');
    }
  }

  return {
    guard,
    cookieName,

    /** A one-time code for the page URL; it pairs exactly one browser within ten minutes. */
    createPairingCode(): string {
      const code = randomBytes(24).toString('base64url');
      for (const [hash, expiresAt] of pairingCodes) if (expiresAt < now()) pairingCodes.delete(hash);
      if (pairingCodes.size >= MAX_PAIRING_CODES) pairingCodes.delete(pairingCodes.keys().next().value!);
      pairingCodes.set(sha256(code), now() + PAIRING_CODE_TTL_MS);
      return code;
    },

    /** Trade a pairing code for a page session; sets the cookie. The code is spent either way. */
    pair(code: string, reply: FastifyReply): void {
      const hash = sha256(code);
      const expiresAt = pairingCodes.get(hash);
      pairingCodes.delete(hash);
      if (expiresAt === undefined || expiresAt < now()) {
        throw new HttpError(401, 'bad_pairing_code', 'this link was already used or has expired: run `askbridge open` for a new one');
      }
      const value = randomBytes(32).toString('base64url');
      for (const [id, expiresAt] of pageSessions) if (expiresAt < now()) pageSessions.delete(id);
      pageSessions.set(sha256(value), now() + PAGE_SESSION_TTL_MS);
      options.pageSessionStore?.save([...pageSessions]);
      const maxAge = Math.floor(PAGE_SESSION_TTL_MS / 1000);
      reply.header('set-cookie', `${cookieName()}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`);
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
