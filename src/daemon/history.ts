// history.jsonl: one line per finished question, appended by the daemon alone. A crash can leave a
// torn last line; readers skip it, and the next append starts on a fresh line.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import type { QuestionView } from '../protocol.js';

export type HistorySource = 'person' | 'rule' | 'recommended' | 'declined' | 'terminal' | 'cancelled' | 'expired' | 'failed';

export type HistoryLine = {
  id: string;
  sessionId: string;
  toolUseId: string;
  project: string;
  askedAt: string;
  finishedAt: string;
  status: QuestionView['status'];
  source: HistorySource;
  /** Which client a person used, which rule answered, or what ended the wait. */
  detail?: string;
  questions: Array<{ question: string; header: string }>;
  answers?: Record<string, string>;
  notes?: Record<string, string>;
  /** Why the question failed (source `failed`): the answer never reached Claude. */
  error?: string;
};

export function historyLineOf(view: QuestionView): HistoryLine {
  const { source, detail } = describeSource(view);
  return {
    id: view.id,
    sessionId: view.sessionId,
    toolUseId: view.toolUseId,
    project: view.cwd,
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

function describeSource(view: QuestionView): { source: HistorySource; detail?: string } {
  const source = view.source;
  if (!source) return { source: 'cancelled' };
  if (view.status === 'failed') {
    const by = source.kind === 'person' ? `an answer from the ${source.client}` : source.kind === 'policy' ? `a ${source.action} policy` : 'an answer';
    return { source: 'failed', detail: `${by} could not be delivered; the terminal asked instead` };
  }
  switch (source.kind) {
    case 'person':
      if (view.status === 'declined') return { source: 'declined', detail: `person via ${source.client}` };
      if (view.status === 'terminal') return { source: 'terminal', detail: `person via ${source.client}` };
      return { source: 'person', detail: source.client };
    case 'policy': {
      const detail = [source.trigger, source.rule].filter(Boolean).join(': ');
      if (source.action === 'rule') return { source: 'rule', detail };
      if (source.action === 'recommended') return { source: 'recommended', detail };
      if (source.action === 'decline') return { source: 'declined', detail };
      return { source: source.trigger === 'timeout' ? 'expired' : 'terminal', detail };
    }
    case 'hook-gone':
      return { source: 'cancelled', detail: 'the hook stopped waiting (Esc or timeout in Claude Code)' };
    case 'daemon-stopped':
      return { source: 'terminal', detail: 'the daemon stopped' };
  }
}

/**
 * Appends in order, off the answer's path: a slow disk must not delay the hook that is waiting for
 * the answer. A failed write is reported and does not stop later ones.
 */
export function createHistory(path: string, onError: (error: Error) => void = () => {}) {
  let needsNewline = endsWithoutNewline(path);
  let queue = Promise.resolve();
  return {
    append(view: QuestionView): void {
      const line = `${needsNewline ? '\n' : ''}${JSON.stringify(historyLineOf(view))}\n`;
      needsNewline = false;
      queue = queue.then(() => appendFile(path, line, { mode: 0o600 })).catch(onError);
    },
    /** Resolves when every line appended so far is written. */
    flushed: (): Promise<void> => queue,
  };
}

/** Every complete line; a torn or foreign line is skipped, never fatal. */
export function readHistory(path: string): HistoryLine[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const lines: HistoryLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const parsed = JSON.parse(raw) as HistoryLine;
      if (parsed && typeof parsed.id === 'string' && typeof parsed.source === 'string') lines.push(parsed);
    } catch {
      // A line torn by a crash.
    }
  }
  return lines;
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
