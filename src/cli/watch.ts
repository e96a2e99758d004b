// `askbridge watch`: a terminal inbox. It waits for questions and runs the interactive answer
// (flow.ts) for each, oldest first, with a bell and the count of the others waiting; the end of
// Claude's turn while the person is away is one of them (its last message, and a line for the
// reply). An MCP server's request for input is asked as a question is (elicitation-flow.ts: a form
// field by field, a link with its host). A session waiting for the person in its terminal is
// printed as a line between questions: nothing here answers it. A question settled elsewhere leaves
// the queue (and stops its flow at once, with nothing sent). Esc in a question skips it: it keeps
// waiting (the page and `askbridge answer` still have it), and watch goes on to the next. A skipped
// question is not asked again while anything else waits, nor by itself: once nothing else waits,
// Enter asks the skipped ones again, oldest first. While two or more permissions wait, `r` on a
// permission opens Review all, as `answer --all` (answer-all.ts): every waiting permission shown
// whole, the ticked ones decided; then watch goes on with what still waits. Ctrl+C leaves, exit 0:
// every question still waiting keeps waiting. Exit 6 when the daemon stops.
import { askbridgeCommand } from '../command-name.js';
import { emitKeypressEvents } from 'node:readline';
import { parseArgs } from 'node:util';
import { cancel, log, outro } from '@clack/prompts';
import type { AskView } from '../protocol.js';
import { markInvisible } from '../visible-text.js';
import { connectToDaemon } from './client.js';
import { reviewable, reviewAll } from './answer-all.js';
import { CliError, type CommandIo } from './command.js';
import { openFeed, settledText } from './events.js';
import { respondInteractively } from './elicitation-flow.js';
import { answerInteractively, askUpdates } from './flow.js';
import { terminalWaitLine } from './turn-end-text.js';

/** What watch prints as a line instead of asking: a wait in the terminal. */
function isNotice(ask: AskView): boolean {
  return ask.terminalWait !== undefined;
}

const BELL = '\u0007';

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { confirm: { type: 'boolean', default: false } } });
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError(`watch asks on a terminal, and there is none here: \`${askbridgeCommand(io.env)} listen --json\` streams the same events for a script`, 2);
  }
  const daemon = connectToDaemon(io.env);
  const queue = new Map<string, AskView>();
  const skipped = new Set<string>();
  const updates = askUpdates();
  /** The permissions Review all would show now, oldest first. */
  const permissionsWaiting = () => [...queue.values()].filter(reviewable).sort((a, b) => a.createdAt - b.createdAt);
  let current: { id: string; stop: AbortController; settledElsewhere?: AskView } | undefined;
  /** While Review all runs: how each one settled elsewhere meanwhile, and what ends it when the daemon goes away. */
  let reviewing: { stop: AbortController; settledElsewhere: Map<string, AskView> } | undefined;
  let wake = () => {};
  /** Waits in the terminal not printed yet: each is printed once, as a line, between questions. */
  const notices = new Map<string, AskView>();
  const feed = await openFeed(daemon, (event) => {
    if (event.type === 'added') (isNotice(event.ask) ? notices : queue).set(event.ask.id, event.ask);
    if (event.type === 'updated' && queue.has(event.ask.id)) {
      queue.set(event.ask.id, event.ask);
      if (current?.id === event.ask.id) updates.publish(event.ask);
    }
    if (event.type === 'resolved') {
      queue.delete(event.ask.id);
      notices.delete(event.ask.id);
      skipped.delete(event.ask.id);
      reviewing?.settledElsewhere.set(event.ask.id, event.ask);
      if (current?.id === event.ask.id) {
        current.settledElsewhere = event.ask;
        current.stop.abort();
      }
    }
    wake();
  });
  for (const ask of feed.waiting) (isNotice(ask) ? notices : queue).set(ask.id, ask);
  let ended: { why: CliError | undefined } | undefined;
  void feed.ended.then((why) => {
    ended = { why };
    current?.stop.abort();
    reviewing?.stop.abort();
    wake();
  });
  // Outside a question and its wait for keys the terminal is not in raw mode: Ctrl+C is a signal then.
  const leave = () => feed.close();
  process.on('SIGINT', leave);
  process.on('SIGTERM', leave);
  try {
    let saidWaiting = false;
    while (!ended) {
      for (const notice of notices.values()) {
        if (notice.terminalWait) log.info(markInvisible(`${terminalWaitLine(notice.terminalWait)} · ${notice.cwd}`));
        saidWaiting = false;
      }
      notices.clear();
      const waiting = [...queue.values()].filter((ask) => !skipped.has(ask.id)).sort((a, b) => a.createdAt - b.createdAt);
      const next = waiting[0];
      if (!next) {
        if (!saidWaiting) log.info(waitingText(skipped.size));
        saidWaiting = true;
        const woken = new Promise<void>((resolve) => (wake = resolve));
        const key = await keysWhileIdle(woken);
        if (key === 'ctrl-c') {
          feed.close();
          await feed.ended;
        } else if (key === 'enter' && skipped.size > 0) {
          skipped.clear();
          saidWaiting = false;
        }
        continue;
      }
      saidWaiting = false;
      io.stdout(BELL);
      current = { id: next.id, stop: new AbortController() };
      const ask = next.elicitation ? respondInteractively : answerInteractively;
      const end = await ask(daemon, next, current.stop.signal, { waiting: { after: waiting.length - 1, skipped: skipped.size }, confirm: values.confirm, escape: 'skip', updates, reviewAll: () => permissionsWaiting().length });
      const { settledElsewhere } = current;
      current = undefined;
      if (end.kind === 'left' && end.by === 'ctrl-c') {
        cancel('Left: nothing was sent; the questions still waiting keep waiting.');
        return 0;
      }
      if (end.kind === 'review-all') {
        // Every waiting permission, those skipped too; what is not decided keeps waiting, and watch goes on with it.
        const calls = permissionsWaiting();
        if (ended || calls.length === 0) continue;
        reviewing = { stop: new AbortController(), settledElsewhere: new Map() };
        const review = await reviewAll(daemon, calls, { settledElsewhere: reviewing.settledElsewhere, stop: reviewing.stop.signal, command: askbridgeCommand(io.env) });
        reviewing = undefined;
        if (review.kind === 'left' && review.by === 'ctrl-c') return 0;
        // Those it decided leave the queue now: the feed's word of them may come later, and none is asked again.
        if (review.kind === 'done') for (const id of review.settled) queue.delete(id);
        continue;
      }
      if (end.kind === 'left') {
        skipped.add(next.id);
        cancel('Skipped: nothing was sent, it still waits. Once nothing else waits, Enter asks it again.');
        continue;
      }
      queue.delete(next.id);
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

function waitingText(skipped: number): string {
  if (skipped === 0) return 'Waiting for questions. Ctrl+C leaves; questions keep waiting.';
  const them = skipped === 1 ? '1 skipped question still waits: Enter asks it again' : `${skipped} skipped questions still wait: Enter asks them again`;
  return `Waiting for questions. ${them}. Ctrl+C leaves; questions keep waiting.`;
}

/**
 * While nothing is asked: Enter (ask the skipped questions again) and Ctrl+C (leave), read in raw
 * mode, so nothing typed is echoed; any other key is dropped. Ends when `woken` settles (a question
 * arrived or was settled, or the daemon went away).
 */
function keysWhileIdle(woken: Promise<void>): Promise<'enter' | 'ctrl-c' | 'woken'> {
  const input = process.stdin;
  emitKeypressEvents(input);
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve) => {
    let done = false;
    const finish = (why: 'enter' | 'ctrl-c' | 'woken') => {
      if (done) return;
      done = true;
      input.off('keypress', onKey);
      input.setRawMode(false);
      input.pause();
      resolve(why);
    };
    const onKey = (_text: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
      if (key?.ctrl === true && key.name === 'c') finish('ctrl-c');
      else if (key?.name === 'return') finish('enter');
    };
    input.on('keypress', onKey);
    void woken.then(() => finish('woken'));
  });
}
