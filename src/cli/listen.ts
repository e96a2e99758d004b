// `askbridge listen [--json]`: what happens to questions, as it happens, one line each, for a person
// or (with --json) for a script: the questions already waiting, each one added, each one updated
// while it waits (its session's context arrived), and each one settled with who or what settled it,
// in `askbridge history`'s words. A permission or a plan is one of them: what it asks in one line,
// and once decided, the decision; the end of a turn is what Claude said last, in one line, and once
// replied to, the reply; a wait in the terminal is what Claude Code waits for there. An ask from
// another agent than Claude Code says which ("asked by Codex"). With --json, each line carries the
// ask as the daemon sends it (its agent, turnEnd, reply or terminalWait included).
// Runs until SIGINT or SIGTERM (exit 0) or until the daemon goes away (exit 6).
import { parseArgs } from 'node:util';
import { approvalTarget } from '../approvals.js';
import { describeSource } from '../history-file.js';
import { agentName } from '../agents.js';
import type { AskView } from '../protocol.js';
import { terminalJson, terminalText } from '../visible-text.js';
import { approvalLine, decidedText, decisionInWords } from '../approval-text.js';
import { connectToDaemon } from './client.js';
import type { CommandIo } from './command.js';
import { openFeed, settledText } from './events.js';
import { isLastReply, LAST_REPLY_NOTE, terminalWaitLine, turnEndLine } from './turn-end-text.js';
import { elicitationLine, elicitationResultText } from '../elicitation-text.js';

/** `waiting`: already there when listen started; `added`: asked since; `updated`: changed while it waits; `resolved`: settled, no longer waiting. */
type Happening = 'waiting' | 'added' | 'updated' | 'resolved';

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { json: { type: 'boolean', default: false } } });
  const print = (happening: Happening, ask: AskView) => io.stdout(values.json ? jsonLine(happening, ask) : readableLine(happening, ask));
  const feed = await openFeed(connectToDaemon(io.env), (event) => {
    if (event.type === 'added' || event.type === 'updated' || event.type === 'resolved') print(event.type, event.ask);
  });
  for (const ask of feed.waiting) print('waiting', ask);

  const stop = () => feed.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const why = await feed.ended;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  if (why) throw why;
  return 0;
}

/** One JSON object a line: the ask as the daemon shows it, and for a settled one who or what settled it (the person and their device, once people are defined). */
function jsonLine(happening: Happening, ask: AskView): string {
  const settled = happening === 'resolved' ? describeSource(ask) : undefined;
  const line = {
    event: happening,
    id: ask.id,
    sessionId: ask.sessionId,
    status: ask.status,
    ...(settled ? { by: settled.source, ...(settled.detail ? { detail: settled.detail } : {}), ...(settled.person === undefined ? {} : { person: settled.person }), ...(settled.device === undefined ? {} : { device: settled.device }) } : {}),
    ask,
  };
  return `${terminalJson(line)}\n`;
}

const clock = (time: number) => new Date(time).toTimeString().slice(0, 8);

/**
 * Every text in a readable line comes from a model, a repository or a request: marked, and its lines
 * after the first indented, so a newline in it cannot start a line that looks like an event (each
 * event's line starts with its time, at the left edge).
 */
const shown = (text: string) => terminalText(text, '    ');

function readableLine(happening: Happening, ask: AskView): string {
  const time = clock(happening === 'resolved' ? (ask.resolvedAt ?? Date.now()) : happening === 'updated' ? Date.now() : ask.createdAt);
  return `${time}  ${happening.padEnd(8)}  ${shown(ask.id)}  ${whatHappened(happening, ask)}\n`;
}

function whatHappened(happening: Happening, ask: AskView): string {
  if (happening === 'resolved') return `${settledText(ask)}${ask.answers ? `  ${terminalJson(ask.answers)}` : ''}${ask.reply === undefined ? '' : `  reply: ${terminalJson(ask.reply)}`}${decided(ask)}`;
  if (happening === 'updated') {
    const { title, branch } = ask.context ?? {};
    const session = [title === undefined ? '' : `session "${shown(title)}"`, branch === undefined ? '' : `on ${shown(branch)}`].filter(Boolean).join(' ');
    return `${session ? `${session}, ` : ''}expires ${clock(ask.expiresAt)}`;
  }
  const agent = ask.agent && ask.agent !== 'claude-code' ? `  asked by ${agentName(ask.agent)}` : '';
  return `${asked(ask)}  session ${shown(ask.sessionId)}  ${shown(ask.cwd)}${agent}`;
}

/**
 * What is asked: "2 questions (Database, Deploy)", or "Permission · Bash: npm test", "Plan: …", the
 * end of a turn as "Claude finished: …", a wait as "waiting for you in the terminal (…): …", an
 * MCP server's request as "forms asks: …".
 */
function asked(ask: AskView): string {
  if (ask.approval) return shown(approvalLine(ask.approval));
  if (ask.turnEnd) return `${shown(turnEndLine(ask.turnEnd))}${isLastReply(ask.turnEnd) ? ` (${LAST_REPLY_NOTE})` : ''}`;
  if (ask.terminalWait) return shown(terminalWaitLine(ask.terminalWait));
  if (ask.elicitation) return `${shown(elicitationLine(ask.elicitation))}${ask.elicitationResult ? ` (${shown(elicitationResultText(ask.elicitationResult))})` : ''}`;
  return `${ask.questions.length === 1 ? '1 question' : `${ask.questions.length} questions`} (${ask.questions.map((one) => shown(one.header || one.question)).join(', ')})`;
}

/** A decided permission's decision and what it was for: "  allowed (Always allow …) · Bash: npm test". */
function decided(ask: AskView): string {
  const decision = decisionInWords(ask);
  if (!ask.approval || !decision) return '';
  return `  ${shown(decidedText(ask.approval.toolName, approvalTarget(ask.approval.toolName, ask.approval.toolInput), decision))}`;
}
