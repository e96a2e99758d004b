// Pure answer formatting: what a person picked -> the answers map -> the decision Claude Code reads.
// The shape is exact on purpose (protocol.md section 2): answers keyed by the question text byte for
// byte, multi-select labels in option order joined with ", ", free text replacing (single-select) or
// appended (multi-select), and never an empty answers map. No I/O here.
import type { HookOutput, Question, Response } from './protocol.js';

export const MULTI_SELECT_SEPARATOR = ', ';

export class AnswerError extends Error {
  constructor(
    readonly code: 'unknown_question' | 'duplicate_response' | 'unknown_label' | 'duplicate_label' | 'too_many_choices' | 'note_without_answer' | 'empty_answer',
    message: string,
  ) {
    super(message);
    this.name = 'AnswerError';
  }
}

export type Annotation = { notes?: string; preview?: string };

export type FormattedAnswers = {
  answers: Record<string, string>;
  annotations: Record<string, Annotation>;
};

/**
 * Check a person's responses against the questions asked and build Claude Code's answers map.
 * Questions without a response (or with an empty one) are left out; at least one must be answered.
 */
export function formatAnswers(questions: readonly Question[], responses: readonly Response[]): FormattedAnswers {
  const byText = new Map(questions.map((question) => [question.question, question]));
  const answered = new Map<string, { value: string; annotation: Annotation }>();
  const seen = new Set<string>();

  for (const response of responses) {
    const question = byText.get(response.question);
    if (!question) throw new AnswerError('unknown_question', `no question "${shorten(response.question)}" was asked`);
    if (seen.has(response.question)) throw new AnswerError('duplicate_response', `question "${shorten(response.question)}" was answered twice`);
    seen.add(response.question);

    const formatted = formatOne(question, response);
    if (formatted) answered.set(question.question, formatted);
  }
  if (answered.size === 0) throw new AnswerError('empty_answer', 'no question was answered: pick an option or type an answer');

  // Keep the order in which the questions were asked.
  const answers: Record<string, string> = {};
  const annotations: Record<string, Annotation> = {};
  for (const question of questions) {
    const entry = answered.get(question.question);
    if (!entry) continue;
    answers[question.question] = entry.value;
    if (Object.keys(entry.annotation).length > 0) annotations[question.question] = entry.annotation;
  }
  return { answers, annotations };
}

function formatOne(question: Question, response: Response): { value: string; annotation: Annotation } | undefined {
  const labels = question.options.map((option) => option.label);
  const selected = new Set<string>();
  for (const label of response.selected) {
    if (!labels.includes(label)) throw new AnswerError('unknown_label', `"${shorten(label)}" is not an option of "${shorten(question.question)}"`);
    if (selected.has(label)) throw new AnswerError('duplicate_label', `"${shorten(label)}" was chosen twice`);
    selected.add(label);
  }
  const other = response.other?.trim() ? response.other : null;
  const notes = response.notes?.trim() ? response.notes : null;

  if (!question.multiSelect && selected.size + (other === null ? 0 : 1) > 1) {
    throw new AnswerError('too_many_choices', `"${shorten(question.question)}" takes one answer: an option or other text, not both`);
  }
  if (selected.size === 0 && other === null) {
    if (notes !== null) throw new AnswerError('note_without_answer', `"${shorten(question.question)}" has a note but no answer`);
    return undefined;
  }

  const parts = labels.filter((label) => selected.has(label));
  if (other !== null) parts.push(other);

  const annotation: Annotation = {};
  if (notes !== null) annotation.notes = notes;
  if (!question.multiSelect && other === null) {
    const preview = question.options.find((option) => option.label === parts[0])?.preview;
    if (preview) annotation.preview = preview;
  }
  return { value: parts.join(MULTI_SELECT_SEPARATOR), annotation };
}

/**
 * The decision that answers the question: `updatedInput` replaces the whole tool input, so it is the
 * original input, every unknown key kept, plus `answers` (and `annotations` when there are any).
 */
export function buildAllowOutput(
  toolInput: Readonly<Record<string, unknown>>,
  formatted: FormattedAnswers,
  additionalContext?: string,
): HookOutput {
  const updatedInput: Record<string, unknown> = { ...toolInput, answers: formatted.answers };
  delete updatedInput.annotations;
  if (Object.keys(formatted.annotations).length > 0) updatedInput.annotations = formatted.annotations;
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput,
      ...(additionalContext ? { additionalContext } : {}),
    },
  };
}

/** The decision that refuses the tool call; Claude receives the reason as an error result. */
export function buildDenyOutput(reason: string): HookOutput {
  return {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  };
}

export function shorten(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
