// --listen: the daemon serving https itself beyond loopback (a public URL with no front). What
// reaches it there is the LAN, not this machine, so it is held to limits that loopback is not:
// - a TLS handshake deadline: a connection that has not completed TLS within HANDSHAKE_DEADLINE_MS of
//   connecting is closed, however slowly it keeps sending (an absolute deadline, not an idle timer);
// - a cap on the connections it holds at once (MAX_LISTEN_CONNECTIONS): past it, a new connection is
//   closed at once, by the server itself, before any TLS work.
// Together they bound what the LAN can hold of the daemon's file descriptors, so that a flood there
// never takes those that local hooks and pages need on the loopback server, which has its own.
// Refused and timed-out connections are logged once per burst (when it starts, then how many when
// it is over), never once per connection.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { PublicUrl } from '../public-url.js';
import type { App } from './app.js';
import { DaemonStartError } from './start-error.js';

/** How long a connection on --listen may take to complete its TLS handshake, from when it connected. */
export const HANDSHAKE_DEADLINE_MS = 5_000;
/**
 * Connections --listen holds at once, handshaking or not: a phone, a few browsers and the http hooks
 * of remote Claude Code sessions (each waits on its own connection) fit well within it.
 */
export const MAX_LISTEN_CONNECTIONS = 128;
/** A burst of refusals is over once none came for this long; its count is then logged. */
const BURST_QUIET_MS = 10_000;

/** --listen ADDR:PORT with --tls-cert and --tls-key, as given on the command line. */
export type ListenFlags = { address: string; tlsCert?: string | undefined; tlsKey?: string | undefined };
/** Where --listen serves, and the certificate and key it serves with. */
export type ListenTls = { host: string; port: number; cert: Buffer; key: Buffer };
export type ListenLimits = { handshakeDeadlineMs: number; maxConnections: number };

/** --listen: serving beyond loopback needs TLS, and a public URL naming it (so Host and Origin are checked). */
export function readListenTls(listen: ListenFlags, publicUrl: PublicUrl | undefined): ListenTls {
  const match = /^(.+):(\d{1,5})$/.exec(listen.address);
  if (!match) throw new DaemonStartError(`--listen ${listen.address}: expected ADDRESS:PORT, for example 0.0.0.0:8443`);
  if (!listen.tlsCert || !listen.tlsKey) {
    throw new DaemonStartError(`--listen ${listen.address} serves beyond loopback, which askbridge does only over TLS: give --tls-cert FILE and --tls-key FILE (or keep it on loopback behind Tailscale Serve, Caddy or an SSH tunnel)`);
  }
  if (!publicUrl?.secure) throw new DaemonStartError(`--listen ${listen.address} needs the https public URL its certificate names (--public-url https://NAME:${match[2]}), so that only that Host and Origin are accepted`);
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new DaemonStartError(`cannot read the TLS ${what} ${path}: ${(error as Error).message}`);
    }
  };
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]), cert: read(listen.tlsCert, 'certificate'), key: read(listen.tlsKey, 'key') };
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
 * An https server on --listen that hands every request and upgrade to the app, as the [::1] one
 * does, within the limits above. Returns how to close it.
 */
export async function listenWithTls(app: App, tls: ListenTls, limits: ListenLimits = { handshakeDeadlineMs: HANDSHAKE_DEADLINE_MS, maxConnections: MAX_LISTEN_CONNECTIONS }): Promise<() => Promise<void>> {
  const server = createHttpsServer({
    cert: tls.cert,
    key: tls.key,
    requestTimeout: app.server.requestTimeout,
    headersTimeout: app.server.headersTimeout,
    keepAliveTimeout: app.server.keepAliveTimeout,
    connectionsCheckingInterval: 1_000,
  });
  // net.Server closes a connection past this at once and emits 'drop' for it.
  server.maxConnections = limits.maxConnections;
  const refused = burstLog(app, 'refused', 'too many connections on --listen: new ones are closed at once until some end', { limit: limits.maxConnections });
  server.on('drop', refused);

  // A connection's handshake deadline, by its peer's address and port (the raw socket and the TLS
  // socket over it name the same peer), until the handshake completes or the connection ends.
  const handshaking = new Map<string, { socket: Socket; deadline: NodeJS.Timeout }>();
  const peerOf = (socket: { remoteAddress?: string | undefined; remotePort?: number | undefined }) => `${socket.remoteAddress}|${socket.remotePort}`;
  const handshaken = (peer: string) => {
    clearTimeout(handshaking.get(peer)?.deadline);
    handshaking.delete(peer);
  };
  const late = burstLog(app, 'handshake_late', 'connections on --listen did not complete TLS in time: closed', { deadlineMs: limits.handshakeDeadlineMs });
  server.on('connection', (socket: Socket) => {
    const peer = peerOf(socket);
    const deadline = setTimeout(() => {
      late();
      socket.destroy();
    }, limits.handshakeDeadlineMs);
    handshaking.set(peer, { socket, deadline });
    socket.once('close', () => {
      if (handshaking.get(peer)?.socket === socket) handshaken(peer);
      else clearTimeout(deadline);
    });
  });
  server.on('secureConnection', (socket) => handshaken(peerOf(socket)));

  server.on('request', (request, response) => app.server.emit('request', request, response));
  server.on('upgrade', (request, socket, head) => app.server.emit('upgrade', request, socket, head));
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) => failed(error.code === 'EADDRINUSE' ? new DaemonStartError(`${tls.host}:${tls.port} is in use: choose another --listen port`) : error));
    server.listen({ host: tls.host, port: tls.port }, listening);
  });
  return async () => {
    // closeAllConnections() ends the connections that reached http; those still handshaking are ours.
    for (const { socket } of handshaking.values()) socket.destroy();
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  };
}
