// /api/asks: the asks as pages and the CLI see them, the one way to answer them, more time for a
// person who is answering one, and POST /api/asks, through which scripts and agents ask. Such an ask
// waits like an http hook: the reply comes once it is settled, and the connection closing withdraws it.
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { agentOfMcpClient } from '../../agents.js';
import { ANSWER_CLIENT_HEADER, AnswerRequestSchema, ApprovalDecisionSchema, AskReplySchema, ElicitationResponseSchema, AskRequestSchema, AsksReplySchema, ErrorReplySchema, TooLateReplySchema, type AskView } from '../../protocol.js';
import { ANSWER_BODY_LIMIT_BYTES, EXTEND_STEP_MS } from '../limits.js';
import type { RouteContext } from './context.js';
import { HttpError } from '../errors.js';
import type { DecisionResult } from '../asks/person-decisions.js';
import { machineOf, personOf, requireHookKey } from './hook-key.js';
import { openOrRefuse } from './open-or-refuse.js';
import { HOOK_KEY_HEADER } from '../../http-hook.js';
import { deciderOf, viewerOfRequest } from './decider.js';
import { isRoutedTo } from '../../route-access.js';

const IdParamsSchema = z.object({ id: z.uuid() }).meta({ title: 'ask id' });

/** Asking for more time says nothing else: no body (which fastify hands over as null), or `{}`. */
const ExtendRequestSchema = z.strictObject({}).nullable().meta({ title: 'extend request', description: 'Nothing: send no body, or {}' });

/** What answering, declining or handing back can end in. */
const SETTLE_REPLIES = { 200: AskReplySchema, 409: TooLateReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema };

export const asksRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { store } = context;

  app.get(
    '/api/asks',
    { config: { access: 'page-or-local' }, schema: { summary: 'The asks waiting for an answer, oldest first; and those answered whose decision has not reached their agent yet', response: { 200: AsksReplySchema, '4xx': ErrorReplySchema } } },
    // Never too large to send: what may wait is bounded in bytes (limits.ts WAITING_BYTES), and this is its views.
    async (request) => {
      const viewer = viewerOfRequest(request);
      const undelivered = store.undelivered().filter((ask) => isRoutedTo(ask, viewer));
      return { asks: store.pending().filter((ask) => isRoutedTo(ask, viewer)), ...(undelivered.length === 0 ? {} : { undelivered }) };
    },
  );

  app.get(
    '/api/asks/:id',
    { config: { access: 'page-or-local' }, schema: { summary: 'One ask, waiting or settled', params: IdParamsSchema, response: { 200: AskReplySchema, '4xx': ErrorReplySchema } } },
    async (request) => {
      const ask = store.get(request.params.id);
      // One routed to other people is not there for this page, as the store says to its decisions.
      if (!ask || !isRoutedTo(ask, viewerOfRequest(request))) throw notFound();
      return { ask };
    },
  );

  app.post(
    '/api/asks',
    {
      config: { access: 'hook' },
      // The token (a local program) or the hook key (which may only ask), before the body is read.
      preValidation: async (request) => {
        const token = context.auth.isLocalToken(request.headers.authorization);
        if (token === true) return;
        if (token === false) throw new HttpError(401, 'bad_token', 'invalid token');
        if (request.headers[HOOK_KEY_HEADER] === undefined) throw new HttpError(401, 'unauthorized', `ask with the local token (Authorization: Bearer) or the hook key (${HOOK_KEY_HEADER})`);
        requireHookKey(request, context.deps);
      },
      schema: {
        summary: 'Ask a person, from a script or an agent; the reply comes once the ask is settled (closing the connection withdraws it)',
        security: [{ token: [] }, { hookKey: [] }],
        body: AskRequestSchema,
        response: { 200: AskReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema },
      },
    },
    async (request, reply) => {
      const { questions, asker, cwd, waitSeconds, environment } = request.body;
      // Whoever holds only the hook key asks as that credential, from the machine it names: its
      // asks count with the hook key's other askers.
      const byToken = context.auth.isLocalToken(request.headers.authorization) === true;
      const machine = byToken ? undefined : machineOf(request);
      // Whose session it is, only as a remote machine's credential says it: it names, never authorises.
      const person = byToken ? undefined : personOf(request);
      // An MCP client that is an agent askbridge knows (Gemini CLI) asks under its own name.
      const agent = asker.kind === 'mcp' ? agentOfMcpClient(asker.name) : undefined;
      const waiter = openOrRefuse(context, request, reply, {
        sessionId: `${asker.kind}:${asker.name}`,
        toolUseId: randomUUID(),
        cwd,
        toolInput: { questions },
        questions,
        environment,
        door: 'ask',
        credential: byToken ? 'token' : 'hook-key',
        asker,
        ...(agent ? { agent } : {}),
        ...(machine ? { machine } : {}),
        ...(person ? { person } : {}),
        ...(waitSeconds === undefined ? {} : { waitSeconds }),
      });
      if (!waiter) return reply;
      reply.raw.on('close', () => {
        if (!reply.raw.writableEnded) waiter.leave();
      });
      const outcome = await waiter.outcome;
      request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, 'question settled');
      const ask = store.get(waiter.ask.id);
      if (!ask) throw new HttpError(500, 'internal', 'the settled question is gone');
      return reply.send({ ask });
    },
  );

  app.post(
    '/api/asks/:id/answer',
    {
      config: { access: 'page-or-local' },
      bodyLimit: ANSWER_BODY_LIMIT_BYTES,
      schema: { summary: 'Answer every question of it, as a person', params: IdParamsSchema, body: AnswerRequestSchema, response: SETTLE_REPLIES },
    },
    async (request, reply) => {
      const { id } = request.params;
      const by = deciderOf(request, context.auth, request.headers[ANSWER_CLIENT_HEADER] === 'notification' ? 'notification' : 'page');
      const result = await context.decisions.take(id, { action: 'answer', responses: request.body.responses }, by);
      if (result.kind === 'answered') request.log.info({ askId: id, client: by.client, person: by.person }, 'question answered');
      if (result.kind === 'failed') request.log.error({ askId: id, client: by.client, error: result.ask.error }, 'answer accepted, but no decision could be built: the terminal asks');
      return sendResult(reply, result);
    },
  );

  // Allowing is running code: only a paired page or the CLI's token decides (the hook key can only ask).
  app.post(
    '/api/asks/:id/decide',
    {
      config: { access: 'page-or-local' },
      bodyLimit: ANSWER_BODY_LIMIT_BYTES,
      schema: {
        summary: "Allow or deny a permission an agent asks for (or approve a plan, or say what to change in it), as a person; only what the ask's choices offer (a stop where its agent can stop)",
        params: IdParamsSchema,
        body: ApprovalDecisionSchema,
        response: SETTLE_REPLIES,
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const by = deciderOf(request, context.auth);
      const result = await context.decisions.take(id, { action: 'decide', decision: request.body }, by);
      if (result.kind === 'answered') request.log.info({ askId: id, client: by.client, person: by.person, behavior: request.body.behavior }, 'approval decided');
      if (result.kind === 'allowed_once') request.log.info({ askId: id, client: by.client, person: by.person }, 'one of two people allowed an approval');
      if (result.kind === 'failed') request.log.error({ askId: id, client: by.client, error: result.ask.error }, 'decision accepted, but none could be built: the terminal decides');
      return sendResult(reply, result);
    },
  );

  // Like allowing, what an MCP server receives comes only from a paired page or the CLI's token (the hook key can only ask).
  app.post(
    '/api/asks/:id/elicitation',
    {
      config: { access: 'page-or-local' },
      bodyLimit: ANSWER_BODY_LIMIT_BYTES,
      schema: {
        summary: "Respond to an MCP server's request for input, as a person: accept (a form's values, checked against its form; a URL's accept has none), decline or cancel",
        params: IdParamsSchema,
        body: ElicitationResponseSchema,
        response: SETTLE_REPLIES,
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const by = deciderOf(request, context.auth);
      const result = await context.decisions.take(id, { action: 'elicitation', response: request.body }, by);
      if (result.kind === 'answered') request.log.info({ askId: id, client: by.client, person: by.person, action: request.body.action }, 'elicitation responded to');
      if (result.kind === 'failed') request.log.error({ askId: id, client: by.client, error: result.ask.error }, "response accepted, but none could be built: Claude Code's own dialog asks");
      return sendResult(reply, result);
    },
  );

  // A person hands the ask back to the terminal, or declines it, without choosing an answer.
  app.post(
    '/api/asks/:id/terminal',
    { config: { access: 'page-or-local' }, bodyLimit: 1024, schema: { summary: "Hand it back to Claude Code's own dialog in the terminal", params: IdParamsSchema, response: SETTLE_REPLIES } },
    async (request, reply) => sendResult(reply, await context.decisions.take(request.params.id, { action: 'terminal' }, deciderOf(request, context.auth))),
  );

  // The page (or the terminal) asks while a person is typing and the deadline is near: the policy
  // never overrides someone in the middle of answering, up to what the asker can wait.
  app.post(
    '/api/asks/:id/extend',
    {
      config: { access: 'page-or-local' },
      bodyLimit: 1024,
      schema: {
        summary: `More time for a person who is answering: expiresAt moves to ${EXTEND_STEP_MS / 60_000} minutes from now, never past extendableUntil (unchanged at the limit)`,
        params: IdParamsSchema,
        body: ExtendRequestSchema,
        response: SETTLE_REPLIES,
      },
    },
    async (request, reply) => {
      const result = await context.decisions.take(request.params.id, { action: 'extend' }, deciderOf(request, context.auth));
      if (result.kind === 'extended') request.log.info({ askId: request.params.id, expiresAt: result.ask.expiresAt }, 'question extended');
      return sendResult(reply, result);
    },
  );

  app.post(
    '/api/asks/:id/decline',
    { config: { access: 'page-or-local' }, bodyLimit: 1024, schema: { summary: 'Decline it: Claude is told the person chose not to answer', params: IdParamsSchema, response: SETTLE_REPLIES } },
    async (request, reply) => sendResult(reply, await context.decisions.take(request.params.id, { action: 'decline' }, deciderOf(request, context.auth))),
  );
};

const notFound = () => new HttpError(404, 'not_found', 'no such question (it may have finished long ago)');

/** 409 with the ask as it ended: whoever comes late learns who won. */
function sendTooLate(reply: FastifyReply, ask: AskView) {
  const message =
    ask.elicitation && ask.source?.kind === 'terminal'
      ? 'the session moved on meanwhile: this request of its MCP server was let go, and nothing more reaches the server'
      : ask.source?.kind === 'terminal'
        ? 'this was answered in the terminal'
        : `this ${ask.approval ? 'approval' : ask.elicitation ? 'request for input' : 'question'} was already ${ask.status}`;
  return reply.code(409).send({ error: { code: 'already_resolved', message }, ask });
}

/**
 * The one mapping of a store result to HTTP: 200 with the ask (answered, one allow of two, or moved or not by more
 * time: the page compares expiresAt), 404, 409 with the winner (or with the ask, for a hand-back it has no terminal for,
 * or an allow its person gave already), 400,
 * or 500 when no reply could be made.
 */
function sendResult(reply: FastifyReply, result: DecisionResult) {
  switch (result.kind) {
    case 'answered':
    case 'allowed_once':
    case 'extended':
    case 'unchanged':
      return reply.code(200).send({ ask: result.ask });
    case 'not_found':
      throw notFound();
    case 'already_resolved':
      return sendTooLate(reply, result.ask);
    case 'invalid':
      throw new HttpError(400, result.error.code, result.error.message);
    case 'invalid_content':
      throw new HttpError(400, 'invalid_content', 'the values do not fit the form: nothing was sent, and it still waits', result.errors.map((error) => error.message));
    case 'no_terminal':
      return reply.code(409).send({
        error: { code: 'no_terminal', message: `${result.ask.asker?.kind === 'mcp' ? 'an MCP client' : 'a script'} asked this, and no terminal is behind it: answer it or decline it` },
        ask: result.ask,
      });
    case 'already_allowed':
      return reply.code(409).send({ error: { code: 'already_allowed', message: `${result.person} allowed it already: a second person must` }, ask: result.ask });
    case 'unavailable':
      throw new HttpError(503, result.code, result.message);
    case 'not_recorded':
      throw new HttpError(503, 'not_recorded', `nothing was sent: the decision's audit record could not be written (${result.reason}). It still waits.`);
    case 'failed':
      throw new HttpError(
        500,
        'decision_failed',
        `the answer was not delivered: ${result.ask.error ?? 'no reply could be made for its asker'}. The question went back to the terminal: answer it there.`,
      );
  }
}
