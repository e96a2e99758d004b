// @ts-check
// The service worker: shows a push from the daemon as a notification, and opens the page on its
// question when the notification is clicked. A simple question's options become the notification's
// buttons where the browser shows them: a click on one answers as this device, with the page's
// cookie and its key (which the page keeps for this worker in Cache Storage, api.js), and opens the
// page when the answer is refused. A renewed push subscription is given to the daemon the same way.
// It serves nothing (no fetch handler): the page always comes from the daemon. A push is JSON the
// daemon made, { id, project, headers, questions?, options?, approval?: { tool, target?, risky? }, turnEnd?: { said? }, terminalWait?: { kind, message? }, elicitation?: { server, message? } },
// whose text comes from a model: it only ever becomes a notification's title, body and button titles, which are text.

const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const QUESTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Where the page keeps its key for this worker (PAGE_KEY_CACHE and PAGE_KEY_CACHE_URL in api.js). */
const PAGE_KEY_CACHE = 'askbridge-page-key';
const PAGE_KEY_CACHE_URL = '/page-key';
/** The header a paired page sends its key in (PAGE_KEY_HEADER in protocol.ts). */
const PAGE_KEY_HEADER = 'x-askbridge-key';
/** Says the answer came from a notification's button (ANSWER_CLIENT_HEADER in protocol.ts). */
const ANSWER_CLIENT_HEADER = 'x-askbridge-client';
/** A button's action: this prefix, then the index of the option it chooses. */
const OPTION_ACTION = 'option-';

sw.addEventListener('install', () => sw.skipWaiting());
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

sw.addEventListener('push', (event) => {
  event.waitUntil(showNotice(readNotice(event.data)));
});

sw.addEventListener('notificationclick', (event) => {
  event.waitUntil(onNotificationClick(event.notification, event.action));
});

sw.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(renewSubscription(/** @type {{ newSubscription?: PushSubscription | null }} */ (event)));
});

/**
 * A click on one of a notification's option buttons answers its question with that option; a click
 * on the notification itself, or an answer refused (already answered, gone), opens the page on it.
 * @param {Notification} notification
 * @param {string} action
 */
async function onNotificationClick(notification, action) {
  notification.close();
  const id = notification.data?.id;
  const question = typeof id === 'string' && QUESTION_ID.test(id) ? id : null;
  const index = action.startsWith(OPTION_ACTION) ? Number(action.slice(OPTION_ACTION.length)) : Number.NaN;
  if (question && Number.isInteger(index) && (await answerWithOption(question, index))) return;
  await openQuestion(question);
}

/**
 * Answers the ask's one question with its option at `index`, as the page would, through the same
 * route: true once the daemon took the answer.
 * @param {string} id
 * @param {number} index
 */
async function answerWithOption(id, index) {
  const headers = await deviceHeaders();
  if (!headers) return false;
  try {
    // The exact question and label come from the daemon: a push carries them shortened, or not at all.
    const read = await fetch(`/api/asks/${id}`, { credentials: 'same-origin', cache: 'no-store', headers });
    if (!read.ok) return false;
    const { ask } = await read.json();
    const question = ask?.status === 'pending' && ask.questions?.length === 1 && !ask.questions[0].multiSelect ? ask.questions[0] : undefined;
    const option = question?.options?.[index];
    if (typeof option?.label !== 'string') return false;
    const answered = await fetch(`/api/asks/${id}/answer`, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { ...headers, 'content-type': 'application/json', [ANSWER_CLIENT_HEADER]: 'notification' },
      body: JSON.stringify({ responses: [{ question: question.question, selected: [option.label], other: null, notes: null }] }),
    });
    return answered.ok;
  } catch {
    return false; // the daemon could not be reached: the page says why
  }
}

/**
 * The browser replaced this device's push subscription: the daemon gets the new one, as the page
 * would give it, so that pushes go on reaching this device without the page being opened.
 * @param {{ newSubscription?: PushSubscription | null }} event
 */
async function renewSubscription(event) {
  const headers = await deviceHeaders();
  if (!headers) return;
  let subscription = event.newSubscription ?? null;
  if (!subscription) {
    const status = await fetch('/api/push', { credentials: 'same-origin', cache: 'no-store', headers });
    if (!status.ok) return;
    const { publicKey } = await status.json();
    subscription = await sw.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64url(publicKey) });
  }
  await fetch('/api/push/subscription', { method: 'POST', credentials: 'same-origin', cache: 'no-store', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(subscription.toJSON()) });
}

/**
 * This device's key, in its header (the cookie rides along with same-origin requests); null when the
 * page has none for this worker (not paired, or paired in a browser without Cache Storage).
 * @returns {Promise<Record<string, string> | null>}
 */
async function deviceHeaders() {
  try {
    const key = await (await caches.match(PAGE_KEY_CACHE_URL, { cacheName: PAGE_KEY_CACHE }))?.text();
    return key ? { [PAGE_KEY_HEADER]: key } : null;
  } catch {
    return null;
  }
}

/** @param {string} text */
function fromBase64url(text) {
  return Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (character) => character.charCodeAt(0));
}

/** @param {PushMessageData | null} data */
function readNotice(data) {
  try {
    const notice = data?.json();
    if (notice && typeof notice === 'object' && typeof notice.id === 'string') return notice;
  } catch {
    // not JSON: still say that something waits (a push must show a notification)
  }
  return { id: '', project: 'askbridge', headers: [] };
}

/** What a session waits for in its terminal, by Claude Code's kind of notification, as the page says it (turn-end.js). */
const TERMINAL_WAITS = {
  idle_prompt: 'Claude waits for your next prompt in the terminal',
  permission_prompt: 'A permission waits in the terminal',
  elicitation_dialog: 'An MCP server asks for input in the terminal',
};

/** As the page words it too (notify.js): the project, then the headers, or the question text when the user's config lets it come. */
function showNotice(notice) {
  const strings = (value) => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
  const headers = strings(notice.headers);
  const questions = strings(notice.questions);
  const approval = notice.approval && typeof notice.approval.tool === 'string' ? notice.approval : undefined;
  // Another agent than Claude Code is named in the title, as the daemon's noticeTitle names it.
  const agent = typeof notice.agent === 'string' ? notice.agent : undefined;
  const from = agent ? `from ${agent} in ${String(notice.project)}` : `from ${String(notice.project)}`;
  const show = (title, body) => sw.registration.showNotification(title, { body, tag: `askbridge-${notice.id}`, data: { id: notice.id }, icon: '/icon-192.png' });
  if (notice.turnEnd && typeof notice.turnEnd === 'object') {
    // Claude finished a turn: its last words only when the user's config lets them come.
    return show(`${agent ?? 'Claude'} finished in ${String(notice.project)}`, typeof notice.turnEnd.said === 'string' ? notice.turnEnd.said : 'Reply to keep it going, or let it stop');
  }
  if (notice.terminalWait && typeof notice.terminalWait === 'object') {
    const kind = String(notice.terminalWait.kind);
    const message = typeof notice.terminalWait.message === 'string' ? notice.terminalWait.message : Object.hasOwn(TERMINAL_WAITS, kind) ? TERMINAL_WAITS[kind] : 'Waiting for you in the terminal';
    return show(agent ? `${agent} waits for you in ${String(notice.project)}` : `Waiting for you in ${String(notice.project)}`, message);
  }
  if (notice.elicitation && typeof notice.elicitation === 'object') {
    // An MCP server asks for input: no button here answers it.
    return show(`MCP server ${String(notice.elicitation.server)} asks for input in ${String(notice.project)}`, typeof notice.elicitation.message === 'string' ? notice.elicitation.message : 'Open askbridge to answer it');
  }
  if (approval) {
    // A permission: the tool's name, and what it acts on only when the user's config lets it come.
    // A risky one says so, and why, first (as noticeTitle and noticeSubject do); it never has a button.
    const plan = approval.tool === 'Plan';
    const risky = Array.isArray(approval.risky);
    const reasons = strings(approval.risky);
    const title = `${risky ? 'Risky permission' : plan ? 'Plan' : 'Permission'} ${from}`;
    const said = typeof approval.target === 'string' ? approval.target : plan ? 'A plan waits for approval' : `${approval.tool} waits for permission`;
    const body = risky ? `Risky: ${reasons.length > 0 ? reasons.join('; ') : 'read why on the page'}\n${said}` : said;
    return sw.registration.showNotification(title, { body, tag: `askbridge-${notice.id}`, data: { id: notice.id }, icon: '/icon-192.png' });
  }
  const body = questions.length > 0 ? questions.join('\n') : headers.length > 0 ? headers.join(' · ') : 'A question is waiting';
  /** @type {NotificationOptions & { actions: NotificationButton[] }} (TypeScript's DOM types leave `actions` out) */
  const options = { body, tag: `askbridge-${notice.id}`, data: { id: notice.id }, icon: '/icon-192.png', actions: optionButtons(notice.options) };
  return sw.registration.showNotification(`Question ${from}`, options);
}

/** @typedef {{ action: string; title: string }} NotificationButton */

/**
 * One button per option, where the browser shows them all (none on iOS and Safari, which show none).
 * @param {unknown} options
 * @returns {NotificationButton[]}
 */
function optionButtons(options) {
  // Every push must show a notification: a worker without Notification (or its maxActions) shows it without buttons.
  const shown = typeof Notification !== 'undefined' && 'maxActions' in Notification ? Number(Notification.maxActions) : 0;
  if (!Array.isArray(options) || options.length === 0 || options.length > shown || !options.every((label) => typeof label === 'string')) return [];
  return options.map((label, index) => ({ action: `${OPTION_ACTION}${index}`, title: label }));
}

/** Focuses an open page and tells it which question (notify.js takes it from there), or opens one on it. */
async function openQuestion(id) {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === sw.location.origin);
  if (open) {
    // A window may be focused only for a short while after a click: one refused (an answer that took
    // long) still learns which question to show.
    await open.focus().catch(() => {});
    if (id) open.postMessage({ type: 'question', id });
    return;
  }
  await sw.clients.openWindow(id ? `/#question=${id}` : '/');
}
