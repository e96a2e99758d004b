// `askbridge history`: the finished questions, newest last, from history.jsonl in the state directory;
// with --search, only those that hold the text, as the page's history searches them.
import { parseArgs } from 'node:util';
import { getOwn } from '../answers.js';
import { historyMatching, readHistoryTail } from '../history-file.js';
import { terminalJson, terminalText } from '../visible-text.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { json: { type: 'boolean', default: false }, limit: { type: 'string', default: '20' }, search: { type: 'string' } } });
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit takes a whole number above 0', 2);
  const lines = readHistoryTail(openStateDir(resolveStateDir(io.env)).paths.history, limit, historyMatching(values.search ?? ''));
  if (values.json) {
    for (const line of lines) io.stdout(`${terminalJson(line)}\n`);
    return;
  }
  if (lines.length === 0) io.stdout(values.search ? 'No finished question holds that text.\n' : 'No finished questions yet.\n');
  for (const line of lines) {
    // Model text (and anything else read back from the file) is shown with its invisible characters marked.
    io.stdout(`${terminalText(line.finishedAt)}  ${terminalText(line.source)}${line.detail ? ` (${terminalText(line.detail, '  ')})` : ''}  ${terminalText(line.project, '  ')}\n`);
    if (line.error) io.stdout(`  error: ${terminalText(line.error, '    ')}\n`);
    for (const { question } of line.questions) {
      const answer = getOwn(line.answers, question);
      io.stdout(`  ${terminalText(question, '  ')}\n    -> ${answer === undefined ? '(no answer)' : terminalText(answer, '       ')}\n`);
      // What the person added to their answer, under it.
      const note = getOwn(line.notes, question);
      if (note) io.stdout(`       note: ${terminalText(note, '             ')}\n`);
    }
  }
}
