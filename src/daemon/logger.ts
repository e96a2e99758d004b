// pino for the daemon. In the foreground: JSON lines when stdout is a file or a pipe, readable lines
// on a terminal (without colours when NO_COLOR is set). In the background: JSON lines in the state
// directory's logs/ folder, rotated by size (pino-roll), which `askbridge logs` reads.
// pino-pretty and pino-roll are loaded only when used: a service pays for neither at start.
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { logsDir } from '../state-dir.js';

/** Rotation: a new file past this size, and this many older files kept. */
export const LOG_FILE_SIZE = '10m';
export const LOG_FILES_KEPT = 4;

/** pino-roll keeps this link pointing at the file being written. */
export function currentLogFile(stateDir: string): string {
  return join(logsDir(stateDir), 'current.log');
}

export type LogTarget = { kind: 'stdout'; terminal: boolean; color: boolean } | { kind: 'file'; stateDir: string };

export async function createLogger(options: { level?: string; target: LogTarget }): Promise<Logger> {
  const level = options.level ?? 'info';
  const { target } = options;
  if (target.kind === 'file') {
    const { default: roll } = await import('pino-roll');
    const stream = await roll({
      file: join(logsDir(target.stateDir), 'daemon'),
      extension: '.log',
      size: LOG_FILE_SIZE,
      limit: { count: LOG_FILES_KEPT },
      symlink: true,
      mkdir: true,
      mode: 0o600,
    });
    return pino({ level }, stream);
  }
  if (!target.terminal) return pino({ level });
  const { default: pretty } = (await import('pino-pretty')) as unknown as { default: typeof import('pino-pretty') };
  return pino({ level }, pretty({ colorize: target.color, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', sync: true }));
}

/** Colour on a terminal unless NO_COLOR is set to anything (https://no-color.org). */
export function wantsColor(env: NodeJS.ProcessEnv, terminal: boolean): boolean {
  return terminal && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}
