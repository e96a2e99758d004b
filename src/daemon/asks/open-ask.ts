// How every ask enters the daemon (a hook's, a script's, an MCP client's): the policy is applied,
// its asker's limits are checked, the ask opens (or the command hook that asked it re-attaches),
// and the session's context follows. It returns what happened; the route that received the ask
// maps that to HTTP. An asker over a limit is logged once, not at every refusal.
import { profileOf } from '../../agents.js';
import type { Config } from '../../config.js';
import { riskOf, type Risk } from '../../risk.js';
import type { Agent, Asker, HookEnvironment, Person, RouteView } from '../../protocol.js';
import { routeFor, routeKindOf } from '../../routing.js';
import type { WaitingLimits } from '../limits.js';
import { grantedOutcome, type GrantStore } from '../grants.js';
import { transcriptNamesSession, type ContextRead } from '../transcript.js';
import { mcpToolPrefix, type TerminalSign } from '../terminal-answers.js';
import type { QuestionPlan, PolicyContext } from './policy.js';
import { describeAsker, identityOf, kindOf, type AskerIdentity, type AskStore, type Credential, type Door, type NewAsk, type Outcome, type OverLimit, type Reply, type Waiter } from './store.js';

/** ASKBRIDGE_UNATTENDED=1, CI=true, or Claude Code's own mark for SDK-hosted sessions. */
export function isUnattended(environment: HookEnvironment): boolean {
  const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim());
  return truthy(environment.ASKBRIDGE_UNATTENDED) || truthy(environment.CI) || environment.CLAUDE_CODE_SESSION_ATTENDED?.trim() === '0';
}

/** A checked ask as a transport received it: what the store opens, and how it came. */
export type Asked<Decision = unknown> = Pick<NewAsk, 'sessionId' | 'toolUseId' | 'cwd' | 'toolInput' | 'questions' | 'typedAnswers' | 'approval' | 'turnEnd' | 'terminalWait' | 'elicitation' | 'sameAs' | 'relayed'> & {
  environment: HookEnvironment;
  /** The way it came in. */
  door: Door;
  /** What a script or an MCP client asked with (the token, or the hook key). */
  credential?: Credential;
  /** The coding agent that asked; absent for a script or an MCP client (asker). */
  agent?: Agent;
  asker?: Asker;
  /** The machine a remote hook named, or a relayed agent's server is on. */
  machine?: string;
  /** Whose session it is, as its hook said (remote-hook --person). */
  person?: string;
  /** The asker's own limit on the wait, below the configuration's. */
  waitSeconds?: number;
  /** The session's transcript, as the hook payload names it: hostile input, read only through transcript.ts. */
  transcriptPath?: string;
  /** How the asker's decision is made for an outcome, given the configuration that applies to the ask. */
  reply?: (config: Config) => Reply<Decision>;
  /** Settled the moment it is asked, whatever the policy says (a turn's end Claude Code would not let continue). */
  settledAtOnce?: Outcome;
};

type Log = { info(fields: Record<string, unknown>, message: string): void; debug(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void };

/** What opening an ask needs. */
export type AskDesk = {
  store: AskStore;
  planQuestion: (context: PolicyContext) => QuestionPlan;
  /** Pages and CLI listeners connected now; with a route, only its people's pages (and the CLI's listeners). */
  watchers: (route?: RouteView) => number;
  /** Whether someone not watching could be told (a push subscription, a Telegram chat); with a route, only its people. */
  reachableElsewhere: (route?: RouteView) => boolean;
  /** What may wait at once, from every asker together (each asker may hold a share of it, limits.ts). */
  limits: WaitingLimits;
  /** The people askbridge knows, for routes (routing.ts). Without them, none: no route. */
  people?: (() => readonly Person[]) | undefined;
  /** The person's live grants: an approval one covers is allowed at once. Without them, none. */
  grants?: GrantStore | undefined;
  /** Told when an ask was refused because everyone's asks together are at a limit. */
  onOverload?: (() => void) | undefined;
  /** What a session was doing, from its transcript; without it, asks show no context. */
  sessionContext?: ((transcriptPath: string, toolUseId: string, stillWanted: () => boolean) => Promise<ContextRead>) | undefined;
  /**
   * Watches a session's transcript while its approval (or its wait in the terminal) waits, and calls
   * `answered` once the person answered in the terminal (or the session moved on); returns what stops it.
   */
  terminalAnswers?: ((transcriptPath: string, sign: TerminalSign, answered: () => void) => () => void) | undefined;
};

export type OpenResult<Decision = unknown> =
  | { kind: 'opened'; waiter: Waiter<Decision> }
  /** Its asker, its credential or everyone is at a limit: this one goes back to its asker (Claude Code's terminal). */
  | ({ kind: 'over_limit'; asker: AskerIdentity; bytes: number } & OverLimit)
  /** This session and tool call were asked already by another asker, or by one that never waits again. */
  | { kind: 'already_asked' }
  /** A script or an MCP client asked more questions at once than the configuration allows. */
  | { kind: 'too_many_questions'; asked: number; max: number };

/** What the policy is asked about an ask: everyone's view of it, before its route is known. */
function policyContextOf(desk: AskDesk, asked: Asked): PolicyContext {
  const kind = kindOf(asked);
  return {
    cwd: asked.cwd,
    machine: asked.machine,
    questions: asked.questions,
    ...(asked.typedAnswers ? { typedAnswers: asked.typedAnswers } : {}),
    profile: profileOf(asked),
    unattended: isUnattended(asked.environment),
    watchers: desk.watchers(),
    reachableElsewhere: desk.reachableElsewhere(),
    ...(kind === 'question' ? {} : { kind }),
  };
}

/** The route an ask opens with (routing.ts): from the live config's rules and people, and its risk under that config. */
function routeWith(desk: AskDesk, asked: Asked, config: Config, risky: boolean): RouteView | undefined {
  return routeFor({ cwd: asked.cwd, machine: asked.machine, agent: asked.agent, asker: asked.asker, kind: routeKindOf(asked), risky, person: asked.person }, config.route, desk.people?.() ?? []);
}

/** The route this ask would open with now: a turn's end asks it first, as it is held only while someone it is for is away. */
export function routeOf(desk: AskDesk, asked: Asked): RouteView | undefined {
  const { config } = desk.planQuestion(policyContextOf(desk, asked));
  return routeWith(desk, asked, config, riskField(asked, config).risk !== undefined);
}

/** Apply the policy to a checked ask and open it (or re-attach to it). */
export function openAsk<Decision>(desk: AskDesk, asked: Asked<Decision>, log: Log): OpenResult<Decision> {
  const { store } = desk;
  const kind = kindOf(asked);
  const profile = profileOf(asked);
  const context = policyContextOf(desk, asked);
  const everyones = desk.planQuestion(context);
  const risk = riskField(asked, everyones.config);
  const route = routeWith(desk, asked, everyones.config, risk.risk !== undefined);
  // Who could see a routed ask is only its people (and the CLI): planned again with their pages and
  // channels alone, so that one none of them could see goes where an ask nobody could see goes.
  const plan = route ? desk.planQuestion({ ...context, watchers: desk.watchers(route), reachableElsewhere: desk.reachableElsewhere(route), routed: true }) : everyones;
  if (asked.asker && asked.questions.length > plan.askMaxQuestions) return { kind: 'too_many_questions', asked: asked.questions.length, max: plan.askMaxQuestions };
  const waitMs = asked.waitSeconds === undefined ? plan.waitMs : Math.min(plan.waitMs, asked.waitSeconds * 1000);
  // How long the asker can wait at all, which bounds any extension: what an asker said it waits, else
  // what its profile says it can (a hook's timeout; a script or an MCP client that gave no limit is held to it too).
  const maxWaitMs = asked.waitSeconds === undefined ? profile.maxWaitMs : asked.waitSeconds * 1000;
  // A person's grant covers it: allowed at once, with no card. Never a turn's end, a question, a
  // risky approval, or one two people must allow.
  const grant = asked.approval && asked.agent && !risk.risk && route?.approvals !== 2 ? desk.grants?.covering({ agent: asked.agent, machine: asked.machine, sessionId: asked.sessionId, cwd: asked.cwd, approval: asked.approval, route }) : undefined;
  const immediate = asked.settledAtOnce ?? (grant ? grantedOutcome(grant) : plan.immediate);
  const input: NewAsk<Decision> = {
    sessionId: asked.sessionId,
    toolUseId: asked.toolUseId,
    cwd: asked.cwd,
    toolInput: asked.toolInput,
    questions: asked.questions,
    ...(asked.typedAnswers ? { typedAnswers: asked.typedAnswers } : {}),
    ...(asked.sameAs === undefined ? {} : { sameAs: asked.sameAs }),
    ...(asked.approval ? { approval: asked.approval } : {}),
    ...risk,
    ...(asked.person === undefined ? {} : { person: asked.person }),
    ...(route ? { route } : {}),
    ...(asked.turnEnd ? { turnEnd: asked.turnEnd } : {}),
    ...(asked.terminalWait ? { terminalWait: asked.terminalWait } : {}),
    ...(asked.elicitation ? { elicitation: asked.elicitation } : {}),
    waitMs,
    maxWaitMs,
    timeout: plan.timeout,
    onTimeout: plan.onTimeout,
    door: asked.door,
    ...(asked.reply ? { reply: asked.reply(plan.config) } : {}),
    ...(asked.agent ? { agent: asked.agent } : {}),
    ...(asked.asker ? { asker: asked.asker } : {}),
    ...(asked.machine ? { machine: asked.machine } : {}),
    ...(asked.relayed ? { relayed: asked.relayed } : {}),
    ...(asked.credential ? { credential: asked.credential } : {}),
    ...(immediate ? { immediate } : {}),
  };
  const admission = store.admit(input, desk.limits);
  switch (admission.kind) {
    case 'taken':
      return { kind: 'already_asked' };
    case 'over': {
      const { kind: _over, first, ...over } = admission;
      if (over.scope === 'all') desk.onOverload?.();
      if (first) log.warn({ asker: describeAsker(over.asker), limit: over.limit, scope: over.scope, max: over.max }, 'asker over a limit: its new questions are refused until some are settled');
      return { kind: 'over_limit', ...over };
    }
    case 'new':
      if (admission.refusedMeanwhile > 0) log.info({ asker: describeAsker(admission.asker), refused: admission.refusedMeanwhile }, 'questions fit again after refusals');
      break;
    case 'reattach':
      break;
    case 'join':
      break;
  }
  const waiter = store.open(input);
  const door = asked.door;
  if (admission.kind === 'join') {
    log.info({ askId: waiter.ask.id, door }, 'the same wait, asked again by another hook entry (askbridge is wired twice): it waits with the first');
    return { kind: 'opened', waiter };
  }
  if (asked.approval && grant) log.info({ askId: waiter.ask.id, tool: asked.approval.toolName, door, grant: grant.id }, 'approval allowed by a grant');
  else if (asked.approval) log.info({ askId: waiter.ask.id, tool: asked.approval.toolName, door }, 'approval received');
  else if (kind === 'turn-end') log.info({ askId: waiter.ask.id, door }, asked.settledAtOnce ? 'turn end: Claude Code takes no more replies in a row, so it is not held' : 'turn end waits for a reply');
  else if (kind === 'terminal-wait') log.info({ askId: waiter.ask.id, door }, 'session waits in its terminal');
  else if (kind === 'elicitation') log.info({ askId: waiter.ask.id, door, mode: asked.elicitation?.mode, ...(immediate ? { settled: immediate.source.kind === 'policy' ? immediate.source.trigger : immediate.source.kind } : {}) }, 'elicitation received');
  else log.info({ askId: waiter.ask.id, questions: asked.questions.length, door, ...(asked.asker ? { asker: asked.asker.kind } : {}) }, 'question received');
  if (admission.kind === 'new') addSessionContext(desk, asked, waiter.ask.id, log);
  if (admission.kind === 'new') watchTerminal(desk, asked, waiter, log);
  return { kind: 'opened', waiter };
}

/** An approval's risk (risk.ts), with the configuration that applies to it: computed once, as it opens. */
export function riskField(asked: Pick<Asked, 'approval' | 'cwd'>, config: Config): { risk?: Risk } {
  const risk = asked.approval ? riskOf(asked.approval, asked.cwd, config) : undefined;
  return risk ? { risk } : {};
}

/**
 * A waiting approval of a session on this machine: Claude Code does not tell its hook when the
 * person answers its own dialog first, but the session's transcript does (terminal-answers.ts). A
 * wait in the terminal leaves once the transcript says the session moved on, and an MCP server's
 * request once its call has a result there: Esc on a held request tells its hook nothing, but the
 * interrupted call is written there.
 * Watched until settled, by anyone.
 */
function watchTerminal(desk: AskDesk, asked: Asked, waiter: Waiter, log: Log): void {
  const { store, terminalAnswers } = desk;
  if (!terminalAnswers || !(asked.approval || asked.terminalWait || asked.elicitation) || asked.transcriptPath === undefined || asked.machine !== undefined) return;
  if (store.get(waiter.ask.id)?.status !== 'pending') return;
  if (!transcriptNamesSession(asked.transcriptPath, asked.sessionId)) return;
  const askId = waiter.ask.id;
  const { approval } = asked;
  const { elicitation } = asked;
  const stop = approval
    ? terminalAnswers(asked.transcriptPath, { toolName: approval.toolName, toolInput: asked.toolInput }, () => {
        if (store.answeredInTerminal(askId)) log.info({ askId, tool: approval.toolName }, 'approval answered in the terminal: withdrawn');
      })
    : elicitation
      ? terminalAnswers(asked.transcriptPath, { toolPrefix: mcpToolPrefix(elicitation.server), since: waiter.ask.createdAt }, () => {
          if (store.movedOn(asked.sessionId, identityOf(asked), { turnOver: true }).length > 0) log.info({ askId }, "the MCP server's call ended in the terminal (Esc): its request let go");
        })
      : terminalAnswers(asked.transcriptPath, 'moved-on', () => {
          if (store.movedOn(asked.sessionId, identityOf(asked)).length > 0) log.info({ askId }, 'session moved on: its wait in the terminal withdrawn');
        });
  void waiter.outcome.then(stop);
}

/**
 * What the asking session was doing, from its transcript, added to the ask once it waits (an
 * `updated` event): the ask is published at once and never waits for it. Only for Claude
 * Code's hook on this machine: a remote hook's path names a file of another machine, and a script
 * or an MCP client has no transcript. Only the session's own transcript (`<session_id>.jsonl`):
 * another session's would dress this question in that session's title and words. The path is
 * never logged above debug, nor shown.
 */
function addSessionContext(desk: AskDesk, asked: Asked, askId: string, log: Log): void {
  const { store, sessionContext } = desk;
  if (!sessionContext || asked.transcriptPath === undefined || asked.machine !== undefined || asked.asker !== undefined) return;
  const waiting = () => store.get(askId)?.status === 'pending';
  if (!waiting()) return; // settled the moment it was asked
  if (!transcriptNamesSession(asked.transcriptPath, asked.sessionId)) {
    log.debug({ askId, reason: 'not the transcript of its session' }, 'no session context');
    return;
  }
  sessionContext(asked.transcriptPath, asked.toolUseId, waiting)
    .then((read) => {
      if ('none' in read) {
        log.debug({ askId, reason: read.none }, 'no session context');
        return;
      }
      const added = store.setContext(askId, read.context, desk.limits);
      if (added === 'added') log.debug({ askId, found: read.found }, 'session context added');
      if (added === 'no_room') log.debug({ askId, reason: 'no room left for its asker' }, 'no session context');
    })
    .catch((error: unknown) => log.warn({ askId, error: error instanceof Error ? error.message : String(error) }, 'could not add the session context'));
}
