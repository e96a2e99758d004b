// The paired browsers and Telegram chats, as devices a person can see and revoke from the page or
// `askbridge devices`.
// Revoking one stops its cookie and key at once, closes its open sockets and ends its pushes. A revoke
// holds across restarts or is refused: when the device list cannot be written (a full or read-only
// disk), the reply is 503 and the device stays paired, on disk as in memory.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DevicesReplySchema, ErrorReplySchema, REVOKED_CLOSE_CODE, RevokedReplySchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';

const DeviceParamsSchema = z.object({ id: z.string().regex(/^[0-9a-f]{12}$/, { message: 'not a device id' }) }).meta({ title: 'device id' });

export const deviceRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { auth, watchers, deps }) => {
  app.get(
    '/api/devices',
    { config: { access: 'page-or-local' }, schema: { summary: 'The paired browsers and Telegram chats, most recently seen first', response: { 200: DevicesReplySchema, '4xx': ErrorReplySchema } } },
    async (request) => {
      const current = request.principal.kind === 'page' ? request.principal.deviceId : undefined;
      const browsers = auth.devices().map((device) => ({ ...device, kind: 'browser' as const, current: device.id === current }));
      const chats = (deps.telegram?.devices() ?? []).map((chat) => ({ ...chat, kind: 'telegram' as const, current: false }));
      return { devices: [...browsers, ...chats].sort((a, b) => b.lastSeen - a.lastSeen) };
    },
  );

  app.post(
    '/api/devices/:id/revoke',
    {
      config: { access: 'page-or-local' },
      bodyLimit: 1024,
      schema: { summary: 'Unpair a browser (its cookie and key stop working, and its open pages are disconnected at once) or a Telegram chat (ignored from then on)', params: DeviceParamsSchema, response: { 200: RevokedReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema } },
    },
    async (request) => {
      const browser = auth.revokeDevice(request.params.id);
      // Not a browser: a Telegram chat, which is ignored from then on.
      const result = browser.kind === 'not_found' && deps.telegram ? deps.telegram.revoke(request.params.id) : browser;
      if (result.kind === 'not_found') throw new HttpError(404, 'not_found', 'no paired device with this id (already revoked, or expired)');
      if (result.kind === 'not_saved') {
        request.log.warn({ device: request.params.id, reason: result.reason }, 'device not revoked: the device list could not be saved');
        throw new HttpError(503, 'revoke_not_saved', `the device list could not be saved (${result.reason}), so the device is still paired: revoke it again once the disk has room`);
      }
      try {
        deps.push?.unsubscribe(request.params.id);
      } catch (error) {
        // Revoked all the same: no push goes to a device that is no longer paired, whatever the disk says.
        request.log.warn({ device: request.params.id, error: (error as Error).message }, 'the push subscription of a revoked device could not be removed from disk');
      }
      for (const socket of watchers.sockets) {
        if (watchers.deviceOf.get(socket) === request.params.id) socket.close(REVOKED_CLOSE_CODE, 'this device was unpaired');
      }
      request.log.info({ device: request.params.id }, 'device revoked');
      return { revoked: true as const };
    },
  );
};
