// pino for the daemon: JSON lines when stdout is a file or a pipe, readable lines on a terminal.
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export function createLogger(options: { level?: string; pretty: boolean }): Logger {
  const level = options.level ?? 'info';
  if (!options.pretty) return pino({ level });
  return pino({ level }, pretty({ colorize: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', sync: true }));
}
