// Bounded under load: what a stranger (or a broken client) can make the daemon hold on to.
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, TOKEN, type TestApp } from '../stack/app.js';
import { freshPayload, loadFixture } from '../stack/fixtures.js';
import { killStrayProcesses, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { askOverHttp, hookBody, postAsHttpHook } from '../stack/hook-client.js';
import { MACHINE_HEADER } from '../../src/http-hook.js';
import { waitUntil } from '../stack/clock.js';
import { listenAsProgram } from '../stack/live-feed.js';

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
  let testApp: TestApp;
  let port: number;
  let local: { host: string; authorization: string };
  beforeAll(async () => {
    testApp = await buildTestApp({ timeouts: { headersMs: 300, requestMs: 600 } });
    ({ port, local } = await testApp.listen());
  });
  afterAll(async () => {
    await testApp?.close();
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
    const [question] = await testApp.waitForPending();
    await new Promise((wait) => setTimeout(wait, 1500)); // well past the 600 ms request timeout, on purpose
    const answered = await testApp.app.inject({
      method: 'POST',
      url: `/api/asks/${question.id}/answer`,
      headers: local,
      payload: { responses: [{ question: 'Which database should the new orders service use?', selected: ['SQLite'] }] },
    });
    expect(answered.statusCode).toBe(200);
    const reply = await asked;
    expect(reply.lines.at(-1)).toMatchObject({ event: 'settled', status: 'answered' });
  });
});

describe('the pages and listeners a daemon keeps', () => {
  const daemons: Daemon[] = [];
  afterAll(async () => {
    await killStrayProcesses();
    for (const daemon of daemons) await daemon.stop();
  });

  it('drops a peer that stops answering pings, so that "nobody watching" can act again', async () => {
    const daemon = await startDaemon({ env: { ASKBRIDGE_TEST_HEARTBEAT_MS: '200' }, config: { whenNobodyWatching: 'act', onTimeout: 'recommended', waitSeconds: 600 } });
    daemons.push(daemon);
    const dead = await listenAsProgram(daemon);
    await daemon.waitForLog((entry) => entry.msg === 'watcher connected');
    // A laptop that went to sleep: the connection stays, nothing answers.
    (dead.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    await daemon.waitForLog((entry) => entry.msg === 'watcher left', 5000, 'the dead peer dropped');
    const payload = freshPayload('01-single-select', 'nobody-watching');
    const result = await runHook(payload, daemon.env).result;
    expect(JSON.parse(result.stdout).hookSpecificOutput.updatedInput.answers).toEqual({ 'Which database should the new orders service use?': 'PostgreSQL (Recommended)' });
    // Answered because nobody was watching when it was asked, not after its 600 s wait.
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toMatchObject({ kind: 'policy', trigger: 'nobody-watching' });
    dead.socket.terminate();
  });

  it('closes a listener that stops reading once its send buffer is full, and the others get every message', async () => {
    const daemon = await startDaemon({ config: { waitSeconds: 600 } });
    daemons.push(daemon);
    const reader = await listenAsProgram(daemon);
    const stuck = await listenAsProgram(daemon);
    (stuck.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    // Questions with large previews, held open: each one is broadcast to both. From three askers
    // (the command hook, the http hook here and from another machine), each within its share of what may wait.
    const preview = 'x'.repeat(90_000);
    const held: Array<Promise<unknown>> = [];
    const key = daemon.hookKey();
    for (let index = 0; index < 120; index++) {
      const payload = freshPayload('01-single-select', `big-${index}`);
      payload.tool_input.questions[0]!.options[0]!.preview = `${preview}${index}`;
      if (index % 3 === 0) held.push(askOverHttp({ port: daemon.port, token: daemon.token, body: hookBody(payload) }).catch(() => undefined));
      else held.push(postAsHttpHook({ port: daemon.port, key, payload, headers: index % 3 === 1 ? {} : { [MACHINE_HEADER]: 'build-box' } }).response.catch(() => undefined));
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
    // 4 in all: one per asker, two per credential.
    const daemon = await startDaemon({ env: { ASKBRIDGE_TEST_MAX_PENDING: '4' }, config: { waitSeconds: 600 } });
    daemons.push(daemon);
    const page = await listenAsProgram(daemon);
    const key = daemon.hookKey();
    const payloads = [0, 1, 2].map((index) => freshPayload('01-single-select', `limit-${index}`));
    const command = runHook(payloads[0]!, daemon.env);
    const http = [postAsHttpHook({ port: daemon.port, key, payload: payloads[1]! }), postAsHttpHook({ port: daemon.port, key, payload: payloads[2]!, headers: { [MACHINE_HEADER]: 'laptop' } })];
    const script = fetch(`http://127.0.0.1:${daemon.port}/api/asks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ asker: { kind: 'script', name: 'limit' }, questions: [{ question: 'Go?', header: 'Go', options: [{ label: 'Yes', description: '' }, { label: 'No', description: '' }] }] }),
    }).catch(() => undefined);
    await Promise.all(payloads.map((payload) => daemon.waitForAsk(payload.tool_use_id)));
    await waitUntil(async () => ((await daemon.pending()).length === 4 ? true : undefined), 10_000, 'four questions waiting');
    const refused = await runHook(freshPayload('01-single-select', 'limit-over'), { ...daemon.env, ASKBRIDGE_DEBUG: '1' }).result;
    // Refused at once (503), not held: the terminal asks.
    expect(refused).toMatchObject({ code: 0, stdout: '' });
    expect(refused.stderr).toContain('503');
    await expect.poll(() => page.messages.some((message) => message.type === 'banner' && /As many questions as askbridge keeps are waiting: new ones go to their terminal/.test(message.message ?? ''))).toBe(true);
    command.child.kill('SIGTERM');
    await command.result;
    const overloaded = page.messages.findIndex((message) => message.type === 'banner' && message.message !== null && message.message !== undefined);
    await expect.poll(() => page.messages.slice(overloaded + 1).some((message) => message.type === 'banner' && message.message === null)).toBe(true);
    page.socket.close();
    for (const asked of http) asked.abort();
    await Promise.all(http.map((asked) => asked.response.catch(() => undefined)));
    await daemon.stop(); // ends the script's question
    await script;
  });
});
