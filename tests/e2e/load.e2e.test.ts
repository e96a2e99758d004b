// Bounded under load: what a stranger (or a broken client) can make the daemon hold on to.
import { readdirSync } from 'node:fs';
import WebSocket from 'ws';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/daemon/app.js';
import { mergeConfig } from '../../src/config.js';
import { createPolicy } from '../../src/daemon/asks/policy.js';
import { createAskStore } from '../../src/daemon/asks/store.js';
import { freshPayload, loadFixture } from '../stack/fixtures.js';
import { killStrayProcesses, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { askOverHttp, hookBody } from '../stack/hook-client.js';

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
    const question = await daemon.waitForAsk(payload.tool_use_id);
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
      store: createAskStore(),
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
      .poll(async () => (pending = (await app.inject({ method: 'GET', url: '/api/asks', headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` } })).json<{ asks: Array<{ id: string }> }>().asks).length)
      .toBe(1);
    await new Promise((wait) => setTimeout(wait, 1500)); // well past the 600 ms request timeout, on purpose
    const answered = await app.inject({
      method: 'POST',
      url: `/api/asks/${pending[0]!.id}/answer`,
      headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` },
      payload: { responses: [{ question: 'Which database should the new orders service use?', selected: ['SQLite'] }] },
    });
    expect(answered.statusCode).toBe(200);
    const reply = await asked;
    expect(reply.lines.at(-1)).toMatchObject({ event: 'settled', status: 'answered' });
  });
});

/** A WebSocket listener as the CLI connects (bearer token), with every message it receives. */
async function listen(target: Daemon): Promise<{ socket: WebSocket; messages: Array<{ type: string; message?: string | null; ask?: { toolUseId: string } }> }> {
  const socket = new WebSocket(`ws://127.0.0.1:${target.port}/ws`, { headers: { authorization: `Bearer ${target.token}` } });
  const messages: Array<{ type: string }> = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as { type: string }));
  await new Promise((open, fail) => socket.once('open', open).once('error', fail));
  return { socket, messages };
}

describe('the pages and listeners a daemon keeps', () => {
  const daemons: Daemon[] = [];
  afterAll(async () => {
    await killStrayProcesses();
    for (const daemon of daemons) await daemon.stop();
  });

  it('drops a peer that stops answering pings, so that "nobody watching" can act again', async () => {
    const daemon = await startDaemon({ env: { ASKBRIDGE_TEST_HEARTBEAT_MS: '200' }, config: { whenNobodyWatching: 'act', onTimeout: 'recommended', waitSeconds: 600 } });
    daemons.push(daemon);
    const dead = await listen(daemon);
    await daemon.waitForLog((entry) => entry.msg === 'watcher connected');
    // A laptop that went to sleep: the connection stays, nothing answers.
    (dead.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    await daemon.waitForLog((entry) => entry.msg === 'watcher left', 5000, 'the dead peer dropped');
    const started = performance.now();
    const result = await runHook(freshPayload('01-single-select', 'nobody-watching'), daemon.env).result;
    expect(performance.now() - started).toBeLessThan(5000);
    expect(JSON.parse(result.stdout).hookSpecificOutput.updatedInput.answers).toEqual({ 'Which database should the new orders service use?': 'PostgreSQL (Recommended)' });
    dead.socket.terminate();
  });

  it('closes a listener that stops reading once its send buffer is full, and the others get every message', async () => {
    const daemon = await startDaemon({ config: { waitSeconds: 600 } });
    daemons.push(daemon);
    const reader = await listen(daemon);
    const stuck = await listen(daemon);
    (stuck.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    // Questions with large previews, held open: each one is broadcast to both.
    const preview = 'x'.repeat(90_000);
    const held: Array<Promise<unknown>> = [];
    for (let index = 0; index < 120; index++) {
      const payload = freshPayload('01-single-select', `big-${index}`);
      payload.tool_input.questions[0]!.options[0]!.preview = `${preview}${index}`;
      held.push(askOverHttp({ port: daemon.port, token: daemon.token, body: hookBody(payload) }).catch(() => undefined));
    }
    await expect.poll(() => reader.messages.filter((message) => message.type === 'added').length, { timeout: 30_000 }).toBe(120);
    // The stuck one cannot even read that it was closed; the daemon's count says it.
    await daemon.waitForLog((entry) => entry.msg === 'watcher left', 10_000, 'the stuck listener dropped');
    expect((await daemon.api<{ watchers: number }>('GET', '/api/status')).body.watchers).toBe(1);
    reader.socket.close();
    stuck.socket.terminate();
    await daemon.stop(); // ends the held questions
    await Promise.all(held);
  });

  it('over the pending limit, refuses a new question at once (the terminal asks) and tells the page', async () => {
    const daemon = await startDaemon({ env: { ASKBRIDGE_TEST_MAX_PENDING: '3' }, config: { waitSeconds: 600 } });
    daemons.push(daemon);
    const page = await listen(daemon);
    const payloads = [0, 1, 2].map((index) => freshPayload('01-single-select', `limit-${index}`));
    const waiting = payloads.map((payload) => runHook(payload, daemon.env));
    await Promise.all(payloads.map((payload) => daemon.waitForAsk(payload.tool_use_id)));
    const started = performance.now();
    const refused = await runHook(freshPayload('01-single-select', 'limit-over'), { ...daemon.env, ASKBRIDGE_DEBUG: '1' }).result;
    expect(refused).toMatchObject({ code: 0, stdout: '' });
    expect(refused.stderr).toContain('503');
    expect(performance.now() - started).toBeLessThan(5000);
    await expect.poll(() => page.messages.some((message) => message.type === 'banner' && /3 questions are waiting: new ones go to their terminal/.test(message.message ?? ''))).toBe(true);
    for (const hook of waiting) hook.child.kill('SIGTERM');
    await Promise.all(waiting.map((hook) => hook.result));
    const overloaded = page.messages.findIndex((message) => message.type === 'banner' && message.message !== null && message.message !== undefined);
    await expect.poll(() => page.messages.slice(overloaded + 1).some((message) => message.type === 'banner' && message.message === null)).toBe(true);
    page.socket.close();
  });
});
