// POST /api/attach/codex at the inject level: only the local token relays (whoever relays decides
// what reaches Codex: never a paired page, nor the hook key, which may only ask); a request that
// cannot be asked in Codex's format is refused with a line per reason and opens nothing; a relayed
// question waits as Codex's and the held reply is Codex's own answer.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER } from '../../src/http-hook.js';
import type { AttachCodexReply, ErrorReply } from '../../src/protocol.js';
import { buildTestApp, HOOK_KEY, LOCAL, type TestApp } from '../stack/app.js';

const QUESTION = {
  id: 'db',
  header: 'Database',
  question: 'Which database should we use?',
  isOther: true,
  isSecret: false,
  options: [
    { label: 'Postgres (Recommended)', description: 'Relational' },
    { label: 'SQLite', description: 'Embedded' },
  ],
};
const body = (questions: unknown[] = [QUESTION]) => ({
  request: { kind: 'question', question: { threadId: 'thread-1', turnId: 'turn-1', itemId: 'call_1', questions, isBlocking: true, autoResolutionMs: null } },
  thread: { cwd: '/home/alice/acme-shop', title: 'pick a database' },
  environment: {},
});

let tested: TestApp;
beforeEach(async () => {
  tested = await buildTestApp();
});
afterEach(async () => {
  await tested.close();
});

describe('POST /api/attach/codex', () => {
  it('takes only the local token: a paired page and the hook key are refused before anything opens', async () => {
    const page = await tested.pairPage();
    const fromPage = await tested.app.inject({ method: 'POST', url: '/api/attach/codex', headers: page.headers, payload: body() });
    expect([401, 403]).toContain(fromPage.statusCode);
    const withHookKey = await tested.app.inject({ method: 'POST', url: '/api/attach/codex', headers: { host: LOCAL.host, [HOOK_KEY_HEADER]: HOOK_KEY }, payload: body() });
    expect([401, 403]).toContain(withHookKey.statusCode);
    expect(await tested.pending()).toEqual([]);
  });

  it('refuses a question that cannot be answered in Codex’s format, saying why, and opens nothing', async () => {
    const refused = await tested.app.inject({ method: 'POST', url: '/api/attach/codex', headers: LOCAL, payload: body([{ ...QUESTION, isSecret: true }]) });
    expect(refused.statusCode).toBe(400);
    const { error } = refused.json<ErrorReply>();
    expect(error.code).toBe('unfit_request');
    expect(error.details).toEqual(["questions.0: its answer is secret, typed only in Codex's terminal"]);
    const malformed = await tested.app.inject({ method: 'POST', url: '/api/attach/codex', headers: LOCAL, payload: { ...body(), request: { kind: 'question', question: { threadId: 'thread-1', itemId: 'call_1', questions: 'no' } } } });
    expect(malformed.statusCode).toBe(400);
    expect(await tested.pending()).toEqual([]);
  });

  it("holds the reply until a person answers, then replies with Codex's own answer", async () => {
    const held = tested.app.inject({ method: 'POST', url: '/api/attach/codex', headers: LOCAL, payload: body() });
    const [ask] = await tested.waitForPending(1);
    expect(ask).toMatchObject({ agent: 'codex', sessionId: 'thread-1', cwd: '/home/alice/acme-shop', questions: [{ question: QUESTION.question, header: 'Database', multiSelect: false }] });
    expect(ask.toolUseId).toBe('call_1');
    const answered = await tested.app.inject({ method: 'POST', url: `/api/asks/${ask.id}/answer`, headers: LOCAL, payload: { responses: [{ question: QUESTION.question, selected: ['SQLite'] }] } });
    expect(answered.statusCode).toBe(200);
    const reply = (await held).json<AttachCodexReply>();
    expect(reply.reply).toEqual({ answers: { db: { answers: ['SQLite'] } } });
    expect(reply.ask.status).toBe('answered');
  });

  it('replies with no answer when the question goes back to Codex’s picker', async () => {
    const held = tested.app.inject({ method: 'POST', url: '/api/attach/codex', headers: LOCAL, payload: body() });
    const [ask] = await tested.waitForPending(1);
    expect((await tested.app.inject({ method: 'POST', url: `/api/asks/${ask.id}/terminal`, headers: LOCAL })).statusCode).toBe(200);
    const reply = (await held).json<AttachCodexReply>();
    expect(reply).toMatchObject({ reply: null, ask: { status: 'handed-to-terminal' } });
  });
});
