// `askbridge watch`: a terminal inbox. It waits for questions and runs the interactive answer
// (flow.ts) for each, oldest first, with a bell and the count of the others waiting. A question
// settled elsewhere leaves the queue (and stops its flow at once, with nothing sent). Ctrl+C or
// Esc leaves, exit 0: every question still waiting keeps waiting. Exit 4 when the daemon stops.
import { cancel, log, outro } from '@clack/prompts';
import { parseArgs } from 'node:util';
import type { AskView } from '../protocol.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { openFeed, settledText } from './events.js';
import { answerInteractively } from './flow.js';

const BELL = '\u0007';

export async function run(io: CommandIo): Promise<number> {
  parseArgs({ args: io.argv, strict: true, options: {} });
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError('askbridge watch asks on a terminal, and there is none here: `askbridge listen --json` streams the same events for a script', 2);
  }
  const daemon = connectToDaemon(io.env);
  const queue = new Map<string, AskView>();
  let current: { id: string; stop: AbortController; settledElsewhere?: AskView } | undefined;
  let wake = () => {};
  const feed = await openFeed(daemon, (event) => {
    if (event.type === 'added') queue.set(event.ask.id, event.ask);
    if (event.type === 'updated' && queue.has(event.ask.id)) queue.set(event.ask.id, event.ask);
    if (event.type === 'resolved') {
      queue.delete(event.ask.id);
      if (current?.id === event.ask.id) {
        current.settledElsewhere = event.ask;
        current.stop.abort();
      }
    }
    wake();
  });
  for (const question of feed.waiting) queue.set(question.id, question);
  let ended: { why: CliError | undefined } | undefined;
  void feed.ended.then((why) => {
    ended = { why };
    current?.stop.abort();
    wake();
  });
  // Between questions the terminal is not in raw mode: Ctrl+C is a signal, and leaves as Esc does in a question.
  const leave = () => feed.close();
  process.on('SIGINT', leave);
  process.on('SIGTERM', leave);
  try {
    let saidWaiting = false;
    while (!ended) {
      const next = [...queue.values()].sort((a, b) => a.createdAt - b.createdAt)[0];
      if (!next) {
        if (!saidWaiting) log.info('Waiting for questions. Ctrl+C leaves; questions keep waiting.');
        saidWaiting = true;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      saidWaiting = false;
      io.stdout(BELL);
      current = { id: next.id, stop: new AbortController() };
      const end = await answerInteractively(daemon, next, current.stop.signal, queue.size - 1);
      const { settledElsewhere } = current;
      current = undefined;
      queue.delete(next.id);
      if (end.kind === 'left') return 0;
      if (end.kind === 'too-late') cancel(`Too late: ${settledText(end.ask)} just before. Nothing was sent.`);
      if (end.kind === 'stopped' && settledElsewhere) cancel(`No longer waiting: ${settledText(settledElsewhere)}. Nothing was sent.`);
    }
    if (ended.why) {
      cancel(`Stopped: ${ended.why.message}.`);
      return ended.why.exitCode;
    }
    outro('Left: the questions still waiting keep waiting.');
    return 0;
  } finally {
    process.off('SIGINT', leave);
    process.off('SIGTERM', leave);
    feed.close();
  }
}
