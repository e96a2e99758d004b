// Requests refused before anyone is known, against a real daemon writing its rotated log files
// (`start --background`, with a test-only small rotation size): a flood of them is counted and summed
// up, never a line each, so it cannot rotate a question's lines out of the kept files. And a body
// that is not JSON gets 415 with a clear error, over real HTTP.
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_FILES_KEPT } from '../../src/daemon/logger.js';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH } from '../../src/http-hook.js';
import { startDaemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses, parseJson, runCli, startBackgroundDaemon } from '../stack/processes.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

type Sent = { method: string; path: string; headers?: Record<string, string>; body?: string };

/** One request over a kept-alive connection; resolves with its status and body. */
function send(port: number, agent: Agent, { method, path, headers = {}, body }: Sent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { host: `127.0.0.1:${port}`, ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.end(body);
  });
}

/** Every line of every log file kept in the state directory. */
function keptLogLines(home: string): Array<Record<string, unknown>> {
  const dir = join(home, 'logs');
  return readdirSync(dir)
    .filter((name) => /^daemon\.\d+\.log$/.test(name))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => parseJson<Record<string, unknown>>(line, 'a log line'));
}

describe('a flood of refused requests', () => {
  it("is summed up in a line, and the question's lines stay in the kept log files", async () => {
    // 16 KB files: the kept files hold about 80 KB, which a line per refusal would fill many times over.
    const { home, env, port, key, stop } = await startBackgroundDaemon(16 * 1024);
    cleanups.push(stop);

    const payload = freshPayload('01-single-select', 'before-flood');
    const asked = postAsHttpHook({ port, key, payload });
    const pending = await runCli(['pending', '--json'], env);
    const id = parseJson<Array<{ id: string }>>(pending.stdout, 'pending')[0]?.id;
    expect(id).toBeDefined();
    expect((await runCli(['answer', id!, '--pick', '1=1'], env)).code).toBe(0);
    expect((await asked.response).statusCode).toBe(200);

    // Every way in that is refused before a credential is known, and refusals of what such a request sends.
    const kinds: Sent[] = [
      { method: 'GET', path: '/api/asks' },
      { method: 'GET', path: '/api/asks', headers: { authorization: 'Bearer not-the-token' } },
      { method: 'GET', path: '/api/status', headers: { host: 'evil.example' } },
      { method: 'POST', path: '/api/asks/x/answer', headers: { origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' },
      { method: 'POST', path: HTTP_HOOK_PATH, headers: { [HOOK_KEY_HEADER]: 'not-the-key', 'content-type': 'application/json' }, body: '{}' },
      { method: 'POST', path: HTTP_HOOK_PATH, headers: { 'content-type': 'text/plain' }, body: 'flood' },
      { method: 'GET', path: '/no/such/page/at/all' },
    ];
    const FLOOD = 2000;
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < FLOOD) {
          const { status } = await send(port, agent, kinds[next++ % kinds.length]!);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    agent.destroy();
    // Stopped, so the last summary is written.
    expect((await runCli(['stop'], env)).code).toBe(0);

    const lines = keptLogLines(home);
    expect(readdirSync(join(home, 'logs')).filter((name) => name.endsWith('.log') && name !== 'current.log').length).toBeLessThanOrEqual(LOG_FILES_KEPT + 1);
    expect(lines.filter((line) => line.askId === id).map((line) => line.msg)).toEqual(expect.arrayContaining(['question received', 'question answered', 'question settled']));
    expect(lines.filter((line) => line.msg === 'request refused')).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual([401, 403, 415]);
    const summaries = lines.filter((line) => line.msg === 'requests refused without a valid credential') as Array<{ refused: Record<string, number>; total: number }>;
    expect(summaries.reduce((sum, summary) => sum + summary.total, 0)).toBe(FLOOD);
    const refused = summaries.reduce<Record<string, number>>((all, summary) => {
      for (const [kind, count] of Object.entries(summary.refused)) all[kind] = (all[kind] ?? 0) + count;
      return all;
    }, {});
    // Counted by status, reason and route pattern: never the URL or anything else the request chose.
    expect(Object.keys(refused).sort()).toEqual(
      [
        '401 bad_hook_key POST /api/hook/ask',
        '401 bad_token GET /api/asks',
        '401 unauthorized GET /api/asks',
        '401 unauthorized GET unknown',
        '403 forbidden_host GET /api/status',
        '403 forbidden_origin POST /api/asks/:id/answer',
        '415 unsupported_media_type POST /api/hook/ask',
      ].sort(),
    );
  });
});

describe('a body that is not JSON', () => {
  it('gets 415 with a clear error, from a credentialed client as from anyone; JSON still gets through', async () => {
    const daemon = await startDaemon();
    cleanups.push(() => daemon.stop());
    const agent = new Agent({ keepAlive: true });
    cleanups.push(async () => agent.destroy());
    const local = { authorization: `Bearer ${daemon.token}` };
    const hookKey = { [HOOK_KEY_HEADER]: daemon.hookKey() };
    const payload = JSON.stringify(freshPayload('01-single-select', 'text-plain'));
    const refusals: Array<[string, Sent]> = [
      ['text/plain to the http hook', { method: 'POST', path: HTTP_HOOK_PATH, headers: { ...hookKey, 'content-type': 'text/plain' }, body: payload }],
      ['text/plain; charset to the http hook', { method: 'POST', path: HTTP_HOOK_PATH, headers: { ...hookKey, 'content-type': 'text/plain; charset=utf-8' }, body: payload }],
      ['a form to ask', { method: 'POST', path: '/api/asks', headers: { ...local, 'content-type': 'application/x-www-form-urlencoded' }, body: 'questions=1' }],
      ['text/plain to ask', { method: 'POST', path: '/api/asks', headers: { ...local, 'content-type': 'text/plain' }, body: '{"questions":[]}' }],
      ['multipart to an answer', { method: 'POST', path: '/api/asks/00000000-0000-4000-8000-000000000000/answer', headers: { ...local, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' }],
    ];
    for (const [what, sent] of refusals) {
      const reply = await send(daemon.port, agent, sent);
      expect(reply.status, what).toBe(415);
      expect(parseJson(reply.body, what), what).toEqual({ error: { code: 'unsupported_media_type', message: 'the body must be JSON, sent with Content-Type: application/json' } });
    }
    expect(await daemon.pending()).toEqual([]);

    // The same question as JSON is asked (and answered by nobody here: the http hook's connection closes).
    const asked = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: JSON.parse(payload) });
    asked.response.catch(() => {}); // aborted below
    const view = await daemon.waitForAsk(JSON.parse(payload).tool_use_id);
    expect(view.status).toBe('pending');
    asked.abort();
  });
});
