// POST /api/hook/questions: the hook hands over Claude Code's payload and keeps the request open.
// The response is NDJSON: an `accepted` line at once (so the hook knows the daemon is alive), then
// one `settled` line with what the hook prints. The hook's connection is the question's life:
// when it closes early (Esc, timeout, SIGKILL), the question is withdrawn.
import type { FastifyInstance } from 'fastify';
import { HookPayloadSchema, HookRequestSchema, ToolInputSchema, type HookEnvironment } from '../../protocol.js';
import type { RouteContext } from '../app.js';
import { parseOr400 } from '../errors.js';

/** ASKBRIDGE_UNATTENDED=1, CI=true, or Claude Code's own mark for SDK-hosted sessions. */
export function isUnattended(environment: HookEnvironment): boolean {
  const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim());
  return truthy(environment.ASKBRIDGE_UNATTENDED) || truthy(environment.CI) || environment.CLAUDE_CODE_SESSION_ATTENDED?.trim() === '0';
}

export async function hookRoutes(app: FastifyInstance, { store, watchers, deps }: RouteContext) {
  app.post('/api/hook/questions', { config: { access: 'local' } }, async (request, reply) => {
    const body = parseOr400(HookRequestSchema, request.body, 'hook request');
    const payload = parseOr400(HookPayloadSchema, body.payload, 'hook payload', 'payload');
    const toolInput = parseOr400(ToolInputSchema, payload.tool_input, 'AskUserQuestion input', 'payload.tool_input');

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
    response.write(`${JSON.stringify({ event: 'accepted', id: waiter.question.id })}\n`);
    response.on('close', () => {
      if (!response.writableEnded) waiter.leave();
    });
    const outcome = await waiter.outcome;
    if (!response.destroyed) {
      response.end(`${JSON.stringify({ event: 'settled', status: outcome.status, hookOutput: outcome.hookOutput })}\n`);
    }
    request.log.info({ questionId: waiter.question.id, status: outcome.status, source: outcome.source.kind }, 'question settled');
  });
}
