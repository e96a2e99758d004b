// The interactive answer to one question set, for `askbridge answer` and `askbridge watch`: what the
// page shows of it first (the project, the git branch, the session and its title, the machine, what
// Claude said just before asking, how long ago it was asked and the time left), then each question
// in turn (its options, "Other" for free text, an optional note), then a review where any answer can
// be changed, then one submit: the same request as `answer --pick`. A single single-select question
// takes one key, as Claude Code's own dialog does: its number (or Enter) answers and sends at once,
// unless `confirm` asks for the whole flow. In every list, `d` declines and `t` lets the terminal
// answer (Claude Code's asks only: a script has no terminal behind it), as the page's buttons do, and
// `c` shows the context in full; `r`, where the caller offers it (`watch`) and two or more
// permissions wait, leaves a permission's list for Review all (answer-all.ts). Nothing is sent
// otherwise. Esc or Ctrl+C at any step ends the flow with nothing sent, and the caller decides what
// that means; `stop` (the question was settled elsewhere, or the daemon went away) ends it at once.
// A key pressed close to the deadline asks the daemon for more time, as the page does. A permission or a plan Claude Code asks to have allowed
// shows the tool and its whole input (approval-text.ts), then the choices of Claude Code's own
// dialog: allow once (approve, for a plan), each of its suggestions, deny with an optional message
// (for a plan: what to change, required), deny and stop; a number decides at once, as there, unless
// `confirm` asks first; `t` and `c` are as for questions. The end of Claude's turn (while the person
// is away) shows Claude's last message whole, then one line for the reply: Enter sends it and Claude
// goes on; an empty line or /done lets Claude stop (POST /api/sessions/:id/reply, naming this turn's
// end). An MCP server's request for input (a form, field by field, or a link) is elicitation-flow.ts's,
// on the same context, lists and keys (runInteractively).
// Model text is shown with every invisible character as a marker, and wrapped under the side bar, so
// that none of it starts a line of its own.
import { PassThrough } from 'node:stream';
import { styleText } from 'node:util';
import { wrapTextWithPrefix } from '@clack/core';
import { cancel, intro, log, outro, S_BAR, S_INFO, S_STEP_SUBMIT } from '@clack/prompts';
import { PLAN_TOOL } from '../approvals.js';
import { askbridgeCommand } from '../command-name.js';
import { agentName } from '../agents.js';
import { GRANT_DURATIONS } from '../grant-text.js';
import { AskReplySchema, ErrorReplySchema, LIMITS, REPLY_CHARS, TooLateReplySchema, type AnswerRequest, type Approval, type ApprovalDecision, type AskView, type GrantChoice, type SessionContext, type TurnEnd } from '../protocol.js';
import { shorten } from '../shorten.js';
import { markInvisible, terminalText } from '../visible-text.js';
import { CLI_MAY_ONLY_DENY, needsTwoPeople, twoPeopleLine } from '../two-people.js';
import { approvalLine, speakerOf, toolInputText } from '../approval-text.js';
import type { DaemonClient } from './client.js';
import { askText, dropTypeAhead, newKeyHold, pickOne, pickSome, type KeyHold, type LetterKey, type ListItem, type Pressed, type PromptEnd, type Run } from './prompts.js';
import { readReply } from './replies.js';
import { isLastReply, LAST_REPLY_NOTE } from './turn-end-text.js';

/**
 * How the flow ended: `sent` (the daemon took the answer), `declined` and `handed` (the person
 * declined, or cancelled an MCP server's request, or let the terminal answer), `left` (Esc or Ctrl+C: nothing sent; the caller says what
 * happens next), `stopped` (`stop` aborted it: the caller knows why and says so), `too-late` (settled
 * just before the request arrived: `ask` says how), `failed` (the daemon could not use the answer;
 * said on screen), `review-all` (the key that opens Review all, offered with `reviewAll`: nothing
 * sent, the caller opens it).
 */
export type FlowEnd =
  | { kind: 'sent' }
  | { kind: 'declined' }
  | { kind: 'handed' }
  | { kind: 'left'; by: 'escape' | 'ctrl-c' }
  | { kind: 'stopped' }
  | { kind: 'too-late'; ask: AskView }
  | { kind: 'failed' }
  | { kind: 'review-all' };

/** The question set as the live feed reports it while the flow runs (more time, its session's context). */
export type AskUpdates = { subscribe(listener: (ask: AskView) => void): () => void };

/** Where the caller hands the live feed's news of a question set to the flow that shows it. */
export function askUpdates(): AskUpdates & { publish(ask: AskView): void } {
  const listeners = new Set<(ask: AskView) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(ask) {
      for (const listener of listeners) listener(ask);
    },
  };
}

export type FlowOptions = {
  /** The other question sets waiting (those skipped not counted), and how many were skipped. */
  waiting: { after: number; skipped: number };
  /** A single choice goes through the note and the review too, and a decline or a hand-back asks first. */
  confirm: boolean;
  /** What Esc does, as the footer says it: `leave` (`answer` ends) or `skip` (`watch` goes on to the next). */
  escape: 'leave' | 'skip';
  updates?: AskUpdates | undefined;
  /** How many permissions a review of all would show now: with two or more, a permission's list offers the key that opens it (`watch`). */
  reviewAll?: (() => number) | undefined;
};

/** One question's answer while the flow runs: the options picked (by index), the free text, the note. */
type Draft = { picked: number[]; other: string | null; notes: string | null };

type Question = AskView['questions'][number];

/** Text from a model (or anything a person pasted) for the terminal: markers for invisible characters, tabs as spaces. */
export function shown(text: string): string {
  return markInvisible(text).replace(/\t/g, '  ');
}

/** What Claude said is shortened to this many characters until shown in full, as on the page. */
export const SAID_SHORT_CHARS = 280;
/** The session's title (its first prompt) is shortened to this many characters until shown in full. */
export const TITLE_SHORT_CHARS = 80;

/** The letter keys of every list, as the footer names them. */
const KEY = {
  decline: { key: 'd', hint: 'd declines', pressed: 'Decline' },
  // Claude Code's words; another agent's name where the ask goes back to (lettersOf).
  terminal: { key: 't', hint: 't lets the terminal answer', pressed: 'Let the terminal answer' },
  context: { key: 'c', hint: 'c shows all the context', pressed: 'The context, in full, below' },
  // Said on the first line of the footer, beside the keys it changes.
  note: { key: 'n', hint: '', pressed: 'A note first' },
  // Its hint names how many wait (lettersOf).
  reviewAll: { key: 'r', hint: '', pressed: 'Review all' },
} as const satisfies Record<string, LetterKey>;

/** One run of the flow: the question set as it is now, the prompt running, and what the screen shows of its context. */
export type Flow = {
  daemon: DaemonClient;
  call: AskView;
  options: FlowOptions;
  stop: AbortSignal;
  onKey: () => void;
  /** The question set as the live feed says it is now. */
  latest: AskView;
  /** The context the screen shows: what the live feed brings beyond it is shown once, in the place of the list running. */
  contextShown: SessionContext | undefined;
  /** While a list runs: ends it with new context in its place (the list is asked again below it). */
  refresh: AbortController | undefined;
  /** This ask's keys choose nothing until it has been on screen, untouched, a moment (prompts.ts): a key meant for the one before never decides it. */
  hold: KeyHold;
};

/** A question set, a permission, a plan or the end of a turn, on screen and answered (an MCP server's request: elicitation-flow.ts's respondInteractively). */
export function answerInteractively(daemon: DaemonClient, call: AskView, stop: AbortSignal, options: FlowOptions): Promise<FlowEnd> {
  return runInteractively(daemon, call, stop, options, runFlow);
}

/**
 * One ask on screen: its context first, then `body` asks it. Meanwhile the live feed's news of it
 * reaches the flow (more time, context that takes a list's place), and keys near the deadline ask
 * for more time.
 */
export async function runInteractively(daemon: DaemonClient, call: AskView, stop: AbortSignal, options: FlowOptions, body: (flow: Flow) => Promise<FlowEnd>): Promise<FlowEnd> {
  const flow: Flow = { daemon, call, options, stop, onKey: moreTimeOnKeys(daemon, call), latest: call, contextShown: call.context, refresh: undefined, hold: newKeyHold() };
  const unsubscribe = options.updates?.subscribe((ask) => {
    if (ask.id !== call.id) return;
    flow.latest = ask;
    // Between lists, the next one shows it first (showNewContext).
    if (!flow.refresh || flow.refresh.signal.aborted) return;
    const text = newContextText(flow.contextShown, ask);
    if (text === undefined) return;
    flow.contextShown = ask.context;
    flow.refresh.abort(text);
  });
  try {
    showHeader(flow);
    await dropTypeAhead();
    return await body(flow);
  } finally {
    unsubscribe?.();
  }
}

async function runFlow(flow: Flow): Promise<FlowEnd> {
  const { call, options } = flow;
  if (call.approval) return decideApproval(flow, call.approval);
  if (call.turnEnd) return replyToTurnEnd(flow, call.turnEnd);

  // One key answers a single single-select question, as in Claude Code's own dialog.
  const quick = !options.confirm && call.questions.length === 1 && call.questions[0]?.multiSelect === false;
  const drafts: Draft[] = [];
  for (const [index, question] of call.questions.entries()) {
    const asked = await askOne(flow, index, question, undefined, quick);
    if ('kind' in asked) return asked;
    drafts.push(asked.draft);
    if (asked.quick) {
      const end = await submit(flow, drafts);
      if (end) return end;
      // Refused: the reason is on screen; the review below keeps the answer to change it.
    }
  }
  for (;;) {
    const choice = await review(flow, drafts);
    if (typeof choice === 'object') return choice;
    if (choice === 'submit') {
      const end = await submit(flow, drafts);
      if (end) return end;
      continue; // refused: the reason is on screen, every answer is kept
    }
    const asked = await askOne(flow, choice, call.questions[choice]!, drafts[choice], false);
    if ('kind' in asked) return asked;
    drafts[choice] = asked.draft;
  }
}

/** With less than this left before the deadline, a key pressed asks the daemon for more time... */
export const MORE_TIME_WHEN_LEFT_MS = 60_000;
/** ...at most this often. */
export const MORE_TIME_EVERY_MS = 30_000;

/**
 * Hears the flow's keys: a person pressing one with less than MORE_TIME_WHEN_LEFT_MS left is
 * answering, so the daemon is asked for more time (POST .../extend), at most once per
 * MORE_TIME_EVERY_MS and never once the question is at its limit. A request that fails changes
 * nothing: the live feed says when the question is settled or the daemon is gone.
 */
export function moreTimeOnKeys(daemon: Pick<DaemonClient, 'request'>, call: AskView, now: () => number = Date.now): () => void {
  const limit = call.extendableUntil;
  let expiresAt = call.expiresAt;
  let askedAt = Number.NEGATIVE_INFINITY;
  return () => {
    const at = now();
    if (limit === undefined || expiresAt >= limit || expiresAt - at >= MORE_TIME_WHEN_LEFT_MS || at - askedAt < MORE_TIME_EVERY_MS) return;
    askedAt = at;
    daemon
      .request('POST', `/api/asks/${call.id}/extend`)
      .then(({ status, body }) => {
        if (status === 200) expiresAt = readReply(AskReplySchema, body, 'reply to more time').ask.expiresAt;
      })
      .catch(() => {});
  };
}

// ---------------------------------------------------------------------------------------------
// What the page shows of a question set, before its questions.

/** A block of lines under the side bar, the first with `symbol`; lines too long for the terminal wrap under the bar. */
export function block(symbol: string, text: string): string {
  const bar = `${styleText('gray', S_BAR)}  `;
  return `${styleText('gray', S_BAR)}\n${wrapTextWithPrefix(process.stdout, text, bar, `${symbol}  `, bar)}`;
}

export function say(symbol: string, text: string): void {
  process.stdout.write(`${block(symbol, text)}\n`);
}

export const INFO = styleText('blue', S_INFO);
export const STEP = styleText('green', S_STEP_SUBMIT);

/** Who asks, for the first line: the agent (Claude Code, Codex, opencode, Gemini CLI), or a script or an MCP client by its name (on one line, shortened). */
function askerName(call: AskView): string {
  if (call.agent !== undefined || !call.asker) return agentName(call.agent ?? 'claude-code');
  return `The ${call.asker.kind === 'mcp' ? 'MCP client' : 'script'} ${markInvisible(shorten(call.asker.name, 60))}`;
}

function showHeader(flow: Flow): void {
  const { call, options } = flow;
  const { after, skipped } = options.waiting;
  const queue = [after > 0 ? `${after} more waiting after this one` : '', skipped > 0 ? `${skipped} skipped` : ''].filter(Boolean).join('; ');
  const asks = call.approval ? (call.approval.toolName === PLAN_TOOL ? 'asks you to approve its plan' : 'asks for a permission') : 'asks';
  const title = call.turnEnd ? 'Claude finished its turn' : call.elicitation ? `The MCP server ${markInvisible(shorten(call.elicitation.server, 60))} asks, through ${askerName(call)}` : `${askerName(call)} ${asks}`;
  intro(`${title}${queue ? ` (${queue})` : ''}`);
  // The end of a turn has no list, and so no key that shows the rest: its title is shown whole.
  showContext(call, call.turnEnd !== undefined);
}

/**
 * The project, the branch, the session (or who asked) and its title, the machine, how long ago it
 * was asked and the time left, then what Claude said: shortened, saying so, unless `full`. For the
 * end of a turn, Claude's last message says it, whole (replyToTurnEnd).
 */
function showContext(call: AskView, full: boolean): void {
  const { title, branch } = call.context ?? {};
  const said = saidOf(call);
  const now = Date.now();
  const lines = [
    call.cwd === '' ? '' : `Project  ${shown(call.cwd)}`,
    branch === undefined ? '' : branchLine(branch),
    call.asker ? `Asker    ${call.agent === undefined ? (call.asker.kind === 'mcp' ? 'the MCP client' : 'the script') : `${agentName(call.agent)}, through the MCP client`} ${shown(call.asker.name)}` : `Session  ${shown(call.sessionId)}`,
    title === undefined ? '' : titleLine(title, full),
    call.machine === undefined ? '' : `Machine  ${shown(call.machine)}`,
    `${call.turnEnd ? 'Finished ' : 'Asked    '}${roughAge(now - call.createdAt)} · ${timeLeft(call.expiresAt - now)}, then ${shown(call.timeout.summary)}`,
  ];
  say(INFO, lines.filter(Boolean).join('\n'));
  if (said !== undefined) say(INFO, saidText(said, full));
}

/**
 * What `call`'s context adds to what the screen shows (`shown`): the branch and the title if they
 * are new, then what Claude said if that is; undefined when nothing is new. The rest of the context
 * is the ask's own, on screen from the start.
 */
function newContextText(shownContext: SessionContext | undefined, call: AskView): string | undefined {
  const { title, branch } = call.context ?? {};
  const said = saidOf(call);
  const lines = [branch === undefined || branch === shownContext?.branch ? '' : branchLine(branch), title === undefined || title === shownContext?.title ? '' : titleLine(title, false)].filter(Boolean);
  const blocks = [lines.length > 0 ? block(INFO, lines.join('\n')) : '', said === undefined || said === shownContext?.said ? '' : block(INFO, saidText(said, false))].filter(Boolean);
  return blocks.length > 0 ? blocks.join('\n') : undefined;
}

/** What Claude said before asking (the end of a turn says it in its own way: replyToTurnEnd). */
function saidOf(call: AskView): string | undefined {
  return call.turnEnd ? undefined : call.context?.said;
}

function branchLine(branch: string): string {
  return `Branch   ${shown(branch)}`;
}

function titleLine(title: string, full: boolean): string {
  return `Title    ${shortened(title, TITLE_SHORT_CHARS, full)}`;
}

function saidText(said: string, full: boolean): string {
  const cut = !full && shorten(said, SAID_SHORT_CHARS) !== said;
  return `Claude said${cut ? ` (shortened: ${KEY.context.key} shows all)` : ''}\n${cut ? shown(shorten(said, SAID_SHORT_CHARS)) : shown(said)}`;
}

/** Text on one line, cut to `max` characters and saying so, or whole when `full`. */
function shortened(text: string, max: number, full: boolean): string {
  const short = shorten(text, max);
  if (full || short === text) return shown(text);
  return `${shown(short)} (shortened: ${KEY.context.key} shows all)`;
}

/** How long ago, as the page's inbox says it. */
export function roughAge(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** The time left, as the page's countdown says it (m:ss, or h:mm:ss). */
export function timeLeft(ms: number): string {
  if (ms <= 0) return 'time is up';
  const total = Math.ceil(ms / 1000);
  if (total >= 48 * 3600) return `${Math.round(total / 86400)} days left`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return `${hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`} left`;
}

// ---------------------------------------------------------------------------------------------
// The lists: each question, the review, a confirmation.

/**
 * Runs a list with the flow's signals and keys. While it runs, context the live feed brings takes
 * its place on screen (its title with it), and it ends `refreshed`: the caller asks it again below.
 */
export async function runList<T>(flow: Flow, list: (run: Run) => Promise<T>): Promise<T> {
  const refresh = new AbortController();
  flow.refresh = refresh;
  try {
    return await list({ stop: flow.stop, refresh: refresh.signal, onKey: flow.onKey, hold: flow.hold });
  } finally {
    flow.refresh = undefined;
  }
}

/** Before a list: context that arrived while none ran. Whether there was any (the list's title is then shown again, below it). */
export function showNewContext(flow: Flow): boolean {
  const text = newContextText(flow.contextShown, flow.latest);
  if (text === undefined) return false;
  flow.contextShown = flow.latest.context;
  process.stdout.write(`${text}\n`);
  return true;
}

/**
 * The letter keys of a list: decline (a permission is denied instead), the hand-back (where the
 * asker has a prompt of its own), the context, in a one-key question a note (where the asker takes
 * one), and for a permission, while two or more wait, the review of all (where the caller offers it).
 */
export function lettersOf(flow: Flow, quick: boolean): LetterKey[] {
  const { choices } = flow.call;
  const back = choices.handBack;
  const handBack = back === undefined ? [] : [back === 'the terminal' ? KEY.terminal : { ...KEY.terminal, hint: `t hands it back to ${back}`, pressed: `Hand it back to ${back}` }];
  const reviewable = flow.call.approval && flow.options.reviewAll ? flow.options.reviewAll() : 0;
  const reviewAll = reviewable >= 2 ? [{ ...KEY.reviewAll, hint: `${KEY.reviewAll.key} reviews all ${reviewable} waiting permissions` }] : [];
  return [...(quick && choices.notes ? [KEY.note] : []), ...(flow.call.approval ? [] : [KEY.decline]), ...handBack, KEY.context, ...reviewAll];
}

export function leaveHint(flow: Flow): string {
  return flow.options.escape === 'skip' ? 'Esc skips it (it keeps waiting) · Ctrl+C leaves' : 'Esc leaves, nothing is sent';
}

/** A list ended by a letter key: the context shown in full (undefined: ask again), or a decline or a hand-back (its end, or undefined when not confirmed or refused). */
async function onLetter(flow: Flow, pressed: Pressed): Promise<FlowEnd | undefined> {
  switch (pressed.pressed) {
    case KEY.decline.key:
      return settle(flow, 'decline');
    case KEY.terminal.key:
      return settle(flow, 'terminal');
    case KEY.reviewAll.key:
      return { kind: 'review-all' };
    default:
      flow.contextShown = flow.latest.context;
      showContext(flow.latest, true);
      return undefined;
  }
}

/**
 * Whether a list's title is still on screen above where the list is asked again: not when the
 * list carried it and new context took their place, nor after anything else that ended the list
 * (the context in full, a refusal): the title is shown again below it.
 */
export function stillTitled(choice: PromptEnd | Pressed, title: string | undefined): boolean {
  return 'ended' in choice && choice.ended === 'refreshed' && title === undefined;
}

/** A list that ended without a choice: the flow ends (left, stopped, declined, handed back), or the list is asked again ('again': the context was shown, or it was refreshed). */
export async function notChosen(flow: Flow, choice: PromptEnd | Pressed): Promise<FlowEnd | 'again'> {
  if ('ended' in choice) return choice.ended === 'refreshed' ? 'again' : endOf(choice);
  return (await onLetter(flow, choice)) ?? 'again';
}

export function endOf(end: PromptEnd): FlowEnd {
  if (end.ended === 'stopped') return { kind: 'stopped' };
  return { kind: 'left', by: end.ended === 'ctrl-c' ? 'ctrl-c' : 'escape' };
}

const OTHER: ListItem = { label: 'Other', description: 'type your own answer' };

/**
 * One question: its options and Other, the free text when Other is chosen, then the note, unless
 * `quick`: then the choice is the answer, sent at once (`n` turns that off, for a note and the review).
 */
async function askOne(flow: Flow, index: number, question: Question, previous: Draft | undefined, quick: boolean): Promise<{ draft: Draft; quick: boolean } | FlowEnd> {
  const { call } = flow;
  const header = question.header ? ` · ${shown(question.header)}` : '';
  // "Other" only where the asker takes typed text for this question.
  const typed = call.choices.typedAnswers[index] !== false;
  const items: ListItem[] = [...question.options.map((option) => ({ label: shown(option.label), description: shown(option.description) })), ...(typed ? [OTHER] : [])];
  const otherIndex = typed ? items.length - 1 : -1;
  let picked = previous ? [...previous.picked, ...(previous.other === null ? [] : [otherIndex])] : [];
  let cursor = picked[0];
  let other: string | null = null;
  let titled = false;
  for (;;) {
    if (showNewContext(flow)) titled = false;
    const title = titled ? undefined : block(STEP, `Question ${index + 1} of ${call.questions.length}${header}\n${shown(question.question)}`);
    titled = true;
    const onMove = (at: number, ticked: number[]) => {
      cursor = at;
      if (question.multiSelect) picked = ticked;
    };
    const list = { title, items, letters: lettersOf(flow, quick), leave: leaveHint(flow), onMove };
    const choice = await runList(flow, (run): Promise<{ chosen: number | number[] } | Pressed | PromptEnd> =>
      question.multiSelect
        ? pickSome({ ...list, ...run, message: 'Choose one or more', how: `↑/↓, Space or a number (1-${items.length}) ticks · Enter confirms`, initial: picked, cursor, validate: (ticked) => (ticked.length === 0 ? 'Choose at least one: Space or its number ticks an option' : undefined) })
        : pickOne({ ...list, ...run, message: 'Choose one', how: quick ? `A number (1-${items.length}), or ↑/↓ and Enter, answers and sends at once · n adds a note first` : `↑/↓ and Enter, or a number (1-${items.length})`, initial: cursor }),
    );
    if ('pressed' in choice && choice.pressed === KEY.note.key) {
      quick = false;
      continue;
    }
    if (!('chosen' in choice)) {
      const after = await notChosen(flow, choice);
      if (after !== 'again') return after;
      titled = stillTitled(choice, title);
      continue;
    }
    picked = typeof choice.chosen === 'number' ? [choice.chosen] : choice.chosen;
    cursor = picked[0];
    if (!picked.includes(otherIndex)) break;
    const text = await askText({
      message: quick ? 'Your answer (Other): Enter sends it' : 'Your answer (Other)',
      placeholder: 'Enter with nothing typed goes back to the options',
      initial: previous?.other ?? '',
      validate: (value) => tooLong(value, LIMITS.otherChars),
      stop: flow.stop,
      onKey: flow.onKey,
    });
    if ('ended' in text) return endOf(text);
    if (text.typed.trim() !== '') {
      other = text.typed;
      break;
    }
    // Nothing typed: back to the options, with every other choice kept.
    log.warn('Other needs text: choose an option, or Other again and type your answer.');
    picked = picked.filter((item) => item !== otherIndex);
  }
  const chosen = picked.filter((item) => item !== otherIndex);
  if (quick || !call.choices.notes) return { draft: { picked: chosen, other, notes: null }, quick };
  const note = await askText({ message: `A note for ${speakerOf(call.agent)} (optional, Enter skips)`, initial: previous?.notes ?? '', validate: (value) => tooLong(value, LIMITS.notesChars), stop: flow.stop, onKey: flow.onKey });
  if ('ended' in note) return endOf(note);
  return { draft: { picked: chosen, other, notes: note.typed.trim() === '' ? null : note.typed }, quick };
}

export function tooLong(value: string, max: number): string | undefined {
  const { length } = value;
  return length > max ? `At most ${max} characters, this is ${length}: shorten it` : undefined;
}

/** Every answer, each one to change by its number, and Submit. Resolves with a question's index, `submit`, or how the flow ends. */
async function review(flow: Flow, drafts: Draft[]): Promise<number | 'submit' | FlowEnd> {
  const { call } = flow;
  const items: ListItem[] = call.questions.map((question, index) => {
    const draft = drafts[index]!;
    const answer = [...draft.picked.map((item) => shown(question.options[item]!.label)), ...(draft.other === null ? [] : [`Other: ${shown(draft.other)}`])].join(', ');
    return { label: `${shown(question.header || question.question)}: ${answer}`, ...(draft.notes === null ? {} : { description: `note: ${shown(draft.notes)}` }) };
  });
  const submitIndex = items.length;
  let cursor = submitIndex;
  let titled = false;
  for (;;) {
    if (showNewContext(flow)) titled = false;
    const title = titled ? undefined : block(STEP, `Review: ${call.questions.length === 1 ? 'your answer' : `your ${call.questions.length} answers`}, nothing is sent yet`);
    titled = true;
    const choice = await runList(flow, (run) =>
      pickOne({
        ...run,
        title,
        message: 'Enter on Submit sends every answer at once; a question changes its answer',
        items: [...items, { label: 'Submit' }],
        initial: cursor,
        how: `↑/↓ and Enter, or a number (1-${items.length + 1})`,
        letters: lettersOf(flow, false),
        leave: leaveHint(flow),
        onMove: (at) => (cursor = at),
      }),
    );
    if (!('chosen' in choice)) {
      const after = await notChosen(flow, choice);
      if (after !== 'again') return after;
      titled = stillTitled(choice, title);
      continue;
    }
    return choice.chosen === submitIndex ? 'submit' : choice.chosen;
  }
}

/** With `confirm`: whether the person means it. Esc goes back (false); Ctrl+C or `stop` end the flow. */
async function confirmed(flow: Flow, message: string, yes: string, no = 'No, back to the question'): Promise<boolean | FlowEnd> {
  const choice = await pickOne({ message, items: [{ label: yes }, { label: no }], initial: 1, how: '↑/↓ and Enter, or a number (1-2)', leave: 'Esc goes back', stop: flow.stop, onKey: flow.onKey });
  if ('ended' in choice) return choice.ended === 'escape' ? false : endOf(choice);
  return 'chosen' in choice && choice.chosen === 0;
}

// ---------------------------------------------------------------------------------------------
// A permission or a plan: the tool and its whole input, the choices of Claude Code's own dialog, the decision.

/** One choice of an approval's list: the decision it sends, for a deny whether it asks for a message first, for a grant how long and where first. */
type ApprovalChoice = { item: ListItem; decision: ApprovalDecision; message?: 'optional' | 'required'; grant?: true };

/** The choices, in the order of Claude Code's own dialog: allow once (approve), each of its suggestions (where its agent takes one back), deny, deny and stop (where its agent can stop): the ask's own choices. */
function approvalChoices(approval: Approval, call: AskView): ApprovalChoice[] {
  const { agent, choices } = call;
  const plan = approval.toolName === PLAN_TOOL;
  const deny: ApprovalChoice = plan
    ? { item: { label: 'Tell Claude what to change', description: 'your message: Claude keeps planning with it' }, decision: { behavior: 'deny' }, message: 'required' }
    : { item: { label: 'Deny', description: 'with a message for Claude if you like: what to do instead' }, decision: { behavior: 'deny' }, message: 'optional' };
  // Two people allow it from their own paired devices: here it may only be denied.
  if (needsTwoPeople(call)) return [deny, ...(choices.stop ? [{ item: { label: 'Deny and stop', description: `${speakerOf(agent)} stops and waits for you` }, decision: { behavior: 'deny', interrupt: true } } satisfies ApprovalChoice] : [])];
  if (call.risk) {
    // Risky: allowed only by typing the confirmation, and never remembered from here.
    return [
      { item: { label: 'Allow once (risky)…', description: `type ${CONFIRM_RISKY_WORD} to confirm` }, decision: { behavior: 'allow', confirmRisky: true } },
      deny,
      ...(choices.stop ? [{ item: { label: 'Deny and stop', description: `${speakerOf(agent)} stops and waits for you` }, decision: { behavior: 'deny', interrupt: true } } satisfies ApprovalChoice] : []),
    ];
  }
  return [
    { item: plan ? { label: 'Approve', description: 'Claude starts on the plan' } : { label: 'Allow once', description: 'this call only: you are asked again next time' }, decision: { behavior: 'allow' } },
    ...(choices.remember ? approval.suggestions.map((suggestion, index): ApprovalChoice => ({ item: { label: shown(suggestion.label) }, decision: { behavior: 'allow', suggestion: index } })) : []),
    deny,
    ...(choices.stop ? [{ item: { label: plan ? 'Reject and stop' : 'Deny and stop', description: `${speakerOf(agent)} stops and waits for you` }, decision: { behavior: 'deny', interrupt: true } } satisfies ApprovalChoice] : []),
    // Last, so that the numbers of Claude Code's own choices stay theirs.
    ...(choices.grant && approval.grant
      ? [{ item: { label: 'Allow, and the same without asking for a while', description: `${shown(approval.grant.words)}: ${shown(approval.grant.rule)}` }, decision: { behavior: 'allow' }, grant: true } satisfies ApprovalChoice]
      : []),
  ];
}

/** The grant's time and scope, chosen in two lists (a letter key goes back to the choices). */
async function grantChoice(flow: Flow): Promise<GrantChoice | FlowEnd | 'back'> {
  const duration = await runList(flow, (run) => pickOne({ ...run, message: 'For how long?', items: GRANT_DURATIONS.map(({ label }) => ({ label })), how: '↑/↓ and Enter, or a number', leave: leaveHint(flow) }));
  if (!('chosen' in duration)) return 'ended' in duration ? endOf(duration) : 'back';
  const scope = await runList(flow, (run) =>
    pickOne({
      ...run,
      message: 'Where?',
      items: [{ label: 'this session only' }, { label: 'every session of this project', description: `${speakerOf(flow.call.agent)} in ${shown(flow.call.cwd)}` }],
      how: '↑/↓ and Enter, or a number',
      leave: leaveHint(flow),
    }),
  );
  if (!('chosen' in scope)) return 'ended' in scope ? endOf(scope) : 'back';
  return { ...GRANT_DURATIONS[duration.chosen]!.choice, scope: scope.chosen === 0 ? 'session' : 'project' };
}

/** What is typed to allow a risky approval here, as on Telegram. */
const CONFIRM_RISKY_WORD = 'allow';

/**
 * The tool and its whole input, under its title; shown `again` (new context, a refusal), its one
 * line, the input being above. A risky one says why, and one two people must allow where it stands, each time.
 */
export function showApproval(approval: Approval, call: Pick<AskView, 'agent' | 'risk' | 'approval' | 'route' | 'allows'>, again: boolean): void {
  const two = twoPeopleLine(call);
  const risk = `${two === undefined ? '' : `\n${styleText('bold', two)}: ${CLI_MAY_ONLY_DENY}`}${call.risk ? `\n${styleText(['red', 'bold'], 'RISKY')}: ${shown(call.risk.reasons.join('; '))}` : ''}`;
  if (again) {
    say(STEP, `${shown(approvalLine(approval))} (its whole input is above)${risk}`);
    return;
  }
  say(STEP, `${approval.toolName === PLAN_TOOL ? 'Plan' : `Permission · ${shown(approval.toolName)}`}${risk}\n${hanging(shown(toolInputText(approval, speakerOf(call.agent))))}`);
}

/**
 * Each line too long for the terminal wrapped under its own start, two spaces further in: a wrapped
 * part of a command never lines up as a line of its own, nor as one of the fields around it.
 */
function hanging(text: string): string {
  // As wide as the text beside the side bar ("│  "): what say() leaves each line.
  const besideTheBar = Object.assign(new PassThrough(), { columns: Math.max(20, (process.stdout.columns ?? 80) - 3) });
  return text
    .split('\n')
    .map((line) => {
      const under = ' '.repeat(/^ */.exec(line)![0].length + 2);
      return wrapTextWithPrefix(besideTheBar, line, under, '', under);
    })
    .join('\n');
}

/**
 * A permission or a plan: the tool and its input, then the choices. A number decides at once, as in
 * Claude Code's own dialog (a deny asks for its message first), unless `confirm` asks first.
 */
async function decideApproval(flow: Flow, approval: Approval): Promise<FlowEnd> {
  const choices = approvalChoices(approval, flow.call);
  const items = choices.map((choice) => choice.item);
  const quick = !flow.options.confirm;
  let cursor = 0;
  let titled = false;
  let inputShown = false;
  for (;;) {
    if (showNewContext(flow)) titled = false;
    if (!titled) showApproval(approval, flow.call, inputShown);
    titled = inputShown = true;
    const choice = await runList(flow, (run) =>
      pickOne({
        ...run,
        message: needsTwoPeople(flow.call) ? 'Deny this call? Two people allow it, each on their own device' : approval.toolName === PLAN_TOOL ? 'Approve the plan?' : 'Allow this call?',
        items,
        initial: cursor,
        how: quick ? `A number (1-${items.length}), or ↑/↓ and Enter, decides at once` : `↑/↓ and Enter, or a number (1-${items.length})`,
        letters: lettersOf(flow, false),
        leave: leaveHint(flow),
        onMove: (at) => (cursor = at),
      }),
    );
    if (!('chosen' in choice)) {
      const after = await notChosen(flow, choice);
      if (after !== 'again') return after;
      titled = false;
      continue;
    }
    const decision = await decisionFor(flow, choices[choice.chosen]!);
    if (decision === 'back') continue;
    if ('kind' in decision) return decision;
    const end = await sendDecision(flow, approval, decision);
    if (end) return end;
    titled = false; // refused: the reason is on screen; the choices are asked again below it
  }
}

/** The decision a choice makes: at once, or with the deny's message. `back`: nothing to send yet (no feedback typed for a plan, or not confirmed). */
async function decisionFor(flow: Flow, choice: ApprovalChoice): Promise<ApprovalDecision | 'back' | FlowEnd> {
  let { decision } = choice;
  if (decision.behavior === 'allow' && decision.confirmRisky) {
    const typed = await askText({
      message: `Risky: type ${CONFIRM_RISKY_WORD} to allow it`,
      placeholder: 'anything else goes back to the choices',
      initial: '',
      validate: (value) => tooLong(value, 100),
      stop: flow.stop,
      onKey: flow.onKey,
    });
    if ('ended' in typed) return endOf(typed);
    if (typed.typed.trim().toLowerCase() !== CONFIRM_RISKY_WORD) {
      log.warn(`Not allowed: choose it again and type ${CONFIRM_RISKY_WORD} to allow it.`);
      return 'back';
    }
    return decision;
  }
  if (choice.grant) {
    const grant = await grantChoice(flow);
    if (grant === 'back' || 'kind' in grant) return grant;
    decision = { behavior: 'allow', grant };
  }
  if (choice.message) {
    const typed = await denyMessage(flow, choice.message);
    if (typeof typed !== 'object' || 'kind' in typed) return typed;
    if (typed.message !== undefined) decision = { behavior: 'deny', message: typed.message };
  }
  if (flow.options.confirm) {
    const sure = await confirmed(flow, `${choice.item.label}: send it? Claude Code acts on it at once`, 'Yes, send it', 'No, back to the choices');
    if (typeof sure === 'object') return sure;
    if (!sure) return 'back';
  }
  return decision;
}

/**
 * The deny's message: optional (Enter with nothing typed denies without one), or required (a plan's
 * feedback: nothing typed goes back to the choices, as an empty Other does).
 */
async function denyMessage(flow: Flow, need: 'optional' | 'required'): Promise<{ message: string | undefined } | 'back' | FlowEnd> {
  const required = need === 'required';
  const typed = await askText({
    message: required ? 'What should Claude change? Enter sends the plan back with it' : 'A message for Claude (optional): Enter denies',
    placeholder: required ? 'Enter with nothing typed goes back to the choices' : 'what to do instead',
    initial: '',
    validate: (value) => tooLong(value, LIMITS.otherChars),
    stop: flow.stop,
    onKey: flow.onKey,
  });
  if ('ended' in typed) return endOf(typed);
  if (typed.typed.trim() !== '') return { message: typed.typed };
  if (!required) return { message: undefined };
  log.warn('The plan goes back with what to change: choose that again and type it, or choose another answer.');
  return 'back';
}

/** Sends the decision. Resolves with how the flow ends, or undefined when the daemon refused it as it is (said on screen). */
async function sendDecision(flow: Flow, approval: Approval, decision: ApprovalDecision): Promise<FlowEnd | undefined> {
  const { call, daemon } = flow;
  const response = await daemon.request('POST', `/api/asks/${call.id}/decide`, decision);
  if (response.status === 200) {
    outro(decidedOutro(approval, decision));
    return { kind: 'sent' };
  }
  if (response.status === 409) return { kind: 'too-late', ask: readReply(AskReplySchema, response.body, 'reply to a late decision').ask };
  // The daemon's message may quote a suggestion: drawn by cancel() without the side bar, so its lines after the first are indented.
  const message = terminalText(readReply(ErrorReplySchema, response.body, 'refusal').error.message, '    ');
  if (response.status === 400) {
    log.error(`The daemon refused this: ${message}. Choose again below, or Esc to leave.`);
    return undefined;
  }
  cancel(message);
  return { kind: 'failed' };
}

/** What the screen says once the decision is sent. */
function decidedOutro(approval: Approval, decision: ApprovalDecision): string {
  const plan = approval.toolName === PLAN_TOOL;
  if (decision.behavior === 'allow') {
    const suggestion = decision.suggestion === undefined ? undefined : approval.suggestions[decision.suggestion];
    if (suggestion) return `${plan ? 'Approved' : 'Allowed'}: ${terminalText(suggestion.label, '    ')}.`;
    if (decision.grant) return `Allowed, and the same without asking: ${terminalText(approval.grant?.rule ?? '', '    ')} (${askbridgeCommand(process.env)} grants lists it, --revoke ends it).`;
    return plan ? 'Approved: Claude starts on the plan.' : 'Allowed once: Claude Code runs it.';
  }
  if (decision.interrupt) return `${plan ? 'Rejected' : 'Denied'}: Claude stops and waits for you.`;
  if (plan) return 'Sent back: Claude keeps planning with what you said.';
  return decision.message === undefined ? 'Denied: Claude is told not to run it.' : 'Denied: Claude is told why, with your message.';
}

// ---------------------------------------------------------------------------------------------
// The end of a turn, while the person is away: Claude's last message, whole, and the reply.

/** Typed as the reply, or an empty line: Claude stops. */
const DONE_COMMAND = '/done';

/**
 * Claude's last message, whole (every invisible character a marker), then one line of text: what is
 * typed goes to Claude as the person's next message, and Claude goes on; an empty line or /done lets
 * it stop. With `confirm`, either asks first. A reply the daemon refuses as it is (too long) is asked
 * again with the text kept.
 */
async function replyToTurnEnd(flow: Flow, turnEnd: TurnEnd): Promise<FlowEnd> {
  const cut = turnEnd.truncated ? ' (cut: only its start reached askbridge)' : '';
  say(STEP, `Claude's last message${cut}\n${turnEnd.lastMessage.trim() === '' ? '(Claude said nothing)' : shown(turnEnd.lastMessage)}`);
  if (isLastReply(turnEnd)) log.warn(`Note: ${LAST_REPLY_NOTE}.`);
  say(INFO, `Type your reply and press Enter: Claude goes on with it. An empty line or ${DONE_COMMAND}: Claude stops.\n${leaveHint(flow)}`);
  let typed = '';
  for (;;) {
    const entered = await askText({
      message: 'Your reply',
      placeholder: `Enter with nothing typed, or ${DONE_COMMAND}: Claude stops`,
      initial: typed,
      validate: (value) => tooLong(value, REPLY_CHARS),
      stop: flow.stop,
      onKey: flow.onKey,
      hold: flow.hold,
    });
    if ('ended' in entered) return endOf(entered);
    typed = entered.typed;
    const done = isDone(typed);
    if (flow.options.confirm) {
      const sure = done ? await confirmed(flow, 'Done? Claude stops, and its session waits at its prompt', 'Yes, Claude stops', 'No, back to the reply') : await confirmed(flow, 'Send this reply? Claude goes on with it at once', 'Yes, send it', 'No, back to the reply');
      if (typeof sure === 'object') return sure;
      if (!sure) continue;
    }
    const end = await sendReply(flow, done ? undefined : typed);
    if (end) return end;
  }
}

/** Whether what was typed lets the turn end: nothing, or /done. */
export function isDone(typed: string): boolean {
  const text = typed.trim();
  return text === '' || text === DONE_COMMAND;
}

/** Sends the reply (undefined: done). Resolves with how the flow ends, or undefined when the daemon refused it as it is (said on screen). */
async function sendReply(flow: Flow, text: string | undefined): Promise<FlowEnd | undefined> {
  const { call, daemon } = flow;
  const response = await daemon.request('POST', `/api/sessions/${encodeURIComponent(call.sessionId)}/reply`, text === undefined ? { done: true, ask: call.id } : { text, ask: call.id });
  if (response.status === 200) {
    const replied = readReply(AskReplySchema, response.body, 'reply').ask;
    outro(text === undefined ? 'Done: Claude stops.' : `Replied: Claude goes on with your reply.${replied.turnEnd && isLastReply(replied.turnEnd) ? ' It was the last one in a row: when Claude finishes again, it stops.' : ''}`);
    return { kind: 'sent' };
  }
  if (response.status === 409) return { kind: 'too-late', ask: readReply(TooLateReplySchema, response.body, 'reply to a late reply').ask };
  const message = terminalText(readReply(ErrorReplySchema, response.body, 'refusal').error.message, '    ');
  if (response.status === 400) {
    log.error(`The daemon refused this reply: ${message}. Change it below, or Esc to leave.`);
    return undefined;
  }
  cancel(message);
  return { kind: 'failed' };
}

// ---------------------------------------------------------------------------------------------
// What is sent: the one answer, a decline, a hand-back.

/**
 * Decline, or let the terminal answer, as the page's buttons do; an MCP server's request is declined
 * or cancelled by its own response (MCP: decline refuses, cancel dismisses without choosing).
 * Undefined: not confirmed, or refused with the reason on screen; the flow goes on.
 */
export async function settle(flow: Flow, how: 'decline' | 'cancel' | 'terminal'): Promise<FlowEnd | undefined> {
  const { call, daemon } = flow;
  const server = call.elicitation ? `the MCP server ${markInvisible(shorten(call.elicitation.server, 60))}` : undefined;
  const who = server ?? (call.agent === undefined && call.asker ? `the ${call.asker.kind === 'mcp' ? 'MCP client' : 'script'}` : speakerOf(call.agent));
  const back = call.choices.handBack ?? 'the terminal';
  if (flow.options.confirm) {
    const sure =
      how === 'decline'
        ? await confirmed(flow, `Decline? ${who} is told you chose not to answer`, 'Yes, decline')
        : how === 'cancel'
          ? await confirmed(flow, `Cancel? ${who} is told you dismissed it without choosing`, 'Yes, cancel')
          : back === 'the terminal'
            ? await confirmed(flow, "Let the terminal answer? Claude Code's own dialog asks there", 'Yes, let the terminal answer')
            : await confirmed(flow, `Hand it back to ${back}? It asks there`, 'Yes, hand it back');
    if (typeof sure === 'object') return sure;
    if (!sure) return undefined;
  }
  const response =
    how !== 'terminal' && call.elicitation ? await daemon.request('POST', `/api/asks/${call.id}/elicitation`, { action: how }) : await daemon.request('POST', `/api/asks/${call.id}/${how}`);
  if (response.status === 200) {
    if (how === 'cancel') {
      outro(`Cancelled: ${who} is told you dismissed it without choosing.`);
      return { kind: 'declined' };
    }
    if (how === 'decline') {
      outro(`Declined: ${who} is told you chose not to answer${call.asker || server ? '' : ', and goes on without your answer'}.`);
      return { kind: 'declined' };
    }
    outro(back === 'the terminal' ? "Handed back: Claude Code's own dialog asks in its terminal." : `Handed back: ${back} asks.`);
    return { kind: 'handed' };
  }
  if (response.status === 409) {
    const reply = readReply(TooLateReplySchema, response.body, 'refusal');
    if (reply.error.code !== 'already_resolved') {
      log.warn(`${shown(reply.error.message)}.`);
      return undefined;
    }
    return { kind: 'too-late', ask: reply.ask };
  }
  cancel(terminalText(readReply(ErrorReplySchema, response.body, 'refusal').error.message, '    '));
  return { kind: 'failed' };
}

/** The one atomic submit. Resolves with how the flow ends, or undefined when the daemon refused the answer as it is (said on screen). */
async function submit(flow: Flow, drafts: Draft[]): Promise<FlowEnd | undefined> {
  const { call, daemon } = flow;
  const request: AnswerRequest = {
    responses: call.questions.map((question, index) => {
      const draft = drafts[index]!;
      return { question: question.question, selected: draft.picked.map((item) => question.options[item]!.label), other: draft.other, notes: draft.notes };
    }),
  };
  const response = await daemon.request('POST', `/api/asks/${call.id}/answer`, request);
  if (response.status === 200) {
    outro(`Sent: ${call.asker ? `the ${call.asker.kind === 'mcp' ? 'MCP client' : 'script'}` : 'Claude Code'} has your answer.`);
    return { kind: 'sent' };
  }
  if (response.status === 409) return { kind: 'too-late', ask: readReply(AskReplySchema, response.body, 'reply to a late answer').ask };
  // The daemon's message may quote labels: drawn by cancel() without the side bar, so its lines after the first are indented.
  const message = terminalText(readReply(ErrorReplySchema, response.body, 'refusal').error.message, '    ');
  if (response.status === 400) {
    log.error(`The daemon refused this answer: ${message}. Change it below, or Esc to leave.`);
    return undefined;
  }
  cancel(message);
  return { kind: 'failed' };
}
