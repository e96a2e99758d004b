// Daemon status for `askbridge status`, the configuration for `askbridge config` (with the public
// URL in use and where it comes from), the request behind `askbridge stop`, and this API's own
// OpenAPI document.
import { homedir } from 'node:os';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EffectiveConfigSchema } from '../../config.js';
import { ErrorReplySchema, StatusReplySchema, type StoreHealth } from '../../protocol.js';
import { PublicUrlStatusSchema } from '../../public-url-status.js';
import type { RouteContext } from './context.js';
import { HttpError } from '../errors.js';

const ConfigQuerySchema = z.object({ cwd: z.string().min(1).max(4096) }).meta({ title: 'config query' });
const REFUSALS = { '4xx': ErrorReplySchema };
/** A question's configuration, and the daemon's public URL (which is not a question's). */
const ConfigReplySchema = EffectiveConfigSchema.extend({ publicUrl: PublicUrlStatusSchema.optional() });

const storeField = (store: StoreHealth | undefined) => (store ? { store } : {});

export const statusRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { store, watchers, deps, awayState, port, openApi }) => {
  app.get('/api/status', { config: { access: 'local' }, schema: { summary: 'Is the daemon well, and what does it hold', response: { 200: StatusReplySchema, ...REFUSALS } } }, async () => ({
    pid: deps.pid,
    port: port(),
    url: `http://127.0.0.1:${port()}/`,
    version: deps.version,
    pending: store.pending().length,
    watchers: watchers.sockets.size,
    visiblePages: watchers.visible.size,
    history: deps.health?.().history ?? null,
    audit: deps.health?.().audit ?? null,
    ...awayState({ kind: 'local' }),
    tellable: deps.tellable?.() ?? { pushDevices: 0, telegramChats: 0 },
    // `route` is the user config's only: the same in every folder.
    routes: { rules: deps.configFor?.(homedir()).config.route.length ?? 0, people: deps.people?.list().length ?? 0 },
    ...storeField(deps.health?.().store),
  }));

  /** The configuration the daemon applies to a question asked in `cwd`: its last good version of each file. */
  app.get(
    '/api/config',
    { config: { access: 'local' }, schema: { summary: 'The configuration that applies in a directory, and where each value comes from', querystring: ConfigQuerySchema, response: { 200: ConfigReplySchema, ...REFUSALS } } },
    async (request) => {
      if (!deps.configFor) throw new HttpError(404, 'not_found', 'this daemon does not report its configuration');
      const status = deps.publicUrlStatus?.();
      return { ...deps.configFor(request.query.cwd), ...(status ? { publicUrl: status } : {}) };
    },
  );

  app.get(
    '/api/openapi.json',
    { config: { access: 'page-or-local' }, schema: { summary: 'This document', response: { 200: z.record(z.string(), z.unknown()), ...REFUSALS } } },
    async () => openApi(),
  );
};
