// `askbridge history`: the finished questions, newest first (as on the page), from history.jsonl in the state directory,
// or with a shared store set, every daemon's, from the store (--local: this daemon's file all the same; each line then
// names its daemon when they are not all one's, and --json lines carry it as `daemon`);
// with --search, only those that hold the text, as the page's history searches them. A permission
// or a plan reads as its decision, the call, and who decided: "allowed once · Bash: npm test · by page"
// ("· by alice on Pixel 8 (page)" once people are defined, who is also named on each entry's first line);
// a risky one says why under it ("RISKY: force-pushes: …", the reasons its history line keeps).
// The end of a turn reads as what Claude said last (its start, in one line), how it ended ("replied
// by a person (cli): Claude went on"), and the person's reply, quoted. A question from another agent
// than Claude Code says which ("asked by Codex"); a line without an agent is Claude Code's, or a script's.
// A decision a relay has not delivered yet says "answered, not yet delivered"; one it never can, "not delivered: WHY".
import { parseArgs } from 'node:util';
import type { Client } from 'pg';
import { getOwn } from '../answers.js';
import { deliveryText, historyMatching, lineDeciderWords, readHistoryTail, type HistoryFilter, type HistoryLine } from '../history-file.js';
import { askbridgeCommand } from '../command-name.js';
import { connectClient, describeStoreError, StoreConnectError } from '../store/connect.js';
import { readStoreHistory } from '../store/records.js';
import { chooseStore } from '../store/setting.js';
import { agentName } from '../agents.js';
import { terminalJson, terminalText } from '../visible-text.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { decidedText, toolLine } from '../approval-text.js';
import { CliError, type CommandIo } from './command.js';
import { turnEndLine } from './turn-end-text.js';
import { elicitationLine, elicitationResultText } from '../elicitation-text.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { json: { type: 'boolean', default: false }, limit: { type: 'string', default: '20' }, search: { type: 'string' }, local: { type: 'boolean', default: false } } });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit takes a whole number above 0', 2);
  const keep = historyMatching(values.search ?? '');
  const lines = values.local ? readHistoryTail(openStateDir(resolveStateDir(io.env)).paths.history, limit, keep) : await fromStoreOrFile(io, limit, keep);
  if (values.json) {
    for (const line of lines) io.stdout(`${terminalJson(line)}\n`);
    return;
  }
  if (lines.length === 0) io.stdout(values.search ? 'No finished question holds that text.\n' : 'No finished questions yet.\n');
  // Which daemon wrote a line, only where they are not all one's.
  const manyDaemons = new Set(lines.map((line) => line.daemon)).size > 1;
  for (const line of lines) {
    // Model text (and anything else read back from the file) is shown with its invisible characters marked.
    const agent = line.agent && line.agent !== 'claude-code' ? `  asked by ${terminalText(agentName(line.agent))}` : '';
    // Who decided, once people are defined: "by alice on Pixel 8".
    const who = lineDeciderWords(line);
    const from = manyDaemons && line.daemon !== undefined ? `  on daemon ${terminalText(line.daemon)}` : '';
    io.stdout(`${terminalText(line.finishedAt)}  ${terminalText(line.source)}${line.detail ? ` (${terminalText(line.detail, '  ')})` : ''}${who === undefined ? '' : `  by ${terminalText(who)}`}  ${terminalText(line.project, '  ')}${agent}${from}\n`);
    // A relayed decision that has not reached its agent says so; an undeliverable one says why (its error).
    const delivery = deliveryText(line);
    if (delivery) io.stdout(`  ${terminalText(delivery, '    ')}\n`);
    else if (line.error) io.stdout(`  error: ${terminalText(line.error, '    ')}\n`);
    if (line.approval) io.stdout(`  ${terminalText(approvalOutcome(line, line.approval), '    ')}\n`);
    if (line.approval?.risk) io.stdout(`  ${terminalText(`RISKY: ${line.approval.risk.join('; ')}`, '    ')}\n`);
    if (line.turnEnd) await printTurnEnd(io, line, line.turnEnd.said);
    if (line.elicitation) printElicitation(io, line, line.elicitation);
    for (const { question } of line.questions) {
      const answer = getOwn(line.answers, question);
      io.stdout(`  ${terminalText(question, '  ')}\n    -> ${answer === undefined ? '(no answer)' : terminalText(answer, '       ')}\n`);
      // What the person added to their answer, under it.
      const note = getOwn(line.notes, question);
      if (note) io.stdout(`       note: ${terminalText(note, '             ')}\n`);
    }
  }
}

/**
 * With a shared store set, every daemon's history, read there; without one, this daemon's file. A
 * store that cannot be used is an error that says why, and that --local reads the file.
 */
async function fromStoreOrFile(io: CommandIo, limit: number, keep: HistoryFilter): Promise<HistoryLine[]> {
  const choice = chooseStore(io.env);
  if (choice.kind === 'none') return readHistoryTail(openStateDir(resolveStateDir(io.env)).paths.history, limit, keep);
  const local = `\`${askbridgeCommand(io.env)} history --local\` reads this daemon's own history`;
  if (choice.kind === 'error') throw new CliError(`${choice.message}\n${local}`);
  let client: Client;
  try {
    client = await connectClient(choice.setting.url, io.env);
  } catch (error) {
    if (error instanceof StoreConnectError) throw new CliError(`the shared store cannot be read: ${error.message}\n${local}`);
    throw error;
  }
  try {
    return await readStoreHistory(client, { limit, keep });
  } catch (error) {
    throw new CliError(`the shared store cannot be read: ${describeStoreError(error, choice.setting.url)}\n${local}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The end of a turn: what Claude said (its start, in one line), how it ended, and the person's reply. */
async function printTurnEnd(io: CommandIo, line: HistoryLine, said: string): Promise<void> {
  // Loaded only here: the live feed's module brings the words, and the WebSocket package with them.
  const { settledLineText } = await import('./events.js');
  io.stdout(`  ${terminalText(turnEndLine({ lastMessage: said }), '    ')}\n  -> ${settledLineText(line)}\n`);
  // Their own words, exactly as Claude received them: on one line, quoted and escaped.
  if (line.reply !== undefined) io.stdout(`     reply: ${terminalJson(line.reply)}\n`);
}

/** An MCP server's request for input: "forms asks: MESSAGE", its link's host, and what was sent back (or how it ended without a response). */
function printElicitation(io: CommandIo, line: HistoryLine, elicitation: NonNullable<HistoryLine['elicitation']>): void {
  io.stdout(`  ${terminalText(elicitationLine(elicitation), '    ')}${elicitation.host === undefined ? '' : `  (link to ${terminalText(elicitation.host)})`}\n`);
  const ended = elicitation.result ? elicitationResultText(elicitation.result) : line.status === 'handed-to-terminal' ? `left to ${agentName(line.agent ?? 'claude-code')}'s own dialog` : line.detail === 'the session moved on' ? 'let go: the session moved on' : line.status;
  io.stdout(`    -> ${terminalText(ended, '       ')}\n`);
}

/**
 * How a permission ended, in one line (not marked): decided ("allowed (Always allow …) · Bash: npm
 * test · by page", "denied: use the test database · Bash: …"), or not ("answered in the terminal ·
 * Bash: …", "withdrawn · Bash: …").
 */
function approvalOutcome(line: HistoryLine, approval: NonNullable<HistoryLine['approval']>): string {
  if (line.decision) {
    const who = lineDeciderWords(line);
    const by = line.source === 'person' && line.detail ? ` · by ${who === undefined ? line.detail : `${who} (${line.detail})`}` : '';
    return `${decidedText(approval.toolName, approval.target, line.decision)}${by}`;
  }
  return `${undecidedText(line)} · ${toolLine(approval.toolName, approval.target)}`;
}

/** How a permission nobody decided here ended. */
function undecidedText(line: HistoryLine): string {
  // describeSource (history-file.ts) writes this detail for a permission given in Claude Code's own dialog.
  if (line.detail === 'answered in the terminal') return 'answered in the terminal';
  if (line.status === 'handed-to-terminal') return "left to Claude Code's own dialog";
  if (line.status === 'cancelled') return 'withdrawn';
  if (line.status === 'failed') return 'not delivered';
  return line.status;
}
