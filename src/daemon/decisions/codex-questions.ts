// Codex CLI's request_user_input, as its app-server asks a client (item/tool/requestUserInput,
// protocol.md 7), and the answer it takes: the one place that knows that format. A request becomes
// askbridge's questions (Codex has no multi-select; its ids are kept to answer by), and the neutral
// outcome the core recorded becomes the JSON-RPC result `askbridge attach codex` sends back, which
// the model reads as it is. It is written as Codex's own picker writes it: per question id the label
// chosen, then each note as `user_note: <text>`; typed text is the picker's "None of the above" with
// the text as its note. A decline answers no option, and a note that tells the model to go on.
// Anything else is no answer (null): Codex's own picker stays and asks. A request whose answer could
// not be given this way (a secret answer, a question without options) is not asked here at all; a
// question that takes only its options is asked with no typed answer offered (choices.ts).
import { z } from 'zod';
import { setOwn, type Choice } from '../../answers.js';
import { LIMITS, QuestionSchema, describeZodError, type CodexUserInputRequest, type CodexUserInputResponse, type Question } from '../../protocol.js';
import { policyChooser, policyReason } from '../../settlement.js';
import type { Outcome } from '../asks/store.js';

/** The option Codex's picker adds for typed text, and sends as the answer's label (observed on 0.169.0). */
export const CODEX_OTHER_LABEL = 'None of the above';
/** How Codex's picker sends a note (and typed text): one more answer after the label. */
export const CODEX_NOTE_PREFIX = 'user_note: ';

/** What the model is told when nobody answers: the end of each decline's note. */
const GO_ON = 'Do not wait for an answer: go on with your best judgment, say which assumptions you make, and let the user correct them later.';

/** Codex's questions as askbridge asks them, the id Codex answers each by, and which take typed text (its picker's "None of the above"). */
export type MappedCodexQuestions = { questions: Question[]; ids: string[]; typed: boolean[] };

export type CodexMapping = { ok: true; mapped: MappedCodexQuestions } | { ok: false; details: string[] };

const QuestionsSchema = z.array(QuestionSchema).min(LIMITS.questions.min).max(LIMITS.questions.max);

/** Codex's request as askbridge's questions, or why it cannot be asked here (one line per problem). */
export function mapCodexQuestions(request: CodexUserInputRequest): CodexMapping {
  const details = request.questions.flatMap((info, index) => {
    const name = `questions.${index}`;
    if (info.isSecret) return [`${name}: its answer is secret, typed only in Codex's terminal`];
    if (!info.options || info.options.length === 0) return [`${name}: it has no options, only typed text`];
    return [];
  });
  if (details.length > 0) return { ok: false, details };
  const ids = request.questions.map((info) => info.id);
  if (new Set(ids).size !== ids.length) return { ok: false, details: ['two questions have the same id'] };
  const checked = QuestionsSchema.safeParse(
    request.questions.map((info) => ({
      question: info.question,
      header: info.header,
      options: (info.options ?? []).map((option) => ({ label: option.label, description: option.description })),
      multiSelect: false,
    })),
  );
  if (!checked.success) return { ok: false, details: describeZodError(checked.error, 'questions') };
  if (new Set(checked.data.map((question) => question.question)).size !== checked.data.length) return { ok: false, details: ['the same question text is asked twice'] };
  return { ok: true, mapped: { questions: checked.data, ids, typed: request.questions.map((info) => info.isOther) } };
}

/** Codex's answer for a settled ask, or null for none (its own picker stays). */
export function codexQuestionsReply(mapped: MappedCodexQuestions, outcome: Outcome): CodexUserInputResponse | null {
  const { source } = outcome;
  if (outcome.status === 'declined') {
    const reason = source.kind === 'policy' ? `Nobody is available to answer these questions right now (${policyReason(source.trigger)}). ${GO_ON}` : `The user declined to answer these questions. ${GO_ON}`;
    return answersById(mapped, () => [note(reason)]);
  }
  if (outcome.status !== 'answered' || !outcome.answered) return null;
  const byText = new Map(outcome.answered.choices.map((choice) => [choice.question.question, choice]));
  const policyNote = source.kind === 'policy' ? note(`No person answered this question: askbridge's configuration chose it (${policyChooser(source)}) because ${policyReason(source.trigger)}. Treat it as a default, and tell the user which one you went with.`) : undefined;
  return answersById(mapped, (question) => {
    const choice = byText.get(question.question);
    if (!choice) return [];
    return [...pickerAnswers(choice), ...(policyNote ? [policyNote] : [])];
  });
}

/** One question's answers as Codex's picker gives them: the label, or "None of the above" and the typed text; then the note. */
function pickerAnswers({ labels, other, notes }: Choice): string[] {
  const chosen = other === null ? [...labels] : [...labels, CODEX_OTHER_LABEL, note(other)];
  return notes === null ? chosen : [...chosen, note(notes)];
}

function note(text: string): string {
  return `${CODEX_NOTE_PREFIX}${text}`;
}

function answersById(mapped: MappedCodexQuestions, answersOf: (question: Question) => string[]): CodexUserInputResponse {
  const answers: CodexUserInputResponse['answers'] = {};
  for (const [index, question] of mapped.questions.entries()) setOwn(answers, mapped.ids[index]!, { answers: answersOf(question) });
  return { answers };
}
