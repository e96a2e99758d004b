// `askbridge logs`: the background daemon's log, readable. The log is JSON lines written by pino
// (rotated by pino-roll); each line is shown through pino-pretty, coloured only on a terminal
// without NO_COLOR. Log fields can hold model text (a question's header): control characters in
// them are shown as visible marks, never written raw to the terminal.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { prettyFactory } from 'pino-pretty';
import { currentLogFile, wantsColor } from '../daemon/logger.js';
import { resolveStateDir } from '../state-dir.js';
import { markInvisible } from '../visible-text.js';
import { CliError, type CommandIo } from './command.js';

const FOLLOW_POLL_MS = 200;

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args: io.argv,
    strict: true,
    options: { lines: { type: 'string', short: 'n', default: '50' }, follow: { type: 'boolean', short: 'f', default: false }, json: { type: 'boolean', default: false } },
  });
  const count = Number(values.lines);
  if (!Number.isInteger(count) || count < 0) throw new CliError('--lines takes a whole number', 2);
  const link = currentLogFile(resolveStateDir(io.env));
  let file = resolveLog(link);
  if (file === undefined) throw new CliError(`no log yet at ${link}: a daemon started with \`askbridge start --background\` writes it (one in the foreground logs to its terminal)`);

  const format = values.json ? (line: string) => `${line}\n` : formatter(wantsColor(io.env, process.stdout.isTTY === true));
  let text = readFileSync(file, 'utf8');
  const lines = completeLines(text);
  for (const line of count === 0 ? [] : lines.slice(-count)) io.stdout(format(line));
  if (!values.follow) return;

  let offset = Buffer.byteLength(lines.length > 0 ? text.slice(0, text.lastIndexOf('\n') + 1) : '');
  for (;;) {
    await sleep(FOLLOW_POLL_MS);
    const now = resolveLog(link);
    if (now !== undefined && now !== file) {
      file = now; // rotated: the new file from its start
      offset = 0;
    }
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      continue;
    }
    if (size <= offset) continue;
    text = readFileSync(file).subarray(offset).toString('utf8');
    const end = text.lastIndexOf('\n') + 1;
    for (const line of completeLines(text.slice(0, end))) io.stdout(format(line));
    offset += Buffer.byteLength(text.slice(0, end));
  }
}

function resolveLog(link: string): string | undefined {
  try {
    return realpathSync(link);
  } catch {
    return undefined;
  }
}

function completeLines(text: string): string[] {
  const end = text.lastIndexOf('\n');
  return end < 0 ? [] : text.slice(0, end).split('\n').filter((line) => line.trim() !== '');
}

function formatter(color: boolean): (line: string) => string {
  const pretty = prettyFactory({ colorize: color, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss', ignore: 'pid,hostname' });
  return (line) => {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return `${markInvisible(line)}\n`;
    }
    return pretty(revealInStrings(entry));
  };
}

function revealInStrings(value: unknown): unknown {
  if (typeof value === 'string') return markInvisible(value);
  if (Array.isArray(value)) return value.map(revealInStrings);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [markInvisible(key), revealInStrings(inner)]));
  return value;
}
