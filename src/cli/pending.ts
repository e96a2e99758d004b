// `askbridge pending`: the questions waiting now, the permissions and plans waiting to be allowed
// or denied, each with Claude Code's suggestions numbered as `answer --allow-suggestion N` takes them,
// the ends of Claude's turns waiting for a reply (what Claude said last, in one line), and the
// sessions waiting for the person in their terminal; first, a relayed ask answered whose decision has
// not reached its agent yet ("answered, not yet delivered"). An ask from another agent than Claude Code
// says which ("asked by Codex"), as one from a script or an MCP client says who.
// Their text comes from a model: every invisible or terminal-active character is shown as a
// `[U+XXXX]` marker, and a newline indents what follows.
import { parseArgs } from 'node:util';
import { agentName } from '../agents.js';
import { AsksReplySchema, type Approval, type AskView, type TurnEnd } from '../protocol.js';
import { shorten } from '../shorten.js';
import { terminalJson, terminalText } from '../visible-text.js';
import { approvalLine } from '../approval-text.js';
import { CLI_MAY_ONLY_DENY, twoPeopleLine } from '../two-people.js';
import { askbridgeCommand } from '../command-name.js';
import { connectToDaemon } from './client.js';
import type { CommandIo } from './command.js';
import { readReply } from './replies.js';
import { elicitationDetails, elicitationLine } from '../elicitation-text.js';
import { isLastReply, LAST_REPLY_NOTE, replyCommand, terminalWaitLine, turnEndLine } from './turn-end-text.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { json: { type: 'boolean', default: false } }, strict: true });
  const reply = await connectToDaemon(io.env).request('GET', '/api/asks');
  const body = readReply(AsksReplySchema, reply.body, 'list of asks');
  if (values.json) {
    io.stdout(`${terminalJson(body.asks)}\n`);
    return;
  }
  // A relayed decision on its way: answered in askbridge, but its agent has not confirmed it took it.
  const undelivered = body.undelivered ?? [];
  for (const call of undelivered) io.stdout(`${terminalText(call.id)}  ${terminalText(call.cwd, '  ')}${askedBy(call)}  (${call.status}, not yet delivered)\n`);
  if (body.asks.length === 0) {
    io.stdout(undelivered.length === 0 ? 'No questions waiting.\n' : 'No questions waiting for an answer.\n');
    return;
  }
  for (const call of body.asks) {
    if (call.terminalWait) {
      // Nothing here answers it, and it has no deadline worth counting down: it waits until the session moves on.
      io.stdout(`${terminalText(call.id)}  ${terminalText(call.cwd, '  ')}${askedBy(call)}\n  ${terminalText(terminalWaitLine(call.terminalWait), '     ')}  (session ${terminalText(call.sessionId, '     ')})\n`);
      continue;
    }
    const seconds = Math.max(0, Math.round((call.expiresAt - Date.now()) / 1000));
    io.stdout(`${terminalText(call.id)}  ${terminalText(call.cwd, '  ')}${askedBy(call)}  (${seconds}s left, then ${terminalText(call.timeout.summary, '  ')})\n`);
    if (call.approval) listApproval(io, call, call.approval);
    if (call.turnEnd) listTurnEnd(io, call, call.turnEnd);
    if (call.elicitation) listElicitation(io, call, call.elicitation);
    call.questions.forEach((question, index) => {
      const kind = question.multiSelect ? 'pick one or more' : 'pick one';
      const header = question.header ? `[${terminalText(question.header, '     ')}] ` : '';
      io.stdout(`  ${index + 1}. ${header}${terminalText(question.question, '     ')}  (${kind})\n`);
      for (const option of question.options) io.stdout(`       - ${terminalText(option.label, '         ')}: ${terminalText(option.description, '         ')}\n`);
    });
  }
}

/** "  asked by the script NAME", "  asked by Codex" (also an agent asking through the MCP tool); nothing for Claude Code, which every line assumed before there were others. */
function askedBy(call: AskView): string {
  if (call.asker && call.agent === undefined) return `  asked by ${call.asker.kind === 'mcp' ? 'the MCP client' : 'the script'} ${terminalText(call.asker.name)}`;
  return call.agent && call.agent !== 'claude-code' ? `  asked by ${agentName(call.agent)}` : '';
}

/**
 * What is asked in one line ("Permission · Bash: npm test", "Plan: …"), its session, and each
 * suggestion by its number; one two people must allow says where it stands, and offers no allow.
 */
function listApproval(io: CommandIo, call: AskView, approval: Approval): void {
  const { risk } = call;
  const two = twoPeopleLine(call);
  io.stdout(`  ${terminalText(approvalLine(approval), '     ')}  (session ${terminalText(call.sessionId, '     ')})\n`);
  if (two !== undefined) {
    io.stdout(`       ${two} (${CLI_MAY_ONLY_DENY}: --deny)\n`);
    if (risk) io.stdout(`       RISKY: ${terminalText(risk.reasons.join('; '), '         ')}\n`);
    return;
  }
  if (risk) io.stdout(`       RISKY: ${terminalText(risk.reasons.join('; '), '         ')} (allow it with --allow --confirm-risky)\n`);
  for (const [index, suggestion] of approval.suggestions.entries()) io.stdout(`       - suggestion ${index + 1}: ${terminalText(suggestion.label, '         ')}\n`);
}

/** What Claude said last, in one line, its session and title, and whether the next reply is the last in a row. */
function listTurnEnd(io: CommandIo, call: AskView, turnEnd: TurnEnd): void {
  io.stdout(`  ${terminalText(turnEndLine(turnEnd), '     ')}  (session ${terminalText(call.sessionId, '     ')})\n`);
  const title = call.context?.title;
  if (title !== undefined) io.stdout(`       - session title: ${terminalText(shorten(title, TITLE_CHARS), '         ')}\n`);
  if (isLastReply(turnEnd)) io.stdout(`       - ${LAST_REPLY_NOTE}\n`);
  io.stdout(`       - reply: ${terminalText(replyCommand(call, askbridgeCommand(io.env)), '         ')} TEXT... (or --done: Claude stops)\n`);
}

/** An MCP server's request: "forms asks: MESSAGE", its session, its fields or its link, and how to respond. */
function listElicitation(io: CommandIo, call: AskView, elicitation: NonNullable<AskView['elicitation']>): void {
  io.stdout(`  ${terminalText(elicitationLine(elicitation), '     ')}  (session ${terminalText(call.sessionId, '     ')})\n`);
  for (const detail of elicitationDetails(elicitation)) io.stdout(`       - ${terminalText(detail, '         ')}\n`);
  io.stdout(`       - respond: POST /api/asks/${terminalText(call.id)}/elicitation {"action": "accept", "content": {...}} | {"action": "decline"} | {"action": "cancel"}, or hand it to ${call.choices.handBack === undefined || call.choices.handBack === 'the terminal' ? "Claude Code's own dialog" : terminalText(call.choices.handBack)}: POST /api/asks/${terminalText(call.id)}/terminal\n`);
}

/** A session's title (its first prompt) in a list, on one line. */
const TITLE_CHARS = 80;
