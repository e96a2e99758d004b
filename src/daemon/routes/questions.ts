// The questions as pages and the CLI see them, and the one way to answer them.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AnswerRequestSchema } from '../../protocol.js';
import { ANSWER_BODY_LIMIT_BYTES } from '../limits.js';
import type { RouteContext } from './context.js';
import { HttpError, parseOr400 } from '../errors.js';
import type { AnswerResult } from '../store.js';

const IdParamsSchema = z.object({ id: z.string().uuid() });

export async function questionRoutes(app: FastifyInstance, { store }: RouteContext) {
  app.get('/api/questions', { config: { access: 'page-or-local' } }, async () => ({ questions: store.pending() }));

  app.get('/api/questions/:id', { config: { access: 'page-or-local' } }, async (request) => {
    const { id } = parseOr400(IdParamsSchema, request.params, 'question id');
    const question = store.get(id);
    if (!question) throw new HttpError(404, 'not_found', 'no such question (it may have finished long ago)');
    return { question };
  });

  app.post('/api/questions/:id/answer', { config: { access: 'page-or-local' }, bodyLimit: ANSWER_BODY_LIMIT_BYTES }, async (request, reply) => {
    const { id } = parseOr400(IdParamsSchema, request.params, 'question id');
    const body = parseOr400(AnswerRequestSchema, request.body, 'answer');
    const client = request.principal.kind === 'page' ? 'page' : 'cli';
    const result = store.answer(id, body.responses, client);
    if (result.kind === 'answered') request.log.info({ questionId: id, client }, 'question answered');
    if (result.kind === 'failed') request.log.error({ questionId: id, client, error: result.question.error }, 'answer accepted, but no decision could be built: the terminal asks');
    return sendAnswerResult(reply, result);
  });

  // A person hands the question back to the terminal, or declines it, without choosing an answer.
  app.post('/api/questions/:id/terminal', { config: { access: 'page-or-local' }, bodyLimit: 1024 }, async (request, reply) => {
    const { id } = parseOr400(IdParamsSchema, request.params, 'question id');
    const client = request.principal.kind === 'page' ? 'page' : 'cli';
    return sendAnswerResult(reply, store.handToTerminal(id, client));
  });

  app.post('/api/questions/:id/decline', { config: { access: 'page-or-local' }, bodyLimit: 1024 }, async (request, reply) => {
    const { id } = parseOr400(IdParamsSchema, request.params, 'question id');
    const client = request.principal.kind === 'page' ? 'page' : 'cli';
    return sendAnswerResult(reply, store.decline(id, client));
  });
}

/** The one mapping of a store result to HTTP: 200, 404, 409 with the winner, 400, or 500 when the decision failed. */
export function sendAnswerResult(reply: import('fastify').FastifyReply, result: AnswerResult) {
  switch (result.kind) {
    case 'answered':
      return reply.code(200).send({ question: result.question });
    case 'not_found':
      throw new HttpError(404, 'not_found', 'no such question (it may have finished long ago)');
    case 'already_resolved':
      return reply.code(409).send({
        error: { code: 'already_resolved', message: `this question was already ${result.question.status}` },
        question: result.question,
      });
    case 'invalid':
      throw new HttpError(400, result.error.code, result.error.message);
    case 'failed':
      throw new HttpError(
        500,
        'decision_failed',
        `the answer was not delivered: ${result.question.error ?? 'the decision for Claude Code could not be built'}. The question went back to the terminal: answer it there.`,
      );
  }
}
