// `askbridge logs`: the background daemon's log, readable. The log is JSON lines written by pino
// (rotated by pino-roll); each line is shown as the foreground daemon shows it on a terminal
// (logger.ts), coloured only on a terminal without NO_COLOR, or with --json as the same JSON. Log
// fields can hold model or request text (a question's header, a hook's reason): what reaches the
// terminal has every invisible or terminal-active character as a visible mark (or, in JSON, a \u
// escape that parses back to the exact text).
import { askbridgeCommand } from '../command-name.js';
import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { currentLogFile, logFileNumber, numberedLogFile, readableLogLine, safeJsonLine, wantsColor } from '../daemon/logger.js';
import { resolveStateDir } from '../state-dir.js';
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
  const file = resolveLog(link);
  if (file === undefined) throw new CliError(`no log yet at ${link}: a daemon started with \`${askbridgeCommand(io.env)} start --background\` writes it (one in the foreground logs to its terminal)`);

  const format = values.json ? safeJsonLine : await readableLogLine({ colorize: wantsColor(io.env, process.stdout.isTTY === true), translateTime: 'SYS:yyyy-mm-dd HH:MM:ss' });
  const print = (lines: string[]) => {
    for (const line of lines) io.stdout(format(line));
  };
  const reader = logReader(file);
  print(count === 0 ? [] : reader.readOn().slice(-count));
  if (!values.follow) return reader.close();
  await follow(link, reader, print);
}

/**
 * Prints each line as it is written, across rotations. The file being read stays open, so a line
 * written just before a rotation is still read after it; at a rotation the rest of the old file is
 * read first, then each newer file in turn (by pino-roll's numbers), so no line is lost or shown twice.
 */
async function follow(link: string, first: LogReader, print: (lines: string[]) => void): Promise<never> {
  let reader = first;
  for (;;) {
    await sleep(FOLLOW_POLL_MS);
    // Where the link points is read before the current file: once it points on, the old file is complete.
    const now = resolveLog(link);
    print(reader.readOn());
    if (now === undefined || now === reader.path) continue;
    const from = logFileNumber(reader.path);
    const to = logFileNumber(now);
    reader.close();
    // Files written and rotated within one poll, oldest first; one that rotation's limit already removed is skipped.
    if (from !== undefined && to !== undefined) {
      for (let number = from + 1; number < to; number++) {
        const passed = logReader(numberedLogFile(dirname(now), number));
        print(passed.readOn());
        passed.close();
      }
    }
    reader = logReader(now);
  }
}

type LogReader = {
  path: string;
  /** The complete lines written since the last call (from the start on the first), never a partial one. */
  readOn(): string[];
  close(): void;
};

const READ_CHUNK_BYTES = 1024 * 1024;

/** Reads a log file as it grows. Opened on the first read: a file that is not there (yet, or any more) reads as no lines. */
function logReader(path: string): LogReader {
  let fd: number | undefined;
  let offset = 0;
  let partial = Buffer.alloc(0);
  return {
    path,
    readOn() {
      if (fd === undefined) {
        try {
          fd = openSync(path, 'r');
        } catch {
          return [];
        }
      }
      const size = fstatSync(fd).size;
      const chunks = [partial];
      while (offset < size) {
        const chunk = Buffer.alloc(Math.min(READ_CHUNK_BYTES, size - offset));
        const read = readSync(fd, chunk, 0, chunk.length, offset);
        if (read === 0) break;
        offset += read;
        chunks.push(chunk.subarray(0, read));
      }
      const bytes = Buffer.concat(chunks);
      const end = bytes.lastIndexOf(0x0a) + 1;
      partial = bytes.subarray(end);
      return completeLines(bytes.subarray(0, end).toString('utf8'));
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
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
