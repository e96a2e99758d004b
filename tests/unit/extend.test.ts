// More time for a person who is answering, through the real app (inject): POST
// /api/asks/:id/extend moves the deadline, every page hears `updated`, the command hook hears
// `extended` (so that its own deadline moves too), and the policy waits for the new deadline. And the
// terminal's interactive answer, which asks for it as the page does.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import type { ConfigFileInput } from '../../src/config.js';
import { MORE_TIME_EVERY_MS, MORE_TIME_WHEN_LEFT_MS, moreTimeOnKeys } from '../../src/cli/flow.js';
import { EXTEND_STEP_MS } from '../../src/daemon/limits.js';
import { MAX_WAIT_MS } from '../../src/hook-timeout.js';
import type { AskView, ServerMessage } from '../../src/protocol.js';
import { buildTestApp, HOST, LOCAL, type TestApp } from '../stack/app.js';
import { loadFixture } from '../stack/fixtures.js';
import { hookBody } from '../stack/hook-client.js';

const QUESTION_TEXT = 'Which database should the new orders service use?';
const singleSelect = loadFixture<Record<string, unknown>>('01-single-select.input.json');
const sqlite = { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] };

let daemon: TestApp;
let app: App;
afterEach(async () => {
  await daemon?.close();
});

/** The real app, with the user config `file` (a short waitSeconds, so that two minutes are more than what is left). */
async function start(file: ConfigFileInput = { waitSeconds: 20 }): Promise<App> {
  daemon = await buildTestApp({ config: file });
  app = daemon.app;
  return app;
}

const extend = (id: string, headers: Record<string, string> = LOCAL, payload?: string) =>
  app.inject({ method: 'POST', url: `/api/asks/${id}/extend`, headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' }, ...(payload === undefined ? {} : { payload }) });

/** The `updated` messages among those a page's socket received. */
const updatesIn = (messages: ServerMessage[]) => messages.filter((message) => message.type === 'updated');

describe('POST /api/asks/:id/extend', () => {
  it('moves the deadline two minutes from now, up to what the hook can wait; the page hears updated, the hook hears extended', async () => {
    await start();
    const page = await daemon.pairPage();
    const { socket, messages, waitFor } = await daemon.openPageSocket(page);
    const hook = daemon.askAsHook(hookBody(singleSelect));
    const [question] = await daemon.waitForPending();
    expect(question.expiresAt).toBe(question.createdAt + 20_000);
    expect(question.extendableUntil).toBe(question.createdAt + MAX_WAIT_MS);

    const before = Date.now();
    const response = await extend(question.id, page.headers);
    const after = Date.now();
    expect(response.statusCode).toBe(200);
    const extended = response.json<{ ask: AskView }>().ask;
    expect(extended.expiresAt).toBeGreaterThanOrEqual(before + EXTEND_STEP_MS);
    expect(extended.expiresAt).toBeLessThanOrEqual(after + EXTEND_STEP_MS);
    expect(extended).toMatchObject({ id: question.id, status: 'pending', extendableUntil: question.extendableUntil });
    await waitFor(() => updatesIn(messages).length > 0);
    expect(updatesIn(messages)).toEqual([{ type: 'updated', ask: extended }]);

    expect((await app.inject({ method: 'POST', url: `/api/asks/${question.id}/answer`, headers: LOCAL, payload: sqlite })).statusCode).toBe(200);
    const { lines } = await hook;
    expect(lines.map((line) => line.event)).toEqual(['accepted', 'extended', 'settled']);
    // The wait the hook is told is counted from when the line was written: the two minutes, less the moments since.
    const waitMs = Number(lines[1]!.waitMs);
    expect(waitMs).toBeGreaterThan(EXTEND_STEP_MS - 5_000);
    expect(waitMs).toBeLessThanOrEqual(EXTEND_STEP_MS);
    expect(lines[2]).toMatchObject({ status: 'answered' });
    socket.terminate();
  });

  it('keeps a question past its old deadline once extended: the policy acts at the new one only', async () => {
    await start({ waitSeconds: 1, onTimeout: 'decline' });
    const hook = daemon.askAsHook(hookBody(singleSelect));
    const [question] = await daemon.waitForPending();
    expect((await extend(question.id)).statusCode).toBe(200);
    // Past the old deadline: still waiting, and an answer is taken.
    await vi.waitUntil(() => Date.now() > question.expiresAt + 200, { timeout: 3_000 });
    expect((await app.inject({ method: 'GET', url: `/api/asks/${question.id}`, headers: LOCAL })).json()).toMatchObject({ ask: { status: 'pending' } });
    expect((await app.inject({ method: 'POST', url: `/api/asks/${question.id}/answer`, headers: LOCAL, payload: sqlite })).statusCode).toBe(200);
    expect((await hook).lines.at(-1)).toMatchObject({ event: 'settled', status: 'answered' });
  });

  it('gives an ask no more time than the waitSeconds it asked with, and then answers 200 with the deadline unchanged, telling nobody', async () => {
    await start({ waitSeconds: 1 });
    const { socket, messages, waitFor } = await daemon.openPageSocket(await daemon.pairPage());
    const asked = app.inject({ method: 'POST', url: '/api/asks', headers: LOCAL, payload: { questions: (singleSelect.tool_input as { questions: unknown[] }).questions, asker: { kind: 'script', name: 'deploy.sh' }, waitSeconds: 30 } });
    const [question] = await daemon.waitForPending();
    expect(question).toMatchObject({ expiresAt: question.createdAt + 1_000, extendableUntil: question.createdAt + 30_000 });
    const first = await extend(question.id);
    expect(first.json()).toMatchObject({ ask: { expiresAt: question.createdAt + 30_000 } });
    const atLimit = await extend(question.id);
    expect(atLimit.statusCode).toBe(200);
    expect(atLimit.json()).toMatchObject({ ask: { expiresAt: question.createdAt + 30_000, status: 'pending' } });
    await app.inject({ method: 'POST', url: `/api/asks/${question.id}/answer`, headers: LOCAL, payload: sqlite });
    expect((await asked).json()).toMatchObject({ ask: { status: 'answered' } });
    // Only the move was told, and nothing for the request at the limit: messages arrive in order, so
    // once the answer's `resolved` is in, every `updated` before it is too.
    await waitFor(() => messages.some((message) => message.type === 'resolved'));
    expect(updatesIn(messages).map((message) => (message as { ask: AskView }).ask.expiresAt)).toEqual([question.createdAt + 30_000]);
    socket.terminate();
  });

  it('gives an ask that waits no longer than the configuration no more time at all', async () => {
    await start({ waitSeconds: 60 });
    const asked = app.inject({ method: 'POST', url: '/api/asks', headers: LOCAL, payload: { questions: (singleSelect.tool_input as { questions: unknown[] }).questions, asker: { kind: 'mcp', name: 'Codex' }, waitSeconds: 5 } });
    const [question] = await daemon.waitForPending();
    expect(question.extendableUntil).toBeUndefined();
    expect((await extend(question.id)).json()).toMatchObject({ ask: { expiresAt: question.createdAt + 5_000 } });
    await app.inject({ method: 'POST', url: `/api/asks/${question.id}/decline`, headers: LOCAL });
    await asked;
  });

  it('gives a question a policy settles at once no limit, and answers 409 with how it ended', async () => {
    await start({ rules: [{ header: 'Database', choose: 'SQLite', when: 'immediately' }] });
    const { lines } = await daemon.askAsHook(hookBody(singleSelect));
    const id = String(lines[0]!.id);
    const response = await extend(id);
    expect(response.statusCode).toBe(409);
    const body = response.json<{ error: { code: string }; ask: AskView }>();
    expect(body.error.code).toBe('already_resolved');
    expect(body.ask).toMatchObject({ id, status: 'answered', source: { kind: 'policy', trigger: 'immediately' } });
    expect(body.ask.extendableUntil).toBeUndefined();
  });

  it('answers 409 with the winner once a person answered, 404 for an unknown question', async () => {
    await start();
    const hook = daemon.askAsHook(hookBody(singleSelect));
    const [question] = await daemon.waitForPending();
    await app.inject({ method: 'POST', url: `/api/asks/${question.id}/answer`, headers: LOCAL, payload: sqlite });
    await hook;
    const late = await extend(question.id);
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ error: { code: 'already_resolved', message: 'this question was already answered' }, ask: { status: 'answered', source: { kind: 'person' } } });
    const unknown = await extend('00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('refuses a body, a bad id, and anyone but the token or a paired page, each with its reason, and the question keeps its deadline', async () => {
    await start();
    const hook = daemon.askAsHook(hookBody(singleSelect));
    const [question] = await daemon.waitForPending();
    const refusals: Array<[string, Awaited<ReturnType<typeof extend>>, number, string]> = [
      ['a body with a field', await extend(question.id, LOCAL, '{"minutes":60}'), 400, 'invalid_request'],
      ['an array', await extend(question.id, LOCAL, '[]'), 400, 'invalid_request'],
      ['a number', await extend(question.id, LOCAL, '600'), 400, 'invalid_request'],
      ['text', await app.inject({ method: 'POST', url: `/api/asks/${question.id}/extend`, headers: { ...LOCAL, 'content-type': 'text/plain' }, payload: 'more' }), 415, 'unsupported_media_type'],
      ['malformed JSON', await extend(question.id, LOCAL, '{"'), 400, 'fst_err_ctp_invalid_json_body'],
      ['an empty JSON body', await extend(question.id, LOCAL, ''), 400, 'fst_err_ctp_empty_json_body'],
      ['an id that is no uuid', await extend('not-a-uuid'), 400, 'invalid_request'],
      ['no token', await extend(question.id, { host: HOST }), 401, 'unauthorized'],
      ['a wrong token', await extend(question.id, { host: HOST, authorization: 'Bearer nope' }), 401, 'bad_token'],
      ['a foreign origin', await extend(question.id, { ...LOCAL, origin: 'http://evil.example' }), 403, 'forbidden_origin'],
    ];
    for (const [what, response, status, code] of refusals) {
      expect(response.statusCode, what).toBe(status);
      expect(response.json<{ error: { code: string; message: string } }>().error, what).toMatchObject({ code, message: expect.any(String) });
    }
    expect((await app.inject({ method: 'GET', url: `/api/asks/${question.id}`, headers: LOCAL })).json()).toMatchObject({ ask: { status: 'pending', expiresAt: question.expiresAt } });
    // Nothing, and {}, are the two ways to ask.
    expect((await extend(question.id, LOCAL, '{}')).statusCode).toBe(200);
    expect((await extend(question.id)).statusCode).toBe(200);
    await app.inject({ method: 'POST', url: `/api/asks/${question.id}/terminal`, headers: LOCAL });
    await hook;
  });
});

// The interactive terminal answer asks as the page does: a key pressed with less than a minute left
// asks the real app for more time, at most every 30 s, never at the limit. Its clock is the test's.
describe('the terminal asking for more time while a person presses keys', () => {
  /**
   * The CLI's requests, to the real app: counted, so that a key that asks nothing is seen. `settled`
   * resolves once every reply is back and has been read by whoever asked (a turn of the event loop
   * after it: their promise callbacks have run by then).
   */
  function daemonClient() {
    const requests: string[] = [];
    const replies: Array<Promise<unknown>> = [];
    return {
      requests,
      request(method: 'GET' | 'POST', path: string) {
        requests.push(`${method} ${path}`);
        const reply = app.inject({ method, url: path, headers: LOCAL }).then((response) => ({ status: response.statusCode, body: response.json() as unknown }));
        replies.push(reply);
        return reply;
      },
      async settled() {
        await Promise.all(replies);
        await new Promise((turn) => setImmediate(turn));
      },
    };
  }

  it('asks with less than a minute left, once per 30 seconds of keys, and not with more left', async () => {
    await start({ waitSeconds: 90 });
    const hook = daemon.askAsHook(hookBody(singleSelect));
    const [question] = await daemon.waitForPending();
    const client = daemonClient();
    let clock = question.createdAt;
    const onKey = moreTimeOnKeys(client, question, () => clock);

    onKey(); // 90 s left
    clock = question.expiresAt - MORE_TIME_WHEN_LEFT_MS; // exactly a minute left: not less
    onKey();
    expect(client.requests).toEqual([]);

    clock += 1;
    onKey();
    onKey(); // the same moment: asked already
    expect(client.requests).toEqual([`POST /api/asks/${question.id}/extend`]);
    await client.settled();
    const moved = await daemon.ask(question.id);
    expect(moved.expiresAt).toBeGreaterThanOrEqual(question.createdAt + EXTEND_STEP_MS);

    // Told the new deadline: keys with more than a minute left ask nothing, however late.
    clock = moved.expiresAt - MORE_TIME_WHEN_LEFT_MS - 1;
    onKey();
    expect(client.requests).toHaveLength(1);
    // Less than a minute from it, and 30 s after the last request: it asks again; then not for 30 s.
    clock += 2;
    onKey();
    expect(client.requests).toHaveLength(2);
    clock += MORE_TIME_EVERY_MS - 1;
    onKey();
    expect(client.requests).toHaveLength(2);
    await client.settled();
    await app.inject({ method: 'POST', url: `/api/asks/${question.id}/terminal`, headers: LOCAL });
    await hook;
  });

  it('never asks once the question is at its limit, or for a question that has none', async () => {
    await start({ waitSeconds: 90 });
    const questions = (singleSelect.tool_input as { questions: unknown[] }).questions;
    const asked = app.inject({ method: 'POST', url: '/api/asks', headers: LOCAL, payload: { questions, asker: { kind: 'script', name: 'release.sh' }, waitSeconds: 100 } });
    const [question] = await daemon.waitForPending();
    expect(question.extendableUntil).toBe(question.createdAt + 100_000);
    const client = daemonClient();
    let clock = question.expiresAt - 10_000;
    const onKey = moreTimeOnKeys(client, question, () => clock);
    onKey();
    await client.settled();
    expect((await daemon.ask(question.id)).expiresAt).toBe(question.extendableUntil);
    // Told it is at its limit: however late, and however many keys, it asks no more.
    for (let key = 0; key < 5; key++) {
      clock += MORE_TIME_EVERY_MS;
      onKey();
    }
    expect(client.requests).toHaveLength(1);

    const unlimited = moreTimeOnKeys(client, { ...question, extendableUntil: undefined }, () => question.expiresAt - 1);
    unlimited();
    expect(client.requests).toHaveLength(1);
    await app.inject({ method: 'POST', url: `/api/asks/${question.id}/decline`, headers: LOCAL });
    await asked;
  });
});
