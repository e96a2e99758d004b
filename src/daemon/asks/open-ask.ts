// How every ask enters the daemon (a hook's, a script's, an MCP client's): the policy is applied,
// the limits are checked, the ask opens (or a command hook re-attaches to it), and the session's
// context follows. It returns what happened; the route that received the ask maps that to HTTP.
import type { Config } from '../../config.js';
import type { Asker, HookEnvironment, AskView } from '../../protocol.js';
import { MAX_WAIT_MS } from '../limits.js';
import type { ContextRead } from '../transcript.js';
import type { QuestionPlan, PolicyContext } from './policy.js';
import type { AskStore, NewAsk, Reply, Waiter } from './store.js';

/** ASKBRIDGE_UNATTENDED=1, CI=true, or Claude Code's own mark for SDK-hosted sessions. */
export function isUnattended(environment: HookEnvironment): boolean {
  const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim());
  return truthy(environment.ASKBRIDGE_UNATTENDED) || truthy(environment.CI) || environment.CLAUDE_CODE_SESSION_ATTENDED?.trim() === '0';
}

/** A checked ask as a transport received it: what the store opens, and how it came. */
export type Asked = Pick<NewAsk, 'sessionId' | 'toolUseId' | 'cwd' | 'toolInput' | 'questions'> & {
  environment: HookEnvironment;
  /** How it arrived, for the log. */
  transport: 'http' | 'command' | 'ask';
  asker?: Asker;
  /** The machine a remote hook named. */
  machine?: string;
  /** The asker's own limit on the wait, below the configuration's. */
  waitSeconds?: number;
  /** The session's transcript, as the hook payload names it: hostile input, read only through transcript.ts. */
  transcriptPath?: string;
  /** How the asker's transport writes an outcome, given the configuration that applies to the ask. */
  reply?: (config: Config) => Reply;
};

type Log = { info(fields: Record<string, unknown>, message: string): void; debug(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void };

/** What opening an ask needs. */
export type AskDesk = {
  store: AskStore;
  planQuestion: (context: PolicyContext) => QuestionPlan;
  /** Pages and CLI listeners connected now. */
  watchers: () => number;
  /** Asks waiting at once; over it, a new one is refused. */
  maxPending: number;
  /** Told when an ask was refused for being over maxPending. */
  onOverload?: ((overloaded: boolean) => void) | undefined;
  /** What a session was doing, from its transcript; without it, asks show no context. */
  sessionContext?: ((transcriptPath: string, toolUseId: string, stillWanted: () => boolean) => Promise<ContextRead>) | undefined;
};

export type OpenResult =
  | { kind: 'opened'; waiter: Waiter }
  /** As many asks wait as the daemon keeps: this one goes back to its asker (Claude Code's terminal). */
  | { kind: 'too_many_pending'; max: number }
  /** A script or an MCP client asked more questions at once than the configuration allows. */
  | { kind: 'too_many_questions'; asked: number; max: number };

/** Apply the policy to a checked ask and open it (or re-attach to it). */
export function openAsk(desk: AskDesk, asked: Asked, log: Log): OpenResult {
  const { store } = desk;
  const isNew = !store.knows(asked.sessionId, asked.toolUseId);
  if (isNew && store.pendingCount() >= desk.maxPending) {
    desk.onOverload?.(true);
    return { kind: 'too_many_pending', max: desk.maxPending };
  }
  const plan = desk.planQuestion({ cwd: asked.cwd, machine: asked.machine, questions: asked.questions, unattended: isUnattended(asked.environment), watchers: desk.watchers() });
  if (asked.asker && asked.questions.length > plan.askMaxQuestions) return { kind: 'too_many_questions', asked: asked.questions.length, max: plan.askMaxQuestions };
  const waitMs = asked.waitSeconds === undefined ? plan.waitMs : Math.min(plan.waitMs, asked.waitSeconds * 1000);
  // How long the asker can wait at all, which bounds any extension: what an asker said it waits, else
  // what Claude Code's hook timeout allows (a script or an MCP client that gave no limit is held to it too).
  const maxWaitMs = asked.waitSeconds === undefined ? MAX_WAIT_MS : asked.waitSeconds * 1000;
  const waiter = store.open({
    sessionId: asked.sessionId,
    toolUseId: asked.toolUseId,
    cwd: asked.cwd,
    toolInput: asked.toolInput,
    questions: asked.questions,
    waitMs,
    maxWaitMs,
    timeout: asked.asker ? forAsker(plan.timeout) : plan.timeout,
    onTimeout: plan.onTimeout,
    // A command hook comes back after a daemon restart; an http request that dropped is over.
    reattaches: asked.transport === 'command',
    ...(asked.reply ? { reply: asked.reply(plan.config) } : {}),
    ...(asked.asker ? { asker: asked.asker } : {}),
    ...(asked.machine ? { machine: asked.machine } : {}),
    ...(plan.immediate ? { immediate: plan.immediate } : {}),
  });
  log.info({ askId: waiter.ask.id, questions: asked.questions.length, transport: asked.transport, ...(asked.asker ? { asker: asked.asker.kind } : {}) }, 'question received');
  if (isNew) addSessionContext(desk, asked, waiter.ask.id, log);
  return { kind: 'opened', waiter };
}

/**
 * What the asking session was doing, from its transcript, added to the ask once it waits (an
 * `updated` event): the ask is published at once and never waits for it. Only for Claude
 * Code's hook on this machine: a remote hook's path names a file of another machine, and a script
 * or an MCP client has no transcript. The path is never logged above debug, nor shown.
 */
function addSessionContext({ store, sessionContext }: AskDesk, asked: Asked, askId: string, log: Log): void {
  if (!sessionContext || asked.transcriptPath === undefined || asked.machine !== undefined || asked.asker !== undefined) return;
  const waiting = () => store.get(askId)?.status === 'pending';
  if (!waiting()) return; // settled the moment it was asked
  sessionContext(asked.transcriptPath, asked.toolUseId, waiting)
    .then((read) => {
      if ('none' in read) log.debug({ askId, reason: read.none }, 'no session context');
      else if (store.setContext(askId, read.context)) log.debug({ askId, found: read.found }, 'session context added');
    })
    .catch((error: unknown) => log.warn({ askId, error: error instanceof Error ? error.message : String(error) }, 'could not add the session context'));
}

/** What the page says will happen, told for a script or an agent instead of Claude Code and its terminal. */
function forAsker(timeout: AskView['timeout']): AskView['timeout'] {
  if (timeout.action === 'terminal') return { action: 'terminal', summary: 'the asker will be told nobody answered' };
  if (timeout.action === 'decline') return { action: 'decline', summary: 'the asker will be told nobody is available' };
  return timeout;
}
