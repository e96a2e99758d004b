// The audit trail: one line per decision appended to audit.jsonl (its format: audit-file.ts,
// docs/audit.md), on disk (fsync) before record() returns, chained to the line before it by hash and
// sealed with a key kept beside it; then the head file names the last line. It throws, with a plain
// reason, when a line cannot be written: the store then holds a person's decision and any allow
// (mustBeRecorded). It never rewrites a line: the file is opened to append only, and what it takes
// back is only the part of its own line a failed write left.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { AUDIT_FORMAT, AUDIT_GENESIS, auditInputOf, macMatches, parseAuditKey, readAuditHead, readAuditLine, sealLine, sha256Hex } from '../audit-file.js';
import type { AuditProblem, Source } from '../protocol.js';
import { diskErrorReason, writeFileAtomic, writeOnce } from '../state-dir.js';
import { kindOf, mustBeRecorded, type RecordedEvent } from './asks/store.js';

type Log = {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
};

export type AuditTrail = ReturnType<typeof createAuditTrail>;

/** Where the trail ends: the last line's sequence number and the hash of its bytes. */
type End = { seq: number; hash: string };

export function createAuditTrail(options: {
  file: string;
  keyFile: string;
  headFile: string;
  log: Log;
  /** How to run askbridge on this machine, for the hints in its reasons (askbridgeCommand). */
  command: string;
  now?: () => number;
  /** Why the trail cannot be written now, or null once it can again: for the page's banner. */
  onProblem?: (problem: AuditProblem | null) => void;
}) {
  const now = options.now ?? Date.now;
  const { file, keyFile, headFile, log, command } = options;
  const verifyHint = `run \`${command} audit verify\`, and see docs/audit.md`;
  let key: Buffer | undefined;
  let end: End | undefined;
  let problem: AuditProblem | null = null;

  function setProblem(error: string | null): void {
    if (error === (problem?.error ?? null)) return;
    problem = error === null ? null : { error, since: problem?.since ?? now() };
    options.onProblem?.(problem);
  }

  /** The key, made on first use; never made anew for a trail that has lines (they would all fail verify). */
  function keyOf(): Buffer {
    if (key) return key;
    let text: string | undefined;
    try {
      text = readFileSync(keyFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text === undefined) {
      if (holdsLines(file)) throw new Error(`its key ${keyFile} is missing while the trail has lines: put the key back from its backup (see docs/audit.md)`);
      writeOnce(keyFile, `${randomBytes(32).toString('hex')}\n`);
      text = readFileSync(keyFile, 'utf8');
    }
    const parsed = parseAuditKey(text);
    if (!parsed) throw new Error(`its key ${keyFile} is not 64 hexadecimal characters`);
    key = parsed;
    return key;
  }

  /**
   * Where the trail ends, read once: its last line, checked with the key, and the head. A trail
   * that ends before its head, or in an unfinished line, is not written to: a new line after it would
   * hide what happened. A head that is behind by lines the trail has (the daemon stopped between the
   * two writes) is written again.
   */
  function endOf(secret: Buffer): End {
    if (end) return end;
    const last = lastLine(file);
    let found: End = { seq: 0, hash: AUDIT_GENESIS };
    if (last) {
      if (!last.ended) throw new Error(`the trail ends in an unfinished line: ${verifyHint}`);
      const text = last.bytes.toString('utf8');
      const read = readAuditLine(text);
      if (!read.ok || !macMatches(text, secret)) throw new Error(`its last line is not one askbridge wrote: ${verifyHint}`);
      found = { seq: read.line.seq, hash: sha256Hex(last.bytes) };
    }
    const head = readAuditHead(headFile, secret);
    if (!head.ok) throw new Error(`${head.problem}: ${verifyHint}`);
    if (head.head === undefined && found.seq > 0) throw new Error(`the trail has lines but its head ${headFile} is missing: ${verifyHint}`);
    if (head.head && head.head.seq > found.seq) throw new Error(`the trail ends at line ${found.seq} but its head says ${head.head.seq}: lines were removed from its end: ${verifyHint}`);
    if (head.head && head.head.seq === found.seq && head.head.hash !== found.hash) throw new Error(`its last line is not the one its head names: ${verifyHint}`);
    if (head.head && head.head.seq < found.seq) writeHead(found, secret);
    end = found;
    return end;
  }

  function writeHead(at: End, secret: Buffer): void {
    try {
      writeFileAtomic(headFile, `${sealLine({ seq: at.seq, hash: at.hash }, secret)}\n`);
    } catch (error) {
      // The line is on disk: the head catches up with the next line written.
      log.error({ file: headFile, error: reasonOf(error) }, 'the audit head could not be written: it is behind the trail until the next line');
    }
  }

  function append(event: RecordedEvent): void {
    const secret = keyOf();
    const at = endOf(secret);
    const time = now();
    const text = sealLine({ v: AUDIT_FORMAT, seq: at.seq + 1, at: new Date(time).toISOString(), atMs: time, ...lineOf(event), prev: at.hash }, secret);
    const created = sizeOf(file) < 0;
    const fd = openSync(file, 'a', 0o600);
    try {
      const size = fstatSync(fd).size;
      const bytes = Buffer.from(`${text}\n`);
      try {
        let written = 0;
        while (written < bytes.length) written += writeSync(fd, bytes, written);
        fsyncSync(fd);
      } catch (error) {
        // Only what this write left, never a line before it: the trail ends where it did.
        try {
          ftruncateSync(fd, size);
        } catch {
          end = undefined; // read again next time: an unfinished line there stops the trail
        }
        throw error;
      }
    } finally {
      closeSync(fd);
    }
    end = { seq: at.seq + 1, hash: sha256Hex(text) };
    // A new file's name is on disk only once its folder is. The line is written either way: it stands.
    if (created) {
      try {
        syncFolder(dirname(file));
      } catch (error) {
        log.error({ file, error: reasonOf(error) }, 'the folder of the new audit trail could not be synced');
      }
    }
    writeHead(end, secret);
  }

  return {
    /**
     * Whether the trail can be written, checked at the daemon's start (its key made, its end read):
     * a trail cut at its end shows at once, in the log, the banner and status, not at the first decision.
     */
    check(): void {
      try {
        endOf(keyOf());
      } catch (error) {
        const reason = reasonOf(error);
        log.error({ file, error: reason }, "the audit trail cannot be written: a person's decisions wait until it can");
        setProblem(reason);
      }
    },
    /** Appends the event's line, on disk before it returns; throws with the reason it cannot. */
    record(event: RecordedEvent): void {
      try {
        append(event);
      } catch (error) {
        const reason = reasonOf(error);
        log.error({ file, askId: event.ask.id, event: event.kind, error: reason }, isHeld(event) ? 'audit record not written: the decision is not released, the ask still waits' : 'audit record not written: released without it');
        setProblem(reason);
        throw new Error(reason);
      }
      if (problem !== null) log.info({ file }, 'the audit trail is written again');
      setProblem(null);
    },
    problem: (): AuditProblem | null => problem,
  };
}

/** An event as its line holds it, between the time and the hash (audit-file.ts's AuditLineSchema). */
function lineOf(event: RecordedEvent): Record<string, unknown> {
  const { ask } = event;
  // A settled ask's view always names its source (the store's settledView).
  const by: Source = event.kind === 'allow' ? { kind: 'person', client: event.allow.client, person: event.allow.person, device: event.allow.device } : ask.source!;
  // One allow of two: the allows given so far, this one last.
  const allows = event.kind === 'allow' ? [...(ask.allows ?? []).filter((allow) => allow.person !== event.allow.person), event.allow] : ask.allows;
  return {
    event: event.kind,
    ask: ask.id,
    kind: kindOf(ask),
    ...(ask.agent ? { agent: ask.agent } : {}),
    ...(ask.asker ? { asker: ask.asker } : {}),
    ...(ask.machine ? { machine: ask.machine } : {}),
    session: ask.sessionId,
    toolUseId: ask.toolUseId,
    project: ask.cwd,
    ...(ask.person === undefined ? {} : { sessionPerson: ask.person }),
    ...(ask.route ? { route: ask.route } : {}),
    input: auditInputOf(ask),
    decision: {
      status: event.kind === 'allow' ? 'pending' : ask.status,
      ...(ask.answers ? { answers: ask.answers } : {}),
      ...(ask.notes ? { notes: ask.notes } : {}),
      ...(ask.decision ? { decision: ask.decision } : {}),
      ...(ask.reply !== undefined ? { reply: ask.reply } : {}),
      ...(ask.elicitationResult ? { elicitation: ask.elicitationResult } : {}),
      ...(ask.error ? { error: ask.error } : {}),
      ...(allows && allows.length > 0 ? { allows } : {}),
    },
    by,
  };
}

/** Whether the store holds this event's settlement back when its line cannot be written (store.ts's mustBeRecorded). */
function isHeld(event: RecordedEvent): boolean {
  const { status, source } = event.ask;
  return event.kind === 'allow' || (status !== 'pending' && source !== undefined && mustBeRecorded({ status, source }));
}

/** A failure in words: a disk's refusal plainly ("the disk is full (ENOSPC)"), else its message. */
function reasonOf(error: unknown): string {
  return diskErrorReason(error) ?? (error as Error).message;
}

/** Whether there is a trail with something in it. */
function holdsLines(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size > 0;
  } catch {
    return false;
  }
}

/** The file's size; -1 when there is none. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return -1;
    throw error;
  }
}

function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's last line (read backwards a piece at a time), and whether a newline ends it; undefined for an empty or missing file. */
function lastLine(path: string): { bytes: Buffer; ended: boolean } | undefined {
  const size = sizeOf(path);
  if (size <= 0) return undefined;
  const fd = openSync(path, 'r');
  try {
    const piece = 1 << 16;
    let tail = Buffer.alloc(0);
    let position = size;
    for (;;) {
      const start = Math.max(0, position - piece);
      const chunk = Buffer.alloc(position - start);
      readSync(fd, chunk, 0, chunk.length, start);
      tail = Buffer.concat([chunk, tail]);
      position = start;
      const ended = tail[tail.length - 1] === 0x0a;
      const body = ended ? tail.subarray(0, -1) : tail;
      const newline = body.lastIndexOf(0x0a);
      if (newline >= 0) return { bytes: body.subarray(newline + 1), ended };
      if (position === 0) return { bytes: body, ended };
    }
  } finally {
    closeSync(fd);
  }
}
