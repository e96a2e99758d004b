// The command hook and the daemon prove to each other who they are, and the token never travels.
// Anything can bind the daemon's port once the daemon is gone (a crash, kill -9); a hook that sent
// its token or its question there would hand both to an impostor and print whatever came back.
// So, keyed by the token that only the two of them can read (a 0600 file in a 0700 directory):
//   1. hello:    the hook sends a fresh nonce Nh; the daemon answers a nonce Nd and
//                HMAC(token, "hello" | Nh | Nd). Only the token's holder can; the hook checks it
//                before it sends anything else.
//   2. request:  the hook signs its request with HMAC(token, "question" | Nd | Nh | sha256(body))
//                ("session-end" in place of "question" when it says its session ended). Nd is
//                single-use and short-lived, so a captured request cannot be replayed.
//   3. replies:  every line the daemon sends back carries HMAC(token, "line" | Nh | Nd | event | body),
//                so the hook prints nothing that the daemon did not send for this very question.
// Domain strings keep one kind of MAC from ever standing for another. A hello needs nothing, so
// what anybody can make the daemon hold is bounded: hellos are taken from this machine only (the
// hook's own), and a challenge a hook may still be signing with is never dropped to make room for
// another; when every one kept is that young, a hello is refused instead. No HTTP here.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { LOOPBACK_NAMES } from '../public-url.js';

/** A hook answers the hello in milliseconds; a nonce left unused this long is dropped. */
const CHALLENGE_TTL_MS = 60_000;
/**
 * The longest a hook takes from its hello to its signed question: hooks/askbridge-hook.cjs gives up
 * after its HANDSHAKE_TIMEOUT_MS, the same. A challenge younger than this may still come back
 * signed; an older one is of no use to its hook any more.
 */
export const HOOK_HANDSHAKE_MS = 15_000;
/** Outstanding challenges kept at most: a flood of hellos cannot grow memory. */
export const MAX_CHALLENGES = 4096;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;

export const HOOK_AUTH_SCHEME = 'AskBridge-HMAC';

export type HookCredentials = { daemonNonce: string; hookNonce: string };

/** What a signed hook request is for: each is signed under its own domain string, so one never stands for the other. */
export type SignedRequest = 'question' | 'session-end';

export function mac(token: string, ...parts: string[]): string {
  return createHmac('sha256', token).update(parts.join('\n')).digest('base64url');
}

export function sha256(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}

/** Two secrets (MACs, keys) compared in constant time; different lengths are simply unequal. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `AskBridge-HMAC nonce=Nd, hook=Nh, mac=M` -> its parts, or undefined when it is not that shape. */
export function parseHookAuthorization(header: string | undefined): { daemonNonce: string; hookNonce: string; mac: string } | undefined {
  if (!header) return undefined;
  const match = /^AskBridge-HMAC nonce=([A-Za-z0-9_-]{1,64}), hook=([A-Za-z0-9_-]{1,64}), mac=([A-Za-z0-9_-]{1,64})$/.exec(header);
  return match ? { daemonNonce: match[1]!, hookNonce: match[2]!, mac: match[3]! } : undefined;
}

/**
 * Whether a request comes from this machine: over loopback, naming a loopback host, as the command
 * hook (askbridge-hook.cjs) and this machine's http hooks always ask. Anything else (a client on
 * another machine, or one through the public URL's front, which connects from loopback but names
 * the public host) is from elsewhere: a hello from there has no hook behind it and could only
 * crowd out the hooks', and an http hook from there is another machine's, named or not (hook-key.ts).
 */
export function isFromThisMachine(remoteAddress: string | undefined, host: string | undefined): boolean {
  const loopbackAddress = remoteAddress !== undefined && (remoteAddress === '::1' || /^(::ffff:)?127\./.test(remoteAddress));
  const hostName = host?.toLowerCase().replace(/:\d+$/, '');
  return loopbackAddress && hostName !== undefined && LOOPBACK_NAMES.has(hostName);
}

export function createHookIdentity(token: string, now: () => number = Date.now) {
  const challenges = new Map<string, number>(); // daemon nonce -> when it was given, oldest first

  /**
   * Drops the expired challenges and, at the cap, the oldest ones no hook can still be using.
   * False when the cap is still reached: every challenge kept is young enough to be on its way back.
   */
  function makeRoom(): boolean {
    const time = now();
    for (const [nonce, givenAt] of challenges) {
      const droppedAfterMs = challenges.size >= MAX_CHALLENGES ? HOOK_HANDSHAKE_MS : CHALLENGE_TTL_MS;
      if (time - givenAt <= droppedAfterMs) break;
      challenges.delete(nonce);
    }
    return challenges.size < MAX_CHALLENGES;
  }

  return {
    /** Step 1: prove the daemon holds the token, for this hook's nonce; `busy` when the challenges kept are all in use. */
    hello(hookNonce: string): { nonce: string; proof: string } | 'busy' {
      if (!makeRoom()) return 'busy';
      const nonce = randomBytes(18).toString('base64url');
      challenges.set(nonce, now());
      return { nonce, proof: mac(token, 'askbridge hello', hookNonce, nonce) };
    },

    /** Step 2: a request for `purpose` signed by the token's holder with a nonce from step 1, spent here. */
    verifyRequest(purpose: SignedRequest, authorization: string | undefined, body: string | Buffer): HookCredentials | 'unsigned' | 'bad-signature' {
      const parsed = parseHookAuthorization(authorization);
      if (!parsed) return 'unsigned';
      const givenAt = challenges.get(parsed.daemonNonce);
      if (givenAt === undefined || now() - givenAt > CHALLENGE_TTL_MS) return 'bad-signature';
      if (!sameSecret(parsed.mac, mac(token, `askbridge ${purpose}`, parsed.daemonNonce, parsed.hookNonce, sha256(body)))) return 'bad-signature';
      challenges.delete(parsed.daemonNonce);
      return { daemonNonce: parsed.daemonNonce, hookNonce: parsed.hookNonce };
    },

    /** Step 3: one NDJSON line the hook can check: `{ event, body, mac }`, body being JSON text. */
    line(credentials: HookCredentials, event: 'accepted' | 'extended' | 'settled', body: unknown): string {
      const text = JSON.stringify(body);
      return `${JSON.stringify({ event, body: text, mac: mac(token, 'askbridge line', credentials.hookNonce, credentials.daemonNonce, event, text) })}\n`;
    },
  };
}

export type HookIdentity = ReturnType<typeof createHookIdentity>;

// ---------------------------------------------------------------------------------------------
// The hook's side, for tests and the bench. hooks/askbridge-hook.cjs keeps its own copy, in plain
// Node built-ins, because it must load nothing else; the end-to-end tests prove the two agree.

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

export function checkHello(token: string, hookNonce: string, reply: { nonce?: unknown; proof?: unknown }): reply is { nonce: string; proof: string } {
  return typeof reply.nonce === 'string' && typeof reply.proof === 'string' && sameSecret(reply.proof, mac(token, 'askbridge hello', hookNonce, reply.nonce));
}

export function signRequest(token: string, credentials: HookCredentials, body: string, purpose: SignedRequest = 'question'): string {
  return `${HOOK_AUTH_SCHEME} nonce=${credentials.daemonNonce}, hook=${credentials.hookNonce}, mac=${mac(token, `askbridge ${purpose}`, credentials.daemonNonce, credentials.hookNonce, sha256(body))}`;
}

/** One signed line from the daemon, checked; undefined when it is not one the daemon signed for this request. */
export function openLine(token: string, credentials: HookCredentials, text: string): { event: string; body: unknown } | undefined {
  try {
    const line = JSON.parse(text) as { event?: unknown; body?: unknown; mac?: unknown };
    if (typeof line.event !== 'string' || typeof line.body !== 'string' || typeof line.mac !== 'string') return undefined;
    if (!sameSecret(line.mac, mac(token, 'askbridge line', credentials.hookNonce, credentials.daemonNonce, line.event, line.body))) return undefined;
    return { event: line.event, body: JSON.parse(line.body) };
  } catch {
    return undefined;
  }
}
