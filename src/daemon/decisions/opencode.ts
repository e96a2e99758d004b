// opencode's format (its server's question and permission requests, and the replies it takes), the
// one place that knows it: a pending request becomes askbridge's questions or approval, and the
// neutral outcome the core recorded becomes the route and body `askbridge attach opencode` posts.
// Question: the labels chosen per question, in order (`POST /question/{id}/reply {answers}`), with
// typed text only where opencode takes a custom answer; a decline dismisses it (`POST
// /question/{id}/reject`, what opencode's own Esc does). Permission: allow is `once`, allow with
// the one suggestion is `always`, deny is `reject` (with the person's words, which the model reads
// and goes on; without words and with "stop", opencode ends its turn). Anything else is no reply:
// opencode's own prompt stays and decides.
import { z } from 'zod';
import {
  QuestionSchema,
  describeZodError,
  type Approval,
  type OpencodePermissionRequest,
  type OpencodeQuestionRequest,
  type OpencodeReply,
  type Question,
} from '../../protocol.js';
import type { Outcome } from '../asks/store.js';
import { UNATTENDED_DENIAL } from './claude-code-permission.js';

/** What a deny without words tells the model, so that its loop goes on (opencode's own reject without words ends the turn). */
export const OPENCODE_DENIAL = 'Do not run it; ask the user what to do instead.';

/** opencode's questions as askbridge asks them, and which of them take typed text. */
export type MappedQuestions = { questions: Question[]; custom: boolean[] };

/** A request that does not fit askbridge's shape: why, in lines (its own prompt stays in opencode). */
export class UnfitRequest extends Error {
  constructor(
    readonly details: string[],
    lead = "opencode's request does not fit an ask",
  ) {
    super(`${lead}: ${details.join('; ')}`);
    this.name = 'UnfitRequest';
  }
}

const QuestionsSchema = z.array(QuestionSchema).min(1);

/** opencode's questions (`multiple` is a multi-select, `custom` defaults to true) checked as askbridge's; throws UnfitRequest. */
export function mapQuestions(request: OpencodeQuestionRequest): MappedQuestions {
  const mapped = request.questions.map((info) => ({
    question: info.question,
    header: info.header,
    options: info.options.map((option) => ({ label: option.label, description: option.description })),
    multiSelect: info.multiple === true,
  }));
  const checked = QuestionsSchema.safeParse(mapped);
  if (!checked.success) throw new UnfitRequest(describeZodError(checked.error, 'questions'));
  const texts = new Set(checked.data.map((question) => question.question));
  if (texts.size !== checked.data.length) throw new UnfitRequest(['the same question text is asked twice']);
  return { questions: checked.data, custom: request.questions.map((info) => info.custom !== false) };
}

/**
 * opencode's permission as an approval, laid out the way the page shows the tools it knows: `bash`
 * as Bash with its command, `edit` as Edit with its file and diff; any other as its own name, with
 * its patterns and metadata. One suggestion when opencode offers to remember it (`always`).
 */
export function mapPermission(request: OpencodePermissionRequest): { approval: Approval; toolInput: Record<string, unknown> } {
  const { permission, patterns, always, metadata } = request;
  const toolInput = permissionInput(permission, patterns, metadata);
  const toolName = permission === 'bash' ? 'Bash' : permission === 'edit' ? 'Edit' : permission;
  const suggestions = always.length > 0 ? [{ label: `Always allow ${permission}: ${always.join(', ')}` }] : [];
  return { approval: { toolName, toolInput, suggestions }, toolInput };
}

function permissionInput(permission: string, patterns: readonly string[], metadata: Record<string, unknown>): Record<string, unknown> {
  const { command, description, filepath, diff, ...rest } = metadata;
  if (permission === 'bash' && (typeof command === 'string' || patterns.length > 0)) {
    return {
      command: typeof command === 'string' ? command : patterns.join('\n'),
      ...(typeof description === 'string' ? { description } : {}),
      ...rest,
    };
  }
  if (permission === 'edit' && typeof filepath === 'string') {
    return { file_path: filepath, ...(typeof diff === 'string' ? { diff } : {}), ...rest };
  }
  return { patterns: [...patterns], ...metadata };
}

/** opencode's reply for a settled question, or null for none. Throws when the answer is one opencode cannot take. */
export function opencodeQuestionReply(mapped: MappedQuestions, outcome: Outcome): OpencodeReply | null {
  if (outcome.status === 'declined') return { route: 'question.reject' };
  if (outcome.status !== 'answered' || !outcome.answered) return null;
  const byText = new Map(outcome.answered.choices.map((choice) => [choice.question.question, choice]));
  const answers = mapped.questions.map((question, index) => {
    const choice = byText.get(question.question);
    if (!choice) return [];
    if (choice.other !== null && mapped.custom[index] !== true) throw new Error(`opencode takes only its options for "${question.header || 'a question'}", not typed text`);
    return choice.other === null ? [...choice.labels] : [...choice.labels, choice.other];
  });
  return { route: 'question.reply', body: { answers } };
}

/** opencode's reply for a settled permission, or null for none (policies never allow). */
export function opencodePermissionReply(approval: Pick<Approval, 'suggestions'>, outcome: Outcome): OpencodeReply | null {
  const decision = outcome.decision;
  if (outcome.status === 'allowed' && decision?.behavior === 'allow') {
    if (decision.suggestion !== undefined && approval.suggestions[decision.suggestion] === undefined) throw new Error(`no suggestion ${decision.suggestion} was made`);
    return { route: 'permission.reply', body: { reply: decision.suggestion === undefined ? 'once' : 'always' } };
  }
  if (outcome.status === 'denied') {
    if (outcome.source.kind === 'policy') return { route: 'permission.reply', body: { reply: 'reject', message: UNATTENDED_DENIAL } };
    const words = decision?.behavior === 'deny' ? decision.message?.trim() : undefined;
    if (decision?.behavior === 'deny' && decision.interrupt === true) return { route: 'permission.reply', body: { reply: 'reject' } };
    return { route: 'permission.reply', body: { reply: 'reject', message: words || OPENCODE_DENIAL } };
  }
  return null;
}
