// The person's own state and the sessions' turn ends: PUT /api/away (whether they are away: only then
// does the end of a turn for them wait for a reply; a page turns its own person's switch, the CLI the
// daemon's own user's), and POST /api/sessions/:sessionId/reply (a reply that
// continues Claude's turn with exactly that text, or `done`, which lets it end). A reply is a prompt
// to an agent that runs commands: only a paired page or the token sends one, never the hook key. It
// goes to the turn's end it names (`ask`), the one the person saw; one that names none goes to this
// session's on this machine, never to one another asker (another machine, anyone with the hook key)
// opened under the same session id.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AskReplySchema, AwayReplySchema, AwaySchema, ErrorReplySchema, LIMITS, TooLateReplySchema, TurnReplySchema } from '../../protocol.js';
import { ANSWER_BODY_LIMIT_BYTES } from '../limits.js';
import type { RouteContext } from './context.js';
import { HttpError } from '../errors.js';
import { deciderOf, viewerOfRequest } from './decider.js';
import { isRoutedTo, type Viewer } from '../../route-access.js';

const SessionParamsSchema = z.object({ sessionId: z.string().min(1).max(LIMITS.idChars) }).meta({ title: 'session id' });
const REFUSALS = { '4xx': ErrorReplySchema, '5xx': ErrorReplySchema };

export const sessionRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { store, decisions, away, awayState, auth }) => {
  /** The turn's end this session waits at on this machine; refused (400) when there are several, which only `ask` tells apart. */
  const turnEndHere = (sessionId: string, viewer: Viewer) => {
    const here = store.turnEndsOf(sessionId).filter((ask) => ask.machine === undefined && isRoutedTo(ask, viewer));
    if (here.length > 1) throw new HttpError(400, 'several_turn_ends', `${here.length} turn ends wait in this session on this machine: name the one you reply to with "ask" (its id)`);
    return here[0];
  };

  app.get(
    '/api/away',
    { config: { access: 'page-or-local' }, schema: { summary: 'Whether the person said they are away, and where the end of a turn reaches askbridge', response: { 200: AwayReplySchema, ...REFUSALS } } },
    async (request) => awayState(viewerOfRequest(request)),
  );

  app.put(
    '/api/away',
    {
      config: { access: 'page-or-local' },
      bodyLimit: 1024,
      schema: {
        summary: 'Say you are away (the end of each turn then waits for your reply) or back (every turn end waiting is let go, and Claude stops)',
        body: AwaySchema,
        response: { 200: AwayReplySchema, ...REFUSALS },
      },
    },
    async (request) => {
      const viewer = viewerOfRequest(request);
      const person = viewer.kind === 'person' ? viewer.person : undefined;
      if (away.set(request.body.away, person)) {
        // Back: the turn ends nobody away is left for are let go (another's, still away, keep waiting).
        const released = request.body.away ? [] : store.releaseTurnEnds((view) => !away.awayFor(view));
        request.log.info({ away: request.body.away, person, released: released.length }, request.body.away ? 'away: turn ends wait for a reply' : 'back: turn ends no longer wait');
      }
      return awayState(viewer);
    },
  );

  app.post(
    '/api/sessions/:sessionId/reply',
    {
      config: { access: 'page-or-local' },
      bodyLimit: ANSWER_BODY_LIMIT_BYTES,
      schema: {
        summary: "Reply to the end of Claude's turn in this session (Claude goes on with exactly that text), or send {done: true} to let it end",
        params: SessionParamsSchema,
        body: TurnReplySchema,
        response: { 200: AskReplySchema, 409: TooLateReplySchema, ...REFUSALS },
      },
    },
    async (request, reply) => {
      const { sessionId } = request.params;
      const body = request.body;
      const by = deciderOf(request, auth);
      // The turn's end the person replied to, when they named it; else the one this session waits at now on this machine.
      // Only one routed to this page's person is there for it (the CLI sees every one).
      const viewer = viewerOfRequest(request);
      const target = body.ask === undefined ? turnEndHere(sessionId, viewer) : store.get(body.ask);
      if (!target || target.sessionId !== sessionId || !target.turnEnd || !isRoutedTo(target, viewer)) {
        throw new HttpError(404, 'not_waiting', 'Claude is not waiting for a reply in this session: it is working, or it stopped (only while you are away does the end of a turn wait)');
      }
      const result = await decisions.take(target.id, { action: 'reply', text: 'text' in body ? body.text : null }, by);
      switch (result.kind) {
        case 'answered':
          request.log.info({ askId: target.id, client: by.client, person: by.person, replied: 'text' in body }, 'turn end settled');
          return reply.code(200).send({ ask: result.ask });
        case 'already_resolved': {
          const { ask } = result;
          const message = ask.source?.kind === 'terminal' ? 'the person typed in the terminal meanwhile: their prompt went to Claude' : `this turn already ended (${ask.status})`;
          return reply.code(409).send({ error: { code: 'already_resolved', message }, ask });
        }
        case 'invalid':
          throw new HttpError(400, result.error.code, result.error.message);
        case 'failed':
          throw new HttpError(500, 'decision_failed', `the reply was not delivered: ${result.ask.error ?? 'no reply could be made'}`);
        case 'not_recorded':
          throw new HttpError(503, 'not_recorded', `nothing was sent: the reply's audit record could not be written (${result.reason}). It still waits.`);
        case 'unavailable':
          throw new HttpError(503, result.code, result.message);
        default:
          throw new HttpError(404, 'not_waiting', 'Claude is not waiting for a reply in this session');
      }
    },
  );
};
