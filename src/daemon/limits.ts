// The daemon's limits: what a caller may send, how long it may take to send it, how many questions
// wait, and how far a question's deadline may move for a person who is answering.
import { HOOK_TIMEOUT_SECONDS, TIMEOUT_MARGIN_SECONDS } from '../hook-timeout.js';

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

/** Questions waiting at once, from every session; a new one over it is refused, and its terminal asks. */
export const MAX_PENDING = 4096;

/**
 * How much more time one extension gives a person who is answering (POST /api/asks/:id/extend):
 * the deadline moves to at least this far from now, never past the question's extendableUntil.
 */
export const EXTEND_STEP_MS = 120_000;

/**
 * The longest a hook's question may wait, counted from when it was asked, extensions included: the
 * hook's timeout as `install` writes it, less the margin that lets the daemon answer before Claude
 * Code kills the hook. An asker that waits with no limit of its own (`POST /api/asks` without
 * waitSeconds, the MCP tool) is held to the same bound.
 */
export const MAX_WAIT_MS = (HOOK_TIMEOUT_SECONDS - TIMEOUT_MARGIN_SECONDS) * 1000;
