// `askbridge answer` on a terminal, without the answer on the command line: the interactive flow
// (flow.ts) for the oldest waiting question, one given by id (a unique prefix is enough), or the
// oldest of a session, while the daemon's live feed says whether the question still waits.
import { cancel } from '@clack/prompts';
import { AskReplySchema, type AskView } from '../protocol.js';
import { terminalText } from '../visible-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { openFeed, settledText } from './events.js';
import { answerInteractively } from './flow.js';
import { readReply } from './replies.js';

/**
 * The interactive flow, on this terminal, while the daemon's live feed says whether the question
 * is still waiting: settled elsewhere (exit 3) or the daemon gone (exit 6) ends it at once, with
 * nothing sent. Leaving it (Esc, Ctrl+C) exits 130.
 */
export async function answerOnTerminal(io: CommandIo, idOrPrefix: string | undefined, session: string | undefined): Promise<number> {
  const daemon = connectToDaemon(io.env);
  const stop = new AbortController();
  let current: string | undefined;
  let settledElsewhere: AskView | undefined;
  const feed = await openFeed(daemon, (event) => {
    if (event.type === 'resolved' && event.ask.id === current) {
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
    const call = await chooseWaiting(daemon, feed.waiting, idOrPrefix, session);
    current = call.id;
    const end = await answerInteractively(daemon, call, stop.signal, feed.waiting.filter((other) => other.id !== call.id).length);
    switch (end.kind) {
      case 'sent':
        return 0;
      case 'left':
        return 130;
      case 'failed':
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
async function chooseWaiting(daemon: DaemonClient, waiting: AskView[], idOrPrefix: string | undefined, session: string | undefined): Promise<AskView> {
  if (session !== undefined) {
    const oldest = waiting.find((call) => call.sessionId.startsWith(session));
    if (!oldest) throw new CliError(`no question is waiting from session ${shown(session)}`);
    return oldest;
  }
  if (idOrPrefix === undefined) {
    if (!waiting[0]) throw new CliError('no question is waiting (`askbridge watch` waits for them and asks each as it arrives)');
    return waiting[0];
  }
  const matches = waiting.filter((call) => call.id.startsWith(idOrPrefix));
  if (matches.length > 1) throw new CliError(`id ${shown(idOrPrefix)} is ambiguous`);
  if (matches[0]) return matches[0];
  // Not waiting: a whole id may name a question asked since the feed opened, or one that has finished.
  const { status, body } = await daemon.request('GET', `/api/asks/${encodeURIComponent(idOrPrefix)}`);
  if (status === 200) {
    const ask = readReply(AskReplySchema, body, 'ask').ask;
    if (ask.status === 'pending') return ask;
    throw new CliError(`too late: this question was ${settledText(ask)}`, 3);
  }
  throw new CliError(`no question waiting has the id ${shown(idOrPrefix)}`);
}
