// The audit trail as CSV, for a spreadsheet: one row per line, quoted and defused as history's CSV is
// (history-csv.ts): every cell may hold text a model or an agent wrote. `kind` is the line's event
// (`settled`, or `allow`: one of two allows); the decision and the input are compact one-line JSON.
import type { AuditLine } from './audit-file.js';
import { csvRow } from './history-csv.js';
import { terminalJson } from './visible-text.js';

export const AUDIT_CSV_COLUMNS = ['time', 'kind', 'ask', 'agent', 'machine', 'project', 'person', 'device', 'client', 'status', 'decision', 'input'] as const;

/**
 * The header row, then one row per line in the order given, every row ended by CRLF. Lines read from
 * a shared store (`fromStore`) name the daemon that copied them, in a last column, `daemon`.
 */
export function auditCsv(lines: Iterable<{ line: AuditLine; daemon?: string }>, fromStore = false): string {
  const rows = [csvRow(fromStore ? [...AUDIT_CSV_COLUMNS, 'daemon'] : AUDIT_CSV_COLUMNS)];
  for (const { line, daemon } of lines) rows.push(csvRow(fromStore ? [...rowOf(line), daemon ?? ''] : rowOf(line)));
  return `${rows.join('\r\n')}\r\n`;
}

function rowOf(line: AuditLine): string[] {
  // Who asked: the agent, or `script:NAME`, `mcp:NAME`.
  const agent = line.asker ? `${line.asker.kind}:${line.asker.name}` : (line.agent ?? '');
  const who = line.by.kind === 'person' ? line.by : undefined;
  const { status, ...decided } = line.decision;
  return [
    line.at,
    line.event,
    line.ask,
    agent,
    line.machine ?? '',
    line.project,
    who?.person ?? '',
    who?.device ?? '',
    // What settled it when no person did: a policy, a grant, the terminal...
    who?.client ?? line.by.kind,
    status,
    Object.keys(decided).length > 0 ? terminalJson(decided) : '',
    terminalJson(line.input),
  ];
}
