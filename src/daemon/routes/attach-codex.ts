// POST /api/attach/codex: `askbridge attach codex` hands over one of Codex's pending questions (its
// app-server's item/tool/requestUserInput). It waits like an http hook: the reply comes once the ask
// is settled (Codex's own answer, or null when its picker should ask), and the connection closing
// withdraws it (Codex settled it itself: the person answered in its TUI, or the turn was
// interrupted; or the attachment stopped). The local token only: whoever relays decides what
// reaches Codex.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AttachCodexReplySchema, AttachCodexRequestSchema, ErrorReplySchema, type CodexUserInputResponse } from '../../protocol.js';
import type { Asked } from '../asks/open-ask.js';
import { codexQuestionsReply, mapCodexQuestions } from '../decisions/codex-questions.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';
import { openOrRefuse } from './open-or-refuse.js';

export const attachCodexRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { store } = context;

  app.post(
    '/api/attach/codex',
    {
      config: { access: 'local' },
      schema: {
        summary: "Relay one of Codex's pending questions (request_user_input); the reply (Codex's own answer, or null) comes once it is settled (closing the connection withdraws it)",
        security: [{ token: [] }],
        body: AttachCodexRequestSchema,
        response: { 200: AttachCodexReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema },
      },
    },
    async (request, reply) => {
      const { request: pending, thread, environment } = request.body;
      const mapping = mapCodexQuestions(pending);
      if (!mapping.ok) throw new HttpError(400, 'unfit_request', `Codex's question cannot be asked here: ${mapping.details.join('; ')}`, mapping.details);
      const { mapped } = mapping;
      const asked: Asked<CodexUserInputResponse> = {
        agent: 'codex',
        sessionId: pending.threadId,
        // Codex asks the same call again after a reconnection: each relay is its own ask.
        toolUseId: `${pending.itemId}-${randomUUID()}`,
        cwd: thread.cwd,
        toolInput: { questions: pending.questions },
        questions: mapped.questions,
        // Typed text only where Codex's picker takes it ("None of the above").
        typedAnswers: mapped.typed,
        environment,
        door: 'relay',
        credential: 'token',
        reply: () => (outcome) => codexQuestionsReply(mapped, outcome),
      };
      const waiter = openOrRefuse(context, request, reply, asked);
      if (!waiter) return reply;
      reply.raw.on('close', () => {
        if (!reply.raw.writableEnded) waiter.leave();
      });
      // The thread's name (or first prompt) is the one context Codex gives; shown once the ask waits, as a hook's is.
      if (thread.title?.trim()) store.setContext(waiter.ask.id, { title: thread.title }, context.desk.limits);
      const [outcome, decision] = await Promise.all([waiter.outcome, waiter.reply]);
      request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, 'question settled');
      const ask = store.get(waiter.ask.id);
      if (!ask) throw new HttpError(500, 'internal', 'the settled ask is gone');
      return reply.send({ ask, reply: decision });
    },
  );
};
