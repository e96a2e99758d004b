// `askbridge history`: the finished questions, newest last, from history.jsonl in the state directory.
import { parseArgs } from 'node:util';
import { readHistoryTail } from '../daemon/history.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { json: { type: 'boolean', default: false }, limit: { type: 'string', default: '20' } } });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit takes a whole number above 0', 2);
  const lines = readHistoryTail(openStateDir(resolveStateDir(io.env)).paths.history, limit);
  if (values.json) {
    for (const line of lines) io.stdout(`${JSON.stringify(line)}\n`);
    return;
  }
  if (lines.length === 0) io.stdout('No finished questions yet.\n');
  for (const line of lines) {
    io.stdout(`${line.finishedAt}  ${line.source}${line.detail ? ` (${line.detail})` : ''}  ${line.project}\n`);
    for (const { question } of line.questions) io.stdout(`  ${question}\n    -> ${line.answers?.[question] ?? '(no answer)'}\n`);
  }
}
