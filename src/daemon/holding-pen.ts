// The connections the keeper accepts while the daemon is down (crashed, restarting), held until a
// daemon serves again. Another user of this machine, or a host beyond it through --listen, can open
// connections as fast as it likes, and each one held keeps a file descriptor, so what they may take
// is bounded, in a way that keeps a question that was posted:
// - each connection is held at most HOLD_MS, then closed;
// - one peer holds at most MAX_HELD_PER_PEER. A peer is the user at the other end where the system
//   says which (Linux: /proc/net/tcp, tcp-table.ts), else the remote address. This user's own
//   programs (hooks, the CLI, browsers) are bounded only by the total, and so are loopback
//   connections whose user the system does not say (there is no telling them apart);
// - past a peer's bound, or MAX_HELD_CONNECTIONS in all, connections are closed in this order, the
//   oldest first in each: those the other end has closed already (an http hook's after Esc), then
//   idle ones (nothing received yet), then those that carry a request (a hook's has sent it at once).
//   Where the system does not say which is which, the oldest goes first.
// The keeper never reads a held connection: what it received waits in the kernel, which says how
// much, and reaches the daemon with the socket.
import { isIPv4, isIPv6, type Socket } from 'node:net';
import { endpoint, readTcpTable, type TcpSocket } from '../tcp-table.js';

/** How long a connection waits for a restarting daemon before it is closed. */
export const HOLD_MS = 5_000;
/** Connections held at once, all peers together. */
export const MAX_HELD_CONNECTIONS = 64;
/** Connections one peer (another user, a remote address) may have held at once. */
export const MAX_HELD_PER_PEER = 16;
/**
 * The bounds are enforced at most this often while connections keep coming: reading the kernel's
 * table walks all of its TCP sockets, which takes milliseconds, so once per connection would slow
 * the keeper's accepting more than a flood itself does. Meanwhile a bound may be passed for a moment.
 */
const TRIM_EVERY_MS = 100;

/** A held connection, with what the keeper must know to hand it on (which listening socket it came to). */
export type HeldConnection<T> = { socket: Socket; tag: T };

export type HoldingPen<T> = {
  hold(socket: Socket, tag: T): void;
  /** Every connection held, oldest first; the pen is empty after. */
  release(): Array<HeldConnection<T>>;
  /** Closes every connection held. */
  closeAll(): void;
};

type Entry<T> = HeldConnection<T> & {
  timer: NodeJS.Timeout;
  /** Whose it is, for the per-peer bound; null: bounded only by the total; undefined: not looked up yet. */
  peer?: string | null;
};

export function createHoldingPen<T>(): HoldingPen<T> {
  const held: Array<Entry<T>> = [];
  const ownUid = process.getuid?.();
  let trimTimer: NodeJS.Timeout | undefined;
  let lastTrim = 0;

  const close = (entry: Entry<T>) => {
    const index = held.indexOf(entry);
    if (index !== -1) held.splice(index, 1);
    clearTimeout(entry.timer);
    entry.socket.destroy();
  };

  /** Over all the connections that came since the last time: one look at the table. */
  const trim = () => {
    trimTimer = undefined;
    // No peer can be past its bound, nor the total past its own.
    if (held.length <= MAX_HELD_PER_PEER) return;
    lastTrim = Date.now();
    const table = readTcpTable();
    // This machine's connections by their two ends: this end's, then the other's.
    const connections = table && new Map(table.filter((row) => row.state !== 'listening').map((row) => [`${row.local} ${row.remote}`, row]));
    const rank = new Map(held.map((entry) => [entry, closingRank(entry.socket, connections)]));
    const byPeer = new Map<string, Array<Entry<T>>>();
    for (const entry of held) {
      if (entry.peer === undefined) entry.peer = peerOf(entry.socket, connections, ownUid);
      if (entry.peer !== null) byPeer.set(entry.peer, [...(byPeer.get(entry.peer) ?? []), entry]);
    }
    for (const entries of byPeer.values()) {
      while (entries.length > MAX_HELD_PER_PEER) {
        const next = firstToClose(entries, rank);
        entries.splice(entries.indexOf(next), 1);
        close(next);
      }
    }
    while (held.length > MAX_HELD_CONNECTIONS) close(firstToClose(held, rank));
  };

  return {
    hold(socket, tag) {
      const entry: Entry<T> = { socket, tag, timer: setTimeout(() => close(entry), HOLD_MS) };
      held.push(entry);
      trimTimer ??= setTimeout(trim, Math.max(0, lastTrim + TRIM_EVERY_MS - Date.now()));
    },
    release() {
      const all = held.splice(0);
      for (const entry of all) clearTimeout(entry.timer);
      return all.map(({ socket, tag }) => ({ socket, tag }));
    },
    closeAll() {
      clearTimeout(trimTimer);
      trimTimer = undefined;
      for (const entry of [...held]) close(entry);
    },
  };
}

/** This machine's connections (tcp-table.ts), each by its local then its remote end. */
type ConnectionTable = ReadonlyMap<string, TcpSocket>;

/** The oldest of those to close first: these are oldest first, and lower ranks go first. */
function firstToClose<E>(entries: E[], rank: ReadonlyMap<E, number>): E {
  return entries.reduce((first, entry) => (rank.get(entry)! < rank.get(first)! ? entry : first));
}

function ends(socket: Socket): { local: string; remote: string } | undefined {
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  if (localAddress === undefined || localPort === undefined || remoteAddress === undefined || remotePort === undefined) return undefined;
  return { local: endpoint(localAddress, localPort), remote: endpoint(remoteAddress, remotePort) };
}

/** Which connections are closed first: gone, then idle, then carrying a request. */
const RANK = { gone: 0, idle: 1, busy: 2 } as const;

/**
 * How soon to close this connection: gone when the other end closed it (or it reset, and the table
 * lists it no more), idle when nothing was received on it (the kernel counts the bytes waiting
 * unread; the keeper reads none), else busy. Without a table, all alike: the oldest goes first.
 */
function closingRank(socket: Socket, connections: ConnectionTable | undefined): number {
  if (!connections) return RANK.busy;
  const at = ends(socket);
  const row = at && connections.get(`${at.local} ${at.remote}`);
  if (!row || row.state === 'peer-closed') return RANK.gone;
  return row.unread === 0 ? RANK.idle : RANK.busy;
}

/** Whose connection this is: another user of this machine, or a remote address; null for this user's own, and for loopback ones the system does not say whose. */
function peerOf(socket: Socket, connections: ConnectionTable | undefined, ownUid: number | undefined): string | null {
  const at = ends(socket);
  if (!at) return null;
  // The other end's socket, when it is on this machine: its local end is this one's remote end.
  const other = connections?.get(`${at.remote} ${at.local}`);
  if (other) return other.uid === ownUid ? null : `uid ${other.uid}`;
  // An IPv4 address mapped into IPv6 (a socket that takes both) is that IPv4 address.
  const address = socket.remoteAddress!.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return isLoopback(address) ? null : `address ${address}`;
}

function isLoopback(address: string): boolean {
  return (isIPv4(address) && address.startsWith('127.')) || (isIPv6(address) && address === '::1');
}
