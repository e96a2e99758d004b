// Claude Code's decision for an AskUserQuestion call (protocol.md sections 2 and 3), made from the
// neutral result the core recorded. The one place that knows this format: the transports write what
// it returns and nothing else. The shape is exact on purpose: `updatedInput` replaces the whole tool
// input, so it echoes every original key; answers are keyed by the question text byte for byte;
// never an empty answers map; anything that is not an answer or a refusal is no decision at all (an
// empty body or stdout), so Claude Code's own dialog asks.
import { z } from 'zod';
import { MULTI_SELECT_SEPARATOR, setOwn, type Answered, type Choice } from '../../answers.js';
import { policyChooser } from '../../settlement.js';
import { shorten } from '../../shorten.js';
import type { AnswerMode } from '../../config.js';
import type { Outcome } from '../asks/store.js';

/** What the hook prints on stdout for Claude Code, and an http hook's response body. */
export const HookOutputSchema = z.object({
  hookSpecificOutput: z.object({
    hookEventName: z.literal('PreToolUse'),
    permissionDecision: z.enum(['allow', 'deny']),
    permissionDecisionReason: z.string().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    additionalContext: z.string().optional(),
  }),
});
export type HookOutput = z.infer<typeof HookOutputSchema>;

/** `annotations[question]` in the answer: a person's note, and the preview of the option chosen. */
export type Annotation = { notes?: string; preview?: string };

/** What the decision is made for: the call as Claude Code sent it, and how its configuration says to answer. */
export type ClaudeCodeAsk = {
  /** The tool input exactly as Claude Code sent it: echoed back whole in the answer. */
  toolInput: Readonly<Record<string, unknown>>;
  answerMode: AnswerMode;
  /** The configured wait, named when a policy answered because nobody did within it. */
  waitSeconds: number;
};

/** What Claude is told to do when nobody answers: the end of every decline reason. */
export const PROCEED = 'Do not wait for an answer: proceed with your best judgment, state the assumptions you make, and let the user correct them later.';

/** The reason when a person pressed "Decline" on the page or in the CLI. */
export const PERSON_DECLINE_REASON = `The user declined to answer these questions. ${PROCEED}`;

/**
 * The decision for a settled ask, or null for none (the terminal asks): an answer, a person's or a
 * policy's, is an allow with `updatedInput` (or, for Claude Code before 2.1.85, a deny whose reason
 * carries it); a decline is a deny that tells Claude to proceed on its own.
 */
export function claudeCodeDecision(ask: ClaudeCodeAsk, outcome: Outcome): HookOutput | null {
  const { source } = outcome;
  if (outcome.status === 'answered' && outcome.answered) {
    const context = [source.kind === 'policy' ? policyContext(source, ask.waitSeconds) : undefined, ambiguousLabelsContext(outcome.answered.choices)].filter(Boolean).join('\n');
    return answerOutput(ask, outcome.answered, context || undefined);
  }
  if (outcome.status === 'declined') {
    return denyOutput(source.kind === 'policy' ? declineReason(describeTrigger(source.trigger, ask.waitSeconds)) : PERSON_DECLINE_REASON);
  }
  return null;
}

/** The answers map and its annotations, as `updatedInput` carries them. */
export function answersAndAnnotations(answered: Answered): { answers: Record<string, string>; annotations: Record<string, Annotation> } {
  const annotations: Record<string, Annotation> = {};
  for (const choice of answered.choices) {
    const annotation: Annotation = {};
    if (choice.notes !== null) annotation.notes = choice.notes;
    const preview = chosenPreview(choice);
    if (preview) annotation.preview = preview;
    if (Object.keys(annotation).length > 0) setOwn(annotations, choice.question.question, annotation);
  }
  return { answers: answered.answers, annotations };
}

/** In single-select, the preview of the option chosen (free text has none). */
function chosenPreview({ question, labels, other }: Choice): string | undefined {
  if (question.multiSelect || other !== null) return undefined;
  return question.options.find((option) => option.label === labels[0])?.preview;
}

function answerOutput(ask: ClaudeCodeAsk, answered: Answered, additionalContext: string | undefined): HookOutput {
  if (ask.answerMode === 'deny-reason') {
    const output = denyOutput(denyReasonAnswers(answered));
    if (additionalContext) output.hookSpecificOutput.additionalContext = additionalContext;
    return output;
  }
  const { answers, annotations } = answersAndAnnotations(answered);
  const updatedInput: Record<string, unknown> = { ...ask.toolInput, answers };
  delete updatedInput.annotations;
  if (Object.keys(annotations).length > 0) updatedInput.annotations = annotations;
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput,
      ...(additionalContext ? { additionalContext } : {}),
    },
  };
}

function denyOutput(reason: string): HookOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

/**
 * The answer as text, for Claude Code before 2.1.85, which can only read a deny reason: one line per
 * question, `Header: label`, `Header: label1, label2`, `Header: Other: text` (the shortened question
 * text stands in for a missing header), a note in parentheses.
 */
export function denyReasonAnswers(answered: Answered): string {
  return answered.choices
    .map(({ question, labels, other, notes }) => {
      const name = question.header.trim() || shorten(question.question, 60);
      const parts = other === null ? labels : [...labels, `Other: ${other}`];
      return `${name}: ${parts.join(MULTI_SELECT_SEPARATOR)}${notes ? ` (note: ${notes})` : ''}`.replace(/\r?\n/g, ' ');
    })
    .join('\n');
}

/**
 * A multi-select answer joins labels with ", ", as Claude Code's own dialog does; when a chosen label
 * holds ", " itself, the joined text alone no longer tells where one label ends. The answer keeps
 * that exact format, and Claude is told the labels one by one beside it.
 */
function ambiguousLabelsContext(choices: readonly Choice[]): string | undefined {
  const lines = choices
    .filter(({ question, labels }) => question.multiSelect && labels.some((label) => label.includes(MULTI_SELECT_SEPARATOR)))
    .map(({ question, labels, other }) => {
      const picked = labels.map((label) => JSON.stringify(label)).join(' and ');
      return `The answer to ${JSON.stringify(question.question)} picks ${labels.length === 1 ? 'the option' : `${labels.length} options`} ${picked}${other === null ? '' : `, then free text ${JSON.stringify(other)}`}.`;
    });
  return lines.length === 0 ? undefined : `Some option labels contain ", ", the separator of a multi-select answer. ${lines.join(' ')}`;
}

type PolicySource = Extract<Outcome['source'], { kind: 'policy' }>;

/** Beside a policy's answer: no person chose it, why, and that Claude should say which default it took. */
function policyContext(source: PolicySource, waitSeconds: number): string {
  return (
    `No person answered this question: askbridge chose the answer by policy (${policyChooser(source)}) because ${describeTrigger(source.trigger, waitSeconds)}. ` +
    'Treat it as a default, not as the user’s decision, and tell the user which default you went with so they can change it.'
  );
}

export function declineReason(why: string): string {
  return `Nobody is available to answer these questions right now (${why}). ${PROCEED}`;
}

function describeTrigger(trigger: PolicySource['trigger'], waitSeconds: number): string {
  if (trigger === 'timeout') return `nobody answered within ${formatDuration(waitSeconds)}`;
  if (trigger === 'nobody-watching') return 'nobody was watching when it was asked';
  if (trigger === 'nobody-reachable') return 'nobody was watching or could be told when it was asked';
  return 'a rule answers it at once';
}

function formatDuration(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return seconds % 60 === 0 ? `${seconds / 60} minutes` : `${Math.round(seconds / 6) / 10} minutes`;
}
