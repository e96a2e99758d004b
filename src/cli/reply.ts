// `askbridge reply SESSION TEXT...`: reply to the end of Claude's turn in a session, while the person
// is away: Claude goes on with exactly that text (TEXT `-`: read from standard input, its final line
// break dropped); `--done` lets the turn end, and Claude stops. SESSION is the session's whole id or
// a unique prefix of one. The reply names the turn's end it is meant for (POST
// /api/sessions/:sessionId/reply with its `ask`), so it never goes to a later one: the one waiting
// now, or else the session's last one (history.jsonl), which the daemon refuses saying how it ended
// ("the person typed in the terminal meanwhile…"), exit 3. Any other refusal is printed as the
// daemon says it, exit 1. Only the token sends a reply, never the hook key.
// A session id is no secret: another machine's hook, or anyone with the hook key, can open a turn's
// end under a real session's id. So a reply reaches only the turn's end of the machine it names
// (--machine NAME, as `askbridge pending` shows it; none: this machine), and when two wait under one
// id there, nothing tells which is the one the person saw: it is refused, naming both.
import { askbridgeCommand } from '../command-name.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AskReplySchema, AsksReplySchema, AwayReplySchema, ErrorReplySchema, REPLY_CHARS, TooLateReplySchema, type AskView } from '../protocol.js';
import { readHistoryTail } from '../history-file.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { terminalText } from '../visible-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';
import { machineWords, replyCommand, replyUsage, replyOutcome, turnEndLine } from './turn-end-text.js';

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: io.argv, allowPositionals: true, strict: true, options: { done: { type: 'boolean', default: false }, machine: { type: 'string' } } });
  const [session, ...words] = positionals;
  if (session === undefined || session === '') throw new CliError(`usage: ${replyUsage(askbridgeCommand(io.env))}`, 2);
  if (values.done && words.length > 0) throw new CliError(`--done lets Claude stop, and takes no text: ${replyUsage(askbridgeCommand(io.env))}`, 2);
  if (!values.done && words.length === 0) throw new CliError(`say what Claude should do, or let it stop with --done: ${replyUsage(askbridgeCommand(io.env))}`, 2);
  if (values.machine?.trim() === '') throw new CliError(`--machine names the machine a turn's end comes from, as \`${askbridgeCommand(io.env)} pending\` shows it: ${replyUsage(askbridgeCommand(io.env))}`, 2);
  const text = values.done ? undefined : replyText(words, askbridgeCommand(io.env));

  const daemon = connectToDaemon(io.env);
  const turnEnd = await findTurnEnd(io.env, daemon, session, values.machine);
  const response = await daemon.request('POST', `/api/sessions/${encodeURIComponent(turnEnd.sessionId)}/reply`, text === undefined ? { done: true, ask: turnEnd.id } : { text, ask: turnEnd.id });
  if (response.status === 200) {
    io.stdout(`${replyOutcome(readReply(AskReplySchema, response.body, 'reply').ask)}\n`);
    return 0;
  }
  if (response.status === 409) {
    // That turn's end was settled meanwhile: the daemon says how ("the person typed in the terminal meanwhile…").
    throw new CliError(`not sent: ${shown(readReply(TooLateReplySchema, response.body, 'refusal').error.message)}`, 3);
  }
  throw new CliError(`not sent: ${shown(readReply(ErrorReplySchema, response.body, 'refusal').error.message)}`);
}

/** The reply's text: the words as given, or standard input for `-` (its final line break dropped, as a shell's $(…) drops it). */
export function replyText(words: string[], command: string): string {
  const text = words.length === 1 && words[0] === '-' ? readStandardInput().replace(/\r?\n$/, '') : words.join(' ');
  if (text.trim() === '') throw new CliError(`the reply is empty: say what Claude should do, or let it stop with --done (${replyUsage(command)})`, 2);
  if (text.length > REPLY_CHARS) throw new CliError(`the reply is ${text.length} characters long, and a reply holds at most ${REPLY_CHARS}: shorten it`, 2);
  return text;
}

function readStandardInput(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read standard input: ${(error as Error).message}`, 2);
  }
}

/**
 * The turn's end the session named by its whole id, or a unique prefix of it, waits at now on
 * `machine` (undefined: this one); else the last one it waited at there, from history.jsonl: a
 * reply names it, and the daemon says how it ended (409) instead of giving the reply to another.
 * An unknown or ambiguous prefix is an error that names no session; so is a session whose turn's
 * end waits only on other machines (each with the command that replies to it), and one where two
 * wait on that machine.
 */
async function findTurnEnd(env: NodeJS.ProcessEnv, daemon: DaemonClient, session: string, machine: string | undefined): Promise<Pick<AskView, 'id' | 'sessionId'>> {
  const asks = readReply(AsksReplySchema, (await daemon.request('GET', '/api/asks')).body, 'list of asks').asks;
  const waiting = asks.filter((ask) => ask.turnEnd !== undefined && ask.status === 'pending');
  const named = waiting.filter((ask) => ask.sessionId === session);
  const ofSession = named.length > 0 ? named : oneSession(waiting.filter((ask) => ask.sessionId.startsWith(session)), session);
  const there = ofSession.filter((ask) => ask.machine === machine);
  if (there.length > 1) {
    const listed = there.map((ask) => `  ${ask.id}  ${shown(turnEndLine(ask.turnEnd!))}`);
    throw new CliError(
      [`${there.length} turn ends wait in session ${shown(there[0]!.sessionId)} ${shown(machineWords(machine))}, and nothing tells which one is the session you saw (a session id is no secret): reply in \`${askbridgeCommand(env)} watch\` or on the page, which show each whole`, ...listed].join('\n'),
    );
  }
  if (there[0]) return there[0];
  if (ofSession.length > 0) {
    const elsewhere = ofSession.map((ask) => `  ${shown(machineWords(ask.machine))}: ${shown(replyCommand(ask, askbridgeCommand(env)))} TEXT...`);
    throw new CliError([`no turn's end waits in session ${shown(ofSession[0]!.sessionId)} ${shown(machineWords(machine))}; it waits`, ...elsewhere].join('\n'));
  }
  // The newest first: several lines of one session are fine, lines of two sessions are not.
  const finished = readHistoryTail(openStateDir(resolveStateDir(env)).paths.history, FINISHED_LINES, (line) => line.turnEnd !== undefined && line.machine === machine && line.sessionId.startsWith(session));
  const newest = finished.find((line) => line.sessionId === session) ?? oneSession(finished, session)[0];
  if (newest) return newest;
  const { away } = readReply(AwayReplySchema, (await daemon.request('GET', '/api/away')).body, 'away switch');
  const why = away ? `\`${askbridgeCommand(env)} pending\` lists those waiting` : `you are not away, so a turn ends in the terminal without waiting (\`${askbridgeCommand(env)} away on\`)`;
  throw new CliError(`no session waits for a reply with the id ${shown(session)}${machine === undefined ? '' : ` ${shown(machineWords(machine))}`}: ${why}`);
}

/** How many of a prefix's finished turn ends are read from history.jsonl to tell whether it names one session. */
const FINISHED_LINES = 50;

/** `matches` when they are all of one session; an error when of several. */
function oneSession<Match extends { sessionId: string }>(matches: Match[], session: string): Match[] {
  const sessions = new Set(matches.map((match) => match.sessionId));
  if (sessions.size > 1) throw new CliError(`more than one session has an id that starts with ${shown(session)}: give more of it`);
  return matches;
}

/** Text from the command line or the daemon in a message: marked, its lines after the first indented. */
function shown(text: string): string {
  return terminalText(text, '    ');
}
