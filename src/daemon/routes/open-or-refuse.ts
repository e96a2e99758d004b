// Opening an ask over HTTP: the core's openAsk (asks/open-ask.ts), and its refusals as HTTP errors.
// The routes that receive asks (hook.ts, and POST /api/asks in asks.ts) call it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../../protocol.js';
import { openAsk, type Asked, type OpenResult } from '../asks/open-ask.js';
import { describeAsker, type Waiter } from '../asks/store.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';

/**
 * The ask opened, or undefined once its refusal was sent. Over a limit, the 503 is sent here rather
 * than thrown: the error handler logs every refusal it handles, and an asker over a limit is logged
 * once (open-ask.ts), however many it sends. Once open, the request lets go of its body: a waiting
 * ask keeps only what the store keeps, not the request's parsed copy of it (nor any field besides).
 */
export function openOrRefuse<Decision>(context: RouteContext, request: FastifyRequest, reply: FastifyReply, asked: Asked<Decision>): Waiter<Decision> | undefined {
  const result = openAsk(context.desk, asked, request.log);
  switch (result.kind) {
    case 'opened':
      (request as { body: unknown }).body = undefined;
      return result.waiter;
    case 'over_limit':
      reply.code(503).send({ error: { code: result.limit === 'asks' ? 'too_many_pending' : 'pending_too_large', message: overLimitMessage(result) } });
      return undefined;
    case 'already_asked':
      throw new HttpError(409, 'already_asked', 'this session and tool call were asked already: only the command hook that asked it can wait for it again, and nobody else learns its answer');
    case 'too_many_questions':
      throw new HttpError(400, 'too_many_questions', `${result.asked} questions at once, but the configuration allows ${result.max} (askMaxQuestions, up to ${LIMITS.askQuestions.max})`);
  }
}

function overLimitMessage(over: Extract<OpenResult, { kind: 'over_limit' }>): string {
  const who = { asker: describeAsker(over.asker), credential: `the askers with the ${over.asker.credential === 'token' ? 'token' : 'hook key'} together`, all: 'all askers together' }[over.scope];
  const share = over.scope === 'all' ? 'as many as the daemon keeps' : `as many as ${over.scope === 'asker' ? 'one asker' : 'one credential'} may`;
  const held =
    over.limit === 'asks'
      ? `${over.max} questions are waiting from ${who}, ${share}`
      : `the questions waiting from ${who} would hold more than ${mebibytes(over.max)}, ${share.replace('as many', 'as much')} (this one holds ${mebibytes(over.bytes)})`;
  return `${held}: this one goes to the terminal`;
}

const mebibytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
