// The waiting asks: who waits for them, their timers, and who settled them. The first valid
// outcome wins and every later one is refused with the winner. Knows nothing of HTTP or WebSockets,
// nor of any client's reply format: it records a neutral outcome, reports changes to subscribers,
// and hands each waiter the outcome and the decision its asker's own function made of it (a typed
// value; the door that delivers it writes it). What a person may decide is the channel contract
// (choices.ts): checked here for every channel, before anything settles. What an asker can take and
// what its connection closing means come from its profile (agents.ts), never from a rule here.
// Each ask belongs to the asker that opened it (its door, agent, credential and machine): what the
// asks of one asker hold is counted (asks and bytes), and only the command hook that opened an ask
// may wait for it again; admit() says whether a new ask fits before open() opens it.
import { askbridgeCommand } from '../../command-name.js';
import { randomUUID } from 'node:crypto';
import { profileOf, type AskKind } from '../../agents.js';
import { AnswerError, formatAnswers, requireEveryQuestion, type Answered } from '../../answers.js';
import { grantable, ruleFor } from '../../grant-rules.js';
import type { Risk } from '../../risk.js';
import { choicesOf, onChannel, refusedAnswer, refusedDecision, type Shown } from '../../choices.js';
import type { Agent, Allow, Approval, ApprovalDecision, Asker, Elicitation, ElicitationResponse, ElicitationResult, Question, AskStatus, AskView, Decider, PersonClient, Response, RouteView, SessionContext, Source, TerminalWait, TurnEnd } from '../../protocol.js';
import type { FormError, FormSpec, checkFormContent } from '../../elicitation-form.js';
import { isRoutedTo, viewerOf } from '../../route-access.js';
import { CLI_MAY_ONLY_DENY, needsTwoPeople } from '../../two-people.js';
import { EXTEND_STEP_MS, FINISHED_BYTES, shareOf, type Scope, type WaitingLimits } from '../limits.js';

/** How an ask ended: who or what settled it, and with what (neutral: no client's format). */
export type Outcome = {
  status: Exclude<AskStatus, 'pending'>;
  source: Source;
  /** The answers, when it was answered: by a person, or by a policy. */
  answered?: Answered;
  /** How an approval was decided (status `allowed` or `denied`). */
  decision?: ApprovalDecision;
  /** The person's reply to a turn's end (status `replied`). */
  reply?: string;
  /** Why nothing could be delivered (status `failed`). */
  error?: string;
  /** A person's response to an elicitation: what the MCP server receives. */
  elicitation?: ElicitationResult;
  /** The second person's allow that settled an ask two people must allow: added to its view's allows. */
  allow?: Allow;
};

/**
 * The asker's decision for an outcome (its client's typed value; null for none: its own prompt
 * decides), made by a function the asker gives when it opens or re-attaches. It throws when none
 * can be made: the ask then fails before anyone is told it was settled.
 */
export type Reply<Decision = unknown> = (outcome: Outcome) => Decision | null;

/** A change of an ask: `elsewhere` when another daemon sharing the store holds it (mirror()): its own channels tell it. */
export type StoreEvent = { type: 'added' | 'updated' | 'resolved'; ask: AskView; elsewhere?: true };

/** What an asker proved itself with: the hook key, or the token (the command hook signs with it, a local program sends it). */
export type Credential = 'hook-key' | 'token';

/**
 * The way an ask came in: an agent's http hook, the command hook (which re-attaches after a
 * restart), a relay of an agent's own server (`askbridge attach`), or POST /api/asks (a script, an
 * MCP client).
 */
export type Door = 'http-hook' | 'command-hook' | 'relay' | 'ask';

/**
 * Who asks: through which door, for which agent, with what credential, from which machine (as it
 * names itself), and for POST /api/asks which kind of program. An ask's limits are counted against
 * it, and only it can reach the ask again.
 */
export type AskerIdentity = {
  transport: Door;
  agent: Agent | undefined;
  credential: Credential;
  machine: string | undefined;
  program: Asker['kind'] | undefined;
};

/** How much waits: asks, and the bytes they hold (an ask's view and its input, as JSON). */
export type Usage = { asks: number; bytes: number };

/** Which limit a new ask would pass, for whom: its asker's share, its credential's, or everyone's. */
export type OverLimit = { limit: 'asks' | 'bytes'; scope: Scope; max: number };

export type Admission =
  /** It fits. `refusedMeanwhile`: how many of its asker's asks were refused since it last had room. */
  | { kind: 'new'; asker: AskerIdentity; refusedMeanwhile: number }
  /** The command hook that asked it comes back for it (after a restart, or a second hook for the same call). */
  | { kind: 'reattach' }
  /** The same wait, asked again through another entry of the same session (askbridge wired twice): it waits with the first. */
  | { kind: 'join' }
  /** This session and tool call were asked by another asker, or by one that never waits again: refused. */
  | { kind: 'taken' }
  /** Over a limit. `first`: the first refusal of this asker since it last had room (logged once). */
  | ({ kind: 'over'; asker: AskerIdentity; bytes: number; first: boolean } & OverLimit);

export type NewAsk<Decision = unknown> = {
  sessionId: string;
  toolUseId: string;
  cwd: string;
  /** The input exactly as the asker sent it: kept on disk, and read back on restore. */
  toolInput: Record<string, unknown>;
  questions: Question[];
  /** Which questions, in order, take typed text besides their options (every one when absent). */
  typedAnswers?: boolean[];
  /** A permission an agent asks for, instead of questions (`questions` is then empty). */
  approval?: Approval;
  /** Why the approval is dangerous (riskOf, with the configuration that applies to it). */
  risk?: Risk;
  /** Whose session asked, as its hook said (remote-hook --person). */
  person?: string;
  /** Who may see and decide it (the user config's `route`, routing.ts); absent: everyone. */
  route?: RouteView;
  /** The end of Claude's turn, waiting for the person's reply (`questions` is then empty). */
  turnEnd?: TurnEnd;
  /** The session waits on the person in its terminal: shown, never answered here (`questions` is then empty). */
  terminalWait?: TerminalWait;
  /** An MCP server asks the person for input (`questions` is then empty). */
  elicitation?: Elicitation;
  waitMs: number;
  /** What happens when nobody answered within waitMs, as the page tells it. */
  timeout: AskView['timeout'];
  /** Decides the outcome when nobody answered within waitMs. */
  onTimeout: (question: AskView) => Outcome;
  /** Settles the question the moment it is asked (a policy that needs no person). */
  immediate?: Outcome;
  /** The asker's decision for an outcome; a script's or an MCP client's ask needs none. */
  reply?: Reply<Decision>;
  /**
   * The way it came in. The command hook and a relay come back after a daemon restart (they retry
   * and re-attach), so what they ask is kept on disk while it waits; any other request that dropped is over.
   */
  door: Door;
  /**
   * A relay's request as it came (the agent's own request, its folder and title): kept on disk while
   * it waits, so that a restarted daemon makes the same ask of it again (relayed.ts).
   */
  relayed?: Record<string, unknown>;
  /** The coding agent that asked, when one did. */
  agent?: Agent;
  /**
   * What makes two requests the same wait: the agent, session and what is asked (a PermissionRequest
   * names no tool call). Claude Code runs every entry it has for an event, so askbridge wired in
   * two places asks twice at once: a request that comes while the same wait is pending, from the
   * same machine, waits with it (one card) and gets its own decision when it is settled.
   */
  sameAs?: string;
  /** A script or an MCP client, when no coding agent asked. */
  asker?: Asker;
  /** The machine a remote hook named. */
  machine?: string;
  /**
   * What the asker proved itself with, when its transport has a choice: a script or an MCP client
   * asks with the token or the hook key. Claude Code's http hook always has the hook key, and the
   * command hook (the asker that re-attaches) the token.
   */
  credential?: Credential;
  /**
   * The longest the asker can wait, counted from when it asks: how far the deadline may be extended
   * for a person who is answering (extend()). Absent, or not beyond waitMs: never extended.
   */
  maxWaitMs?: number;
  /**
   * A question that was waiting when the daemon stopped, read back from disk: its id, times and limit
   * are kept, and the allows given before the stop (one of two people's), which still count.
   */
  restored?: { id: string; createdAt: number; expiresAt: number; extendableUntil?: number; allows?: Allow[] };
};

/**
 * What is kept on disk of a waiting question, so that it survives a daemon that dies (kill -9, OOM).
 * Its person, its route as decided when it came (every decision on it was made under that route) and
 * the allows given so far come back with it: a restart never opens a routed ask to everyone, nor
 * forgets the first of two people's allows.
 */
export type PendingRecord = Pick<AskView, 'id' | 'agent' | 'sessionId' | 'toolUseId' | 'cwd' | 'createdAt' | 'expiresAt' | 'extendableUntil' | 'machine' | 'person' | 'route' | 'allows'> & {
  /** Exactly as Claude Code sent it; its questions are read from it again on restore. */
  toolInput: Record<string, unknown>;
  /** `relay` for a relay's ask, made again from `relayed` on restore; absent for the command hook's. */
  door?: 'relay';
  relayed?: Record<string, unknown>;
  /**
   * A relay's ask settled with a decision its relay has not delivered yet: how, and when. Kept until
   * the relay says what became of it, or KEEP_UNDELIVERED_MS ends; restored as settled.
   */
  settled?: { outcome: Outcome; resolvedAt: number };
};

/** Where waiting questions are kept while they wait (pending-file.ts); errors there never reach a question. */
export type PendingPersistence = { save(record: PendingRecord): void; remove(id: string): void };

export type Waiter<Decision = unknown> = {
  ask: AskView;
  /** Settles once, with the ask's outcome. */
  outcome: Promise<Outcome>;
  /** Settles with the outcome: this waiter's decision (null for none, or without a reply function). */
  reply: Promise<Decision | null>;
  /** The waiting hook went away. When it was the last one, the question is withdrawn. */
  leave(): void;
  /** Its decision was handed to the asker (written to its connection), or the asker is gone: not to be given back after a restart. */
  delivered(): void;
};

export type AnswerResult =
  | { kind: 'answered'; ask: AskView }
  | { kind: 'not_found' }
  | { kind: 'already_resolved'; ask: AskView }
  | { kind: 'invalid'; error: AnswerError }
  /** Handing back to a terminal, for an ask that has none behind it (a script's, an MCP client's). */
  | { kind: 'no_terminal'; ask: AskView }
  /** The answer was valid, but no decision could be built from it: the question failed, the terminal asks. */
  | { kind: 'failed'; ask: AskView }
  /** One person's allow of an ask two people must allow: recorded and shown, and it still waits for a second person. */
  | { kind: 'allowed_once'; ask: AskView }
  /** This person allowed it already (from any device or chat): a second person must; nothing changed. */
  | { kind: 'already_allowed'; person: string; ask: AskView }
  /** The decision's audit record could not be written (AskStoreOptions.record): nothing was released, and it still waits. */
  | { kind: 'not_recorded'; reason: string; ask: AskView }
  /** An elicitation's values that do not fit its form: one problem per field; the ask still waits. */
  | { kind: 'invalid_content'; errors: FormError[] };

/** More time for a waiting question: `unchanged` when it is at its limit, or has that much time left already. */
export type ExtendResult =
  | { kind: 'extended' | 'unchanged'; ask: AskView }
  | { kind: 'not_found' }
  | { kind: 'already_resolved'; ask: AskView };

/** One waiting asker: how it is told, and how its decision is made. */
type WaiterSlot = { deliver: (outcome: Outcome, decision: unknown) => void; reply: Reply | undefined };

type Entry = {
  view: AskView;
  /** Emptied once settled: a finished ask keeps only its view. */
  toolInput: Record<string, unknown>;
  questions: Question[];
  asker: AskerIdentity;
  askerKey: string;
  /** While it waits: what it holds (its view's JSON and its input's), counted against its asker. Once settled: its view's. */
  bytes: number;
  /** Its input's share of `bytes` while it waits. */
  inputBytes: number;
  waiters: Set<WaiterSlot>;
  timer: NodeJS.Timeout | undefined;
  /** Set while a restored question waits for its hook to come back. */
  reattachTimer: NodeJS.Timeout | undefined;
  /** Set while a relayed decision waits to be delivered: it is given up at KEEP_UNDELIVERED_MS. */
  deliveryTimer: NodeJS.Timeout | undefined;
  outcome: Outcome | undefined;
  onTimeout: (question: AskView) => Outcome;
  /** Kept on disk while it waits (its asker re-attaches after a restart): an extension is written there too. */
  persisted: boolean;
  /** What makes another request the same wait, while this one is pending (NewAsk.sameAs). */
  sameAs: string | undefined;
  /** A relay's request, kept on disk with it (NewAsk.relayed). */
  relayed: Record<string, unknown> | undefined;
  /** The daemon that holds it, when another one sharing the store does (mirror()): it is only shown here. */
  holder: string | undefined;
};

export type AskStoreOptions = {
  now?: () => number;
  /** How long a finished question is kept, so that a late answer learns who won. */
  keepFinishedMs?: number;
  maxFinished?: number;
  /** What the finished questions' views may hold together; the oldest are forgotten first. */
  keepFinishedBytes?: number;
  persistence?: PendingPersistence;
  /** How long a restored question waits for its hook to come back before it is withdrawn. */
  reattachMs?: number;
  /** How long a relayed decision is kept for its relay to deliver (KEEP_UNDELIVERED_MS). */
  keepUndeliveredMs?: number;
  /** How a person's channel shows an ask (whole unless it says cut): what it may decide follows (choices.ts). */
  shows?: (client: PersonClient, view: AskView) => Shown;
  /** How to run askbridge on this machine, for the hints in refusals (askbridgeCommand): the daemon's, computed once at its start; this process's without it. */
  command?: string;
  /**
   * Writes the audit trail's record, before anything is released: of an ask as it is about to be
   * settled, or of one person's allow where two must allow. Throws when it cannot (its message says
   * why). See mustBeRecorded.
   */
  record?: (event: RecordedEvent) => void;
};

/** What the audit trail records: a settlement (the ask as settled), or one allow of two (the ask as it was, and the allow). */
export type RecordedEvent = { kind: 'settled'; ask: AskView } | { kind: 'allow'; ask: AskView; allow: Allow };

/**
 * Whether a settlement waits for its audit record: a person's decision, and any allow (a grant's).
 * Nothing is allowed, and no person's decision released, without its record; anything else (a
 * policy, the terminal, a session's end) is released all the same, as a policy never allows and
 * Claude is never left stuck.
 */
export function mustBeRecorded(outcome: Pick<Outcome, 'status' | 'source'>): boolean {
  return outcome.source.kind === 'person' || outcome.status === 'allowed';
}

/** A hook retries at once when its connection drops; one that has not come back by then is gone. */
export const REATTACH_MS = 15_000;

/**
 * How long a relayed decision not yet delivered is kept (on disk too), for a relay that comes back
 * for it: a day, so that a relay stopped overnight, or both it and askbridge restarted, still
 * delivers the person's answer once attached again. Past that it is said undeliverable.
 */
export const KEEP_UNDELIVERED_MS = 24 * 60 * 60_000;

/**
 * How soon after an ask starts a request with the hook key may wait with it as the same wait: the
 * entries of one event start together (Claude Code runs them in parallel), within milliseconds.
 */
export const JOIN_WINDOW_MS = 1_000;

export function createAskStore(options: AskStoreOptions = {}) {
  const now = options.now ?? Date.now;
  const command = options.command ?? askbridgeCommand(process.env);
  const keepFinishedMs = options.keepFinishedMs ?? 15 * 60_000;
  const maxFinished = options.maxFinished ?? 2000;
  const keepFinishedBytes = options.keepFinishedBytes ?? FINISHED_BYTES;
  const reattachMs = options.reattachMs ?? REATTACH_MS;
  const keepUndeliveredMs = options.keepUndeliveredMs ?? KEEP_UNDELIVERED_MS;
  const shows = options.shows ?? (() => 'whole' as const);
  /** What `client` may decide on this ask, as it shows it. */
  const choicesOn = (view: AskView, client: PersonClient) => onChannel(view.choices, shows(client, view));

  /**
   * The outcome as it will be delivered, and each waiter's decision. Decisions are made before
   * anyone is told the ask is settled, and each must be one its door can write (every door writes
   * JSON): when one cannot be made or written, the ask ends as `failed`, every waiter gets none,
   * and the person who answered learns it, instead of a hook waiting for a line that never comes.
   */
  function deliverable(slots: readonly WaiterSlot[], proposed: Outcome): { outcome: Outcome; replies: unknown[] } {
    try {
      const replies = slots.map((slot) => slot.reply?.(proposed) ?? null);
      for (const decision of replies) if (decision !== null) JSON.stringify(decision);
      return { outcome: proposed, replies };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { outcome: { status: 'failed', source: proposed.source, error: `the reply for its asker could not be made (${reason})` }, replies: slots.map(() => null) };
    }
  }

  const byId = new Map<string, Entry>();
  const idByKey = new Map<string, string>();
  // The pending asks by what makes a duplicate request the same wait (NewAsk.sameAs).
  const pendingBySameAs = new Map<string, Entry>();
  const finished: string[] = []; // ids in the order they finished, oldest first
  // Settled relayed asks whose decision waits to be delivered, oldest first: kept apart from `finished` until it is.
  const awaitingDelivery = new Set<Entry>();
  let finishedBytes = 0;
  const listeners = new Set<(event: StoreEvent) => void>();

  // What waits, in all, per credential and per asker; the refusals since an ask last had room.
  const waitingAll: Usage = { asks: 0, bytes: 0 };
  const waitingByCredential = new Map<Credential, Usage>();
  const waitingByAsker = new Map<string, Usage>();
  const refusals = new Map<string, number>();
  // A new ask's size, as admit() measured it, for open() to count.
  const measured = new WeakMap<NewAsk, { viewBytes: number; inputBytes: number }>();

  /** Counts an ask that starts waiting (+1) or stops (-1); an asker with nothing waiting is forgotten. */
  function count(entry: Entry, sign: 1 | -1): void {
    addTo(waitingAll, sign, entry.bytes);
    addIn(waitingByCredential, entry.asker.credential, sign, entry.bytes);
    addIn(waitingByAsker, entry.askerKey, sign, entry.bytes);
    if (!waitingByAsker.has(entry.askerKey)) refusals.delete(entry.askerKey);
  }

  /** The first limit `asks` more asks and `bytes` more bytes of this asker would pass, everyone's first. */
  function overLimit(asker: AskerIdentity, asks: number, bytes: number, limits: WaitingLimits): OverLimit | undefined {
    const scopes: Array<[Scope, Usage | undefined]> = [
      ['all', waitingAll],
      ['credential', waitingByCredential.get(asker.credential)],
      ['asker', waitingByAsker.get(askerKeyOf(asker))],
    ];
    for (const [scope, usage] of scopes) {
      const maxAsks = shareOf(limits.asks, scope);
      const maxBytes = shareOf(limits.bytes, scope);
      if ((usage?.asks ?? 0) + asks > maxAsks) return { limit: 'asks', scope, max: maxAsks };
      if ((usage?.bytes ?? 0) + bytes > maxBytes) return { limit: 'bytes', scope, max: maxBytes };
    }
    return undefined;
  }

  function existingFor(input: Pick<NewAsk, 'sessionId' | 'toolUseId'>): Entry | undefined {
    const id = idByKey.get(keyOf(input.sessionId, input.toolUseId));
    return id === undefined ? undefined : byId.get(id);
  }

  /** Only the command hook and a relay re-attach, and only to an ask they opened themselves. */
  function mayReattach(entry: Entry, input: NewAsk): boolean {
    return (entry.asker.transport === 'command-hook' || entry.asker.transport === 'relay') && entry.askerKey === askerKeyOf(identityOf(input));
  }

  /**
   * A pending ask this request duplicates (the same wait, from the same agent and machine), if any.
   * The token may read every ask anyway, so a request that proved it may wait with one at any time;
   * the hook key only within JOIN_WINDOW_MS of the ask's start, as a second entry of the same event
   * does: later, a request naming another session's wait learns nothing of it (409).
   */
  function joinable(input: NewAsk): Entry | undefined {
    const entry = input.sameAs === undefined ? undefined : pendingBySameAs.get(input.sameAs);
    if (!entry || entry.outcome) return undefined;
    const asker = identityOf(input);
    if (entry.asker.agent !== asker.agent || entry.asker.machine !== asker.machine) return undefined;
    if (asker.credential === 'hook-key' && now() - entry.view.createdAt > JOIN_WINDOW_MS) return undefined;
    return entry;
  }

  const keyOf = (sessionId: string, toolUseId: string) => `${sessionId}\u0000${toolUseId}`;
  const emit = (event: StoreEvent) => {
    for (const listener of listeners) listener(event);
  };
  /** Tells a change of an ask another daemon holds. */
  const emitElsewhere = (type: StoreEvent['type'], entry: Entry) => emit({ type, ask: entry.view, elsewhere: true });

  function forgetOldFinished(): void {
    const cutoff = now() - keepFinishedMs;
    while (finished.length > 0) {
      const id = finished[0]!;
      const entry = byId.get(id);
      const old = !entry || (entry.view.resolvedAt ?? 0) < cutoff;
      if (!old && finished.length <= maxFinished && finishedBytes <= keepFinishedBytes) break;
      finished.shift();
      if (entry) {
        finishedBytes -= entry.bytes;
        // Its hook can no longer re-attach to it here: nor after a restart.
        clearTimeout(entry.reattachTimer);
        unpersist(entry);
        byId.delete(id);
        idByKey.delete(keyOf(entry.view.sessionId, entry.view.toolUseId));
      }
    }
  }

  /**
   * Settles it, once its record is written (options.record): the reason it was not, when that holds
   * it back (mustBeRecorded), and nothing was released.
   */
  function settle(entry: Entry, proposed: Outcome): string | undefined {
    if (entry.outcome) return undefined;
    const slots = [...entry.waiters];
    const { outcome, replies } = deliverable(slots, proposed);
    if (options.record) {
      try {
        options.record({ kind: 'settled', ask: settledView(entry, outcome, now()) });
      } catch (error) {
        if (mustBeRecorded(outcome)) return (error as Error).message;
      }
    }
    entry.outcome = outcome;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    clearTimeout(entry.reattachTimer);
    if (entry.sameAs !== undefined && pendingBySameAs.get(entry.sameAs) === entry) pendingBySameAs.delete(entry.sameAs);
    entry.view = settledView(entry, outcome, now());
    // A relay's decision still has to reach its agent: kept on disk until it has (a restart in between
    // loses neither the decision nor its report). So is a command hook's kept question, until its hook
    // has the decision (delivered()): a daemon killed in between gives it to the hook that re-attaches,
    // instead of asking again what was decided. Any other settled ask leaves the disk.
    if (entry.view.delivery === 'waiting' || (entry.persisted && entry.asker.transport === 'command-hook' && slots.length > 0)) {
      entry.persisted = true;
      options.persistence?.save(recordOf(entry));
    } else {
      unpersist(entry);
    }
    for (const [index, slot] of slots.entries()) slot.deliver(outcome, replies[index]!);
    entry.waiters.clear();
    // It waits no more: its asker has that room again, and it keeps only its view (each reply was made).
    count(entry, -1);
    keepOnlyView(entry);
    emit({ type: 'resolved', ask: entry.view });
    return undefined;
  }

  /**
   * A settled ask keeps only its view, and joins the finished ones that are forgotten after a while;
   * one whose decision waits to be delivered only once its relay said what became of it, or at
   * KEEP_UNDELIVERED_MS from its settling (it is then said undeliverable).
   */
  function keepOnlyView(entry: Entry): void {
    entry.toolInput = {};
    entry.questions = [];
    entry.inputBytes = 0;
    if (entry.view.delivery === 'waiting') {
      entry.bytes = jsonBytes(entry.view);
      const giveUpIn = Math.max(0, (entry.view.resolvedAt ?? now()) + keepUndeliveredMs - now());
      entry.deliveryTimer = setTimeout(() => endDelivery(entry, { undeliverable: `askbridge attach did not report it delivered within ${keepUndeliveredMs / 3_600_000} hours` }), giveUpIn);
      entry.deliveryTimer.unref?.();
      awaitingDelivery.add(entry);
      // Bounded as the finished ones are: the oldest is given up first.
      const oldest = awaitingDelivery.size > maxFinished ? awaitingDelivery.values().next().value : undefined;
      if (oldest) endDelivery(oldest, { undeliverable: 'more decisions waited to be delivered than askbridge keeps' });
      return;
    }
    finish(entry);
  }

  function finish(entry: Entry): void {
    entry.bytes = jsonBytes(entry.view);
    finishedBytes += entry.bytes;
    finished.push(entry.view.id);
    forgetOldFinished();
  }

  /** What became of a relayed decision: told to every page (an `updated` event), off the disk, and finished. */
  function endDelivery(entry: Entry, delivery: { delivered: true } | { undeliverable: string }): void {
    awaitingDelivery.delete(entry);
    clearTimeout(entry.deliveryTimer);
    entry.deliveryTimer = undefined;
    entry.view = 'delivered' in delivery ? { ...entry.view, delivery: 'delivered' } : { ...entry.view, delivery: 'undeliverable', error: delivery.undeliverable };
    options.persistence?.remove(entry.view.id);
    emit({ type: 'updated', ask: entry.view });
    finish(entry);
  }

  /** Off the disk: nothing of it is to be given back after a restart. */
  function unpersist(entry: Entry): void {
    if (!entry.persisted) return;
    entry.persisted = false;
    options.persistence?.remove(entry.view.id);
  }

  /** A command hook's decision was handed to its hook (or its hook is gone): its question leaves the disk. A relay's waits for its report. */
  const delivered = (entry: Entry) => () => {
    if (entry.outcome && entry.view.delivery === undefined) unpersist(entry);
  };

  function attach<Decision>(entry: Entry, reply: Reply<Decision> | undefined): Waiter<Decision> {
    if (entry.outcome) {
      // Settled while its asker was away (a restart): the decision is made now, for the asker that came back.
      const { outcome } = entry;
      clearTimeout(entry.reattachTimer);
      entry.reattachTimer = undefined;
      return {
        ask: entry.view,
        outcome: Promise.resolve(outcome),
        reply: Promise.resolve(deliverable([{ deliver: () => {}, reply }], outcome).replies[0] as Decision | null),
        leave: () => {},
        delivered: delivered(entry),
      };
    }
    let resolveOutcome!: (outcome: Outcome) => void;
    let resolveDecision!: (decision: Decision | null) => void;
    const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));
    const decision = new Promise<Decision | null>((resolve) => (resolveDecision = resolve));
    const slot: WaiterSlot = {
      deliver(settled, made) {
        resolveDecision(made as Decision | null);
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
      reply: decision,
      leave() {
        if (!entry.waiters.has(slot)) return;
        // What a closed connection means is the asker's: Claude Code closes a permission's request when the person answered its own dialog.
        const gone: Outcome = { status: 'cancelled', source: { kind: entry.view.approval ? profileOf(entry.view).closedApproval : 'hook-gone' } };
        if (entry.waiters.size === 1 && entry.asker.transport === 'relay') {
          // A relay that dropped (killed, or the daemon restarting) comes back for it; one that lets go says so (withdraw()).
          entry.waiters.delete(slot);
          slot.deliver(gone, null);
          entry.reattachTimer = setTimeout(() => settle(entry, { status: 'cancelled', source: { kind: 'hook-gone' } }), reattachMs);
          return;
        }
        if (entry.waiters.size === 1) return settle(entry, gone);
        // Another hook still waits for this question: only this one stops waiting.
        entry.waiters.delete(slot);
        slot.deliver(gone, null);
      },
      delivered: delivered(entry),
    };
  }

  /** The view of a new ask, as pages and the CLI will see it. */
  function viewOf(input: NewAsk, id: string): AskView {
    const kind = kindOf(input);
    const createdAt = input.restored?.createdAt ?? now();
    const expiresAt = input.restored?.expiresAt ?? createdAt + input.waitMs;
    const extendableUntil = extensionLimit(input, createdAt, expiresAt);
    // Only an agent's approval may be granted (a grant covers the same agent): never a script's, nor a risky one.
    // Nor one that two people must allow: a grant is one person's.
    const grant = input.approval && input.agent && !input.risk && input.route?.approvals !== 2 && grantable(input.approval, input.cwd) ? ruleFor(input.approval, input.cwd) : undefined;
    return {
      id,
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
      ...(input.agent ? { agent: input.agent } : {}),
      ...(input.asker ? { asker: input.asker } : {}),
      // An "always allow" suggestion is one person's too: none is offered where two must allow; and a
      // risky call is allowed once only, never remembered.
      choices: choicesOf({ kind, agent: input.agent, asker: input.asker, questions: input.questions, typedAnswers: input.typedAnswers, suggestions: input.route?.approvals === 2 || input.risk ? 0 : (input.approval?.suggestions.length ?? 0), grantable: grant !== undefined }),
      ...(input.machine ? { machine: input.machine } : {}),
      ...(input.approval ? { approval: { ...input.approval, ...(grant ? { grant } : {}) } } : {}),
      ...(input.risk ? { risk: input.risk } : {}),
      ...(input.person === undefined ? {} : { person: input.person }),
      ...(input.route ? { route: input.route } : {}),
      ...(input.restored?.allows?.length ? { allows: input.restored.allows } : {}),
      ...(input.turnEnd ? { turnEnd: input.turnEnd } : {}),
      ...(input.terminalWait ? { terminalWait: input.terminalWait } : {}),
      ...(input.elicitation ? { elicitation: input.elicitation } : {}),
    };
  }

  /** What a new ask will hold: its view's JSON (as long as it will be: an id is always a UUID) and its input's. */
  function measure(input: NewAsk): { viewBytes: number; inputBytes: number } {
    let size = measured.get(input);
    if (!size) measured.set(input, (size = { viewBytes: jsonBytes(viewOf(input, randomUUID())), inputBytes: jsonBytes(input.toolInput) }));
    return size;
  }

  function create(input: NewAsk): Entry {
    const view = viewOf(input, input.restored?.id ?? randomUUID());
    const { inputBytes } = measure(input);
    const asker = identityOf(input);
    const entry: Entry = {
      view,
      toolInput: input.toolInput,
      questions: input.questions,
      asker,
      askerKey: askerKeyOf(asker),
      bytes: jsonBytes(view) + inputBytes,
      inputBytes,
      waiters: new Set(),
      timer: undefined,
      reattachTimer: undefined,
      deliveryTimer: undefined,
      outcome: undefined,
      onTimeout: input.onTimeout,
      persisted: false,
      sameAs: input.sameAs,
      relayed: input.relayed,
      holder: undefined,
    };
    byId.set(entry.view.id, entry);
    if (input.sameAs !== undefined) pendingBySameAs.set(input.sameAs, entry);
    idByKey.set(keyOf(input.sessionId, input.toolUseId), entry.view.id);
    count(entry, 1);
    return entry;
  }

  /** The ask, when `by` may decide it: one routed to other people is, to them, not there at all. */
  function entryFor(id: string, by: Decider): Entry | undefined {
    const entry = byId.get(id);
    return entry && entry.holder === undefined && isRoutedTo(entry.view, viewerOf(by)) ? entry : undefined;
  }

  function settleByPerson(id: string, outcome: Outcome & { source: Decider & { kind: 'person' } }): AnswerResult {
    const entry = entryFor(id, outcome.source);
    if (!entry) return { kind: 'not_found' };
    if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
    const notRecorded = settle(entry, outcome);
    if (notRecorded !== undefined) return { kind: 'not_recorded', reason: notRecorded, ask: entry.view };
    return entry.view.status === 'failed' ? { kind: 'failed', ask: entry.view } : { kind: 'answered', ask: entry.view };
  }

  /**
   * One person's allow where two distinct people must allow: the first is recorded (before anything
   * changes), kept in the view and told to everyone, and the ask waits on; the same person again
   * changes nothing; a second person's settles it allowed, both allows kept.
   */
  function allowOfTwo(entry: Entry, by: Decider, person: string): AnswerResult {
    const allows = entry.view.allows ?? [];
    if (allows.some((allow) => allow.person === person)) return { kind: 'already_allowed', person, ask: entry.view };
    const allow: Allow = { person, device: by.device ?? by.client, client: by.client, at: now() };
    if (allows.length > 0) return settleByPerson(entry.view.id, { status: 'allowed', source: { kind: 'person', ...by }, decision: { behavior: 'allow' }, allow });
    try {
      options.record?.({ kind: 'allow', ask: entry.view, allow });
    } catch (error) {
      return { kind: 'not_recorded', reason: (error as Error).message, ask: entry.view };
    }
    entry.view = { ...entry.view, allows: [allow] };
    // On disk too: a restart keeps it, and the second person's allow still settles it.
    if (entry.persisted) options.persistence?.save(recordOf(entry));
    emit({ type: 'updated', ask: entry.view });
    return { kind: 'allowed_once', ask: entry.view };
  }

  return {
    /**
     * Whether `input` may be opened now: a new ask that fits in every limit (everyone's, its
     * credential's share, its asker's share), the command hook coming back for its own ask, or a
     * refusal. open() opens only what this admits.
     */
    admit(input: NewAsk, limits: WaitingLimits): Admission {
      const existing = existingFor(input);
      if (existing && mayReattach(existing, input)) return { kind: 'reattach' };
      if (joinable(input)) return { kind: 'join' };
      if (existing) return { kind: 'taken' };
      const asker = identityOf(input);
      const key = askerKeyOf(asker);
      const { viewBytes, inputBytes } = measure(input);
      const over = overLimit(asker, 1, viewBytes + inputBytes, limits);
      if (over) {
        // Counted per asker only while it has something waiting (a key per machine named would
        // grow without end); else under the scope it passed.
        const counted = over.scope === 'all' ? 'all' : over.scope === 'asker' && waitingByAsker.has(key) ? key : `credential ${asker.credential}`;
        const refused = (refusals.get(counted) ?? 0) + 1;
        refusals.set(counted, refused);
        return { kind: 'over', asker, bytes: viewBytes + inputBytes, first: refused === 1, ...over };
      }
      let refusedMeanwhile = 0;
      for (const counted of [key, `credential ${asker.credential}`, 'all']) {
        refusedMeanwhile += refusals.get(counted) ?? 0;
        refusals.delete(counted);
      }
      return { kind: 'new', asker, refusedMeanwhile };
    },

    /** Ask a question admit() admitted, or wait for the same one again (the command hook that asked it). */
    open<Decision>(input: NewAsk<Decision>): Waiter<Decision> {
      const existing = existingFor(input);
      if (existing && mayReattach(existing, input)) return attach(existing, input.reply);
      const same = joinable(input);
      if (same) return attach(same, input.reply);
      if (existing) throw new Error('this tool call was asked by another asker: admit() refuses it');

      const entry = create(input);
      const waiter = attach(entry, input.reply);
      // Settled the moment it is asked, it never waits for anyone: it is reported settled, never
      // added. Unless its record could not be written: then it waits for a person like any other.
      if (input.immediate && settle(entry, input.immediate) === undefined) return waiter;
      emit({ type: 'added', ask: entry.view });
      // The command hook's questions only: Claude Code asks a permission again (a new card) through a
      // hook that comes back after a restart, and its dialog is on screen meanwhile. A relay's every
      // ask: its agent keeps waiting for it.
      if ((input.door === 'command-hook' && kindOf(entry.view) === 'question') || input.door === 'relay') {
        entry.persisted = true;
        options.persistence?.save(recordOf(entry));
      }
      entry.timer = setTimeout(() => settle(entry, entry.onTimeout(entry.view)), input.waitMs);
      return waiter;
    },

    /**
     * A question that was waiting when the daemon stopped: shown again at once, settled at its old
     * deadline, and withdrawn unless its hook comes back (and re-attaches through open()) in time.
     * A relay's ask that was settled, its decision not delivered yet: settled again as it was (no
     * event: history has its line, and pages list it as not yet delivered), for its relay to
     * re-attach to and to report delivered.
     */
    restore(input: Omit<NewAsk, 'door' | 'immediate' | 'reply' | 'credential'> & { door: 'command-hook' | 'relay'; restored: NonNullable<NewAsk['restored']>; settled?: PendingRecord['settled'] }): void {
      if (idByKey.has(keyOf(input.sessionId, input.toolUseId))) return;
      const entry = create(input);
      entry.persisted = true; // its file is still there, from before the restart
      if (input.settled) {
        const { outcome, resolvedAt } = input.settled;
        entry.outcome = outcome;
        entry.view = settledView(entry, outcome, resolvedAt);
        count(entry, -1);
        keepOnlyView(entry);
        // A command hook's decision, made as the daemon died: for its hook, if it comes back in time.
        if (input.door === 'command-hook') entry.reattachTimer = setTimeout(() => unpersist(entry), reattachMs);
        return;
      }
      emit({ type: 'added', ask: entry.view });
      entry.reattachTimer = setTimeout(() => settle(entry, { status: 'cancelled', source: { kind: 'hook-gone' } }), reattachMs);
      entry.timer = setTimeout(() => settle(entry, entry.onTimeout(entry.view)), Math.max(0, input.restored.expiresAt - now()));
    },

    /**
     * A relay lets go of an ask it holds (its agent settled it itself, or the relay stops): withdrawn
     * at once. Only the relay that opened it (isOwnedBy). Returns the ask withdrawn, if any.
     */
    withdraw(sessionId: string, toolUseId: string, by: AskerIdentity): AskView | undefined {
      const entry = existingFor({ sessionId, toolUseId });
      if (!entry || entry.outcome || !isOwnedBy(entry, by)) return undefined;
      settle(entry, { status: 'cancelled', source: { kind: 'hook-gone' } });
      return entry.view;
    },

    /**
     * What became of a relayed decision (the relay that asked says it): delivered once its agent
     * confirmed it, or undeliverable and why. Every page follows (an `updated` event).
     */
    deliveryReported(id: string, by: AskerIdentity, delivery: { delivered: true } | { undeliverable: string }): AskView | undefined {
      const entry = byId.get(id);
      if (entry?.view.delivery !== 'waiting' || !isOwnedBy(entry, by)) return undefined;
      endDelivery(entry, delivery);
      return entry.view;
    },

    /** Settled asks whose decision has not reached their agent yet, oldest first. */
    undelivered(): AskView[] {
      const list: AskView[] = [];
      for (const entry of awaitingDelivery) list.push(entry.view);
      return list.sort((a, b) => a.createdAt - b.createdAt);
    },

    /** A person's answer. The first valid one wins; later ones learn the winner. */
    answer(id: string, responses: readonly Response[], by: Decider): AnswerResult {
      const entry = entryFor(id, by);
      if (!entry) return { kind: 'not_found' };
      if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
      const notQuestion = notAQuestion(entry.view, 'answer');
      if (notQuestion) return { kind: 'invalid', error: notQuestion };
      const refused = refusedAnswer(entry.view, entry.questions, choicesOn(entry.view, by.client), responses);
      if (refused) return { kind: 'invalid', error: refused };
      let answered: Answered;
      try {
        answered = formatAnswers(entry.questions, responses);
        requireEveryQuestion(entry.questions, answered);
      } catch (error) {
        if (error instanceof AnswerError) return { kind: 'invalid', error };
        throw error;
      }
      return settleByPerson(id, { status: 'answered', source: { kind: 'person', ...by }, answered });
    },

    /**
     * More time for a person who is answering: the deadline moves to EXTEND_STEP_MS from now, never
     * past the question's extendableUntil, never earlier than it was. The timer, the copy on disk and
     * every page follow (an `updated` event); the hook learns it from that event too.
     */
    extend(id: string): ExtendResult {
      const entry = byId.get(id);
      if (!entry || entry.holder !== undefined) return { kind: 'not_found' };
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
    decline(id: string, by: Decider): AnswerResult {
      const entry = entryFor(id, by);
      const notQuestion = entry && !entry.outcome ? notAQuestion(entry.view, 'decline') : undefined;
      if (notQuestion) return { kind: 'invalid', error: notQuestion };
      return settleByPerson(id, { status: 'declined', source: { kind: 'person', ...by } });
    },

    /**
     * A person allows or denies an approval. The first decision wins, and only one the channel
     * contract lets this client take (choices.ts): nothing cut is allowed, a suggestion is one its
     * agent made and takes back, a stop only where it can stop, feedback on a plan says something.
     */
    decide(id: string, decision: ApprovalDecision, by: Decider): AnswerResult {
      const entry = entryFor(id, by);
      if (!entry) return { kind: 'not_found' };
      if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
      const { approval } = entry.view;
      if (!approval) return { kind: 'invalid', error: notAQuestion(entry.view, 'decide') ?? new AnswerError('not_an_approval', 'this is a question: answer it (POST /api/asks/:id/answer)') };
      const twoPeople = decision.behavior === 'allow' && needsTwoPeople(entry.view);
      const refused = (twoPeople ? refusedAllowOfTwo(decision, by) : undefined) ?? refusedDecision(entry.view, approval, choicesOn(entry.view, by.client), decision, command);
      if (refused) return { kind: 'invalid', error: refused };
      if (twoPeople && by.person !== undefined) return allowOfTwo(entry, by, by.person);
      const settled: ApprovalDecision = decision.behavior === 'deny' && decision.message !== undefined && decision.message.trim() === '' ? { behavior: 'deny', ...(decision.interrupt ? { interrupt: true } : {}) } : decision;
      return settleByPerson(id, { status: decision.behavior === 'allow' ? 'allowed' : 'denied', source: { kind: 'person', ...by }, decision: settled });
    },

    /**
     * A person responds to an MCP server's elicitation: accept (a form's values checked against the
     * form by `check`, elicitation-form.ts's checkFormContent; a URL's accept carries none), decline,
     * or cancel. The first wins; values that do not fit leave it waiting, with one problem per field.
     */
    respondToElicitation(id: string, response: ElicitationResponse, by: Decider, check: typeof checkFormContent): AnswerResult {
      const entry = entryFor(id, by);
      if (!entry) return { kind: 'not_found' };
      if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
      const { elicitation } = entry.view;
      if (!elicitation) return { kind: 'invalid', error: notAQuestion(entry.view, 'answer') ?? new AnswerError('not_an_elicitation', 'this is a question: answer it (POST /api/asks/:id/answer)') };
      const person: Source = { kind: 'person', ...by };
      if (response.action === 'decline') return settleByPerson(id, { status: 'declined', source: person, elicitation: { action: 'decline' } });
      if (response.action === 'cancel') return settleByPerson(id, { status: 'cancelled', source: person, elicitation: { action: 'cancel' } });
      if (elicitation.mode === 'url') {
        if (response.content !== undefined) return { kind: 'invalid', error: new AnswerError('content_not_taken', 'a URL request is accepted without values: send {"action": "accept"} once the page at the link is done') };
        return settleByPerson(id, { status: 'answered', source: person, elicitation: { action: 'accept' } });
      }
      // The view's form is the FormSpec readFormSchema made when the ask opened.
      const checked = check(elicitation.form as FormSpec, response.content ?? {});
      if (!checked.ok) return { kind: 'invalid_content', errors: checked.errors };
      return settleByPerson(id, { status: 'answered', source: person, elicitation: { action: 'accept', content: checked.content } });
    },

    /**
     * The person answered Claude Code's own dialog for this approval in the terminal (its transcript
     * says so: terminal-answers.ts): it leaves every page, and a late decision learns it.
     */
    answeredInTerminal(id: string): AskView | undefined {
      const entry = byId.get(id);
      if (!entry || entry.outcome || entry.holder !== undefined || !entry.view.approval) return undefined;
      settle(entry, { status: 'cancelled', source: { kind: 'terminal' } });
      return entry.view;
    },

    /**
     * A person replies to the end of Claude's turn (Claude goes on with exactly `text`), or lets it
     * end (`text` null: Done). The first wins; only a turn's end takes a reply.
     */
    replyToTurn(id: string, text: string | null, by: Decider): AnswerResult {
      const entry = entryFor(id, by);
      if (!entry) return { kind: 'not_found' };
      if (entry.outcome) return { kind: 'already_resolved', ask: entry.view };
      if (!entry.view.turnEnd) return { kind: 'invalid', error: new AnswerError('not_a_turn_end', 'Claude is not waiting for a reply here: this is not the end of a turn') };
      if (text === null) return settleByPerson(id, { status: 'done', source: { kind: 'person', ...by } });
      return settleByPerson(id, { status: 'replied', source: { kind: 'person', ...by }, reply: text });
    },

    /** The turn ends this session waits at for a reply, oldest first: more than one only when several askers name the same session. */
    turnEndsOf(sessionId: string): AskView[] {
      const waiting: AskView[] = [];
      for (const entry of byId.values()) if (!entry.outcome && entry.view.turnEnd && entry.view.sessionId === sessionId) waiting.push(entry.view);
      return waiting.sort((a, b) => a.createdAt - b.createdAt);
    },

    /**
     * The session moved on, as its own asker says: its waits in the terminal leave. How far it moved
     * says what else does: `turnOver` (its turn ended or was interrupted) lets its elicitations go
     * too (a response given later would still reach the server: it is let go with no decision, and
     * a late one is refused); another tool call of the session does not, since a subagent's or a
     * parallel call's carries the same session id while the form still waits. `typed`: the person
     * typed a prompt in its terminal, which ends the turn, and its turn's end waits no more either
     * (no decision: their own prompt goes to Claude). Only what that asker opened (isOwnedBy): a
     * session id is no secret, and another machine's hook, or anybody with the hook key, naming it
     * moves nothing of this one. Returns what was settled.
     */
    movedOn(sessionId: string, by: AskerIdentity, how: { turnOver?: boolean; typed?: boolean } = {}): AskView[] {
      const settled: AskView[] = [];
      const turnOver = how.turnOver === true || how.typed === true;
      for (const entry of [...byId.values()]) {
        if (entry.outcome || entry.view.sessionId !== sessionId || !isOwnedBy(entry, by)) continue;
        if (!(entry.view.terminalWait || (turnOver && entry.view.elicitation) || (how.typed && entry.view.turnEnd))) continue;
        settle(entry, { status: 'cancelled', source: { kind: 'terminal' } });
        settled.push(entry.view);
      }
      return settled;
    },

    /** Someone is back (away off): every turn's end that `letGo` picks (nobody away is left for it) is let go, and Claude stops. */
    releaseTurnEnds(letGo: (view: AskView) => boolean): AskView[] {
      const released: AskView[] = [];
      for (const entry of [...byId.values()]) {
        if (entry.outcome || entry.holder !== undefined || !entry.view.turnEnd || !letGo(entry.view)) continue;
        settle(entry, { status: 'handed-to-terminal', source: { kind: 'back' } });
        released.push(entry.view);
      }
      return released;
    },

    /**
     * A person hands the ask back to its agent's own prompt (Claude Code's dialog, opencode's
     * prompt). Only an agent's own hook or relay has one behind it; a script's or an MCP client's
     * is answered or declined instead.
     */
    handToTerminal(id: string, by: Decider): AnswerResult {
      const entry = entryFor(id, by);
      if (entry && !entry.outcome && (entry.view.turnEnd || entry.view.terminalWait)) {
        return { kind: 'invalid', error: new AnswerError('not_a_question', entry.view.turnEnd ? 'to let Claude stop, send {"done": true} (POST /api/sessions/:sessionId/reply)' : 'the session waits for you in its terminal already') };
      }
      if (entry && !entry.outcome && entry.view.choices.handBack === undefined) return { kind: 'no_terminal', ask: entry.view };
      return settleByPerson(id, { status: 'handed-to-terminal', source: { kind: 'person', ...by } });
    },

    /**
     * What the asking session was doing, read after the question arrived: shown with it from now on
     * (an `updated` event), when it fits in what its asker may hold. A question settled meanwhile
     * keeps what it had.
     */
    setContext(id: string, context: SessionContext, limits: WaitingLimits): 'added' | 'settled' | 'no_room' {
      const entry = byId.get(id);
      if (!entry || entry.outcome || entry.holder !== undefined) return 'settled';
      const view = { ...entry.view, context };
      const bytes = jsonBytes(view) + entry.inputBytes;
      const more = bytes - entry.bytes;
      if (more > 0 && overLimit(entry.asker, 0, more, limits)) return 'no_room';
      count(entry, -1);
      entry.view = view;
      entry.bytes = bytes;
      count(entry, 1);
      emit({ type: 'updated', ask: entry.view });
      return 'added';
    },

    /**
     * Claude Code says a session ended: every question of it still waiting is withdrawn, and its
     * hooks print nothing. Only the questions its own hook asked: the same transport, credential and
     * machine (a script's or an MCP client's are never a session's). Returns the questions withdrawn.
     */
    endSession(sessionId: string, by: AskerIdentity): AskView[] {
      const withdrawn: AskView[] = [];
      for (const entry of [...byId.values()]) {
        if (entry.outcome || entry.view.sessionId !== sessionId || !isOwnedBy(entry, by) || entry.asker.transport === 'ask') continue;
        settle(entry, { status: 'cancelled', source: { kind: 'session-ended' } });
        withdrawn.push(entry.view);
      }
      return withdrawn;
    },

    get(id: string): AskView | undefined {
      return byId.get(id)?.view;
    },

    /** Who asked it, as its limits are counted; undefined for an id not known. */
    askerOf(id: string): AskerIdentity | undefined {
      const entry = byId.get(id);
      return entry?.holder === undefined ? entry?.asker : undefined;
    },

    /** The daemon holding it, when another one sharing the store does (mirror()); undefined for an ask held here, or not known. */
    holderOf(id: string): string | undefined {
      return byId.get(id)?.holder;
    },

    /**
     * What is kept of a waiting ask held here, to make it again elsewhere (the shared store keeps it
     * with its view, as the waiting files do); undefined for one not held here.
     */
    recordOf(id: string): PendingRecord | undefined {
      const entry = byId.get(id);
      return entry && entry.holder === undefined ? recordOf(entry) : undefined;
    },

    /**
     * An ask another daemon sharing the store holds, as it was last written there: shown here like
     * any other (every page, chat and terminal of this daemon lists it), but never settled here, as
     * only its holder can hand the answer to its hook. A decision for it is sent to that daemon
     * (person-decisions.ts). Its views come in the order they were written: a settled one ends it,
     * and nothing comes after that. An ask held here is never replaced.
     */
    mirror(view: AskView, holder: string): void {
      const entry = byId.get(view.id);
      if (entry && (entry.holder === undefined || entry.outcome)) return;
      if (view.status !== 'pending') {
        // Never seen waiting here: nothing to take off.
        if (!entry) return;
        entry.outcome = { status: view.status, source: view.source ?? { kind: 'hook-gone' } };
        entry.view = view;
        finish(entry);
        emitElsewhere('resolved', entry);
      } else if (entry) {
        // Read again unchanged (after a reconnect): nothing to tell.
        if (JSON.stringify(entry.view) === JSON.stringify(view)) return;
        entry.view = view;
        emitElsewhere('updated', entry);
      } else {
        const mirrored: Entry = {
          view,
          toolInput: {},
          questions: [],
          asker: { transport: 'ask', agent: view.agent, credential: 'token', machine: view.machine, program: view.asker?.kind },
          askerKey: `elsewhere\u0000${holder}`,
          bytes: 0,
          inputBytes: 0,
          waiters: new Set(),
          timer: undefined,
          reattachTimer: undefined,
          deliveryTimer: undefined,
          outcome: undefined,
          onTimeout: () => ({ status: 'cancelled', source: { kind: 'hook-gone' } }),
          persisted: false,
          sameAs: undefined,
          relayed: undefined,
          holder,
        };
        byId.set(view.id, mirrored);
        idByKey.set(keyOf(view.sessionId, view.toolUseId), view.id);
        emitElsewhere('added', mirrored);
      }
    },

    /**
     * Another daemon's waiting ask the store no longer shows (its daemon is gone, and its hook with
     * it): taken off every page here, as withdrawn, and forgotten, so that it is shown again if that
     * daemon comes back with it.
     */
    forget(id: string): void {
      const entry = byId.get(id);
      if (!entry || entry.holder === undefined || entry.outcome) return;
      byId.delete(id);
      if (idByKey.get(keyOf(entry.view.sessionId, entry.view.toolUseId)) === id) idByKey.delete(keyOf(entry.view.sessionId, entry.view.toolUseId));
      emit({ type: 'resolved', ask: { ...entry.view, status: 'cancelled', source: { kind: 'hook-gone' }, resolvedAt: now() }, elsewhere: true });
    },

    /** The asks other daemons hold that wait, as shown here: their ids. */
    mirroredWaiting(): string[] {
      const ids: string[] = [];
      for (const entry of byId.values()) if (entry.holder !== undefined && !entry.outcome) ids.push(entry.view.id);
      return ids;
    },

    /** What waits: in all, or of one asker. */
    waiting(asker?: AskerIdentity): Usage {
      const usage = asker ? waitingByAsker.get(askerKeyOf(asker)) : waitingAll;
      return { asks: usage?.asks ?? 0, bytes: usage?.bytes ?? 0 };
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
        if (!entry.outcome && entry.holder === undefined) settle(entry, { status: 'handed-to-terminal', source: { kind: 'daemon-stopped' } });
      }
    },
  };
}

export type AskStore = ReturnType<typeof createAskStore>;

function addTo(usage: Usage, sign: 1 | -1, bytes: number): void {
  usage.asks += sign;
  usage.bytes += sign * bytes;
}

function addIn<Key>(map: Map<Key, Usage>, key: Key, sign: 1 | -1, bytes: number): void {
  const usage = map.get(key) ?? { asks: 0, bytes: 0 };
  addTo(usage, sign, bytes);
  if (usage.asks === 0) map.delete(key);
  else map.set(key, usage);
}

/** Who asks, from what it asked with: its door, its agent, its credential (an http hook's is the hook key, the others' the token unless they say), its machine. */
export function identityOf(input: Pick<NewAsk, 'door' | 'agent' | 'asker' | 'machine' | 'credential'>): AskerIdentity {
  const { door } = input;
  return { transport: door, agent: input.agent, credential: input.credential ?? (door === 'http-hook' ? 'hook-key' : 'token'), machine: input.machine, program: input.asker?.kind };
}

/**
 * One asker as a key: two requests with the same one came from the same door, agent, credential,
 * program and machine. Its limits are counted under it (its asks here, its one-tap buttons in one-tap.ts).
 */
export function askerKeyOf(asker: AskerIdentity): string {
  return [asker.transport, asker.agent ?? '', asker.credential, asker.program ?? '', asker.machine ?? ''].join('\u0000');
}

/** Whether `by` is the asker that opened the ask: what a session's hook says of the session (it ended, it moved on) reaches only its own asks. */
function isOwnedBy(entry: Entry, by: AskerIdentity): boolean {
  return entry.askerKey === askerKeyOf(by);
}

/** An asker as its refusals and the log name it: `Claude Code's http hook (machine "ci-runner")`, `opencode's relay (askbridge attach opencode)`. */
export function describeAsker(asker: AskerIdentity): string {
  const agent = asker.agent === undefined ? undefined : profileOf({ agent: asker.agent }).name;
  const who = {
    'http-hook': `${agent ?? 'an agent'}'s http hook`,
    'command-hook': asker.agent === undefined || asker.agent === 'claude-code' ? 'the command hook' : `the command hook (${agent})`,
    relay: `${agent ?? 'an agent'}'s relay (askbridge attach ${asker.agent ?? ''})`,
    ask: asker.program === 'mcp' ? (agent ? `${agent} (an MCP client)` : 'an MCP client') : 'a script',
  }[asker.transport];
  const credential = asker.transport === 'ask' ? ` with the ${asker.credential === 'token' ? 'token' : 'hook key'}` : '';
  return `${who}${credential}${asker.machine === undefined ? '' : ` (machine ${JSON.stringify(asker.machine)})`}`;
}

/**
 * The bytes of a value's JSON, in UTF-8: what it takes on the wire and, about, in memory. Every
 * value from a request was JSON; one that cannot be written (a BigInt) counts nothing, and its
 * reply fails when it is made.
 */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value));
  } catch {
    return 0;
  }
}

/** What is written to disk of a waiting question (and written again when its deadline moves). */
function recordOf(entry: Entry): PendingRecord {
  const { id, agent, sessionId, toolUseId, cwd, createdAt, expiresAt, extendableUntil, machine, person, route, allows } = entry.view;
  return {
    id,
    ...(agent ? { agent } : {}),
    sessionId,
    toolUseId,
    cwd,
    createdAt,
    expiresAt,
    ...(extendableUntil === undefined ? {} : { extendableUntil }),
    ...(machine === undefined ? {} : { machine }),
    ...(person === undefined ? {} : { person }),
    ...(route ? { route } : {}),
    ...(allows?.length ? { allows } : {}),
    toolInput: entry.toolInput,
    ...(entry.relayed ? { door: 'relay' as const, relayed: entry.relayed } : {}),
    ...(entry.outcome ? { settled: { outcome: entry.outcome, resolvedAt: entry.view.resolvedAt ?? createdAt } } : {}),
  };
}

/** The view of a settled ask: its outcome, and for a relay's decision, that it is not delivered yet. */
function settledView(entry: Entry, outcome: Outcome, resolvedAt: number): AskView {
  return {
    ...entry.view,
    status: outcome.status,
    source: outcome.source,
    resolvedAt,
    // A relay's decision still has to reach its agent: answered, not yet delivered (deliveryReported()).
    ...(entry.asker.transport === 'relay' && DECISIONS.has(outcome.status) ? { delivery: 'waiting' as const } : {}),
    ...(outcome.answered ? { answers: outcome.answered.answers } : {}),
    ...(outcome.answered && Object.keys(outcome.answered.notes).length > 0 ? { notes: outcome.answered.notes } : {}),
    ...(outcome.decision ? { decision: outcome.decision } : {}),
    ...(outcome.reply !== undefined ? { reply: outcome.reply } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.elicitation ? { elicitationResult: outcome.elicitation } : {}),
    // Once: a settled ask read back from disk has it among its allows already.
    ...(outcome.allow ? { allows: [...(entry.view.allows ?? []).filter((allow) => allow.person !== outcome.allow!.person), outcome.allow] } : {}),
  };
}

/**
 * Why this allow cannot count toward two people's: each must come from a person's own paired device
 * or chat (the CLI is nobody's, and may only deny), and allow this one call only (a grant or an
 * "always allow" would be one person allowing more).
 */
function refusedAllowOfTwo(decision: ApprovalDecision & { behavior: 'allow' }, by: Decider): AnswerError | undefined {
  if (by.person === undefined) return new AnswerError('two_people_required', CLI_MAY_ONLY_DENY);
  if (decision.grant || decision.suggestion !== undefined) return new AnswerError('two_people_allow_once', 'two people must allow this: each allows it once, with no grant or "always allow"');
  return undefined;
}

/** The outcomes that carry a decision for the agent: a relay still has to deliver it. */
const DECISIONS: ReadonlySet<AskStatus> = new Set(['answered', 'declined', 'allowed', 'denied']);

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

/** What an ask is: questions, a permission, the end of a turn, a wait in the terminal, or an MCP server's elicitation. */
export function kindOf(view: Pick<AskView, 'approval' | 'turnEnd' | 'terminalWait' | 'elicitation'>): AskKind {
  if (view.approval) return 'approval';
  if (view.turnEnd) return 'turn-end';
  if (view.terminalWait) return 'terminal-wait';
  if (view.elicitation) return 'elicitation';
  return 'question';
}

/** Why an ask that is not questions cannot be answered or declined (or, not being a permission, decided); undefined for questions. */
function notAQuestion(view: AskView, verb: 'answer' | 'decline' | 'decide'): AnswerError | undefined {
  switch (kindOf(view)) {
    case 'question':
      return undefined;
    case 'approval':
      return new AnswerError('not_a_question', `this is a permission Claude Code asks for: ${verb === 'decline' ? 'deny it instead' : 'allow it or deny it'} (POST /api/asks/:id/decide)`);
    case 'turn-end':
      return new AnswerError('not_a_question', 'Claude finished its turn: reply to it, or let it end (POST /api/sessions/:sessionId/reply)');
    case 'terminal-wait':
      return new AnswerError('not_a_question', 'the session waits for you in its terminal: nothing here answers it');
    case 'elicitation':
      return new AnswerError('not_a_question', 'an MCP server asks for input: accept it with its values, decline it or cancel it (POST /api/asks/:id/elicitation)');
  }
}
