// history.jsonl, the file: what one line holds, and how to read it back. The daemon writes it
// (daemon/history.ts); `askbridge history` and the tests read it through here. Readers keep what
// they do not know (a line from a newer askbridge) and skip what they cannot read (a line torn by
// a crash, or something else in the file), never failing on it.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { profileOf } from './agents.js';
import { AskerSchema, checkShape, AskStatusSchema, type AskView } from './protocol.js';
import { isRoutedTo, type Viewer } from './route-access.js';

/** `lost`: not a question but a note that some could not be recorded (the disk was full or read-only). */
export const HistorySourceSchema = z.enum(['person', 'rule', 'recommended', 'declined', 'terminal', 'cancelled', 'expired', 'failed', 'lost', 'grant']);
export type HistorySource = z.infer<typeof HistorySourceSchema>;

export const HistoryLineSchema = z.looseObject({
  id: z.string(),
  sessionId: z.string(),
  toolUseId: z.string(),
  project: z.string(),
  /** The coding agent that asked (claude-code, codex, opencode); absent for a script or an MCP client, and in lines from before agents were named (Claude Code's). */
  agent: z.string().optional(),
  /** A script or an MCP client. */
  asker: AskerSchema.optional(),
  /** The machine a remote hook named; absent for this machine. */
  machine: z.string().optional(),
  /** Whose session it was, as its remote hook said (remote-hook --person). */
  sessionPerson: z.string().optional(),
  /** Who it was for (the user config's `route`), as it opened; absent (and in lines from before routes): everyone. */
  route: z.looseObject({ people: z.array(z.string()), approvals: z.number().optional(), rule: z.string().optional() }).optional(),
  askedAt: z.string(),
  finishedAt: z.string(),
  status: AskStatusSchema,
  source: HistorySourceSchema,
  /** Which client a person used, which rule answered, or what ended the wait. */
  detail: z.string().optional(),
  /** Who decided (source `person`, and the declines and hand-backs a person chose): the person their device or chat was paired for; absent with no people defined, and in older lines. */
  person: z.string().optional(),
  /** The device or Telegram chat they decided from, by its name in `askbridge devices`. */
  device: z.string().optional(),
  questions: z.array(z.looseObject({ question: z.string(), header: z.string() })),
  answers: z.record(z.string(), z.string()).optional(),
  notes: z.record(z.string(), z.string()).optional(),
  /** Why the question failed (source `failed`): the answer never reached Claude. */
  error: z.string().optional(),
  /** A permission Claude Code asked for: the tool, what it acts on in one line (the command, the file), and why it was risky (risk.ts). */
  approval: z.looseObject({ toolName: z.string(), target: z.string(), risk: z.array(z.string()).optional() }).optional(),
  /** How the approval was decided: allowed once or with a suggestion (in words), or denied with a message. */
  decision: z.looseObject({ behavior: z.enum(['allow', 'deny']), suggestion: z.string().optional(), message: z.string().optional(), interrupt: z.boolean().optional() }).optional(),
  /** The end of one of Claude's turns, while the person was away: the start of Claude's last message, in one line. */
  turnEnd: z.looseObject({ said: z.string() }).optional(),
  /**
   * An MCP server's request for input: the server, its message, a form (mode `form`, its field
   * names) or a link (mode `url`, its exact host), and what a person's response sent it.
   */
  elicitation: z
    .looseObject({
      server: z.string(),
      message: z.string(),
      mode: z.enum(['form', 'url']),
      fields: z.array(z.string()).optional(),
      host: z.string().optional(),
      result: z.looseObject({ action: z.enum(['accept', 'decline', 'cancel']), content: z.record(z.string(), z.unknown()).optional() }).optional(),
    })
    .optional(),
  /** The person's reply to it (status `replied`): their own words, exactly as Claude received them. */
  reply: z.string().optional(),
  /**
   * A relayed decision (opencode, Codex): `waiting` while the relay still has to deliver it; once it
   * did, or never can (why is in `error`), a line for the same id follows and stands for it.
   */
  delivery: z.enum(['waiting', 'delivered', 'undeliverable']).optional(),
  /** The daemon that wrote it (its id in the shared store's `daemons`): only on lines read from a shared store, never in the file. */
  daemon: z.string().optional(),
});
export type HistoryLine = z.infer<typeof HistoryLineSchema>;

/**
 * GET /api/history as JSON: the finished questions that match, newest first. With a shared store,
 * every daemon's; `localOnly` when the store cannot be reached, and only this daemon's own file was read.
 */
export const HistoryReplySchema = z.object({ entries: z.array(HistoryLineSchema), localOnly: z.object({ reason: z.string() }).optional() });
export type HistoryReply = z.infer<typeof HistoryReplySchema>;

/** A line as it may be on disk: those written before the status was called `handed-to-terminal` say `terminal`. */
const StoredHistoryLineSchema = HistoryLineSchema.extend({ status: z.union([AskStatusSchema, z.literal('terminal')]) });

/** What became of a relayed decision, in words: "answered, not yet delivered", "not delivered: WHY"; undefined for any other line. */
export function deliveryText(line: Pick<HistoryLine, 'delivery' | 'error'>): string | undefined {
  if (line.delivery === 'waiting') return 'answered, not yet delivered';
  if (line.delivery === 'undeliverable') return `not delivered: ${line.error ?? 'the agent no longer waits'}`;
  return undefined;
}

/** How history's detail starts when a person declined or handed a question back: the client follows. */
const PERSON_VIA = 'person via ';

/**
 * Who or what settled a question, in history's words: `askbridge history` and `askbridge listen` say
 * it alike. A person's decision also names the person and their device, when they have them.
 */
export function describeSource(view: AskView): { source: HistorySource; detail?: string; person?: string; device?: string } {
  const source = view.source;
  if (!source) return { source: 'cancelled' };
  const who = source.kind === 'person' ? { ...(source.person === undefined ? {} : { person: source.person }), ...(source.device === undefined ? {} : { device: source.device }) } : {};
  if (view.status === 'failed') {
    const by = source.kind === 'person' ? `an answer from the ${source.client}` : source.kind === 'policy' ? `a ${source.action} policy` : 'an answer';
    return { source: 'failed', detail: `${by} could not be delivered; the terminal asked instead`, ...who };
  }
  switch (source.kind) {
    case 'person':
      if (view.status === 'declined') return { source: 'declined', detail: `${PERSON_VIA}${source.client}`, ...who };
      if (view.status === 'handed-to-terminal') return { source: 'terminal', detail: `${PERSON_VIA}${source.client}`, ...who };
      return { source: 'person', detail: source.client, ...who };
    case 'policy': {
      const detail = [source.trigger, source.rule].filter(Boolean).join(': ');
      if (source.action === 'rule') return { source: 'rule', detail };
      if (source.action === 'recommended') return { source: 'recommended', detail };
      if (source.action === 'decline') return { source: 'declined', detail };
      return { source: source.trigger === 'timeout' ? 'expired' : 'terminal', detail };
    }
    case 'hook-gone':
      // What its connection closing means, in its asker's words (agents.ts).
      return { source: 'cancelled', detail: profileOf(view).stoppedWaiting };
    case 'daemon-stopped':
      return { source: 'terminal', detail: 'the daemon stopped' };
    case 'session-ended':
      return { source: 'cancelled', detail: 'the Claude Code session ended' };
    case 'terminal':
      return { source: 'terminal', detail: view.turnEnd ? 'the person typed in the terminal' : view.elicitation ? 'the session moved on' : 'answered in the terminal' };
    case 'back':
      return { source: 'terminal', detail: 'the person came back' };
    case 'grant':
      return { source: 'grant', detail: grantText(source) };
  }
}

/** What `deciderWords` says a Telegram chat is, where a device would be named. */
const FROM_TELEGRAM = 'from Telegram';

/**
 * Who decided, once people are defined: "alice on Pixel 8", "carol from Telegram"; undefined without
 * a person (then each place says where, as before people: "on the page", "from Telegram"). Not
 * marked: the caller shows it as text (a device's name comes from its browser or its chat).
 */
export function deciderWords(who: { person?: string | undefined; device?: string | undefined; client?: string | undefined }): string | undefined {
  if (who.person === undefined) return undefined;
  if (who.client === 'telegram') return `${who.person} ${FROM_TELEGRAM}`;
  return who.device === undefined ? who.person : `${who.person} on ${who.device}`;
}

/** deciderWords for a line of history.jsonl: its client is its detail (describeSource wrote it). */
export function lineDeciderWords(line: Pick<HistoryLine, 'person' | 'device' | 'source' | 'detail'>): string | undefined {
  const client = line.source === 'person' ? line.detail : line.detail?.startsWith(PERSON_VIA) ? line.detail.slice(PERSON_VIA.length) : undefined;
  return deciderWords({ person: line.person, device: line.device, client });
}

/** "allowed by your grant of 14:02 (made from Chrome on Android)": the grant's time in this machine's clock. */
export function grantText(source: { madeAt: number; by: string }): string {
  const made = new Date(source.madeAt);
  const time = `${String(made.getHours()).padStart(2, '0')}:${String(made.getMinutes()).padStart(2, '0')}`;
  return `allowed by your grant of ${time} (made from ${source.by})`;
}

/** Every complete line, in the file's order (oldest first); a torn or foreign line is skipped, never fatal. */
export function readHistory(path: string): HistoryLine[] {
  return readHistoryTail(path, Number.POSITIVE_INFINITY).reverse();
}

const TAIL_CHUNK_BYTES = 64 * 1024;
/** Far beyond the longest line askbridge writes (10 questions with every text at its limit): anything longer is not a history line. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Which lines a reader keeps. */
export type HistoryFilter = (line: HistoryLine) => boolean;

/** The lines a viewer may read: those of asks routed to their person or to everyone (route-access.ts); the local CLI reads all. */
export function historyFor(viewer: Viewer, keep: HistoryFilter): HistoryFilter {
  return (line) => isRoutedTo(line, viewer) && keep(line);
}

const everyLine: HistoryFilter = () => true;

/**
 * The last `limit` lines that `keep` (every line by default), newest first, read backwards from the
 * end of the file: `askbridge history` stays as fast on a history of years as on one of a day.
 */
export function readHistoryTail(path: string, limit: number, keep: HistoryFilter = everyLine): HistoryLine[] {
  const fd = openOrNothing(path);
  if (fd === undefined) return [];
  try {
    const found: HistoryLine[] = [];
    const current = newestOnly();
    for (const { lines } of chunksBackwards(fd)) {
      for (const line of lines) if (found.length < limit && current(line) && keep(line)) found.push(line);
      if (found.length >= limit) break;
    }
    return found;
  } finally {
    closeSync(fd);
  }
}

/**
 * The daemon's search: the newest `limit` lines that `keep`, newest first, read backwards and given up
 * as soon as they are found, and how many bytes of the file that took. It lets other work run between
 * chunks, so that searching a long history never holds up a question on its way.
 */
export async function searchHistory(path: string, options: { limit: number; keep?: HistoryFilter }): Promise<{ lines: HistoryLine[]; scannedBytes: number }> {
  const keep = options.keep ?? everyLine;
  const fd = openOrNothing(path);
  if (fd === undefined) return { lines: [], scannedBytes: 0 };
  try {
    const found: HistoryLine[] = [];
    let scannedBytes = 0;
    const current = newestOnly();
    for (const chunk of chunksBackwards(fd)) {
      scannedBytes = chunk.scannedBytes;
      for (const line of chunk.lines) if (found.length < options.limit && current(line) && keep(line)) found.push(line);
      if (found.length >= options.limit) break;
      await nextTurn();
    }
    return { lines: found, scannedBytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * Lines whose project, question texts, headers, answers, notes, asker's name or machine contain
 * `query`, in any case; for an approval, its tool, what it acted on, and the message of a denial.
 * An empty query matches every line.
 */
export function historyMatching(query: string): HistoryFilter {
  const wanted = query.toLowerCase();
  if (wanted === '') return everyLine;
  const has = (text: string | undefined) => text?.toLowerCase().includes(wanted) === true;
  return (line) =>
    has(line.project) ||
    has(line.asker?.name) ||
    has(line.machine) ||
    line.questions.some((question) => has(question.question) || has(question.header)) ||
    Object.values(line.answers ?? {}).some(has) ||
    Object.values(line.notes ?? {}).some(has) ||
    has(line.approval?.toolName) ||
    has(line.approval?.target) ||
    has(line.decision?.message);
}

/**
 * For a reader going backwards: false for a line a newer one stands for. Only a relayed decision
 * has more than one line (written when it was made, and again once delivered or undeliverable), so
 * only their ids are remembered.
 */
export function newestOnly(): HistoryFilter {
  const seen = new Set<string>();
  return (line) => {
    if (line.delivery === undefined) return true;
    if (seen.has(line.id)) return false;
    seen.add(line.id);
    return true;
  };
}

function openOrNothing(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined;
  }
}

/** One line of the file as it was written: its text (no newline) and the byte it starts at. */
export type RawLine = { text: string; start: number };

/**
 * The file's complete lines as text, read backwards from its end in chunks: for each chunk its
 * lines, newest first, and how many bytes have been read so far. Only one chunk's lines (and the
 * start of the line a chunk cut) are held at a time, so a reader that has what it wants just stops,
 * and a history of years is never in memory at once.
 */
export function* rawChunksBackwards(fd: number): Generator<{ lines: RawLine[]; scannedBytes: number }> {
  const size = fstatSync(fd).size;
  let position = size;
  let rest = Buffer.alloc(0); // the end of a line whose beginning is in an earlier chunk
  while (position > 0) {
    const length = Math.min(TAIL_CHUNK_BYTES, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    readSync(fd, chunk, 0, length, position);
    const buffer = rest.length > 0 ? Buffer.concat([chunk, rest]) : chunk;
    const firstNewline = position > 0 ? buffer.indexOf(0x0a) : -1;
    if (position > 0 && firstNewline < 0) {
      // One line longer than a chunk: read on back to its start. One too long to be a history line
      // is let go, and what is left of it will not parse: it is skipped like a torn line.
      rest = buffer.length <= MAX_LINE_BYTES ? buffer : Buffer.alloc(0);
      yield { lines: [], scannedBytes: size - position };
      continue;
    }
    rest = firstNewline >= 0 ? buffer.subarray(0, firstNewline) : Buffer.alloc(0);
    const lines: RawLine[] = [];
    for (let start = firstNewline + 1; start < buffer.length; ) {
      const newline = buffer.indexOf(0x0a, start);
      const end = newline < 0 ? buffer.length : newline;
      lines.push({ text: buffer.subarray(start, end).toString('utf8'), start: position + start });
      start = end + 1;
    }
    yield { lines: lines.reverse(), scannedBytes: size - position };
  }
}

function* chunksBackwards(fd: number): Generator<{ lines: HistoryLine[]; scannedBytes: number }> {
  for (const chunk of rawChunksBackwards(fd)) yield { lines: parseLines(chunk.lines.map((line) => line.text)), scannedBytes: chunk.scannedBytes };
}

function parseLines(raws: string[]): HistoryLine[] {
  const lines: HistoryLine[] = [];
  for (const raw of raws) {
    const line = parseHistoryText(raw);
    if (line) lines.push(line);
  }
  return lines;
}

/** One line of text read back; undefined for a line torn by a crash, or anything else that is not one. */
export function parseHistoryText(raw: string): HistoryLine | undefined {
  if (!raw.trim()) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return historyLineFrom(json);
}

/** A line's JSON read back (from the file, or the shared store's copy), as today's readers take it; undefined when it is not one. */
export function historyLineFrom(json: unknown): HistoryLine | undefined {
  const line = checkShape(StoredHistoryLineSchema, json);
  if (!line.ok) return undefined;
  const { status } = line.value;
  return status === 'terminal' ? { ...line.value, status: 'handed-to-terminal' } : { ...line.value, status };
}
