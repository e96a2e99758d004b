// @ts-check
// An approval in focus: a permission Claude Code asks for (run this command, edit this file), or a
// plan to approve. It shows the tool and its exact input (tool-input.js), and offers what the ask's
// choices offer (its agent's profile): allow once, allow with one of its "always allow" suggestions,
// deny with a message, deny and stop (where the agent can stop its turn), or leave it to the agent's
// own prompt (the terminal, opencode's prompt). A decision cannot be taken
// back, so one click or key decides at most one card, and none aimed at something else
// (decision-hold.js). A risky approval (its view's `risk`, decided by the daemon) wears a danger
// mark with its reasons, offers no "always allow", and is allowed only through a second, explicit
// step: "Allow…" opens a confirmation whose own button allows it (no key or click does both). One
// two people must allow (its route's approvals) says where it stands ("1 of 2: allowed by alice at
// 14:02"); once this page allowed it, its allow gives way to "You allowed it: waiting for a second
// person" (Deny stays), as the daemon counts each person once.
import { speakerOf } from './api.js';
import { cardHead, contextNodes, uid } from './ask-form.js';
import { holdDecisions } from './decision-hold.js';
import { h, withCode } from './dom.js';
import { approvalKind, toolAction, toolInputNodes } from './tool-input.js';
import { visibleNodes } from './visible-text.js';
import { twoPeopleLine } from '../two-people.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../protocol.js').Approval} Approval */
/** @typedef {import('../protocol.js').ApprovalDecision} ApprovalDecision */

/**
 * @typedef {{
 *   decide(decision: ApprovalDecision): void;
 *   settle(action: 'terminal'): void;
 *   activity(): void;
 * }} ApprovalHandlers
 */

/** The deny message typed so far, by approval: it survives switching between cards in this tab. */
const messages = new Map();
const MESSAGES_KEPT = 50;

/** The person this page was paired for (the daemon's session reply says), if any: where two people must allow, whether they allowed already. */
let pagePerson;

/** @param {string | undefined} person */
export function setPagePerson(person) {
  pagePerson = person;
}

/**
 * Whether this page's person allowed this approval already (where two people must allow it).
 * @param {AskView} view
 */
export function allowedByPagePerson(view) {
  return pagePerson !== undefined && view.allows?.some((given) => given.person === pagePerson) === true;
}

/** The badge each kind wears, in the inbox and on the card. */
export const KIND_LABELS = { permission: 'Permission', plan: 'Plan' };

/**
 * The card of one waiting approval.
 * @param {AskView} view its `approval` is set
 * @param {ApprovalHandlers} handlers
 * @param {{ replacing?: boolean }} [how] `replacing`: it took the place of a card that just left
 */
export function buildApprovalForm(view, handlers, how = {}) {
  const approval = /** @type {Approval} */ (view.approval);
  const kind = approvalKind(approval);
  const plan = kind === 'plan';
  // Who acts, in the card's words: Claude, in Claude Code; another agent by its name.
  const actor = speakerOf(view);
  // What may be decided is the ask's own (its agent's profile): a stop where it can stop, suggestions where it takes them back.
  const { choices } = view;
  const titleId = uid('ask-title');
  const askId = uid('approval-ask');
  const root = h('article', { class: 'card approval', 'data-kind': kind, 'data-question-id': view.id, 'data-status': 'pending', 'aria-labelledby': `${askId} ${titleId}` });
  const { head, age, countdown, countdownTime, saysWhat } = cardHead(view, titleId);
  const context = h('div', { class: 'context' });

  const { ask, two, risk, input } = approvalNodes(view, askId);
  const body = h('section', { class: 'approval-body', 'aria-labelledby': askId }, ask, two, risk, input);

  const form = h('form', { class: 'card-form approval-form', novalidate: true });
  const error = h('p', { class: 'card-error', id: uid('card-error'), hidden: true });

  // Allow: once, or with one of Claude Code's suggestions, sent back by its index.
  const allowOnce = h('button', {
    type: 'button',
    class: risk ? 'btn btn-secondary btn-risky' : 'btn btn-primary',
    'aria-keyshortcuts': 'A 1',
    'aria-expanded': risk ? 'false' : null,
    text: risk ? 'Allow…' : plan ? 'Approve, I’ll approve edits manually' : 'Allow once',
  });
  // A risky approval: the confirmation "Allow…" opens, whose own button allows it.
  const confirmTextId = uid('risk-confirm');
  const confirmText = h('p', { class: 'risk-confirm-text', id: confirmTextId, tabindex: '-1', text: 'This is risky. Read the input above, then allow it if you mean to.' });
  const confirmAllow = h('button', { type: 'button', class: 'btn btn-danger btn-confirm-risky', 'aria-describedby': confirmTextId, text: 'Yes, allow it' });
  const confirmCancel = h('button', { type: 'button', class: 'btn btn-quiet', text: 'Cancel' });
  const confirm = risk ? h('div', { class: 'risk-confirm', hidden: true }, confirmText, h('div', { class: 'actions' }, confirmAllow, confirmCancel)) : null;
  const suggestions = (choices.remember && Array.isArray(approval.suggestions) ? approval.suggestions : []).map((suggestion, index) =>
    h('button', { type: 'button', class: 'btn btn-secondary btn-suggestion', 'data-suggestion': String(index), 'aria-keyshortcuts': index < 8 ? String(index + 2) : null }, withCode(suggestion?.label ?? `Suggestion ${index + 1}`)),
  );

  // Deny: the message goes to Claude; for a plan it is the feedback, and it is required.
  const messageId = uid('deny-message');
  const messageHintId = uid('deny-hint');
  const messageErrorId = uid('deny-error');
  const message = h('textarea', {
    class: 'text-input deny-message',
    id: messageId,
    rows: '2',
    maxlength: '10000',
    'aria-describedby': messageHintId,
    placeholder: plan ? 'e.g. Keep the old API; add a migration step first' : 'e.g. Use the test database instead',
  });
  message.value = messages.get(view.id) ?? '';
  const messageError = h('p', { class: 'q-error', id: messageErrorId, hidden: true });
  // Sending a plan back is part of planning, not a refusal: it does not wear the refusal's red.
  const deny = h('button', { type: 'button', class: plan ? 'btn btn-secondary btn-feedback' : 'btn btn-deny', text: plan ? 'Tell Claude what to change' : 'Deny' });
  const denyStop = choices.stop ? h('button', { type: 'button', class: 'btn btn-quiet btn-stop', text: plan ? 'Reject and stop' : 'Deny and stop' }) : null;
  const terminal = choices.handBack === undefined ? null : h('button', { type: 'button', class: 'btn btn-secondary btn-terminal', text: `Leave it to ${choices.handBack}` });
  const grant = choices.grant && approval.grant ? grantChoice(approval.grant) : null;
  const buttons = [allowOnce, ...(confirm ? [confirmAllow, confirmCancel] : []), ...suggestions, ...(grant ? [grant.button] : []), deny, ...(denyStop ? [denyStop] : []), ...(terminal ? [terminal] : [])];

  const allowArea = h('div', { class: 'actions approval-allow' }, allowOnce, suggestions);
  // Where two people must allow: whether this page's person allowed it already (then no allow is offered).
  let allowedByThisPerson = false;
  const allowedNote = h('p', { class: 'two-people-mine', role: 'status', hidden: true, text: 'You allowed it: waiting for a second person' });
  const keys = h('p', { class: 'approval-keys', 'aria-hidden': 'true' }, keyHints(suggestions.length, plan, true));
  form.append(
    error,
    allowArea,
    allowedNote,
    ...(grant ? [grant.root] : []),
    ...(confirm ? [confirm] : []),
    h(
      'div',
      { class: 'approval-deny' },
      h('label', { class: 'deny-label', for: messageId, text: plan ? 'What should Claude change?' : `Message for ${actor} (optional)` }),
      h('p', { class: 'deny-hint', id: messageHintId, text: plan ? 'Required to send the plan back; Claude keeps planning with it.' : `Sent with Deny: tell ${actor} what to do instead.` }),
      message,
      messageError,
      h('div', { class: 'deny-actions' }, deny, denyStop),
    ),
    h(
      'div',
      { class: 'approval-more' },
      terminal,
      keys,
    ),
  );

  const held = holdDecisions(buttons, [head, context, body, error], how);
  const ready = held.ready;

  /** @param {ApprovalDecision} decision */
  const decide = (decision) => {
    if (!ready()) return;
    handlers.decide(decision);
  };
  /** Allow once; a risky approval opens its confirmation instead, and focus goes to its words, not its button. */
  const allow = () => {
    if (allowedByThisPerson) return;
    if (!confirm) return decide({ behavior: 'allow' });
    if (!ready()) return;
    confirm.hidden = false;
    allowOnce.setAttribute('aria-expanded', 'true');
    confirmText.focus();
  };
  const cancelConfirm = () => {
    if (!confirm) return;
    confirm.hidden = true;
    allowOnce.setAttribute('aria-expanded', 'false');
    allowOnce.focus();
  };
  /** @param {number} index */
  const allowWith = (index) => decide({ behavior: 'allow', suggestion: index });
  /** @param {boolean} interrupt */
  const denyWith = (interrupt) => {
    const text = message.value.trim();
    if (plan && !interrupt && text === '') {
      showMessageProblem('Write what Claude should change first: the plan goes back to Claude with it.');
      return;
    }
    // Claude Code drops the message of a denial that stops the turn: it is never sent as if it arrived.
    if (interrupt && text !== '') {
      showMessageProblem(`Claude Code does not pass a message on when it stops Claude: ${plan ? 'send it with “Tell Claude what to change”' : 'send it with Deny'}, or clear it to stop.`);
      return;
    }
    clearMessageProblem();
    decide({ behavior: 'deny', ...(text === '' ? {} : { message: text }), ...(interrupt ? { interrupt: true } : {}) });
  };

  allowOnce.addEventListener('click', allow);
  confirmAllow.addEventListener('click', () => decide({ behavior: 'allow', confirmRisky: true }));
  confirmCancel.addEventListener('click', cancelConfirm);
  for (const [index, button] of suggestions.entries()) button.addEventListener('click', () => allowWith(index));
  grant?.button.addEventListener('click', () => decide({ behavior: 'allow', grant: grant.chosen() }));
  deny.addEventListener('click', () => denyWith(false));
  denyStop?.addEventListener('click', () => denyWith(true));
  terminal?.addEventListener('click', () => ready() && handlers.settle('terminal'));
  message.addEventListener('input', () => {
    remember(view.id, message.value);
    if (message.value.trim() !== '') clearMessageProblem();
    handlers.activity();
  });
  message.addEventListener('keydown', (event) => {
    // Ctrl+Enter in the message sends it, as it submits a question set.
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.isComposing) {
      event.preventDefault();
      denyWith(false);
    }
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  root.addEventListener('click', () => handlers.activity());

  root.replaceChildren(head, context, body, form);

  /** @param {string} text */
  function showMessageProblem(text) {
    messageError.textContent = text;
    messageError.hidden = false;
    message.setAttribute('aria-invalid', 'true');
    message.setAttribute('aria-describedby', `${messageErrorId} ${messageHintId}`);
    message.focus();
  }

  function clearMessageProblem() {
    if (messageError.hidden) return;
    messageError.hidden = true;
    messageError.textContent = '';
    message.removeAttribute('aria-invalid');
    message.setAttribute('aria-describedby', messageHintId);
  }

  function hideError() {
    error.hidden = true;
    error.textContent = '';
  }

  const card = {
    id: view.id,
    root,
    titleId,
    age,
    countdown,
    countdownTime,
    saysWhat,
    form,
    buttons,
    /**
     * Where an approval two people must allow stands now; once this page allowed it, no allow is offered.
     * @param {AskView} next
     */
    showAllows(next) {
      if (two) two.textContent = twoPeopleLine(next) ?? '';
      allowedByThisPerson = allowedByPagePerson(next);
      if (!allowedByThisPerson) return;
      allowArea.hidden = true;
      if (confirm) confirm.hidden = true;
      allowedNote.hidden = false;
      keys.replaceChildren(...keyHints(0, plan, false));
    },
    /** @param {AskView} next */
    showContext(next) {
      context.replaceChildren(...contextNodes(next));
      context.hidden = context.childElementCount === 0;
    },
    /** @param {string} text */
    showError(text) {
      error.replaceChildren(...visibleNodes(text));
      error.hidden = false;
    },
    hideError,
    /** @param {boolean} isBusy */
    setBusy(isBusy) {
      form.setAttribute('aria-busy', isBusy ? 'true' : 'false');
      const focused = document.activeElement;
      held.setBusy(isBusy);
      // A disabled button drops focus; give it back once the request is over.
      if (isBusy && focused instanceof HTMLButtonElement && buttons.includes(focused)) card.refocus = focused;
      if (!isBusy && card.refocus) {
        if (document.activeElement === document.body) card.refocus.focus();
        card.refocus = null;
      }
    },
    /** @type {HTMLButtonElement | null} */
    refocus: null,
    /** Focus on what is asked, not on a button: the next key must be a choice, not a leftover. */
    focusFirst() {
      ask.focus({ preventScroll: false });
    },
    /**
     * A number key, as in Claude Code's dialog: 1 allows once, 2 and on each suggestion in turn.
     * @param {number} n
     */
    pick(n) {
      if (n === 1) allow();
      else if (n - 2 < suggestions.length) allowWith(n - 2);
    },
    /**
     * The approval's own keys, from anywhere in the page but a text box: `a` (or Enter on the card
     * itself, not on a button) allows once, `d` goes to the message. A held key's repeats decide nothing.
     * @param {KeyboardEvent} event
     * @returns {boolean} whether the key was the card's
     */
    key(event) {
      if (event.key === 'd') {
        message.focus();
        return true;
      }
      const onCard = event.target === document.body || event.target === root || event.target === ask || event.target === document.documentElement;
      if (event.key === 'a' || (event.key === 'Enter' && onCard)) {
        if (!event.repeat) allow();
        return true;
      }
      return false;
    },
  };
  card.showContext(view);
  card.showAllows(view);
  return card;
}

/** How long a grant may last, as the card offers it: the daemon holds any to at most eight hours. */
const GRANT_DURATIONS = [
  { value: '15', label: '15 minutes' },
  { value: '60', label: '1 hour' },
  { value: 'session', label: 'until this session ends (at most 8 hours)' },
];

/**
 * "Allow this, and the same for…": what the grant would allow, in words and as its rule, shown
 * before it is made; how long and where it holds; and the button that allows with it.
 * @param {{ rule: string; words: string }} offer
 */
function grantChoice(offer) {
  const durationId = uid('grant-duration');
  const scopeId = uid('grant-scope');
  const duration = h('select', { class: 'text-input grant-duration', id: durationId }, GRANT_DURATIONS.map(({ value, label }) => h('option', { value, text: label })));
  const scope = h(
    'select',
    { class: 'text-input grant-scope', id: scopeId },
    h('option', { value: 'session', text: 'this session only' }),
    h('option', { value: 'project', text: 'every session of this project' }),
  );
  const button = h('button', { type: 'button', class: 'btn btn-secondary btn-grant', text: 'Allow, and the same without asking' });
  const root = h(
    'fieldset',
    { class: 'approval-grant' },
    h('legend', { class: 'grant-legend', text: 'Allow this, and the same for a while' }),
    h('p', { class: 'grant-offer' }, 'Without asking you, it will ', visibleNodes(offer.words), '.'),
    h('p', { class: 'grant-rule-line' }, 'Rule: ', h('code', { class: 'grant-rule', dir: 'ltr' }, visibleNodes(offer.rule))),
    h('div', { class: 'grant-fields' }, h('label', { for: durationId, text: 'For' }), duration, h('label', { for: scopeId, text: 'In' }), scope),
    button,
  );
  return {
    root,
    button,
    /** @returns {import('../protocol.js').GrantChoice} */
    chosen() {
      const where = scope.value === 'project' ? 'project' : 'session';
      return duration.value === 'session' ? { untilSessionEnds: true, scope: where } : { minutes: Number(duration.value), scope: where };
    },
  };
}

/**
 * What an approval asks, as its card shows it (Review all shows each the same way): `ask`, the kind's
 * badge, the action in words and the tool by its name as sent; `input`, the tool's whole input.
 * @param {AskView} view its `approval` is set
 * @param {string} askId the id `ask` takes, to name what contains it
 */
export function approvalNodes(view, askId) {
  const approval = /** @type {Approval} */ (view.approval);
  const kind = approvalKind(approval);
  const plan = kind === 'plan';
  const actor = speakerOf(view);
  const ask = h(
    'p',
    { class: 'approval-ask', id: askId, tabindex: '-1' },
    h('span', { class: 'kind-badge', 'data-kind': kind, text: KIND_LABELS[kind] }),
    ' ',
    h('span', { class: 'approval-action', text: plan ? 'Claude finished planning and asks you to approve the plan' : `${actor} wants to ${toolAction(approval)}` }),
    plan ? null : ' ',
    plan ? null : h('code', { class: 'tool-name', dir: 'ltr' }, visibleNodes(approval.toolName)),
  );
  // A risky approval (the daemon's risk.ts) says why, in the danger colours, above its input.
  const reasons = view.risk && Array.isArray(view.risk.reasons) ? view.risk.reasons : null;
  const risk = reasons
    ? h(
        'div',
        { class: 'risk-mark', role: 'note', 'aria-label': 'Risky' },
        h('p', { class: 'risk-title', text: 'Risky' }),
        h('ul', { class: 'risk-reasons' }, ...reasons.map((reason) => h('li', {}, visibleNodes(reason)))),
      )
    : null;
  // Where two people must allow it: how many have, who and when ("Needs two people", "1 of 2: allowed by alice at 14:02").
  const line = twoPeopleLine(view);
  const two = line === undefined ? null : h('p', { class: 'two-people', role: 'status', text: line });
  return { ask, two, risk, input: toolInputNodes(approval, actor) };
}

/**
 * The approval ended: its message is no longer needed.
 * @param {string} id
 */
export function forgetMessage(id) {
  messages.delete(id);
}

/**
 * @param {string} id
 * @param {string} text
 */
function remember(id, text) {
  messages.delete(id);
  if (text !== '') messages.set(id, text);
  while (messages.size > MESSAGES_KEPT) messages.delete(messages.keys().next().value);
}

/**
 * The card's keys, in a line under its buttons (a keyboard's; hidden on a touch screen).
 * @param {number} count the suggestions
 * @param {boolean} plan
 * @param {boolean} allowing whether this page may still allow it (not once its person allowed one of two)
 */
function keyHints(count, plan, allowing) {
  /** @type {Array<Node | string>} */
  const hints = allowing ? [h('kbd', { text: 'a' }), ' or ', h('kbd', { text: 'Enter' }), plan ? ' approves' : ' allows once', ' · '] : [];
  if (allowing && count === 1) hints.push(h('kbd', { text: '2' }), ' the suggestion · ');
  else if (allowing && count > 1) hints.push(h('kbd', { text: '2' }), '–', h('kbd', { text: String(Math.min(count + 1, 9)) }), ' the suggestions · ');
  hints.push(h('kbd', { text: 'd' }), ' writes a message');
  return hints;
}
