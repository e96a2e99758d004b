// Pairing a browser: a local program asks for a one-time link; the page trades its code for a cookie.
import type { FastifyInstance } from 'fastify';
import { PairRequestSchema } from '../../protocol.js';
import type { RouteContext } from '../app.js';
import { parseOr400 } from '../errors.js';

export async function pairingRoutes(app: FastifyInstance, { auth }: RouteContext) {
  app.post('/api/pairings', { config: { access: 'local' } }, async () => ({ code: auth.createPairingCode() }));

  app.post('/api/pair', { config: { access: 'public' }, bodyLimit: 1024 }, async (request, reply) => {
    const { code } = parseOr400(PairRequestSchema, request.body, 'pairing request');
    auth.pair(code, reply);
    request.log.info('page paired');
    return { paired: true };
  });

  /** Lets the page tell "not paired" apart from "daemon down" before it opens the WebSocket. */
  app.get('/api/session', { config: { access: 'page' } }, async () => ({ paired: true }));
}
