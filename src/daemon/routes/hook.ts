// The command hook's two requests (hook-identity.ts has the why):
// - POST /api/hook/hello: the daemon proves it holds the token, before the hook sends anything else.
// - POST /api/hook/questions: signed with the token, it hands over Claude Code's payload and keeps
//   the request open. The response is NDJSON, each line signed: `accepted` at once (with the wait,
//   so the hook knows its own deadline), then one `settled` line with what the hook prints.
// The hook's connection is the question's life: when it closes early (Esc, timeout, SIGKILL), the
// question is withdrawn. Neither route takes an Origin: no web page can act as the hook.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HookHelloSchema, HookPayloadSchema, HookRequestSchema, ToolInputSchema, type HookEnvironment } from '../../protocol.js';
import type { RouteContext } from '../app.js';
import { HttpError, parseOr400 } from '../errors.js';
import { createHookIdentity } from '../hook-identity.js';

/** ASKBRIDGE_UNATTENDED=1, CI=true, or Claude Code's own mark for SDK-hosted sessions. */
export function isUnattended(environment: HookEnvironment): boolean {
  const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim());
  return truthy(environment.ASKBRIDGE_UNATTENDED) || truthy(environment.CI) || environment.CLAUDE_CODE_SESSION_ATTENDED?.trim() === '0';
}

/** Questions waiting at once, from every session; a new one over it is refused, and its terminal asks. */
export const MAX_PENDING = 1024;

export async function hookRoutes(app: FastifyInstance, { store, watchers, deps }: RouteContext) {
  const identity = createHookIdentity(deps.token);
  // The signature covers the exact bytes sent: keep them beside the parsed body (this plugin only).
  const rawBodies = new WeakMap<FastifyRequest, string>();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    rawBodies.set(request, body as string);
    parseJson(request, body as string, done);
  });

  app.post('/api/hook/hello', { config: { access: 'hook' }, bodyLimit: 1024 }, async (request) => {
    const { nonce } = parseOr400(HookHelloSchema, request.body, 'hello');
    return identity.hello(nonce);
  });

  app.post('/api/hook/questions', { config: { access: 'hook' } }, async (request, reply) => {
    const credentials = identity.verifyQuestion(request.headers.authorization, rawBodies.get(request) ?? '');
    if (credentials === 'unsigned') throw new HttpError(401, 'unsigned', 'a hook request must be signed (POST /api/hook/hello first)');
    if (credentials === 'bad-signature') throw new HttpError(401, 'bad_signature', 'the signature or its nonce is not valid (a nonce is good for one request)');
    const body = parseOr400(HookRequestSchema, request.body, 'hook request');
    const payload = parseOr400(HookPayloadSchema, body.payload, 'hook payload', 'payload');
    const toolInput = parseOr400(ToolInputSchema, payload.tool_input, 'AskUserQuestion input', 'payload.tool_input');
    const maxPending = deps.maxPending ?? MAX_PENDING;
    if (!store.knows(payload.session_id, payload.tool_use_id) && store.pendingCount() >= maxPending) {
      deps.onOverload?.(true);
      throw new HttpError(503, 'too_many_pending', `${maxPending} questions are waiting already: this one goes to the terminal`);
    }

    const plan = deps.planQuestion({
      cwd: payload.cwd,
      toolInput: payload.tool_input,
      questions: toolInput.questions,
      unattended: isUnattended(body.environment),
      watchers: watchers.sockets.size,
    });
    const waiter = store.open({
      sessionId: payload.session_id,
      toolUseId: payload.tool_use_id,
      cwd: payload.cwd,
      toolInput: payload.tool_input,
      questions: toolInput.questions,
      waitMs: plan.waitMs,
      timeout: plan.timeout,
      onTimeout: plan.onTimeout,
      answerMode: plan.answerMode,
      ...(plan.immediate ? { immediate: plan.immediate } : {}),
    });
    request.log.info({ questionId: waiter.question.id, questions: toolInput.questions.length }, 'question received');

    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    response.write(identity.line(credentials, 'accepted', { id: waiter.question.id, waitMs: Math.max(0, waiter.question.expiresAt - Date.now()) }));
    response.on('close', () => {
      if (!response.writableEnded) waiter.leave();
    });
    const outcome = await waiter.outcome;
    if (!response.destroyed) {
      response.end(identity.line(credentials, 'settled', { status: outcome.status, hookOutput: outcome.hookOutput }));
    }
    request.log.info({ questionId: waiter.question.id, status: outcome.status, source: outcome.source.kind }, 'question settled');
  });
}
