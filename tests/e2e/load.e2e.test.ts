// Bounded under load: what a stranger (or a broken client) can make the daemon hold on to.
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/daemon/app.js';
import { mergeConfig } from '../../src/config.js';
import { createPolicy } from '../../src/daemon/policy.js';
import { createQuestionStore } from '../../src/daemon/store.js';
import { askOverHttp, hookBody } from '../hook-client.js';
import { freshPayload, loadFixture, killStrayProcesses, runHook, startDaemon, type Daemon } from './harness.js';

/** Sends raw bytes and resolves with what came back once the server closed the socket (or after `waitMs`). */
function rawExchange(port: number, bytes: string, waitMs: number): Promise<{ response: string; closedByServer: boolean; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let response = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ response, closedByServer: false, ms: performance.now() - started });
    }, waitMs);
    socket.on('data', (chunk) => (response += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ response, closedByServer: true, ms: performance.now() - started });
    });
    socket.on('error', () => {});
  });
}

describe('refused WebSocket upgrades', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
  });

  it('free their socket at once: 1,000 of them leave the daemon with no more descriptors, and a hook still gets through', async () => {
    const descriptors = () => readdirSync(`/proc/${daemon.child.pid}/fd`).length;
    const before = descriptors();
    // What a web page on another origin sends for `new WebSocket('ws://127.0.0.1:PORT/ws')`.
    const upgrade = [
      'GET /ws HTTP/1.1',
      `Host: 127.0.0.1:${daemon.port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      'Origin: http://evil.example',
      '',
      '',
    ].join('\r\n');
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(Array.from({ length: 100 }, () => rawExchange(daemon.port, upgrade, 5000)));
      expect(results.every((result) => result.closedByServer && result.response.startsWith('HTTP/1.1 403'))).toBe(true);
    }
    expect(descriptors()).toBeLessThanOrEqual(before + 3);
    const payload = freshPayload('01-single-select', 'after-upgrades');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForQuestion(payload.tool_use_id);
    expect(question.toolUseId).toBe(payload.tool_use_id);
    hook.child.kill('SIGTERM');
    await hook.result;
  });
});

describe('request timeouts', () => {
  const TOKEN = 'load-test-token-0123456789abcdefghijklmnop';
  let app: App;
  let port: number;
  beforeAll(async () => {
    const config = { ...mergeConfig({}, {}), files: { user: '', project: undefined }, errors: [], ignored: [] };
    app = await buildApp({
      store: createQuestionStore(),
      token: TOKEN,
      port: 0,
      version: 'test',
      pid: 1,
      logger: false,
      timeouts: { headersMs: 300, requestMs: 600 },
      planQuestion: createPolicy({ configFor: () => config, log: () => {} }),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('close a request whose body never finishes (408), and 100 of them at once', async () => {
    const slow = `POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"co`;
    const results = await Promise.all(Array.from({ length: 100 }, () => rawExchange(port, slow, 10_000)));
    for (const result of results) {
      expect(result.closedByServer).toBe(true);
      expect(result.response).toMatch(/^HTTP\/1\.1 408/);
    }
  });

  it('never cut a hook question held open longer than the request timeout: its answer still arrives', async () => {
    const asked = askOverHttp({ port, token: TOKEN, body: hookBody(loadFixture('01-single-select.input.json')) });
    let pending: Array<{ id: string }> = [];
    await expect
      .poll(async () => (pending = (await app.inject({ method: 'GET', url: '/api/questions', headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` } })).json<{ questions: Array<{ id: string }> }>().questions).length)
      .toBe(1);
    await new Promise((wait) => setTimeout(wait, 1500)); // well past the 600 ms request timeout, on purpose
    const answered = await app.inject({
      method: 'POST',
      url: `/api/questions/${pending[0]!.id}/answer`,
      headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` },
      payload: { responses: [{ question: 'Which database should the new orders service use?', selected: ['SQLite'] }] },
    });
    expect(answered.statusCode).toBe(200);
    const reply = await asked;
    expect(reply.lines.at(-1)).toMatchObject({ event: 'settled', status: 'answered' });
  });
});
