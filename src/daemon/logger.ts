// pino for the daemon. In the foreground: JSON lines when stdout is a file or a pipe, readable lines
// on a terminal (without colours when NO_COLOR is set). In the background: JSON lines in the state
// directory's logs/ folder, rotated by size (pino-roll), which `askbridge logs` reads.
// Log fields can hold model or request text (a question's header, a hook's reason): whatever goes
// to stdout is written with every invisible or terminal-active character as a marker (readable
// lines) or a \u escape (JSON lines), never raw. The files keep the exact text; `logs` marks it.
// pino-pretty and pino-roll are loaded only when used: a service pays for neither at start.
// stdout may be a pipe whose reader goes away (`askbridge start | tee log`, ended with Ctrl-C): the
// lines written there are then dropped, never retried, so that nothing written to stdout can hold
// up the daemon, or its exit (stdoutWriter).
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import { logsDir } from '../state-dir.js';
import { markInvisible, terminalJson, terminalText } from '../visible-text.js';

/** Rotation: a new file past this size, and this many older files kept. */
export const LOG_FILE_SIZE = '10m';
export const LOG_FILES_KEPT = 4;

/** pino-roll keeps this link pointing at the file being written. */
export function currentLogFile(stateDir: string): string {
  return join(logsDir(stateDir), 'current.log');
}

/** pino-roll's name for the file numbered `number` in the logs folder: daemon.1.log, daemon.2.log, ... */
export function numberedLogFile(folder: string, number: number): string {
  return join(folder, `daemon.${number}.log`);
}

/** The number in a log file's name, or undefined for a name pino-roll does not make. */
export function logFileNumber(path: string): number | undefined {
  const match = /(?:^|\/)daemon\.(\d+)\.log$/.exec(path);
  return match ? Number(match[1]) : undefined;
}

export type LogTarget = { kind: 'stdout'; terminal: boolean; color: boolean } | { kind: 'file'; stateDir: string };

export async function createLogger(options: { level?: string; target: LogTarget; env?: NodeJS.ProcessEnv }): Promise<Logger> {
  const level = options.level ?? 'info';
  const { target } = options;
  if (target.kind === 'file') {
    const { default: roll } = await import('pino-roll');
    const stream = await roll({
      file: join(logsDir(target.stateDir), 'daemon'),
      extension: '.log',
      // For tests only: a size in bytes small enough to rotate with a few lines.
      size: testRotationSize(options.env ?? process.env) ?? LOG_FILE_SIZE,
      limit: { count: LOG_FILES_KEPT },
      symlink: true,
      mkdir: true,
      mode: 0o600,
      // Each line is written before the call returns, so a line logged just before an exit (or a
      // kill -9) is in the file. The daemon logs a few lines per question.
      sync: true,
    });
    return pino({ level }, stream);
  }
  const write = stdoutWriter(process.stdout);
  const format = target.terminal ? await readableLogLine({ colorize: target.color, translateTime: 'HH:MM:ss' }) : safeJsonLine;
  const destination: DestinationStream = { write: (line: string) => write(format(line)) };
  return pino({ level }, destination);
}

/** Log lines waiting for a reader that stopped reading (a paused pager): past this, the next ones are dropped. */
const STDOUT_WAITING_BYTES = 1024 * 1024;

/**
 * Writes each log line to the daemon's stdout through Node's own stream. On a pipe it never blocks:
 * a pipe that is full keeps the line in memory (up to STDOUT_WAITING_BYTES; past that, lines are
 * dropped), and a stream that failed (EPIPE: its reader has gone) ends the output, every later line
 * dropped. Nothing is retried and nothing is flushed at exit. pino's own destination (sonic-boom) is not
 * used here: at exit it writes what still waits synchronously, retrying a failed write every 100 ms
 * for ever, EPIPE included, inside process.exit, where no signal is handled any more, so a daemon
 * whose reader had gone spun on write(1) until a kill -9.
 */
function stdoutWriter(stream: Writable): (line: string) => void {
  let failed = false;
  stream.on('error', () => {
    failed = true;
  });
  return (line) => {
    if (failed || stream.destroyed || stream.writableLength > STDOUT_WAITING_BYTES) return;
    try {
      stream.write(line);
    } catch {
      failed = true; // stdout is a file that cannot be written (a full disk): the output ends there
    }
  };
}

function testRotationSize(env: NodeJS.ProcessEnv): string | undefined {
  const bytes = Number(env.ASKBRIDGE_TEST_LOG_FILE_BYTES);
  return Number.isInteger(bytes) && bytes > 0 ? `${bytes}b` : undefined;
}

/** A pino JSON line as the same JSON with every invisible character escaped: parsing it gives back the exact text. */
export function safeJsonLine(line: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return `${terminalJson(line.replace(/\n$/, ''))}\n`;
  }
  return `${terminalJson(entry)}\n`;
}

/**
 * A formatter of pino JSON lines as pino-pretty's readable lines, every string in them marked for a
 * terminal first: `logs` and the foreground daemon show a log line the same way. pino-pretty writes
 * the other fields as JSON (a newline in them stays `\n`) and indents a stack's lines itself; the
 * message alone is written as it is, so its lines after the first are indented here, and a newline
 * in it cannot start what looks like a log line of its own.
 */
export async function readableLogLine(options: Pick<PrettyOptions, 'colorize' | 'translateTime'>): Promise<(line: string) => string> {
  const { prettyFactory } = (await import('pino-pretty')) as unknown as typeof import('pino-pretty');
  const pretty = prettyFactory({ ...options, ignore: 'pid,hostname' });
  return (line) => {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return `${terminalText(line.replace(/\n$/, ''), MESSAGE_INDENT)}\n`;
    }
    const marked = markedStrings(entry);
    if (isRecord(entry) && isRecord(marked) && typeof entry.msg === 'string') marked.msg = terminalText(entry.msg, MESSAGE_INDENT);
    return pretty(marked);
  };
}

/** Where a logged message's lines after the first start: under the message, past the time and the level. */
const MESSAGE_INDENT = '    ';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function markedStrings(value: unknown): unknown {
  if (typeof value === 'string') return markInvisible(value);
  if (Array.isArray(value)) return value.map(markedStrings);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [markInvisible(key), markedStrings(inner)]));
  return value;
}

/** Colour on a terminal unless NO_COLOR is set to anything (https://no-color.org). */
export function wantsColor(env: NodeJS.ProcessEnv, terminal: boolean): boolean {
  return terminal && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}
