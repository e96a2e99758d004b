// --listen as the LAN meets it: the app behind the https server of tls-listener.ts, on real sockets
// (accepted by a server that stands where the keeper does), with a self-signed certificate. A connection that never completes TLS is closed at the handshake
// deadline, even one that keeps sending a byte now and then; past the connection cap, new ones are
// closed at once and the refusals are logged once, not once each; a local http hook's question is
// answered all the while, and once the flood is gone a real TLS client is served again.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDSHAKE_DEADLINE_MS, MAX_LISTEN_CONNECTIONS, readListenTls, serveTls, type TlsDoor } from '../../src/daemon/tls-listener.js';
import { parsePublicUrl, type PublicUrl } from '../../src/public-url.js';
import { buildTestApp, HOOK_KEY, LOCAL, type TestApp } from '../stack/app.js';
import { now } from '../stack/clock.js';
import { startDaemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { FRONT_NAME, freePort, opensslAvailability, selfSignedCertificate, throughFront } from '../stack/tls-front.js';

const openssl = opensslAvailability('the --listen limits tests');

type LogLine = { level: number; msg: string; [field: string]: unknown };

/** A raw TCP connection to --listen that sends no ClientHello: when it connected, and when it closed. */
type RawConnection = { socket: Socket; connectedAt: number; closed: Promise<{ at: number; data: number }> };
function rawConnection(port: number): Promise<RawConnection> {
  return new Promise((connected, failed) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = 0;
    socket.on('data', (chunk: Buffer) => (data += chunk.length));
    const closed = new Promise<{ at: number; data: number }>((done) => socket.once('close', () => done({ at: now(), data })));
    socket.once('error', () => {}); // a reset is one way of being closed
    socket.once('connect', () => connected({ socket, connectedAt: now(), closed }));
    socket.once('close', () => failed(new Error('closed before it connected')));
  });
}

describe.skipIf(!openssl.available)('--listen limits (tls-listener.ts)', () => {
  let dir: string;
  let tested: TestApp;
  let loopbackPort: number;
  let lan: { port: number; ca: string };
  let door: TlsDoor;
  let keeper: Server;
  const logs: LogLine[] = [];
  const logged = (message: string) => logs.filter((line) => line.msg === message);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'askbridge-listen-'));
    const certificate = selfSignedCertificate(dir);
    const port = await freePort();
    const publicUrl = parsePublicUrl(`https://${FRONT_NAME}:${port}`) as PublicUrl;
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
    tested = await buildTestApp({ publicUrl, logger });
    loopbackPort = (await tested.listen()).port;
    door = serveTls(tested.app, readListenTls({ address: `127.0.0.1:${port}`, host: '127.0.0.1', port, tlsCert: certificate.certPath, tlsKey: certificate.keyPath }, publicUrl));
    // Where the keeper stands: it accepts on --listen and hands each connection to the daemon's door.
    keeper = createServer((socket) => door.accept(socket));
    await new Promise<void>((listening) => keeper.listen(port, '127.0.0.1', listening));
    lan = { port, ca: certificate.ca };
  });
  afterAll(async () => {
    await new Promise((closed) => keeper?.close(closed));
    await door?.close();
    await tested?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('closes a connection that has not completed TLS at the deadline, even one that keeps sending a byte now and then', async () => {
    const silent = await rawConnection(lan.port);
    const dribbling = await rawConnection(lan.port);
    // The start of a TLS record that announces 512 bytes, then one byte every 500 ms: never a whole ClientHello.
    const header = [0x16, 0x03, 0x01, 0x02, 0x00];
    let sent = 0;
    let lastSentAt = 0;
    const drip = setInterval(() => {
      if (dribbling.socket.destroyed) return;
      dribbling.socket.write(Buffer.from([header[sent++] ?? 0]));
      lastSentAt = now();
    }, 500);
    try {
      for (const connection of [silent, dribbling]) {
        const closed = await connection.closed;
        expect(closed.data).toBe(0);
        expect(closed.at - connection.connectedAt).toBeGreaterThanOrEqual(HANDSHAKE_DEADLINE_MS - 50);
        expect(closed.at - connection.connectedAt).toBeLessThan(HANDSHAKE_DEADLINE_MS + 2_000);
      }
    } finally {
      clearInterval(drip);
    }
    // It kept sending until close to the deadline: a timer reset by each byte would have closed it
    // a whole deadline after the last one, not this soon.
    expect(sent).toBeGreaterThanOrEqual(2);
    expect((await dribbling.closed).at - lastSentAt).toBeLessThan(HANDSHAKE_DEADLINE_MS);
    // Two connections, one line: it says what happened and the deadline.
    expect(logged('connections on --listen did not complete TLS in time: closed')).toEqual([expect.objectContaining({ deadlineMs: HANDSHAKE_DEADLINE_MS })]);
  });

  it('closes new connections at once past the cap, logs that once, and a local http hook is answered meanwhile', async () => {
    const held = await Promise.all(Array.from({ length: MAX_LISTEN_CONNECTIONS }, () => rawConnection(lan.port)));
    // The kernel hands connections to the server in the order they came: these come after the cap is full.
    const extra = await Promise.all(Array.from({ length: 20 }, () => rawConnection(lan.port)));
    for (const connection of extra) {
      const closed = await connection.closed;
      expect(closed.data).toBe(0);
      // At once: long before the handshake deadline would have closed it.
      expect(closed.at - connection.connectedAt).toBeLessThan(HANDSHAKE_DEADLINE_MS / 2);
    }
    expect(logged('too many connections on --listen: new ones are closed at once until some end')).toEqual([expect.objectContaining({ limit: MAX_LISTEN_CONNECTIONS })]);
    // A real client is refused too while the cap is full: the LAN gets no more of the daemon.
    await expect(throughFront(lan, { method: 'GET', path: '/api/session' })).rejects.toThrow();

    // Meanwhile on loopback: Claude Code's http hook asks, and a person answers.
    const hook = postAsHttpHook({ port: loopbackPort, key: HOOK_KEY, payload: freshPayload('01-single-select', 'listen-flood') });
    const [question] = await tested.waitForPending();
    const answer = await tested.app.inject({
      method: 'POST',
      url: `/api/asks/${question.id}/answer`,
      headers: { ...LOCAL, host: `127.0.0.1:${loopbackPort}` },
      payload: { responses: [{ question: question.questions[0]!.question, selected: ['SQLite'] }] },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const reply = await hook.response;
    expect(reply.statusCode).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
    // The held connections were all still open while the hook was answered.
    expect(held.filter((connection) => connection.socket.destroyed)).toHaveLength(0);

    // The deadline frees the held ones; then a TLS client is served (the app answers: this page is not paired).
    await Promise.all(held.map((connection) => connection.closed));
    const served = await throughFront(lan, { method: 'GET', path: '/api/session' });
    expect(served.status).toBe(401);
  });
});

describe.skipIf(!openssl.available)('--listen on a real daemon (askbridge start --listen)', () => {
  it('serves TLS there with the handshake deadline, and again after its daemon was killed and restarted by the keeper', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'askbridge-listen-daemon-'));
    const certificate = selfSignedCertificate(dir);
    const port = await freePort();
    const daemon = await startDaemon({
      args: ['--listen', `127.0.0.1:${port}`, '--tls-cert', certificate.certPath, '--tls-key', certificate.keyPath, '--public-url', `https://${FRONT_NAME}:${port}`],
    });
    try {
      const lan = { port, ca: certificate.ca };
      // The daemon's own page guard answers there, over TLS with the configured certificate.
      expect((await throughFront(lan, { method: 'GET', path: '/api/session' })).status).toBe(401);
      const silent = await rawConnection(port);
      const closed = await silent.closed;
      expect(closed.at - silent.connectedAt).toBeGreaterThanOrEqual(HANDSHAKE_DEADLINE_MS - 50);
      expect(closed.at - silent.connectedAt).toBeLessThan(HANDSHAKE_DEADLINE_MS + 2_000);

      // --listen belongs to the daemon process: the one the keeper starts after a crash serves it again.
      const before = daemon.daemonPid();
      process.kill(before, 'SIGKILL');
      await daemon.waitForLog((entry) => entry.msg === 'askbridge is listening' && entry.pid !== before, 20_000, 'the keeper to restart the daemon');
      expect((await throughFront(lan, { method: 'GET', path: '/api/session' })).status).toBe(401);
    } finally {
      await daemon.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
