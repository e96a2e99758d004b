// How every ask enters the daemon (a hook's, a script's, an MCP client's): the policy is applied,
// the limits are checked, the ask opens (or a command hook re-attaches to it), and the session's
// context follows. The routes that receive asks (hook.ts, and POST /api/asks in asks.ts) call it.
import type { FastifyRequest } from 'fastify';
import { LIMITS, type Asker, type HookEnvironment, type AskView } from '../../protocol.js';
import type { RouteContext } from '../routes/context.js';
import { HttpError } from '../errors.js';
import { MAX_PENDING, MAX_WAIT_MS } from '../limits.js';
import type { NewAsk, Waiter } from './store.js';

/** ASKBRIDGE_UNATTENDED=1, CI=true, or Claude Code's own mark for SDK-hosted sessions. */
export function isUnattended(environment: HookEnvironment): boolean {
  const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim());
  return truthy(environment.ASKBRIDGE_UNATTENDED) || truthy(environment.CI) || environment.CLAUDE_CODE_SESSION_ATTENDED?.trim() === '0';
}

/** A checked ask as a route received it: what the store opens, and how it came. */
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
};

/** Apply the policy to a checked ask and open it (or re-attach to it). */
export function openAsk(context: RouteContext, request: FastifyRequest, asked: Asked): Waiter {
  const { store, watchers, deps } = context;
  const maxPending = deps.maxPending ?? MAX_PENDING;
  const isNew = !store.knows(asked.sessionId, asked.toolUseId);
  if (isNew && store.pendingCount() >= maxPending) {
    deps.onOverload?.(true);
    throw new HttpError(503, 'too_many_pending', `${maxPending} questions are waiting already: this one goes to the terminal`);
  }
  const plan = deps.planQuestion({ cwd: asked.cwd, toolInput: asked.toolInput, questions: asked.questions, unattended: isUnattended(asked.environment), watchers: watchers.sockets.size });
  if (asked.asker && asked.questions.length > plan.askMaxQuestions) {
    throw new HttpError(400, 'too_many_questions', `${asked.questions.length} questions at once, but the configuration allows ${plan.askMaxQuestions} (askMaxQuestions, up to ${LIMITS.askQuestions.max})`);
  }
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
    answerMode: plan.answerMode,
    // A command hook comes back after a daemon restart; an http request that dropped is over.
    reattaches: asked.transport === 'command',
    ...(asked.asker ? { asker: asked.asker } : {}),
    ...(asked.machine ? { machine: asked.machine } : {}),
    ...(plan.immediate ? { immediate: plan.immediate } : {}),
  });
  request.log.info({ askId: waiter.ask.id, questions: asked.questions.length, transport: asked.transport, ...(asked.asker ? { asker: asked.asker.kind } : {}) }, 'question received');
  if (isNew) addSessionContext(context, request, asked, waiter.ask.id);
  return waiter;
}

/**
 * What the asking session was doing, from its transcript, added to the ask once it waits (an
 * `updated` event): the ask is published at once and never waits for it. Only for Claude
 * Code's hook on this machine: a remote hook's path names a file of another machine, and a script
 * or an MCP client has no transcript. The path is never logged above debug, nor shown.
 */
function addSessionContext({ store, deps }: RouteContext, request: FastifyRequest, asked: Asked, askId: string): void {
  if (!deps.sessionContext || asked.transcriptPath === undefined || asked.machine !== undefined || asked.asker !== undefined) return;
  const waiting = () => store.get(askId)?.status === 'pending';
  if (!waiting()) return; // settled the moment it was asked
  deps
    .sessionContext(asked.transcriptPath, asked.toolUseId, waiting)
    .then((read) => {
      if ('none' in read) request.log.debug({ askId, reason: read.none }, 'no session context');
      else if (store.setContext(askId, read.context)) request.log.debug({ askId, found: read.found }, 'session context added');
    })
    .catch((error: unknown) => request.log.warn({ askId, error: error instanceof Error ? error.message : String(error) }, 'could not add the session context'));
}

/** What the page says will happen, told for a script or an agent instead of Claude Code and its terminal. */
function forAsker(timeout: AskView['timeout']): AskView['timeout'] {
  if (timeout.action === 'terminal') return { action: 'terminal', summary: 'the asker will be told nobody answered' };
  if (timeout.action === 'decline') return { action: 'decline', summary: 'the asker will be told nobody is available' };
  return timeout;
}
