// The person's live grants (grants.ts), as the page's strip, `askbridge grants` and Telegram list
// them, and their revoke. A page sees and revokes only its own person's (another's is 404, as one
// that ended); the CLI every one. Only a paired page or the CLI's token: the hook key, a relay and a script
// asking with it can neither see nor end them, and nothing here makes one (a grant is made only with
// a person's allow, POST /api/asks/:id/decide).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorReplySchema, GrantsReplySchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';
import { viewerOfRequest } from './decider.js';

const GrantParamsSchema = z.object({ id: z.union([z.string().regex(/^[0-9a-f]{8}$/, { message: 'not a grant id' }), z.literal('all')]) }).meta({ title: 'grant id, or all' });

export const grantRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { deps }) => {
  app.get(
    '/api/grants',
    { config: { access: 'page-or-local' }, schema: { summary: 'The live grants, oldest first', response: { 200: GrantsReplySchema, '4xx': ErrorReplySchema } } },
    async (request) => ({ grants: deps.grants?.live(viewerOfRequest(request)) ?? [] }),
  );

  app.post(
    '/api/grants/:id/revoke',
    {
      config: { access: 'page-or-local' },
      bodyLimit: 1024,
      schema: { summary: 'End a grant now, or every one (`all`): the requests it covered get a card again', params: GrantParamsSchema, response: { 200: GrantsReplySchema, '4xx': ErrorReplySchema } },
    },
    async (request) => {
      const ended = deps.grants?.revoke(request.params.id, viewerOfRequest(request)) ?? [];
      if (ended.length === 0 && request.params.id !== 'all') throw new HttpError(404, 'not_found', 'no live grant with this id (it ended, or was revoked)');
      return { grants: ended };
    },
  );
};
