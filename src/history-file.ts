// history.jsonl, the file: what one line holds, and how to read it back. The daemon writes it
// (daemon/history.ts); `askbridge history` and the tests read it through here. Readers keep what
// they do not know (a line from a newer askbridge) and skip what they cannot read (a line torn by
// a crash, or something else in the file), never failing on it.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { AskerSchema, checkShape, QuestionStatusSchema, type QuestionView } from './protocol.js';

/** `lost`: not a question but a note that some could not be recorded (the disk was full or read-only). */
export const HistorySourceSchema = z.enum(['person', 'rule', 'recommended', 'declined', 'terminal', 'cancelled', 'expired', 'failed', 'lost']);
export type HistorySource = z.infer<typeof HistorySourceSchema>;

export const HistoryLineSchema = z.looseObject({
  id: z.string(),
  sessionId: z.string(),
  toolUseId: z.string(),
  project: z.string(),
  /** A script or an MCP client; absent when Claude Code asked. */
  asker: AskerSchema.optional(),
  /** The machine a remote hook named; absent for this machine. */
  machine: z.string().optional(),
  askedAt: z.string(),
  finishedAt: z.string(),
  status: QuestionStatusSchema,
  source: HistorySourceSchema,
  /** Which client a person used, which rule answered, or what ended the wait. */
  detail: z.string().optional(),
  questions: z.array(z.looseObject({ question: z.string(), header: z.string() })),
  answers: z.record(z.string(), z.string()).optional(),
  notes: z.record(z.string(), z.string()).optional(),
  /** Why the question failed (source `failed`): the answer never reached Claude. */
  error: z.string().optional(),
});
export type HistoryLine = z.infer<typeof HistoryLineSchema>;

/** A line as it may be on disk: those written before the status was called `handed-to-terminal` say `terminal`. */
const StoredHistoryLineSchema = HistoryLineSchema.extend({ status: z.union([QuestionStatusSchema, z.literal('terminal')]) });

/** Who or what settled a question, in history's words: `askbridge history` and `askbridge listen` say it alike. */
export function describeSource(view: QuestionView): { source: HistorySource; detail?: string } {
  const source = view.source;
  if (!source) return { source: 'cancelled' };
  if (view.status === 'failed') {
    const by = source.kind === 'person' ? `an answer from the ${source.client}` : source.kind === 'policy' ? `a ${source.action} policy` : 'an answer';
    return { source: 'failed', detail: `${by} could not be delivered; the terminal asked instead` };
  }
  switch (source.kind) {
    case 'person':
      if (view.status === 'declined') return { source: 'declined', detail: `person via ${source.client}` };
      if (view.status === 'handed-to-terminal') return { source: 'terminal', detail: `person via ${source.client}` };
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
    case 'session-ended':
      return { source: 'cancelled', detail: 'the Claude Code session ended' };
  }
}

/** Every complete line; a torn or foreign line is skipped, never fatal. */
export function readHistory(path: string): HistoryLine[] {
  return readHistoryTail(path, Number.POSITIVE_INFINITY);
}

const TAIL_CHUNK_BYTES = 64 * 1024;

/**
 * The last `limit` lines, read backwards from the end of the file in chunks: `askbridge history`
 * stays as fast on a history of years as on one of a day.
 */
export function readHistoryTail(path: string, limit: number): HistoryLine[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    let position = fstatSync(fd).size;
    let rest = Buffer.alloc(0); // the start of a line whose beginning is in an earlier chunk
    const found: HistoryLine[] = [];
    while (position > 0 && found.length < limit) {
      const size = Math.min(TAIL_CHUNK_BYTES, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      readSync(fd, chunk, 0, size, position);
      const buffer = Buffer.concat([chunk, rest]);
      const firstNewline = position > 0 ? buffer.indexOf(0x0a) : -1;
      rest = firstNewline >= 0 ? buffer.subarray(0, firstNewline) : Buffer.alloc(0);
      const complete = firstNewline >= 0 ? buffer.subarray(firstNewline + 1) : buffer;
      found.unshift(...parseLines(complete.toString('utf8').split('\n')));
    }
    return found.slice(-limit);
  } finally {
    closeSync(fd);
  }
}

function parseLines(raws: string[]): HistoryLine[] {
  const lines: HistoryLine[] = [];
  for (const raw of raws) {
    if (!raw.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      continue; // a line torn by a crash
    }
    const line = checkShape(StoredHistoryLineSchema, json);
    if (!line.ok) continue;
    const { status } = line.value;
    lines.push(status === 'terminal' ? { ...line.value, status: 'handed-to-terminal' } : { ...line.value, status });
  }
  return lines;
}

