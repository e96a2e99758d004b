// --listen: the daemon serving https beyond loopback (a public URL with no front). The keeper listens
// on that address (keeper.ts), so that a daemon that crashes leaves the port to nobody, and hands the
// daemon each connection; this serves TLS on them. What reaches it there is the LAN, not this
// machine, so it is held to limits that loopback is not:
// - a TLS handshake deadline: a connection that has not completed TLS within HANDSHAKE_DEADLINE_MS of
//   reaching the daemon is closed, however slowly it keeps sending (an absolute deadline, not an idle
//   timer; one the keeper held while the daemon restarted waited there too, at most its HOLD_MS);
// - a cap on the connections it holds at once (MAX_LISTEN_CONNECTIONS): past it, a new connection is
//   closed at once, before any TLS work.
// Together they bound what the LAN can hold of the daemon's file descriptors, so that a flood there
// never takes those that local hooks and pages need on loopback, which has its own.
// Refused and timed-out connections are logged once per burst (when it starts, then how many when
// it is over), never once per connection.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { PublicUrl } from '../public-url.js';
import type { App } from './app.js';
import type { ListenAt } from './keeper.js';
import { DaemonStartError } from './start-error.js';

/** How long a connection on --listen may take to complete its TLS handshake, from when it reached the daemon. */
export const HANDSHAKE_DEADLINE_MS = 5_000;
/**
 * Connections --listen holds at once, handshaking or not: a phone, a few browsers and the http hooks
 * of remote Claude Code sessions (each waits on its own connection) fit well within it.
 */
export const MAX_LISTEN_CONNECTIONS = 128;
/** A burst of refusals is over once none came for this long; its count is then logged. */
const BURST_QUIET_MS = 10_000;

/** The certificate and key --listen serves with. */
export type ListenTls = { cert: Buffer; key: Buffer };
export type ListenLimits = { handshakeDeadlineMs: number; maxConnections: number };
/** Where the keeper's --listen connections go: `accept` serves TLS on one. */
export type TlsDoor = { accept(socket: Socket): void; close(): Promise<void> };

/** --listen serves beyond loopback: it needs a public URL naming it (so Host and Origin are checked), and its certificate and key. */
export function readListenTls(listen: ListenAt, publicUrl: PublicUrl | undefined): ListenTls {
  if (!publicUrl?.secure) throw new DaemonStartError(`--listen ${listen.address} needs the https public URL its certificate names (--public-url https://NAME:${listen.port}), so that only that Host and Origin are accepted`);
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new DaemonStartError(`cannot read the TLS ${what} ${path}: ${(error as Error).message}`);
    }
  };
  return { cert: read(listen.tlsCert, 'certificate'), key: read(listen.tlsKey, 'key') };
}

/**
 * One log line when a burst of `what` starts, and one with its count once it is over: a flood of
 * connections is a few lines, not one per connection.
 */
function burstLog(app: App, what: 'refused' | 'handshake_late', message: string, fields: Record<string, unknown>) {
  let count = 0;
  let quiet: NodeJS.Timeout | undefined;
  return () => {
    count++;
    if (quiet) {
      quiet.refresh();
      return;
    }
    app.log.warn({ listen: what, ...fields }, message);
    quiet = setTimeout(() => {
      app.log.warn({ listen: what, connections: count }, 'burst on --listen over');
      count = 0;
      quiet = undefined;
    }, BURST_QUIET_MS).unref();
  };
}

/**
 * An https server for the connections the keeper accepted on --listen, that hands every request and
 * upgrade to the app, as loopback's does, within the limits above. It never listens itself.
 */
export function serveTls(app: App, tls: ListenTls, limits: ListenLimits = { handshakeDeadlineMs: HANDSHAKE_DEADLINE_MS, maxConnections: MAX_LISTEN_CONNECTIONS }): TlsDoor {
  const server = createHttpsServer({
    cert: tls.cert,
    key: tls.key,
    requestTimeout: app.server.requestTimeout,
    headersTimeout: app.server.headersTimeout,
    keepAliveTimeout: app.server.keepAliveTimeout,
    connectionsCheckingInterval: 1_000,
  });
  // Node starts checking connections against the time limits when its server starts listening;
  // this one never listens, so it is told it does.
  server.emit('listening');
  const open = new Set<Socket>();
  const refused = burstLog(app, 'refused', 'too many connections on --listen: new ones are closed at once until some end', { limit: limits.maxConnections });

  // A connection's handshake deadline, by its peer's address and port (the raw socket and the TLS
  // socket over it name the same peer), until the handshake completes or the connection ends.
  const handshaking = new Map<string, { socket: Socket; deadline: NodeJS.Timeout }>();
  const peerOf = (socket: { remoteAddress?: string | undefined; remotePort?: number | undefined }) => `${socket.remoteAddress}|${socket.remotePort}`;
  const handshaken = (peer: string) => {
    clearTimeout(handshaking.get(peer)?.deadline);
    handshaking.delete(peer);
  };
  const late = burstLog(app, 'handshake_late', 'connections on --listen did not complete TLS in time: closed', { deadlineMs: limits.handshakeDeadlineMs });
  server.on('secureConnection', (socket) => handshaken(peerOf(socket)));
  server.on('request', (request, response) => app.server.emit('request', request, response));
  server.on('upgrade', (request, socket, head) => app.server.emit('upgrade', request, socket, head));

  return {
    accept(socket) {
      if (open.size >= limits.maxConnections) {
        refused();
        socket.destroy();
        return;
      }
      open.add(socket);
      const peer = peerOf(socket);
      const deadline = setTimeout(() => {
        late();
        socket.destroy();
      }, limits.handshakeDeadlineMs);
      handshaking.set(peer, { socket, deadline });
      socket.once('close', () => {
        open.delete(socket);
        if (handshaking.get(peer)?.socket === socket) handshaken(peer);
        else clearTimeout(deadline);
      });
      server.emit('connection', socket);
    },
    async close() {
      // closeAllConnections() ends the connections that reached http; the rest (handshaking) are ours.
      for (const socket of open) socket.destroy();
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    },
  };
}
