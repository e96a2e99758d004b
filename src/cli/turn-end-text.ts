// The end of Claude's turn and a wait in the terminal in the terminal's words, for `pending`,
// `listen`, `history`, `reply` and the interactive flow: what Claude said, in one line; what a wait
// in the terminal is, by Claude Code's notification type; whether the next reply is the last one
// Claude Code takes in a row; how a reply went. Pure: no I/O. Claude's message and a notification's
// words are a model's text: the one-line texts come back as they are (shortened, on one line), for
// the caller to mark as it prints them (terminalText).
import type { AskView, AwayReply, TerminalWait, TurnEnd } from '../protocol.js';
import { shorten } from '../shorten.js';
import { terminalText } from '../visible-text.js';

/** How much of Claude's last message a one-line list shows. */
export const SAID_LINE_CHARS = 120;

/** The start of Claude's last message, on one line: "Claude finished: Done: the tests pass." Not marked. */
export function turnEndLine(turnEnd: Pick<TurnEnd, 'lastMessage'>, max = SAID_LINE_CHARS): string {
  const said = shorten(turnEnd.lastMessage, max);
  return said === '' ? 'Claude finished (it said nothing)' : `Claude finished: ${said}`;
}

/** What Claude Code waits for in its terminal, by its notification type; another type as it is named. Not marked. */
export function terminalWaitKind(kind: string): string {
  switch (kind) {
    case 'idle_prompt':
      return 'Claude waits for your next prompt';
    case 'permission_prompt':
      return 'a permission dialog waits';
    case 'elicitation_dialog':
      return 'an MCP server asks for input';
    default:
      return kind;
  }
}

/** "waiting for you in the terminal (Claude waits for your next prompt): Claude is waiting for your input", on one line. Not marked. */
export function terminalWaitLine(wait: TerminalWait): string {
  const message = shorten(wait.message, SAID_LINE_CHARS * 2);
  return `waiting for you in the terminal (${terminalWaitKind(wait.kind)})${message === '' ? '' : `: ${message}`}`;
}

/** Whether the next reply is the last one Claude Code takes in a row: the turn's end after it is not held. */
export function isLastReply(turnEnd: Pick<TurnEnd, 'repliesInARow' | 'replyLimit'>): boolean {
  return turnEnd.repliesInARow + 1 === turnEnd.replyLimit;
}

/** Said beside a turn's end whose next reply is the last in a row. */
export const LAST_REPLY_NOTE = 'this is the last reply Claude Code takes in a row: when Claude finishes the turn after it, it stops';

/** What a reply did, as `askbridge reply` prints it: "replied: Claude goes on", "done: Claude stops". */
export function replyOutcome(ask: Pick<AskView, 'status' | 'turnEnd'>): string {
  if (ask.status !== 'replied') return 'done: Claude stops';
  return ask.turnEnd && isLastReply(ask.turnEnd) ? `replied: Claude goes on (${LAST_REPLY_NOTE})` : 'replied: Claude goes on';
}

/** The usage of `askbridge reply`, for the messages that point to it; `command` runs askbridge here (askbridgeCommand). */
export function replyUsage(command: string): string {
  return `${command} reply SESSION [--machine NAME] TEXT... | SESSION - (the text from standard input) | SESSION --done`;
}

/**
 * The command that replies to this turn's end, as `pending` shows it: its session, and the machine
 * a remote hook named (`reply` without --machine reaches this machine's turn ends only). Both come
 * from a hook, so either is quoted for a shell when it holds anything but plain characters; not marked.
 */
export function replyCommand(ask: Pick<AskView, 'sessionId' | 'machine'>, command: string): string {
  return `${command} reply ${shellWord(ask.sessionId)}${ask.machine === undefined ? '' : ` --machine ${shellWord(ask.machine)}`}`;
}

/** Where a turn's end waits, in words: "on this machine", `from machine "laptop"`. Not marked. */
export function machineWords(machine: string | undefined): string {
  return machine === undefined ? 'on this machine' : `from machine ${JSON.stringify(machine)}`;
}

/** A word as a shell reads it back: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:@%+=/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Whether the person is away, with what it means on this machine's wiring (`askbridge away`,
 * `askbridge status`): a line, then a line for each place a turn's end does not reach askbridge,
 * with the one command that adds it. Nothing promises what the wiring cannot deliver.
 */
export function awayLines(state: AwayReply, command: string): string {
  const { away, turnEnds } = state;
  const where = turnEnds.reach === 'partly' ? ', where it reaches askbridge' : '';
  const first =
    turnEnds.reach === 'nowhere'
      ? `away: ${away ? 'on' : 'off'} (but the end of a turn does not reach askbridge here, so it never waits for your reply: run \`${turnEnds.fix ?? `${command} install --user`}\`)`
      : away
        ? `away: on (the end of each of Claude's turns waits for your reply${where}: the page, \`${command} watch\`, \`${command} reply\`)`
        : "away: off (Claude's turns end in the terminal, as usual)";
  const gaps = turnEnds.reach === 'partly' ? turnEnds.gaps.map((gap) => `  not from ${terminalText(gap.path)} (no ${gap.missing.join(', ')}): run \`${terminalText(gap.fix)}\``) : [];
  // People's own switches (their pages'): the end of a turn routed to them waits too.
  const people = state.awayPeople && state.awayPeople.length > 0 ? [`away on their own pages: ${state.awayPeople.join(', ')} (the end of a turn for them waits for a reply)`] : [];
  return [first, ...gaps, ...people].join('\n');
}
