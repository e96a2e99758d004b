// GET /ws: every change to the questions, pushed to every connected page (and CLI listener).
// A new socket gets a snapshot of the pending questions first; each event is serialised once.
// Bounded: at most MAX_WATCHERS sockets; one that stops reading is dropped once its send buffer
// passes SEND_BUFFER_LIMIT_BYTES (the others are unaffected); ping/pong heartbeats drop a peer that
// has gone away without closing, so that only live pages count as someone watching.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { ErrorReplySchema, ServerMessageSchema, type ServerMessage } from '../../protocol.js';
import type { RouteContext, Watchers } from './context.js';
import { HttpError } from '../errors.js';


/** Pages and CLI listeners connected at once; more are refused before the upgrade. */
export const MAX_WATCHERS = 64;
/** A socket this far behind is not reading: it is dropped rather than buffered without end. */
export const SEND_BUFFER_LIMIT_BYTES = 4 * 1024 * 1024;
/** A ping this often; a socket that has not answered the previous one is dropped (so within two of these). */
export const HEARTBEAT_MS = 15_000;

const OPEN = 1;

/** Serialise once, send to every open socket that keeps up. */
export function broadcast(watchers: Watchers, message: ServerMessage): void {
  const data = JSON.stringify(message);
  for (const socket of watchers.sockets) {
    if (socket.readyState !== OPEN) continue;
    if (socket.bufferedAmount > SEND_BUFFER_LIMIT_BYTES) {
      socket.terminate();
      continue;
    }
    socket.send(data);
  }
}

export const eventRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { store, watchers, deps }) => {
  const unsubscribe = store.subscribe((event) => broadcast(watchers, { type: event.type, question: event.question }));
  const answeredPing = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const socket of watchers.sockets) {
      if (!answeredPing.has(socket)) {
        socket.terminate(); // no pong since the last ping: gone
        continue;
      }
      answeredPing.delete(socket);
      socket.ping();
    }
  }, deps.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  app.addHook('onClose', async () => {
    unsubscribe();
    clearInterval(heartbeat);
  });

  app.get(
    '/ws',
    {
      websocket: true,
      config: { access: 'page-or-local' },
      schema: {
        summary: 'A WebSocket: the waiting questions, then every change to them (ServerMessage, one JSON text message each)',
        response: { 101: { description: 'Switching to the WebSocket', content: { 'application/json': { schema: ServerMessageSchema } } }, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema },
      },
      preValidation: async () => {
        if (watchers.sockets.size >= MAX_WATCHERS) throw new HttpError(503, 'too_many_watchers', `at most ${MAX_WATCHERS} pages and listeners at once`);
      },
    },
    (socket, request) => {
      watchers.sockets.add(socket);
      if (request.principal.kind === 'page') watchers.deviceOf.set(socket, request.principal.deviceId);
      answeredPing.add(socket);
      socket.on('pong', () => answeredPing.add(socket));
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
    },
  );
};
