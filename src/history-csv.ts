// History as CSV, for a spreadsheet: one row per question (a line without questions, such as a
// permission, the end of a turn, or the note that some could not be recorded, is one row too),
// quoted as RFC 4180 says. Who decided: the person (empty with no people defined) and the device or
// chat. A permission's row says what was allowed or denied: the tool, what it acted on, the
// decision, the "always allow" suggestion taken, the deny message and whether it stopped Claude,
// and why it was risky; the end of a turn's, what Claude said and the person's reply; a relayed
// decision's, whether it reached its agent. Every cell is
// text someone else wrote (the model's questions, answers, project paths), so a cell a spreadsheet
// would take for a formula (starting with =, +, -, @, a tab or a carriage return) starts with a `'`
// instead: opened in a spreadsheet, the export shows text and runs nothing.
import { getOwn } from './answers.js';
import { deliveryText, type HistoryLine } from './history-file.js';

export const HISTORY_CSV_COLUMNS = [
  'finished', 'asked', 'project', 'session', 'asker', 'machine', 'status', 'source', 'detail', 'person', 'device', 'header', 'question', 'answer', 'note',
  'tool', 'target', 'decision', 'suggestion', 'message', 'interrupt', 'said', 'reply', 'delivery', 'risk',
] as const;

/** The whole file: the header row, then each line's rows in the order given, every row ended by CRLF. */
export function historyCsv(lines: Iterable<HistoryLine>): string {
  const rows: string[] = [csvRow(HISTORY_CSV_COLUMNS)];
  for (const line of lines) for (const row of rowsOf(line)) rows.push(csvRow(row));
  return `${rows.join('\r\n')}\r\n`;
}

function rowsOf(line: HistoryLine): string[][] {
  // Who asked: the agent (claude-code, codex, opencode; a line from before agents were named is Claude Code's), or `script:NAME`, `mcp:NAME`.
  const asker = line.asker ? `${line.asker.kind}:${line.asker.name}` : (line.agent ?? 'claude-code');
  // A failed question's error says why its answer never reached Claude: it belongs with the detail.
  const detail = [line.detail, line.error].filter((text) => text !== undefined && text !== '').join(': ');
  const common = [line.finishedAt, line.askedAt, line.project, line.sessionId, asker, line.machine ?? '', line.status, line.source, detail, line.person ?? '', line.device ?? ''];
  const { approval, decision } = line;
  // A relayed decision: "answered, not yet delivered", "delivered", or "not delivered: WHY".
  const delivery = deliveryText(line) ?? line.delivery ?? '';
  const decided = [approval?.toolName ?? '', approval?.target ?? '', decision?.behavior ?? '', decision?.suggestion ?? '', decision?.message ?? '', decision?.interrupt ? 'yes' : '', line.turnEnd?.said ?? '', line.reply ?? '', delivery, approval?.risk?.join('; ') ?? ''];
  if (line.questions.length === 0) return [[...common, '', '', '', '', ...decided]];
  return line.questions.map(({ header, question }) => [...common, header, question, getOwn(line.answers, question) ?? '', getOwn(line.notes, question) ?? '', ...decided]);
}

/** One row: each cell defused and quoted as csvCell says. */
export function csvRow(cells: readonly string[]): string {
  return cells.map(csvCell).join(',');
}

/** One cell: defused when a spreadsheet would read it as a formula, quoted when it holds a quote, a comma or a line break. */
export function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
