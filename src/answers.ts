// Pure: a person's (or a policy's) responses, checked against the questions asked, as a neutral
// result: per question the labels chosen (in option order), free text and a note, and the answer
// text as pages, history and askers read it. No client's reply format here: decisions/ turns this
// into what each client expects. No I/O.
import { MULTI_SELECT_SEPARATOR, quoteText, type Question, type Response } from './protocol.js';
import { shorten } from './shorten.js';

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
    readonly code:
      | 'unknown_question'
      | 'duplicate_response'
      | 'unknown_label'
      | 'duplicate_label'
      | 'too_many_choices'
      | 'note_without_answer'
      | 'empty_answer'
      | 'unanswered'
      /** An approval is decided (allowed or denied), not answered. */
      | 'not_a_question'
      /** A question is answered, not allowed or denied. */
      | 'not_an_approval'
      | 'not_a_turn_end'
      /** A decision names a suggestion Claude Code did not make. */
      | 'unknown_suggestion'
      /** Feedback on a plan says what to change: it cannot be empty. */
      | 'empty_feedback'
      /** An agent stops its turn only on a denial without words. */
      | 'message_with_stop'
      /** Typed text ("Other") for a question whose asker takes only its options. */
      | 'typed_text_not_taken'
      /** A note for an asker that takes none. */
      | 'notes_not_taken'
      /** An allow from a channel that showed what would run cut short. */
      | 'not_shown_whole'
      /** A stop for an agent that cannot stop its turn. */
      | 'interrupt_unsupported'
      | 'not_grantable'
      | 'grant_with_suggestion'
      /** An allow of a risky approval without the person's confirmation (one tap never allows one). */
      | 'risky_unconfirmed'
      /** An "always allow" suggestion taken on a risky approval, which is allowed once only. */
      | 'risky_once'
      | 'two_people_required'
      | 'two_people_allow_once'
      /** An elicitation is responded to (accepted, declined or cancelled), not answered or decided. */
      | 'not_an_elicitation'
      /** Values sent with the accept of a URL request, which takes none. */
      | 'content_not_taken',
    message: string,
  ) {
    super(message);
    this.name = 'AnswerError';
  }
}

/** One answered question: the labels chosen, in the order the options were offered, free text, a note. */
export type Choice = { question: Question; labels: string[]; other: string | null; notes: string | null };

export type Answered = {
  /** Each answered question's text -> its answer: the labels and free text joined with ", ". */
  answers: Record<string, string>;
  /** Each question with a note -> the note. */
  notes: Record<string, string>;
  /** The answered questions in the order asked. */
  choices: Choice[];
};

/**
 * Check responses against the questions asked. Questions without a response (or with an empty one)
 * are left out; at least one must be answered.
 */
export function formatAnswers(questions: readonly Question[], responses: readonly Response[]): Answered {
  const byText = new Map(questions.map((question) => [question.question, question]));
  const answered = new Map<string, Choice>();
  const seen = new Set<string>();

  for (const response of responses) {
    const question = byText.get(response.question);
    if (!question) throw new AnswerError('unknown_question', `no question ${quoteText(response.question)} was asked`);
    if (seen.has(response.question)) throw new AnswerError('duplicate_response', `question ${quoteText(response.question)} was answered twice`);
    seen.add(response.question);

    const choice = choiceOf(question, response);
    if (choice) answered.set(question.question, choice);
  }
  if (answered.size === 0) throw new AnswerError('empty_answer', 'no question was answered: pick an option or type an answer');

  // Keep the order in which the questions were asked.
  const answers: Record<string, string> = {};
  const notes: Record<string, string> = {};
  const choices: Choice[] = [];
  for (const question of questions) {
    const choice = answered.get(question.question);
    if (!choice) continue;
    setOwn(answers, question.question, answerText(choice));
    if (choice.notes !== null) setOwn(notes, question.question, choice.notes);
    choices.push(choice);
  }
  return { answers, notes, choices };
}

/**
 * One question's answer as text, as Claude Code's own dialog gives it: the chosen labels in option
 * order, then free text, joined with ", " (a single-select answer is one of them).
 */
export function answerText(choice: Pick<Choice, 'labels' | 'other'>): string {
  return (choice.other === null ? choice.labels : [...choice.labels, choice.other]).join(MULTI_SELECT_SEPARATOR);
}

/**
 * A person answers every question of an ask, on the page and from the CLI alike: Claude reads a
 * question left out as one the user did not answer. (Policies may answer fewer: they say so.)
 */
export function requireEveryQuestion(questions: readonly Question[], answered: Answered): void {
  const missing = questions.flatMap((question, index) => (getOwn(answered.answers, question.question) === undefined ? [`question ${index + 1} (${shorten(question.header || question.question, 40)})`] : []));
  if (missing.length === 0) return;
  throw new AnswerError('unanswered', `every question needs an answer, as on the page: ${missing.join(' and ')} ${missing.length === 1 ? 'has' : 'have'} none`);
}

function choiceOf(question: Question, response: Response): Choice | undefined {
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
  return { question, labels: labels.filter((label) => selected.has(label)), other, notes };
}
