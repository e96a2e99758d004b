// `askbridge answer`: answer from a terminal. On a terminal and without --pick, --other, --note or
// --json, the interactive flow (flow.ts) for the oldest waiting question, one given by id, or the
// oldest of a session. With them, at once: `answer ID --pick 1=LABEL ...`, for scripts. Questions
// are numbered from 1, as `askbridge pending` shows them; an id prefix is enough when it is unique,
// and names a question exactly as its whole id does, a finished one included (exit 3, too late).
import { parseArgs } from 'node:util';
import { readHistoryTail, type HistoryLine } from '../history-file.js';
import { AskReplySchema, AsksReplySchema, ErrorReplySchema, type AnswerRequest, type AskView } from '../protocol.js';
import { shorten } from '../shorten.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { terminalJson, terminalText } from '../visible-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readJsonInput } from './json-input.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: io.argv,
    allowPositionals: true,
    strict: true,
    options: {
      pick: { type: 'string', multiple: true, default: [] },
      other: { type: 'string', multiple: true, default: [] },
      note: { type: 'string', multiple: true, default: [] },
      json: { type: 'string' },
      session: { type: 'string' },
      confirm: { type: 'boolean', default: false },
    },
  });
  const givesAnswer = values.pick.length > 0 || values.other.length > 0 || values.note.length > 0 || values.json !== undefined;
  if (!givesAnswer) {
    if (positionals.length > 1 || (positionals.length === 1 && values.session !== undefined)) throw new CliError(`usage: askbridge answer [ID | --session ID] [--confirm] on a terminal, or ${GIVEN_ANSWER_USAGE}`, 2);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new CliError(`no terminal to ask on: give the answer instead, as in ${GIVEN_ANSWER_USAGE} (\`askbridge pending\` shows the ids and options)`, 2);
    }
    // Loaded only here: scripts that give the answer do not pay for the prompts and the WebSocket.
    const { answerOnTerminal } = await import('./answer-interactive.js');
    return answerOnTerminal(io, { idOrPrefix: positionals[0], session: values.session, confirm: values.confirm }, (daemon, waiting) => findWaiting(io.env, daemon, positionals[0]!, waiting));
  }
  const [idOrPrefix] = positionals;
  if (!idOrPrefix || positionals.length > 1 || values.session !== undefined || values.confirm) throw new CliError(`usage: ${GIVEN_ANSWER_USAGE}`, 2);

  const daemon = connectToDaemon(io.env);
  const call = await findWaiting(io.env, daemon, idOrPrefix);

  const request: AnswerRequest = values.json !== undefined ? readAnswerFile(values.json) : buildResponses(call, values.pick, values.other, values.note);

  const response = await daemon.request('POST', `/api/asks/${call.id}/answer`, request);
  if (response.status === 200) {
    io.stdout(`answered: ${terminalJson(readReply(AskReplySchema, response.body, 'answer reply').ask.answers)}\n`);
    return 0;
  }
  if (response.status === 409) throw await tooLate(readReply(AskReplySchema, response.body, 'reply to a late answer').ask);
  // The daemon's message may quote labels and question text.
  throw new CliError(quoted(readReply(ErrorReplySchema, response.body, 'refusal').error.message));
}

/**
 * Model text in an error message: marked, and its lines after the first indented, so a newline in a
 * label cannot start a line that passes for one askbridge printed (those start at the left edge).
 */
function quoted(text: string): string {
  return terminalText(text, '    ');
}

const GIVEN_ANSWER_USAGE = 'askbridge answer ID --pick 1=LABEL|NUMBER [--pick 1=LABEL2] [--other 2=TEXT] [--note 1=TEXT] | ID --json FILE|-';

/**
 * The waiting question an id names, or a unique prefix of one. A prefix names a question as its
 * whole id does: one that has finished, still held by the daemon or only in history.jsonl, is too
 * late (exit 3), whichever names it; none, or more than one, is exit 1. `waiting`: the questions
 * known to wait (the live feed's), else asked for.
 */
export async function findWaiting(env: NodeJS.ProcessEnv, daemon: DaemonClient, idOrPrefix: string, waiting?: AskView[]): Promise<AskView> {
  const asks = waiting ?? readReply(AsksReplySchema, (await daemon.request('GET', '/api/asks')).body, 'list of asks').asks;
  const matches = asks.filter((call) => call.id.startsWith(idOrPrefix));
  if (matches.length > 1) throw new CliError(`id ${quoted(idOrPrefix)} is ambiguous: give more of it`);
  if (matches[0]) return matches[0];
  // A whole id may name a question asked since `waiting` was read, or one that has finished.
  const view = UUID.test(idOrPrefix) ? await askById(daemon, idOrPrefix) : undefined;
  if (view?.status === 'pending') return view;
  if (view) throw await tooLate(view);
  // Finished long enough ago that the daemon no longer holds it, or named by a prefix: history.jsonl
  // has every finished question (its line is written before the answer goes out; on a full disk it
  // is behind, and a prefix of a question it does not have yet finds nothing).
  const finished = finishedLines(env, idOrPrefix);
  if (finished.length > 1) throw new CliError(`id ${quoted(idOrPrefix)} is ambiguous: give more of it`);
  const line = finished[0];
  if (!line) throw new CliError(`no question has the id ${quoted(idOrPrefix)} (\`askbridge pending\` shows those waiting)`);
  const held = await askById(daemon, line.id);
  throw held ? await tooLate(held) : await tooLate(line);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A question the daemon still holds, waiting or settled. */
async function askById(daemon: DaemonClient, id: string): Promise<AskView | undefined> {
  const { status, body } = await daemon.request('GET', `/api/asks/${encodeURIComponent(id)}`);
  return status === 200 ? readReply(AskReplySchema, body, 'ask').ask : undefined;
}

/** The questions in history.jsonl whose id starts so: two at most, which is enough to call it ambiguous. */
function finishedLines(env: NodeJS.ProcessEnv, idOrPrefix: string): HistoryLine[] {
  return readHistoryTail(openStateDir(resolveStateDir(env)).paths.history, 2, (line) => line.id.startsWith(idOrPrefix));
}

/** Exit 3: the question was settled already, and how (its answers too, when it has them). */
async function tooLate(settled: AskView | HistoryLine): Promise<CliError> {
  // Loaded only here: the live feed's module brings the words, and the WebSocket package with them.
  const { settledLineText, settledText } = await import('./events.js');
  const how = 'finishedAt' in settled ? settledLineText(settled) : settledText(settled);
  return new CliError(`too late: the question was already ${settled.status}: ${how}${settled.answers ? `, with ${terminalJson(settled.answers)}` : ''}`, 3);
}

function buildResponses(call: AskView, picks: string[], others: string[], notes: string[]): AnswerRequest {
  const responses = call.questions.map((question) => ({ question: question.question, selected: [] as string[], other: null as string | null, notes: null as string | null }));
  const target = (flag: string, value: string) => {
    const match = /^(\d+)=(.*)$/s.exec(value);
    const response = match ? responses[Number(match[1]) - 1] : undefined;
    if (!match || !response) throw new CliError(`--${flag} ${quoted(value)}: expected N=TEXT with N from 1 to ${responses.length}`, 2);
    return { response, text: match[2]! };
  };
  for (const value of picks) {
    const { response, text } = target('pick', value);
    response.selected.push(optionLabel(call.questions[responses.indexOf(response)]!, text));
  }
  for (const value of others) {
    const { response, text } = target('other', value);
    response.other = text;
  }
  for (const value of notes) {
    const { response, text } = target('note', value);
    response.notes = text;
  }
  // As on the page: every question gets an answer before anything is sent.
  const missing = call.questions.flatMap((question, index) => {
    const response = responses[index]!;
    return response.selected.length > 0 || response.other !== null ? [] : [`${index + 1} (${quoted(question.header || question.question)})`];
  });
  if (missing.length > 0) {
    throw new CliError(`every question needs an answer, as on the page: add --pick or --other for question ${missing.join(' and ')}`, 2);
  }
  return { responses };
}

/** An option by its exact label, or else by its number (1 is the first option). */
function optionLabel(question: AskView['questions'][number], given: string): string {
  if (question.options.some((option) => option.label === given)) return given;
  const number = /^\d+$/.test(given) ? Number(given) : NaN;
  const byNumber = question.options[number - 1];
  if (byNumber) return byNumber.label;
  const choices = question.options.map((option, index) => `${index + 1} ${quoted(option.label)}`).join(', ');
  throw new CliError(`"${quoted(given)}" is not an option of question "${quoted(shorten(question.question, 60))}": give a label or a number (${choices})`, 2);
}

/** The answer in a file (or stdin for "-"), as the page sends it; the daemon checks its shape and says what is wrong. */
function readAnswerFile(path: string): AnswerRequest {
  return readJsonInput(path).json as AnswerRequest;
}
