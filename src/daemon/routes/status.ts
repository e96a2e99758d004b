// Daemon status for `askbridge status`, and the request behind `askbridge stop`.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RouteContext } from './context.js';
import { HttpError, parseOr400 } from '../errors.js';

const ConfigQuerySchema = z.object({ cwd: z.string().min(1).max(4096) });

export async function statusRoutes(app: FastifyInstance, { store, watchers, deps, port }: RouteContext) {
  app.get('/api/status', { config: { access: 'local' } }, async () => {
    return {
      pid: deps.pid,
      port: port(),
      url: `http://127.0.0.1:${port()}/`,
      version: deps.version,
      pending: store.pending().length,
      watchers: watchers.sockets.size,
      history: deps.health?.().history ?? null,
    };
  });

  /** The configuration the daemon applies to a question asked in `cwd`: its last good version of each file. */
  app.get('/api/config', { config: { access: 'local' } }, async (request) => {
    const { cwd } = parseOr400(ConfigQuerySchema, request.query, 'config query');
    if (!deps.configFor) throw new HttpError(404, 'not_found', 'this daemon does not report its configuration');
    return deps.configFor(cwd);
  });

  app.post('/api/shutdown', { config: { access: 'local' } }, async (_request, reply) => {
    reply.code(202).send({ stopping: true });
    setImmediate(() => deps.onShutdownRequest?.());
    return reply;
  });
}
