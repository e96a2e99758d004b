// POST /api/asks: a script or an agent asks, through the same inbox, policies and history as a hook.
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import { HOOK_KEY_HEADER } from '../../src/http-hook.js';
import type { AskRequest, AskView } from '../../src/protocol.js';
import { buildTestApp, HOOK_KEY, HOST, LOCAL, TOKEN, type TestApp } from '../stack/app.js';

const question = (text: string, multiSelect = false) => ({
  question: text,
  header: 'Deploy',
  multiSelect,
  options: [
    { label: 'Ship it (Recommended)', description: 'Deploy now' },
    { label: 'Wait', description: 'Deploy tomorrow' },
  ],
});
const ASK: AskRequest = { questions: [question('Deploy the release now?')], asker: { kind: 'script', name: 'nightly.sh' }, cwd: '/work/project' };

let daemon: TestApp;
let app: App;

beforeEach(async () => {
  daemon = await buildTestApp();
  app = daemon.app;
});
afterEach(async () => {
  await daemon.close();
});

function ask(body: unknown = ASK, headers: Record<string, string> = LOCAL) {
  return app.inject({ method: 'POST', url: '/api/asks', headers: { host: HOST, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
}

describe('POST /api/asks', () => {
  it('waits until a person answers, and replies with the settled question and its answers', async () => {
    const asking = ask();
    const [pending] = await daemon.waitForPending();
    expect(pending.asker).toEqual({ kind: 'script', name: 'nightly.sh' });
    expect(pending.cwd).toBe('/work/project');
    expect(pending.timeout.summary).toBe('the asker will be told nobody answered');
    const answered = await app.inject({ method: 'POST', url: `/api/asks/${pending.id}/answer`, headers: LOCAL, payload: { responses: [{ question: 'Deploy the release now?', selected: ['Wait'], notes: 'after the freeze' }] } });
    expect(answered.statusCode).toBe(200);

    const reply = await asking;
    expect(reply.statusCode).toBe(200);
    const settled = reply.json<{ ask: AskView }>().ask;
    expect(settled).toMatchObject({ id: pending.id, status: 'answered', answers: { 'Deploy the release now?': 'Wait' }, notes: { 'Deploy the release now?': 'after the freeze' }, source: { kind: 'person', client: 'cli' } });
  });

  it('takes the hook key, which may only ask, as well as the token', async () => {
    daemon.setConfig({ waitSeconds: 0, onTimeout: 'recommended' });
    const reply = await ask(ASK, { [HOOK_KEY_HEADER]: HOOK_KEY });
    expect(reply.statusCode).toBe(200);
    expect(reply.json<{ ask: AskView }>().ask).toMatchObject({ status: 'answered', answers: { 'Deploy the release now?': 'Ship it (Recommended)' }, source: { kind: 'policy', action: 'recommended' } });
  });

  it('refuses a missing or wrong credential, and a browser, and asks nothing', async () => {
    const cases: Array<[Record<string, string>, number, string]> = [
      [{}, 401, 'unauthorized'],
      [{ authorization: `Bearer ${TOKEN}x` }, 401, 'bad_token'],
      [{ [HOOK_KEY_HEADER]: `${HOOK_KEY}x` }, 401, 'bad_hook_key'],
      [{ ...LOCAL, origin: `http://${HOST}` }, 403, 'hook_from_browser'],
    ];
    for (const [headers, status, code] of cases) {
      const reply = await ask(ASK, headers);
      expect(reply.statusCode, JSON.stringify(headers)).toBe(status);
      expect(reply.json<{ error: { code: string } }>().error.code).toBe(code);
    }
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: LOCAL })).json()).toEqual({ asks: [] });
  });

  it('takes four questions, as Claude Code does, unless askMaxQuestions allows more', async () => {
    daemon.setConfig({ waitSeconds: 0, onTimeout: 'recommended' });
    const five = Array.from({ length: 5 }, (_, index) => question(`Question ${index + 1}?`));
    const refused = await ask({ ...ASK, questions: five });
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ error: { code: string; message: string } }>().error).toEqual({ code: 'too_many_questions', message: '5 questions at once, but the configuration allows 4 (askMaxQuestions, up to 10)' });
    expect((await ask({ ...ASK, questions: five.slice(0, 4) })).statusCode).toBe(200);
  });

  it('takes up to ten questions when the configuration allows them, and refuses eleven naming the field', async () => {
    daemon.setConfig({ waitSeconds: 0, onTimeout: 'recommended', askMaxQuestions: 10 });
    const ten = Array.from({ length: 10 }, (_, index) => question(`Question ${index + 1}?`));
    expect((await ask({ ...ASK, questions: ten })).json<{ ask: AskView }>().ask.questions).toHaveLength(10);
    const eleven = await ask({ ...ASK, questions: [...ten, question('Question 11?')] });
    expect(eleven.statusCode).toBe(400);
    expect(eleven.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^invalid ask: questions: /) });
  });

  it('refuses bad input with a 400 for each problem, and asks nothing', async () => {
    const bad = [
      { ...ASK, asker: { kind: 'claude', name: 'x' } },
      { ...ASK, asker: { kind: 'script', name: ' ' } },
      { ...ASK, questions: [question('Same?'), question('Same?')] },
      { ...ASK, questions: [{ ...question('One option?'), options: [{ label: 'Only', description: '' }] }] },
      { ...ASK, waitSeconds: 0 },
      { questions: ASK.questions },
      { ...ASK, surprise: true },
    ];
    for (const body of bad) {
      const reply = await ask(body);
      expect(reply.statusCode, JSON.stringify(body)).toBe(400);
      expect(reply.json<{ error: { details: string[] } }>().error.details.length).toBeGreaterThan(0);
    }
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: LOCAL })).json()).toEqual({ asks: [] });
  });

  it("waits no longer than the asker's waitSeconds, then says nobody answered", async () => {
    const reply = await ask({ ...ASK, waitSeconds: 1 });
    expect(reply.json<{ ask: AskView }>().ask).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } });
  });

  it('withdraws the question when the asker goes away', async () => {
    const { port, local } = await daemon.listen();
    const body = JSON.stringify(ASK);
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/asks', headers: { ...local, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    request.on('error', () => {});
    request.end(body);
    const [pending] = await daemon.waitForPending();
    request.destroy();
    const gone = await vi.waitUntil(async () => {
      const view = await daemon.ask(pending.id);
      return view.status === 'pending' ? undefined : view;
    });
    expect(gone).toMatchObject({ status: 'cancelled', source: { kind: 'hook-gone' } });
  });
});
