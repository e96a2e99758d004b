// @ts-check
// Telling a person that a question waits, and taking them to it: the tab's title counts the waiting
// questions and the favicon wears a badge; a chime, off until turned on (remembered); a system
// notification while the page is hidden (permission is asked only from the switch); this device's
// Web Push subscription, so that the daemon can reach it when no page is open; the page telling the
// daemon whether it is in view; and /#question=ID, where a notification leads. Model text reaches a
// notification only as a question's header, cut short, with invisible characters marked: a
// notification's title and body are text, never markup.
import { AGENT_NAMES, agentNameOf, deletePushSubscription, errorMessage, pushStatus, savePushSubscription } from './api.js';
import { byId } from './dom.js';
import { approvalKind, toolSummary } from './tool-input.js';
import { terminalWaitHeadline } from './turn-end.js';
import { markInvisible } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../protocol.js').PageMessage} PageMessage */
/** @typedef {{ state: 'off' } | { state: 'setting-up' } | { state: 'on' } | { state: 'failed'; reason: string }} PushState */

const SOUND_STORAGE = 'askbridge.sound';
const NOTIFICATIONS_STORAGE = 'askbridge.notifications';
const SERVICE_WORKER_URL = '/sw.js';
/** The page's one Trusted Types policy (the CSP allows no other): it names the service worker and nothing else. */
const SERVICE_WORKER_POLICY = 'askbridge-sw';
const QUESTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A browser whose push service never answers must not leave the switch saying "setting up" for ever. */
const PUSH_SUBSCRIBE_TIMEOUT_MS = 20_000;
const HEADER_CHARS = 60;

const ui = {
  alerts: /** @type {HTMLDetailsElement} */ (byId('alerts')),
  sound: byId('sound-switch'),
  notifications: /** @type {HTMLButtonElement} */ (byId('notifications-switch')),
  notificationsStatus: byId('notifications-status'),
  icon: /** @type {HTMLLinkElement} */ (document.querySelector('link[rel="icon"]')),
};

/** @type {(message: PageMessage) => void} */
let send = () => {};
/** Brings a waiting question into view and focus; false when it is not (or not yet) waiting here. */
let openInPage = /** @type {(id: string) => boolean} */ (() => false);
/** The service worker, once active; null where there is none (an old browser, a page not on https or loopback). */
let registration = /** @type {Promise<ServiceWorkerRegistration | null>} */ (Promise.resolve(null));
/** The same, known: undefined until registering is over. */
let worker = /** @type {ServiceWorkerRegistration | null | undefined} */ (undefined);
/** Set once the first snapshot is in: a question that arrives after it is news. */
let live = false;
/** A question a notification or a link sent the person to, until its card is there. */
let wanted = /** @type {string | null} */ (null);
/** Notifications on their way, by question: one whose question ends meanwhile is closed once shown. */
const showing = /** @type {Map<string, { ended: boolean }>} */ (new Map());
/** @type {PushState} */
let push = { state: 'off' };
/** @type {AudioContext | null} */
let audio = null;


/**
 * Starts everything that does not wait for the daemon: the service worker, the switches, the
 * visibility reports, and the question in the address (#question=ID).
 * @param {{ send: typeof send; open: typeof openInPage }} options
 */
export function startNotify(options) {
  ({ send, open: openInPage } = options);
  registration = registerServiceWorker();
  registration.then((registered) => {
    worker = registered;
    render();
  });
  ui.sound.addEventListener('click', toggleSound);
  ui.notifications.addEventListener('click', () => void toggleNotifications());
  document.addEventListener('visibilitychange', reportVisibility);
  // The panel closes like a menu: a click anywhere else, or Escape (app.js, as every panel).
  document.addEventListener('click', (event) => {
    if (ui.alerts.open && !ui.alerts.contains(/** @type {Node} */ (event.target))) ui.alerts.open = false;
  });
  // Audio may start only after a person's gesture on the page: one readies the chime, when it is on.
  document.addEventListener('pointerdown', wakeAudio);
  document.addEventListener('keydown', wakeAudio);
  window.addEventListener('hashchange', questionFromAddress);
  questionFromAddress();
  render();
}

/** The daemon's first snapshot (or the one after a reconnect) is in: say whether this page is in view, and bring push up to date. */
export function onLive() {
  reportVisibility();
  if (!live) {
    live = true;
    // Each visit renews this device's subscription: the browser may have replaced it meanwhile.
    if (notificationsOn()) void setUpPush();
  }
  if (wanted && !focusWanted()) wanted = null; // not waiting any more
}

/**
 * A question card was added to the page.
 * @param {AskView} view
 */
export function onQuestionAdded(view) {
  if (view.id === wanted) focusWanted();
  // Those already waiting when the page opened are no news.
  if (!live) return;
  if (localStorage.getItem(SOUND_STORAGE) === 'on') chime();
  if (document.visibilityState === 'hidden' && notificationsOn()) void showNotification(view);
}

/**
 * A question was answered, withdrawn or otherwise settled: its notification goes.
 * @param {string} id
 */
export function onQuestionEnded(id) {
  const underWay = showing.get(id);
  if (underWay) underWay.ended = true;
  void closeNotification(id);
}

/**
 * How many questions wait: in the tab's title, as a badge on the favicon, and on an installed app's icon.
 * @param {number} count
 */
export function showWaitingCount(count) {
  document.title = count > 0 ? `(${count}) askbridge` : 'askbridge';
  const icon = count > 0 ? '/favicon-waiting.svg' : '/favicon.svg';
  if (ui.icon.getAttribute('href') !== icon) ui.icon.setAttribute('href', icon);
  if ('setAppBadge' in navigator) (count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(() => {});
}

// ---------------------------------------------------------------------------------------------
// The service worker, and the question a notification leads to

/** @returns {Promise<ServiceWorkerRegistration | null>} */
async function registerServiceWorker() {
  if (!('serviceWorker' in navigator)) return null;
  navigator.serviceWorker.addEventListener('message', (event) => {
    if (event.data?.type === 'question') openQuestion(event.data.id);
  });
  navigator.serviceWorker.startMessages();
  try {
    // Registering a worker is a Trusted Types script sink: the policy turns exactly its URL into a script URL.
    const trustedTypes = /** @type {{ trustedTypes?: { createPolicy(name: string, rules: { createScriptURL(url: string): string }): { createScriptURL(url: string): unknown } } }} */ (window).trustedTypes;
    const policy = trustedTypes?.createPolicy(SERVICE_WORKER_POLICY, {
      createScriptURL: (url) => {
        if (url !== SERVICE_WORKER_URL) throw new TypeError(`${url} is not the service worker`);
        return url;
      },
    });
    await navigator.serviceWorker.register(/** @type {string} */ (/** @type {unknown} */ (policy ? policy.createScriptURL(SERVICE_WORKER_URL) : SERVICE_WORKER_URL)));
    return await navigator.serviceWorker.ready;
  } catch {
    return null; // the page works without it; notifications are then not offered
  }
}

function questionFromAddress() {
  const match = /^#question=(.+)$/.exec(location.hash);
  if (!match) return;
  // Like a pairing code, it has done its work once read; a reload should not jump again.
  history.replaceState(history.state, '', location.pathname + location.search);
  openQuestion(match[1]);
}

/** @param {unknown} id */
function openQuestion(id) {
  if (typeof id !== 'string' || !QUESTION_ID.test(id)) return;
  wanted = id;
  focusWanted();
}

/** Opens the wanted question in the page; false while it is not there. */
function focusWanted() {
  if (!wanted || !openInPage(wanted)) return false;
  wanted = null;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Notifications and push

/** Notifications are shown through the service worker (the one way that works on phones too). */
function canNotify() {
  return 'Notification' in window && worker !== null;
}

function notificationsOn() {
  return canNotify() && Notification.permission === 'granted' && localStorage.getItem(NOTIFICATIONS_STORAGE) === 'on';
}

/** Turned on from the switch, the only place that asks for permission: notifications while hidden, and pushes when closed. */
async function toggleNotifications() {
  if (notificationsOn()) {
    localStorage.removeItem(NOTIFICATIONS_STORAGE);
    push = { state: 'off' };
    render();
    await stopPush();
    return;
  }
  if (!canNotify() || (await registration) === null) return render();
  // Asked here only: from a person's click on the switch.
  const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission === 'granted') localStorage.setItem(NOTIFICATIONS_STORAGE, 'on');
  render();
  if (notificationsOn()) await setUpPush();
}

/** This device's push subscription, made for the daemon's key, and given to the daemon. */
async function setUpPush() {
  push = { state: 'setting-up' };
  render();
  push = await subscribe();
  render();
}

/** @returns {Promise<PushState>} */
async function subscribe() {
  const active = await registration;
  if (!active?.pushManager) return { state: 'failed', reason: 'this browser has no push service here' };
  const key = await pushStatus();
  if (!key.ok) return { state: 'failed', reason: errorMessage(key, `the daemon answered ${key.status}`) };
  const serverKey = fromBase64url(key.data.publicKey);
  try {
    let subscription = await active.pushManager.getSubscription();
    // One made for other keys (the daemon made new ones) reaches nobody.
    if (subscription && !sameBytes(subscription.options.applicationServerKey, serverKey)) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= /** @type {PushSubscription} */ (
      await Promise.race([
        active.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: serverKey }),
        new Promise((_, fail) => setTimeout(() => fail(new Error("the browser's push service did not answer")), PUSH_SUBSCRIBE_TIMEOUT_MS)),
      ])
    );
    const saved = await savePushSubscription(subscription.toJSON());
    return saved.ok ? { state: 'on' } : { state: 'failed', reason: errorMessage(saved, `the daemon answered ${saved.status}`) };
  } catch (error) {
    return { state: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
}

async function stopPush() {
  const active = await registration;
  try {
    await (await active?.pushManager?.getSubscription())?.unsubscribe();
  } catch {
    // the daemon forgets it below either way
  }
  const forgotten = await deletePushSubscription();
  // Refused when the daemon cannot save it: pushes would go on, so the switch says so.
  if (!forgotten.ok) {
    push = { state: 'failed', reason: `pushes are still on: ${errorMessage(forgotten, `the daemon answered ${forgotten.status}`)}` };
    render();
  }
}

/**
 * As the service worker words a push (sw.js): the project, then the headers.
 * @param {AskView} view
 */
async function showNotification(view) {
  const project = String(view.cwd ?? '').split(/[\\/]+/).filter(Boolean).at(-1) ?? 'Unknown project';
  const headers = view.questions.map((question) => question.header).filter((header) => typeof header === 'string' && header.trim() !== '');
  const { what, body } = describeForNotification(view, headers);
  const underWay = { ended: false };
  showing.set(view.id, underWay);
  try {
    const active = await registration;
    await active?.showNotification(`${what} ${shorten(project, HEADER_CHARS)}`, { body, tag: tagOf(view.id), data: { id: view.id }, icon: '/icon-192.png' });
  } finally {
    showing.delete(view.id);
  }
  if (underWay.ended) await closeNotification(view.id);
}

/**
 * The title's start and the body of a notification, as the service worker words a push (sw.js):
 * an approval says what it asks for (the tool and what it acts on, in one short line), the end of a
 * turn and a wait in the terminal what waits, a question its headers.
 * @param {AskView} view
 * @param {string[]} headers
 */
function describeForNotification(view, headers) {
  // Another agent than Claude Code is named, as in the daemon's notices: "Question from Codex in shop".
  const name = agentNameOf(view);
  const agent = name === AGENT_NAMES['claude-code'] ? '' : name;
  const from = agent ? `from ${agent} in` : 'from';
  if (view.approval) return { what: `${approvalKind(view.approval) === 'plan' ? 'Plan to approve' : 'Permission'} ${from}`, body: shorten(toolSummary(view.approval), HEADER_CHARS * 2) };
  if (view.turnEnd) return { what: `${agent || 'Claude'} finished in`, body: 'Reply to keep it going, or let it stop' };
  if (view.terminalWait) return { what: agent ? `${agent} waits for you in` : 'Waiting for you in', body: terminalWaitHeadline(view.terminalWait.kind) };
  if (view.elicitation) return { what: `MCP server ${shorten(view.elicitation.server, HEADER_CHARS)} asks for input in`, body: 'Open it to let the terminal answer' };
  return { what: `Question ${from}`, body: headers.length > 0 ? headers.map((header) => shorten(header, HEADER_CHARS)).join(' · ') : 'A question is waiting' };
}

/** @param {string} id */
async function closeNotification(id) {
  const active = await registration;
  for (const notification of (await active?.getNotifications({ tag: tagOf(id) })) ?? []) notification.close();
}

/** One tag per question, the same for the page's notification and the daemon's push: one replaces the other. */
const tagOf = (/** @type {string} */ id) => `askbridge-${id}`;

/** Model text for a notification: invisible characters marked, on one line, cut short. */
function shorten(/** @type {string} */ text, /** @type {number} */ max) {
  const line = markInvisible(text).replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

function fromBase64url(/** @type {string} */ text) {
  return Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (character) => character.charCodeAt(0));
}

function sameBytes(/** @type {ArrayBuffer | null} */ a, /** @type {Uint8Array} */ b) {
  return a !== null && a.byteLength === b.length && new Uint8Array(a).every((byte, index) => byte === b[index]);
}

function reportVisibility() {
  send({ type: 'visibility', visible: document.visibilityState === 'visible' });
}

// ---------------------------------------------------------------------------------------------
// Sound

function toggleSound() {
  if (localStorage.getItem(SOUND_STORAGE) === 'on') localStorage.removeItem(SOUND_STORAGE);
  else {
    localStorage.setItem(SOUND_STORAGE, 'on');
    chime(); // what it will sound like; the click is the gesture that lets audio start
  }
  render();
}

function wakeAudio() {
  if (localStorage.getItem(SOUND_STORAGE) !== 'on') return;
  audio ??= new AudioContext();
  void audio.resume();
}

/** Two short rising tones, made on the spot: no audio file to fetch. */
function chime() {
  try {
    const context = (audio ??= new AudioContext());
    void context.resume();
    const start = context.currentTime + 0.02;
    [880, 1320].forEach((frequency, index) => {
      const at = start + index * 0.14;
      const tone = context.createOscillator();
      const volume = context.createGain();
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.0001, at);
      volume.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      volume.gain.exponentialRampToValueAtTime(0.0001, at + 0.3);
      tone.connect(volume).connect(context.destination);
      tone.start(at);
      tone.stop(at + 0.32);
    });
  } catch {
    // no audio here: the title and the notifications still tell
  }
}

// ---------------------------------------------------------------------------------------------

/** The switches and the sentence under them, as things are now. */
function render() {
  const soundOn = localStorage.getItem(SOUND_STORAGE) === 'on';
  ui.sound.setAttribute('aria-checked', String(soundOn));
  const on = notificationsOn();
  // The bell says at a glance whether anything will tell.
  ui.alerts.dataset.on = String(soundOn || on);
  ui.notifications.setAttribute('aria-checked', String(on));
  const blocked = canNotify() && Notification.permission === 'denied';
  ui.notifications.disabled = !canNotify() || blocked;
  ui.notificationsStatus.textContent = !canNotify()
    ? 'This browser cannot show notifications for this page.'
    : blocked
      ? 'Blocked for this page in the browser’s site settings.'
      : !on
        ? 'A notification when a question arrives while this page is hidden, and pushes to this device when it is closed.'
        : push.state === 'on'
          ? 'On: while this page is hidden, and on this device when it is closed.'
          : push.state === 'setting-up'
            ? 'On while this page is hidden. Setting up pushes for when it is closed…'
            : push.state === 'failed'
              ? `On while this page is hidden. No pushes when it is closed: ${push.reason.replace(/\.$/, '')}.`
              : 'On while this page is hidden.';
}
