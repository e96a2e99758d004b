// Opening an ask over HTTP: the core's openAsk (asks/open-ask.ts), and its refusals as HTTP errors.
// The routes that receive asks (hook.ts, and POST /api/asks in asks.ts) call it.
import type { FastifyRequest } from 'fastify';
import { LIMITS } from '../../protocol.js';
import { openAsk, type Asked } from '../asks/open-ask.js';
import type { Waiter } from '../asks/store.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';

export function openOrRefuse(context: RouteContext, request: FastifyRequest, asked: Asked): Waiter {
  const result = openAsk(context.desk, asked, request.log);
  switch (result.kind) {
    case 'opened':
      return result.waiter;
    case 'too_many_pending':
      throw new HttpError(503, 'too_many_pending', `${result.max} questions are waiting already: this one goes to the terminal`);
    case 'too_many_questions':
      throw new HttpError(400, 'too_many_questions', `${result.asked} questions at once, but the configuration allows ${result.max} (askMaxQuestions, up to ${LIMITS.askQuestions.max})`);
  }
}
