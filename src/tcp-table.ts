// This machine's TCP sockets as Linux lists them (/proc/net/tcp and /proc/net/tcp6): for each, its
// two ends, whether it listens, the uid that owns it, and how many received bytes wait unread in
// it. It tells what Node cannot: which user listens on a port (`install` and `doctor` ask whether
// it is systemd's socket, of this user, that holds askbridge's), and which user is at the other end
// of a connection from this machine and whether it has sent anything yet (the keeper, holding
// connections while the daemon restarts; `attach opencode`, before it sends a byte to a plain-http
// port). Elsewhere there is no such table: undefined. Reads only.
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

export type TcpSocket = {
  /** This end, as `endpoint` names it: 127.0.0.1:7433, [::1]:7433. */
  local: string;
  /** The other end (0.0.0.0:0 or [::]:0 for a listening socket). */
  remote: string;
  /** `peer-closed`: the other end has closed it (CLOSE_WAIT), and this end has not yet. */
  state: 'listening' | 'established' | 'peer-closed' | 'other';
  /** The user that owns this end. */
  uid: number;
  /** Bytes received and not yet read by the program that holds this end. */
  unread: number;
};

/** The states named here, in the kernel's numbering (include/net/tcp_states.h). */
const STATES: Record<string, TcpSocket['state']> = { '01': 'established', '08': 'peer-closed', '0A': 'listening' };

/**
 * Every TCP socket of this machine (of its network namespace), or undefined where the system keeps
 * no such table, or it cannot be read.
 */
export function readTcpTable(): TcpSocket[] | undefined {
  if (process.platform !== 'linux') return undefined;
  let ipv4: string;
  try {
    ipv4 = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  let ipv6 = '';
  try {
    ipv6 = readFileSync('/proc/net/tcp6', 'utf8');
  } catch {
    // no IPv6 here: no IPv6 sockets either
  }
  return [...parseRows(ipv4), ...parseRows(ipv6)];
}

function parseRows(text: string): TcpSocket[] {
  const rows: TcpSocket[] = [];
  // The first line names the columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [, local, remote, state, queues, , , uid] = fields;
    if (local === undefined || remote === undefined || state === undefined || queues === undefined || uid === undefined) continue;
    const localEnd = parseEnd(local);
    const remoteEnd = parseEnd(remote);
    if (localEnd === undefined || remoteEnd === undefined) continue;
    rows.push({ local: localEnd, remote: remoteEnd, state: STATES[state] ?? 'other', uid: Number(uid), unread: Number.parseInt(queues.split(':')[1] ?? '0', 16) });
  }
  return rows;
}

/**
 * One end as the table writes it: the address in hexadecimal, each 32-bit word in the machine's
 * byte order, then the port in hexadecimal.
 */
function parseEnd(text: string): string | undefined {
  const [hex, portHex] = text.split(':');
  if (hex === undefined || portHex === undefined || !/^[0-9A-F]+$/i.test(hex)) return undefined;
  const port = Number.parseInt(portHex, 16);
  const bytes: number[] = [];
  for (let word = 0; word < hex.length / 8; word++) {
    const wordBytes = hex.slice(word * 8, word * 8 + 8).match(/../g)!.map((pair) => Number.parseInt(pair, 16));
    bytes.push(...(endianness() === 'LE' ? wordBytes.reverse() : wordBytes));
  }
  if (bytes.length === 4) return endpoint(bytes.join('.'), port);
  if (bytes.length !== 16) return undefined;
  const groups = Array.from({ length: 8 }, (_, index) => (bytes[index * 2]! << 8) | bytes[index * 2 + 1]!);
  return endpoint(ipv6Text(groups), port);
}

/** An IPv6 address as Node writes one (RFC 5952): the longest run of zero groups as `::`, an IPv4-mapped one with its IPv4 address. */
function ipv6Text(groups: number[]): string {
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return `::ffff:${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > best.length && length >= 2) best = { start, length };
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start === -1) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/**
 * An address and a port as one string, the same for the table's ends and for Node's socket
 * addresses: 127.0.0.1:7433, [::1]:7433; an IPv4 address mapped into IPv6 (a socket that takes
 * both) as the IPv4 address it is.
 */
export function endpoint(address: string, port: number): string {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return plain.includes(':') ? `[${plain.toLowerCase()}]:${port}` : `${plain}:${port}`;
}

/** The uid of the program that listens on exactly this end (as `endpoint` names it), if one does. */
export function listenerUid(table: readonly TcpSocket[], at: string): number | undefined {
  return table.find((row) => row.state === 'listening' && row.local === at)?.uid;
}

/**
 * The uid of the socket at the other end of a connection from this machine: the row whose ends are
 * this socket's, swapped (a connection a server accepted, or is accepting, carries its listener's
 * owner). Undefined when no row matches: the other end has closed meanwhile.
 */
export function peerUid(table: readonly TcpSocket[], ends: { localAddress?: string | undefined; localPort?: number | undefined; remoteAddress?: string | undefined; remotePort?: number | undefined }): number | undefined {
  if (ends.localAddress === undefined || ends.localPort === undefined || ends.remoteAddress === undefined || ends.remotePort === undefined) return undefined;
  const local = endpoint(ends.localAddress, ends.localPort);
  const remote = endpoint(ends.remoteAddress, ends.remotePort);
  return table.find((row) => row.local === remote && row.remote === local)?.uid;
}
