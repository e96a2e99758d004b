// @ts-check
// The service worker: shows a push from the daemon as a notification, and opens the page on its
// question when the notification is clicked. It serves nothing (no fetch handler): the page always
// comes from the daemon. A push is JSON the daemon made, { id, project, headers, questions?, approval?: { tool, target? }, turnEnd?: { said? }, terminalWait?: { kind, message? } }, whose
// text comes from a model: it only ever becomes a notification's title and body, which are text.

const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const QUESTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

sw.addEventListener('install', () => sw.skipWaiting());
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

sw.addEventListener('push', (event) => {
  event.waitUntil(showNotice(readNotice(event.data)));
});

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const id = event.notification.data?.id;
  event.waitUntil(openQuestion(typeof id === 'string' && QUESTION_ID.test(id) ? id : null));
});

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
  const show = (title, body) => sw.registration.showNotification(title, { body, tag: `askbridge-${notice.id}`, data: { id: notice.id }, icon: '/icon-192.png' });
  if (notice.turnEnd && typeof notice.turnEnd === 'object') {
    // Claude finished a turn: its last words only when the user's config lets them come.
    return show(`Claude finished in ${String(notice.project)}`, typeof notice.turnEnd.said === 'string' ? notice.turnEnd.said : 'Reply to keep it going, or let it stop');
  }
  if (notice.terminalWait && typeof notice.terminalWait === 'object') {
    const kind = String(notice.terminalWait.kind);
    const message = typeof notice.terminalWait.message === 'string' ? notice.terminalWait.message : Object.hasOwn(TERMINAL_WAITS, kind) ? TERMINAL_WAITS[kind] : 'Waiting for you in the terminal';
    return show(`Waiting for you in ${String(notice.project)}`, message);
  }
  if (approval) {
    // A permission: the tool's name, and what it acts on only when the user's config lets it come.
    const plan = approval.tool === 'Plan';
    const title = `${plan ? 'Plan' : 'Permission'} from ${String(notice.project)}`;
    const body = typeof approval.target === 'string' ? approval.target : plan ? 'A plan waits for approval' : `${approval.tool} waits for permission`;
    return sw.registration.showNotification(title, { body, tag: `askbridge-${notice.id}`, data: { id: notice.id }, icon: '/icon-192.png' });
  }
  const body = questions.length > 0 ? questions.join('\n') : headers.length > 0 ? headers.join(' · ') : 'A question is waiting';
  return sw.registration.showNotification(`Question from ${String(notice.project)}`, { body, tag: `askbridge-${notice.id}`, data: { id: notice.id }, icon: '/icon-192.png' });
}

/** Focuses an open page and tells it which question (notify.js takes it from there), or opens one on it. */
async function openQuestion(id) {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === sw.location.origin);
  if (open) {
    await open.focus();
    if (id) open.postMessage({ type: 'question', id });
    return;
  }
  await sw.clients.openWindow(id ? `/#question=${id}` : '/');
}
