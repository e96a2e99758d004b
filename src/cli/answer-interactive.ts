// `askbridge answer` on a terminal, without the answer on the command line: the interactive flow
// (flow.ts; elicitation-flow.ts for an MCP server's request) for the oldest waiting question, one
// given by id (a unique prefix is enough), or the oldest of a session, while the daemon's live feed
// says whether the question still waits and brings its session's context when that arrives.
import { askbridgeCommand } from '../command-name.js';
import { cancel } from '@clack/prompts';
import type { AskView } from '../protocol.js';
import { terminalText } from '../visible-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { openFeed, settledText } from './events.js';
import { respondInteractively } from './elicitation-flow.js';
import { answerInteractively, askUpdates } from './flow.js';

export type Target = { idOrPrefix: string | undefined; session: string | undefined; confirm: boolean };

/** The waiting question an id or a prefix names, among those `waiting`; one that has finished throws exit 3 (answer.ts). */
export type FindWaiting = (daemon: DaemonClient, waiting: AskView[]) => Promise<AskView>;

/**
 * The interactive flow, on this terminal, while the daemon's live feed says whether the question
 * is still waiting: settled elsewhere (exit 3) or the daemon gone (exit 6) ends it at once, with
 * nothing sent. Sent, declined or handed back: exit 0. Leaving it (Esc, Ctrl+C) exits 130.
 */
export async function answerOnTerminal(io: CommandIo, target: Target, findWaiting: FindWaiting): Promise<number> {
  const daemon = connectToDaemon(io.env);
  const stop = new AbortController();
  const updates = askUpdates();
  let current: string | undefined;
  let settledElsewhere: AskView | undefined;
  const feed = await openFeed(daemon, (event) => {
    if (!('ask' in event) || event.ask.id !== current) return;
    if (event.type === 'updated') updates.publish(event.ask);
    if (event.type === 'resolved') {
      settledElsewhere = event.ask;
      stop.abort();
    }
  });
  let lost: CliError | undefined;
  void feed.ended.then((why) => {
    lost = why;
    stop.abort();
  });
  try {
    const call = await chooseWaiting(daemon, feed.waiting, target, findWaiting, askbridgeCommand(io.env));
    current = call.id;
    const after = feed.waiting.filter((other) => other.id !== call.id && isQuestion(other)).length;
    const ask = call.elicitation ? respondInteractively : answerInteractively;
    const end = await ask(daemon, call, stop.signal, { waiting: { after, skipped: 0 }, confirm: target.confirm, escape: 'leave', updates });
    switch (end.kind) {
      case 'sent':
      case 'declined':
      case 'handed':
        return 0;
      case 'left':
        cancel(`Left: nothing was sent, the question still waits (\`${askbridgeCommand(io.env)} answer\` comes back to it).`);
        return 130;
      case 'failed':
      case 'review-all': // not offered here: no reviewAll in the options
        return 1;
      case 'too-late':
        cancel(`Too late: ${settledText(end.ask)} just before. Nothing was sent.`);
        return 3;
      case 'stopped':
        if (settledElsewhere) {
          cancel(`No longer waiting: ${settledText(settledElsewhere)}. Nothing was sent.`);
          return 3;
        }
        cancel(`Stopped: ${shown(lost?.message ?? 'the live connection ended')}. Nothing was sent.`);
        return lost?.exitCode ?? 1;
    }
  } finally {
    feed.close();
  }
}

/**
 * Text from a model, a repository or a request in a message drawn without the prompts' side bar
 * (cancel, an error): marked, its lines after the first indented under the message.
 */
function shown(text: string): string {
  return terminalText(text, '    ');
}

/** The question set to answer: the one `idOrPrefix` names, the oldest of `session`, or the oldest of all. */
async function chooseWaiting(daemon: DaemonClient, waiting: AskView[], target: Target, findWaiting: FindWaiting, command: string): Promise<AskView> {
  const questions = waiting.filter(isQuestion);
  if (target.session !== undefined) {
    const { session } = target;
    const oldest = questions.find((call) => call.sessionId.startsWith(session));
    if (!oldest) throw new CliError(`no question is waiting from session ${shown(session)}`);
    return oldest;
  }
  if (target.idOrPrefix === undefined) {
    if (!questions[0]) throw new CliError(`no question is waiting (\`${command} watch\` waits for them and asks each as it arrives)`);
    return questions[0];
  }
  // An id names any ask: the end of a turn or a wait in the terminal is refused there, saying what settles it.
  return findWaiting(daemon, waiting);
}

/** What `answer` settles on a terminal: a question, a permission, a plan or an MCP server's request; not the end of a turn (`askbridge reply`), nor a wait in the terminal. */
function isQuestion(call: AskView): boolean {
  return call.turnEnd === undefined && call.terminalWait === undefined;
}
