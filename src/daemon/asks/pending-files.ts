// Waiting questions on disk, one file each in the state directory's pending/ folder (0600, written
// atomically), so that a daemon that dies without stopping (kill -9, out of memory, power loss)
// gives them back when it starts again, and their hooks and relays can re-attach; and a relay's
// ask settled with a decision not delivered yet, with its outcome, until its relay reports it. Best effort by design: a
// write that fails is logged and the question goes on without it. A file that cannot be read back
// is set aside as .corrupt, never deleted, and never stops the start.
import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { makeFolders } from '../../folders.js';
import { AgentSchema, AllowSchema, ApprovalDecisionSchema, AskStatusSchema, ElicitationResultSchema, PersonNameSchema, QuestionSchema, RouteViewSchema, SourceSchema } from '../../protocol.js';
import { writeFileAtomic } from '../../state-dir.js';
import type { Outcome, PendingPersistence, PendingRecord } from './store.js';

/** A settled ask's outcome as the store made it (answers.ts's Answered for its answers). */
const OutcomeSchema: z.ZodType<Outcome> = z.object({
  status: AskStatusSchema.exclude(['pending']),
  source: SourceSchema,
  answered: z
    .object({
      answers: z.record(z.string(), z.string()),
      notes: z.record(z.string(), z.string()),
      choices: z.array(z.object({ question: QuestionSchema, labels: z.array(z.string()), other: z.string().nullable(), notes: z.string().nullable() })),
    })
    .optional(),
  decision: ApprovalDecisionSchema.optional(),
  reply: z.string().optional(),
  error: z.string().optional(),
  elicitation: ElicitationResultSchema.optional(),
  allow: AllowSchema.optional(),
});

const PendingRecordSchema: z.ZodType<PendingRecord> = z.object({
  id: z.uuid(),
  /** Absent in files from before agents were named: Claude Code's. */
  agent: AgentSchema.optional(),
  sessionId: z.string().min(1),
  toolUseId: z.string().min(1),
  cwd: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  /** How late an extension may move expiresAt; absent when it may not be extended (and in files from before extensions). */
  extendableUntil: z.number().optional(),
  toolInput: z.record(z.string(), z.unknown()),
  /** A relay's ask (absent: the command hook's), and its request as it came, made into the same ask again on restore. */
  door: z.literal('relay').optional(),
  relayed: z.record(z.string(), z.unknown()).optional(),
  machine: z.string().optional(),
  /**
   * Whose session asked, who the ask is routed to (as decided when it came) and the allows given so
   * far: absent in files from before people, and for an ask with none.
   */
  person: PersonNameSchema.optional(),
  route: RouteViewSchema.optional(),
  allows: z.array(AllowSchema).optional(),
  /** A relay's ask settled with a decision not delivered yet. */
  settled: z.object({ outcome: OutcomeSchema, resolvedAt: z.number() }).optional(),
});

type Log = (fields: Record<string, unknown>, message: string) => void;

export function createPendingFiles(stateDir: string, log: Log): PendingPersistence & { load(): PendingRecord[] } {
  const dir = join(stateDir, 'pending');
  const fileOf = (id: string) => join(dir, `${id}.json`);
  let dirReady = false;

  return {
    save(record) {
      try {
        if (!dirReady) makeFolders(dir, 0o700);
        dirReady = true;
        writeFileAtomic(fileOf(record.id), `${JSON.stringify(record)}\n`);
      } catch (error) {
        log({ askId: record.id, error: (error as Error).message }, 'could not keep a waiting question on disk: it will not survive a daemon crash');
      }
    },
    remove(id) {
      try {
        rmSync(fileOf(id), { force: true });
      } catch (error) {
        log({ askId: id, error: (error as Error).message }, 'could not remove a finished question from disk');
      }
    },
    load() {
      let names: string[];
      try {
        names = readdirSync(dir).filter((name) => name.endsWith('.json'));
      } catch {
        return [];
      }
      const records: PendingRecord[] = [];
      for (const name of names) {
        const path = join(dir, name);
        try {
          const parsed = PendingRecordSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
          if (parsed.success && `${parsed.data.id}.json` === name) {
            records.push(parsed.data);
            continue;
          }
        } catch {
          // unreadable: set aside below
        }
        log({ file: path }, 'a waiting question on disk could not be read: set aside as .corrupt');
        try {
          renameSync(path, `${path}.corrupt`);
        } catch {
          // gone already
        }
      }
      return records;
    },
  };
}
