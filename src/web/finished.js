// @ts-check
// How a finished question set is shown: who or what settled it, and what Claude received.
import { agentNameOf } from './api.js';
import { projectName } from './ask-form.js';
import { deliveryTitle } from './delivery.js';
import { h, withCode } from './dom.js';
import { toolSummary } from './tool-input.js';
import { saidShort } from './turn-end.js';
import { twoPeopleLine } from '../two-people.js';
import { markInvisible, visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../protocol.js').Approval} Approval */
/** @typedef {import('../protocol.js').ApprovalDecision} ApprovalDecision */
/**
 * How it came to end here: by this tab (`mine`), before this tab's own answer arrived (`conflict`,
 * with the reply that was not sent, `unsent`), or while this page was not connected (`gone`).
 * @typedef {{ mine?: boolean; conflict?: boolean; gone?: boolean; unsent?: string }} How
 */

const TRIGGERS = { timeout: 'after the timeout', immediately: 'immediately', 'nobody-watching': 'because no page was open', 'nobody-reachable': 'because nobody could be told' };

/** Where a person answered, when not in this tab: words that follow "Answered" or "Allowed". */
const PLACES = { cli: 'from the CLI', telegram: 'from Telegram', ntfy: 'from an ntfy notification', notification: 'from a notification' };

/**
 * @param {Record<string, any>} source
 * @returns {string} where, e.g. "from Telegram"; another page is "in another tab"; once people are
 *   defined, who and where: "by alice on Pixel 8", "by carol from Telegram" (the daemon's deciderWords)
 */
function placeOf(source) {
  if (typeof source.person === 'string') {
    if (source.client === 'telegram') return `by ${source.person} from Telegram`;
    return typeof source.device === 'string' ? `by ${source.person} on ${source.device}` : `by ${source.person}`;
  }
  return Object.hasOwn(PLACES, source.client) ? PLACES[/** @type {keyof typeof PLACES} */ (source.client)] : 'in another tab';
}

/** @param {Record<string, unknown>} source */
function policyText(source) {
  const action = typeof source.action === 'string' ? source.action : 'policy';
  return `${action}${typeof source.rule === 'string' && source.rule ? `, rule ${source.rule}` : ''}`;
}

/** An own property only: a question may be called `constructor` or `__proto__`. */
function own(record, key) {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * The headline and a detail line for a finished question set.
 * @param {AskView} view
 * @param {How} how
 * @returns {{ title: string; detail: string | null }}
 */
function describe(view, how) {
  const source = /** @type {Record<string, any>} */ (view.source && typeof view.source === 'object' ? view.source : {});
  if (how.gone) return { title: 'No longer pending', detail: 'It was settled while this page was not connected.' };
  const byPolicy = source.kind === 'policy';
  const trigger = /** @type {string | undefined} */ (TRIGGERS[/** @type {keyof typeof TRIGGERS} */ (source.trigger)]);
  const policyDetail = byPolicy ? `${`By policy (${policyText(source)}) ${trigger ?? ''}`.trim()}.` : null;
  const lateDetail = how.conflict ? 'This happened before your answer arrived.' : source.kind === 'daemon-stopped' ? 'askbridge was stopped.' : null;
  if (view.approval) return describeApproval(view, how, source, policyDetail ?? lateDetail);
  if (view.turnEnd) return describeTurnEnd(view, how, source);
  if (view.elicitation) return describeElicitation(view, how, source, policyDetail ?? lateDetail);
  switch (view.status) {
    case 'answered': {
      let title = 'Answered';
      if (byPolicy) title = `Answered by policy (${policyText(source)})`;
      else if (!how.mine && source.kind === 'person') title = `Answered ${placeOf(source)}`;
      if (how.conflict) {
        const where = title === 'Answered' ? '' : title.replace(/^Answered /, '');
        return { title: 'Already answered elsewhere', detail: where ? `It was answered ${where} first.` : null };
      }
      return { title, detail: byPolicy && trigger ? `Chosen ${trigger}.` : null };
    }
    case 'declined':
      return { title: 'Declined', detail: policyDetail ?? lateDetail };
    case 'handed-to-terminal':
      return { title: 'Handed to the terminal', detail: policyDetail ?? lateDetail };
    case 'cancelled':
      if (source.kind === 'session-ended') return { title: 'Withdrawn: the session ended', detail: lateDetail };
      if (source.kind === 'terminal') return { title: 'Answered in the terminal', detail: lateDetail };
      return { title: 'Withdrawn: the question was cancelled in the terminal', detail: lateDetail };
    case 'failed':
      return { title: 'Failed: the terminal asks instead', detail: typeof view.error === 'string' && view.error ? `The answer could not be delivered: ${view.error}.` : lateDetail };
    default:
      return { title: `Finished (${String(view.status)})`, detail: policyDetail ?? lateDetail };
  }
}

/**
 * The headline and detail for a finished approval: how it was decided, and by whom when not by this tab.
 * @param {AskView} view
 * @param {How} how
 * @param {Record<string, any>} source
 * @param {string | null} otherDetail what the policy did, or why it ended without a person
 * @returns {{ title: string; detail: string | null }}
 */
function describeApproval(view, how, source, otherDetail) {
  const where = source.kind === 'person' && !how.mine ? placeOf(source) : '';
  const first = how.conflict ? 'It was decided elsewhere before your choice arrived.' : null;
  const plan = view.approval?.toolName === 'ExitPlanMode';
  switch (view.status) {
    case 'allowed':
    case 'denied': {
      const title = `${decisionText(view)}${where ? ` ${where}` : ''}`;
      if (how.conflict) return { title: `Already decided: ${title[0]?.toLowerCase()}${title.slice(1)}`, detail: first };
      return { title, detail: otherDetail };
    }
    case 'handed-to-terminal':
      return { title: 'Left to the terminal', detail: how.conflict ? first : otherDetail };
    case 'failed':
      return { title: 'Failed: the terminal decides instead', detail: typeof view.error === 'string' && view.error ? `The decision could not be delivered: ${view.error}.` : otherDetail };
    case 'cancelled':
      if (source.kind === 'terminal') return { title: 'Answered in the terminal', detail: how.conflict ? 'It was answered in the terminal before your choice arrived.' : null };
      if (source.kind === 'session-ended') return { title: 'Withdrawn: the session ended', detail: otherDetail };
      return { title: plan ? 'Withdrawn: the plan is no longer waiting' : `Withdrawn: ${agentNameOf(view) || 'Claude Code'} stopped waiting`, detail: otherDetail };
    default:
      return { title: `Finished (${String(view.status)})`, detail: otherDetail };
  }
}

/**
 * The headline and detail for an MCP server's request: what the server received, and from where.
 * @param {AskView} view
 * @param {How} how
 * @param {Record<string, any>} source
 * @param {string | null} otherDetail
 * @returns {{ title: string; detail: string | null }}
 */
function describeElicitation(view, how, source, otherDetail) {
  const where = source.kind === 'person' && !how.mine ? ` ${placeOf(source)}` : '';
  const first = how.conflict ? 'It was settled elsewhere before your response arrived.' : otherDetail;
  switch (view.status) {
    case 'answered':
      return { title: `${view.elicitation?.mode === 'url' ? 'Done' : 'Accepted'}${where}`, detail: first };
    case 'declined':
      return { title: `Declined${where}`, detail: first };
    case 'cancelled':
      if (source.kind === 'person') return { title: `Cancelled${where}`, detail: first };
      if (source.kind === 'terminal') return { title: 'Let go: the session moved on', detail: 'Nothing more reaches the server from here.' };
      return { title: 'Withdrawn: Claude Code stopped waiting', detail: first };
    case 'handed-to-terminal':
      return { title: 'Left to the terminal', detail: how.conflict ? 'It was left to the terminal before your response arrived.' : otherDetail ?? "Claude Code's own dialog asks there." };
    case 'failed':
      return { title: "Failed: Claude Code's own dialog asks instead", detail: typeof view.error === 'string' && view.error ? view.error : otherDetail };
    default:
      return { title: `Finished (${String(view.status)})`, detail: otherDetail };
  }
}

/**
 * The headline and detail for the end of a turn: how the person replied, or why Claude stopped.
 * @param {AskView} view
 * @param {How} how
 * @param {Record<string, any>} source
 * @returns {{ title: string; detail: string | null }}
 */
function describeTurnEnd(view, how, source) {
  const place = placeOf(source);
  const where = source.kind === 'person' && !how.mine ? `${place[0]?.toUpperCase()}${place.slice(1)}.` : null;
  const tooLate = how.unsent ? 'Your reply arrived after that, and was not sent.' : 'Your Done arrived after that, and changed nothing.';
  const late = how.conflict ? `${where ? `${where} ` : ''}${tooLate}` : null;
  switch (view.status) {
    case 'replied':
      return { title: 'Replied', detail: late ?? where };
    case 'done':
      if (source.kind === 'policy') {
        const limit = view.turnEnd?.replyLimit;
        return { title: 'Claude Code’s limit on replies in a row was reached: Claude stopped', detail: `${typeof limit === 'number' ? `It takes ${limit} in a row. ` : ''}CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in Claude Code’s environment raises the limit.` };
      }
      return { title: 'Done: Claude stopped', detail: late ?? where };
    case 'handed-to-terminal':
      if (source.kind === 'back') return { title: 'You came back: Claude stopped', detail: late };
      if (source.kind === 'daemon-stopped') return { title: 'askbridge stopped: Claude stopped', detail: late };
      if (source.kind === 'policy') return { title: 'No reply in time: Claude stopped', detail: late };
      return { title: 'Claude stopped', detail: late };
    case 'cancelled':
      if (source.kind === 'terminal') return { title: 'You typed in the terminal: your prompt went to Claude', detail: late };
      if (source.kind === 'hook-gone') return { title: 'Stopped in the terminal (Esc)', detail: late };
      if (source.kind === 'session-ended') return { title: 'Withdrawn: the session ended', detail: late };
      return { title: 'Withdrawn', detail: late };
    case 'failed':
      return { title: 'Failed: the reply could not be delivered', detail: typeof view.error === 'string' && view.error ? `${view.error}.` : late };
    default:
      return { title: `Finished (${String(view.status)})`, detail: late };
  }
}

/**
 * What Claude said (its start, on one line) and the person's reply, in their own words; or the
 * reply that arrived too late, so that it is not lost.
 * @param {AskView} view
 * @param {How} how
 */
function turnEndSummary(view, how) {
  const said = saidShort(view.turnEnd?.lastMessage ?? '');
  const reply = view.status === 'replied' && typeof view.reply === 'string' ? view.reply : null;
  return h(
    'dl',
    { class: 'answers turn-summary' },
    h(
      'div',
      { class: 'answer-row' },
      h('dt', { class: 'answer-q' }, 'Claude said: ', said ? h('span', { dir: 'auto' }, visibleNodes(said)) : h('em', { text: 'nothing' })),
      reply === null ? null : h('dd', { class: 'answer-a' }, h('span', { class: 'reply-label', text: 'Your reply: ' }), h('span', { class: 'reply-words', dir: 'auto' }, visibleNodes(reply))),
      how.unsent ? h('dd', { class: 'answer-note' }, 'Not sent: ', h('span', { class: 'unsent-words', dir: 'auto' }, visibleNodes(how.unsent))) : null,
    ),
  );
}

/**
 * An approval's decision in words: "Allowed once", "Allowed: Always allow npm test", "Denied and stopped".
 * @param {{ status: string; decision?: ApprovalDecision; approval?: Approval }} outcome
 */
function decisionText(outcome) {
  const decision = outcome.decision;
  const plan = outcome.approval?.toolName === 'ExitPlanMode';
  if (outcome.status === 'allowed' || decision?.behavior === 'allow') {
    const index = decision?.behavior === 'allow' ? decision.suggestion : undefined;
    if (index === undefined) return plan ? 'Plan approved' : 'Allowed once';
    const label = outcome.approval?.suggestions?.[index]?.label;
    return `${plan ? 'Plan approved' : 'Allowed'}: ${typeof label === 'string' ? markInvisible(label) : `suggestion ${index + 1}`}`;
  }
  const interrupt = decision?.behavior === 'deny' && decision.interrupt === true;
  if (plan) return interrupt ? 'Plan rejected, Claude stopped' : 'Plan sent back with changes';
  return interrupt ? 'Denied and stopped' : 'Denied';
}

/**
 * A finished question set: its status, project, and what was asked and answered.
 * @param {AskView} view
 * @param {How} how
 */
export function finishedCard(view, how) {
  // A relayed decision its agent has not taken (yet): what became of it is all there is to say.
  const undelivered = deliveryTitle(view);
  const { title, detail } = undelivered === null ? describe(view, how) : { title: undelivered, detail: undefined };
  const status = undelivered !== null ? (view.delivery === 'waiting' ? 'undelivered' : 'undeliverable') : how.gone ? 'gone' : String(view.status);
  const statusId = `status-${view.id}`;
  const projectId = `project-${view.id}`;
  const age = h('time', { class: 'age' });
  const agent = agentNameOf(view);
  const root = h(
    'article',
    { class: 'card is-finished', 'data-question-id': view.id, 'data-status': status, 'aria-labelledby': `${statusId} ${projectId}` },
    h(
      'header',
      { class: 'finished-head' },
      h('span', { class: 'status-dot', 'aria-hidden': 'true' }),
      h('h3', { class: 'status-title', id: statusId, tabindex: '-1' }, withCode(title)),
      h('p', { class: 'finished-meta' }, h('span', { class: 'project-small', id: projectId, title: view.cwd ? markInvisible(view.cwd) : null }, visibleNodes(projectName(view.cwd))), h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }), agent ? [h('span', { class: 'finished-agent', text: agent }), h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' })] : null, age),
    ),
    detail ? h('p', { class: 'finished-detail' }, visibleNodes(detail)) : null,
    undelivered !== null ? null : view.approval ? approvalSummary(view) : view.turnEnd ? turnEndSummary(view, how) : view.elicitation ? elicitationSummary(view) : summaryOf(view),
  );
  return { root, age, title, status };
}

/**
 * Who asked, and the values the server received (each field by its title).
 * @param {AskView} view its `elicitation` is set
 */
function elicitationSummary(view) {
  const elicitation = /** @type {NonNullable<AskView['elicitation']>} */ (view.elicitation);
  const content = view.elicitationResult?.content ?? {};
  const who = h('p', { class: 'finished-detail' }, 'MCP server ', h('strong', { dir: 'auto' }, visibleNodes(elicitation.server)), elicitation.mode === 'url' ? [', a link to ', h('strong', { dir: 'ltr' }, visibleNodes(elicitation.host))] : null);
  if (elicitation.mode !== 'form' || view.status !== 'answered') return who;
  const list = h('dl', { class: 'answers' });
  for (const field of elicitation.form.fields) {
    if (!Object.hasOwn(content, field.name)) continue;
    const value = content[field.name];
    list.append(answerRow('', String(field.title ?? field.name), Array.isArray(value) ? value.join(', ') : String(value), undefined));
  }
  return h('div', null, who, list);
}

/**
 * One question of a finished set (here and in History): its header and text, the answer Claude
 * received (`undefined`: none), and the note the person added to it.
 * @param {string} header
 * @param {string} question
 * @param {string | undefined} answer
 * @param {unknown} note
 */
export function answerRow(header, question, answer, note) {
  return h(
    'div',
    { class: 'answer-row' },
    h('dt', { class: 'answer-q' }, header ? h('span', { class: 'chip chip-small' }, visibleNodes(header)) : null, h('span', { dir: 'auto' }, visibleNodes(question))),
    h('dd', { class: answer === undefined ? 'answer-a answer-none' : 'answer-a', dir: 'auto' }, answer === undefined ? 'Not answered' : visibleNodes(answer)),
    typeof note === 'string' && note ? h('dd', { class: 'answer-note', dir: 'auto' }, visibleNodes(`Note: ${note}`)) : null,
  );
}

/**
 * What was asked (the tool in one line) and the message sent with a deny.
 * @param {AskView} view
 */
function approvalSummary(view) {
  const approval = /** @type {Approval} */ (view.approval);
  const decision = view.decision;
  const message = decision?.behavior === 'deny' && typeof decision.message === 'string' && decision.message !== '' ? decision.message : null;
  // Where two people had to allow it: who did, and when (both, once it was allowed).
  const two = twoPeopleLine(view);
  return h(
    'dl',
    { class: 'answers approval-summary' },
    h(
      'div',
      { class: 'answer-row' },
      h('dt', { class: 'answer-q', dir: 'auto' }, visibleNodes(toolSummary(approval))),
      h('dd', { class: 'answer-a' }, view.status === 'allowed' || view.status === 'denied' ? withCode(decisionText(view)) : 'Not decided here'),
      message ? h('dd', { class: 'answer-note', dir: 'auto' }, visibleNodes(`Message: ${message}`)) : null,
      two === undefined ? null : h('dd', { class: 'answer-note two-people', text: two }),
    ),
  );
}

/**
 * What was asked and, when answered, what was answered.
 * @param {AskView} view
 */
function summaryOf(view) {
  const answers = view.answers && typeof view.answers === 'object' ? view.answers : {};
  const notes = view.notes && typeof view.notes === 'object' ? view.notes : {};
  const list = h('dl', { class: 'answers' });
  const shown = new Set();
  /** @param {string} header @param {string} question @param {string | undefined} answer @param {unknown} note */
  const row = (header, question, answer, note) => list.append(answerRow(header, question, answer, note));
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
