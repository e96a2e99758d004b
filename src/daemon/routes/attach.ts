// The routes of `askbridge attach <agent>`, a relay of an agent's own server. The local token only:
// whoever relays decides what reaches the agent.
//
// - POST /api/attach/opencode and /api/attach/codex: one pending request of the agent's (for Codex
//   a question, or an MCP server's elicitation: a person responds through POST
//   /api/asks/:id/elicitation), held like an http hook: the reply comes once the ask is settled (the agent's own decision, or null when its
//   own prompt decides). The ask is keyed by the agent's own ids and kept on disk while it waits,
//   and once settled until its decision is delivered (KEEP_UNDELIVERED_MS, store.ts), so the relay
//   comes back for it: after its connection dropped (the relay killed, the daemon restarted) the
//   same request re-attaches, waiting or settled, and a settled one gives back its decision, never
//   a refusal; a dropped relay that does not come back within REATTACH_MS has a waiting ask withdrawn.
// - POST /api/attach/withdraw: the relay lets go of an ask (its agent settled it itself, or the
//   relay stops): withdrawn at once.
// - POST /api/asks/:id/delivery: what became of a decision the relay holds in its outbox: delivered
//   once the agent confirmed it, or undeliverable and why. Until then the ask says "not yet delivered".
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AskReplySchema,
  AttachCodexReplySchema,
  AttachCodexRequestSchema,
  AttachOpencodeReplySchema,
  AttachOpencodeRequestSchema,
  ErrorReplySchema,
  RelayDeliverySchema,
  RelayWithdrawSchema,
} from '../../protocol.js';
import type { Asked } from '../asks/open-ask.js';
import { identityOf } from '../asks/store.js';
import { askedByCodex, askedByOpencode, UnfitRequest } from '../decisions/relayed.js';
import { loadElicitationForms } from '../elicitation-forms.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';
import { openOrRefuse } from './open-or-refuse.js';

const REFUSALS = { '4xx': ErrorReplySchema, '5xx': ErrorReplySchema };

export const attachRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { store } = context;

  /** Opens (or re-attaches to) a relayed ask and holds the request until it is settled. */
  const hold = async <Decision>(request: FastifyRequest, reply: FastifyReply, make: () => Asked<Decision> | Promise<Asked<Decision>>, title: string | undefined) => {
    let asked: Asked<Decision>;
    try {
      asked = await make();
    } catch (error) {
      if (error instanceof UnfitRequest) throw new HttpError(400, 'unfit_request', error.message, error.details);
      throw error;
    }
    const waiter = openOrRefuse(context, request, reply, asked);
    if (!waiter) return reply;
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) waiter.leave();
    });
    // The session's title is the one context the agent gives; shown once the ask waits, as a hook's is.
    if (title?.trim()) store.setContext(waiter.ask.id, { title }, context.desk.limits);
    const [outcome, decision] = await Promise.all([waiter.outcome, waiter.reply]);
    request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, asked.approval ? 'approval settled' : asked.elicitation ? 'elicitation settled' : 'question settled');
    const ask = store.get(waiter.ask.id);
    if (!ask) throw new HttpError(500, 'internal', 'the settled ask is gone');
    return reply.send({ ask, reply: decision });
  };

  app.post(
    '/api/attach/opencode',
    {
      config: { access: 'local' },
      schema: {
        summary: "Relay one of opencode's pending questions or permissions; the reply (opencode's own answer, or null) comes once it is settled",
        security: [{ token: [] }],
        body: AttachOpencodeRequestSchema,
        response: { 200: AttachOpencodeReplySchema, ...REFUSALS },
      },
    },
    async (request, reply) => hold(request, reply, () => askedByOpencode(request.body), request.body.session.title),
  );

  app.post(
    '/api/attach/codex',
    {
      config: { access: 'local' },
      schema: {
        summary: "Relay one of Codex's pending questions (request_user_input) or MCP servers' forms and links (elicitation); the reply (Codex's own answer, or null) comes once it is settled",
        security: [{ token: [] }],
        body: AttachCodexRequestSchema,
        response: { 200: AttachCodexReplySchema, ...REFUSALS },
      },
    },
    async (request, reply) =>
      hold(request, reply, async () => askedByCodex(request.body, request.body.request.kind === 'elicitation' ? await loadElicitationForms() : undefined), request.body.thread.title),
  );

  app.post(
    '/api/attach/withdraw',
    {
      config: { access: 'local' },
      schema: {
        summary: 'A relay lets go of an ask it relayed (its agent settled it itself, or the relay stops): withdrawn at once',
        security: [{ token: [] }],
        body: RelayWithdrawSchema,
        response: { 200: z.object({ withdrawn: z.boolean() }), ...REFUSALS },
      },
    },
    async (request) => {
      const { agent, sessionId, toolUseId, machine } = request.body;
      const withdrawn = store.withdraw(sessionId, toolUseId, identityOf({ door: 'relay', agent, credential: 'token', ...(machine === undefined ? {} : { machine }) }));
      if (withdrawn) request.log.info({ askId: withdrawn.id }, 'relay let go: withdrawn');
      return { withdrawn: withdrawn !== undefined };
    },
  );

  app.post(
    '/api/asks/:id/delivery',
    {
      config: { access: 'local' },
      schema: {
        summary: "A relay says what became of an ask's decision: delivered once its agent confirmed it, or undeliverable and why",
        security: [{ token: [] }],
        params: z.object({ id: z.string().max(100) }),
        body: RelayDeliverySchema,
        response: { 200: AskReplySchema, ...REFUSALS },
      },
    },
    async (request) => {
      const asker = store.askerOf(request.params.id);
      const ask = asker?.transport === 'relay' ? store.deliveryReported(request.params.id, asker, request.body) : undefined;
      if (!ask) throw new HttpError(404, 'not_found', 'no relayed decision waits to be delivered with this id');
      request.log.info({ askId: ask.id, delivery: ask.delivery }, ask.delivery === 'delivered' ? 'relayed decision delivered' : 'relayed decision cannot be delivered');
      return { ask };
    },
  );
};
