// pino for the daemon: JSON lines when stdout is a file or a pipe, readable lines on a terminal.
// pino-pretty is loaded only for a terminal: it costs start-up time a service never needs.
import pino, { type Logger } from 'pino';

export async function createLogger(options: { level?: string; pretty: boolean }): Promise<Logger> {
  const level = options.level ?? 'info';
  if (!options.pretty) return pino({ level });
  const { default: pretty } = (await import('pino-pretty')) as unknown as { default: typeof import('pino-pretty') };
  return pino({ level }, pretty({ colorize: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', sync: true }));
}
