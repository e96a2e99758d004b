// The routes a hook asks through. Both hand over Claude Code's payload and keep the request open;
// the connection is the question's life: when it closes early (Esc, timeout, SIGKILL), the question
// is withdrawn. No route here takes an Origin: no web page can act as a hook.
//
// - POST /api/hook/ask (HTTP_HOOK_PATH): Claude Code's own `http` hook (protocol.md 5a). No process per question.
//   It carries the hook key, and the environment variables its entry forwards, in headers. The
//   response is the decision JSON itself, or an empty 200 when the terminal should ask.
// - POST /api/hook/hello, then /api/hook/questions: the command hook, for older Claude Code (hook-
//   identity.ts has the why). The daemon first proves it holds the token; the question is signed;
//   the response is NDJSON, each line signed: `accepted` at once (with the wait, so the hook knows
//   its own deadline), `extended` whenever a person who is answering got more time (the new wait, so
//   the hook waits for it too), then one `settled` line with what the hook prints. Run by Codex CLI
//   (`--agent codex`), it asks Codex's PermissionRequest: an approval with no "always allow",
//   answered in Codex's format (decisions/codex.ts).
// - POST /api/hook/session-end (SESSION_END_PATH): Claude Code's SessionEnd hook, an http entry with
//   the hook key or the command hook (hello first, then signed): every question of that session
//   still waiting that a hook of the same kind asked (the http hook from the same machine, or the
//   command hook) is withdrawn, and its hooks print nothing. The reply is always empty.
// A question belongs to the hook that asked it: the same session and tool call asked again is
// refused (409), unless the command hook that asked it comes back for it (store.ts).
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AskPayloadSchema,
  ErrorReplySchema,
  HookHelloReplySchema,
  HookHelloSchema,
  HookRequestSchema,
  LAST_MESSAGE_CHARS,
  NotificationPayloadSchema,
  PermissionPayloadSchema,
  PromptPayloadSchema,
  SessionEndPayloadSchema,
  StopPayloadSchema,
  type Approval,
  type HookEnvironment,
  type PermissionPayload,
} from '../../protocol.js';
import { describeSuggestion, planChoice, planSuggestions, PLAN_TOOL } from '../../approvals.js';
import { permissionReply, PermissionOutputSchema } from '../decisions/claude-code-permission.js';
import { codexPermissionReply } from '../decisions/codex.js';
import type { RouteContext } from './context.js';
import { HttpError } from '../errors.js';
import { createHookIdentity, isHelloFromThisMachine, type HookCredentials } from '../hook-identity.js';
import type { Asked } from '../asks/open-ask.js';
import type { AskerIdentity, Outcome } from '../asks/store.js';
import { claudeCodeReply, HookOutputSchema } from '../decisions/claude-code.js';
import { openOrRefuse } from './open-or-refuse.js';
import { machineOf, requireHookKey } from './hook-key.js';
import {
  DEFAULT_STOP_CAP,
  HTTP_HOOK_ENV,
  HTTP_HOOK_PATH,
  NOTIFICATION_HOOK_PATH,
  PERMISSION_HOOK_PATH,
  PROMPT_HOOK_PATH,
  SESSION_END_PATH,
  STOP_CAP_HEADER,
  STOP_HOOK_PATH,
  envHeader,
} from '../../http-hook.js';
import { StopOutputSchema, stopReply } from '../decisions/claude-code-stop.js';
import { isUnattended } from '../asks/open-ask.js';

/** The tool whose calls are questions, asked through PreToolUse. */
const ASK_TOOL = 'AskUserQuestion';

/** A hook's checked payload, as an ask to open, answered in Claude Code's decision format. */
function askedByHook(payload: z.infer<typeof AskPayloadSchema>, environment: HookEnvironment, transport: 'http' | 'command', machine?: string): Asked {
  const { session_id: sessionId, tool_use_id: toolUseId, cwd, tool_input: toolInput, questions, transcript_path: transcriptPath } = payload;
  const reply: Asked['reply'] = (config) => claudeCodeReply({ toolInput, answerMode: config.answerMode, waitSeconds: config.waitSeconds });
  return { agent: 'claude-code', sessionId, toolUseId, cwd, toolInput, questions, environment, transport, reply, ...(machine ? { machine } : {}), ...(transcriptPath ? { transcriptPath } : {}) };
}

/** Refusals a hook can meet: its terminal asks instead. */
const REFUSALS = { '4xx': ErrorReplySchema, '5xx': ErrorReplySchema };

/** A SessionEnd payload is a few hundred bytes. */
const SESSION_END_BODY_LIMIT_BYTES = 64 * 1024;

/** A hook's checked PermissionRequest, as an approval to open, answered in Claude Code's PermissionRequest format. */
function approvalByHook(payload: PermissionPayload, environment: HookEnvironment, transport: 'http' | 'command', machine: string | undefined): Asked {
  const { session_id: sessionId, cwd, tool_name: toolName, tool_input: toolInput, transcript_path: transcriptPath, permission_mode: permissionMode } = payload;
  const suggestions = toolName === PLAN_TOOL ? planSuggestions(payload.permission_suggestions) : payload.permission_suggestions;
  const approval: Approval = {
    toolName,
    toolInput,
    suggestions: suggestions.map((suggestion) => ({ label: toolName === PLAN_TOOL ? planChoice(suggestion) : describeSuggestion(suggestion) })),
    ...(toolName === PLAN_TOOL && typeof toolInput.plan === 'string' ? { plan: toolInput.plan } : {}),
    ...(permissionMode ? { permissionMode } : {}),
  };
  return {
    agent: 'claude-code',
    sessionId,
    // Claude Code names no tool call in a PermissionRequest: each is its own.
    toolUseId: `permission-${randomUUID()}`,
    cwd,
    toolInput,
    questions: [],
    approval,
    environment,
    transport,
    reply: () => permissionReply({ toolName, toolInput, suggestions }),
    ...(machine ? { machine } : {}),
    ...(transcriptPath ? { transcriptPath } : {}),
  };
}

/**
 * Codex's PermissionRequest (its command hook, `--agent codex`), as an approval to open, answered in
 * Codex's format. Codex takes no "always allow" back (protocol.md 7), so none is offered.
 */
function approvalByCodex(payload: PermissionPayload, environment: HookEnvironment): Asked {
  const { session_id: sessionId, cwd, tool_name: toolName, tool_input: toolInput, transcript_path: transcriptPath, permission_mode: permissionMode } = payload;
  return {
    agent: 'codex',
    sessionId,
    // Codex names no tool call in a PermissionRequest either: each is its own.
    toolUseId: `permission-${randomUUID()}`,
    cwd,
    toolInput,
    questions: [],
    approval: { toolName, toolInput, suggestions: [], ...(permissionMode ? { permissionMode } : {}) },
    environment,
    transport: 'command',
    reply: () => codexPermissionReply(toolName),
    ...(transcriptPath ? { transcriptPath } : {}),
  };
}

/** The ask a command hook's request opens: by the agent that ran it, and what it asks. */
function askedByCommandHook(request: z.infer<typeof HookRequestSchema>): Asked {
  const { payload, environment } = request;
  if (payload.hook_event_name !== 'PermissionRequest') return askedByHook(payload, environment, 'command');
  return request.agent === 'codex' ? approvalByCodex(payload, environment) : approvalByHook(payload, environment, 'command', undefined);
}

/** Claude Code's limit on replies in a row, as the Stop entry forwards it; its default when unset or not a count. */
function stopCap(request: FastifyRequest): number {
  const value = request.headers[STOP_CAP_HEADER];
  const cap = typeof value === 'string' && /^\s*\d{1,6}\s*$/.test(value) ? Number(value) : Number.NaN;
  return cap >= 1 ? cap : DEFAULT_STOP_CAP;
}

/** How many of the sessions whose replies in a row are counted are kept: the oldest are forgotten first. */
const MAX_COUNTED_SESSIONS = 10_000;

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

  /**
   * Claude Code's http hook, held open while its ask waits: the connection is the ask's life (its
   * closing withdraws it), and the response is the decision, or an empty 200 for none.
   */
  const holdHttpHook = async (request: FastifyRequest, reply: FastifyReply, asked: Asked, onSettled?: (outcome: Outcome) => void) => {
    const waiter = openOrRefuse(context, request, reply, asked);
    if (!waiter) return reply;
    if (onSettled) void waiter.outcome.then(onSettled);
    reply.hijack();
    const response = reply.raw;
    response.on('close', () => {
      if (!response.writableEnded) waiter.leave();
    });
    const [outcome, text] = await Promise.all([waiter.outcome, waiter.reply]);
    if (!response.destroyed) {
      // An empty 200 is "no decision": Claude Code shows its own dialog (or keeps it).
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      response.end(text);
    }
    request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, asked.approval ? 'approval settled' : asked.turnEnd ? 'turn end settled' : 'question settled');
    return reply;
  };

  // Replies in a row per session, for the turn (prompt_id) they continue: Claude Code ends a turn
  // that was continued its limit of times, whatever the hook says.
  const repliesInARow = new Map<string, { promptId: string | undefined; replies: number }>();
  const countReply = (sessionId: string, promptId: string | undefined, replies: number) => {
    repliesInARow.delete(sessionId);
    repliesInARow.set(sessionId, { promptId, replies });
    if (repliesInARow.size > MAX_COUNTED_SESSIONS) repliesInARow.delete(repliesInARow.keys().next().value!);
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
    async (request, reply) => {
      context.store.movedOn(request.body.session_id);
      return holdHttpHook(request, reply, askedByHook(request.body, forwardedEnvironment(request), 'http', machineOf(request)));
    },
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
    async (request, reply) => {
      const payload = request.body;
      // AskUserQuestion raises a PermissionRequest too (default mode): its questions are asked
      // through PreToolUse already, so it is never shown twice. No decision: the question's own path decides.
      if (payload.tool_name === ASK_TOOL) return answerEmpty(reply);
      context.store.movedOn(payload.session_id);
      return holdHttpHook(request, reply, approvalByHook(payload, forwardedEnvironment(request), 'http', machineOf(request)));
    },
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
    async (request, reply) => {
      const payload = request.body;
      const { session_id: sessionId, prompt_id: promptId } = payload;
      if (payload.hook_event_name === 'SubagentStop') return answerEmpty(reply);
      context.store.movedOn(sessionId);
      if (!payload.stop_hook_active) repliesInARow.delete(sessionId);
      const environment = forwardedEnvironment(request);
      // Nothing is held unless the person said they are away, and never in a session nobody watches.
      if (!context.away.isAway() || isUnattended(environment)) return answerEmpty(reply);
      const counted = payload.stop_hook_active ? repliesInARow.get(sessionId) : undefined;
      const replies = counted && counted.promptId === promptId ? counted.replies : 0;
      const replyLimit = stopCap(request);
      const message = payload.last_assistant_message ?? '';
      const truncated = message.length > LAST_MESSAGE_CHARS;
      const asked: Asked = {
        agent: 'claude-code',
        sessionId,
        toolUseId: `turn-end-${randomUUID()}`,
        cwd: payload.cwd,
        toolInput: {},
        questions: [],
        turnEnd: { lastMessage: truncated ? message.slice(0, LAST_MESSAGE_CHARS) : message, ...(truncated ? { truncated: true } : {}), repliesInARow: replies, replyLimit },
        environment,
        transport: 'http',
        reply: () => stopReply,
        // Claude Code would override one more block: the person sees how the turn ended, and Claude stops.
        ...(replies >= replyLimit ? { settledAtOnce: { status: 'done', source: { kind: 'policy', action: 'terminal', trigger: 'reply-limit' } } } : {}),
        ...(machineOf(request) ? { machine: machineOf(request) } : {}),
        ...(payload.transcript_path ? { transcriptPath: payload.transcript_path } : {}),
      };
      return holdHttpHook(request, reply, asked, (outcome) => {
        if (outcome.status === 'replied') countReply(sessionId, promptId, replies + 1);
      });
    },
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
    async (request, reply) => {
      const settled = context.store.movedOn(request.body.session_id, true);
      if (settled.length > 0) request.log.info({ askIds: settled.map((ask) => ask.id) }, 'the person typed in the terminal: the session waits here no more');
      return answerEmpty(reply);
    },
  );

  app.post(
    NOTIFICATION_HOOK_PATH,
    {
      config: { access: 'hook', bodyName: 'payload' },
      preValidation: async (request) => requireHookKey(request, deps),
      schema: {
        summary: "Claude Code's Notification hook: the session waits for the person in its terminal; shown until it moves on",
        security: [{ hookKey: [] }],
        body: NotificationPayloadSchema,
        response: { 200: { description: 'Always empty: a notification takes no decision', content: { 'application/json': { schema: z.string().max(0) } } }, ...REFUSALS },
      },
    },
    async (request, reply) => {
      const payload = request.body;
      const { session_id: sessionId } = payload;
      const kind = payload.notification_type ?? 'notification';
      // A newer wait replaces the one before; a permission dialog that has its card already needs no second one.
      context.store.movedOn(sessionId);
      const hasCard = context.store.pending().some((ask) => ask.sessionId === sessionId && (ask.approval || ask.turnEnd));
      if (kind === 'permission_prompt' && hasCard) return answerEmpty(reply);
      const waiter = openOrRefuse(context, request, reply, {
        agent: 'claude-code',
        sessionId,
        toolUseId: `terminal-wait-${randomUUID()}`,
        cwd: payload.cwd,
        toolInput: {},
        questions: [],
        terminalWait: { kind, message: payload.message },
        environment: forwardedEnvironment(request),
        transport: 'http',
        ...(machineOf(request) ? { machine: machineOf(request) } : {}),
        ...(payload.transcript_path ? { transcriptPath: payload.transcript_path } : {}),
      });
      if (!waiter) return reply;
      return answerEmpty(reply);
    },
  );

  app.post(
    '/api/hook/hello',
    {
      config: { access: 'hook' },
      // Before the body is read: a hello from elsewhere has no hook behind it (hook-identity.ts).
      onRequest: async (request) => {
        if (!isHelloFromThisMachine(request.ip, request.headers.host)) {
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
        summary: 'The command hook asks (signed); the reply streams once the question is settled',
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
      const { payload } = request.body;
      if (payload.hook_event_name === 'PermissionRequest' && payload.tool_name === ASK_TOOL) {
        // Asked through PreToolUse already: never shown twice (see the http route).
        reply.hijack();
        reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
        reply.raw.end(identity.line(credentials, 'settled', { status: 'handed-to-terminal', decision: '' }));
        return reply;
      }
      const asked = askedByCommandHook(request.body);
      const waiter = openOrRefuse(context, request, reply, asked);
      if (!waiter) return reply;

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
        // What the hook prints, exactly: one JSON document, or '' for nothing.
        response.end(identity.line(credentials, 'settled', { status: outcome.status, decision }));
      }
      request.log.info({ askId: waiter.ask.id, status: outcome.status, source: outcome.source.kind }, 'question settled');
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
      const by: AskerIdentity =
        request.headers.authorization === undefined
          ? { transport: 'http-hook', credential: 'hook-key', machine: machineOf(request), program: undefined }
          : { transport: 'command-hook', credential: 'token', machine: undefined, program: undefined };
      const withdrawn = context.store.endSession(request.body.session_id, by);
      request.log.info({ reason: request.body.reason, asks: withdrawn.length, askIds: withdrawn.map((ask) => ask.id) }, 'session ended: its waiting questions withdrawn');
      // Nothing at all: an http hook's body is exactly one JSON document or nothing.
      return reply.code(200).type('text/plain; charset=utf-8').send('');
    },
  );
};
