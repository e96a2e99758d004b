// The interactive answer to one question set, for `askbridge answer` and `askbridge watch`: the
// project and the session, then each question in turn (its options, "Other" for free text, an
// optional note), then a review where any answer can be changed, then one submit: the same request
// as `answer --pick`. Nothing is sent before that submit. Esc or Ctrl+C at any step leaves the
// question waiting; `stop` (the question was settled elsewhere, or the daemon went away) ends the
// flow at once. A key pressed close to the deadline asks the daemon for more time, as the page does.
// Model text is shown with every invisible character as a marker.
import { cancel, intro, log, outro } from '@clack/prompts';
import { AskReplySchema, ErrorReplySchema, LIMITS, type AnswerRequest, type AskView } from '../protocol.js';
import { markInvisible, terminalText } from '../visible-text.js';
import { askText, dropTypeAhead, pickOne, pickSome, type ListItem } from './prompts.js';
import type { DaemonClient } from './client.js';
import { readReply } from './replies.js';

/**
 * How the flow ended: `sent` (the daemon took the answer), `left` (Esc or Ctrl+C: nothing sent),
 * `stopped` (`stop` aborted it: the caller knows why and says so), `too-late` (settled just before
 * the submit arrived: `ask` says how), `failed` (the daemon could not use the answer; said on screen).
 */
export type FlowEnd = { kind: 'sent' } | { kind: 'left' } | { kind: 'stopped' } | { kind: 'too-late'; ask: AskView } | { kind: 'failed' };

/** One question's answer while the flow runs: the options picked (by index), the free text, the note. */
type Draft = { picked: number[]; other: string | null; notes: string | null };

type Question = AskView['questions'][number];

/** Model text (or anything a person pasted) for the terminal: markers for invisible characters, tabs as spaces. */
function shown(text: string): string {
  return markInvisible(text).replace(/\t/g, '  ');
}

export async function answerInteractively(daemon: DaemonClient, call: AskView, stop: AbortSignal, othersWaiting: number): Promise<FlowEnd> {
  const ended = (): FlowEnd => (stop.aborted ? { kind: 'stopped' } : left());
  const keys: Keys = { stop, onKey: moreTimeOnKeys(daemon, call) };
  intro(`Claude Code asks${othersWaiting > 0 ? ` (${othersWaiting} more waiting after this one)` : ''}`);
  const seconds = Math.max(0, Math.round((call.expiresAt - Date.now()) / 1000));
  log.info(`Project  ${shown(call.cwd)}\nSession  ${shown(call.sessionId)}\nWaits    ${seconds}s more, then ${shown(call.timeout.summary)}`);
  await dropTypeAhead();

  const drafts: Draft[] = [];
  for (const [index, question] of call.questions.entries()) {
    const draft = await askOne(call, index, question, undefined, keys);
    if (!draft) return ended();
    drafts.push(draft);
  }
  for (;;) {
    const choice = await review(call, drafts, keys);
    if (choice === undefined) return ended();
    if (choice === 'submit') {
      const end = await submit(daemon, call, drafts);
      if (end) return end;
      continue; // refused: the reason is on screen, every answer is kept
    }
    const draft = await askOne(call, choice, call.questions[choice]!, drafts[choice], keys);
    if (!draft) return ended();
    drafts[choice] = draft;
  }
}

/** With less than this left before the deadline, a key pressed asks the daemon for more time... */
export const MORE_TIME_WHEN_LEFT_MS = 60_000;
/** ...at most this often. */
export const MORE_TIME_EVERY_MS = 30_000;

/** What every prompt of the flow is given: the signal that ends it, and who hears its keys. */
type Keys = { stop: AbortSignal; onKey: () => void };

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

function left(): FlowEnd {
  cancel('Left: nothing was sent, the question still waits (`askbridge answer` comes back to it).');
  return { kind: 'left' };
}

const OTHER: ListItem = { label: 'Other', description: 'type your own answer' };

/** One question: its options and Other, the free text when Other is chosen, then the note. Undefined when left or stopped. */
async function askOne(call: AskView, index: number, question: Question, previous: Draft | undefined, keys: Keys): Promise<Draft | undefined> {
  const header = question.header ? ` · ${shown(question.header)}` : '';
  log.step(`Question ${index + 1} of ${call.questions.length}${header}\n${shown(question.question)}`);
  const items: ListItem[] = [...question.options.map((option) => ({ label: shown(option.label), description: shown(option.description) })), OTHER];
  const otherIndex = items.length - 1;
  let picked = previous ? [...previous.picked, ...(previous.other === null ? [] : [otherIndex])] : [];
  let other: string | null = null;
  for (;;) {
    const choice = question.multiSelect
      ? await pickSome({ message: 'Choose one or more', items, initial: picked, ...keys, validate: (ticked) => (ticked.length === 0 ? 'Choose at least one: Space or its number ticks an option' : undefined) })
      : await pickOne({ message: 'Choose one', items, initial: picked[0], ...keys });
    if (choice === undefined) return undefined;
    picked = typeof choice === 'number' ? [choice] : choice;
    if (!picked.includes(otherIndex)) break;
    const typed = await askText({
      message: 'Your answer (Other)',
      placeholder: 'Enter with nothing typed goes back to the options',
      initial: previous?.other ?? '',
      validate: (value) => tooLong(value, LIMITS.otherChars),
      ...keys,
    });
    if (typed === undefined) return undefined;
    if (typed.trim() !== '') {
      other = typed;
      break;
    }
    // Nothing typed: back to the options, with every other choice kept.
    log.warn('Other needs text: choose an option, or Other again and type your answer.');
    picked = picked.filter((item) => item !== otherIndex);
  }
  const note = await askText({ message: 'A note for Claude (optional, Enter skips)', initial: previous?.notes ?? '', validate: (value) => tooLong(value, LIMITS.notesChars), ...keys });
  if (note === undefined) return undefined;
  return { picked: picked.filter((item) => item !== otherIndex), other, notes: note.trim() === '' ? null : note };
}

function tooLong(value: string, max: number): string | undefined {
  const { length } = value;
  return length > max ? `At most ${max} characters, this is ${length}: shorten it` : undefined;
}

/** Every answer, each one to change by its number, and Submit. Resolves with a question's index, `submit`, or undefined when left or stopped. */
async function review(call: AskView, drafts: Draft[], keys: Keys): Promise<number | 'submit' | undefined> {
  log.step(`Review: ${call.questions.length === 1 ? 'your answer' : `your ${call.questions.length} answers`}, nothing is sent yet`);
  const items: ListItem[] = call.questions.map((question, index) => {
    const draft = drafts[index]!;
    const answer = [...draft.picked.map((item) => shown(question.options[item]!.label)), ...(draft.other === null ? [] : [`Other: ${shown(draft.other)}`])].join(', ');
    return { label: `${shown(question.header || question.question)}: ${answer}`, ...(draft.notes === null ? {} : { description: `note: ${shown(draft.notes)}` }) };
  });
  const submitIndex = items.length;
  const choice = await pickOne({ message: 'Enter on Submit sends every answer at once; a question changes its answer', items: [...items, { label: 'Submit' }], initial: submitIndex, ...keys });
  if (choice === undefined) return undefined;
  return choice === submitIndex ? 'submit' : choice;
}

/** The one atomic submit. Resolves with how the flow ends, or undefined when the daemon refused the answer as it is (said on screen). */
async function submit(daemon: DaemonClient, call: AskView, drafts: Draft[]): Promise<FlowEnd | undefined> {
  const request: AnswerRequest = {
    responses: call.questions.map((question, index) => {
      const draft = drafts[index]!;
      return { question: question.question, selected: draft.picked.map((item) => question.options[item]!.label), other: draft.other, notes: draft.notes };
    }),
  };
  const response = await daemon.request('POST', `/api/asks/${call.id}/answer`, request);
  if (response.status === 200) {
    outro('Sent: Claude Code has your answer.');
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
