// The skeleton every `askbridge attach <agent>` relay shares: follow the agent's server (connect,
// back off while it cannot be reached, pick up what waits once it is back), hand each of its
// requests to the daemon over a held request, and take the decision back to the agent. Each agent's
// adapter (attach-opencode.ts, attach-codex.ts) says how it connects, what waits, and how a
// decision is sent; nothing here knows an agent's format. One plain line per thing relayed.
import type { z } from 'zod';
import { checkShape, ErrorReplySchema, type AskView } from '../protocol.js';
import { terminalText } from '../visible-text.js';
import { connectToDaemon } from './client.js';
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

/**
 * Why a held ask was let go without a decision: the agent settled it itself, the relay stops, or
 * the connection it came on closed.
 */
export type LetGo = 'settled' | 'stopped' | 'disconnected';

/** The asks a relay holds, by the agent's request id: each one's task, and what lets it go. */
export function createHolds() {
  const held = new Map<string, AbortController>();
  const tasks = new Set<Promise<void>>();
  return {
    /** Runs `relay` for `key` unless one runs already; its signal aborts when it is let go. */
    start(key: string, relay: (holding: AbortSignal) => Promise<void>): boolean {
      if (held.has(key)) return false;
      const holding = new AbortController();
      held.set(key, holding);
      const task = relay(holding.signal).finally(() => {
        if (held.get(key) === holding) held.delete(key);
        tasks.delete(task);
      });
      tasks.add(task);
      return true;
    },
    has: (key: string) => held.has(key),
    keys: () => [...held.keys()],
    letGo(key: string, why: LetGo): void {
      held.get(key)?.abort(why);
    },
    letAllGo(why: LetGo): void {
      for (const holding of held.values()) holding.abort(why);
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
  /** The daemon's route for this agent, and its reply's schema. */
  path: string;
  schema: z.ZodType<{ ask: AskView; reply: Reply | null }>;
  /** The body of the held request, made once the request is held (what it needs from the agent may take a call). */
  body(holding: AbortSignal): Promise<unknown>;
  /** Sends the decision to the agent. */
  deliver(reply: Reply): Promise<void>;
  /** What the decision was, in a word or two: `answered`, `once`. */
  words(reply: Reply): string;
};

/** Hands one request to askbridge, waits for the decision, and sends it to the agent; one line for what happened. */
export async function relayAsk<Reply>({ env, print }: RelayIo, relayed: Relayed<Reply>, holding: AbortSignal): Promise<void> {
  const { name, ownPrompt, agent } = relayed;
  try {
    const body = await relayed.body(holding);
    print(`${relayed.announce}: relayed to askbridge\n`);
    const response = await connectToDaemon(env).request('POST', relayed.path, body, { waitsForAPerson: true, signal: holding });
    if (response.status !== 200) {
      const refusal = checkShape(ErrorReplySchema, response.body);
      print(`${name}: askbridge refused it (${terminalText(refusal.ok ? refusal.value.error.message : `HTTP ${response.status}`)}): ${ownPrompt} asks\n`);
      return;
    }
    const { ask, reply } = readReply(relayed.schema, response.body, 'decision');
    if (reply === null) {
      print(`${name}: ${ask.status} in askbridge, no decision: ${ownPrompt} decides\n`);
      return;
    }
    await relayed.deliver(reply);
    print(`${name}: ${ask.status} in askbridge, sent to ${agent} (${relayed.words(reply)})\n`);
  } catch (error) {
    if (holding.aborted) {
      if (holding.reason === 'settled') print(`${name}: settled in ${agent}, withdrawn from askbridge\n`);
      if (holding.reason === 'disconnected') print(`${name}: the connection to ${agent} closed, withdrawn from askbridge\n`);
      return;
    }
    print(`${name}: ${terminalText(errorText(error))}: ${ownPrompt} asks\n`);
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
