// @ts-check
// History in the page: finished questions, newest first, searchable, each with who or what settled
// it, with what, and when; exported as JSON or CSV by the daemon (GET /api/history).
import { agentNameOf, historyFile, readHistory } from './api.js';
import { projectName } from './ask-form.js';
import { h, togglePanel } from './dom.js';
import { KIND_LABELS } from './approval.js';
import { deliveryTitle } from './delivery.js';
import { answerRow } from './finished.js';
import { PLAN_TOOL } from './tool-input.js';
import { saidShort, TURN_LABELS } from './turn-end.js';
import { markInvisible, visibleNodes } from './visible-text.js';

/** @typedef {import('../history-file.js').HistoryLine} HistoryLine */

const LIMIT = 200;
const SEARCH_DELAY_MS = 200;

/** History's words for who or what settled a question, as a person reads them. */
const SOURCES = {
  person: 'answered by a person',
  rule: 'answered by a rule',
  recommended: 'the recommended option, by policy',
  declined: 'declined',
  terminal: 'handed to the terminal',
  cancelled: 'withdrawn',
  expired: 'nobody answered in time',
  failed: 'failed',
  lost: 'not recorded',
};

/**
 * The History panel (its button in the top bar opens it).
 * @param {{ toggle: HTMLElement; section: HTMLElement }} parts
 */
export function initHistory({ toggle, section }) {
  const search = /** @type {HTMLInputElement} */ (section.querySelector('#history-search'));
  const list = /** @type {HTMLElement} */ (section.querySelector('#history-list'));
  const status = /** @type {HTMLElement} */ (section.querySelector('#history-status'));
  let timer = 0;
  let asked = 0;

  const panel = togglePanel(toggle, section, {
    onOpen: () => {
      void load();
      search.focus();
    },
  });
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => void load(), SEARCH_DELAY_MS);
  });
  for (const button of section.querySelectorAll('[data-export]')) {
    button.addEventListener('click', () => void exportAs(/** @type {HTMLElement} */ (button).dataset.export === 'csv' ? 'csv' : 'json'));
  }

  async function load() {
    const ask = ++asked;
    status.textContent = 'Loading…';
    const result = await readHistory({ q: search.value.trim(), limit: LIMIT });
    if (ask !== asked) return; // a newer search is on its way
    if (!result.ok) {
      status.textContent = result.status === 0 ? 'Could not reach askbridge.' : `Could not read the history (HTTP ${result.status}).`;
      list.replaceChildren();
      return;
    }
    const { entries, localOnly } = result.data;
    const query = search.value.trim();
    status.textContent = entries.length === 0 ? (query ? 'Nothing matches.' : 'Nothing finished yet.') : countText(entries.length, query !== '');
    // With a shared store that cannot be reached, the daemon read only its own history: said under the count.
    if (localOnly) status.append(h('span', { class: 'history-local-only', text: ` Only this daemon's history: the shared store cannot be reached (${localOnly.reason}).` }));
    list.replaceChildren(...entries.map(entryNode));
  }

  /** @param {'json' | 'csv'} format */
  async function exportAs(format) {
    const response = await historyFile({ q: search.value.trim(), limit: 5000, format });
    if (!response) {
      status.textContent = 'Could not reach askbridge.';
      return;
    }
    if (!response.ok) {
      status.textContent = `Export failed (HTTP ${response.status}).`;
      return;
    }
    const url = URL.createObjectURL(await response.blob());
    const link = h('a', { href: url, download: `askbridge-history.${format}`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  return panel;
}

/**
 * How many are shown: "14 finished questions", "1 matching question", "The newest 200 finished questions"
 * (the list stops at LIMIT).
 * @param {number} count
 * @param {boolean} searched
 */
function countText(count, searched) {
  const what = `${searched ? 'matching' : 'finished'} question${count === 1 ? '' : 's'}`;
  return count === LIMIT ? `The newest ${LIMIT} ${what}` : `${count} ${what}`;
}

/**
 * Who decided, once people are defined: " by alice on Pixel 8", " by carol from Telegram" (the
 * daemon's lineDeciderWords); nothing without a person.
 * @param {HistoryLine} entry
 */
function deciderNode(entry) {
  if (entry.person === undefined) return null;
  // History's detail names the client a person used: "telegram", or "person via telegram".
  const where = entry.detail?.endsWith('telegram') ? ' from Telegram' : entry.device === undefined ? '' : ` on ${entry.device}`;
  return h('span', { class: 'history-by' }, ' by ', visibleNodes(`${entry.person}${where}`));
}

/** @param {HistoryLine} entry */
function entryNode(entry) {
  const answers = entry.answers ?? {};
  const notes = entry.notes ?? {};
  const when = new Date(entry.finishedAt);
  const approval = entry.approval;
  const turnEnd = entry.turnEnd;
  // An approval's or a turn end's line says itself how it ended (approvalLine, turnEndLine): the head says only who decided.
  const answeredInTerminal = approval && entry.status === 'cancelled' && entry.source === 'terminal';
  const byPerson = entry.source === 'person';
  // Who asked: the agent (a line from before agents were named is Claude Code's), or the script or MCP client.
  const who = entry.asker ? `${entry.asker.kind === 'mcp' ? 'MCP client' : 'script'} ${entry.asker.name}` : agentNameOf(entry);
  let source = answeredInTerminal ? 'in the terminal' : approval && byPerson ? 'decided by a person' : (SOURCES[/** @type {keyof typeof SOURCES} */ (entry.source)] ?? String(entry.source));
  let detail = answeredInTerminal ? undefined : entry.detail;
  if (turnEnd) {
    source = byPerson ? 'by a person' : 'without a reply';
    detail = byPerson ? entry.detail : undefined;
  }
  return h(
    'li',
    { class: 'history-entry', 'data-status': String(entry.status) },
    h(
      'p',
      { class: 'history-head' },
      h('span', { class: 'history-project', title: entry.project ? markInvisible(entry.project) : null }, visibleNodes(projectName(entry.project))),
      h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }),
      h('span', { class: 'history-agent' }, visibleNodes(who)),
      h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }),
      h('span', { class: 'history-source' }, source, detail ? h('span', { class: 'history-detail' }, ' (', visibleNodes(detail), ')') : null, deciderNode(entry)),
      h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }),
      h('time', { datetime: Number.isNaN(when.getTime()) ? null : when.toISOString(), text: Number.isNaN(when.getTime()) ? '' : when.toLocaleString() }),
    ),
    deliveryLine(entry),
    turnEnd
      ? turnEndLine(entry, turnEnd)
      : approval
      ? approvalLine(entry, approval)
      : h(
          'dl',
          { class: 'answers' },
          entry.questions.map((q) => answerRow(q.header, q.question, Object.hasOwn(answers, q.question) ? String(answers[q.question]) : undefined, Object.hasOwn(notes, q.question) ? notes[q.question] : undefined)),
        ),
  );
}

/**
 * A relayed decision's line says whether it reached its agent: "Answered, not yet delivered to
 * Codex", "Not delivered: WHY" (the relay's words); nothing for any other line.
 * @param {HistoryLine} entry
 */
function deliveryLine(entry) {
  const title = deliveryTitle(entry);
  return title === null ? null : h('p', { class: 'history-delivery', dir: 'auto' }, visibleNodes(title));
}

/**
 * How an approval ended, in one line: "Allowed once: Bash npm test", "Denied: Bash rm -rf build",
 * "Answered in the terminal: Edit src/app.ts"; why it was risky (the reasons its line keeps, in the
 * danger colours, as its card showed them); and the message sent with a deny. History keeps a
 * suggestion by its words (the list it indexed is gone) and the call by what it acts on.
 * @param {HistoryLine} entry
 * @param {NonNullable<HistoryLine['approval']>} approval
 */
function approvalLine(entry, approval) {
  const decision = entry.decision;
  const plan = approval.toolName === PLAN_TOOL;
  const status = String(entry.status);
  let outcome;
  if (status === 'allowed' || status === 'denied') {
    const allowed = status === 'allowed';
    const interrupt = decision?.interrupt === true;
    if (allowed) outcome = `${plan ? 'Plan approved' : decision?.suggestion ? 'Allowed' : 'Allowed once'}${decision?.suggestion ? ` (${markInvisible(decision.suggestion)})` : ''}`;
    else if (plan) outcome = interrupt ? 'Plan rejected, Claude stopped' : 'Plan sent back with changes';
    else outcome = interrupt ? 'Denied and stopped' : 'Denied';
  } else if (status === 'handed-to-terminal') outcome = 'Left to the terminal';
  else if (status === 'cancelled' && entry.source === 'terminal') outcome = 'Answered in the terminal';
  else if (status === 'cancelled') outcome = 'Withdrawn';
  else outcome = `Finished (${status})`;
  const kind = plan ? 'plan' : 'permission';
  const what = plan ? `Plan${approval.target ? `: ${approval.target}` : ''}` : `${approval.toolName}${approval.target ? ` ${approval.target}` : ''}`;
  const message = decision?.behavior === 'deny' && decision.message ? decision.message : null;
  const risk = Array.isArray(approval.risk) && approval.risk.length > 0 ? approval.risk : null;
  return h(
    'div',
    { class: 'history-approval' },
    h(
      'p',
      { class: 'history-decision' },
      h('span', { class: 'kind-badge', 'data-kind': kind, text: KIND_LABELS[kind] }),
      ' ',
      h('strong', { text: outcome }),
      ': ',
      h('span', { class: 'history-tool', dir: 'auto', title: markInvisible(what) }, visibleNodes(what)),
    ),
    risk ? h('p', { class: 'history-risk', dir: 'auto' }, h('strong', { text: 'Risky: ' }), visibleNodes(risk.join('; '))) : null,
    message ? h('p', { class: 'answer-note', dir: 'auto' }, visibleNodes(`Message: ${message}`)) : null,
  );
}

/**
 * How the end of a turn ended, in words, from what its history line keeps: its status, and who or
 * what settled it (history's source and detail).
 * @param {HistoryLine} entry
 */
function turnEndOutcome(entry) {
  const detail = String(entry.detail ?? '');
  switch (String(entry.status)) {
    case 'replied':
      return 'Replied';
    case 'done':
      return entry.source === 'person' ? 'Done: Claude stopped' : 'Claude Code’s limit on replies in a row was reached: Claude stopped';
    case 'handed-to-terminal':
      if (entry.source === 'expired') return 'No reply in time: Claude stopped';
      if (detail.includes('came back')) return 'You came back: Claude stopped';
      if (detail.includes('daemon stopped')) return 'askbridge stopped: Claude stopped';
      return 'Claude stopped';
    case 'cancelled':
      if (entry.source === 'terminal') return 'You typed in the terminal: your prompt went to Claude';
      if (detail.includes('session ended')) return 'Withdrawn: the session ended';
      return 'Stopped in the terminal (Esc)';
    default:
      return `Finished (${String(entry.status)})`;
  }
}

/**
 * The end of a turn, in History: how it ended, what Claude said (the start of its last message), and
 * the person's reply in their own words.
 * @param {HistoryLine} entry
 * @param {NonNullable<HistoryLine['turnEnd']>} turnEnd
 */
function turnEndLine(entry, turnEnd) {
  const said = typeof turnEnd.said === 'string' ? saidShort(turnEnd.said, Number.POSITIVE_INFINITY) : '';
  const reply = entry.status === 'replied' && typeof entry.reply === 'string' ? entry.reply : null;
  return h(
    'div',
    { class: 'history-turn' },
    h('p', { class: 'history-decision' }, h('span', { class: 'kind-badge', 'data-kind': 'turn-end', text: TURN_LABELS['turn-end'] }), ' ', h('strong', { text: turnEndOutcome(entry) })),
    h('p', { class: 'history-said' }, 'Claude said: ', said ? h('span', { dir: 'auto', title: markInvisible(said) }, visibleNodes(said)) : h('em', { text: 'nothing' })),
    reply === null ? null : h('p', { class: 'history-reply' }, h('span', { class: 'reply-label', text: 'Your reply: ' }), h('span', { class: 'reply-words', dir: 'auto' }, visibleNodes(reply))),
  );
}
