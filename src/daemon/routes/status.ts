// Daemon status for `askbridge status`, and the request behind `askbridge stop`.
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../app.js';

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

  app.post('/api/shutdown', { config: { access: 'local' } }, async (_request, reply) => {
    reply.code(202).send({ stopping: true });
    setImmediate(() => deps.onShutdownRequest?.());
    return reply;
  });
}
