// The waiting asks: who waits for them, their timers, and who settled them. The first valid
// outcome wins and every later one is refused with the winner. Knows nothing of HTTP or WebSockets,
// nor of any client's reply format: it records a neutral outcome, reports changes to subscribers,
// and hands each waiter the outcome and the reply its asker's own function made of it.
import { randomUUID } from 'node:crypto';
import { AnswerError, formatAnswers, requireEveryQuestion, type Answered } from '../../answers.js';
import type { Asker, Question, AskStatus, AskView, Response, SessionContext, Source } from '../../protocol.js';
import { EXTEND_STEP_MS } from '../limits.js';

/** How an ask ended: who or what settled it, and with what (neutral: no client's format). */
export type Outcome = {
  status: Exclude<AskStatus, 'pending'>;
  source: Source;
  /** The answers, when it was answered: by a person, or by a policy. */
  answered?: Answered;
  /** Why nothing could be delivered (status `failed`). */
  error?: string;
};

/**
 * What the asker's transport writes for an outcome (a client's decision, as text; '' for none),
 * made by a function the asker gives when it opens or re-attaches. It throws when no reply can be
 * made: the ask then fails before anyone is told it was settled.
 */
export type Reply = (outcome: Outcome) => string;

export type StoreEvent = { type: 'added' | 'updated' | 'resolved'; ask: AskView };

export type NewAsk = {
  sessionId: string;
  toolUseId: string;
  cwd: string;
  /** The input exactly as the asker sent it: kept on disk, and read back on restore. */
  toolInput: Record<string, unknown>;
  questions: Question[];
  waitMs: number;
  /** What happens when nobody answered within waitMs, as the page tells it. */
  timeout: AskView['timeout'];
  /** Decides the outcome when nobody answered within waitMs. */
  onTimeout: (question: AskView) => Outcome;
  /** Settles the question the moment it is asked (a policy that needs no person). */
  immediate?: Outcome;
  /** How the asker's transport writes an outcome; a script's or an MCP client's ask needs none. */
  reply?: Reply;
  /**
   * Whether the asker comes back after a daemon restart: a command hook retries and re-attaches, so
   * its question is kept on disk while it waits; an http hook's request that dropped is over.
   */
  reattaches: boolean;
  /** A script or an MCP client, when not Claude Code. */
  asker?: Asker;
  /** The machine a remote hook named. */
  machine?: string;
  /**
   * The longest the asker can wait, counted from when it asks: how far the deadline may be extended
   * for a person who is answering (extend()). Absent, or not beyond waitMs: never extended.
   */
  maxWaitMs?: number;
  /** A question that was waiting when the daemon stopped, read back from disk: its id, times and limit are kept. */
  restored?: { id: string; createdAt: number; expiresAt: number; extendableUntil?: number };
};

/** What is kept on disk of a waiting question, so that it survives a daemon that dies (kill -9, OOM). */
export type PendingRecord = Pick<AskView, 'id' | 'sessionId' | 'toolUseId' | 'cwd' | 'createdAt' | 'expiresAt' | 'extendableUntil'> & {
  /** Exactly as Claude Code sent it; its questions are read from it again on restore. */
  toolInput: Record<string, unknown>;
};

/** Where waiting questions are kept while they wait (pending-file.ts); errors there never reach a question. */
export type PendingPersistence = { save(record: PendingRecord): void; remove(id: string): void };

export type Waiter = {
  ask: AskView;
  /** Settles once, with the ask's outcome. */
  outcome: Promise<Outcome>;
  /** Settles with the outcome: what this waiter's transport writes ('' without a reply function). */
  reply: Promise<string>;
  /** The waiting hook went away. When it was the last one, the question is withdrawn. */
  leave(): void;
};

export type AnswerResult =
  | { kind: 'answered'; ask: AskView }
  | { kind: 'not_found' }
  | { kind: 'already_resolved'; ask: AskView }
  | { kind: 'invalid'; error: AnswerError }
  /** Handing back to a terminal, for an ask that has none behind it (a script's, an MCP client's). */
  | { kind: 'no_terminal'; ask: AskView }
  /** The answer was valid, but no decision could be built from it: the question failed, the terminal asks. */
  | { kind: 'failed'; ask: AskView };

/** More time for a waiting question: `unchanged` when it is at its limit, or has that much time left already. */
export type ExtendResult =
  | { kind: 'extended' | 'unchanged'; ask: AskView }
  | { kind: 'not_found' }
  | { kind: 'already_resolved'; ask: AskView };

/** One waiting asker: how it is told, and how its transport writes the outcome. */
type WaiterSlot = { deliver: (outcome: Outcome, reply: string) => void; reply: Reply | undefined };

type Entry = {
  view: AskView;
  toolInput: Record<string, unknown>;
  questions: Question[];
  waiters: Set<WaiterSlot>;
  timer: NodeJS.Timeout | undefined;
  /** Set while a restored question waits for its hook to come back. */
  reattachTimer: NodeJS.Timeout | undefined;
  outcome: Outcome | undefined;
  onTimeout: (question: AskView) => Outcome;
  /** Kept on disk while it waits (its asker re-attaches after a restart): an extension is written there too. */
  persisted: boolean;
};

export type AskStoreOptions = {
  now?: () => number;
  /** How long a finished question is kept, so that a late answer learns who won. */
  keepFinishedMs?: number;
  maxFinished?: number;
  persistence?: PendingPersistence;
  /** How long a restored question waits for its hook to come back before it is withdrawn. */
  reattachMs?: number;
};

/** A hook retries at once when its connection drops; one that has not come back by then is gone. */
export const REATTACH_MS = 15_000;

export function createAskStore(options: AskStoreOptions = {}) {
  const now = options.now ?? Date.now;
  const keepFinishedMs = options.keepFinishedMs ?? 15 * 60_000;
  const maxFinished = options.maxFinished ?? 2000;
  const reattachMs = options.reattachMs ?? REATTACH_MS;

  /**
   * The outcome as it will be delivered, and each waiter's reply. Replies are made before anyone is
   * told the ask is settled: when one cannot be (it throws), the ask ends as `failed`, every waiter
   * gets an empty reply, and the person who answered learns it, instead of a hook waiting for a
   * line that never comes.
   */
  function deliverable(slots: readonly WaiterSlot[], proposed: Outcome): { outcome: Outcome; replies: string[] } {
    try {
      return { outcome: proposed, replies: slots.map((slot) => slot.reply?.(proposed) ?? '') };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { outcome: { status: 'failed', source: proposed.source, error: `the reply for its asker could not be made (${reason})` }, replies: slots.map(() => '') };
    }
  }

  const byId = new Map<string, Entry>();
  const idByKey = new Map<string, string>();
  const finished: string[] = []; // ids in the order they finished, oldest first
  const listeners = new Set<(event: StoreEvent) => void>();

  const keyOf = (sessionId: string, toolUseId: string) => `${sessionId}\u0000${toolUseId}`;
  const emit = (event: StoreEvent) => {
    for (const listener of listeners) listener(event);
  };

  function forgetOldFinished(): void {
    const cutoff = now() - keepFinishedMs;
    while (finished.length > 0) {
      const id = finished[0]!;
      const entry = byId.get(id);
      const old = !entry || (entry.view.resolvedAt ?? 0) < cutoff;
      if (!old && finished.length <= maxFinished) break;
      finished.shift();
      if (entry) {
        byId.delete(id);
        idByKey.delete(keyOf(entry.view.sessionId, entry.view.toolUseId));
      }
    }
  }

  function settle(entry: Entry, proposed: Outcome): void {
    if (entry.outcome) return;
    const slots = [...entry.waiters];
    const { outcome, replies } = deliverable(slots, proposed);
    entry.outcome = outcome;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    clearTimeout(entry.reattachTimer);
    options.persistence?.remove(entry.view.id);
    entry.view = {
      ...entry.view,
      status: outcome.status,
      source: outcome.source,
      resolvedAt: now(),
      ...(outcome.answered ? { answers: outcome.answered.answers } : {}),
      ...(outcome.answered && Object.keys(outcome.answered.notes).length > 0 ? { notes: outcome.answered.notes } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    for (const [index, slot] of slots.entries()) slot.deliver(outcome, replies[index]!);
    entry.waiters.clear();
    finished.push(entry.view.id);
    forgetOldFinished();
    emit({ type: 'resolved', ask: entry.view });
  }

  function attach(entry: Entry, reply: Reply | undefined): Waiter {
    if (entry.outcome) {
      // Settled while its asker was away (a restart): the reply is made now, for the asker that came back.
      const { outcome } = entry;
      return { ask: entry.view, outcome: Promise.resolve(outcome), reply: Promise.resolve(deliverable([{ deliver: () => {}, reply }], outcome).replies[0]!), leave: () => {} };
    }
    let resolveOutcome!: (outcome: Outcome) => void;
    let resolveReply!: (reply: string) => void;
    const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));
    const replyText = new Promise<string>((resolve) => (resolveReply = resolve));
    const slot: WaiterSlot = {
      deliver(settled, text) {
        resolveReply(text);
        resolveOutcome(settled);
      },
      reply,
    };
    entry.waiters.add(slot);
    clearTimeout(entry.reattachTimer);
    entry.reattachTimer = undefined;
    return {
      ask: entry.view,
      outcome,
      reply: replyText,
      leave() {
        if (!entry.waiters.has(slot)) return;
        const gone: Outcome = { status: 'cancelled', source: { kind: 'hook-gone' } };
        if (entry.waiters.size === 1) return settle(entry, gone);
        // Another hook still waits for this question: only this one stops waiting.
        entry.waiters.delete(slot);
        slot.deliver(gone, '');
      },
    };
  }

  function create(input: NewAsk): Entry {
    const createdAt = input.restored?.createdAt ?? now();
    const expiresAt = input.restored?.expiresAt ?? createdAt + input.waitMs;
    const extendableUntil = extensionLimit(input, createdAt, expiresAt);
    const view: AskView = {
      id: input.restored?.id ?? randomUUID(),
      sessionId: input.sessionId,
      toolUseId: input.toolUseId,
      cwd: input.cwd,
      createdAt,
      expiresAt,
      ...(extendableUntil === undefined ? {} : { extendableUntil }),
      timeout: input.timeout,
      status: 'pending',
      questions: input.questions.map((question) => ({
        question: question.question,
        header: question.header,
        multiSelect: question.multiSelect,
        options: question.options.map((option) => ({
          label: option.label,
          description: option.description,
          ...(option.preview === undefined ? {} : { preview: option.preview }),
        })),
      })),
      ...(input.asker ? { asker: input.asker } : {}),
      ...(input.machine ? { machine: input.machine } : {}),
    };
    const entry: Entry = {
      view,
      toolInput: input.toolInput,
      questions: input.questions,
      waiters: new Set(),
      timer: undefined,
      reattachTimer: undefined,
      outcome: undefined,
      onTimeout: input.onTimeout,
      persisted: false,
    };
    byId.set(entry.view.id, entry);
    idByKey.set(keyOf(input.sessionId, input.toolUseId), entry.view.id);
    return entry;
  }

  function settleByPerson(id: string, outcome: Outcome): AnswerResult {
    const entry = byId.get(id);
    if (!entry) return { kind: 'not_found' };
    if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
    settle(entry, outcome);
    return entry.view.status === 'failed' ? { kind: 'failed', ask: entry.view } : { kind: 'answered', ask: entry.view };
  }

  return {
    /** Ask a question, or wait for the same one again when its session and tool call are known. */
    open(input: NewAsk): Waiter {
      const known = idByKey.get(keyOf(input.sessionId, input.toolUseId));
      const existing = known === undefined ? undefined : byId.get(known);
      if (existing) return attach(existing, input.reply);

      const entry = create(input);
      const waiter = attach(entry, input.reply);
      if (input.immediate) {
        // Settled the moment it is asked, it never waits for anyone: it is reported settled, never added.
        settle(entry, input.immediate);
        return waiter;
      }
      emit({ type: 'added', ask: entry.view });
      if (input.reattaches) {
        entry.persisted = true;
        options.persistence?.save(recordOf(entry));
      }
      entry.timer = setTimeout(() => settle(entry, entry.onTimeout(entry.view)), input.waitMs);
      return waiter;
    },

    /**
     * A question that was waiting when the daemon stopped: shown again at once, settled at its old
     * deadline, and withdrawn unless its hook comes back (and re-attaches through open()) in time.
     */
    restore(input: Omit<NewAsk, 'reattaches' | 'immediate' | 'reply'> & { restored: NonNullable<NewAsk['restored']> }): void {
      if (idByKey.has(keyOf(input.sessionId, input.toolUseId))) return;
      const entry = create({ ...input, reattaches: true });
      entry.persisted = true; // its file is still there, from before the restart
      emit({ type: 'added', ask: entry.view });
      entry.reattachTimer = setTimeout(() => settle(entry, { status: 'cancelled', source: { kind: 'hook-gone' } }), reattachMs);
      entry.timer = setTimeout(() => settle(entry, entry.onTimeout(entry.view)), Math.max(0, input.restored.expiresAt - now()));
    },

    /** A person's answer. The first valid one wins; later ones learn the winner. */
    answer(id: string, responses: readonly Response[], client: 'page' | 'cli'): AnswerResult {
      const entry = byId.get(id);
      if (!entry) return { kind: 'not_found' };
      if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
      let answered: Answered;
      try {
        answered = formatAnswers(entry.questions, responses);
        requireEveryQuestion(entry.questions, answered);
      } catch (error) {
        if (error instanceof AnswerError) return { kind: 'invalid', error };
        throw error;
      }
      return settleByPerson(id, { status: 'answered', source: { kind: 'person', client }, answered });
    },

    /**
     * More time for a person who is answering: the deadline moves to EXTEND_STEP_MS from now, never
     * past the question's extendableUntil, never earlier than it was. The timer, the copy on disk and
     * every page follow (an `updated` event); the hook learns it from that event too.
     */
    extend(id: string): ExtendResult {
      const entry = byId.get(id);
      if (!entry) return { kind: 'not_found' };
      if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
      const { expiresAt, extendableUntil } = entry.view;
      const target = extendableUntil === undefined ? expiresAt : Math.min(extendableUntil, Math.max(expiresAt, now() + EXTEND_STEP_MS));
      if (target <= expiresAt) return { kind: 'unchanged', ask: entry.view };
      entry.view = { ...entry.view, expiresAt: target };
      clearTimeout(entry.timer);
      entry.timer = setTimeout(() => settle(entry, entry.onTimeout(entry.view)), target - now());
      if (entry.persisted) options.persistence?.save(recordOf(entry));
      emit({ type: 'updated', ask: entry.view });
      return { kind: 'extended', ask: entry.view };
    },

    /** A person declines to answer: Claude is told so, and to proceed on its own judgment. */
    decline(id: string, client: 'page' | 'cli'): AnswerResult {
      return settleByPerson(id, { status: 'declined', source: { kind: 'person', client } });
    },

    /**
     * A person hands the ask back: Claude Code's own dialog asks. Only Claude Code's asks have a
     * terminal behind them; a script's or an MCP client's is answered or declined instead.
     */
    handToTerminal(id: string, client: 'page' | 'cli'): AnswerResult {
      const entry = byId.get(id);
      if (entry && !entry.outcome && entry.view.asker !== undefined) return { kind: 'no_terminal', ask: entry.view };
      return settleByPerson(id, { status: 'handed-to-terminal', source: { kind: 'person', client } });
    },

    /**
     * What the asking session was doing, read after the question arrived: shown with it from now on
     * (an `updated` event). A question settled meanwhile keeps what it had. False when nothing changed.
     */
    setContext(id: string, context: SessionContext): boolean {
      const entry = byId.get(id);
      if (!entry || entry.outcome) return false;
      entry.view = { ...entry.view, context };
      emit({ type: 'updated', ask: entry.view });
      return true;
    },

    /**
     * Claude Code says a session ended: every question of it still waiting is withdrawn, and its
     * hooks print nothing. Only Claude Code's own questions from the same machine (a script's or an
     * MCP client's are never a session's). Returns the questions withdrawn.
     */
    endSession(sessionId: string, machine: string | undefined): AskView[] {
      const withdrawn: AskView[] = [];
      for (const entry of [...byId.values()]) {
        const { view } = entry;
        if (entry.outcome || view.sessionId !== sessionId || view.asker !== undefined || view.machine !== machine) continue;
        settle(entry, { status: 'cancelled', source: { kind: 'session-ended' } });
        withdrawn.push(entry.view);
      }
      return withdrawn;
    },

    get(id: string): AskView | undefined {
      return byId.get(id)?.view;
    },

    /** Whether this tool call is already known (waiting or finished): asking it again re-attaches. */
    knows(sessionId: string, toolUseId: string): boolean {
      return idByKey.has(keyOf(sessionId, toolUseId));
    },

    pendingCount(): number {
      let count = 0;
      for (const entry of byId.values()) if (!entry.outcome) count++;
      return count;
    },

    /** Waiting asks, oldest first (a restored ask by when it was first asked). */
    pending(): AskView[] {
      const list: AskView[] = [];
      for (const entry of byId.values()) if (!entry.outcome) list.push(entry.view);
      return list.sort((a, b) => a.createdAt - b.createdAt);
    },

    subscribe(listener: (event: StoreEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** The daemon is stopping: every waiting hook prints nothing, so each terminal asks instead. */
    releaseAll(): void {
      for (const entry of [...byId.values()]) {
        if (!entry.outcome) settle(entry, { status: 'handed-to-terminal', source: { kind: 'daemon-stopped' } });
      }
    },
  };
}

export type AskStore = ReturnType<typeof createAskStore>;

/** What is written to disk of a waiting question (and written again when its deadline moves). */
function recordOf(entry: Entry): PendingRecord {
  const { id, sessionId, toolUseId, cwd, createdAt, expiresAt, extendableUntil } = entry.view;
  return { id, sessionId, toolUseId, cwd, createdAt, expiresAt, ...(extendableUntil === undefined ? {} : { extendableUntil }), toolInput: entry.toolInput };
}

/**
 * How late a question's deadline may be moved: a restored one keeps the limit it had; a new one may
 * wait as long as its asker can (maxWaitMs), when that is longer than its wait. A question a policy
 * settles the moment it is asked never waits, so it has none.
 */
function extensionLimit(input: NewAsk, createdAt: number, expiresAt: number): number | undefined {
  if (input.restored) return input.restored.extendableUntil;
  if (input.immediate || input.maxWaitMs === undefined) return undefined;
  const limit = createdAt + input.maxWaitMs;
  return limit > expiresAt ? limit : undefined;
}
