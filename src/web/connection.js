// @ts-check
// Pairing, the session, and the live WebSocket to the daemon, with a backoff that resets only once
// a snapshot proves the connection works end to end. It knows nothing of questions: messages go to
// `onMessage`, and what the page should show to `onState`.
// A page that is left (pagehide) closes its socket and stops retrying: the daemon counts open
// sockets as people who can see a question, and a page kept in the back/forward cache would still
// count (the browser answers its pings). Shown again from that cache (pageshow), it reconnects at
// once, and the snapshot brings it up to date.
import { checkSession, errorMessage, forgetPageKey, keepPageKey, PAGE_KEY_PROTOCOL_PREFIX, PAGE_PROTOCOL, pageKey, pair, REVOKED_CLOSE_CODE } from './api.js';

/** @typedef {import('../protocol.js').ServerMessage} ServerMessage */
/** @typedef {import('../protocol.js').PageMessage} PageMessage */
/** @typedef {import('../protocol.js').SessionReply} SessionReply */

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 5000;
/** The close code of a socket the page closes on purpose: a normal closure (RFC 6455). */
const NORMAL_CLOSE_CODE = 1000;

/**
 * `live`: the snapshot is in; `reconnecting`: paired, the daemon is away for now; `offline`: never
 * reached it; `unpaired`: this page has no pairing (detail says why, when known).
 * @typedef {'connecting' | 'live' | 'reconnecting' | 'offline' | 'unpaired'} ConnState
 * `onSession`: the pairing, as the daemon knows it (whose device this page is).
 * @typedef {{ onMessage(message: ServerMessage): void; onState(state: ConnState, detail?: string | null): void; onSession(session: SessionReply): void }} ConnectionHandlers
 */

/** @param {ConnectionHandlers} handlers */
export function createConnection(handlers) {
  /** @type {WebSocket | null} */
  let socket = null;
  let retryTimer = 0;
  let backoff = BACKOFF_MIN_MS;
  let paired = false;
  let starting = false;
  /** Between pagehide and a pageshow from the back/forward cache: no socket, no retry. */
  let left = false;
  /** Whether the page was connected or trying to be when it was left, so that it tries again when shown. */
  let resumeOnShow = false;
  /** A pairing code taken from the address that could not be used yet (askbridge was not reached). */
  let unspentCode = /** @type {string | null} */ (null);

  async function start() {
    if (starting) return;
    starting = true;
    clearTimeout(retryTimer);
    retryTimer = 0;
    try {
      let pairError = null;
      const code = takePairCode() ?? unspentCode;
      unspentCode = null;
      if (code !== null) {
        closeSocket();
        const result = await pair({ code });
        // Not spent: askbridge could not be reached. The next try uses it.
        if (result.status === 0) {
          unspentCode = code;
          return goOffline();
        }
        if (result.ok) keepPageKey(result.data.key);
        else pairError = errorMessage(result, `Pairing failed (HTTP ${result.status}).`);
      }
      const session = await checkSession();
      // An old cookie may still be good even when the link was not: the session decides.
      if (session.ok) {
        paired = true;
        handlers.onSession(session.data);
        // A page paired before its worker kept a copy of the key gets one now.
        const key = pageKey();
        if (key) keepPageKey(key);
        connect();
      } else if (session.status === 401) {
        unpair(pairError);
      } else {
        goOffline();
      }
    } finally {
      starting = false;
    }
  }

  function goOffline() {
    handlers.onState(paired ? 'reconnecting' : 'offline');
    scheduleRetry();
  }

  function scheduleRetry() {
    if (left) return;
    clearTimeout(retryTimer);
    const delay = backoff;
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    retryTimer = window.setTimeout(() => {
      retryTimer = 0;
      start();
    }, delay);
  }

  function retryNow() {
    if (!retryTimer) return;
    backoff = BACKOFF_MIN_MS;
    start();
  }

  function connect() {
    if (socket || left) return;
    // Browsers cannot set headers on a WebSocket: the key travels as a subprotocol the daemon checks.
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss://' : 'ws://'}${location.host}/ws`, [PAGE_PROTOCOL, `${PAGE_KEY_PROTOCOL_PREFIX}${pageKey() ?? ''}`]);
    socket = ws;
    ws.addEventListener('message', (event) => {
      if (socket !== ws) return;
      /** @type {ServerMessage} */
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message?.type === 'snapshot') {
        backoff = BACKOFF_MIN_MS;
        handlers.onState('live');
      }
      handlers.onMessage(message);
    });
    ws.addEventListener('close', (event) => {
      if (socket !== ws) return;
      socket = null;
      if (event.code === REVOKED_CLOSE_CODE) {
        unpair('This device was unpaired.');
        return;
      }
      handlers.onState('reconnecting');
      scheduleRetry();
    });
  }

  function closeSocket() {
    const ws = socket;
    socket = null;
    if (ws) ws.close(NORMAL_CLOSE_CODE);
  }

  /** @param {string | null} detail */
  function unpair(detail) {
    paired = false;
    forgetPageKey();
    closeSocket();
    clearTimeout(retryTimer);
    retryTimer = 0;
    handlers.onState('unpaired', detail);
  }

  window.addEventListener('hashchange', () => {
    if (readPairCode() !== null) start();
  });
  window.addEventListener('online', retryNow);
  // The same for an unload for good and for a page going into the back/forward cache: neither can
  // show a question now, and only the second ever comes back (pageshow, persisted).
  window.addEventListener('pagehide', () => {
    resumeOnShow = paired || retryTimer !== 0 || starting;
    left = true;
    clearTimeout(retryTimer);
    retryTimer = 0;
    closeSocket();
  });
  window.addEventListener('pageshow', (event) => {
    // The first load's pageshow: app.js starts the connection.
    if (!event.persisted) return;
    left = false;
    if (!resumeOnShow) return;
    backoff = BACKOFF_MIN_MS;
    start();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') retryNow();
  });

  return {
    start,
    unpair,
    /** @param {PageMessage} message */
    send(message) {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
  };
}

/**
 * The pairing code in the address, taken out of it at once: kept out of the history and of anything
 * copied from the bar. At once, too, because the page is still loading: a change of address once it
 * has loaded makes the browser fetch the tab's icon a second time.
 */
function takePairCode() {
  const code = readPairCode();
  if (code !== null) history.replaceState(history.state, '', location.pathname + location.search);
  return code;
}

function readPairCode() {
  const match = /^#pair=(.+)$/.exec(location.hash);
  if (!match) return null;
  const code = match[1] ?? '';
  try {
    return decodeURIComponent(code);
  } catch {
    return code;
  }
}
