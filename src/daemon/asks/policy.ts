// What happens to an ask nobody answers, decided per ask from the configuration that applies to
// its project: how long to wait, then let the terminal ask, choose the recommended option, apply a
// rule, or decline. A default is always one of the offered labels (or a rule's explicit free text),
// and its outcome says a policy chose it, so that every asker is told no person did. What the page
// says will happen is in the asker's own words (its profile: "the terminal", "opencode's prompt").
import type { AgentProfile } from '../../agents.js';
import { formatAnswers } from '../../answers.js';
import { shorten } from '../../shorten.js';
import { matchesText, type Config, type EffectiveConfig, type Rule } from '../../config.js';
import type { AskTimeout, AskView, PlannedAnswer, Question, Response, Source } from '../../protocol.js';
import type { Outcome } from './store.js';

export type PolicyContext = {
  cwd: string;
  /**
   * The machine a remote hook named: its `cwd` is a path on that machine, so a project file found at
   * the same path here is not its project's, and only the user configuration applies.
   */
  machine?: string | undefined;
  questions: Question[];
  /** Which questions take typed text (every one when absent): a rule's text answers only those. */
  typedAnswers?: readonly boolean[];
  /** Who asked: how long it can wait, and the words for its own prompt. */
  profile: AgentProfile;
  /** The hook's environment says nobody watches this session (CI, SDK host, ASKBRIDGE_UNATTENDED). */
  unattended: boolean;
  /** Pages and CLI listeners connected now. */
  watchers: number;
  /** Whether someone not watching could be told: a paired device with a push subscription, or a paired Telegram chat (webhooks are the config's). */
  reachableElsewhere: boolean;
  /** The ask is routed to people (routing.ts): the config's webhooks, nobody's in particular, are not told of it. */
  routed?: boolean;
  /**
   * What is asked, when not questions: a permission (no policy ever allows one), the end of a turn
   * (waits awaySeconds for a reply, then Claude stops), a wait in the terminal (shown until the
   * session moves on), an MCP server's elicitation (no policy ever responds to one).
   */
  kind?: 'approval' | 'turn-end' | 'terminal-wait' | 'elicitation';
};

export type QuestionPlan = {
  /** The configuration the plan was made from: an asker's reply may depend on it too. */
  config: Config;
  waitMs: number;
  /** How many questions a script or an MCP client may ask at once here. */
  askMaxQuestions: number;
  timeout: AskView['timeout'];
  onTimeout: (question: AskView) => Outcome;
  /** Set when the policy settles the question the moment it arrives. */
  immediate?: Outcome;
};

export type PolicyLog = (fields: Record<string, unknown>, message: string) => void;

const RECOMMENDED = /\(recommended\)/i;

/** `configFor(null)`: the user configuration alone. */
export function createPolicy(options: { configFor: (cwd: string | null) => EffectiveConfig; log: PolicyLog }) {
  return function planQuestion(context: PolicyContext): QuestionPlan {
    const { config } = options.configFor(context.machine === undefined ? context.cwd : null);
    if (context.kind === 'approval') return planApproval(config, context);
    if (context.kind === 'turn-end') return planTurnEnd(config, context);
    if (context.kind === 'terminal-wait') return planTerminalWait(config);
    if (context.kind === 'elicitation') return planElicitation(config, context);
    const waitMs = config.waitSeconds * 1000;
    // A policy must never leave a hook hanging or crash the daemon from a timer: on any surprise the terminal asks.
    const decide = (trigger: 'timeout' | 'nobody-watching'): Outcome => {
      try {
        return decideWithoutPerson(config, context, trigger, options.log);
      } catch (error) {
        options.log({ error: (error as Error).message }, 'policy failed: the terminal asks instead');
        return { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger } };
      }
    };
    const plan: QuestionPlan = {
      config,
      waitMs,
      askMaxQuestions: config.askMaxQuestions,
      timeout: describeTimeout(config, context),
      onTimeout: () => decide('timeout'),
    };

    const atOnce = answerByRules(config.rules, context, 'immediately', options.log);
    if (atOnce.complete) {
      plan.immediate = policyAnswer(context, atOnce.responses, { kind: 'policy', action: 'rule', trigger: 'immediately', rule: atOnce.ruleNames.join(', ') });
    } else if (context.unattended || (config.whenNobodyWatching === 'act' && context.watchers === 0)) {
      plan.immediate = decide('nobody-watching');
    } else if (nobodyReachable(config, context)) {
      plan.immediate = toTerminal('nobody-reachable');
    }
    return plan;
  };
}

export type Policy = ReturnType<typeof createPolicy>;

/**
 * With `wait-if-reachable` (the default), an ask that no page or terminal watches and nobody could be
 * told about goes back to the terminal at once: nobody would answer it here, and the person at the
 * terminal should not wait for nobody.
 */
function nobodyReachable(config: Config, context: PolicyContext): boolean {
  return config.whenNobodyWatching === 'wait-if-reachable' && context.watchers === 0 && !context.reachableElsewhere && (context.routed === true || config.notify.length === 0);
}

const toTerminal = (trigger: 'timeout' | 'nobody-watching' | 'nobody-reachable'): Outcome => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger } });

/**
 * An approval nobody decides is never allowed by a policy, and no rule answers it (the agent's own
 * permission settings allow what should run unasked). When the wait ends, or nobody watches and
 * the configuration says to act, it goes back to the agent's own prompt. An unattended session has
 * nobody at that prompt: it is denied at once, with a message saying so.
 */
function planApproval(config: Config, context: PolicyContext): QuestionPlan {
  // The agent's own prompt is there all along (Claude Code's dialog is on screen), so holding the
  // request costs nothing: the card stays until someone decides, or the agent's limit nears.
  const where = context.profile.ownPrompt?.approval;
  const timeout: AskTimeout = { action: 'terminal', summary: where === undefined ? 'its asker will be told nobody decided' : where === 'the terminal' ? "it stays with the terminal's own dialog" : `${where} decides` };
  const plan: QuestionPlan = { config, waitMs: context.profile.maxWaitMs, askMaxQuestions: config.askMaxQuestions, timeout, onTimeout: () => toTerminal('timeout') };
  if (context.unattended) plan.immediate = { status: 'denied', source: { kind: 'policy', action: 'decline', trigger: 'nobody-watching' }, decision: { behavior: 'deny' } };
  else if (config.whenNobodyWatching === 'act' && context.watchers === 0) plan.immediate = toTerminal('nobody-watching');
  else if (nobodyReachable(config, context)) plan.immediate = toTerminal('nobody-reachable');
  return plan;
}

/**
 * The end of a turn, while the person is away: it waits awaySeconds for their reply (never longer
 * than the Stop hook can be held), then Claude stops. No rule or policy ever replies. When nobody
 * could be told, Claude stops at once.
 */
function planTurnEnd(config: Config, context: PolicyContext): QuestionPlan {
  return {
    config,
    waitMs: Math.min(config.awaySeconds * 1000, context.profile.maxWaitMs),
    askMaxQuestions: config.askMaxQuestions,
    timeout: { action: 'terminal', summary: `${context.profile.speaker} stops, and its session waits at its prompt` },
    onTimeout: () => toTerminal('timeout'),
    ...(nobodyReachable(config, context) ? { immediate: toTerminal('nobody-reachable') } : {}),
  };
}

/**
 * An MCP server's elicitation: no policy or rule ever responds to one (an accept would send the
 * server values nobody gave), whatever the configuration says. While askbridge holds it Claude
 * Code shows no dialog, so it is held only while someone could answer it elsewhere: unattended, or
 * nobody watching (with `act`) or reachable, it goes back to Claude Code's own dialog at once; at
 * the deadline, too.
 */
function planElicitation(config: Config, context: PolicyContext): QuestionPlan {
  const plan: QuestionPlan = {
    config,
    waitMs: Math.min(config.waitSeconds * 1000, context.profile.maxWaitMs),
    askMaxQuestions: config.askMaxQuestions,
    timeout: { action: 'terminal', summary: `${context.profile.ownPrompt?.question ?? 'its asker'} will ask` },
    onTimeout: () => toTerminal('timeout'),
  };
  if (context.unattended || (config.whenNobodyWatching === 'act' && context.watchers === 0)) plan.immediate = toTerminal('nobody-watching');
  else if (nobodyReachable(config, context)) plan.immediate = toTerminal('nobody-reachable');
  return plan;
}

/** How long a wait in the terminal is shown when its session never says it moved on (a session killed with no SessionEnd). */
export const TERMINAL_WAIT_MS = 12 * 60 * 60_000;

/** A wait in the terminal: nothing here answers it, and it stays until its session moves on. */
function planTerminalWait(config: Config): QuestionPlan {
  return {
    config,
    waitMs: TERMINAL_WAIT_MS,
    askMaxQuestions: config.askMaxQuestions,
    timeout: { action: 'terminal', summary: 'it is answered in the terminal' },
    onTimeout: () => ({ status: 'cancelled', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  };
}

/** Rules first; for the questions no rule answers, the onTimeout action. */
function decideWithoutPerson(config: Config, context: PolicyContext, trigger: 'timeout' | 'nobody-watching', log: PolicyLog): Outcome {
  const byRules = answerByRules(config.rules, context, 'timeout', log);
  const rule = byRules.ruleNames.length > 0 ? byRules.ruleNames.join(', ') : undefined;
  if (byRules.complete) return policyAnswer(context, byRules.responses, { kind: 'policy', action: 'rule', trigger, ...(rule ? { rule } : {}) });

  const source: Source = { kind: 'policy', action: config.onTimeout, trigger, ...(rule ? { rule } : {}) };
  switch (config.onTimeout) {
    case 'terminal':
      return { status: 'handed-to-terminal', source };
    case 'decline':
      return { status: 'declined', source };
    case 'recommended': {
      const answered = new Set(byRules.responses.map((response) => response.question));
      const recommended = context.questions.filter((question) => !answered.has(question.question)).map(recommendedResponse);
      return policyAnswer(context, [...byRules.responses, ...recommended], source);
    }
  }
}

function policyAnswer(context: PolicyContext, responses: Response[], source: Extract<Source, { kind: 'policy' }>): Outcome {
  return { status: 'answered', source, answered: formatAnswers(context.questions, responses) };
}

/** The recommended option(s): labels containing "(Recommended)", else the first option. */
export function recommendedResponse(question: Question): Response {
  const recommended = question.options.filter((option) => RECOMMENDED.test(option.label)).map((option) => option.label);
  const selected = recommended.length === 0 ? [question.options[0]!.label] : question.multiSelect ? recommended : [recommended[0]!];
  return { question: question.question, selected, other: null, notes: null };
}

/** `ruleOf`: the name of the rule that answered each answered question, by its text. */
type RulesResult = { responses: Response[]; ruleNames: string[]; ruleOf: Map<string, string>; complete: boolean };

/**
 * For each question, the first matching rule that gives a valid answer: a label offered, or free
 * text where the question takes typed text. `immediately` uses only immediate rules.
 */
export function answerByRules(rules: readonly Rule[], asked: Pick<PolicyContext, 'questions' | 'typedAnswers'>, phase: 'timeout' | 'immediately', log: PolicyLog): RulesResult {
  const responses: Response[] = [];
  const ruleNames = new Set<string>();
  const ruleOf = new Map<string, string>();
  for (const [at, question] of asked.questions.entries()) {
    for (const [index, rule] of rules.entries()) {
      if (phase === 'immediately' && rule.when !== 'immediately') continue;
      if (!ruleMatches(rule, question)) continue;
      const name = rule.name ? `"${rule.name}"` : `#${index + 1}`;
      if (rule.text !== undefined && asked.typedAnswers?.[at] === false) {
        log({ rule: name, header: shorten(question.header, 40) }, 'rule skipped: its asker takes only the options for this question, not free text');
        continue;
      }
      const response = ruleResponse(rule, question);
      if (!response) {
        log({ rule: name, header: shorten(question.header, 40) }, 'rule skipped: its label is not among the offered options');
        continue;
      }
      responses.push(response);
      ruleNames.add(name);
      ruleOf.set(question.question, name);
      break;
    }
  }
  return { responses, ruleNames: [...ruleNames], ruleOf, complete: responses.length === asked.questions.length };
}

function ruleMatches(rule: Rule, question: Question): boolean {
  return (rule.header === undefined || matchesText(rule.header, question.header)) && (rule.question === undefined || matchesText(rule.question, question.question));
}

function ruleResponse(rule: Rule, question: Question): Response | undefined {
  if (rule.text !== undefined) return { question: question.question, selected: [], other: rule.text, notes: null };
  const labels = typeof rule.choose === 'string' ? [rule.choose] : (rule.choose ?? []);
  const offered = new Set(question.options.map((option) => option.label));
  if (labels.length === 0 || labels.some((label) => !offered.has(label))) return undefined;
  if (!question.multiSelect && labels.length > 1) return undefined;
  return { question: question.question, selected: labels, other: null, notes: null };
}

/**
 * What the page says will happen at the deadline: a clause without model text (the CLI prints it),
 * and, when the policy will answer, each question's planned answer, so that a page can name the
 * labels (as text it marks, never inside this clause).
 */
function describeTimeout(config: Config, context: PolicyContext): AskTimeout {
  // Quiet: the same rules are evaluated (and skipped ones logged) when the deadline comes.
  const byRules = answerByRules(config.rules, context, 'timeout', () => {});
  const planned = (response: Response): PlannedAnswer => {
    const rule = byRules.ruleOf.get(response.question);
    return { question: response.question, selected: response.selected, ...(response.other === null ? {} : { other: response.other }), ...(rule === undefined ? {} : { rule }) };
  };
  if (byRules.complete) return { action: 'rule', summary: `the rule ${byRules.ruleNames.join(', ')} will answer`, answers: byRules.responses.map(planned) };
  const { ownPrompt, speaker } = context.profile;
  switch (config.onTimeout) {
    case 'terminal':
      return { action: 'terminal', summary: ownPrompt ? `${ownPrompt.question} will ask` : 'the asker will be told nobody answered' };
    case 'decline':
      return { action: 'decline', summary: ownPrompt ? `${speaker} will be told nobody is available, and to proceed on its own judgment` : 'the asker will be told nobody is available' };
    case 'recommended': {
      const byQuestion = new Map(byRules.responses.map((response) => [response.question, response]));
      const answers = context.questions.map((question) => planned(byQuestion.get(question.question) ?? recommendedResponse(question)));
      return { action: 'recommended', summary: byRules.ruleNames.length > 0 ? 'rules and the recommended option will answer' : 'the recommended option will be chosen', answers };
    }
  }
}
