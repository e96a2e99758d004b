// GET /ws: every change to the questions, pushed to every connected page (and CLI listener).
// A new socket gets a snapshot of the pending questions first; each event is serialised once.
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { ServerMessage } from '../../protocol.js';
import type { RouteContext } from '../app.js';

export type Watchers = { sockets: Set<WebSocket> };

const OPEN = 1;

/** Serialise once, send to every open socket. */
export function broadcast(watchers: Watchers, message: ServerMessage): void {
  const data = JSON.stringify(message);
  for (const socket of watchers.sockets) if (socket.readyState === OPEN) socket.send(data);
}

export async function eventRoutes(app: FastifyInstance, { store, watchers, deps }: RouteContext) {
  const unsubscribe = store.subscribe((event) => broadcast(watchers, { type: event.type, question: event.question }));
  app.addHook('onClose', async () => unsubscribe());

  app.get('/ws', { websocket: true, config: { access: 'page-or-local' } }, (socket, request) => {
    watchers.sockets.add(socket);
    request.log.info({ watchers: watchers.sockets.size, client: request.principal.kind }, 'watcher connected');
    socket.on('close', () => {
      watchers.sockets.delete(socket);
      request.log.info({ watchers: watchers.sockets.size }, 'watcher left');
    });
    // Pages only listen; anything they send is ignored (size is capped by maxPayload).
    const snapshot: ServerMessage = { type: 'snapshot', questions: store.pending() };
    socket.send(JSON.stringify(snapshot));
    // Always sent, so a page that reconnects also drops a banner that was cleared meanwhile.
    socket.send(JSON.stringify({ type: 'banner', message: deps.banner?.() ?? null } satisfies ServerMessage));
  });
}
