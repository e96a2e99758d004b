// POST /api/one-tap: a button of an ntfy notification answers a simple question. Open to anyone who
// reaches an allowed Host (auth.ts): the capability in the body is the credential (one-tap.ts), good
// for one ask, one option, once. Every capability that does not answer (used, settled, expired,
// altered, never made) gets the same 410, so a caller learns nothing of which; those are counted as
// guesses and rate-limited per address, as pairing codes are. The capability is never logged.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorReplySchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import { ONE_TAP_PATH } from '../one-tap.js';
import type { RouteContext } from './context.js';

export const OneTapRequestSchema = z.strictObject({ capability: z.string().min(1).max(200) }).meta({ title: 'one-tap request' });
const OneTapReplySchema = z.object({ answered: z.literal(true), label: z.string() });

/** Taps that answer nothing, from one address, per minute. */
export const ONE_TAP_GUESSES_PER_MINUTE = 10;

export const oneTapRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { store, decisions, deps }) => {
  const gone = () => new HttpError(410, 'gone', 'this button no longer answers: the question was answered or has ended');

  app.post(
    ONE_TAP_PATH,
    {
      config: {
        access: 'public',
        // Counted after the body is read, so that a live capability is never refused.
        rateLimit: { max: ONE_TAP_GUESSES_PER_MINUTE, timeWindow: 60_000, hook: 'preHandler', allowList: (request) => deps.oneTap?.isLive(OneTapRequestSchema.safeParse(request.body).data?.capability) === true },
      },
      bodyLimit: 1024,
      schema: {
        summary: "Answer a question with the option a notification's button stands for (the body's one-time capability is the credential)",
        body: OneTapRequestSchema,
        response: { 200: OneTapReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema },
      },
    },
    async (request) => {
      const tap = deps.oneTap?.take(request.body.capability);
      const question = tap ? store.get(tap.askId)?.questions[0] : undefined;
      if (!tap || !question) throw gone();
      const result = await decisions.take(tap.askId, { action: 'answer', responses: [{ question: question.question, selected: [tap.label], other: null, notes: null }] }, { client: 'ntfy' });
      if (result.kind === 'failed') {
        request.log.error({ askId: tap.askId, client: 'ntfy', error: result.ask.error }, 'answer accepted, but no decision could be built: the terminal asks');
        throw new HttpError(500, 'decision_failed', 'the answer was not delivered: the question went back to the terminal');
      }
      if (result.kind !== 'answered') throw gone();
      request.log.info({ askId: tap.askId, client: 'ntfy' }, 'question answered');
      return { answered: true as const, label: tap.label };
    },
  );
};
