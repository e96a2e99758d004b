// The kernel's table of TCP sockets, read as askbridge reads it (tcp-table.ts), against real sockets
// of this process: each end named as Node names it (an IPv6 one in brackets, an IPv4 one mapped into
// IPv6 as plain IPv4), who listens, and how many bytes wait unread.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endpoint, listenerUid, peerUid, readTcpTable } from '../../src/tcp-table.js';
import { waitUntil } from '../stack/clock.js';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A server on HOST that keeps what it accepts paused (it reads nothing), and the first connection it accepts. */
async function pausedServer(host: string, options: { ipv6Only?: boolean } = {}): Promise<{ port: number; accepted: Promise<Socket> }> {
  let accept: (socket: Socket) => void = () => {};
  const accepted = new Promise<Socket>((resolve) => (accept = resolve));
  const server: Server = createServer({ pauseOnConnect: true }, accept);
  await new Promise<void>((listening) => server.listen({ host, port: 0, ...options }, listening));
  closers.push(() => server.close());
  return { port: (server.address() as AddressInfo).port, accepted };
}

function connected(port: number, host: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, host, () => resolve(socket));
    closers.push(() => socket.destroy());
  });
}

describe.skipIf(process.platform !== 'linux')('the TCP table (Linux /proc/net/tcp and tcp6)', () => {
  it('names a listening IPv6 loopback socket as systemd does, with its owner', async () => {
    const { port } = await pausedServer('::1', { ipv6Only: true });
    expect(listenerUid(readTcpTable()!, `[::1]:${port}`)).toBe(process.getuid!());
    expect(listenerUid(readTcpTable()!, `127.0.0.1:${port}`)).toBeUndefined();
  });

  it('finds both ends of a connection by the names Node gives them, and the bytes one end has not read', async () => {
    // A socket that takes IPv4 and IPv6: the IPv4 connection's ends are IPv4 addresses mapped into IPv6 there.
    const { port, accepted } = await pausedServer('::');
    const client = await connected(port, '127.0.0.1');
    const server = await accepted;
    expect(server.localAddress).toBe('::ffff:127.0.0.1');
    await new Promise((written) => client.write('hello', written));
    const here = endpoint(server.localAddress!, server.localPort!);
    const there = endpoint(server.remoteAddress!, server.remotePort!);
    expect(here).toBe(`127.0.0.1:${port}`);
    const table = readTcpTable()!;
    expect(table.find((row) => row.local === here && row.remote === there)).toMatchObject({ state: 'established', unread: 5, uid: process.getuid!() });
    expect(table.find((row) => row.local === there && row.remote === here)).toMatchObject({ state: 'established', unread: 0 });
    // From the client: the user at the other end is the server's (this process's).
    expect(peerUid(table, client)).toBe(process.getuid!());
    expect(peerUid(table, { localAddress: client.localAddress, localPort: 1, remoteAddress: client.remoteAddress, remotePort: client.remotePort })).toBeUndefined();
    client.end();
    await waitUntil(() => (readTcpTable()!.find((row) => row.local === here && row.remote === there)?.state === 'peer-closed' ? true : undefined), 5_000, 'the server end to see the client close');
  });
});
