// `askbridge audit verify|export`: the audit trail (audit-file.ts, docs/audit.md), read straight from
// the state directory, with or without the daemon. `verify` checks every line and the head and names
// the first broken line (exit 1); `export` writes the lines of a time range as JSON lines (each
// exactly as in the trail, so its MAC still checks) or as CSV.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditCsv } from '../audit-csv.js';
import { fileLines, parseAuditKey, readAuditLine, verifyAuditTrail, type AuditLine } from '../audit-file.js';
import { askbridgeCommand } from '../command-name.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { escapeInvisibleInJson, terminalText } from '../visible-text.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<number> {
  const [action, ...rest] = io.argv;
  const command = askbridgeCommand(io.env);
  const paths = openStateDir(resolveStateDir(io.env)).paths;
  /** The trail: --file, which must exist, else the state directory's (none yet: nothing was recorded). */
  const trailOf = (file: string | undefined) => {
    if (file !== undefined && !existsSync(file)) throw new CliError(`there is no file ${terminalText(file)}`, 2);
    return file ?? paths.audit;
  };
  if (action === 'verify') {
    const { values } = parseArgs({ args: rest, strict: true, options: { file: { type: 'string' } } });
    return verify(io, { trail: trailOf(values.file), head: paths.auditHead, key: paths.auditKey });
  }
  if (action === 'export') {
    const { values } = parseArgs({ args: rest, strict: true, options: { file: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, format: { type: 'string', default: 'json' } } });
    if (values.format !== 'json' && values.format !== 'csv') throw new CliError(`--format takes json or csv, not "${values.format}"`, 2);
    const range = { since: dateOf('--since', values.since), until: dateOf('--until', values.until) };
    if (range.since !== undefined && range.until !== undefined && range.since >= range.until) throw new CliError('--since must be before --until', 2);
    return exportLines(io, trailOf(values.file), range, values.format, command);
  }
  throw new CliError(`say what to do: verify or export (${command} audit --help)`, 2);
}

function verify(io: CommandIo, files: { trail: string; head: string; key: string }): number {
  let keyText: string | undefined;
  try {
    keyText = readFileSync(files.key, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`its key ${files.key} cannot be read: ${(error as Error).message}`);
  }
  const key = keyText === undefined ? undefined : parseAuditKey(keyText);
  if (keyText !== undefined && !key) throw new CliError(`its key ${files.key} is not 64 hexadecimal characters`);
  // No key: nothing was ever recorded in this state directory (it is made with the first line), or it was lost.
  const verdict = verifyAuditTrail(files, key ?? Buffer.alloc(32));
  if (!key && !(verdict.ok && verdict.lines === 0)) throw new CliError(`its key ${files.key} is missing: no line's MAC can be checked without it (put it back from its backup)`);
  if (!verdict.ok) {
    io.stdout(`line ${verdict.line}: ${terminalText(verdict.problem)}\n`);
    return 1;
  }
  io.stdout(verdict.lines === 0 ? 'ok: 0 lines (nothing recorded yet)\n' : `ok: ${verdict.lines} lines, from ${verdict.from} to ${verdict.to}\n`);
  return 0;
}

/** A date or time as --since and --until take it (anything Date reads: 2026-12-01, 2026-12-01T09:30:00Z), in ms. */
function dateOf(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new CliError(`${flag} takes a date or a time (2026-12-01, 2026-12-01T09:30:00Z), not "${terminalText(value)}"`, 2);
  return ms;
}

/**
 * The lines from --since (included) to --until (not included). A line that cannot be read is left
 * out, said on stderr, and the exit is 1: what is written is what could be read.
 */
function exportLines(io: CommandIo, trail: string, range: { since: number | undefined; until: number | undefined }, format: 'json' | 'csv', command: string): number {
  const inRange = (line: AuditLine) => (range.since === undefined || line.atMs >= range.since) && (range.until === undefined || line.atMs < range.until);
  const lines: AuditLine[] = [];
  let skipped = 0;
  let number = 0;
  for (const { bytes } of existsSync(trail) ? fileLines(trail) : []) {
    number += 1;
    const text = bytes.toString('utf8');
    const read = readAuditLine(text);
    if (!read.ok) {
      skipped += 1;
      io.stderr(`line ${number} left out: ${read.problem}\n`);
      continue;
    }
    if (!inRange(read.line)) continue;
    // Exactly as in the trail (its MAC still checks); a line askbridge wrote has no invisible character left to escape.
    if (format === 'json') io.stdout(`${escapeInvisibleInJson(text)}\n`);
    else lines.push(read.line);
  }
  if (format === 'csv') io.stdout(auditCsv(lines));
  if (skipped > 0) {
    io.stderr(`${skipped} line(s) could not be read: \`${command} audit verify\` says what is wrong\n`);
    return 1;
  }
  return 0;
}
