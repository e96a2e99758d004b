// The one channel contract: what a person may decide on an ask, computed once from its asker's
// profile (agents.ts), what it asks, and whether the channel shows it whole or cut. Every channel
// offers exactly this (the page and the CLI from the ask's own `choices`, Telegram and notifications
// from what they show), and the store refuses anything else before it settles, so a refused decision
// leaves the ask answerable. Nothing cut is ever allowed; typed text only where the asker takes it;
// a stop only where it can stop. Pure: no I/O.
import { profileOf, type AskKind } from './agents.js';
import { AnswerError } from './answers.js';
import { PLAN_TOOL } from './approvals.js';
import type { Risk } from './risk.js';
import { quoteText, type Agent, type ApprovalDecision, type Asker, type Choices, type Question, type Response } from './protocol.js';

/** How a channel shows an ask: whole (the page, the CLI), or cut to fit (a Telegram message that could not hold it, a notification). */
export type Shown = 'whole' | 'cut';

/** What the choices are made from: who asked, what, and for questions which take typed text (every one, unless the asker says otherwise). */
export type ChoiceBasis = {
  kind: AskKind;
  agent?: Agent | undefined;
  asker?: Asker | undefined;
  questions: readonly unknown[];
  typedAnswers?: readonly boolean[] | undefined;
  suggestions: number;
  /** An approval that a grant may cover (grant-rules.ts grantable). */
  grantable?: boolean | undefined;
};

/** The choices where the ask is shown whole. */
export function choicesOf(basis: ChoiceBasis): Choices {
  const profile = profileOf(basis);
  const approval = basis.kind === 'approval';
  const ownPrompt = basis.asker === undefined ? profile.ownPrompt : undefined;
  // An elicitation handed back is the agent's own dialog (Claude Code's asks in the terminal, as its questions are).
  const handBack = basis.kind === 'question' ? ownPrompt?.question : approval || basis.kind === 'elicitation' ? ownPrompt?.approval : undefined;
  return {
    typedAnswers: basis.questions.map((_question, index) => basis.typedAnswers?.[index] ?? true),
    notes: profile.notes,
    ...(handBack === undefined ? {} : { handBack }),
    allow: approval,
    remember: approval && profile.remembers && basis.suggestions > 0,
    stop: approval && profile.stops,
    grant: approval && basis.grantable === true,
  };
}

/** The choices a channel may offer: one that shows the ask cut never allows it, with or without an "always allow" or a grant. */
export function onChannel(choices: Choices, shown: Shown): Choices {
  return shown === 'whole' ? choices : { ...choices, allow: false, remember: false, grant: false };
}

/** Why these responses may not be given here (typed text or a note the asker does not take), or undefined. */
export function refusedAnswer(
  who: { agent?: Agent | undefined; asker?: Asker | undefined },
  questions: readonly Pick<Question, 'question' | 'header'>[],
  choices: Choices,
  responses: readonly Pick<Response, 'question' | 'other' | 'notes'>[],
): AnswerError | undefined {
  const name = profileOf(who).name;
  for (const response of responses) {
    const index = questions.findIndex((question) => question.question === response.question);
    if (index < 0) continue; // formatAnswers names the unknown question
    const question = questions[index]!;
    if (response.other?.trim() && choices.typedAnswers[index] === false) {
      return new AnswerError('typed_text_not_taken', `${name} takes only its options for ${quoteText(question.header || question.question)}: pick one of them`);
    }
    if (response.notes?.trim() && !choices.notes) return new AnswerError('notes_not_taken', `${name} takes no note with an answer: answer without one`);
  }
  return undefined;
}

/** Why this decision may not be taken here, or undefined; `command` runs askbridge on this machine (askbridgeCommand). */
export function refusedDecision(
  who: { agent?: Agent | undefined; asker?: Asker | undefined; risk?: Risk | undefined },
  approval: { toolName: string; suggestions: readonly unknown[] },
  choices: Choices,
  decision: ApprovalDecision,
  command: string,
): AnswerError | undefined {
  const name = profileOf(who).name;
  if (decision.behavior === 'allow') {
    if (!choices.allow) return new AnswerError('not_shown_whole', `what would run is cut short here: read it whole on the page (or with \`${command} pending\`) to allow it`);
    if (who.risk && !decision.confirmRisky) {
      return new AnswerError('risky_unconfirmed', `this is risky (${who.risk.reasons.join('; ')}): confirm it on the page, or with \`${command} answer <id> --allow --confirm-risky\`, to allow it`);
    }
    if (decision.grant) {
      if (!choices.grant) return new AnswerError('not_grantable', 'no grant can cover this request: allow it once');
      if (decision.suggestion !== undefined) return new AnswerError('grant_with_suggestion', `choose a grant or one of ${name}'s suggestions, not both`);
    }
    if (decision.suggestion === undefined) return undefined;
    if (who.risk) return new AnswerError('risky_once', `this is risky (${who.risk.reasons.join('; ')}): it is allowed once only, never remembered`);
    if (approval.suggestions.length === 0 || !choices.remember) {
      return new AnswerError('unknown_suggestion', `there is no suggestion ${decision.suggestion} to choose here: ${name} made none it takes back; allow it once`);
    }
    if (decision.suggestion >= approval.suggestions.length) {
      return new AnswerError('unknown_suggestion', `there is no suggestion ${decision.suggestion}: ${name} made ${approval.suggestions.length} (0 to ${approval.suggestions.length - 1})`);
    }
    return undefined;
  }
  const words = decision.message?.trim();
  if (decision.interrupt) {
    if (!choices.stop) return new AnswerError('interrupt_unsupported', `${name} cannot stop its turn from here: deny, and say why in the message`);
    if (words) return new AnswerError('message_with_stop', `${name} does not pass a message on when it stops the turn: deny with the message, or stop without one`);
    return undefined;
  }
  if (approval.toolName === PLAN_TOOL && !words) return new AnswerError('empty_feedback', `say what ${profileOf(who).speaker} should change in the plan (message), or stop it (interrupt)`);
  return undefined;
}
