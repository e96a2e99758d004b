// Pure answer formatting: what a person picked -> the answers map -> the decision Claude Code reads.
// The shape is exact on purpose (protocol.md section 2): answers keyed by the question text byte for
// byte, multi-select labels in option order joined with ", ", free text replacing (single-select) or
// appended (multi-select), and never an empty answers map. No I/O here.
import { MULTI_SELECT_SEPARATOR, quoteText, type HookOutput, type Question, type Response } from './protocol.js';

export { MULTI_SELECT_SEPARATOR };

/**
 * Sets `record[key]` as an own property, whatever the key: a question may be called `__proto__`,
 * and a plain assignment would then change the record's prototype instead of adding an answer.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `record[key]` only when the record itself holds it, never something inherited (`constructor`, `toString`). */
export function getOwn<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

export class AnswerError extends Error {
  constructor(
    readonly code: 'unknown_question' | 'duplicate_response' | 'unknown_label' | 'duplicate_label' | 'too_many_choices' | 'note_without_answer' | 'empty_answer' | 'unanswered',
    message: string,
  ) {
    super(message);
    this.name = 'AnswerError';
  }
}

export type Annotation = { notes?: string; preview?: string };

/** One answered question, before it is flattened into a string. */
export type Choice = { question: Question; labels: string[]; other: string | null };

export type FormattedAnswers = {
  answers: Record<string, string>;
  annotations: Record<string, Annotation>;
  /** The answered questions in the order asked, for the deny-reason text. */
  choices: Choice[];
};

/** How the answer reaches Claude: `updatedInput` from Claude Code 2.1.85, a deny reason before that. */
export const ANSWER_MODES = ['updatedInput', 'deny-reason'] as const;
export type AnswerMode = (typeof ANSWER_MODES)[number];

/**
 * Check a person's responses against the questions asked and build Claude Code's answers map.
 * Questions without a response (or with an empty one) are left out; at least one must be answered.
 */
export function formatAnswers(questions: readonly Question[], responses: readonly Response[]): FormattedAnswers {
  const byText = new Map(questions.map((question) => [question.question, question]));
  const answered = new Map<string, { value: string; annotation: Annotation; choice: Choice }>();
  const seen = new Set<string>();

  for (const response of responses) {
    const question = byText.get(response.question);
    if (!question) throw new AnswerError('unknown_question', `no question ${quoteText(response.question)} was asked`);
    if (seen.has(response.question)) throw new AnswerError('duplicate_response', `question ${quoteText(response.question)} was answered twice`);
    seen.add(response.question);

    const formatted = formatOne(question, response);
    if (formatted) answered.set(question.question, formatted);
  }
  if (answered.size === 0) throw new AnswerError('empty_answer', 'no question was answered: pick an option or type an answer');

  // Keep the order in which the questions were asked.
  const answers: Record<string, string> = {};
  const annotations: Record<string, Annotation> = {};
  const choices: Choice[] = [];
  for (const question of questions) {
    const entry = answered.get(question.question);
    if (!entry) continue;
    setOwn(answers, question.question, entry.value);
    if (Object.keys(entry.annotation).length > 0) setOwn(annotations, question.question, entry.annotation);
    choices.push(entry.choice);
  }
  return { answers, annotations, choices };
}

/**
 * A person answers every question of a call, on the page and from the CLI alike: Claude reads a
 * question left out as one the user did not answer. (Policies may answer fewer: they say so.)
 */
export function requireEveryQuestion(questions: readonly Question[], formatted: FormattedAnswers): void {
  const missing = questions.flatMap((question, index) => (getOwn(formatted.answers, question.question) === undefined ? [`question ${index + 1} (${shorten(question.header || question.question, 40)})`] : []));
  if (missing.length === 0) return;
  throw new AnswerError('unanswered', `every question needs an answer, as on the page: ${missing.join(' and ')} ${missing.length === 1 ? 'has' : 'have'} none`);
}

function formatOne(question: Question, response: Response): { value: string; annotation: Annotation; choice: Choice } | undefined {
  const labels = question.options.map((option) => option.label);
  const selected = new Set<string>();
  for (const label of response.selected) {
    if (!labels.includes(label)) throw new AnswerError('unknown_label', `${quoteText(label)} is not an option of ${quoteText(question.question)}`);
    if (selected.has(label)) throw new AnswerError('duplicate_label', `${quoteText(label)} was chosen twice`);
    selected.add(label);
  }
  const other = response.other?.trim() ? response.other : null;
  const notes = response.notes?.trim() ? response.notes : null;

  if (!question.multiSelect && selected.size + (other === null ? 0 : 1) > 1) {
    throw new AnswerError('too_many_choices', `${quoteText(question.question)} takes one answer: an option or other text, not both`);
  }
  if (selected.size === 0 && other === null) {
    if (notes !== null) throw new AnswerError('note_without_answer', `${quoteText(question.question)} has a note but no answer`);
    return undefined;
  }

  const chosenLabels = labels.filter((label) => selected.has(label));
  const parts = other === null ? chosenLabels : [...chosenLabels, other];

  const annotation: Annotation = {};
  if (notes !== null) annotation.notes = notes;
  if (!question.multiSelect && other === null) {
    const preview = question.options.find((option) => option.label === parts[0])?.preview;
    if (preview) annotation.preview = preview;
  }
  return { value: parts.join(MULTI_SELECT_SEPARATOR), annotation, choice: { question, labels: chosenLabels, other } };
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

/**
 * The answer as text, for Claude Code before 2.1.85, which can only read a deny reason: one line per
 * question, `Header: label`, `Header: label1, label2`, `Header: Other: text` (the shortened question
 * text stands in for a missing header), a note in parentheses.
 */
export function formatDenyReasonAnswers(formatted: FormattedAnswers): string {
  return formatted.choices
    .map(({ question, labels, other }) => {
      const name = question.header.trim() || shorten(question.question, 60);
      const parts = other === null ? labels : [...labels, `Other: ${other}`];
      const notes = getOwn(formatted.annotations, question.question)?.notes;
      return `${name}: ${parts.join(MULTI_SELECT_SEPARATOR)}${notes ? ` (note: ${notes})` : ''}`.replace(/\r?\n/g, ' ');
    })
    .join('\n');
}

/** The decision for an answer, in the mode the question's configuration asks for. */
export function buildAnswerOutput(mode: AnswerMode, toolInput: Readonly<Record<string, unknown>>, formatted: FormattedAnswers, additionalContext?: string): HookOutput {
  if (mode === 'updatedInput') return buildAllowOutput(toolInput, formatted, additionalContext);
  const output = buildDenyOutput(formatDenyReasonAnswers(formatted));
  if (additionalContext) output.hookSpecificOutput.additionalContext = additionalContext;
  return output;
}

/** The decision that refuses the tool call; Claude receives the reason as an error result. */
/** What Claude is told to do when nobody answers: the end of every decline reason. */
export const PROCEED = 'Do not wait for an answer: proceed with your best judgment, state the assumptions you make, and let the user correct them later.';

/** The reason when a person pressed "Decline" on the page or in the CLI. */
export const PERSON_DECLINE_REASON = `The user declined to answer these questions. ${PROCEED}`;

export function buildDenyOutput(reason: string): HookOutput {
  return {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  };
}

export function shorten(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}
