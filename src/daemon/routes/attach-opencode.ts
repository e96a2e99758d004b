// POST /api/attach/opencode: `askbridge attach opencode` hands over one pending question or
// permission of opencode's server. It waits like an http hook: the reply comes once the ask is
// settled (opencode's route and body, or null when its own prompt decides), and the connection
// closing withdraws it (opencode was answered in its own TUI, or the attach stopped). The local
// token only: whoever relays decides what reaches opencode.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { AttachOpencodeReplySchema, AttachOpencodeRequestSchema, ErrorReplySchema, type OpencodeReply } from '../../protocol.js';
import type { Asked } from '../asks/open-ask.js';
import { mapPermission, mapQuestions, opencodePermissionReply, opencodeQuestionReply, UnfitRequest } from '../decisions/opencode.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';
import { openOrRefuse } from './open-or-refuse.js';

export const attachOpencodeRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { store } = context;

  app.post(
    '/api/attach/opencode',
    {
      config: { access: 'local' },
      schema: {
        summary: "Relay one of opencode's pending questions or permissions; the reply (opencode's own answer, or null) comes once it is settled (closing the connection withdraws it)",
        security: [{ token: [] }],
        body: AttachOpencodeRequestSchema,
        response: { 200: AttachOpencodeReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema },
      },
    },
    async (request, reply) => {
      const { request: pending, session, environment } = request.body;
      const asked = askedByOpencode(pending, session.directory, environment);
      const waiter = openOrRefuse(context, request, reply, asked);
      if (!waiter) return reply;
      reply.raw.on('close', () => {
        if (!reply.raw.writableEnded) waiter.leave();
      });
      // opencode's session title is the one context it gives; shown once the ask waits, as a hook's is.
      if (session.title?.trim()) store.setContext(waiter.ask.id, { title: session.title }, context.desk.limits);
      const [outcome, decision] = await Promise.all([waiter.outcome, waiter.reply]);
      request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, pending.kind === 'permission' ? 'approval settled' : 'question settled');
      const ask = store.get(waiter.ask.id);
      if (!ask) throw new HttpError(500, 'internal', 'the settled ask is gone');
      return reply.send({ ask, reply: decision });
    },
  );
};

type Pending = z.output<typeof AttachOpencodeRequestSchema>['request'];

/** opencode's request as an ask of its session, answered in opencode's format; 400 when it does not fit. */
function askedByOpencode(pending: Pending, cwd: string, environment: Asked['environment']): Asked<OpencodeReply> {
  const common = { agent: 'opencode', cwd, environment, door: 'relay', credential: 'token' } as const;
  try {
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
  } catch (error) {
    if (error instanceof UnfitRequest) throw new HttpError(400, 'unfit_request', error.message, error.details);
    throw error;
  }
}
