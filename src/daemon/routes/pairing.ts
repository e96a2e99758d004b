// Pairing a browser: a local program asks for a one-time link; the page trades its code for a
// cookie (HttpOnly) and a key (which the page keeps in its own origin's storage). Guesses are
// rate-limited: codes are long enough that guessing is hopeless, and this keeps it so. A live code
// is not a guess and never counts, so opening many pages at once is never refused.
import type { FastifyInstance } from 'fastify';
import { PairRequestSchema } from '../../protocol.js';
import type { RouteContext } from './context.js';
import { HttpError, parseOr400 } from '../errors.js';

/** Attempts to pair with a code that is not live, from anyone, per minute. */
export const PAIRING_GUESSES_PER_MINUTE = 10;

export async function pairingRoutes(app: FastifyInstance, { auth }: RouteContext) {
  app.post('/api/pairings', { config: { access: 'local' } }, async () => ({ code: auth.createPairingCode() }));

  app.post(
    '/api/pair',
    {
      config: {
        access: 'public',
        // Counted after the body is read, so that a live code can be let through.
        rateLimit: { max: PAIRING_GUESSES_PER_MINUTE, timeWindow: 60_000, hook: 'preHandler', allowList: (request) => auth.isLivePairingCode(PairRequestSchema.safeParse(request.body).data?.code) },
      },
      bodyLimit: 1024,
    },
    async (request, reply) => {
      const { code } = parseOr400(PairRequestSchema, request.body, 'pairing request');
      const result = auth.pair(code);
      if (result.kind === 'bad_code') throw new HttpError(401, 'bad_pairing_code', 'this link was already used or has expired: run `askbridge open` for a new one');
      if (result.kind === 'not_saved') throw new HttpError(503, 'pairing_not_saved', `the pairing could not be saved (${result.reason}): the link still works, try again once the disk has room`);
      const { page } = result;
      reply.header('set-cookie', `${auth.cookieName()}=${page.cookie}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${page.maxAgeSeconds}`);
      request.log.info('page paired');
      return { paired: true, key: page.key };
    },
  );

  /** Lets the page tell "not paired" apart from "daemon down" before it opens the WebSocket. */
  app.get('/api/session', { config: { access: 'page' } }, async () => ({ paired: true }));
}
