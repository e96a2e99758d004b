// Which user holds the other end of a TCP connection on this machine: the uid Linux lists for that
// socket in /proc/net/tcp and /proc/net/tcp6, where a connection a server accepted, or is accepting,
// carries its listener's owner. A client that is to send a secret over plain http to a loopback port
// asks this first: on a shared machine any user can listen on a free port. Elsewhere (no /proc)
// nothing can be told, and the caller says so. Reads only; no socket is touched.
import { readFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { endianness } from 'node:os';

/** The two ends of a connected socket, as node:net names them. */
export type Ends = { localAddress?: string | undefined; localPort?: number | undefined; remoteAddress?: string | undefined; remotePort?: number | undefined };

/** The tables Linux lists TCP sockets in, IPv4 and IPv6. */
const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'] as const;

/** Whether this system lists its TCP sockets' owners (Linux, /proc readable). */
export function tcpOwnersListed(): boolean {
  return TABLES.some((table) => readTable(table) !== undefined);
}

/**
 * The uid of the socket at the other end of `ends` (it is on this machine), 'gone' when no socket
 * there is listed (it closed meanwhile), 'unknown' where the system lists none at all (not Linux,
 * or /proc unreadable).
 */
export function tcpPeerOwner(ends: Ends): number | 'gone' | 'unknown' {
  const local = endpointKey(ends.localAddress, ends.localPort);
  const remote = endpointKey(ends.remoteAddress, ends.remotePort);
  let listed = false;
  for (const table of TABLES) {
    const text = readTable(table);
    if (text === undefined) continue;
    listed = true;
    if (local === undefined || remote === undefined) continue;
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // The peer's row: its local end is our remote end, and its remote end ours.
      if (fields.length < 8 || procEndpoint(fields[1]!) !== remote || procEndpoint(fields[2]!) !== local) continue;
      const uid = Number(fields[7]);
      if (Number.isInteger(uid)) return uid;
    }
  }
  return listed ? 'gone' : 'unknown';
}

function readTable(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

/** An address and port as one comparable key: the address as its 16 bytes (IPv4 mapped into IPv6), in hex. */
function endpointKey(address: string | undefined, port: number | undefined): string | undefined {
  if (address === undefined || port === undefined) return undefined;
  const bytes = addressBytes(address);
  return bytes && `${bytes.toString('hex')}:${port}`;
}

function addressBytes(address: string): Buffer | undefined {
  if (isIPv4(address)) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...address.split('.').map(Number)]);
  if (!isIPv6(address)) return undefined;
  const text = address.replace(/%.*$/, '');
  // A dotted IPv4 tail (::ffff:127.0.0.1) is two groups.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hex = tail ? `${text.slice(0, tail.index)}${((Number(tail[1]) << 8) | Number(tail[2])).toString(16)}:${((Number(tail[3]) << 8) | Number(tail[4])).toString(16)}` : text;
  const [head = '', rest] = hex.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const filled = rest === undefined ? groups(head) : [...groups(head), ...Array<string>(8 - groups(head).length - groups(rest).length).fill('0'), ...groups(rest)];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of filled.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  return bytes;
}

/** An endpoint as /proc/net/tcp{,6} lists it: the address in 32-bit words of this machine's byte order, then the port in hex. */
function procEndpoint(field: string): string | undefined {
  const [address, port] = field.split(':');
  if (address === undefined || port === undefined || (address.length !== 8 && address.length !== 32)) return undefined;
  const words = Buffer.alloc(address.length / 2);
  for (let at = 0; at < address.length; at += 8) {
    const word = Number.parseInt(address.slice(at, at + 8), 16);
    if (endianness() === 'LE') words.writeUInt32LE(word, at / 2);
    else words.writeUInt32BE(word, at / 2);
  }
  const bytes = words.length === 4 ? Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]), words]) : words;
  return `${bytes.toString('hex')}:${Number.parseInt(port, 16)}`;
}
