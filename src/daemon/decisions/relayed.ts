// A relay's request (`askbridge attach opencode|codex`) as an ask, in the one way both the routes
// that receive it and a restarted daemon that reads it back from disk make it. An ask is keyed by
// the agent's own ids (opencode's session and request; Codex's thread and item, or for an MCP
// server's elicitation its request: codex-elicitation-key.ts), so the same request relayed again,
// after the relay or the daemon restarted, finds its ask. The body is kept with the ask
// (NewAsk.relayed) while it waits. Throws UnfitRequest for a request that does not fit.
import type { z } from 'zod';
import { AttachCodexRequestSchema, AttachOpencodeRequestSchema, type CodexElicitationResponse, type CodexUserInputResponse, type OpencodeReply } from '../../protocol.js';
import type { Asked } from '../asks/open-ask.js';
import { readElicitation, type ElicitationForms } from '../elicitation-forms.js';
import { codexElicitationKey } from '../../codex-elicitation-key.js';
import { codexElicitationReply } from './codex-elicitation.js';
import { codexQuestionsReply, mapCodexQuestions } from './codex-questions.js';
import { mapPermission, mapQuestions, opencodePermissionReply, opencodeQuestionReply, UnfitRequest } from './opencode.js';

export { UnfitRequest };

export type RelayedOpencode = z.output<typeof AttachOpencodeRequestSchema>;
export type RelayedCodex = z.output<typeof AttachCodexRequestSchema>;

/** opencode's request as an ask of its session, answered in opencode's format. */
export function askedByOpencode(body: RelayedOpencode): Asked<OpencodeReply> {
  const { request: pending, session, machine, environment } = body;
  const common = { agent: 'opencode', cwd: session.directory, environment, door: 'relay', credential: 'token', relayed: body, ...(machine === undefined ? {} : { machine }) } as const;
  if (pending.kind === 'question') {
    const { question } = pending;
    const mapped = mapQuestions(question);
    const reply: Asked<OpencodeReply>['reply'] = () => (outcome) => opencodeQuestionReply(mapped, outcome);
    // Typed text only where opencode takes a custom answer: every channel offers exactly that.
    return { ...common, sessionId: question.sessionID, toolUseId: question.id, toolInput: { questions: question.questions }, questions: mapped.questions, typedAnswers: mapped.custom, reply };
  }
  const { permission } = pending;
  const { approval, toolInput } = mapPermission(permission);
  const reply: Asked<OpencodeReply>['reply'] = () => (outcome) => opencodePermissionReply(approval, outcome);
  return { ...common, sessionId: permission.sessionID, toolUseId: permission.id, toolInput, questions: [], approval, reply };
}

/**
 * Codex's request as an ask of its thread, answered in Codex's format: a requestUserInput, or an MCP
 * server's elicitation (read with `forms`, elicitation-forms.ts: the caller loads it for one).
 */
export function askedByCodex(body: RelayedCodex, forms: ElicitationForms | undefined): Asked<CodexUserInputResponse | CodexElicitationResponse> {
  const { request: pending, thread, environment } = body;
  const common = { agent: 'codex', cwd: thread.cwd, environment, door: 'relay', credential: 'token', relayed: body } as const;
  if (pending.kind === 'elicitation') {
    const { requestId, elicitation: request } = pending;
    if (!forms) throw new Error("an elicitation's forms were not loaded");
    const read = readElicitation({ server: request.serverName, message: request.message, mode: request.mode, requestedSchema: request.requestedSchema, url: request.url, elicitationId: request.elicitationId }, forms);
    if ('refused' in read) throw new UnfitRequest([read.refused], "the MCP server's request cannot be shown here");
    return { ...common, sessionId: request.threadId, toolUseId: codexElicitationKey(requestId, request), toolInput: {}, questions: [], elicitation: read.elicitation, reply: () => codexElicitationReply };
  }
  const { question } = pending;
  const mapping = mapCodexQuestions(question);
  if (!mapping.ok) throw new UnfitRequest(mapping.details, "Codex's question cannot be asked here");
  const { mapped } = mapping;
  return {
    ...common,
    sessionId: question.threadId,
    toolUseId: question.itemId,
    toolInput: { questions: question.questions },
    questions: mapped.questions,
    // Typed text only where Codex's picker takes it ("None of the above").
    typedAnswers: mapped.typed,
    reply: () => (outcome) => codexQuestionsReply(mapped, outcome),
  };
}

/** A relay's request kept on disk, as an ask again; undefined when it no longer reads as one. */
export function askedFromDisk(agent: string | undefined, relayed: unknown, forms: ElicitationForms | undefined): Asked | undefined {
  try {
    if (agent === 'opencode') {
      const body = AttachOpencodeRequestSchema.safeParse(relayed);
      return body.success ? askedByOpencode(body.data) : undefined;
    }
    if (agent === 'codex') {
      const body = AttachCodexRequestSchema.safeParse(relayed);
      return body.success ? askedByCodex(body.data, forms) : undefined;
    }
  } catch (error) {
    if (error instanceof UnfitRequest) return undefined;
    throw error;
  }
  return undefined;
}
