// Writing history.jsonl: one line per finished question, appended by the daemon alone. A crash can
// leave a torn last line; readers skip it (history-file.ts), and the next append starts on a fresh line.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { describeSource, type HistoryLine } from '../../history-file.js';
import type { HistoryProblem, AskView } from '../../protocol.js';

export function historyLineOf(view: AskView): HistoryLine {
  const { source, detail } = describeSource(view);
  return {
    id: view.id,
    sessionId: view.sessionId,
    toolUseId: view.toolUseId,
    project: view.cwd,
    ...(view.asker ? { asker: view.asker } : {}),
    ...(view.machine ? { machine: view.machine } : {}),
    askedAt: new Date(view.createdAt).toISOString(),
    finishedAt: new Date(view.resolvedAt ?? Date.now()).toISOString(),
    status: view.status,
    source,
    ...(detail ? { detail } : {}),
    questions: view.questions.map(({ question, header }) => ({ question, header })),
    ...(view.answers ? { answers: view.answers } : {}),
    ...(view.notes ? { notes: view.notes } : {}),
    ...(view.error ? { error: view.error } : {}),
  };
}

/** Lines kept in memory while history.jsonl cannot be written; past this, the oldest are counted as lost. */
export const HISTORY_BACKLOG_LINES = 1000;
/** While writing fails, retry this often even when no question finishes. */
export const HISTORY_RETRY_MS = 30_000;

/** Why history.jsonl is behind, for `askbridge status` and the page. */

/**
 * Appends in order, off the answer's path: a slow or full disk must never delay or lose the answer
 * a hook is waiting for. A line that cannot be written (disk full, read-only) waits in memory and is
 * written, in order, as soon as writing works again; past HISTORY_BACKLOG_LINES the oldest are
 * dropped and counted, and the history says how many it lost when it catches up.
 */
export function createHistory(path: string, options: { onError?: (error: Error) => void; onProblem?: (problem: HistoryProblem | null) => void; retryMs?: number } = {}) {
  let needsNewline = endsWithoutNewline(path);
  const backlog: string[] = [];
  let problem: HistoryProblem | null = null;
  let lost = 0;
  let queue = Promise.resolve();
  let retry: NodeJS.Timeout | undefined;

  function setProblem(next: HistoryProblem | null): void {
    problem = next;
    options.onProblem?.(next);
  }

  async function drain(): Promise<void> {
    while (backlog.length > 0) {
      // Trimmed only here, between writes, so a line on its way to the file is never the one dropped.
      const over = backlog.length - HISTORY_BACKLOG_LINES;
      if (over > 0) {
        backlog.splice(0, over);
        lost += over;
      }
      // What this write holds; lines that finish while it is on its way wait for the next one.
      const count = backlog.length;
      const lostNow = lost;
      const lostNote = lostNow > 0 ? `${JSON.stringify(lostLine(lostNow, problem?.error ?? 'writing failed'))}\n` : '';
      const batch = `${needsNewline ? '\n' : ''}${lostNote}${backlog.slice(0, count).join('')}`;
      try {
        await appendFile(path, batch, { mode: 0o600 });
      } catch (error) {
        const message = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        if (!problem) options.onError?.(error as Error);
        setProblem({ error: message, since: problem?.since ?? Date.now(), waiting: backlog.length, lost });
        retry ??= setTimeout(() => {
          retry = undefined;
          queue = queue.then(drain);
        }, options.retryMs ?? HISTORY_RETRY_MS).unref();
        return;
      }
      needsNewline = false;
      backlog.splice(0, count);
      lost -= lostNow;
      if (problem && backlog.length === 0) setProblem(null);
    }
  }

  return {
    append(view: AskView): void {
      backlog.push(`${JSON.stringify(historyLineOf(view))}\n`);
      queue = queue.then(drain);
    },
    /** Resolves when every line appended so far is written, or waits in memory. */
    flushed: (): Promise<void> => queue,
    problem: (): HistoryProblem | null => problem,
    close(): void {
      clearTimeout(retry);
    },
  };
}

function lostLine(count: number, error: string): HistoryLine {
  const now = new Date().toISOString();
  return { id: `lost-${now}`, sessionId: '', toolUseId: '', project: '', askedAt: now, finishedAt: now, status: 'cancelled', source: 'lost', detail: `${count} finished question(s) could not be recorded (${error})`, questions: [] };
}

function endsWithoutNewline(path: string): boolean {
  try {
    const size = statSync(path).size;
    if (size === 0) return false;
    const fd = openSync(path, 'r');
    try {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      return last[0] !== 0x0a;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
