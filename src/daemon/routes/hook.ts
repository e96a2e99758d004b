// The routes a hook asks through. Both doors carry every event an agent hands askbridge (a question,
// a permission, the end of a turn, a prompt typed, a notification, an MCP server's elicitation), and what each means is decided
// in one place (hook-events.ts); a held request's connection is its ask's life: when it closes early
// (Esc, timeout, SIGKILL), the ask is withdrawn. No route here takes an Origin: no web page can act as a hook.
//
// - Claude Code's own `http` hook (protocol.md 5a), one path per event (HTTP_HOOK_PATH, PERMISSION_HOOK_PATH,
//   STOP_HOOK_PATH, PROMPT_HOOK_PATH, NOTIFICATION_HOOK_PATH, ELICITATION_HOOK_PATH). No process per question. It carries the
//   hook key, and the environment variables its entry forwards, in headers. The response is the
//   decision JSON itself, or an empty 200 when there is none.
// - POST /api/hook/hello, then /api/hook/questions: the command hook (hook-identity.ts has the why).
//   The daemon first proves it holds the token; the request is signed; the response is NDJSON, each
//   line signed: `accepted` at once (with the wait, so the hook knows its own deadline), `extended`
//   whenever a person who is answering got more time, then one `settled` line with what the hook
//   prints (at once, and empty, when there is nothing to decide). Run by Codex CLI (`--agent codex`),
//   it asks Codex's PermissionRequest, answered in Codex's format (decisions/codex.ts).
// - POST /api/hook/session-end (SESSION_END_PATH): Claude Code's SessionEnd hook, an http entry with
//   the hook key or the command hook (hello first, then signed): every question of that session
//   still waiting that a hook of the same kind asked (the http hook from the same machine, or the
//   command hook) is withdrawn, and its hooks print nothing. The reply is always empty.
// A question belongs to the hook that asked it: the same session and tool call asked again is
// refused (409), unless the command hook that asked it comes back for it, or it is the same wait
// from another entry of the same session (askbridge wired twice), which waits with it (store.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AskPayloadSchema,
  ElicitationPayloadSchema,
  ErrorReplySchema,
  HookHelloReplySchema,
  HookHelloSchema,
  HookRequestSchema,
  NotificationPayloadSchema,
  PermissionPayloadSchema,
  PromptPayloadSchema,
  SessionEndPayloadSchema,
  StopPayloadSchema,
  type HookEnvironment,
} from '../../protocol.js';
import { PermissionOutputSchema } from '../decisions/claude-code-permission.js';
import type { RouteContext } from './context.js';
import { HttpError } from '../errors.js';
import { createHookIdentity, isFromThisMachine, type HookCredentials } from '../hook-identity.js';
import { identityOf } from '../asks/store.js';
import { HookOutputSchema } from '../decisions/claude-code.js';
import { openOrRefuse } from './open-or-refuse.js';
import { machineOf, personOf, requireHookKey } from './hook-key.js';
import { ELICITATION_HOOK_PATH, HTTP_HOOK_ENV, HTTP_HOOK_PATH, NOTIFICATION_HOOK_PATH, PERMISSION_HOOK_PATH, PROMPT_HOOK_PATH, SESSION_END_PATH, STOP_CAP_HEADER, STOP_HOOK_PATH, envHeader } from '../../http-hook.js';
import { StopOutputSchema } from '../decisions/claude-code-stop.js';
import { ElicitationOutputSchema } from '../decisions/claude-code-elicitation.js';
import { createHookEvents, type HookCall, type Received } from '../hook-events.js';

/** A decision as a hook's body (an http hook's response, or what the command hook prints): exactly one JSON document, or nothing. */
function hookBody(decision: object | null): string {
  return decision === null ? '' : JSON.stringify(decision);
}

/** Refusals a hook can meet: its terminal asks instead. */
const REFUSALS = { '4xx': ErrorReplySchema, '5xx': ErrorReplySchema };

/** A SessionEnd payload is a few hundred bytes. */
const SESSION_END_BODY_LIMIT_BYTES = 64 * 1024;

/** What the log says once a held ask is settled. */
function settledMessage(received: Extract<Received, { kind: 'hold' }>): string {
  return received.asked.approval ? 'approval settled' : received.asked.turnEnd ? 'turn end settled' : received.asked.elicitation ? 'elicitation settled' : 'question settled';
}

/** An empty 200 at once: no decision, nothing held. */
function answerEmpty(reply: FastifyReply): FastifyReply {
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'application/json', 'content-length': 0, 'cache-control': 'no-store' }).end();
  return reply;
}

/** The environment variables an http hook entry forwards, from their headers (an unset one arrives empty). */
function forwardedEnvironment(request: FastifyRequest): HookEnvironment {
  const environment: HookEnvironment = {};
  for (const name of HTTP_HOOK_ENV) {
    const value = request.headers[envHeader(name)];
    if (typeof value === 'string' && value !== '') environment[name] = value.slice(0, 100);
  }
  return environment;
}

/** Refuses (401) a hook request signed wrongly, or not signed at all. */
function refuseUnsigned(credentials: 'unsigned' | 'bad-signature'): never {
  if (credentials === 'unsigned') throw new HttpError(401, 'unsigned', 'a hook request must be signed (POST /api/hook/hello first)');
  throw new HttpError(401, 'bad_signature', 'the signature or its nonce is not valid (a nonce is good for one request)');
}

export const hookRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { deps } = context;
  const identity = createHookIdentity(deps.token);
  // The signature covers the exact bytes sent: kept beside the parsed body of a signed request
  // (this plugin only) until it is checked, never while a question waits.
  const rawBodies = new WeakMap<FastifyRequest, string>();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (request.headers.authorization !== undefined) rawBodies.set(request, body as string);
    parseJson(request, body as string, done);
  });
  /** The signed request's credentials, its raw body let go of once checked. */
  const verify = (purpose: 'question' | 'session-end', request: FastifyRequest) => {
    const credentials = identity.verifyRequest(purpose, request.headers.authorization, rawBodies.get(request) ?? '');
    rawBodies.delete(request);
    return credentials;
  };

  const events = createHookEvents({ desk: context.desk, away: context.away });

  /**
   * Claude Code's http hook: what its event means (hook-events.ts), then an empty 200 at once, or
   * the request held open while its ask waits: the connection is the ask's life (its closing
   * withdraws it), and the response is the decision, or an empty 200 for none.
   */
  const httpHook = async (request: FastifyRequest, reply: FastifyReply, payload: HookCall['payload']) => {
    const stopCap = request.headers[STOP_CAP_HEADER];
    const call: HookCall = {
      payload,
      environment: forwardedEnvironment(request),
      door: 'http-hook',
      agent: 'claude-code',
      machine: machineOf(request),
      person: personOf(request),
      stopCap: typeof stopCap === 'string' ? stopCap : undefined,
    };
    const received = await events.receive(call, request.log);
    if (received.kind === 'empty') return answerEmpty(reply);
    const waiter = openOrRefuse(context, request, reply, received.asked);
    if (!waiter) return reply;
    if (received.onSettled) void waiter.outcome.then(received.onSettled);
    reply.hijack();
    const response = reply.raw;
    response.on('close', () => {
      if (!response.writableEnded) waiter.leave();
    });
    const [outcome, decision] = await Promise.all([waiter.outcome, waiter.reply]);
    if (!response.destroyed) {
      const text = hookBody(decision);
      // An empty 200 is "no decision": Claude Code shows its own dialog (or keeps it).
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      response.end(text);
    }
    request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, settledMessage(received));
    return reply;
  };

  app.post(
    HTTP_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      // The key first: nobody without it learns anything about what a payload should be.
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's http hook asks; the reply comes once the question is settled",
        security: [{ hookKey: [] }],
        body: AskPayloadSchema,
        response: {
          200: {
            description: 'The decision for Claude Code, or an empty body when its own dialog should ask',
            content: { 'application/json': { schema: HookOutputSchema } },
          },
          ...REFUSALS,
        },
      },
    },
    async (request, reply) => httpHook(request, reply, request.body),
  );

  app.post(
    PERMISSION_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's PermissionRequest hook: a permission or a plan waits to be allowed or denied; the reply comes once it is decided",
        security: [{ hookKey: [] }],
        body: PermissionPayloadSchema,
        response: {
          200: {
            description: 'The decision for Claude Code, or an empty body when its own dialog decides',
            content: { 'application/json': { schema: PermissionOutputSchema } },
          },
          ...REFUSALS,
        },
      },
    },
    async (request, reply) => httpHook(request, reply, request.body),
  );

  app.post(
    STOP_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's Stop hook: while the person is away, the end of the turn waits for their reply; otherwise no decision, at once",
        security: [{ hookKey: [] }],
        body: StopPayloadSchema,
        response: {
          200: {
            description: "A block with the person's reply (Claude goes on), or an empty body (Claude stops)",
            content: { 'application/json': { schema: StopOutputSchema } },
          },
          ...REFUSALS,
        },
      },
    },
    async (request, reply) => httpHook(request, reply, request.body),
  );

  app.post(
    PROMPT_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's UserPromptSubmit hook: the person typed in that session's terminal, so its turn's end waits no more (their prompt goes to Claude)",
        security: [{ hookKey: [] }],
        body: PromptPayloadSchema,
        response: { 200: { description: 'Always empty: the prompt goes to Claude unchanged', content: { 'application/json': { schema: z.string().max(0) } } }, ...REFUSALS },
      },
    },
    async (request, reply) => httpHook(request, reply, request.body),
  );

  app.post(
    NOTIFICATION_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's Notification hook: the session waits for the person in its terminal; shown until it moves on (its idle notification only while the person is away)",
        security: [{ hookKey: [] }],
        body: NotificationPayloadSchema,
        response: { 200: { description: 'Always empty: a notification takes no decision', content: { 'application/json': { schema: z.string().max(0) } } }, ...REFUSALS },
      },
    },
    async (request, reply) => httpHook(request, reply, request.body),
  );

  app.post(
    ELICITATION_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's Elicitation hook: an MCP server asks for input (a form or a URL); the reply comes once a person responds, or at once, empty, when nobody could",
        security: [{ hookKey: [] }],
        body: ElicitationPayloadSchema,
        response: {
          200: {
            description: "The person's accept, decline or cancel, or an empty body when Claude Code's own dialog should ask",
            content: { 'application/json': { schema: ElicitationOutputSchema } },
          },
          ...REFUSALS,
        },
      },
    },
    async (request, reply) => httpHook(request, reply, request.body),
  );

  app.post(
    '/api/hook/hello',
    {
      config: { access: 'hook' },
      // Before the body is read: a hello from elsewhere has no hook behind it (hook-identity.ts).
      onRequest: async (request) => {
        if (!isFromThisMachine(request.ip, request.headers.host)) {
          throw new HttpError(403, 'hook_not_local', 'the command hook asks the daemon on its own machine; from another machine, use the http hook and its key (askbridge remote-hook)');
        }
      },
      bodyLimit: 1024,
      schema: { summary: 'The command hook asks the daemon to prove it holds the token', body: HookHelloSchema, response: { 200: HookHelloReplySchema, ...REFUSALS } },
    },
    async (request) => {
      const hello = identity.hello(request.body.nonce);
      if (hello === 'busy') throw new HttpError(503, 'hellos_busy', 'too many hellos wait for their question: try again in a few seconds');
      return hello;
    },
  );

  const signedBy = new WeakMap<FastifyRequest, HookCredentials>();
  app.post(
    '/api/hook/questions',
    {
      config: { access: 'hook' },
      // The signature first: nobody without the token learns anything about what a payload should be.
      preValidation: async (request) => {
        const credentials = verify('question', request);
        if (typeof credentials === 'string') refuseUnsigned(credentials);
        signedBy.set(request, credentials);
        request.principal = { kind: 'hook' };
      },
      schema: {
        summary: 'The command hook hands over any event it carries (signed); the reply streams once it is settled, at once when there is nothing to decide',
        body: HookRequestSchema,
        response: {
          200: {
            description: 'NDJSON, each line signed: `accepted` at once, then `settled` with what the hook prints',
            content: { 'application/x-ndjson': { schema: z.string() } },
          },
          ...REFUSALS,
        },
      },
    },
    async (request, reply) => {
      const credentials = signedBy.get(request);
      if (!credentials) throw new HttpError(401, 'unsigned', 'a hook request must be signed (POST /api/hook/hello first)');
      const { payload, environment, agent, stopCap } = request.body;
      const received = await events.receive({ payload, environment, door: 'command-hook', agent: agent ?? 'claude-code', machine: undefined, stopCap }, request.log);
      if (received.kind === 'empty') {
        // Nothing to decide: the hook prints nothing.
        reply.hijack();
        reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
        reply.raw.end(identity.line(credentials, 'settled', { status: 'handed-to-terminal', decision: '' }));
        return reply;
      }
      const waiter = openOrRefuse(context, request, reply, received.asked);
      if (!waiter) return reply;
      if (received.onSettled) void waiter.outcome.then(received.onSettled);

      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
      const { id } = waiter.ask;
      let expiresAt = waiter.ask.expiresAt;
      response.write(identity.line(credentials, 'accepted', { id, waitMs: Math.max(0, expiresAt - Date.now()) }));
      // The hook gives up at its own deadline, taken from the wait it was told: a later deadline is
      // told to it as well, or it would leave while the person it waits for is still answering.
      const unsubscribe = context.store.subscribe((event) => {
        if (event.type !== 'updated' || event.ask.id !== id || event.ask.expiresAt === expiresAt) return;
        expiresAt = event.ask.expiresAt;
        if (!response.destroyed) response.write(identity.line(credentials, 'extended', { waitMs: Math.max(0, expiresAt - Date.now()) }));
      });
      response.on('close', () => {
        if (!response.writableEnded) waiter.leave();
      });
      const [outcome, decision] = await Promise.all([waiter.outcome, waiter.reply]); // never reject: a hook that left gets `cancelled`
      unsubscribe();
      if (!response.destroyed) {
        // What the hook prints, exactly: one JSON document, or '' for nothing. Kept on disk until it is
        // written: a daemon killed before that gives it to the hook when it re-attaches.
        response.end(identity.line(credentials, 'settled', { status: outcome.status, decision: hookBody(decision) }), waiter.delivered);
      } else {
        waiter.delivered();
      }
      request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, settledMessage(received));
    },
  );

  app.post(
    SESSION_END_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      bodyLimit: SESSION_END_BODY_LIMIT_BYTES,
      // The http hook's key, or the command hook's signature, before the body is looked at.
      preValidation: async (request) => {
        if (request.headers.authorization === undefined) return requireHookKey(request, deps);
        const credentials = verify('session-end', request);
        if (typeof credentials === 'string') refuseUnsigned(credentials);
        request.principal = { kind: 'hook' };
      },
      schema: {
        summary: "Claude Code's SessionEnd hook: the session's waiting questions are withdrawn",
        security: [{ hookKey: [] }],
        body: SessionEndPayloadSchema,
        response: {
          200: {
            description: 'Always empty: a SessionEnd hook has nothing to tell Claude Code',
            content: { 'text/plain': { schema: z.string().max(0) } },
          },
          ...REFUSALS,
        },
      },
    },
    async (request, reply) => {
      // Signed: the command hook, on this machine. Else Claude Code's http hook, from the machine it names.
      const by = identityOf(request.headers.authorization === undefined ? { door: 'http-hook', agent: 'claude-code', machine: machineOf(request) } : { door: 'command-hook', agent: 'claude-code' });
      const withdrawn = context.store.endSession(request.body.session_id, by);
      // Grants made to last until this session ends end with it (its own hook says so, as for its asks).
      context.deps.grants?.endSession(request.body.session_id);
      request.log.info({ reason: request.body.reason, asks: withdrawn.length, askIds: withdrawn.map((ask) => ask.id) }, 'session ended: its waiting questions withdrawn');
      // Nothing at all: an http hook's body is exactly one JSON document or nothing.
      return reply.code(200).type('text/plain; charset=utf-8').send('');
    },
  );
};
