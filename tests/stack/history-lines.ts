// History lines for tests: one finished question each, numbered, with whatever a test changes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryLine } from '../../src/history-file.js';

/** A question answered from the page, numbered `id` (its texts and times follow the number). */
export const line = (id: number, change: Partial<HistoryLine> = {}): HistoryLine => ({
  id: String(id),
  sessionId: `session-${id}`,
  toolUseId: `tool-${id}`,
  project: '/home/alice/shop',
  askedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
  finishedAt: new Date(Date.UTC(2026, 0, 1, 0, 1, id)).toISOString(),
  status: 'answered',
  source: 'person',
  detail: 'page',
  questions: [{ question: `Which database, take ${id}?`, header: 'Database' }],
  answers: { [`Which database, take ${id}?`]: 'SQLite' },
  ...change,
});

/** Writes `lines` as history.jsonl in `dir`, and returns its path. */
export function writeLines(dir: string, lines: HistoryLine[]): string {
  const path = join(dir, 'history.jsonl');
  writeFileSync(path, lines.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  return path;
}

