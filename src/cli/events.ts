// The daemon's live feed (GET /ws) as the CLI reads it: `answer`'s interactive flow, `watch` and
// `listen` learn through this one connection which questions wait, and when one is added or
// settled. Node 20 has no WebSocket of its own, hence the `ws` package. The token goes only to a
// daemon that has first proven it holds it (client.ts), as for every other request.
import WebSocket from 'ws';
import { deciderWords, describeSource, lineDeciderWords, type HistoryLine, type HistorySource } from '../history-file.js';
import { agentName } from '../agents.js';
import { checkShape, ServerMessageSchema, STOPPING_CLOSE_CODE, type AskStatus, type AskView, type ServerMessage } from '../protocol.js';
import { policyReason } from '../settlement.js';
import { terminalText } from '../visible-text.js';
import type { DaemonClient } from './client.js';
import { CliError } from './command.js';

/** What the feed reports after its opening snapshot. */
export type FeedEvent = Exclude<ServerMessage, { type: 'snapshot' }>;

export type Feed = {
  /** The asks waiting when the feed opened, oldest first. */
  waiting: AskView[];
  /** Settles when the feed ends: with nothing after close(), else with the error that says why it ended. */
  ended: Promise<CliError | undefined>;
  close(): void;
};

const CONNECT_TIMEOUT_MS = 5000;

/** Opens the feed; `onEvent` then sees every event after the snapshot, in order. */
export async function openFeed(daemon: DaemonClient, onEvent: (event: FeedEvent) => void): Promise<Feed> {
  const authorization = await daemon.authorization();
  const socket = new WebSocket(`${daemon.baseUrl.replace(/^http/, 'ws')}/ws`, { headers: { authorization }, handshakeTimeout: CONNECT_TIMEOUT_MS, perMessageDeflate: false });
  let closedByUs = false;
  /** Why the feed broke off on our side: a message this CLI cannot read. */
  let unreadable: CliError | undefined;
  let opened = false;
  let open: (waiting: AskView[]) => void = () => {};
  let fail: (error: CliError) => void = () => {};
  const snapshot = new Promise<AskView[]>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });

  socket.on('unexpected-response', (_request, response) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.on('end', () => fail(new CliError(`the daemon refused the live connection (HTTP ${response.statusCode}${errorMessageOf(body)})`)));
    socket.terminate();
  });
  // Before the snapshot, an error is why the feed could not open; after it, the close that follows says what happened.
  socket.on('error', (error) => fail(new CliError(`cannot open the daemon's live connection: ${error.message}`)));
  socket.on('message', (data) => {
    const message = readMessage(data);
    if (message === undefined || (!opened && message.type !== 'snapshot')) {
      unreadable = new CliError("the daemon's live connection sent a message this askbridge cannot read: are the daemon and the CLI the same version?");
      fail(unreadable);
      socket.terminate();
    } else if (message.type === 'snapshot') {
      opened = true;
      open([...message.asks].sort((a, b) => a.createdAt - b.createdAt));
    } else {
      onEvent(message);
    }
  });
  const ended = new Promise<CliError | undefined>((resolve) =>
    socket.on('close', (code) => {
      const why = closedByUs ? undefined : (unreadable ?? daemonGone(code === STOPPING_CLOSE_CODE ? 'the daemon stopped' : 'the connection to the daemon broke off'));
      fail(why ?? daemonGone('the live connection closed before it started'));
      resolve(why);
    }),
  );
  return {
    waiting: await snapshot,
    ended,
    close() {
      closedByUs = true;
      socket.close();
    },
  };
}

function readMessage(data: WebSocket.RawData): ServerMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString());
  } catch {
    return undefined;
  }
  const message = checkShape(ServerMessageSchema, parsed);
  return message.ok ? message.value : undefined;
}

function errorMessageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' ? `: ${terminalText(message, '    ')}` : '';
  } catch {
    return '';
  }
}

/** Exit code 6: the daemon went away while a command was connected to it. */
function daemonGone(why: string): CliError {
  return new CliError(why, 6);
}

/**
 * How a settled question ended, as a sentence part: "answered by a person (page)" ("answered by
 * alice on Pixel 8 (page)" once people are defined), "withdrawn,
 * Claude Code stopped waiting (Esc or its own timeout)", "withdrawn, the session ended"; a
 * permission's "allowed by a person (cli)", "answered in the terminal"; the end of a turn's "replied
 * by a person (cli): Claude went on", "the person typed in the terminal: their prompt went to
 * Claude". Who or what is said in history's words. Ready for a terminal: the detail can name a rule
 * from a project's config, so it is marked, its lines after the first indented.
 */
export function settledText(question: AskView): string {
  const { source, detail } = describeSource(question);
  const kind = question.turnEnd ? 'turn-end' : question.terminalWait ? 'terminal-wait' : 'question';
  const who = question.source?.kind === 'person' ? deciderWords(question.source) : undefined;
  return settledWords(source, detail, { kind, who, status: question.status, sessionEnded: question.source?.kind === 'session-ended', inTerminal: question.source?.kind === 'terminal', agent: agentName(question.agent ?? 'claude-code'), responded: question.elicitationResult?.action });
}

/** The same words for a question known only from its line in history.jsonl (a wait in the terminal is never written there). */
export function settledLineText(line: HistoryLine): string {
  // describeSource (history-file.ts) writes these details for a question its session's end withdrew,
  // for a permission given in Claude Code's own dialog, and for a turn's end the person typed past.
  const inTerminal = line.detail === ANSWERED_IN_TERMINAL || (line.turnEnd !== undefined && line.source === 'terminal' && line.status === 'cancelled');
  return settledWords(line.source, line.detail, { kind: line.turnEnd ? 'turn-end' : 'question', who: lineDeciderWords(line), status: line.status, sessionEnded: line.detail === 'the Claude Code session ended', inTerminal, agent: terminalText(agentName(line.agent ?? 'claude-code')), responded: line.elicitation?.result?.action });
}

/** describeSource's detail for a permission the person gave in Claude Code's own dialog first. */
const ANSWERED_IN_TERMINAL = 'answered in the terminal';

/**
 * What history does not say in its source: what was asked (a permission is a question here: its
 * status says allowed or denied), the status, which withdrawals these were, the agent whose
 * terminal asks instead (its name, ready for a terminal), and how a person responded to an MCP
 * server's request, and who decided once people are defined ("alice on Pixel 8": deciderWords).
 */
type SettledHow = { kind: 'question' | 'turn-end' | 'terminal-wait'; who: string | undefined; status: AskStatus; sessionEnded: boolean; inTerminal: boolean; agent: string; responded?: 'accept' | 'decline' | 'cancel' | undefined };

const RESPONDED_WORDS = { accept: 'accepted', decline: 'declined', cancel: 'cancelled' } as const;

function settledWords(source: HistorySource, detail: string | undefined, how: SettledHow): string {
  const why = detail ? ` (${terminalText(detail, '    ')})` : '';
  // "a person", or once people are defined who: "alice on Pixel 8" (a device's name, marked).
  const person = how.who === undefined ? 'a person' : terminalText(how.who);
  if (how.kind === 'turn-end') return turnEndWords(source, why, how, person);
  if (how.kind === 'terminal-wait' && how.inTerminal) return 'the session moved on';
  if (how.inTerminal) return ANSWERED_IN_TERMINAL;
  if (source === 'grant') return terminalText(detail ?? 'allowed by your grant', '    ');
  if (how.responded !== undefined && source === 'person') return `${RESPONDED_WORDS[how.responded]} by ${person}${why}`;
  if (how.status === 'allowed') return `allowed by ${person}${why}`;
  if (how.status === 'denied') return source === 'person' ? `denied by ${person}${why}` : `denied by the configuration${why}`;
  switch (source) {
    case 'person':
      return `answered by ${person}${why}`;
    case 'rule':
      return `answered by a rule${why}`;
    case 'recommended':
      return `answered with the recommended option${why}`;
    case 'declined':
      return `declined${why}`;
    case 'terminal':
      return `handed to ${how.agent}'s terminal${why}`;
    case 'expired':
      return `ran out of time: ${how.agent}'s terminal asks${why}`;
    case 'cancelled':
      return how.sessionEnded ? 'withdrawn, the session ended' : `withdrawn, ${how.agent} stopped waiting (Esc or its own timeout)`;
    case 'failed':
    case 'lost':
      return `not delivered${why}`;
  }
}

/** How the end of a turn ended: a reply (Claude went on), done, or Claude stopped for another reason. */
function turnEndWords(source: HistorySource, why: string, how: SettledHow, person: string): string {
  if (how.inTerminal) return 'the person typed in the terminal: their prompt went to Claude';
  switch (how.status) {
    case 'replied':
      return `replied by ${person}${why}: Claude went on`;
    case 'done':
      return source === 'person' ? `done by ${person}${why}: Claude stopped` : `Claude stopped: ${policyReason('reply-limit')}`;
    case 'handed-to-terminal':
      return source === 'expired' ? 'nobody replied in time: Claude stopped' : `Claude stopped${why}`;
    case 'cancelled':
      return how.sessionEnded ? 'withdrawn, the session ended' : 'withdrawn, Claude Code stopped waiting (Esc in its terminal)';
    case 'failed':
      return `not delivered${why}`;
    default:
      return how.status;
  }
}
