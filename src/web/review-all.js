// @ts-check
// Review all: every waiting permission in one list, each shown as its card shows it (approval.js),
// to allow the ones a person ticks, or deny them with one message for every denial. Nothing is
// decided that is not ticked, and each decision is the same request as a card's (POST
// /api/asks/:id/decide), one per ask, so the first answer still wins: one settled elsewhere while
// the list is open is shown as settled, unticked, and left out. Plans are not in the list: approving
// one starts Claude on work the plan only describes, and sending one back needs its own feedback, so
// each is decided on its own card. An approval that needs its own confirmation (ownConfirmation)
// may be denied here, but allowed only on its own card: ticked to allow, it is left out, unticked
// and waiting, and the list says to open its card, while the others ticked are allowed. Where two
// people must allow, an allow sent from here is this page's person's one allow, as a card's is: the
// daemon counts it, and the ask stays in the list, waiting for a second person.
import { allowedByPagePerson, approvalNodes } from './approval.js';
import { projectName, shortId, uid } from './ask-form.js';
import { h } from './dom.js';
import { approvalKind, toolSummary } from './tool-input.js';
import { markInvisible, visibleNodes } from './visible-text.js';
import { twoPeopleLine } from '../two-people.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../protocol.js').ApprovalDecision} ApprovalDecision */
/** @typedef {import('./api.js').SettleResult} SettleResult */
/** @typedef {import('./finished.js').How} How */

/**
 * @typedef {{
 *   view: AskView; root: HTMLElement; box: HTMLInputElement; state: HTMLElement; two: HTMLElement | null;
 *   status: 'waiting' | 'sending' | 'settled'; confirmAlone: string | null;
 * }} Item
 */

/**
 * Whether a permission is one a bulk allow may take: a permission (not a plan), shown whole.
 * @param {AskView} view
 */
export function reviewable(view) {
  return view.status === 'pending' && view.approval !== undefined && approvalKind(view.approval) === 'permission';
}

/**
 * Why this approval must be allowed on its own card, with its own confirmation, or null: the daemon's
 * reasons when it marks it risky (`risk.reasons`).
 * @param {AskView} view
 * @returns {string | null}
 */
export function ownConfirmation(view) {
  const risk = /** @type {{ risk?: { reasons?: unknown } }} */ (view).risk;
  if (!risk || !Array.isArray(risk.reasons)) return null;
  const reasons = risk.reasons.filter((reason) => typeof reason === 'string');
  return reasons.length > 0 ? reasons.join('; ') : 'it needs its own confirmation';
}

/**
 * @param {{
 *   dialog: HTMLDialogElement;
 *   decide(id: string, decision: ApprovalDecision): Promise<SettleResult>;
 *   ended(view: AskView, how: How): void;
 *   updated(view: AskView): void;
 *   announce(text: string): void;
 * }} deps
 */
export function createReview({ dialog, decide, ended, updated, announce }) {
  /** @type {Map<string, Item>} */
  const items = new Map();
  const titleId = uid('review-title');
  const messageId = uid('review-message');
  const list = h('ol', { class: 'review-list', role: 'list' });
  const summary = h('p', { class: 'review-summary', role: 'status', tabindex: '-1' });
  const problem = h('p', { class: 'q-error review-problem', role: 'alert', hidden: true });
  const message = h('textarea', { class: 'text-input deny-message', id: messageId, rows: '2', maxlength: '10000', placeholder: 'e.g. Use the test database instead' });
  const allow = h('button', { type: 'button', class: 'btn btn-primary review-allow' });
  const deny = h('button', { type: 'button', class: 'btn btn-deny review-deny' });
  const close = h('button', { type: 'button', class: 'btn btn-quiet review-close', text: 'Close' });
  const selectAll = h('button', { type: 'button', class: 'btn btn-quiet review-select-all', text: 'Select all' });

  dialog.setAttribute('aria-labelledby', titleId);
  dialog.replaceChildren(
    h(
      'header',
      { class: 'review-head' },
      h('h2', { class: 'review-title', id: titleId, text: 'Review all waiting permissions' }),
      h('p', { class: 'review-hint', text: 'Tick the ones to decide, then allow them or deny them. Nothing is sent for the ones left unticked; plans are decided on their own cards.' }),
      selectAll,
    ),
    list,
    h(
      'footer',
      { class: 'review-foot' },
      summary,
      problem,
      h('label', { class: 'deny-label', for: messageId, text: 'Message for each one denied (optional)' }),
      message,
      h('div', { class: 'review-actions' }, allow, deny, close),
    ),
  );

  allow.addEventListener('click', () => void send('allow'));
  deny.addEventListener('click', () => void send('deny'));
  close.addEventListener('click', () => dialog.close());
  selectAll.addEventListener('click', () => {
    const waiting = [...items.values()].filter((item) => item.status === 'waiting');
    const every = waiting.every((item) => item.box.checked);
    for (const item of waiting) item.box.checked = !every;
    refresh();
  });
  list.addEventListener('change', () => refresh());

  /** @param {AskView} view */
  function itemOf(view) {
    const askId = uid('review-ask');
    const boxId = uid('review-box');
    const { ask, two, risk, input } = approvalNodes(view, askId);
    const confirmAlone = ownConfirmation(view);
    const box = h('input', { type: 'checkbox', class: 'review-box', id: boxId, 'aria-labelledby': `${boxId}-label ${askId}` });
    const state = h('p', { class: 'review-state', hidden: true });
    const where = h('p', { class: 'review-where' }, h('span', { dir: 'auto' }, visibleNodes(projectName(view.cwd))), ' · session ', h('code', {}, visibleNodes(shortId(view.sessionId))));
    const root = h(
      'li',
      { class: 'review-item', 'data-question-id': view.id, 'data-status': 'waiting' },
      h('label', { class: 'review-pick', id: `${boxId}-label`, for: boxId }, box, h('span', { text: 'Select' })),
      h('div', { class: 'approval-body review-body' }, ask, two, risk, where, input),
      confirmAlone ? h('p', { class: 'review-alone', text: `Allow it on its own card: ${confirmAlone}. It may be denied here.` }) : null,
      state,
    );
    const item = { view, root, box, state, two, status: /** @type {Item['status']} */ ('waiting'), confirmAlone };
    showAllows(item, view);
    return item;
  }

  /**
   * Where an approval two people must allow stands; once this page's person allowed it, it says so.
   * @param {Item} item
   * @param {AskView} view
   */
  function showAllows(item, view) {
    item.view = view;
    if (item.two) item.two.textContent = twoPeopleLine(view) ?? '';
    if (!allowedByPagePerson(view)) return;
    item.state.textContent = 'You allowed it: waiting for a second person';
    item.state.hidden = false;
  }

  function refresh() {
    const tickedItems = [...items.values()].filter((item) => item.status === 'waiting' && item.box.checked);
    // Allow counts only what it can allow: a risky one needs its own card.
    const allowable = tickedItems.filter((item) => !item.confirmAlone).length;
    allow.textContent = allowable === 0 ? 'Allow selected' : `Allow ${allowable} selected`;
    deny.textContent = tickedItems.length === 0 ? 'Deny selected' : `Deny ${tickedItems.length} selected`;
    const ticked = tickedItems.length;
    const waiting = [...items.values()].some((item) => item.status === 'waiting');
    selectAll.hidden = !waiting;
    if (ticked > 0) hideProblem();
  }

  /** @param {string} text */
  function showProblem(text) {
    problem.textContent = text;
    problem.hidden = false;
  }

  function hideProblem() {
    problem.hidden = true;
    problem.textContent = '';
  }

  /**
   * @param {Item} item
   * @param {string} title how it ended, in the words of its finished card
   * @param {'mine' | 'elsewhere'} by
   */
  function markSettled(item, title, by) {
    item.status = 'settled';
    item.box.checked = false;
    item.box.disabled = true;
    item.root.dataset.status = by === 'mine' ? 'decided' : 'settled-elsewhere';
    item.state.replaceChildren(...visibleNodes(by === 'mine' ? title : `Already settled: ${title}. Left out.`));
    item.state.hidden = false;
  }

  /**
   * An approval this person allowed where two must: unticked and waiting; everything else learns of the allow too.
   * @param {Item} item
   * @param {AskView} view
   */
  function keepWaiting(item, view) {
    item.status = 'waiting';
    item.box.checked = false;
    updated(view);
  }

  /** @param {'allow' | 'deny'} behavior */
  async function send(behavior) {
    const ticked = [...items.values()].filter((item) => item.status === 'waiting' && item.box.checked);
    if (ticked.length === 0) {
      showProblem(`Tick the permissions to ${behavior} first.`);
      return;
    }
    const alone = behavior === 'allow' ? ticked.filter((item) => item.confirmAlone !== null) : [];
    for (const item of alone) {
      item.box.checked = false;
      item.state.textContent = 'Not allowed here: still waiting. Open its card to allow it.';
      item.state.hidden = false;
    }
    const leftOut =
      alone.length === 0
        ? null
        : alone.length === 1
          ? 'One risky permission was not allowed: it needs its own confirmation and still waits; open its card to allow it.'
          : `${alone.length} risky permissions were not allowed: they need their own confirmation and still wait; open their cards to allow them.`;
    const sending = ticked.filter((item) => !alone.includes(item));
    if (sending.length === 0) {
      refresh();
      showProblem(/** @type {string} */ (leftOut));
      return;
    }
    hideProblem();
    const text = message.value.trim();
    /** @type {ApprovalDecision} */
    const decision = behavior === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', ...(text === '' ? {} : { message: text }) };
    for (const item of sending) item.status = 'sending';
    setBusy(true);
    let done = 0;
    /** Allowed by this person where two must: kept, and still waiting for a second person. */
    let once = 0;
    /** @type {string[]} */
    const before = [];
    /** @type {string[]} */
    const failed = [];
    /** Those this person had allowed already, where two must: the daemon counts each person once. */
    /** @type {string[]} */
    const again = [];
    // One request per ask, as a card sends it: the daemon checks each exactly as it checks one.
    for (const item of sending) {
      const result = await decide(item.view.id, decision);
      if (result.ok && result.data.ask.status === 'pending') {
        // One allow of two: it stays in the list, unticked, and waits for a second person.
        done++;
        once++;
        keepWaiting(item, result.data.ask);
      } else if (result.ok) {
        done++;
        ended(result.data.ask, { mine: true });
      } else if (result.status === 409 && result.data && 'ask' in result.data && result.data.error.code === 'already_allowed') {
        // This person allowed it already (here, or on another device): a second person must.
        again.push(markInvisible(toolSummary(/** @type {NonNullable<AskView['approval']>} */ (item.view.approval))));
        keepWaiting(item, result.data.ask);
      } else if (result.status === 409 && result.data && 'ask' in result.data) {
        before.push(markInvisible(toolSummary(/** @type {NonNullable<AskView['approval']>} */ (item.view.approval))));
        ended(result.data.ask, { conflict: true });
      } else {
        // Ended meanwhile (the live feed said so while this request was out): it stays settled.
        if (item.status === 'sending') item.status = 'waiting';
        failed.push(markInvisible(toolSummary(/** @type {NonNullable<AskView['approval']>} */ (item.view.approval))));
      }
    }
    setBusy(false);
    const verb = behavior === 'allow' ? 'allowed' : 'denied';
    const parts = [`${done} ${verb}.`];
    if (once > 0) parts.push(once === 1 ? 'One of them needs a second person to allow it too, and still waits.' : `${once} of them need a second person to allow them too, and still wait.`);
    if (before.length > 0) parts.push(`${before.length} already settled elsewhere, left out: ${before.join('; ')}.`);
    if (again.length > 0) parts.push(`${again.length} not allowed again: you allowed ${again.length === 1 ? 'it' : 'them'} already, and a second person must: ${again.join('; ')}.`);
    if (failed.length > 0) parts.push(`${failed.length} not sent (askbridge refused or could not be reached); still ticked: ${failed.join('; ')}.`);
    if (leftOut !== null) parts.push(leftOut);
    summary.textContent = parts.join(' ');
    if (behavior === 'deny' && done > 0) message.value = '';
    refresh();
    summary.focus();
    announce(summary.textContent);
  }

  /** @param {boolean} busy */
  function setBusy(busy) {
    allow.disabled = busy;
    deny.disabled = busy;
    dialog.setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  return {
    /**
     * Opens the list with the permissions waiting now (in the order shown).
     * @param {AskView[]} views
     */
    open(views) {
      items.clear();
      for (const view of views.filter(reviewable)) items.set(view.id, itemOf(view));
      list.replaceChildren(...[...items.values()].map((item) => item.root));
      summary.textContent = `${items.size} permissions wait.`;
      hideProblem();
      message.value = '';
      setBusy(false);
      refresh();
      dialog.showModal();
      /** @type {HTMLInputElement | undefined} */ ([...items.values()][0]?.box)?.focus();
    },
    isOpen() {
      return dialog.open;
    },
    /**
     * Whether this list's own request for the ask is out: its reply says how it ended.
     * @param {string} id
     */
    sending(id) {
      return items.get(id)?.status === 'sending';
    },
    /**
     * An ask still waiting changed (another person allowed it, where two must): its item says where it stands.
     * @param {AskView} view
     */
    updated(view) {
      const item = items.get(view.id);
      if (item && item.status !== 'settled') showAllows(item, view);
    },
    /**
     * An ask ended: in the list, it shows how, unticked and out of every decision.
     * @param {AskView} view
     * @param {string} title its finished card's headline
     * @param {How} how
     */
    left(view, title, how) {
      const item = items.get(view.id);
      if (!item || item.status === 'settled') return;
      markSettled(item, title, how.mine ? 'mine' : 'elsewhere');
      refresh();
    },
  };
}
