// The daemon's limits: what a caller may send, how long it may take to send it, and how many questions wait.

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

/** Questions waiting at once, from every session; a new one over it is refused, and its terminal asks. */
export const MAX_PENDING = 4096;
