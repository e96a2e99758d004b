// @ts-check
// The daemon's API as the page calls it: one function per route, each typed with the reply its route
// declares (the schemas in protocol.ts, which the daemon checks every reply against), sent with the
// page's key (the cookie rides along), never throwing. The page cannot import shared code at run
// time, so the wire names it needs are copies here, each pinned to its one definition by a test
// (tests/unit/wire-copies.test.ts).

/** @typedef {import('../protocol.js').AwayReply} AwayReply */
/** @typedef {import('../protocol.js').ErrorReply} ErrorReply */
/** @typedef {import('../protocol.js').AskReply} AskReply */
/** @typedef {import('../protocol.js').TooLateReply} TooLateReply */
/** @typedef {import('../protocol.js').PairRequest} PairRequest */
/** @typedef {import('../protocol.js').PairedReply} PairedReply */
/** @typedef {import('../protocol.js').SessionReply} SessionReply */
/** @typedef {import('../protocol.js').Response} QuestionResponse */
/** @typedef {import('../protocol.js').ApprovalDecision} ApprovalDecision */
/** @typedef {import('../protocol.js').TurnReply} TurnReply */
/** @typedef {import('../history-file.js').HistoryReply} HistoryReply */
/** @typedef {import('../protocol.js').DevicesReply} DevicesReply */
/** @typedef {import('../protocol.js').RevokedReply} RevokedReply */
/** @typedef {import('../protocol.js').GrantsReply} GrantsReply */
/** @typedef {import('../protocol.js').PairingReply} PairingReply */
/** @typedef {import('../protocol.js').PushStatusReply} PushStatusReply */
/** @typedef {import('../protocol.js').PushSubscribedReply} PushSubscribedReply */
/** @typedef {import('../protocol.js').PushUnsubscribedReply} PushUnsubscribedReply */

/**
 * How a request went: `ok` with the route's reply; or not, with the daemon's refusal when it sent
 * one (`null` when the answer was not the daemon's: it could not be reached, status 0, or something
 * in between answered).
 * @template Reply
 * @template [Refusal=ErrorReply]
 * @typedef {{ ok: true; status: number; data: Reply } | { ok: false; status: number; data: Refusal | null }} Result
 */

/**
 * How answering, handing back, declining or extending an ask went.
 * @typedef {Result<AskReply, ErrorReply | TooLateReply>} SettleResult
 */

/** The header a paired page sends its key in (PAGE_KEY_HEADER in protocol.ts). */
export const PAGE_KEY_HEADER = 'x-askbridge-key';
/** The WebSocket subprotocol the page asks for (PAGE_PROTOCOL in protocol.ts). */
export const PAGE_PROTOCOL = 'askbridge';
/** The key's own subprotocol starts with this (PAGE_KEY_PROTOCOL_PREFIX in protocol.ts). */
export const PAGE_KEY_PROTOCOL_PREFIX = 'key.';
/** The close code of the page's WebSocket when its device was unpaired (REVOKED_CLOSE_CODE in protocol.ts). */
export const REVOKED_CLOSE_CODE = 4001;
/** How long a pairing link pairs, from when it is made (PAIRING_CODE_TTL_MS in protocol.ts). */
export const PAIRING_CODE_TTL_MS = 600000;
/** How each agent is named to a person (its profile's name, agents.ts). What each may decide comes with every ask (its `choices`). */
export const AGENT_NAMES = Object.freeze({ 'claude-code': 'Claude Code', codex: 'Codex', opencode: 'opencode', 'gemini-cli': 'Gemini CLI' });

/**
 * Who acts for an ask, in a card's words: Claude, in Claude Code; another agent by its name; its
 * asker, for a script or an MCP client.
 * @param {{ agent?: string; asker?: unknown }} view
 */
export function speakerOf(view) {
  if (view.agent === undefined) return view.asker ? 'its asker' : 'Claude';
  return view.agent === 'claude-code' ? 'Claude' : agentNameOf(view);
}

/**
 * Who asked, by name: the agent, or for an ask from before agents were named, Claude Code; '' for a
 * script or an MCP client (its asker names it).
 * @param {{ agent?: string; asker?: unknown }} view
 */
export function agentNameOf(view) {
  if (view.agent === undefined) return view.asker ? '' : AGENT_NAMES['claude-code'];
  return Object.hasOwn(AGENT_NAMES, view.agent) ? AGENT_NAMES[/** @type {keyof typeof AGENT_NAMES} */ (view.agent)] : view.agent;
}

/**
 * Where the page keeps the key it got when it paired. localStorage belongs to this exact origin,
 * port included, so no other server on this host can read it, while the cookie goes to all of them.
 */
export const PAGE_KEY_STORAGE = 'askbridge.pageKey';

/**
 * Where the page also keeps its key for its own service worker (sw.js), which cannot read
 * localStorage: this origin's Cache Storage, which no other origin reads either.
 */
export const PAGE_KEY_CACHE = 'askbridge-page-key';
/** The entry of PAGE_KEY_CACHE that holds the key (a name in the cache; nothing is fetched there). */
export const PAGE_KEY_CACHE_URL = '/page-key';

/**
 * Trade a one-time pairing code for this page's cookie and key.
 * @param {PairRequest} body
 * @returns {Promise<Result<PairedReply>>}
 */
export const pair = (body) => request('POST', '/api/pair', body);

/** @returns {Promise<Result<SessionReply>>} whether this page is paired (401 when not) */
export const checkSession = () => request('GET', '/api/session');

/**
 * One ask, waiting or settled.
 * @param {string} id
 * @returns {Promise<Result<AskReply>>}
 */
export const getAsk = (id) => request('GET', askPath(id));

/**
 * Answer every question of an ask (409 with how it was settled, when it already was).
 * @param {string} id
 * @param {QuestionResponse[]} responses
 * @returns {Promise<SettleResult>}
 */
export const answerAsk = (id, responses) => request('POST', `${askPath(id)}/answer`, { responses });

/**
 * Decide an approval: allow (once, or with one of Claude Code's suggestions by its index), or deny
 * (409 with how it was settled, when it already was).
 * @param {string} id
 * @param {ApprovalDecision} decision
 * @returns {Promise<SettleResult>}
 */
export const decideAsk = (id, decision) => request('POST', `${askPath(id)}/decide`, decision);

/**
 * Respond to an MCP server's request for input: accept (a form's values), decline or cancel (400
 * with the values' problems when they do not fit the form; 409 when it was already settled).
 * @param {string} id
 * @param {import('../protocol.js').ElicitationResponse} response
 * @returns {Promise<SettleResult>}
 */
export const respondToElicitation = (id, response) => request('POST', `${askPath(id)}/elicitation`, response);

/**
 * Hand an ask back to the terminal, or decline it.
 * @param {string} id
 * @param {'terminal' | 'decline'} how
 * @returns {Promise<SettleResult>}
 */
export const settleAsk = (id, how) => request('POST', `${askPath(id)}/${how}`, {});

/**
 * More time for a person who is answering.
 * @param {string} id
 * @returns {Promise<SettleResult>}
 */
export const extendAsk = (id) => request('POST', `${askPath(id)}/extend`, {});

/**
 * Reply to the end of Claude's turn in a session (Claude goes on with exactly that text), or say it
 * is done (Claude stops). `ask` names the turn's end replied to: one that ended meanwhile answers
 * 409 with how it ended, and the reply goes nowhere.
 * @param {string} sessionId
 * @param {TurnReply & { ask: string }} body
 * @returns {Promise<SettleResult>}
 */
export const replyToTurn = (sessionId, body) => request('POST', `/api/sessions/${encodeURIComponent(sessionId)}/reply`, body);

/**
 * Say the person is away (the end of each turn then waits here for a reply) or back.
 * @param {boolean} away
 * @returns {Promise<Result<AwayReply>>}
 */
export const putAway = (away) => request('PUT', '/api/away', { away });

/**
 * Finished questions, newest first, as JSON.
 * @param {{ q: string; limit: number }} query
 * @returns {Promise<Result<HistoryReply>>}
 */
export const readHistory = ({ q, limit }) => request('GET', `/api/history?${new URLSearchParams({ q, limit: String(limit) })}`);

/**
 * Finished questions as a file to save (`format` json or csv): the response itself, or null when the daemon could not be reached.
 * @param {{ q: string; limit: number; format: 'json' | 'csv' }} query
 * @returns {Promise<Response | null>}
 */
export async function historyFile({ q, limit, format }) {
  try {
    return await fetch(`/api/history?${new URLSearchParams({ q, limit: String(limit), format })}`, { credentials: 'same-origin', cache: 'no-store', headers: keyHeaders() });
  } catch {
    return null;
  }
}

/** @returns {Promise<Result<DevicesReply>>} the paired browsers */
export const listDevices = () => request('GET', '/api/devices');

/**
 * Unpair a browser.
 * @param {string} id
 * @returns {Promise<Result<RevokedReply>>}
 */
export const revokeDevice = (id) => request('POST', `/api/devices/${encodeURIComponent(id)}/revoke`, {});

/**
 * End a grant now: the requests it covered wait for a person again.
 * @param {string} id
 * @returns {Promise<Result<GrantsReply>>} the grants ended
 */
export const revokeGrant = (id) => request('POST', `/api/grants/${encodeURIComponent(id)}/revoke`, {});

/** @returns {Promise<Result<PairingReply>>} a one-time link (and its QR code) that pairs one more browser */
export const createPairing = () => request('POST', '/api/pairings', {});

/** @returns {Promise<Result<PushStatusReply>>} the daemon's push key, and whether this device gets pushes */
export const pushStatus = () => request('GET', '/api/push');

/**
 * Push to this device: its browser's subscription, which the daemon checks against PushSubscriptionSchema.
 * @param {PushSubscriptionJSON} subscription
 * @returns {Promise<Result<PushSubscribedReply>>}
 */
export const savePushSubscription = (subscription) => request('POST', '/api/push/subscription', subscription);

/** @returns {Promise<Result<PushUnsubscribedReply>>} no more pushes to this device */
export const deletePushSubscription = () => request('DELETE', '/api/push/subscription');

/**
 * The daemon's own message for a refusal, or the fallback.
 * @template {string | null} Fallback
 * @param {Result<unknown, ErrorReply>} result
 * @param {Fallback} fallback
 * @returns {string | Fallback}
 */
export function errorMessage(result, fallback) {
  const error = result.ok ? undefined : result.data?.error;
  if (!error?.message.trim()) return fallback;
  // The details say which values were wrong, and why.
  return Array.isArray(error.details) && error.details.length > 0 ? `${error.message}: ${error.details.join('; ')}` : error.message;
}

/**
 * Keeps the key this page paired with, for the page and for its service worker (which answers from
 * a notification's buttons with it).
 * @param {string} key
 */
export function keepPageKey(key) {
  localStorage.setItem(PAGE_KEY_STORAGE, key);
  void copyKeyForWorker(key);
}

/** Forgets this page's key, for the page and for its service worker: the device is no longer paired. */
export function forgetPageKey() {
  try {
    localStorage.removeItem(PAGE_KEY_STORAGE);
  } catch {
    // storage disabled: there was no key
  }
  void copyKeyForWorker(null);
}

/** @param {string | null} key */
async function copyKeyForWorker(key) {
  try {
    if (key === null) await caches.delete(PAGE_KEY_CACHE);
    else await (await caches.open(PAGE_KEY_CACHE)).put(PAGE_KEY_CACHE_URL, new Response(key));
  } catch {
    // No Cache Storage here (not a secure context): a notification's buttons then open the page.
  }
}

/** The key this page got when it paired, if it has one. */
export function pageKey() {
  try {
    return localStorage.getItem(PAGE_KEY_STORAGE);
  } catch {
    return null; // storage disabled: the page cannot stay paired
  }
}

/** @param {string} id */
function askPath(id) {
  return `/api/asks/${encodeURIComponent(id)}`;
}

/** @returns {Record<string, string>} */
function keyHeaders() {
  const key = pageKey();
  return key ? { [PAGE_KEY_HEADER]: key } : {};
}

/**
 * fetch that never throws. A success in JSON is the route's reply, which the daemon checked against
 * the route's schema before sending it; a refusal is the daemon's when it has the daemon's error shape.
 * @template Reply
 * @template {ErrorReply} [Refusal=ErrorReply]
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<Result<Reply, Refusal>>} Reply and Refusal as each route's function above says
 */
async function request(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = keyHeaders();
  /** @type {RequestInit} */
  const init = { method, credentials: 'same-origin', cache: 'no-store', headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, data: null };
  }
  /** @type {unknown} */
  let data = null;
  try {
    data = await response.json();
  } catch {
    // Not JSON (a proxy's error page, an empty body): the status alone has to do.
  }
  if (response.ok && data !== null) return { ok: true, status: response.status, data: /** @type {Reply} */ (data) };
  return { ok: false, status: response.status, data: isRefusal(data) ? /** @type {Refusal} */ (data) : null };
}

/**
 * @param {unknown} data
 * @returns {data is ErrorReply}
 */
function isRefusal(data) {
  const error = typeof data === 'object' && data !== null && 'error' in data ? data.error : undefined;
  return typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string';
}
