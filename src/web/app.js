// @ts-check
// The answer page: an inbox of every waiting question set, grouped by session, with one set in
// focus, answered from the keyboard or with a thumb. This module ties the parts together: the
// connection (connection.js), the inbox (inbox.js), the set in focus (ask-form.js, approval.js, and
// turn-end.js for the end of a turn and a wait in the terminal, with the away switch), finished sets
// (finished.js; delivery.js for a relayed decision not delivered yet), drafts (drafts.js), history
// (history.js), notifications (notify.js) and Review all, every waiting permission in one list
// (review-all.js).
import { answerAsk, checkSession, decideAsk, errorMessage, extendAsk, getAsk, replyToTurn, respondToElicitation, settleAsk } from './api.js';
import { buildApprovalForm, forgetMessage, setPagePerson } from './approval.js';
import { buildAskForm, projectName } from './ask-form.js';
import { createConnection } from './connection.js';
import { initDevices } from './devices.js';
import { byId, closeLastPanel, detailsPanel, withCode } from './dom.js';
import { clearDraft, dropStaleDrafts } from './drafts.js';
import { buildElicitationCard } from './elicitation.js';
import { finishedCard } from './finished.js';
import { createGrantStrip } from './grants.js';
import { initHistory } from './history.js';
import { createInbox, roughAge } from './inbox.js';
import { onLive, onQuestionAdded, onQuestionEnded, showWaitingCount, startNotify } from './notify.js';
import { createReview, reviewable } from './review-all.js';
import { approvalKind, toolSummary } from './tool-input.js';
import { buildTerminalWaitCard, buildTurnEndForm, createAwaySwitch, saidShort, terminalWaitHeadline } from './turn-end.js';
import { markInvisible } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../protocol.js').ServerMessage} ServerMessage */
/** @typedef {import('./api.js').SettleResult} SettleResult */
/** @typedef {ReturnType<typeof buildAskForm> | ReturnType<typeof buildApprovalForm> | ReturnType<typeof buildTurnEndForm> | ReturnType<typeof buildTerminalWaitCard> | ReturnType<typeof buildElicitationCard>} AskForm */
/** @typedef {import('./connection.js').ConnState} ConnState */

const FINISHED_KEEP = 20;
/** Ask for more time when a person is busy with a question that has less than this left. */
const EXTEND_WHEN_LEFT_MS = 60_000;
/** At most one request for more time per question in this long. */
const EXTEND_EVERY_MS = 20_000;

const ui = {
  conn: byId('conn'),
  whoami: byId('whoami'),
  connText: byId('conn-text'),
  banner: byId('banner'),
  bannerText: byId('banner-text'),
  unpaired: byId('unpaired'),
  unpairedDetail: byId('unpaired-detail'),
  offline: byId('offline'),
  board: byId('board'),
  inbox: byId('inbox'),
  focus: byId('focus'),
  back: byId('back'),
  pendingTitle: byId('pending-title'),
  pendingCount: byId('pending-count'),
  empty: byId('empty'),
  emptyText: byId('empty-text'),
  finishedSection: byId('finished-section'),
  finished: byId('finished'),
  finishedCount: byId('finished-count'),
  live: byId('live'),
  devicesToggle: byId('devices-toggle'),
  devices: byId('devices'),
  historyToggle: byId('history-toggle'),
  history: byId('history'),
  keys: /** @type {HTMLDialogElement} */ (byId('keys')),
  reviewAll: /** @type {HTMLButtonElement} */ (byId('review-all')),
  away: byId('away'),
};

/** The panels the top bar opens; Esc closes the one opened last. */
const panels = {
  devices: initDevices(),
  history: initHistory({ toggle: ui.historyToggle, section: ui.history }),
  alerts: detailsPanel(/** @type {HTMLDetailsElement} */ (byId('alerts'))),
};

const away = createAwaySwitch({ root: ui.away, button: byId('away-switch'), hint: byId('away-hint'), error: byId('away-error'), announce: (text) => announce(text) });

const grantStrip = createGrantStrip({ root: byId('grants'), list: byId('grants-list'), error: byId('grants-error'), announce: (text) => announce(text) });

let connState = /** @type {ConnState} */ ('connecting');
let live = false;

// ---------------------------------------------------------------------------------------------
// The waiting sets, the one in focus, and the finished ones

const inbox = createInbox(byId('inbox-list'), { open: (id) => open(id, { focus: true, reading: true }) });

/**
 * The set in focus.
 * @type {{ view: AskView; form: AskForm; inflight: boolean; deferred: AskView | null; lastActivity: number; extendAskedAt: number } | null}
 */
let current = null;
/** id -> the finished card, newest first in the DOM. */
const finished = new Map();

/** Asks Review all is deciding that the live feed said ended meanwhile: its own reply says best how. */
const reviewDeferred = new Map();
const review = createReview({
  dialog: /** @type {HTMLDialogElement} */ (byId('review')),
  decide: async (id, decision) => {
    const result = await decideAsk(id, decision);
    const deferred = reviewDeferred.get(id);
    reviewDeferred.delete(id);
    if (!result.ok && result.status !== 409 && deferred) end(deferred, {});
    return result;
  },
  ended: (view, how) => end(view, how),
  updated: (view) => onUpdated(view),
  announce: (text) => announce(text),
});

/**
 * Puts a waiting set in focus (or nothing, when none waits). `replacing`: it takes the place of one
 * that just left, under the person's hand.
 * @param {string | null} id
 * @param {{ focus?: boolean; reading?: boolean; replacing?: boolean }} [how]
 */
function open(id, how = {}) {
  const view = id === null ? undefined : inbox.view(id);
  if (!view) {
    current = null;
    inbox.setCurrent(null);
    ui.focus.replaceChildren();
    showReading(false);
    updateCounts();
    return false;
  }
  if (current?.view.id !== id) {
    const form = view.approval
      ? buildApprovalForm(
          view,
          {
            decide: (decision) => send((askId) => decideAsk(askId, decision)),
            settle: (action) => send((askId) => settleAsk(askId, action)),
            activity: () => noteActivity(),
          },
          { replacing: how.replacing === true },
        )
      : view.turnEnd
        ? buildTurnEndForm(
            view,
            {
              // Always with its own id: a reply meant for this turn's end never goes to the next one.
              reply: (body) => send((askId) => replyToTurn(view.sessionId, { ...body, ask: askId })),
              activity: () => noteActivity(),
            },
            { replacing: how.replacing === true },
          )
        : view.elicitation
          ? buildElicitationCard(view, {
              respond: (response) => send((askId) => respondToElicitation(askId, response)),
              settle: (action) => send((askId) => settleAsk(askId, action)),
              activity: () => noteActivity(),
            })
        : view.terminalWait
          ? buildTerminalWaitCard(view)
          : buildAskForm(view, {
          submit: (responses) => send((askId) => answerAsk(askId, responses)),
          settle: (action) => send((askId) => settleAsk(askId, action)),
          activity: () => noteActivity(),
        });
    current = { view, form, inflight: false, deferred: null, lastActivity: 0, extendAskedAt: 0 };
    inbox.setCurrent(id);
    ui.focus.replaceChildren(form.root);
    tick();
  }
  if (how.reading) showReading(true);
  if (how.focus) current?.form.focusFirst();
  return true;
}

/** On a phone the inbox and the set in focus take turns on the screen. */
function showReading(reading) {
  ui.board.dataset.view = reading && current ? 'ask' : 'inbox';
}


/** @param {AskView} view */
function addWaiting(view) {
  if (inbox.has(view.id)) return;
  inbox.add(view);
  // A session waiting in its terminal is news only to someone away from it.
  if (!view.terminalWait || away.isAway()) onQuestionAdded(view);
  updateCounts();
}

/**
 * A waiting set ended (or is no longer in the snapshot: `gone`).
 * @param {AskView} view
 * @param {import('./finished.js').How} how
 */
function end(view, how) {
  const wasCurrent = current?.view.id === view.id;
  const focusWasHere = wasCurrent && (ui.focus.contains(document.activeElement) || document.activeElement === document.body);
  const next = wasCurrent ? inbox.nextAfter(view.id) : null;
  if (inbox.has(view.id)) {
    inbox.remove(view.id);
    onQuestionEnded(view.id);
  }
  if (!how.gone) clearDraft(view);
  forgetMessage(view.id);
  if (view.terminalWait) {
    // Nothing was answered here: the card leaves, and is in no list of finished ones.
    if (wasCurrent) {
      current = null;
      open(next?.id ?? null, { focus: focusWasHere, reading: focusWasHere && next !== null, replacing: true });
      if (!current && focusWasHere) ui.pendingTitle.focus();
    }
    updateCounts();
    tick();
    return;
  }
  const card = finishedCard(view, how);
  review.left(view, card.title, how);
  // A card already here (a relayed decision now delivered) is replaced where it is.
  const shown = finished.get(view.id)?.root;
  finished.set(view.id, { ...card, at: view.resolvedAt ?? Date.now() });
  if (shown) shown.replaceWith(card.root);
  else ui.finished.prepend(card.root);
  trimFinished();
  if (wasCurrent) {
    current = null;
    open(next?.id ?? null, { focus: focusWasHere, reading: focusWasHere && next !== null, replacing: true });
    if (!current && focusWasHere) /** @type {HTMLElement | null} */ (card.root.querySelector('.status-title'))?.focus();
  }
  updateCounts();
  tick();
  announce(markInvisible(`${card.title}${how.gone ? '' : `: ${projectName(view.cwd)}`}.`));
  if (how.gone) void learnOutcome(view.id);
}

function trimFinished() {
  while (finished.size > FINISHED_KEEP) {
    const oldest = /** @type {HTMLElement} */ (ui.finished.lastElementChild);
    finished.delete(oldest.dataset.questionId);
    oldest.remove();
  }
}

/** A set that ended, or a relayed decision that was delivered, while this page was away: ask how, once. */
async function learnOutcome(/** @type {string} */ id) {
  const result = await getAsk(id);
  const status = finished.get(id)?.status;
  if (result.ok && result.data.ask.status !== 'pending' && (status === 'gone' || status === 'undelivered')) end(result.data.ask, {});
}

// ---------------------------------------------------------------------------------------------
// Messages from the daemon

const connection = createConnection({
  onMessage,
  onState: (state, detail) => setConn(state, detail ?? null),
  onSession: showWhoAmI,
});

/**
 * Whose device this page is, discreetly in the header: "alice · Firefox on Linux". Only once people
 * are defined (the daemon names a person); before, nothing changes.
 * @param {import('../protocol.js').SessionReply} session
 */
function showWhoAmI(session) {
  setPagePerson(session.person);
  ui.whoami.hidden = session.person === undefined;
  ui.whoami.textContent = session.person === undefined ? '' : markInvisible([session.person, session.device].filter(Boolean).join(' · '));
}

/** @param {ServerMessage} message */
function onMessage(message) {
  switch (message.type) {
    case 'snapshot':
      applySnapshot(message.asks, message.undelivered ?? []);
      onLive();
      break;
    case 'added':
      onAdded(message.ask);
      break;
    case 'updated':
      onUpdated(message.ask);
      break;
    case 'resolved':
      onResolved(message.ask);
      break;
    case 'banner':
      setBanner(message.message);
      break;
    case 'away':
      away.show(message.away, message.turnEnds);
      break;
    case 'grants':
      grantStrip.show(message.grants);
      break;
    // `error` refuses a visibility report: nothing a person needs to see.
  }
}

/**
 * @param {AskView[]} views
 * @param {AskView[]} undelivered relayed decisions not delivered yet
 */
function applySnapshot(views, undelivered) {
  const present = new Set();
  let added = 0;
  for (const view of undelivered) if (finished.get(view.id)?.status !== 'undelivered') end(view, {});
  const stillUndelivered = new Set(undelivered.map((view) => view.id));
  for (const [id, card] of finished) if (card.status === 'undelivered' && !stillUndelivered.has(id)) void learnOutcome(id);
  for (const view of views) {
    if (view.status !== 'pending') continue;
    present.add(view.id);
    if (inbox.has(view.id)) onUpdated(view);
    else {
      addWaiting(view);
      added++;
    }
  }
  for (const view of inbox.order()) {
    // This tab's own request is about to say how it ended.
    if (!present.has(view.id) && !(current?.view.id === view.id && current.inflight)) end(view, { gone: true });
  }
  live = true;
  // The oldest comes into focus when none is.
  if (!current) open(inbox.neighbour(null, 1)?.id ?? null);
  updateCounts();
  tick();
  if (added > 0) announce(added === 1 ? 'A question is waiting.' : `${added} questions are waiting.`);
}

/** @param {AskView} view */
function onAdded(view) {
  if (view.status !== 'pending') return onResolved(view);
  if (inbox.has(view.id)) return;
  addWaiting(view);
  if (!current) open(view.id);
  tick();
  if (view.approval) {
    const what = approvalKind(view.approval) === 'plan' ? 'A plan to approve' : 'Permission asked';
    announce(markInvisible(`${what} from ${projectName(view.cwd)}: ${toolSummary(view.approval)}`));
    return;
  }
  if (view.turnEnd) {
    const said = saidShort(view.turnEnd.lastMessage, 80);
    announce(markInvisible(`Claude finished in ${projectName(view.cwd)} and waits for your reply${said ? `: ${said}` : '.'}`));
    return;
  }
  if (view.terminalWait) {
    announce(markInvisible(`${terminalWaitHeadline(view.terminalWait.kind)}: ${projectName(view.cwd)}.`));
    return;
  }
  const first = view.questions[0];
  announce(markInvisible(`New question from ${projectName(view.cwd)}: ${first ? first.header || first.question : ''}`));
}

/** More time, the session's context, or what became of a relayed decision: the form keeps whatever the person already did. */
function onUpdated(/** @type {AskView} */ view) {
  // A relayed decision delivered, or never deliverable.
  if (view.status !== 'pending' && view.delivery && finished.has(view.id)) return end(view, {});
  if (view.status !== 'pending' || !inbox.has(view.id)) return;
  inbox.update(view);
  review.updated(view);
  if (current?.view.id === view.id) {
    current.view = view;
    current.form.showContext(view);
    if ('showAllows' in current.form) current.form.showAllows(view);
    tick();
  }
}

/** @param {AskView} view */
function onResolved(view) {
  if (current?.view.id === view.id && current.inflight) {
    // While this tab's own request is out, its reply says best whether this tab won.
    current.deferred = view;
    return;
  }
  if (review.sending(view.id)) {
    reviewDeferred.set(view.id, view);
    return;
  }
  if (!inbox.has(view.id) && finished.has(view.id) && finished.get(view.id)?.status !== 'gone') return;
  // A request the person's grant allowed at once was never waiting: no card, no notice (History has it).
  if (!inbox.has(view.id) && !finished.has(view.id) && view.source?.kind === 'grant') return;
  end(view, {});
}

/** @param {string | null} message */
function setBanner(message) {
  ui.banner.hidden = !message;
  ui.bannerText.replaceChildren(...withCode(message ?? ''));
}

// ---------------------------------------------------------------------------------------------
// Settling the set in focus

/**
 * Answers, hands back or declines the set in focus (`request`, with its id), one request at a time.
 * @param {(id: string) => Promise<SettleResult>} request
 */
async function send(request) {
  const target = current;
  if (!target || target.inflight) return;
  target.inflight = true;
  target.form.hideError();
  target.form.setBusy(true);
  const result = await request(target.view.id);
  target.inflight = false;
  target.form.setBusy(false);
  const deferred = target.deferred;
  target.deferred = null;

  if (result.ok && result.data.ask.status === 'pending') {
    // One allow of two: kept, and it waits for a second person.
    onUpdated(result.data.ask);
    if (deferred) end(deferred, {});
  } else if (result.ok) {
    end(result.data.ask, { mine: true });
  } else if (result.status === 409 && result.data && 'ask' in result.data && result.data.error.code === 'already_allowed') {
    // This page's person allowed it already (on another device): a second person must.
    onUpdated(result.data.ask);
    target.form.showError(result.data.error.message);
  } else if (result.status === 409 && result.data && 'ask' in result.data) {
    end(result.data.ask, { conflict: true, unsent: 'unsent' in target.form ? target.form.unsent() : '' });
  } else if (result.status === 401 && (await checkSession()).status === 401) {
    // Only the session can say the pairing is gone; a 401 from one route alone may mean something else.
    connection.unpair(errorMessage(result, null));
  } else {
    const message = result.status === 0 ? 'Could not reach askbridge. Is it still running? Your answer is kept; try again.' : errorMessage(result, `Something went wrong (HTTP ${result.status}).`);
    target.form.showError(message);
    announce(markInvisible(message));
    if (deferred) end(deferred, {});
  }
}

/** The person is busy with the set in focus: near its deadline, ask the daemon for more time. */
function noteActivity() {
  if (!current) return;
  current.lastActivity = Date.now();
  maybeExtend(current.lastActivity);
}

/** @param {number} now */
function maybeExtend(now) {
  const target = current;
  if (!target || target.inflight) return;
  const { expiresAt, extendableUntil } = target.view;
  if (!Number.isFinite(expiresAt) || !Number.isFinite(extendableUntil) || /** @type {number} */ (extendableUntil) <= expiresAt) return;
  if (expiresAt - now > EXTEND_WHEN_LEFT_MS || now - target.lastActivity > EXTEND_EVERY_MS || now - target.extendAskedAt < EXTEND_EVERY_MS) return;
  target.extendAskedAt = now;
  void extendAsk(target.view.id).then((result) => {
    if (result.ok) onUpdated(result.data.ask);
  });
}

// ---------------------------------------------------------------------------------------------
// Connection state, counts, clocks and announcements

/**
 * @param {ConnState} state
 * @param {string | null} detail
 */
function setConn(state, detail) {
  const was = connState;
  connState = state;
  ui.conn.dataset.state = state;
  ui.connText.textContent = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline', unpaired: 'Not paired' }[state];
  if (state === 'reconnecting' && was === 'live') announce('Connection lost. Reconnecting…');
  if (state === 'live' && was === 'reconnecting') announce('Live again.');
  if (state === 'unpaired') {
    ui.unpairedDetail.replaceChildren(...withCode(detail ?? ''));
    ui.unpairedDetail.hidden = !detail;
  }
  const paired = state === 'live' || state === 'reconnecting';
  const panel = paired && (live || inbox.size > 0) ? 'board' : state === 'live' ? 'board' : state === 'unpaired' ? 'unpaired' : state === 'connecting' ? 'none' : 'offline';
  ui.board.hidden = panel !== 'board';
  // The device list, history and pairing are for a paired page only.
  ui.devicesToggle.hidden = panel !== 'board';
  ui.historyToggle.hidden = panel !== 'board';
  ui.away.hidden = panel !== 'board';
  away.setLive(state === 'live');
  if (panel !== 'board') {
    panels.devices.hide();
    panels.history.hide();
  }
  ui.unpaired.hidden = panel !== 'unpaired';
  ui.offline.hidden = panel !== 'offline';
  if (state === 'unpaired') live = false;
  updateCounts();
}

function updateCounts() {
  const pending = inbox.size;
  showWaitingCount(connState === 'unpaired' ? 0 : pending);
  ui.empty.hidden = pending > 0;
  // When the daemon is away, the page must not promise that questions appear the moment Claude asks.
  ui.emptyText.textContent =
    connState === 'live' ? 'No questions waiting. They appear here the moment Claude asks.' : 'askbridge is not reachable right now, so no new questions can arrive. This page reconnects by itself when it is back.';
  ui.pendingCount.hidden = pending === 0;
  ui.pendingCount.textContent = String(pending);
  ui.finishedSection.hidden = finished.size === 0;
  ui.finishedCount.textContent = String(finished.size);
  ui.back.hidden = pending === 0;
  const permissions = inbox.order().filter(reviewable).length;
  ui.reviewAll.hidden = permissions < 2;
  ui.reviewAll.textContent = `Review all ${permissions} permissions`;
}

function tick() {
  const now = Date.now();
  inbox.tick(now);
  if (current) {
    const { form, view } = current;
    setText(form.age, relative(now - view.createdAt));
    setDatetime(form.age, view.createdAt);
    updateCountdown(form, view, now);
    maybeExtend(now);
  }
  for (const card of finished.values()) {
    setText(card.age, roughAge(now - card.at));
    setDatetime(card.age, card.at);
  }
}

/** @param {HTMLElement} el @param {number} at */
function setDatetime(el, at) {
  if (!Number.isFinite(at)) return;
  const iso = new Date(at).toISOString();
  if (el.getAttribute('datetime') === iso) return;
  el.setAttribute('datetime', iso);
  el.title = new Date(at).toLocaleString();
}

/**
 * The time left; what happens then (countdown-what) was written once when the form was built.
 * @param {AskForm} form
 * @param {AskView} view
 * @param {number} now
 */
function updateCountdown(form, view, now) {
  const { countdown, countdownTime, saysWhat } = form;
  // A wait in the terminal has no deadline a person needs to know of: it lasts until the session moves on.
  if (!Number.isFinite(view.expiresAt) || view.terminalWait) {
    countdown.hidden = true;
    return;
  }
  const left = view.expiresAt - now;
  countdown.hidden = false;
  countdown.classList.toggle('is-urgent', left < 60_000);
  if (left <= 0) setText(countdownTime, saysWhat ? 'Time is up: ' : 'Time is up');
  else setText(countdownTime, saysWhat ? `in ${duration(left)} ` : `${duration(left)} left`);
}

/** @param {HTMLElement} el @param {string} text */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** @param {number} ms */
function duration(ms) {
  const total = Math.ceil(ms / 1000);
  if (total >= 48 * 3600) return `${Math.round(total / 86400)} days`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** @param {number} ms */
function relative(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 10) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  return roughAge(ms);
}

/** @type {string[]} */
let announceQueue = [];
let announceTimer = 0;

/** Batches what happens within a moment into one polite announcement. */
function announce(/** @type {string} */ text) {
  announceQueue.push(text);
  clearTimeout(announceTimer);
  announceTimer = window.setTimeout(() => {
    const message = announceQueue.join(' ');
    announceQueue = [];
    ui.live.textContent = '';
    // A fresh text node after a clear makes screen readers repeat an identical message too.
    requestAnimationFrame(() => (ui.live.textContent = message));
  }, 150);
}

// ---------------------------------------------------------------------------------------------
// Keys: j/k or [/] move between waiting sets, numbers pick, ? shows them all

/** @param {EventTarget | null} target */
function typingIn(target) {
  return target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type === 'text') || (target instanceof HTMLElement && target.isContentEditable);
}

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (typingIn(event.target)) {
    if (event.key === 'Escape' && event.target instanceof HTMLElement) event.target.blur();
    return;
  }
  // The keys list and Review all are modal dialogs: Esc closes them by themselves, and focus goes back where it was.
  if (ui.keys.open || review.isOpen()) return;
  if (event.key === 'Escape') {
    // In History's search, Esc first empties the search (the browser's own), then closes the panel.
    const searching = event.target instanceof HTMLInputElement && event.target.type === 'search' && event.target.value !== '';
    if (!searching && closeLastPanel()) {
      event.preventDefault();
      return;
    }
  }
  if (ui.board.hidden) return;
  const key = event.key;
  if (key === '?') {
    event.preventDefault();
    ui.keys.showModal();
  } else if (key === 'j' || key === ']' || key === 'k' || key === '[') {
    const next = inbox.neighbour(current?.view.id ?? null, key === 'j' || key === ']' ? 1 : -1);
    if (!next) return;
    event.preventDefault();
    open(next.id, { focus: true, reading: true });
  } else if (/^[1-9]$/.test(key) && current) {
    event.preventDefault();
    // A held key's repeats must not decide one approval after another.
    if (!(event.repeat && current.view.approval)) current.form.pick(Number(key));
  } else if (current && 'key' in current.form && current.form.key(event)) {
    event.preventDefault();
  } else if (key === 'Escape' && ui.board.dataset.view === 'ask') {
    event.preventDefault();
    showReading(false);
    ui.inbox.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
    /** @type {HTMLElement | null} */ (ui.inbox.querySelector('[aria-current="true"]'))?.focus();
  }
});
byId('keys-close').addEventListener('click', () => ui.keys.close());
ui.reviewAll.addEventListener('click', () => review.open(inbox.order()));
byId('keys-button').addEventListener('click', () => ui.keys.showModal());
ui.back.addEventListener('click', () => {
  showReading(false);
  /** @type {HTMLElement | null} */ (ui.inbox.querySelector('[aria-current="true"]'))?.focus();
});

// ---------------------------------------------------------------------------------------------

setInterval(tick, 1000);
dropStaleDrafts();
startNotify({
  send: (message) => connection.send(message),
  /** A notification was clicked: that set comes into focus, marked so the eye finds it. */
  open: (id) => {
    if (!open(id, { focus: true, reading: true })) return false;
    const root = current?.form.root;
    root?.scrollIntoView({ block: 'start' });
    root?.classList.remove('is-called');
    requestAnimationFrame(() => root?.classList.add('is-called'));
    return true;
  },
});
updateCounts();
connection.start();
