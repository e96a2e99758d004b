// Whether the person said they are away (the page's switch, `askbridge away on|off`): only then does
// the end of a turn wait for their reply, and a session waiting in its terminal is announced. Kept
// in the state directory, so a daemon that restarts keeps it; a file that cannot be read or written
// leaves it as it was in memory (logged), never stops the daemon.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../state-dir.js';

type Log = { warn(fields: Record<string, unknown>, message: string): void };

export type AwaySwitch = {
  isAway(): boolean;
  /** Returns whether it changed. */
  set(away: boolean): boolean;
  subscribe(listener: (away: boolean) => void): () => void;
};

/** `file`: where it is kept (absent: memory only, for tests). */
export function createAwaySwitch(options: { file?: string; log?: Log } = {}): AwaySwitch {
  let away = options.file ? readAway(options.file, options.log) : false;
  const listeners = new Set<(away: boolean) => void>();
  return {
    isAway: () => away,
    set(next) {
      if (next === away) return false;
      away = next;
      if (options.file) {
        try {
          writeFileAtomic(options.file, `${JSON.stringify({ away })}\n`);
        } catch (error) {
          options.log?.warn({ error: (error as Error).message }, 'could not keep the away switch on disk: it holds until the daemon stops');
        }
      }
      for (const listener of listeners) listener(away);
      return true;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function readAway(file: string, log: Log | undefined): boolean {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && (value as { away?: unknown }).away === true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log?.warn({ error: (error as Error).message }, 'the away switch on disk cannot be read: not away');
    return false;
  }
}
