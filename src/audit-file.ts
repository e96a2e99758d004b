// audit.jsonl, the file: what one line holds, how a line is chained to the one before it and sealed
// with the key, and how the whole trail is checked. The daemon writes it (daemon/audit.ts);
// `askbridge audit verify` and `export` read it through here, without the daemon. The format is a
// contract (docs/audit.md): a line is never rewritten, so a reader of any later version must read it.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { z } from 'zod';
import { AllowSchema, ApprovalDecisionSchema, AskerSchema, AskStatusSchema, RouteViewSchema, SourceSchema, type AskView } from './protocol.js';
import { terminalJson } from './visible-text.js';

/** The `prev` of the first line: there is no line before it. */
export const AUDIT_GENESIS = '0'.repeat(64);
/** The version of the line format, in every line (`v`). */
export const AUDIT_FORMAT = 1;

/** What was asked, exactly as the person was shown it: one of these is set, by the kind of ask. */
export const AuditInputSchema = z.looseObject({
  questions: z.array(z.looseObject({ question: z.string(), header: z.string(), multiSelect: z.boolean(), options: z.array(z.looseObject({ label: z.string(), description: z.string() })) })).optional(),
  approval: z.looseObject({ toolName: z.string(), toolInput: z.record(z.string(), z.unknown()), suggestions: z.array(z.string()) }).optional(),
  risk: z.array(z.string()).optional(),
  turnEnd: z.looseObject({ lastMessage: z.string() }).optional(),
  terminalWait: z.looseObject({ kind: z.string(), message: z.string() }).optional(),
  elicitation: z.looseObject({ server: z.string(), message: z.string(), mode: z.enum(['form', 'url']) }).optional(),
});
export type AuditInput = z.infer<typeof AuditInputSchema>;

/** How it ended (event `settled`), or where it stands after one allow of two (event `allow`, status `pending`). */
export const AuditDecisionSchema = z.looseObject({
  status: AskStatusSchema,
  answers: z.record(z.string(), z.string()).optional(),
  notes: z.record(z.string(), z.string()).optional(),
  decision: ApprovalDecisionSchema.optional(),
  reply: z.string().optional(),
  elicitation: z.looseObject({ action: z.enum(['accept', 'decline', 'cancel']) }).optional(),
  error: z.string().optional(),
  allows: z.array(AllowSchema).optional(),
});

/** One line of audit.jsonl. `mac` is its last key, over the bytes before it (sealLine). */
export const AuditLineSchema = z.looseObject({
  v: z.number().int(),
  seq: z.number().int().min(1),
  at: z.string(),
  atMs: z.number(),
  event: z.enum(['settled', 'allow']),
  ask: z.string(),
  kind: z.enum(['question', 'approval', 'turn-end', 'terminal-wait', 'elicitation']),
  agent: z.string().optional(),
  asker: AskerSchema.optional(),
  machine: z.string().optional(),
  session: z.string(),
  toolUseId: z.string(),
  project: z.string(),
  /** Whose session asked, as its hook said. */
  sessionPerson: z.string().optional(),
  route: RouteViewSchema.optional(),
  input: AuditInputSchema,
  decision: AuditDecisionSchema,
  /** Who or what decided: the settlement's source, or the person who gave this allow. */
  by: SourceSchema,
  prev: z.string().regex(/^[0-9a-f]{64}$/),
  mac: z.string().regex(/^[0-9a-f]{64}$/),
});
export type AuditLine = z.infer<typeof AuditLineSchema>;

/** The head file: the last line's sequence number and hash, sealed like a line. */
export const AuditHeadSchema = z.object({ seq: z.number().int().min(0), hash: z.string().regex(/^[0-9a-f]{64}$/), mac: z.string().regex(/^[0-9a-f]{64}$/) });
export type AuditHead = z.infer<typeof AuditHeadSchema>;

/** The input of an ask as its line keeps it: what the page, the CLI or a chat showed, exactly. */
export function auditInputOf(view: AskView): AuditInput {
  if (view.approval) {
    const { toolName, toolInput, suggestions } = view.approval;
    // The "always allow" suggestions the card showed, by the page's own rule: none where the agent takes
    // none back or two people must allow (choices.remember), nor on a risky call (allowed once only).
    const shown = view.choices.remember && !view.risk ? suggestions.map((suggestion) => suggestion.label) : [];
    return { approval: { toolName, toolInput, suggestions: shown }, ...(view.risk ? { risk: view.risk.reasons } : {}) };
  }
  if (view.turnEnd) return { turnEnd: view.turnEnd };
  if (view.terminalWait) return { terminalWait: view.terminalWait };
  if (view.elicitation) return { elicitation: view.elicitation };
  return { questions: view.questions };
}

export const sha256Hex = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The key's bytes, from the key file's text (64 hex characters). */
export function parseAuditKey(text: string): Buffer | undefined {
  const hex = text.trim();
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

const MAC_FIELD = ',"mac":"';

/**
 * A value as one sealed line of text (no newline): its JSON (invisible characters escaped, so that
 * printing a line never acts on a terminal), then `"mac"`, the HMAC-SHA256 of that JSON's bytes.
 */
export function sealLine(value: Record<string, unknown>, key: Buffer): string {
  const json = terminalJson(value);
  return `${json.slice(0, -1)}${MAC_FIELD}${createHmac('sha256', key).update(json).digest('hex')}"}`;
}

/** Whether a sealed line's MAC is the key's: the line without its MAC, as sealLine made it, under the key. */
export function macMatches(text: string, key: Buffer): boolean {
  const at = text.lastIndexOf(MAC_FIELD);
  if (at < 0 || !text.endsWith('"}') || text.length !== at + MAC_FIELD.length + 64 + 2) return false;
  const mac = Buffer.from(text.slice(at + MAC_FIELD.length, -2), 'hex');
  const expected = createHmac('sha256', key).update(`${text.slice(0, at)}}`).digest();
  return mac.length === expected.length && timingSafeEqual(mac, expected);
}

/** Each line of a file, as its bytes without the newline; `ended`: whether a newline ends it (a last line may have none). Read a piece at a time. */
export function* fileLines(path: string): Generator<{ bytes: Buffer; ended: boolean }> {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 16);
    let rest = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      let data = Buffer.concat([rest, chunk.subarray(0, read)]);
      for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a)) {
        yield { bytes: data.subarray(0, newline), ended: true };
        data = data.subarray(newline + 1);
      }
      rest = Buffer.from(data);
    }
    if (rest.length > 0) yield { bytes: rest, ended: false };
  } finally {
    closeSync(fd);
  }
}

/** A line read back: parsed and checked against the format, or why not (as verify says it). */
export function readAuditLine(text: string): { ok: true; line: AuditLine } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  const parsed = AuditLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: `not an audit line (${issue ? `${issue.path.join('.') || 'the line'}: ${issue.message}` : 'wrong shape'})` };
  }
  return { ok: true, line: parsed.data };
}

/** The head file read back, or why it cannot be (undefined: there is none). */
export function readAuditHead(path: string, key: Buffer): { ok: true; head: AuditHead | undefined } | { ok: false; problem: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, head: undefined };
    return { ok: false, problem: `its head ${path} cannot be read (${(error as Error).message})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `its head ${path} is not JSON` };
  }
  const parsed = AuditHeadSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: `its head ${path} is not a head (a sequence number, a hash and a MAC)` };
  if (!macMatches(text, key)) return { ok: false, problem: `its head ${path} was changed (its MAC does not match)` };
  return { ok: true, head: parsed.data };
}

export type AuditVerdict =
  | { ok: true; lines: number; from?: string; to?: string }
  /** `line`: the first broken line's number (1 for the first); `problem`: what is wrong with it. */
  | { ok: false; line: number; problem: string };

/** A broken line of a trail: its number (1 for the first) and what is wrong with it. */
export type BrokenLine = { ok: false; line: number; problem: string };

/**
 * The checks of a trail's lines, one line at a time, in order: each line is JSON of the format,
 * sealed with the key when there is one (a line edited, or written by a program without the key,
 * fails here), numbered one more than the line before (a line removed or moved fails here), and
 * names the hash of the exact bytes of the line before it. The file (verifyAuditTrail) and the
 * shared store's copies of every daemon's trail (`askbridge audit verify`) are checked by it alike.
 */
export function createTrailCheck(key: Buffer | undefined) {
  let count = 0;
  let prev = AUDIT_GENESIS;
  let previousSeq = 0;
  let from: string | undefined;
  let to: string | undefined;
  return {
    /** The next line's text (no newline): undefined when it holds, else the first broken line. */
    next(text: string): BrokenLine | undefined {
      count += 1;
      const read = readAuditLine(text);
      if (!read.ok) return { ok: false, line: count, problem: read.problem };
      const { line } = read;
      if (key && !macMatches(text, key)) return { ok: false, line: count, problem: 'edited (its MAC does not match: changed, or written without the key)' };
      if (line.seq !== previousSeq + 1) {
        return { ok: false, line: count, problem: count === 1 ? `removed or reordered (the trail starts at sequence ${line.seq}, not 1)` : `removed or reordered (sequence ${previousSeq} is followed by ${line.seq})` };
      }
      if (line.prev !== prev) return { ok: false, line: count, problem: 'its previous line is not the one it was written after (the hash it names does not match)' };
      prev = sha256Hex(text);
      previousSeq = line.seq;
      from ??= line.at;
      to = line.at;
      return undefined;
    },
    /** How many lines held so far, the hash of the last, and the times of the first and the last. */
    state: () => ({ lines: count, hash: prev, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) }),
  };
}

/**
 * Every check of a trail, in order, stopping at the first broken line (createTrailCheck), and a
 * line the file ends in the middle of. Then the head: a trail that ends before the line its head
 * names had lines cut from its end. A head behind the trail's end is no loss: the daemon writes it
 * just after each line, and stopped in between.
 */
export function verifyAuditTrail(file: { trail: string; head: string }, key: Buffer): AuditVerdict {
  const head = readAuditHead(file.head, key);
  const headSeq = head.ok ? head.head?.seq : undefined;
  const check = createTrailCheck(key);
  let count = 0;
  let hashAtHead: string | undefined;
  for (const { bytes, ended } of existsSync(file.trail) ? fileLines(file.trail) : []) {
    count += 1;
    if (!ended) return { ok: false, line: count, problem: 'unfinished (the file ends in the middle of it: a write that never completed, or a cut)' };
    const broken = check.next(bytes.toString('utf8'));
    if (broken) return broken;
    if (count === headSeq) hashAtHead = check.state().hash;
  }
  if (!head.ok) return { ok: false, line: count + 1, problem: head.problem };
  if (head.head === undefined) {
    if (count === 0) return { ok: true, lines: 0 };
    return { ok: false, line: count + 1, problem: `the trail has ${count} lines but no head (${file.head} is missing): whether lines were removed from its end cannot be told` };
  }
  if (head.head.seq > count) return { ok: false, line: count + 1, problem: `the trail ends at line ${count} but its head says ${head.head.seq}: lines were removed from its end` };
  if (head.head.seq > 0 && hashAtHead !== head.head.hash) return { ok: false, line: head.head.seq, problem: "not the line its head names (its hash differs from the head's)" };
  const { from, to } = check.state();
  return { ok: true, lines: count, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** A trail's name in the shared store: the SHA-256 of its first line's bytes (no newline). */
export const trailIdOf = (firstLine: string | Buffer) => sha256Hex(firstLine);
