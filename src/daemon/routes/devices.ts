// The paired browsers and Telegram chats, as devices a person can see and revoke from the page or
// `askbridge devices`.
// Revoking one stops its cookie and key at once, closes its open sockets and ends its pushes. A revoke
// holds across restarts or is refused: when the device list cannot be written (a full or read-only
// disk), the reply is 503 and the device stays paired, on disk as in memory.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DevicesReplySchema, ErrorReplySchema, REVOKED_CLOSE_CODE, RevokedReplySchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import type { FastifyBaseLogger } from 'fastify';
import type { RouteContext } from './context.js';
import type { Device } from './auth.js';

const DeviceParamsSchema = z.object({ id: z.string().regex(/^[0-9a-f]{12}$/, { message: 'not a device id' }) }).meta({ title: 'device id' });

export const deviceRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  app.get(
    '/api/devices',
    { config: { access: 'page-or-local' }, schema: { summary: 'The paired browsers and Telegram chats, most recently seen first', response: { 200: DevicesReplySchema, '4xx': ErrorReplySchema } } },
    async (request) => {
      const current = request.principal.kind === 'page' ? request.principal.deviceId : undefined;
      return { devices: pairedDevices(context).map((device) => ({ ...device, current: device.id === current })) };
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
      const result = unpairDevice(context, request.params.id, request.log);
      if (result.kind === 'not_found') throw new HttpError(404, 'not_found', 'no paired device with this id (already revoked, or expired)');
      if (result.kind === 'not_saved') throw new HttpError(503, 'revoke_not_saved', `the device list could not be saved (${result.reason}), so the device is still paired: revoke it again once the disk has room`);
      return { revoked: true as const };
    },
  );
};

/** Every paired browser and Telegram chat, most recently seen first, each with its person when it has one. */
export function pairedDevices({ auth, deps }: Pick<RouteContext, 'auth' | 'deps'>): Array<Device & { kind: 'browser' | 'telegram' }> {
  const browsers = auth.devices().map((device) => ({ ...device, kind: 'browser' as const }));
  const chats = (deps.telegram?.devices() ?? []).map((chat) => ({ ...chat, kind: 'telegram' as const }));
  return [...browsers, ...chats].sort((a, b) => b.lastSeen - a.lastSeen);
}

/**
 * Unpairs one browser or Telegram chat: the one way a device is revoked (here, and for every device
 * of a person removed). A browser's cookie and key stop working, its open sockets close and its
 * push subscription goes; a chat is ignored from then on. `not_saved` left it paired.
 */
export function unpairDevice({ auth, watchers, deps }: Pick<RouteContext, 'auth' | 'watchers' | 'deps'>, id: string, log: FastifyBaseLogger): { kind: 'revoked' } | { kind: 'not_found' } | { kind: 'not_saved'; reason: string } {
  const browser = auth.revokeDevice(id);
  // Not a browser: a Telegram chat, which is ignored from then on.
  const result = browser.kind === 'not_found' && deps.telegram ? deps.telegram.revoke(id) : browser;
  if (result.kind === 'not_found') return result;
  if (result.kind === 'not_saved') {
    log.warn({ device: id, reason: result.reason }, 'device not revoked: the device list could not be saved');
    return result;
  }
  try {
    deps.push?.unsubscribe(id);
  } catch (error) {
    // Revoked all the same: no push goes to a device that is no longer paired, whatever the disk says.
    log.warn({ device: id, error: (error as Error).message }, 'the push subscription of a revoked device could not be removed from disk');
  }
  for (const socket of watchers.sockets) {
    if (watchers.deviceOf.get(socket) === id) socket.close(REVOKED_CLOSE_CODE, 'this device was unpaired');
  }
  log.info({ device: id }, 'device revoked');
  return { kind: 'revoked' };
}
