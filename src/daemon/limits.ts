// The daemon's limits: what a caller may send, how long it may take to send it, how many questions
// wait and how many bytes they hold (in all, per asker, per credential), how many one-tap buttons
// live (counted alike), and how far a question's deadline may move for a person who is answering.

/** Limits on what a caller may send. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const ANSWER_BODY_LIMIT_BYTES = 64 * 1024;
export const WS_MESSAGE_LIMIT_BYTES = 16 * 1024;
/** A page's own messages are a few dozen bytes. */
export const PAGE_MESSAGE_LIMIT_BYTES = 1024;

/**
 * Time to send a request's headers, and the whole request. They bound the receiving only: once the
 * hook's question has arrived, its response stays open however long a person thinks.
 */
export type RequestTimeouts = { headersMs: number; requestMs: number };
export const REQUEST_TIMEOUTS: RequestTimeouts = { headersMs: 10_000, requestMs: 30_000 };

/** How many finished questions GET /api/history gives when not told, and at most. */
export const HISTORY_LINES = { default: 200, max: 5_000 } as const;

/** Questions waiting at once, from every asker together; a new one over it is refused, and its terminal asks. */
export const MAX_PENDING = 4096;

/**
 * What the waiting questions may hold together, in bytes: each counts the JSON of its view (what
 * GET /api/asks and a page's snapshot send of it) and of the input its asker's reply echoes back.
 * It bounds the daemon's memory, and every listing by construction: a listing is the views alone.
 */
export const WAITING_BYTES = 32 * 1024 * 1024;

/** The asks and bytes that may wait at once (MAX_PENDING, WAITING_BYTES; tests lower them). */
export type WaitingLimits = { asks: number; bytes: number };

/**
 * The most one asker (a transport, its credential and the machine it names) may hold of either
 * limit, and every asker of one credential together (the hook key, from any number of machines
 * it names): no asker, nor anyone holding one credential, can crowd out the others.
 */
export const ASKER_SHARE = 1 / 4;
export const CREDENTIAL_SHARE = 1 / 2;

/** Where a limit is counted, widest first: everyone's, each credential's, each asker's; and the share of it each may hold. */
export const SHARES = { all: 1, credential: CREDENTIAL_SHARE, asker: ASKER_SHARE } as const;
export type Scope = keyof typeof SHARES;

/** The most one scope may hold of a limit: its share, at least one. */
export function shareOf(limit: number, scope: Scope): number {
  return Math.max(1, Math.floor(limit * SHARES[scope]));
}

/**
 * One-tap capabilities (ntfy's buttons) alive at once, counted as asks are: each asker and each
 * credential may hold its share, so that no asker, nor anyone holding one credential, can take
 * another's buttons away or keep them from being made.
 */
export const MAX_CAPABILITIES = 3_000;

/** What a finished question's view may hold, all of them together, so a late answer learns who won. */
export const FINISHED_BYTES = 32 * 1024 * 1024;

/**
 * How much more time one extension gives a person who is answering (POST /api/asks/:id/extend):
 * the deadline moves to at least this far from now, never past the question's extendableUntil.
 */
export const EXTEND_STEP_MS = 120_000;
