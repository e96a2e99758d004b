// @ts-check
// What waits on the person besides questions and approvals. The end of one of Claude's turns while
// they are away: Claude's last message, a reply that Claude goes on with, or Done, which lets it stop.
// A session waiting for them in its terminal, which nothing here answers: the card only says so, and
// leaves once the session moves on. And the away switch, which makes the end of a turn wait at all.
// Claude's message and Claude Code's are model text: the one is rendered by markdown.js (never
// markup), the other shown as text with its invisible characters marked.
import { putAway } from './api.js';
import { cardHead, contextNodes, uid } from './ask-form.js';
import { holdDecisions } from './decision-hold.js';
import { h } from './dom.js';
import { loadReplyDraft, saveReplyDraft } from './drafts.js';
import { renderMarkdown } from './markdown.js';
import { visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../protocol.js').TurnEnd} TurnEnd */
/** @typedef {import('../protocol.js').TurnEndReach} TurnEndReach */

/**
 * @typedef {{
 *   reply(body: { text: string } | { done: true }): void;
 *   activity(): void;
 * }} TurnEndHandlers
 */

/** The badge each kind wears in the inbox. */
export const TURN_LABELS = { 'turn-end': 'Turn end', 'terminal-wait': 'Terminal', elicitation: 'MCP' };

/** The most a reply may hold (REPLY_CHARS in protocol.ts). */
const REPLY_CHARS = 20000;
/** A last message longer than this (characters or lines) is shown shortened until "Show all". */
const LONG_MESSAGE_CHARS = 1500;
const LONG_MESSAGE_LINES = 20;
/** How much of Claude's message a finished card or an inbox row quotes. */
const SAID_SHORT_CHARS = 160;

/** What a wait in the terminal is, by Claude Code's notification_type. */
const TERMINAL_WAIT_HEADLINES = {
  idle_prompt: 'Claude waits for your next prompt in the terminal',
  permission_prompt: 'A permission waits in the terminal',
  elicitation_dialog: 'An MCP server asks for input in the terminal',
};

/** @param {unknown} kind */
export function terminalWaitHeadline(kind) {
  return typeof kind === 'string' && Object.hasOwn(TERMINAL_WAIT_HEADLINES, kind) ? TERMINAL_WAIT_HEADLINES[/** @type {keyof typeof TERMINAL_WAIT_HEADLINES} */ (kind)] : 'Waiting for you in the terminal';
}

/**
 * The start of Claude's message on one line, for a row, a finished card or History ('' when it said
 * nothing): its markdown's marks (fences, headings, list bullets, emphasis, a link's address) left
 * out, so that it reads as the words it is. Shown as text, like everything a model wrote.
 * @param {string} text
 * @param {number} [chars]
 */
export function saidShort(text, chars = SAID_SHORT_CHARS) {
  const line = String(text ?? '')
    .replace(/^[ \t]*(?:```|~~~).*$/gm, '')
    .replace(/^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+)/gm, '')
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
    .replace(/\*\*|__|`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const characters = Array.from(line);
  return characters.length > chars ? `${characters.slice(0, chars).join('').trimEnd()}…` : line;
}

/** @param {number} n */
const replies = (n) => `${n} ${n === 1 ? 'reply' : 'replies'}`;

/**
 * The branch and title only: for the end of a turn, what Claude said is its last message, shown whole.
 * @param {AskView} view
 */
function aboutNodes(view) {
  const context = view.context ?? {};
  return contextNodes({ ...view, context: { ...(context.title ? { title: context.title } : {}), ...(context.branch ? { branch: context.branch } : {}) } });
}

/**
 * The card of the end of a turn that waits for the person's reply.
 * @param {AskView} view its `turnEnd` is set
 * @param {TurnEndHandlers} handlers
 * @param {{ replacing?: boolean }} [how] `replacing`: it took the place of a card that just left (decision-hold.js)
 */
export function buildTurnEndForm(view, handlers, how = {}) {
  const turnEnd = /** @type {TurnEnd} */ (view.turnEnd);
  const titleId = uid('ask-title');
  const askId = uid('turn-ask');
  const root = h('article', { class: 'card turn-end', 'data-kind': 'turn-end', 'data-question-id': view.id, 'data-status': 'pending', 'aria-labelledby': `${askId} ${titleId}` });
  const { head, age, countdown, countdownTime, saysWhat } = cardHead(view, titleId);
  const context = h('div', { class: 'context' });

  const ask = h('p', { class: 'turn-ask', id: askId, tabindex: '-1', text: 'Claude finished' });
  const body = h('section', { class: 'turn-body', 'aria-labelledby': askId }, ask, messageFigure(turnEnd));

  const form = h('form', { class: 'card-form turn-form', novalidate: true });
  const error = h('p', { class: 'card-error', id: uid('card-error'), hidden: true });
  const replyId = uid('reply');
  const hintId = uid('reply-hint');
  const limitId = uid('reply-limit');
  const replyErrorId = uid('reply-error');
  const doneHintId = uid('done-hint');
  const lastReply = turnEnd.repliesInARow + 1 === turnEnd.replyLimit;
  const describedBy = [lastReply ? limitId : null, hintId].filter(Boolean).join(' ');
  const text = h('textarea', { class: 'text-input reply-text', id: replyId, rows: '3', maxlength: String(REPLY_CHARS), 'aria-describedby': describedBy, placeholder: 'e.g. Good. Now add tests for it' });
  text.value = loadReplyDraft(view);
  const replyError = h('p', { class: 'q-error', id: replyErrorId, hidden: true });
  const send = h('button', { type: 'button', class: 'btn btn-primary', text: 'Send reply' });
  const done = h('button', { type: 'button', class: 'btn btn-secondary btn-done', 'aria-describedby': doneHintId, text: 'Done' });
  const doneHint = h('p', { class: 'reply-hint done-hint', id: doneHintId, text: 'Done lets Claude stop: its session then waits at its prompt in the terminal.' });
  const buttons = [send, done];

  form.append(
    error,
    h(
      'div',
      { class: 'turn-reply' },
      h('label', { class: 'reply-label', for: replyId, text: 'Reply to Claude' }),
      lastReply
        ? h(
            'p',
            { class: 'turn-limit', id: limitId },
            h('strong', { text: 'This is the last reply Claude Code takes in a row.' }),
            ` It takes ${replies(turnEnd.replyLimit)} in a row: after this one, when Claude next finishes, it stops instead of waiting here. CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in Claude Code’s environment raises the limit.`,
          )
        : null,
      h('p', { class: 'reply-hint', id: hintId }, 'Claude goes on with exactly your words, as your next message.', h('span', { class: 'reply-keys', 'aria-hidden': 'true' }, ' ', h('kbd', { text: 'Ctrl' }), ' ', h('kbd', { text: 'Enter' }), ' sends.')),
      text,
      replyError,
      h('div', { class: 'actions turn-actions' }, send, done),
      doneHint,
    ),
  );

  /** The reply on its way, to show when it arrives too late. */
  let sending = '';
  // A click meant for the card before, or for a button that what arrived above just moved, replies to nothing.
  const held = holdDecisions(buttons, [head, context, body, error], how);
  const ready = held.ready;

  const sendReply = () => {
    if (!ready()) return;
    const words = text.value.trim();
    if (words === '') {
      showProblem('Write a reply first, or press Done to let Claude stop.');
      return;
    }
    clearProblem();
    sending = words;
    handlers.reply({ text: words });
  };
  const sendDone = () => {
    if (!ready()) return;
    // Done sends no words: a reply typed and then dropped without a word would be lost unseen.
    if (text.value.trim() !== '') {
      showProblem('Done sends no reply: send what you wrote with Send reply, or clear it to let Claude stop.');
      return;
    }
    clearProblem();
    sending = '';
    handlers.reply({ done: true });
  };

  send.addEventListener('click', sendReply);
  done.addEventListener('click', sendDone);
  text.addEventListener('input', () => {
    saveReplyDraft(view, text.value);
    if (text.value.trim() !== '') clearProblem();
    handlers.activity();
  });
  text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.isComposing) {
      event.preventDefault();
      sendReply();
    }
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  root.addEventListener('click', () => handlers.activity());

  root.replaceChildren(head, context, body, form);

  /** @param {string} message */
  function showProblem(message) {
    replyError.textContent = message;
    replyError.hidden = false;
    text.setAttribute('aria-invalid', 'true');
    text.setAttribute('aria-describedby', `${replyErrorId} ${describedBy}`);
    text.focus();
  }

  function clearProblem() {
    if (replyError.hidden) return;
    replyError.hidden = true;
    replyError.textContent = '';
    text.removeAttribute('aria-invalid');
    text.setAttribute('aria-describedby', describedBy);
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
    /** @param {AskView} next */
    showContext(next) {
      context.replaceChildren(...aboutNodes(next));
      context.hidden = context.childElementCount === 0;
    },
    /** @param {string} message */
    showError(message) {
      error.replaceChildren(...visibleNodes(message));
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
    /** Focus on the headline: the message is read first, and on a phone no keyboard pops up. */
    focusFirst() {
      ask.focus({ preventScroll: false });
    },
    /** Number keys choose nothing here. */
    pick() {},
    /**
     * `r` goes to the reply box, from anywhere in the page but a text box.
     * @param {KeyboardEvent} event
     */
    key(event) {
      if (event.key !== 'r') return false;
      text.focus();
      return true;
    },
    /** The reply that was on its way when the turn's end was settled elsewhere ('' for Done). */
    unsent() {
      return sending;
    },
  };
  card.showContext(view);
  return card;
}

/**
 * Claude's last message, rendered as markdown (safely, as previews are), shortened when long.
 * @param {TurnEnd} turnEnd
 */
function messageFigure(turnEnd) {
  const message = String(turnEnd.lastMessage ?? '');
  const bodyId = uid('turn-message');
  const body = h('div', { class: 'turn-message md', id: bodyId, dir: 'auto' }, message.trim() === '' ? h('p', { class: 'turn-none', text: 'Claude ended its turn without a message.' }) : renderMarkdown(message));
  const figure = h(
    'figure',
    { class: 'turn-said' },
    h('figcaption', { class: 'turn-said-caption' }, 'Claude’s last message', turnEnd.truncated ? h('span', { class: 'turn-cut', text: 'cut' }) : null),
    body,
    turnEnd.truncated ? h('p', { class: 'turn-cut-note', text: 'Cut: only its first 100,000 characters are shown.' }) : null,
  );
  if (message.length > LONG_MESSAGE_CHARS || message.split('\n').length > LONG_MESSAGE_LINES) {
    body.classList.add('is-collapsed');
    const toggle = h('button', { type: 'button', class: 'btn-link turn-toggle', 'aria-expanded': 'false', 'aria-controls': bodyId, text: 'Show all' });
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      toggle.textContent = open ? 'Show less' : 'Show all';
      body.classList.toggle('is-collapsed', !open);
    });
    figure.append(toggle);
  }
  return figure;
}

/**
 * The card of a session that waits for the person in its terminal: what for, and Claude Code's
 * words. Nothing here answers it, and it has no deadline to count down.
 * @param {AskView} view its `terminalWait` is set
 */
export function buildTerminalWaitCard(view) {
  const wait = view.terminalWait ?? { kind: '', message: '' };
  const titleId = uid('ask-title');
  const askId = uid('wait-ask');
  const root = h('article', { class: 'card terminal-wait', 'data-kind': 'terminal-wait', 'data-question-id': view.id, 'data-status': 'pending', 'aria-labelledby': `${askId} ${titleId}` });
  const { head, age, countdown, countdownTime } = cardHead(view, titleId);
  countdown.hidden = true;
  const context = h('div', { class: 'context' });
  const ask = h('p', { class: 'turn-ask', id: askId, tabindex: '-1', text: terminalWaitHeadline(wait.kind) });
  const message = String(wait.message ?? '');
  const body = h(
    'section',
    { class: 'turn-body', 'aria-labelledby': askId },
    ask,
    message.trim() === '' ? null : h('figure', { class: 'turn-said' }, h('figcaption', { class: 'turn-said-caption', text: 'Claude Code says' }), h('p', { class: 'wait-message', dir: 'auto' }, visibleNodes(message))),
    h('p', { class: 'wait-note', text: 'Nothing here answers it: go to that terminal. This card leaves once the session moves on.' }),
  );
  root.replaceChildren(head, context, body);
  const form = h('form', { hidden: true });

  const card = {
    id: view.id,
    root,
    titleId,
    age,
    countdown,
    countdownTime,
    saysWhat: false,
    form,
    /** @type {HTMLButtonElement[]} */
    buttons: [],
    /** @param {AskView} next */
    showContext(next) {
      context.replaceChildren(...aboutNodes(next));
      context.hidden = context.childElementCount === 0;
    },
    /** @param {string} text */
    showError(text) {
      void text;
    },
    hideError() {},
    setBusy() {},
    focusFirst() {
      ask.focus({ preventScroll: false });
    },
    pick() {},
  };
  card.showContext(view);
  return card;
}

/** What the switch promises where the end of a turn reaches askbridge everywhere. */
const AWAY_HINT = 'While away, when Claude finishes a turn it waits here for your reply.';

/**
 * What the hint beside the switch says, from where the end of a turn reaches askbridge on the
 * daemon's machine: it promises only what the wiring delivers, and names the command that adds the
 * rest (as code, which breaks anywhere rather than spill out of a phone's top bar). Where it does
 * not reach everywhere, the first sentence says so and the rest folds under it: open on a desk,
 * closed on a phone, where the top bar stays on screen and must stay short.
 * @param {TurnEndReach} turnEnds
 * @returns {Array<string | Node>}
 */
function awayHint(turnEnds) {
  /** @param {string} command */
  const fix = (command) => h('code', { class: 'away-fix', text: command });
  /** @param {string} summary @param {Array<string | Node>} rest */
  const fold = (summary, rest) => h('details', { class: 'away-more', open: !matchMedia('(max-width: 600px)').matches }, h('summary', { text: summary }), ...rest);
  if (turnEnds.reach === 'nowhere') return [fold('The end of a turn does not reach askbridge here.', [' Nothing waits for your reply. To add it, run: ', fix(turnEnds.fix ?? 'askbridge install --user')])];
  if (turnEnds.reach === 'partly') {
    const places = turnEnds.gaps.length === 1 ? 'one place' : `${turnEnds.gaps.length} places`;
    return [fold(`${AWAY_HINT} Not from ${places}:`, turnEnds.gaps.flatMap((gap, index) => [index > 0 ? '; ' : ' ', `${gap.path} (run: `, fix(gap.fix), ')']))];
  }
  return [AWAY_HINT];
}

/**
 * The away switch in the top bar. It shows the daemon's state (its `away` message, on every page)
 * and changes it with PUT /api/away; until the daemon has said, and while the page is not live, it
 * is off limits. Where the end of a turn reaches askbridge nowhere, it cannot be turned on (only off).
 * @param {{ root: HTMLElement; button: HTMLElement; hint: HTMLElement; error: HTMLElement; announce(text: string): void }} parts
 */
export function createAwaySwitch({ root, button, hint, error, announce }) {
  /** @type {boolean | null} */
  let away = null;
  /** @type {TurnEndReach} */
  let turnEnds = { reach: 'everywhere', gaps: [] };
  let live = false;
  let busy = false;

  function render() {
    button.setAttribute('aria-checked', String(away === true));
    /** @type {HTMLButtonElement} */ (button).disabled = away === null || !live || (turnEnds.reach === 'nowhere' && away !== true);
    button.setAttribute('aria-busy', String(busy));
    root.dataset.away = String(away === true);
    root.dataset.reach = turnEnds.reach;
    // Drawn again only when what it says changes, so a fold the person opened stays open.
    const said = JSON.stringify(turnEnds);
    if (hint.dataset.said !== said) {
      hint.dataset.said = said;
      hint.replaceChildren(...awayHint(turnEnds));
    }
  }

  button.addEventListener('click', async () => {
    if (away === null || !live || busy) return;
    busy = true;
    error.hidden = true;
    error.textContent = '';
    render();
    const result = await putAway(!away);
    busy = false;
    if (result.ok) {
      away = result.data.away;
      turnEnds = result.data.turnEnds;
      announce(away ? 'Away: when Claude finishes a turn, it waits here for your reply.' : 'Back: Claude stops at the end of each turn, as usual.');
    } else {
      const why = result.status === 0 ? 'askbridge could not be reached' : (result.data?.error.message ?? `HTTP ${result.status}`);
      error.textContent = `Away was not changed: ${why}.`;
      error.hidden = false;
    }
    render();
  });
  render();

  return {
    /**
     * @param {boolean} value what the daemon says
     * @param {TurnEndReach} reach where the end of a turn reaches askbridge
     */
    show(value, reach) {
      away = value;
      turnEnds = reach;
      render();
    },
    /** Whether the daemon last said the person is away. */
    isAway: () => away === true,
    /** @param {boolean} value whether the page is live (else the state shown may be old) */
    setLive(value) {
      live = value;
      render();
    },
  };
}
