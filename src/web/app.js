// @ts-check
// The answer page: pairs with the daemon, follows the pending questions over a WebSocket, and posts
// answers. Every string inside a question comes from a model that may have been prompt-injected, so
// it reaches the DOM only as text (textContent, Text nodes, attributes), never as markup, and every
// invisible or control character in it is shown as a visible [U+XXXX] marker (visible-text.js).
import { api, PAGE_KEY_STORAGE, pageKey } from './api.js';
import { initDevices } from './devices.js';
import { byId, h } from './dom.js';
import { markInvisible, visibleParts } from './visible-text.js';
import { onLive, onQuestionAdded, onQuestionEnded, showWaitingCount, startNotify } from './notify.js';

/** @typedef {import('../protocol.js').QuestionView} QuestionView (from the daemon's zod schema; isView checks) */

const FINISHED_KEEP = 20;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 5000;

/** The close code of a socket whose device was unpaired (routes/devices.ts). */
const REVOKED_CLOSE_CODE = 4001;

const ui = {
  conn: byId('conn'),
  connText: byId('conn-text'),
  banner: byId('banner'),
  bannerText: byId('banner-text'),
  unpaired: byId('unpaired'),
  unpairedDetail: byId('unpaired-detail'),
  offline: byId('offline'),
  board: byId('board'),
  pending: byId('pending'),
  pendingCount: byId('pending-count'),
  empty: byId('empty'),
  finishedSection: byId('finished-section'),
  finished: byId('finished'),
  finishedCount: byId('finished-count'),
  live: byId('live'),
  devicesToggle: byId('devices-toggle'),
  devices: byId('devices'),
};

/** id -> card; a card is one tool call, pending or recently finished. */
const cards = new Map();
let socket = null;
let retryTimer = 0;
let backoff = BACKOFF_MIN_MS;
let connState = 'connecting';
let paired = false;
let starting = false;
let lastTouchedCard = null;
let idCounter = 0;

const uid = (prefix) => `${prefix}-${++idCounter}`;

/**
 * Model text as DOM nodes: Text nodes, with each invisible character (a bidi override, a zero-width
 * space, a control character) replaced by a marked `[U+XXXX]` token, so what is shown is what is meant.
 */
function visible(text) {
  return visibleParts(text).map((part) => (typeof part === 'string' ? document.createTextNode(part) : h('span', { class: 'invisible-char', title: 'invisible character', text: part.marker })));
}

/** An own property only: a question may be called `constructor` or `__proto__`. */
function own(record, key) {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function errorMessage(result, fallback) {
  const message = result.data?.error?.message;
  return typeof message === 'string' && message.trim() ? message : fallback;
}

// ---------------------------------------------------------------------------------------------
// Pairing, session and the live connection

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
      showPanel('board');
      connect();
    } else if (session.status === 401) {
      showUnpaired(pairError);
    } else {
      goOffline();
    }
  } finally {
    starting = false;
  }
}

function goOffline() {
  if (paired && cards.size > 0) showPanel('board');
  else showPanel('offline');
  setConn(paired ? 'reconnecting' : 'offline');
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
    onMessage(message);
  });
  ws.addEventListener('close', (event) => {
    if (socket !== ws) return;
    socket = null;
    if (event.code === REVOKED_CLOSE_CODE) {
      localStorage.removeItem(PAGE_KEY_STORAGE);
      showUnpaired('This device was unpaired.');
      return;
    }
    setConn('reconnecting');
    scheduleRetry();
  });
}

function closeSocket() {
  const ws = socket;
  socket = null;
  if (ws) ws.close();
}

function setConn(state) {
  if (state === connState) return;
  const was = connState;
  connState = state;
  ui.conn.dataset.state = state;
  ui.connText.textContent = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline', unpaired: 'Not paired' }[state];
  if (state === 'reconnecting' && was === 'live') announce('Connection lost. Reconnecting…');
  if (state === 'live' && was === 'reconnecting') announce('Live again.');
}

function showPanel(which) {
  ui.board.hidden = which !== 'board';
  // The device list and pairing are for a paired page only.
  ui.devicesToggle.hidden = which !== 'board';
  if (which !== 'board') ui.devices.hidden = true;
  ui.unpaired.hidden = which !== 'unpaired';
  ui.offline.hidden = which !== 'offline';
}

function showUnpaired(detail) {
  paired = false;
  closeSocket();
  clearTimeout(retryTimer);
  retryTimer = 0;
  setConn('unpaired');
  ui.unpairedDetail.textContent = detail ?? '';
  ui.unpairedDetail.hidden = !detail;
  showPanel('unpaired');
  updateCounts();
}

// ---------------------------------------------------------------------------------------------
// Messages from the daemon

function onMessage(message) {
  switch (message?.type) {
    case 'snapshot':
      if (!Array.isArray(message.questions)) return;
      // A snapshot proves the connection works end to end: only now is the backoff reset.
      backoff = BACKOFF_MIN_MS;
      setConn('live');
      applySnapshot(message.questions.filter(isView));
      onLive();
      break;
    case 'added':
      if (isView(message.question)) onAdded(message.question);
      break;
    case 'resolved':
      if (isView(message.question)) onResolved(message.question);
      break;
    case 'banner':
      setBanner(typeof message.message === 'string' ? message.message : null);
      break;
  }
}

/**
 * @param {unknown} view
 * @returns {view is QuestionView}
 */
function isView(view) {
  if (view === null || typeof view !== 'object') return false;
  const candidate = /** @type {Record<string, unknown>} */ (view);
  return (
    typeof candidate.id === 'string' &&
    Array.isArray(candidate.questions) &&
    candidate.questions.length > 0 &&
    candidate.questions.every((q) => q && typeof q.question === 'string' && Array.isArray(q.options))
  );
}

/** @param {QuestionView[]} views */
function applySnapshot(views) {
  const present = new Set();
  let added = 0;
  for (const view of views) {
    if (view.status !== undefined && view.status !== 'pending') continue;
    present.add(view.id);
    const card = cards.get(view.id);
    if (!card) {
      addPending(view);
      added++;
    } else if (card.status === 'pending') {
      // Keep the DOM (and whatever the person already picked or typed); only the times may move.
      card.view = { ...card.view, expiresAt: view.expiresAt, timeout: view.timeout ?? card.view.timeout };
    }
  }
  for (const card of [...cards.values()]) {
    if (card.status === 'pending' && !present.has(card.id)) markGone(card);
  }
  updateCounts();
  tick();
  if (added > 0) announce(added === 1 ? 'A question is waiting.' : `${added} questions are waiting.`);
}

/** @param {QuestionView} view */
function onAdded(view) {
  if (view.status !== undefined && view.status !== 'pending') return onResolved(view);
  if (cards.has(view.id)) return;
  const card = addPending(view);
  updateCounts();
  tick();
  const first = /** @type {QuestionView['questions'][number]} */ (view.questions[0]); // isView: one at least
  announce(markInvisible(`New question from ${projectName(view.cwd)}: ${first.header || first.question}`));
  return card;
}

/** @param {QuestionView} view */
function onResolved(view) {
  const card = cards.get(view.id);
  if (!card) {
    if (view.status === 'pending') return onAdded(view);
    finish(createCard(view), view, {});
    return;
  }
  // While this tab's own request is out, its reply says best whether this tab won.
  if (card.inflight) {
    card.deferred = view;
    return;
  }
  finish(card, view, {});
}

function setBanner(message) {
  ui.banner.hidden = !message;
  ui.bannerText.replaceChildren(...visible(message ?? ''));
}

// ---------------------------------------------------------------------------------------------
// Pending cards

function createCard(view) {
  const titleId = uid('card-title');
  const root = h('article', { class: 'card', 'data-question-id': view.id, 'data-status': 'pending', 'aria-labelledby': titleId });
  const card = { id: view.id, view, root, titleId, status: 'pending', qs: [], buttons: [], inflight: false, deferred: null };
  cards.set(view.id, card);
  root.addEventListener('focusin', () => (lastTouchedCard = card));
  return card;
}

/** @param {QuestionView} view */
function addPending(view) {
  const card = createCard(view);
  buildPendingCard(card);
  insertPending(card);
  onQuestionAdded(view);
  return card;
}

function insertPending(card) {
  const createdAt = Number(card.view.createdAt) || 0;
  for (const other of /** @type {HTMLCollectionOf<HTMLElement>} */ (ui.pending.children)) {
    const otherCard = cards.get(other.dataset.questionId);
    if (otherCard && (Number(otherCard.view.createdAt) || 0) < createdAt) {
      ui.pending.insertBefore(card.root, other);
      return;
    }
  }
  ui.pending.append(card.root);
}

function projectName(cwd) {
  const parts = String(cwd ?? '').split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : cwd || 'Unknown project';
}

function buildPendingCard(card) {
  const { view } = card;
  card.age = h('time', { class: 'age' });
  card.countdown = h('p', { class: 'countdown', role: 'timer' });
  const head = h(
    'header',
    { class: 'card-head' },
    h(
      'div',
      { class: 'card-ident' },
      h('h2', { class: 'card-title', id: card.titleId, title: view.cwd ? markInvisible(view.cwd) : null, tabindex: '-1' }, visible(projectName(view.cwd))),
      h(
        'p',
        { class: 'meta' },
        view.cwd ? h('span', { class: 'path', title: markInvisible(view.cwd) }, visible(view.cwd)) : null,
        h(
          'span',
          { class: 'meta-line' },
          card.age,
          h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }),
          // A script or an MCP client says who it is; Claude Code's questions name their session.
          view.asker ? `asked by ${view.asker.kind === 'mcp' ? 'the MCP client' : 'the script'} ` : 'session ',
          view.asker ? h('code', { class: 'session' }, visible(view.asker.name)) : h('code', { class: 'session', title: markInvisible(view.sessionId) }, visible(shortId(view.sessionId))),
          view.machine ? ' on ' : null,
          view.machine ? h('code', { class: 'machine' }, visible(view.machine)) : null,
        ),
      ),
    ),
    card.countdown,
  );

  const form = h('form', { class: 'card-form', novalidate: true });
  view.questions.forEach((question, index) => {
    const q = buildQuestion(question, index);
    card.qs.push(q);
    form.append(q.fieldset);
  });

  card.error = h('p', { class: 'card-error', id: uid('card-error'), hidden: true });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', text: 'Submit' });
  const terminal = h('button', { type: 'button', class: 'btn btn-secondary', text: 'Let the terminal answer' });
  const decline = h('button', { type: 'button', class: 'btn btn-quiet', text: 'Decline' });
  card.buttons = [submit, terminal, decline];
  form.append(card.error, h('div', { class: 'actions' }, submit, h('span', { class: 'actions-gap' }), terminal, decline));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submitAnswer(card);
  });
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      form.requestSubmit(submit);
    } else if (event.target instanceof HTMLInputElement && (event.target.type === 'checkbox' || event.target.type === 'radio')) {
      // Enter on an option chooses it (a checkbox toggles), as Space does; it never sends the card.
      event.preventDefault();
      event.target.click();
    } else if (event.target instanceof Element && event.target.classList.contains('other-text') && card.qs.length > 1) {
      // In a card of several questions, Enter in one answer must not send them all.
      event.preventDefault();
    }
  });
  terminal.addEventListener('click', () => settleOtherwise(card, 'terminal'));
  decline.addEventListener('click', () => settleOtherwise(card, 'decline'));

  card.form = form;
  card.root.replaceChildren(head, form);
}

function shortId(id) {
  const text = String(id ?? '');
  return text.length > 8 ? text.slice(0, 8) : text;
}

function buildQuestion(question, index) {
  const multi = question.multiSelect === true;
  const name = `q${index}`;
  const type = multi ? 'checkbox' : 'radio';
  const errorId = uid('q-error');
  const hintId = uid('q-hint');

  // dir=auto on every text a model wrote: mixed right-to-left and left-to-right text keeps its order.
  const legend = h('legend', { class: 'q-legend' }, question.header ? h('span', { class: 'chip', dir: 'auto' }, visible(question.header)) : null, h('span', { class: 'q-text', dir: 'auto' }, visible(question.question)));
  const fieldset = h('fieldset', { class: 'q', 'data-question-index': index });
  fieldset.append(legend, h('p', { class: 'q-hint', id: hintId, text: multi ? 'Select all that apply' : 'Select one' }));

  const list = h('div', { class: 'options' });
  const options = question.options.map((option) => {
    const labelId = uid('opt-label');
    const descId = uid('opt-desc');
    const hasDesc = typeof option.description === 'string' && option.description.trim() !== '';
    // Named by the label alone (tests and screen readers find it exactly); the description describes it.
    const input = h('input', { type, name, class: 'choice', 'aria-labelledby': labelId, 'aria-describedby': hasDesc ? descId : null });
    const box = h(
      'div',
      { class: 'option' },
      h(
        'label',
        { class: 'option-main' },
        input,
        h('span', { class: 'option-text' }, h('span', { class: 'option-label', id: labelId, dir: 'auto' }, visible(option.label)), hasDesc ? h('span', { class: 'option-desc', id: descId, dir: 'auto' }, visible(option.description)) : null),
      ),
    );
    if (typeof option.preview === 'string' && option.preview !== '') {
      // Focusable, so a long preview scrolls from the keyboard; a click on it chooses its option.
      const preview = h('figure', { class: 'preview' }, h('figcaption', { class: 'preview-caption', text: 'Preview' }), h('pre', { class: 'preview-body', dir: 'auto', tabindex: '0' }, visible(option.preview)));
      preview.addEventListener('click', () => {
        if (input.checked) return;
        input.checked = true;
        input.dispatchEvent(new Event('change', { bubbles: true }));
      });
      box.append(preview);
    }
    list.append(box);
    return { option, input };
  });

  const otherInput = h('input', { type, name, class: 'choice' });
  const otherText = h('input', { type: 'text', class: 'text-input other-text', 'aria-label': 'Other', placeholder: 'Type your own answer', maxlength: '10000', autocomplete: 'off' });
  list.append(h('div', { class: 'option option-other' }, h('label', { class: 'option-main' }, otherInput, h('span', { class: 'option-text' }, h('span', { class: 'option-label', text: 'Other' }))), otherText));

  const note = h('textarea', { class: 'text-input note', 'aria-label': 'Note', placeholder: 'Note for Claude (optional)', rows: '1', maxlength: '10000' });
  const error = h('p', { class: 'q-error', id: errorId, hidden: true });
  // The problem sits right under the question, where the eye is when it is pointed out.
  fieldset.append(error, list, note);
  fieldset.setAttribute('aria-describedby', hintId);

  const q = { question, fieldset, options, otherInput, otherText, note, error, errorId, hintId };
  otherText.addEventListener('input', () => {
    // Typing is choosing: in a single-select this also unchecks the option radios (same group).
    if (otherText.value.trim() !== '') otherInput.checked = true;
    clearProblem(q);
  });
  fieldset.addEventListener('change', () => clearProblem(q));
  return q;
}

function showProblem(q, message, target) {
  q.error.textContent = message;
  q.error.hidden = false;
  q.fieldset.setAttribute('aria-invalid', 'true');
  q.fieldset.setAttribute('aria-describedby', `${q.errorId} ${q.hintId}`);
  if (target === q.otherText) {
    q.otherText.setAttribute('aria-invalid', 'true');
    q.otherText.setAttribute('aria-describedby', q.errorId);
  }
}

function clearProblem(q) {
  if (q.error.hidden) return;
  q.error.hidden = true;
  q.error.textContent = '';
  q.fieldset.removeAttribute('aria-invalid');
  q.fieldset.setAttribute('aria-describedby', q.hintId);
  q.otherText.removeAttribute('aria-invalid');
  q.otherText.removeAttribute('aria-describedby');
}

/** The request body, and the questions still missing an answer. */
function collect(card) {
  const responses = [];
  const problems = [];
  for (const q of card.qs) {
    const selected = q.options.filter(({ input }) => input.checked).map(({ option }) => option.label);
    const otherChosen = q.otherInput.checked;
    const other = q.otherText.value.trim();
    const notes = q.note.value.trim();
    if (otherChosen && other === '') {
      problems.push({ q, message: 'Type your answer next to “Other”, or pick an option.', target: q.otherText });
    } else if (selected.length === 0 && !otherChosen) {
      problems.push({ q, message: q.question.multiSelect ? 'Pick at least one option, or type your own answer.' : 'Pick an option, or type your own answer.', target: q.options[0]?.input ?? q.otherInput });
    }
    responses.push({ question: q.question.question, selected, other: otherChosen ? other : null, notes: notes === '' ? null : notes });
  }
  return { responses, problems };
}

async function submitAnswer(card) {
  if (card.inflight || card.status !== 'pending') return;
  card.qs.forEach(clearProblem);
  hideCardError(card);
  const { responses, problems } = collect(card);
  if (problems.length > 0) {
    for (const { q, message, target } of problems) showProblem(q, message, target);
    const [first] = problems;
    first?.target.focus();
    announce(problems.length === 1 && first ? first.message : `${problems.length} questions still need an answer.`);
    return;
  }
  await send(card, 'answer', { responses });
}

function settleOtherwise(card, action) {
  if (card.inflight || card.status !== 'pending') return;
  card.qs.forEach(clearProblem);
  hideCardError(card);
  return send(card, action, {});
}

async function send(card, action, body) {
  const fallbackStatus = { answer: 'answered', terminal: 'handed-to-terminal', decline: 'declined' }[action];
  setBusy(card, true);
  const result = await api('POST', `/api/questions/${encodeURIComponent(card.id)}/${action}`, body);
  setBusy(card, false);
  const deferred = card.deferred;
  card.deferred = null;
  const view = isView(result.data?.question) ? result.data.question : null;

  if (result.status === 200) {
    finish(card, view ?? { ...card.view, status: fallbackStatus }, { mine: true });
  } else if (result.status === 409 && view) {
    finish(card, view, { conflict: true });
  } else if (result.status === 401 && (await api('GET', '/api/session')).status === 401) {
    // Only the session can say the pairing is gone; a 401 from one route alone may mean something else.
    showUnpaired(errorMessage(result, null));
  } else {
    showCardError(card, result.status === 0 ? 'Could not reach askbridge. Is it still running? Your answer is kept; try again.' : errorMessage(result, `Something went wrong (HTTP ${result.status}).`));
    if (deferred) finish(card, deferred, {});
  }
}

function setBusy(card, busy) {
  card.inflight = busy;
  card.form.setAttribute('aria-busy', busy ? 'true' : 'false');
  const hadFocus = card.buttons.includes(document.activeElement);
  for (const button of card.buttons) button.disabled = busy;
  // A disabled button drops focus; give it back once the request is over.
  if (busy && hadFocus) card.refocus = document.activeElement;
  if (!busy && card.refocus) {
    if (document.activeElement === document.body && card.status === 'pending') card.refocus.focus();
    card.refocus = null;
  }
}

function showCardError(card, message) {
  // The daemon's message may quote a label or question text.
  card.error.replaceChildren(...visible(message));
  card.error.hidden = false;
  announce(markInvisible(message));
}

function hideCardError(card) {
  card.error.hidden = true;
  card.error.textContent = '';
}

// ---------------------------------------------------------------------------------------------
// Finished cards

const TRIGGERS = { timeout: 'after the timeout', immediately: 'immediately', 'nobody-watching': 'because no page was open' };

function policyText(source) {
  const action = typeof source.action === 'string' ? source.action : 'policy';
  return `${action}${typeof source.rule === 'string' && source.rule ? `, rule ${source.rule}` : ''}`;
}

/** The headline and a detail line for a finished question. */
function describe(view, how) {
  const source = view.source && typeof view.source === 'object' ? view.source : {};
  if (how.gone) return { title: 'No longer pending', detail: 'It was settled while this page was not connected.' };
  const byPolicy = source.kind === 'policy';
  const policyDetail = byPolicy ? `${`By policy (${policyText(source)}) ${TRIGGERS[source.trigger] ?? ''}`.trim()}.` : null;
  const lateDetail = how.conflict ? 'This happened before your answer arrived.' : source.kind === 'daemon-stopped' ? 'askbridge was stopped.' : null;
  switch (view.status) {
    case 'answered': {
      let title = 'Answered';
      if (byPolicy) title = `Answered by policy (${policyText(source)})`;
      else if (!how.mine && source.kind === 'person') title = source.client === 'cli' ? 'Answered from the CLI' : 'Answered in another tab';
      if (how.conflict) {
        const where = title === 'Answered' ? '' : title.replace(/^Answered /, '');
        return { title: 'Already answered elsewhere', detail: where ? `It was answered ${where} first.` : null };
      }
      return { title, detail: byPolicy ? `${TRIGGERS[source.trigger] ? `Chosen ${TRIGGERS[source.trigger]}.` : ''}` || null : null };
    }
    case 'declined':
      return { title: 'Declined', detail: policyDetail ?? lateDetail };
    case 'handed-to-terminal':
      return { title: 'Handed to the terminal', detail: policyDetail ?? lateDetail };
    case 'cancelled':
      return { title: 'Withdrawn: the question was cancelled in the terminal', detail: lateDetail };
    case 'failed':
      return { title: 'Failed: the terminal asks instead', detail: typeof view.error === 'string' && view.error ? `The answer could not be delivered: ${view.error}.` : lateDetail };
    default:
      return { title: `Finished (${String(view.status)})`, detail: policyDetail ?? lateDetail };
  }
}

function finish(card, view, how) {
  if (card.status !== 'pending' && card.status !== 'gone') return;
  if (!how.gone && view.status === 'pending') return;
  onQuestionEnded(card.id);
  const focusWasHere = card.root.contains(document.activeElement) || (document.activeElement === document.body && lastTouchedCard === card);
  card.view = view;
  card.status = how.gone ? 'gone' : String(view.status);
  card.inflight = false;
  card.form = null;
  card.qs = [];
  card.buttons = [];
  card.countdown = null;

  const { title, detail } = describe(view, how);
  const statusId = uid('status');
  card.root.dataset.status = card.status;
  card.root.setAttribute('aria-labelledby', `${statusId} ${card.titleId}`);
  card.root.classList.add('is-finished');
  card.age = h('time', { class: 'age' });
  const statusTitle = h('h2', { class: 'status-title', id: statusId, tabindex: '-1', text: title });
  const head = h(
    'header',
    { class: 'finished-head' },
    h('span', { class: 'status-dot', 'aria-hidden': 'true' }),
    statusTitle,
    h('p', { class: 'finished-meta' }, h('span', { class: 'project-small', id: card.titleId, title: view.cwd ? markInvisible(view.cwd) : null }, visible(projectName(view.cwd))), h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }), card.age),
  );
  card.root.replaceChildren(head, ...(detail ? [h('p', { class: 'finished-detail' }, visible(detail))] : []), summaryOf(view));

  ui.finished.prepend(card.root);
  trimFinished();
  updateCounts();
  tick();
  announce(markInvisible(`${title}${how.gone ? '' : `: ${projectName(view.cwd)}`}.`));
  if (focusWasHere) {
    const next = /** @type {HTMLElement | null} */ (ui.pending.querySelector('.card-title'));
    (next ?? statusTitle).focus();
  }
  if (how.gone) learnOutcome(card);
}

/** What was asked and, when answered, what was answered. */
function summaryOf(view) {
  const answers = view.answers && typeof view.answers === 'object' ? view.answers : {};
  const notes = view.notes && typeof view.notes === 'object' ? view.notes : {};
  const list = h('dl', { class: 'answers' });
  const shown = new Set();
  const row = (header, question, answer, note) => {
    list.append(
      h(
        'div',
        { class: 'answer-row' },
        h('dt', { class: 'answer-q' }, header ? h('span', { class: 'chip chip-small' }, visible(header)) : null, h('span', {}, visible(question))),
        h('dd', { class: answer === undefined ? 'answer-a answer-none' : 'answer-a' }, answer === undefined ? 'Not answered' : visible(answer)),
        typeof note === 'string' && note ? h('dd', { class: 'answer-note' }, visible(`Note: ${note}`)) : null,
      ),
    );
  };
  const anyAnswer = Object.keys(answers).length > 0;
  for (const q of view.questions) {
    shown.add(q.question);
    const answer = Object.hasOwn(answers, q.question) ? String(answers[q.question]) : undefined;
    if (anyAnswer || view.status !== 'answered') row(q.header, q.question, anyAnswer ? answer : undefined, own(notes, q.question));
  }
  // An answer keyed by text the card never showed still deserves to be seen.
  for (const [question, answer] of Object.entries(answers)) if (!shown.has(question)) row('', question, String(answer), own(notes, question));
  if (!anyAnswer) list.classList.add('answers-questions-only');
  return list;
}

async function learnOutcome(card) {
  const result = await api('GET', `/api/questions/${encodeURIComponent(card.id)}`);
  const view = result.data?.question;
  if (result.status === 200 && isView(view) && view.status !== 'pending' && card.status === 'gone') finish(card, view, {});
}

function markGone(card) {
  // This tab's own request is about to say how it ended.
  if (card.inflight) return;
  finish(card, { ...card.view }, { gone: true });
}

function trimFinished() {
  while (ui.finished.children.length > FINISHED_KEEP) {
    const last = /** @type {HTMLElement} */ (ui.finished.lastElementChild);
    cards.delete(last.dataset.questionId);
    last.remove();
  }
}

// ---------------------------------------------------------------------------------------------
// Counts, clocks and announcements

function updateCounts() {
  const pending = ui.pending.children.length;
  const finished = ui.finished.children.length;
  showWaitingCount(paired ? pending : 0);
  ui.empty.hidden = pending > 0;
  ui.pendingCount.hidden = pending === 0;
  ui.pendingCount.textContent = String(pending);
  ui.finishedSection.hidden = finished === 0;
  ui.finishedCount.textContent = String(finished);
}

function tick() {
  const now = Date.now();
  for (const card of cards.values()) {
    const pending = card.status === 'pending';
    const at = pending ? card.view.createdAt : (card.view.resolvedAt ?? card.finishedAt ?? (card.finishedAt = now));
    if (card.age && Number.isFinite(at)) {
      setText(card.age, relative(now - at));
      const iso = new Date(at).toISOString();
      if (card.age.getAttribute('datetime') !== iso) {
        card.age.setAttribute('datetime', iso);
        card.age.title = new Date(at).toLocaleString();
      }
    }
    if (pending && card.countdown) updateCountdown(card, now);
  }
}

function updateCountdown(card, now) {
  const { expiresAt, timeout } = card.view;
  const summary = typeof timeout?.summary === 'string' && timeout.summary ? timeout.summary : null;
  if (!Number.isFinite(expiresAt)) {
    card.countdown.hidden = true;
    return;
  }
  const left = expiresAt - now;
  card.countdown.hidden = false;
  card.countdown.classList.toggle('is-urgent', left < 60_000);
  if (left <= 0) setText(card.countdown, summary ? `Time is up: ${summary}` : 'Time is up');
  else setText(card.countdown, summary ? `in ${duration(left)} ${summary}` : `${duration(left)} left`);
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function duration(ms) {
  const total = Math.ceil(ms / 1000);
  if (total >= 48 * 3600) return `${Math.round(total / 86400)} days`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

function relative(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 10) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

let announceQueue = [];
let announceTimer = 0;

/** Batches what happens within a moment into one polite announcement. */
function announce(text) {
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

window.addEventListener('hashchange', () => {
  if (readPairCode() !== null) start();
});
window.addEventListener('online', retryNow);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') retryNow();
});
setInterval(tick, 1000);
startNotify({
  api,
  send: (message) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  },
});
updateCounts();
initDevices();
start();
