// Web Push for paired pages: the daemon's public key to subscribe with, and this device's
// subscription, kept or forgotten. Only a paired page may subscribe, for its own device, and only at
// a push service browsers use: any other endpoint is refused (400) with the reason.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorReplySchema, PushStatusReplySchema, PushSubscribedReplySchema, PushSubscriptionSchema, PushUnsubscribedReplySchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import type { Push } from '../push.js';
import type { RouteContext } from './context.js';

const REFUSALS = { '4xx': ErrorReplySchema, '5xx': ErrorReplySchema };

export const pushRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { deps }) => {
  const pushOf = (): Push => {
    if (!deps.push) throw new HttpError(503, 'push_unavailable', 'Web Push is not available: the daemon could not make its keys (see its log)');
    return deps.push;
  };
  /** The device of the paired page asking (access 'page' lets no one else in). */
  const deviceOf = (request: FastifyRequest): string => {
    if (request.principal.kind !== 'page') throw new HttpError(401, 'unauthorized', 'only a paired page subscribes, for its own device');
    return request.principal.deviceId;
  };

  app.get(
    '/api/push',
    { config: { access: 'page' }, schema: { summary: "The daemon's VAPID public key, and whether this device gets pushes", response: { 200: PushStatusReplySchema, ...REFUSALS } } },
    async (request) => {
      const push = pushOf();
      return { publicKey: push.publicKey(), subscribed: push.isSubscribed(deviceOf(request)) };
    },
  );

  app.post(
    '/api/push/subscription',
    {
      config: { access: 'page' },
      bodyLimit: 4096,
      schema: { summary: "Push to this device: its browser's PushSubscription (one per device; a new one replaces the old)", body: PushSubscriptionSchema, response: { 200: PushSubscribedReplySchema, ...REFUSALS } },
    },
    async (request) => {
      const problem = pushOf().endpointProblem(request.body.endpoint);
      if (problem) throw new HttpError(400, 'push_endpoint_refused', `the daemon pushes only to a push service browsers use: ${problem}`);
      try {
        pushOf().subscribe(deviceOf(request), request.body);
      } catch (error) {
        if (error instanceof HttpError) throw error;
        throw new HttpError(503, 'push_not_saved', `the subscription could not be saved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): try again once the disk has room`);
      }
      request.log.info({ device: deviceOf(request), to: new URL(request.body.endpoint).origin }, 'push subscription saved');
      return { subscribed: true as const };
    },
  );

  app.delete(
    '/api/push/subscription',
    { config: { access: 'page' }, schema: { summary: 'No more pushes to this device', response: { 200: PushUnsubscribedReplySchema, ...REFUSALS } } },
    async (request) => {
      try {
        pushOf().unsubscribe(deviceOf(request));
      } catch (error) {
        if (error instanceof HttpError) throw error;
        throw new HttpError(503, 'push_not_saved', `the change could not be saved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so this device still gets pushes: try again once the disk has room`);
      }
      return { subscribed: false as const };
    },
  );
};
