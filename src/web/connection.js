// @ts-check
// Pairing, the session, and the live WebSocket to the daemon, with a backoff that resets only once
// a snapshot proves the connection works end to end. It knows nothing of questions: messages go to
// `onMessage`, and what the page should show to `onState`.
import { api, PAGE_KEY_STORAGE, pageKey } from './api.js';

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 5000;

/** The close code of a socket whose device was unpaired (routes/devices.ts). */
const REVOKED_CLOSE_CODE = 4001;

/**
 * `live`: the snapshot is in; `reconnecting`: paired, the daemon is away for now; `offline`: never
 * reached it; `unpaired`: this page has no pairing (detail says why, when known).
 * @typedef {'connecting' | 'live' | 'reconnecting' | 'offline' | 'unpaired'} ConnState
 * @typedef {{ onMessage(message: any): void; onState(state: ConnState, detail?: string | null): void }} ConnectionHandlers
 */

/** @param {ConnectionHandlers} handlers */
export function createConnection(handlers) {
  /** @type {WebSocket | null} */
  let socket = null;
  let retryTimer = 0;
  let backoff = BACKOFF_MIN_MS;
  let paired = false;
  let starting = false;

  async function start() {
    if (starting) return;
    starting = true;
    clearTimeout(retryTimer);
    retryTimer = 0;
    try {
      let pairError = null;
      const code = readPairCode();
      if (code !== null) {
        closeSocket();
        const result = await api('POST', '/api/pair', { code });
        if (result.status === 0) return goOffline();
        // The code is spent either way; keep it out of the history and of anything copied from the bar.
        history.replaceState(history.state, '', location.pathname + location.search);
        if (result.status === 200 && typeof result.data?.key === 'string') localStorage.setItem(PAGE_KEY_STORAGE, result.data.key);
        else pairError = errorMessage(result, `Pairing failed (HTTP ${result.status}).`);
      }
      const session = await api('GET', '/api/session');
      // An old cookie may still be good even when the link was not: the session decides.
      if (session.status === 200) {
        paired = true;
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
    if (socket) return;
    // Browsers cannot set headers on a WebSocket: the key travels as a subprotocol the daemon checks.
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss://' : 'ws://'}${location.host}/ws`, ['askbridge', `key.${pageKey() ?? ''}`]);
    socket = ws;
    ws.addEventListener('message', (event) => {
      if (socket !== ws) return;
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
        localStorage.removeItem(PAGE_KEY_STORAGE);
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
    if (ws) ws.close();
  }

  /** @param {string | null} detail */
  function unpair(detail) {
    paired = false;
    closeSocket();
    clearTimeout(retryTimer);
    retryTimer = 0;
    handlers.onState('unpaired', detail);
  }

  window.addEventListener('hashchange', () => {
    if (readPairCode() !== null) start();
  });
  window.addEventListener('online', retryNow);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') retryNow();
  });

  return {
    start,
    unpair,
    /** @param {unknown} message */
    send(message) {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
  };
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

/**
 * The daemon's own message for a refusal, or the fallback.
 * @param {{ data: any }} result
 * @param {string | null} fallback
 */
export function errorMessage(result, fallback) {
  const message = result.data?.error?.message;
  return typeof message === 'string' && message.trim() ? message : fallback;
}
