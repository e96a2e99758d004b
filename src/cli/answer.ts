// `askbridge answer`: answer from a terminal. On a terminal and without --pick, --other, --note or
// --json, the interactive flow (flow.ts) for the oldest waiting question, one given by id, or the
// oldest of a session. With them, at once: `answer ID --pick 1=LABEL ...`, for scripts. Questions
// are numbered from 1, as `askbridge pending` shows them; an id prefix is enough when it is unique,
// and names a question exactly as its whole id does, a finished one included (exit 3, too late).
// A permission (or a plan) Claude Code asks for is decided, not answered: `answer ID --allow`,
// `--allow-suggestion N` (Claude Code's suggestions numbered from 1, as `pending` shows them), or
// `--deny [--message TEXT] [--interrupt]`; for a plan, --allow approves it and a deny's message says
// what to change. The answer's flags on a permission, or a decision on a question, are exit 2, as is
// --interrupt for an agent that cannot stop its turn (Codex, opencode: approvals.ts canStopTurn).
// `answer --all`, on a terminal: every waiting permission at once (answer-all.ts). An MCP server's
// request for input is answered on a terminal only (field by field); with an answer here, exit 2.
import { askbridgeCommand } from '../command-name.js';
import { parseArgs } from 'node:util';
import { agentName, profileOf } from '../agents.js';
import type { AnswerError } from '../answers.js';
import { approvalTarget, PLAN_TOOL } from '../approvals.js';
import { refusedAnswer, refusedDecision } from '../choices.js';
import { readHistoryTail, type HistoryLine } from '../history-file.js';
import { AskReplySchema, AsksReplySchema, ErrorReplySchema, type AnswerRequest, type Approval, type ApprovalDecision, type AskView } from '../protocol.js';
import { shorten } from '../shorten.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { terminalJson, terminalText } from '../visible-text.js';
import { CLI_MAY_ONLY_DENY, needsTwoPeople } from '../two-people.js';
import { decidedText, decisionInWords } from '../approval-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readJsonInput } from './json-input.js';
import { readReply } from './replies.js';
import { replyCommand } from './turn-end-text.js';

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
      allow: { type: 'boolean', default: false },
      'allow-suggestion': { type: 'string' },
      'confirm-risky': { type: 'boolean', default: false },
      deny: { type: 'boolean', default: false },
      message: { type: 'string' },
      interrupt: { type: 'boolean', default: false },
      session: { type: 'string' },
      confirm: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
    },
  });
  const command = askbridgeCommand(io.env);
  if (values.all) {
    const others = positionals.length > 0 || Object.entries(values).some(([name, value]) => name !== 'all' && (Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false));
    if (others) throw new CliError(`--all goes alone: ${command} answer --all, on a terminal`, 2);
    if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliError(`no terminal to ask on: --all lists every waiting permission to tick; for a script, decide each with ${decisionUsage(command)}`, 2);
    // Loaded only here, as the one-at-a-time flow is.
    const { answerAllOnTerminal } = await import('./answer-all.js');
    return answerAllOnTerminal(io);
  }
  const givesAnswer = values.pick.length > 0 || values.other.length > 0 || values.note.length > 0 || values.json !== undefined;
  const givesDecision = values.allow || values['allow-suggestion'] !== undefined || values.deny;
  if (!values.deny && (values.message !== undefined || values.interrupt)) throw new CliError(`--message and --interrupt go with --deny: ${decisionUsage(command)}`, 2);
  if (givesAnswer && givesDecision) {
    throw new CliError('an answer (--pick, --other, --note, --json) is for a question, a decision (--allow, --allow-suggestion, --deny) for a permission: give one or the other', 2);
  }
  if (!givesAnswer && !givesDecision) {
    if (positionals.length > 1 || (positionals.length === 1 && values.session !== undefined)) throw new CliError(`usage: ${command} answer [ID | --session ID] [--confirm] | --all on a terminal, or ${givenAnswerUsage(command)}, or ${decisionUsage(command)}`, 2);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new CliError(`no terminal to ask on: give the answer instead, as in ${givenAnswerUsage(command)}, or for a permission ${decisionUsage(command)} (\`${command} pending\` shows the ids, options and suggestions)`, 2);
    }
    // Loaded only here: scripts that give the answer do not pay for the prompts and the WebSocket.
    const { answerOnTerminal } = await import('./answer-interactive.js');
    return answerOnTerminal(io, { idOrPrefix: positionals[0], session: values.session, confirm: values.confirm }, (daemon, waiting) => findWaiting(io.env, daemon, positionals[0]!, { waiting }));
  }
  const [idOrPrefix] = positionals;
  if (!idOrPrefix || positionals.length > 1 || values.session !== undefined || values.confirm) throw new CliError(`usage: ${givesDecision ? decisionUsage(command) : givenAnswerUsage(command)}`, 2);

  const daemon = connectToDaemon(io.env);
  const call = await findWaiting(io.env, daemon, idOrPrefix);
  if (givesDecision) return decide(io, daemon, call, decisionOf(call, values, command));
  if (call.approval) {
    throw new CliError(`${quoted(call.id)} is a ${kindOf(call.approval)} ${agentName(call.agent ?? 'claude-code')} asks you to allow, not a question: --pick, --other, --note and --json answer questions; decide it with ${decisionUsage(command)}`, 2);
  }

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

/** How to give the answer in the command (`command` runs askbridge here: askbridgeCommand). */
function givenAnswerUsage(command: string): string {
  return `${command} answer ID --pick 1=LABEL|NUMBER [--pick 1=LABEL2] [--other 2=TEXT] [--note 1=TEXT] | ID --json FILE|-`;
}

/** How to decide a permission or a plan in the command. */
function decisionUsage(command: string): string {
  return `${command} answer ID --allow [--confirm-risky] | ID --allow-suggestion N | ID --deny [--message TEXT] [--interrupt]`;
}

/**
 * The waiting question an id names, or a unique prefix of one. A prefix names a question as its
 * whole id does: one that has finished, still held by the daemon or only in history.jsonl, is too
 * late (exit 3), whichever names it; none, or more than one, is exit 1. `onTerminal`: the flow asks
 * on a terminal, which answers an MCP server's request too, and `waiting` are the questions the live
 * feed knows to wait (else they are asked for).
 */
export async function findWaiting(env: NodeJS.ProcessEnv, daemon: DaemonClient, idOrPrefix: string, onTerminal?: { waiting: AskView[] }): Promise<AskView> {
  const asks = onTerminal?.waiting ?? readReply(AsksReplySchema, (await daemon.request('GET', '/api/asks')).body, 'list of asks').asks;
  const answerable = <Ask extends Answerable>(ask: Ask) => answerableHere(ask, env, onTerminal !== undefined);
  const matches = asks.filter((call) => call.id.startsWith(idOrPrefix));
  if (matches.length > 1) throw new CliError(`id ${quoted(idOrPrefix)} is ambiguous: give more of it`);
  if (matches[0]) return answerable(matches[0]);
  // A whole id may name a question asked since `waiting` was read, or one that has finished.
  const view = UUID.test(idOrPrefix) ? await askById(daemon, idOrPrefix) : undefined;
  if (view?.status === 'pending') return answerable(view);
  if (view) throw await tooLate(answerable(view));
  // Finished long enough ago that the daemon no longer holds it, or named by a prefix: history.jsonl
  // has every finished question (its line is written before the answer goes out; on a full disk it
  // is behind, and a prefix of a question it does not have yet finds nothing).
  const finished = finishedLines(env, idOrPrefix);
  if (finished.length > 1) throw new CliError(`id ${quoted(idOrPrefix)} is ambiguous: give more of it`);
  const line = finished[0];
  if (!line) throw new CliError(`no question has the id ${quoted(idOrPrefix)} (\`${askbridgeCommand(env)} pending\` shows those waiting)`);
  const held = await askById(daemon, line.id);
  throw held ? await tooLate(answerable(held)) : await tooLate(answerable(line));
}

type Answerable = Pick<AskView, 'id' | 'sessionId' | 'machine'> & { turnEnd?: unknown; terminalWait?: unknown; elicitation?: unknown };

/**
 * The ask, when `answer` is how to settle it: a question, a permission or a plan, and `onTerminal`
 * an MCP server's request (field by field: elicitation-flow.ts). The end of a turn is replied to with
 * `askbridge reply`, and a wait in the terminal is settled there (exit 2).
 */
function answerableHere<Ask extends Answerable>(ask: Ask, env: NodeJS.ProcessEnv, onTerminal: boolean): Ask {
  if (ask.turnEnd !== undefined) {
    const command = askbridgeCommand(env);
    throw new CliError(`${quoted(ask.id)} is the end of Claude's turn, not a question: reply with \`${quoted(replyCommand(ask, command))} TEXT...\` (Claude goes on with it), or \`${quoted(replyCommand(ask, command))} --done\` (Claude stops)`, 2);
  }
  if (ask.terminalWait !== undefined) throw new CliError(`${quoted(ask.id)} is a session waiting for you in its terminal: nothing in askbridge answers it, go to that terminal`, 2);
  if (ask.elicitation !== undefined && !onTerminal) {
    const command = askbridgeCommand(env);
    throw new CliError(
      `${quoted(ask.id)} is an MCP server's request for input, not a question: respond on a terminal, field by field, with \`${command} answer ${quoted(ask.id)}\` (or \`${command} watch\`), or through the API: POST /api/asks/${quoted(ask.id)}/elicitation, or hand it back to its agent's own dialog with POST /api/asks/${quoted(ask.id)}/terminal (\`${command} pending\` shows how)`,
      2,
    );
  }
  return ask;
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

/** Exit 3: the question (or the permission) was settled already, and how (its answers or its decision too, when it has them). */
async function tooLate(settled: AskView | HistoryLine): Promise<CliError> {
  // Loaded only here: the live feed's module brings the words, and the WebSocket package with them.
  const { settledLineText, settledText } = await import('./events.js');
  const line = 'finishedAt' in settled;
  const how = line ? settledLineText(settled) : settledText(settled);
  const decision = line ? settled.decision : decisionInWords(settled);
  const given = settled.answers ? `, with ${terminalJson(settled.answers)}` : decision ? `, with ${terminalJson(decision)}` : '';
  return new CliError(`too late: the ${settled.approval ? kindOf(settled.approval) : 'question'} was already ${settled.status}: ${how}${given}`, 3);
}

/** What Claude Code asks to have allowed: a plan (ExitPlanMode), or a permission. */
function kindOf(approval: { toolName: string }): 'plan' | 'permission' {
  return approval.toolName === PLAN_TOOL ? 'plan' : 'permission';
}

type DecisionFlags = { allow: boolean; 'allow-suggestion'?: string | undefined; 'confirm-risky': boolean; deny: boolean; message?: string | undefined; interrupt: boolean };

/** A refusal of the contract (choices.ts) in this command's words, by its flags; another refusal in the contract's own words. */
function refusalInFlags(refused: AnswerError, call: AskView, command: string): string {
  const profile = profileOf(call);
  switch (refused.code) {
    case 'interrupt_unsupported':
      return `${profile.name} cannot stop its turn from here: deny, and say why in the message (--deny --message TEXT)`;
    case 'message_with_stop':
      return `${profile.name} does not pass a message on when it stops the turn: --deny --message TEXT, or --deny --interrupt without one`;
    case 'risky_unconfirmed':
      return `${quoted(call.id)} is risky (${quoted(call.risk?.reasons.join('; ') ?? '')}): read it with \`${command} pending\`, then allow it with --allow --confirm-risky`;
    case 'empty_feedback':
      return `a plan is sent back with what ${profile.speaker} should change: add --message TEXT (or --interrupt to stop ${profile.speaker})`;
    default:
      return refused.message;
  }
}

/** The decision the flags give, checked as the daemon checks it: the ask's own choices (choices.ts), a suggestion it made, a plan's feedback. */
function decisionOf(call: AskView, flags: DecisionFlags, command: string): ApprovalDecision {
  const { approval } = call;
  if (!approval) throw new CliError(`${quoted(call.id)} is a question, not a permission: answer it with ${givenAnswerUsage(command)}`, 2);
  const suggestion = flags['allow-suggestion'];
  if ([flags.allow, suggestion !== undefined, flags.deny].filter(Boolean).length > 1) throw new CliError(`one decision at a time: ${decisionUsage(command)}`, 2);
  let decision: ApprovalDecision;
  if (flags.deny) {
    const message = flags.message?.trim() ? flags.message : undefined;
    decision = { behavior: 'deny', ...(message === undefined ? {} : { message }), ...(flags.interrupt ? { interrupt: true } : {}) };
  } else {
    if (needsTwoPeople(call)) throw new CliError(`${quoted(call.id)}: ${CLI_MAY_ONLY_DENY} (--deny)`, 2);
    decision = suggestion === undefined ? { behavior: 'allow' } : { behavior: 'allow', suggestion: suggestionIndex(call, approval, suggestion) };
    if (flags['confirm-risky']) decision.confirmRisky = true;
  }
  if (flags['confirm-risky'] && decision.behavior !== 'allow') throw new CliError(`--confirm-risky goes with --allow: ${decisionUsage(command)}`, 2);
  const refused = refusedDecision(call, approval, call.choices, decision, command);
  if (refused) throw new CliError(refusalInFlags(refused, call, command), 2);
  return decision;
}

/** The agent's suggestion by its number, as `askbridge pending` shows it (1 is the first), as the index the daemon takes. */
function suggestionIndex(call: AskView, approval: Approval, given: string): number {
  const name = agentName(call.agent ?? 'claude-code');
  const number = /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (number >= 1 && number <= approval.suggestions.length && call.choices.remember) return number - 1;
  if (approval.suggestions.length === 0 || !call.choices.remember) throw new CliError(`--allow-suggestion ${quoted(given)}: ${name} made no suggestion it takes back (--allow allows it once)`, 2);
  const choices = approval.suggestions.map((offered, index) => `${index + 1} ${quoted(offered.label)}`).join(', ');
  throw new CliError(`--allow-suggestion ${quoted(given)}: give the number of one of ${name}'s suggestions (${choices})`, 2);
}

/** Sends the decision; prints it and what it was for ("allowed once · Bash: npm test"). */
async function decide(io: CommandIo, daemon: DaemonClient, call: AskView, decision: ApprovalDecision): Promise<number> {
  const response = await daemon.request('POST', `/api/asks/${call.id}/decide`, decision);
  if (response.status === 200) {
    const decided = readReply(AskReplySchema, response.body, 'decision reply').ask;
    const words = decisionInWords(decided);
    if (!decided.approval || !words) throw new CliError('the daemon took the decision but its reply does not say which: are the daemon and the CLI the same version?');
    const { toolName, toolInput } = decided.approval;
    io.stdout(`${quoted(decidedText(toolName, approvalTarget(toolName, toolInput), words))}\n`);
    return 0;
  }
  if (response.status === 409) throw await tooLate(readReply(AskReplySchema, response.body, 'reply to a late decision').ask);
  // The daemon's message may quote a suggestion.
  throw new CliError(quoted(readReply(ErrorReplySchema, response.body, 'refusal').error.message));
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
  const refused = refusedAnswer(call, call.questions, call.choices, responses);
  if (refused) throw new CliError(refused.message, 2);
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
