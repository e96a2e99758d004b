// Claude Code's `http` hook (protocol.md 5a) against the daemon's surface, in memory through inject():
// the payload as Claude Code POSTs it, the hook key, the forwarded environment, and the reply body;
// the session's context read from its transcript; and the SessionEnd hook, as an http entry and as
// the command hook signs it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import type { PendingRecord } from '../../src/daemon/asks/store.js';
import { checkHello, signRequest } from '../../src/daemon/hook-identity.js';
import { readSessionContext } from '../../src/daemon/transcript.js';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH, MACHINE_HEADER, SESSION_END_PATH, envHeader } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { buildTestApp, HOOK_KEY, HOST, LOCAL, TOKEN, type TestApp } from '../stack/app.js';
import { loadFixture } from '../stack/fixtures.js';
import { endSessionThroughInject, helloThroughInject, hookBody, sessionEndPayload } from '../stack/hook-client.js';

const QUESTION_TEXT = 'Which database should the new orders service use?';
const singleSelect = loadFixture<Record<string, unknown>>('01-single-select.input.json');

let daemon: TestApp;
let app: App;
let saved: PendingRecord[];
/** Claude Code's projects folder for these tests, and every transcript the daemon was asked to read. */
let projects: string;
let transcriptsRead: string[];

beforeEach(async () => {
  saved = [];
  const persistence = { save: (record: PendingRecord) => void saved.push(record), remove: () => {} };
  projects = mkdtempSync(join(tmpdir(), 'askbridge-projects-'));
  transcriptsRead = [];
  daemon = await buildTestApp({
    storeOptions: { persistence },
    sessionContext: (path, toolUseId, stillWanted) => {
      transcriptsRead.push(path);
      return readSessionContext(path, toolUseId, { projectsDir: projects, uid: process.getuid?.() }, stillWanted);
    },
  });
  app = daemon.app;
});
afterEach(async () => {
  await daemon.close();
  rmSync(projects, { recursive: true, force: true });
});

/** POST the payload as Claude Code's http hook does: JSON body, literal and interpolated headers, no Origin. */
function askOverHttpHook(payload: unknown = singleSelect, headers: Record<string, string> = { [HOOK_KEY_HEADER]: HOOK_KEY }) {
  return app.inject({
    method: 'POST',
    url: HTTP_HOOK_PATH,
    headers: { host: HOST, 'content-type': 'application/json', 'user-agent': 'axios/1.13.2', connection: 'keep-alive', ...headers },
    payload: JSON.stringify(payload),
  });
}

/** The waiting question, once its session's context has arrived. */
async function waitForContext(): Promise<AskView> {
  return vi.waitUntil(async () => {
    const [question] = await daemon.pending();
    return question?.context ? question : undefined;
  });
}

function answer(id: string, selected: string[]) {
  return app.inject({ method: 'POST', url: `/api/asks/${id}/answer`, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected }] } });
}

describe('the http hook endpoint', () => {
  it('holds the request until a person answers, then replies with the decision JSON as the body', async () => {
    const hook = askOverHttpHook();
    const [question] = await daemon.waitForPending();
    expect(question.toolUseId).toBe(singleSelect.tool_use_id);
    expect((await answer(question.id, ['PostgreSQL (Recommended)'])).statusCode).toBe(200);

    const reply = await hook;
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    // Exactly one JSON document: the same decision a command hook prints.
    expect(reply.json()).toEqual(loadFixture('01-single-select.expected-allow.json'));
  });

  it('replies with an empty 200 when the terminal should ask (a policy that hands it back), so Claude Code shows its own dialog', async () => {
    daemon.setConfig({ waitSeconds: 0, onTimeout: 'terminal' });
    const reply = await askOverHttpHook();
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toBe('');
    expect(reply.headers['content-length']).toBe('0');
  });

  it('refuses a missing, empty or wrong key with 401, and asks nothing', async () => {
    for (const headers of [{} as Record<string, string>, { [HOOK_KEY_HEADER]: '' }, { [HOOK_KEY_HEADER]: `${HOOK_KEY}x` }, { [HOOK_KEY_HEADER]: HOOK_KEY.slice(1) }, { authorization: `Bearer ${TOKEN}` }]) {
      const reply = await askOverHttpHook(singleSelect, headers);
      expect(reply.statusCode, JSON.stringify(headers)).toBe(401);
      expect(reply.json<{ error: { code: string } }>().error.code).toMatch(/^(hook_key_missing|bad_hook_key)$/);
    }
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: LOCAL })).json()).toEqual({ asks: [] });
  });

  it('refuses every key while none exists, and takes the new one at once after a rotation', async () => {
    daemon.setHookKey(undefined);
    expect((await askOverHttpHook()).statusCode).toBe(401);
    const rotated = 'rotated-key-0123456789abcdefghijklmnopqrstuvw';
    daemon.setHookKey(rotated);
    expect((await askOverHttpHook()).statusCode).toBe(401);
    const hook = askOverHttpHook(singleSelect, { [HOOK_KEY_HEADER]: rotated });
    const [question] = await daemon.waitForPending();
    expect((await answer(question.id, ['SQLite'])).statusCode).toBe(200);
    expect((await hook).statusCode).toBe(200);
  });

  it('refuses a request that carries an Origin: no web page can act as the hook', async () => {
    const reply = await askOverHttpHook(singleSelect, { [HOOK_KEY_HEADER]: HOOK_KEY, origin: `http://${HOST}` });
    expect(reply.statusCode).toBe(403);
    expect(reply.json<{ error: { code: string } }>().error.code).toBe('hook_from_browser');
  });

  it('refuses a bad payload with a 400 that names the field', async () => {
    const reply = await askOverHttpHook({ ...singleSelect, tool_input: { questions: [] } });
    expect(reply.statusCode).toBe(400);
    expect(reply.json<{ error: { details: string[] } }>().error.details.some((line) => line.startsWith('payload.tool_input.questions'))).toBe(true);
    const notJson = await app.inject({ method: 'POST', url: HTTP_HOOK_PATH, headers: { host: HOST, 'content-type': 'application/json', [HOOK_KEY_HEADER]: HOOK_KEY }, payload: '{"session_id":' });
    expect(notJson.statusCode).toBe(400);
  });

  it('takes "nobody watching" from the forwarded environment: ASKBRIDGE_UNATTENDED=1 and CI=true act at once', async () => {
    daemon.setConfig({ waitSeconds: 600, onTimeout: 'recommended' });
    for (const [name, value] of [['ASKBRIDGE_UNATTENDED', '1'], ['CI', 'true']] as const) {
      const reply = await askOverHttpHook({ ...singleSelect, tool_use_id: `toolu_${name}` }, { [HOOK_KEY_HEADER]: HOOK_KEY, [envHeader(name)]: value });
      expect(reply.statusCode).toBe(200);
      expect(reply.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow', additionalContext: expect.stringContaining('nobody was watching') } });
    }
  });

  it('treats an empty forwarded variable (unset in Claude Code) as unset', async () => {
    daemon.setConfig({ waitSeconds: 600, onTimeout: 'recommended' });
    const hook = askOverHttpHook(singleSelect, { [HOOK_KEY_HEADER]: HOOK_KEY, [envHeader('ASKBRIDGE_UNATTENDED')]: '', [envHeader('CI')]: '' });
    const [question] = await daemon.waitForPending();
    expect(question.expiresAt - question.createdAt).toBe(600_000);
    await answer(question.id, ['SQLite']);
    expect((await hook).statusCode).toBe(200);
  });

  it('keeps nothing on disk for an http question: its request cannot come back after a restart', async () => {
    const hook = askOverHttpHook();
    const [question] = await daemon.waitForPending();
    expect(saved).toEqual([]);
    await answer(question.id, ['SQLite']);
    await hook;
  });
});

/** The session's transcript in the projects folder, named as Claude Code names it, whose last lines call AskUserQuestion as `toolUseId`. */
function transcriptFor(toolUseId: string): string {
  mkdirSync(join(projects, '-home-alice-shop'), { recursive: true });
  const path = join(projects, '-home-alice-shop', `${String(singleSelect.session_id)}.jsonl`);
  const lines = [
    { type: 'user', message: { role: 'user', content: 'Make the orders service' }, gitBranch: 'orders' },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'It needs a database.' }] }, gitBranch: 'orders' },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'AskUserQuestion', input: {} }] }, gitBranch: 'orders' },
  ];
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

describe("the session's context", () => {
  it('follows the question: read from the transcript the hook names, then shown with it while it waits', async () => {
    const payload = { ...singleSelect, tool_use_id: 'toolu_context', transcript_path: transcriptFor('toolu_context') };
    const hook = askOverHttpHook(payload);
    const question = await waitForContext();
    expect(question.context).toEqual({ title: 'Make the orders service', branch: 'orders', said: 'It needs a database.' });
    // The view never names the file.
    expect(JSON.stringify(question)).not.toContain('.jsonl');
    await answer(question.id, ['SQLite']);
    expect((await hook).statusCode).toBe(200);
  });

  it("is read for the command hook's question too", async () => {
    const payload = { ...singleSelect, tool_use_id: 'toolu_command_context', transcript_path: transcriptFor('toolu_command_context') };
    const hook = daemon.askAsHook(hookBody(payload));
    const question = await waitForContext();
    expect(question.context).toMatchObject({ said: 'It needs a database.' });
    await answer(question.id, ['SQLite']);
    await hook;
  });

  it("is never read from another session's transcript: the name says whose it is", async () => {
    const payload = { ...singleSelect, session_id: 'another-session', tool_use_id: 'toolu_other_session', transcript_path: transcriptFor('toolu_other_session') };
    const hook = askOverHttpHook(payload);
    const [question] = await daemon.waitForPending();
    await answer(question.id, ['SQLite']);
    await hook;
    expect(transcriptsRead).toEqual([]);
    expect((await daemon.ask(question.id)).context).toBeUndefined();
  });

  it("is not read for a hook on another machine: the path names that machine's file", async () => {
    const payload = { ...singleSelect, tool_use_id: 'toolu_remote', transcript_path: transcriptFor('toolu_remote') };
    const hook = askOverHttpHook(payload, { [HOOK_KEY_HEADER]: HOOK_KEY, [MACHINE_HEADER]: 'ci-runner' });
    const [question] = await daemon.waitForPending();
    await answer(question.id, ['SQLite']);
    await hook;
    expect(transcriptsRead).toEqual([]);
    expect((await daemon.ask(question.id)).context).toBeUndefined();
  });

  it('leaves a question whose transcript_path is hostile without context, and answerable', async () => {
    // Its name is its session's own, so that the reader is asked, and refuses it.
    const payload = { ...singleSelect, session_id: 'passwd', tool_use_id: 'toolu_hostile', transcript_path: `${projects}/../../../../etc/passwd.jsonl` };
    const hook = askOverHttpHook(payload);
    const [question] = await daemon.waitForPending();
    await vi.waitUntil(() => transcriptsRead.length === 1);
    expect((await answer(question.id, ['SQLite'])).statusCode).toBe(200);
    expect((await hook).statusCode).toBe(200);
    expect((await daemon.ask(question.id)).context).toBeUndefined();
  });
});

function endSessionOverHttpHook(payload: unknown, headers: Record<string, string> = { [HOOK_KEY_HEADER]: HOOK_KEY }) {
  return app.inject({ method: 'POST', url: SESSION_END_PATH, headers: { host: HOST, 'content-type': 'application/json', 'user-agent': 'axios/1.13.2', ...headers }, payload: JSON.stringify(payload) });
}

async function pendingIds(): Promise<string[]> {
  return (await daemon.pending()).map((question) => question.toolUseId).sort();
}

describe('the SessionEnd hook endpoint', () => {
  it("withdraws the session's waiting questions, whose hooks get no decision, and replies with an empty 200", async () => {
    const ours = askOverHttpHook({ ...singleSelect, tool_use_id: 'toolu_ours' });
    const theirs = askOverHttpHook({ ...singleSelect, session_id: 'another-session', tool_use_id: 'toolu_theirs' });
    await daemon.waitForPending(2);

    const ended = await endSessionOverHttpHook(sessionEndPayload(String(singleSelect.session_id)));
    expect(ended.statusCode).toBe(200);
    expect(ended.body).toBe('');
    const reply = await ours;
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toBe('');
    expect(await pendingIds()).toEqual(['toolu_theirs']);

    await endSessionOverHttpHook(sessionEndPayload('another-session'));
    expect((await theirs).body).toBe('');
    expect(await pendingIds()).toEqual([]);
  });

  it("withdraws only the questions of the machine that says its session ended", async () => {
    const remote = askOverHttpHook({ ...singleSelect, tool_use_id: 'toolu_remote' }, { [HOOK_KEY_HEADER]: HOOK_KEY, [MACHINE_HEADER]: 'ci-runner' });
    const local = askOverHttpHook({ ...singleSelect, tool_use_id: 'toolu_local' });
    await daemon.waitForPending(2);
    expect((await endSessionOverHttpHook(sessionEndPayload(String(singleSelect.session_id)), { [HOOK_KEY_HEADER]: HOOK_KEY, [MACHINE_HEADER]: 'ci-runner' })).statusCode).toBe(200);
    expect((await remote).body).toBe('');
    expect(await pendingIds()).toEqual(['toolu_local']);
    await endSessionOverHttpHook(sessionEndPayload(String(singleSelect.session_id)));
    await local;
  });

  it('takes the command hook\'s signed request, and refuses one signed for a question', async () => {
    const hook = daemon.askAsHook(hookBody({ ...singleSelect, tool_use_id: 'toolu_signed' }));
    await daemon.waitForPending();
    // Signed for a question, the same body is refused: one kind of signature never stands for the other.
    const body = JSON.stringify(sessionEndPayload(String(singleSelect.session_id)));
    const hello = await helloThroughInject(app, HOST);
    expect(checkHello(TOKEN, hello.hookNonce, hello)).toBe(true);
    const misused = await endSessionOverHttpHook(JSON.parse(body), { authorization: signRequest(TOKEN, { daemonNonce: hello.nonce, hookNonce: hello.hookNonce }, body, 'question') });
    expect(misused.statusCode).toBe(401);
    expect(await pendingIds()).toEqual(['toolu_signed']);

    const ended = await endSessionThroughInject(app, { token: TOKEN, host: HOST, payload: sessionEndPayload(String(singleSelect.session_id)) });
    expect(ended).toEqual({ statusCode: 200, body: '' });
    expect((await hook).lines.at(-1)).toMatchObject({ event: 'settled', status: 'cancelled', decision: '' });
  });

  it('refuses without the key, with a wrong signature, from a browser, or for another event, and withdraws nothing', async () => {
    const hook = askOverHttpHook({ ...singleSelect, tool_use_id: 'toolu_kept' });
    await daemon.waitForPending();
    const payload = sessionEndPayload(String(singleSelect.session_id));
    const refusals: Array<[number, string, Promise<{ statusCode: number; json<T>(): T }>]> = [
      [401, 'hook_key_missing', endSessionOverHttpHook(payload, {})],
      [401, 'bad_hook_key', endSessionOverHttpHook(payload, { [HOOK_KEY_HEADER]: `${HOOK_KEY}x` })],
      [401, 'unsigned', endSessionOverHttpHook(payload, { authorization: `Bearer ${TOKEN}` })],
      [401, 'bad_signature', endSessionOverHttpHook(payload, { authorization: `AskBridge-HMAC nonce=${'a'.repeat(24)}, hook=${'b'.repeat(24)}, mac=${'c'.repeat(43)}` })],
      [403, 'hook_from_browser', endSessionOverHttpHook(payload, { [HOOK_KEY_HEADER]: HOOK_KEY, origin: `http://${HOST}` })],
      [400, 'invalid_request', endSessionOverHttpHook({ ...payload, hook_event_name: 'PreToolUse' })],
      [400, 'invalid_request', endSessionOverHttpHook({ ...payload, session_id: '' })],
    ];
    for (const [status, code, reply] of refusals) {
      const response = await reply;
      expect(response.statusCode, code).toBe(status);
      expect(response.json<{ error: { code: string } }>().error.code).toBe(code);
    }
    expect(await pendingIds()).toEqual(['toolu_kept']);
    const [question] = await daemon.waitForPending();
    await answer(question.id, ['SQLite']);
    expect((await hook).statusCode).toBe(200);
  });

  it('is an empty 200 for a session with nothing waiting', async () => {
    const ended = await endSessionOverHttpHook(sessionEndPayload('nothing-waits'));
    expect(ended.statusCode).toBe(200);
    expect(ended.body).toBe('');
  });
});
