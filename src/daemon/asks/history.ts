// Writing history.jsonl: one line per finished question, appended by the daemon alone, synchronously,
// before the question's answer is sent. A crash, or a disk that fills up in the middle of a write,
// can leave a torn line; readers skip it (history-file.ts), and the next append starts on a fresh line.
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { describeSource, type HistoryLine } from '../../history-file.js';
import type { HistoryProblem, AskView } from '../../protocol.js';
import { approvalTarget } from '../../approvals.js';
import { shorten } from '../../shorten.js';

export function historyLineOf(view: AskView): HistoryLine {
  const { source, detail, person, device } = describeSource(view);
  return {
    id: view.id,
    sessionId: view.sessionId,
    toolUseId: view.toolUseId,
    project: view.cwd,
    ...(view.agent ? { agent: view.agent } : {}),
    ...(view.asker ? { asker: view.asker } : {}),
    ...(view.machine ? { machine: view.machine } : {}),
    ...(view.person ? { sessionPerson: view.person } : {}),
    ...(view.route ? { route: view.route } : {}),
    askedAt: new Date(view.createdAt).toISOString(),
    finishedAt: new Date(view.resolvedAt ?? Date.now()).toISOString(),
    status: view.status,
    source,
    ...(detail ? { detail } : {}),
    ...(person === undefined ? {} : { person }),
    ...(device === undefined ? {} : { device }),
    questions: view.questions.map(({ question, header }) => ({ question, header })),
    ...(view.answers ? { answers: view.answers } : {}),
    ...(view.notes ? { notes: view.notes } : {}),
    ...(view.error ? { error: view.error } : {}),
    ...(view.approval ? { approval: { toolName: view.approval.toolName, target: approvalTarget(view.approval.toolName, view.approval.toolInput, 2000), ...(view.risk ? { risk: view.risk.reasons } : {}) } } : {}),
    ...(view.decision ? { decision: historyDecision(view) } : {}),
    ...(view.turnEnd ? { turnEnd: { said: shorten(view.turnEnd.lastMessage, 2000) } } : {}),
    ...(view.elicitation ? { elicitation: historyElicitation(view.elicitation, view.elicitationResult) } : {}),
    ...(view.reply !== undefined ? { reply: view.reply } : {}),
    ...(view.delivery ? { delivery: view.delivery } : {}),
  };
}

/** An elicitation as history keeps it: its server and message, its fields by name or its link's host, and what was sent back. */
function historyElicitation(elicitation: NonNullable<AskView['elicitation']>, result: AskView['elicitationResult']): NonNullable<HistoryLine['elicitation']> {
  return {
    server: elicitation.server,
    message: shorten(elicitation.message, 2000),
    mode: elicitation.mode,
    ...(elicitation.mode === 'form' ? { fields: elicitation.form.fields.map((field) => field.name) } : { host: elicitation.host }),
    ...(result ? { result } : {}),
  };
}

/** A decision as history keeps it: a suggestion by its words, never by an index into a list it no longer has. */
function historyDecision(view: AskView): NonNullable<HistoryLine['decision']> {
  const decision = view.decision!;
  if (decision.behavior === 'deny') return decision;
  const suggestion = decision.suggestion === undefined ? undefined : view.approval?.suggestions[decision.suggestion]?.label;
  return { behavior: 'allow', ...(suggestion === undefined ? {} : { suggestion }) };
}

/** Lines kept in memory while history.jsonl cannot be written; past this, the oldest are counted as lost. */
export const HISTORY_BACKLOG_LINES = 1000;
/** While writing fails, retry this often even when no question finishes. */
export const HISTORY_RETRY_MS = 30_000;

/**
 * Appends in order, each line written before append returns. The store announces a settled question
 * before any waiter's reply is written, so a question's line has reached the kernel (a completed
 * write: it survives a kill -9 of the daemon) before its answer reaches the hook or Claude Code.
 * A full or read-only disk must never cost the answer: a line that cannot be written waits in
 * memory and is written, in order, with the next append or the next retry once writing works
 * again; past HISTORY_BACKLOG_LINES the oldest are dropped and counted, and the history says how
 * many it lost when it catches up.
 */
export function createHistory(path: string, options: { onError?: (error: Error) => void; onProblem?: (problem: HistoryProblem | null) => void; retryMs?: number } = {}) {
  let needsNewline = endsWithoutNewline(path);
  const backlog: string[] = [];
  let problem: HistoryProblem | null = null;
  let lost = 0;
  let retry: NodeJS.Timeout | undefined;

  function setProblem(next: HistoryProblem | null): void {
    problem = next;
    options.onProblem?.(next);
  }

  function drain(): void {
    if (backlog.length === 0) return;
    const over = backlog.length - HISTORY_BACKLOG_LINES;
    if (over > 0) {
      backlog.splice(0, over);
      lost += over;
    }
    const lostNow = lost;
    const lostNote = lostNow > 0 ? `${JSON.stringify(lostLine(lostNow, problem?.error ?? 'writing failed'))}\n` : '';
    // Before the lines: the newline a torn last line needs, and the note of lines lost.
    const lead = [needsNewline ? '\n' : '', lostNote];
    const pieces = [...lead, ...backlog];
    const { written, error } = appendAll(path, pieces);
    // What reached the file stays there even when writing then failed (a disk that fills up takes
    // part of a write and refuses the rest): what was written whole is done, never written twice.
    const { whole, partly } = piecesWritten(pieces, written);
    if (whole >= 1) needsNewline = false;
    if (whole >= 2) lost -= lostNow;
    backlog.splice(0, Math.max(0, whole - lead.length));
    // A line written in part is left as a line of its own, which readers skip: the next write
    // starts on a new line, so the fragment never swallows the line written again after it.
    if (partly) needsNewline = true;
    if (error) {
      const message = (error as NodeJS.ErrnoException).code ?? error.message;
      if (!problem) options.onError?.(error);
      setProblem({ error: message, since: problem?.since ?? Date.now(), waiting: backlog.length, lost });
      retry ??= setTimeout(() => {
        retry = undefined;
        drain();
      }, options.retryMs ?? HISTORY_RETRY_MS).unref();
      return;
    }
    if (problem) setProblem(null);
  }

  return {
    append(view: AskView): void {
      backlog.push(`${JSON.stringify(historyLineOf(view))}\n`);
      drain();
    },
    /** Resolves at once: every line appended so far is written, or waits in memory. */
    flushed: (): Promise<void> => Promise.resolve(),
    problem: (): HistoryProblem | null => problem,
    close(): void {
      clearTimeout(retry);
    },
  };
}

/**
 * Appends `pieces` and says how many of their bytes reached the file: all of them, or, when writing
 * failed, those written before it did. Joined only once the file is open: while it cannot be, a long
 * backlog costs nothing per attempt.
 */
function appendAll(path: string, pieces: string[]): { written: number; error?: Error } {
  let written = 0;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'a', 0o600);
    const bytes = Buffer.from(pieces.join(''));
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    return { written };
  } catch (error) {
    return { written, error: error as Error };
  } finally {
    // What write() took is in the file whether or not closing reports anything.
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {}
    }
  }
}

/** Of `pieces` written one after the other, how many the first `written` bytes hold whole, and whether they hold part of the next. */
function piecesWritten(pieces: string[], written: number): { whole: number; partly: boolean } {
  let left = written;
  let whole = 0;
  for (const piece of pieces) {
    const bytes = Buffer.byteLength(piece);
    if (bytes > left) break;
    left -= bytes;
    whole++;
  }
  return { whole, partly: left > 0 };
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
