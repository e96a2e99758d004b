// GET /ws: every change to the questions, pushed to every connected page (and CLI listener).
// A new socket gets a snapshot of the pending questions (and of relayed decisions not delivered yet) first (bounded by what may wait, limits.ts
// WAITING_BYTES, as GET /api/asks is); each event is serialised once.
// Bounded: at most MAX_WATCHERS sockets; one that stops reading is dropped once its send buffer
// passes SEND_BUFFER_LIMIT_BYTES beyond its snapshot (the others are unaffected); ping/pong
// heartbeats drop a peer that has gone away without closing, so that only live pages count as
// someone watching. A page says whether a person can see it (PageMessage), so that nobody is
// pushed to while looking at a page.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RawData, WebSocket } from 'ws';
import { describeZodError, ErrorReplySchema, PageMessageSchema, ServerMessageSchema, type ErrorReply, type PageMessage, type ServerMessage } from '../../protocol.js';
import { setVisible, type RouteContext, type Watchers } from './context.js';
import { HttpError } from '../errors.js';
import { PAGE_MESSAGE_LIMIT_BYTES } from '../limits.js';
import { isRoutedTo, type Viewer } from '../../route-access.js';
import { viewerOfRequest } from './decider.js';


/** Pages and CLI listeners connected at once; more are refused before the upgrade. */
export const MAX_WATCHERS = 64;
/** A socket this far behind is not reading: it is dropped rather than buffered without end. */
export const SEND_BUFFER_LIMIT_BYTES = 4 * 1024 * 1024;
/** A ping this often; a socket that has not answered the previous one is dropped (so within two of these). */
export const HEARTBEAT_MS = 15_000;

const OPEN = 1;

/** The bytes of each socket's snapshot: a page far away may still be reading it when the next event comes. */
const snapshotBytes = new WeakMap<WebSocket, number>();

/** Whose a socket is: a page's person, from its pairing; the CLI's (no page) sees everything. */
function viewerOfSocket(watchers: Watchers, socket: WebSocket): Viewer {
  return watchers.viewerOf.get(socket) ?? { kind: 'local' };
}

/** Serialise once, send to every open socket that keeps up; an ask's event only to those it is routed to (route-access.ts). */
export function broadcast(watchers: Watchers, message: ServerMessage): void {
  const data = JSON.stringify(message);
  sendEach(watchers, (viewer) => ('ask' in message && !isRoutedTo(message.ask, viewer) ? undefined : data));
}

/** What each viewer is sent, to every open socket that keeps up; undefined: nothing to that one. */
function sendEach(watchers: Watchers, dataFor: (viewer: Viewer) => string | undefined): void {
  for (const socket of watchers.sockets) {
    if (socket.readyState !== OPEN) continue;
    const data = dataFor(viewerOfSocket(watchers, socket));
    if (data === undefined) continue;
    if (socket.bufferedAmount > SEND_BUFFER_LIMIT_BYTES + (snapshotBytes.get(socket) ?? 0)) {
      socket.terminate();
      continue;
    }
    socket.send(data);
  }
}

/** Each viewer's own: its person's away switch, its person's grants (grants.ts). */
function ownMessages(context: Pick<RouteContext, 'awayState' | 'deps'>) {
  return {
    away: (viewer: Viewer) => JSON.stringify({ type: 'away', ...context.awayState(viewer) } satisfies ServerMessage),
    grants: (viewer: Viewer) => JSON.stringify({ type: 'grants', grants: context.deps.grants?.live(viewer) ?? [] } satisfies ServerMessage),
  };
}

export const eventRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { store, watchers, deps, away } = context;
  const own = ownMessages(context);
  const unsubscribe = store.subscribe((event) => broadcast(watchers, { type: event.type, ask: event.ask }));
  const unsubscribeAway = away.subscribe(() => sendEach(watchers, own.away));
  const unsubscribeGrants = deps.grants?.subscribe(() => sendEach(watchers, own.grants));
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
    unsubscribeAway();
    unsubscribeGrants?.();
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
      const viewer = viewerOfRequest(request);
      if (request.principal.kind === 'page') watchers.deviceOf.set(socket, request.principal.deviceId);
      watchers.viewerOf.set(socket, viewer);
      watchers.hostOf.set(socket, request.headers.host?.toLowerCase() ?? '');
      answeredPing.add(socket);
      socket.on('pong', () => answeredPing.add(socket));
      request.log.info({ watchers: watchers.sockets.size, client: request.principal.kind }, 'watcher connected');
      socket.on('close', () => {
        watchers.sockets.delete(socket);
        setVisible(watchers, socket, false);
        request.log.info({ watchers: watchers.sockets.size }, 'watcher left');
      });
      socket.on('message', (data, isBinary) => {
        const read = readPageMessage(data, isBinary);
        if ('refused' in read) {
          socket.send(JSON.stringify({ type: 'error', error: read.refused } satisfies ServerMessage));
          return;
        }
        setVisible(watchers, socket, read.message.visible);
      });
      const undelivered = store.undelivered().filter((ask) => isRoutedTo(ask, viewer));
      const snapshot = JSON.stringify({ type: 'snapshot', asks: store.pending().filter((ask) => isRoutedTo(ask, viewer)), ...(undelivered.length === 0 ? {} : { undelivered }) } satisfies ServerMessage);
      snapshotBytes.set(socket, Buffer.byteLength(snapshot));
      socket.send(snapshot);
      // Always sent, so a page that reconnects also drops a banner that was cleared meanwhile.
      socket.send(JSON.stringify({ type: 'banner', message: deps.banner?.() ?? null } satisfies ServerMessage));
      socket.send(own.away(viewer));
      if (deps.grants) socket.send(own.grants(viewer));
    },
  );
};

/** A page's message, checked: small, JSON, and one of PageMessageSchema's; a refusal says what is wrong, and the socket stays open. */
function readPageMessage(data: RawData, isBinary: boolean): { message: PageMessage } | { refused: ErrorReply['error'] } {
  if (isBinary) return { refused: { code: 'invalid_message', message: 'a page message is JSON text' } };
  const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  if (bytes.length > PAGE_MESSAGE_LIMIT_BYTES) return { refused: { code: 'message_too_large', message: `a page message is at most ${PAGE_MESSAGE_LIMIT_BYTES} bytes` } };
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { refused: { code: 'invalid_message', message: 'a page message is JSON text' } };
  }
  const parsed = PageMessageSchema.safeParse(json);
  if (parsed.success) return { message: parsed.data };
  const details = describeZodError(parsed.error);
  return { refused: { code: 'invalid_message', message: `invalid page message: ${details.slice(0, 5).join('; ')}`, details } };
}
