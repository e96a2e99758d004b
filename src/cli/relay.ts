// The skeleton every `askbridge attach <agent>` relay shares: follow the agent's server (connect,
// back off while it cannot be reached, pick up what waits once it is back), hand each of its
// requests to the daemon over a held request, and take the decision back to the agent. Each agent's
// adapter (attach-opencode.ts, attach-codex.ts) says how it connects, what waits, and how a
// decision is sent; nothing here knows an agent's format. One plain line per thing relayed.
import type { z } from 'zod';
import { checkShape, ErrorReplySchema, type AskView, type RelayWithdraw } from '../protocol.js';
import { terminalText } from '../visible-text.js';
import { connectToDaemon, DaemonUnreachable } from './client.js';
import { CliError } from './command.js';
import { readReply } from './replies.js';

/** What a relay reads and writes: the environment (to find the daemon), its two streams, and Ctrl+C. */
export type RelayIo = { env: NodeJS.ProcessEnv; print: (line: string) => void; warn: (line: string) => void; signal: AbortSignal };

/** The waits between attempts to reach the agent again: doubling, up to the last. */
const BACKOFF_MS = [250, 500, 1000, 2000, 5000] as const;

/** The wait before attempt `attempt` + 1 (0 for the first retry). */
export function backoffMs(attempt: number): number {
  return BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!;
}

/** How an adapter follows its agent's server: one connection at a time. */
export type AgentLink = {
  /**
   * Runs one connection until it ends; `connected` is called once it follows the agent. It throws
   * when the agent cannot be reached (tried again), or a CliError that ends the relay.
   */
  follow(connected: () => void): Promise<void>;
  /** The line said when the agent cannot be reached, the first time in a row. */
  unreachable(why: string): string;
  /** The line said when a connection ended, before the next. */
  ended: string;
};

/** Follows the agent until `signal` aborts, reconnecting with back-off; a CliError ends it and is thrown. */
export async function followAgent({ warn, signal }: RelayIo, link: AgentLink): Promise<void> {
  let attempt = 0;
  while (!signal.aborted) {
    try {
      await link.follow(() => {
        attempt = 0;
      });
      if (!signal.aborted) warn(link.ended);
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof CliError) throw error;
      if (attempt === 0) warn(link.unreachable(terminalText(errorText(error))));
      await pause(backoffMs(attempt), signal);
      attempt += 1;
    }
  }
}

/** Why a held ask was let go: the agent settled it itself (or took the decision), or the relay stops. */
export type LetGo = 'settled' | 'stopped';

/** What a relay of one ask is told while it holds it: let go (its signal), or to send its decision again now. */
export type Hold = { signal: AbortSignal; again(): Promise<void> };

/** The asks a relay holds, by the agent's own ids: each one's task, and what lets it go. */
export function createHolds() {
  const held = new Map<string, { controller: AbortController; wake: Set<() => void> }>();
  const tasks = new Set<Promise<void>>();
  return {
    /** Runs `relay` for `key` unless one runs already. */
    start(key: string, relay: (hold: Hold) => Promise<void>): boolean {
      if (held.has(key)) return false;
      const holding = { controller: new AbortController(), wake: new Set<() => void>() };
      held.set(key, holding);
      const hold: Hold = { signal: holding.controller.signal, again: () => new Promise((resolve) => holding.wake.add(resolve)) };
      const task = relay(hold).finally(() => {
        if (held.get(key) === holding) held.delete(key);
        tasks.delete(task);
      });
      tasks.add(task);
      return true;
    },
    has: (key: string) => held.has(key),
    keys: () => [...held.keys()],
    /** The agent asks it again (it came back): a decision not confirmed yet is sent again now. */
    tryAgain(key: string): void {
      const holding = held.get(key);
      if (!holding) return;
      for (const wake of holding.wake) wake();
      holding.wake.clear();
    },
    letGo(key: string, why: LetGo): void {
      held.get(key)?.controller.abort(why);
    },
    letAllGo(why: LetGo): void {
      for (const { controller } of held.values()) controller.abort(why);
    },
    /** Resolves once every relay started has ended. */
    async settled(): Promise<void> {
      while (tasks.size > 0) await Promise.all(tasks);
    },
  };
}
export type Holds = ReturnType<typeof createHolds>;

/** One of the agent's requests, as its adapter hands it to the daemon and takes the decision back. */
export type Relayed<Reply> = {
  /** How the lines name it: `question que_… ` (marked already). */
  name: string;
  /** The line that says it was handed over (marked already). */
  announce: string;
  /** What decides when askbridge does not: "opencode's own prompt", "Codex's own picker". */
  ownPrompt: string;
  /** The agent, as the lines name it. */
  agent: string;
  /** The agent's own ids for it, by which the daemon keys its ask (and the relay withdraws it). */
  key: RelayWithdraw;
  /** The daemon's route for this agent, and its reply's schema. */
  path: string;
  schema: z.ZodType<{ ask: AskView; reply: Reply | null }>;
  /** The body of the held request, made once the request is held (what it needs from the agent may take a call). */
  body(holding: AbortSignal): Promise<unknown>;
  /** Sends the decision to the agent, once; throws when the agent did not take it (it is sent again). */
  deliver(reply: Reply): Promise<void>;
  /** What the decision was, in a word or two: `answered`, `once`. */
  words(reply: Reply): string;
};

/**
 * Hands one request to askbridge and waits for its decision, coming back for it while askbridge is
 * not running (its ask waits on disk, keyed by the agent's ids); then keeps the decision in an
 * outbox, sending it again with back-off until the agent confirms it took it (the hold is let go as
 * `settled`). Only then is it delivered, and the daemon told so. One line for each thing that happened.
 */
export async function relayAsk<Reply>(io: RelayIo, relayed: Relayed<Reply>, hold: Hold): Promise<void> {
  const { name, ownPrompt, agent } = relayed;
  const holding = hold.signal;
  let decided: { ask: AskView; reply: Reply } | undefined;
  try {
    const body = await relayed.body(holding);
    io.print(`${relayed.announce}: relayed to askbridge\n`);
    decided = await decisionOf(io, relayed, body, holding);
  } catch (error) {
    if (!holding.aborted) io.print(`${name}: ${terminalText(errorText(error))}: ${ownPrompt} asks\n`);
  }
  if (decided) return deliverFromOutbox(io, relayed, hold, decided);
  if (!holding.aborted) return;
  // Let go before a decision: its card leaves every page now.
  if (holding.reason === 'settled') io.print(`${name}: settled in ${agent}, withdrawn from askbridge\n`);
  await tellDaemon(io, '/api/attach/withdraw', relayed.key);
}

/** The daemon's decision, once the ask is settled; undefined when there is none (the line says why). */
async function decisionOf<Reply>({ env, print }: RelayIo, relayed: Relayed<Reply>, body: unknown, holding: AbortSignal): Promise<{ ask: AskView; reply: Reply } | undefined> {
  const { name, ownPrompt } = relayed;
  let attempt = 0;
  for (;;) {
    let response: { status: number; body: unknown };
    try {
      response = await connectToDaemon(env).request('POST', relayed.path, body, { waitsForAPerson: true, signal: holding });
    } catch (error) {
      // Not running, or restarting (its keeper holds the port while no daemon serves): its ask waits
      // on disk; this relay comes back for it.
      if (holding.aborted || !(error instanceof DaemonUnreachable) || !error.noDaemonServes) throw error;
      if (attempt === 0) print(`${name}: askbridge is not running: relayed again once it is back (${ownPrompt} can answer meanwhile)\n`);
      await pause(backoffMs(attempt), holding);
      attempt += 1;
      if (holding.aborted) throw error;
      continue;
    }
    if (response.status !== 200) {
      const refusal = checkShape(ErrorReplySchema, response.body);
      print(`${name}: askbridge refused it (${terminalText(refusal.ok ? refusal.value.error.message : `HTTP ${response.status}`)}): ${ownPrompt} asks\n`);
      return undefined;
    }
    const { ask, reply } = readReply(relayed.schema, response.body, 'decision');
    if (reply !== null) return { ask, reply };
    print(`${name}: ${ask.status} in askbridge, no decision: ${ownPrompt} decides\n`);
    return undefined;
  }
}

/** Sends the decision until the agent confirms it, then tells the daemon it was delivered (or why it never can be). */
async function deliverFromOutbox<Reply>(io: RelayIo, relayed: Relayed<Reply>, hold: Hold, { ask, reply }: { ask: AskView; reply: Reply }): Promise<void> {
  const { name, agent } = relayed;
  const what = `${ask.status} in askbridge`;
  const holding = hold.signal;
  const letGo = new Promise<void>((resolve) => holding.addEventListener('abort', () => resolve(), { once: true }));
  let sent = false;
  let attempt = 0;
  while (!holding.aborted) {
    try {
      await relayed.deliver(reply);
      sent = true;
      attempt = 0;
      // Taken, as far as the request went: confirmed once the agent says it settled, or sent again when it asks again.
      await Promise.race([letGo, hold.again()]);
    } catch (error) {
      if (holding.aborted) break;
      if (attempt === 0) io.print(`${name}: ${what}, but ${agent} did not take it (${terminalText(errorText(error))}): sent again until it does\n`);
      await Promise.race([pause(backoffMs(attempt), holding), hold.again()]);
      attempt += 1;
    }
  }
  if (holding.reason === 'stopped') {
    // Still in askbridge as answered, not yet delivered: a relay attached again delivers it.
    io.print(`${name}: ${what}, not yet delivered to ${agent}: the relay stops (attach again to deliver it)\n`);
    return;
  }
  if (sent) {
    await tellDaemon(io, `/api/asks/${encodeURIComponent(ask.id)}/delivery`, { delivered: true });
    io.print(`${name}: ${what}, delivered to ${agent} (${relayed.words(reply)})\n`);
    return;
  }
  const why = `${agent} settled it itself before askbridge's decision reached it`;
  await tellDaemon(io, `/api/asks/${encodeURIComponent(ask.id)}/delivery`, { undeliverable: why });
  io.print(`${name}: ${what}, never delivered: ${why}\n`);
}

/** Tells the daemon something it may miss (it is restarting): best effort, a few tries. */
/**
 * Tells the daemon what became of an ask: three tries, and for as long as no daemon serves (not
 * running, or its keeper restarting it) while this relay runs, since a report lost then would leave
 * the ask "not yet delivered" for good.
 */
async function tellDaemon({ env, signal }: RelayIo, path: string, body: unknown): Promise<void> {
  let failures = 0;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await connectToDaemon(env).request('POST', path, body);
      return;
    } catch (error) {
      const waitsForDaemon = error instanceof DaemonUnreachable && error.noDaemonServes && !signal.aborted;
      if (!waitsForDaemon) failures += 1;
      if (failures >= 3) return;
      await pause(backoffMs(attempt), signal.aborted ? new AbortController().signal : signal);
    }
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function errorText(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof Error && error.cause instanceof Error) return `${error.message}: ${error.cause.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
