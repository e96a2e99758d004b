// opencode's format: its pending requests as askbridge's questions and approvals, and the neutral
// outcome the store recorded as the route and body opencode takes (as seen on opencode 1.18.33).
// Then POST /api/attach/opencode itself: token only, held until settled, withdrawn when closed,
// and a request that does not fit refused with why (opencode's own prompt keeps it).
import { afterEach, describe, expect, it } from 'vitest';
import { UNATTENDED_DENIAL } from '../../src/daemon/decisions/claude-code-permission.js';
import { mapPermission, mapQuestions, OPENCODE_DENIAL, opencodePermissionReply, opencodeQuestionReply, UnfitRequest } from '../../src/daemon/decisions/opencode.js';
import { formatAnswers } from '../../src/answers.js';
import { AttachOpencodeReplySchema, OpencodePermissionRequestSchema, OpencodeQuestionRequestSchema, type AttachOpencodeRequest } from '../../src/protocol.js';
import { buildTestApp, HOOK_KEY, HOST, LOCAL, type TestApp } from '../stack/app.js';

const person = { kind: 'person', client: 'page' } as const;

const QUESTION = OpencodeQuestionRequestSchema.parse({
  id: 'que_1',
  sessionID: 'ses_1',
  questions: [
    { question: 'Which database?', header: 'Database', options: [{ label: 'Postgres', description: 'relational' }, { label: 'SQLite', description: 'a file' }] },
    { question: 'Which extras?', header: 'Extras', options: [{ label: 'Cache', description: '' }, { label: 'Queue', description: '' }], multiple: true, custom: false },
  ],
  tool: { messageID: 'msg_1', callID: 'call_1' },
});

const BASH = OpencodePermissionRequestSchema.parse({
  id: 'per_1',
  sessionID: 'ses_1',
  permission: 'bash',
  patterns: ['npm test'],
  metadata: { command: 'npm test' },
  always: ['npm test *'],
  tool: { messageID: 'msg_1', callID: 'call_1' },
});

describe("opencode's requests as asks", () => {
  it('maps questions as askbridge asks them: multiple is a multi-select, a missing description is empty', () => {
    const mapped = mapQuestions(QUESTION);
    expect(mapped.questions).toEqual([
      { question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'Postgres', description: 'relational' }, { label: 'SQLite', description: 'a file' }] },
      { question: 'Which extras?', header: 'Extras', multiSelect: true, options: [{ label: 'Cache', description: '' }, { label: 'Queue', description: '' }] },
    ]);
    expect(mapped.custom).toEqual([true, false]);
  });

  it('refuses questions askbridge cannot show, saying why: one option, duplicate labels, the same text twice, none at all', () => {
    const unfit = (questions: unknown[]) => () => mapQuestions(OpencodeQuestionRequestSchema.parse({ id: 'que_2', sessionID: 'ses_1', questions }));
    const option = (label: string) => ({ label, description: '' });
    expect(unfit([{ question: 'Sure?', header: '', options: [option('Yes')] }])).toThrow(UnfitRequest);
    expect(unfit([{ question: 'Sure?', header: '', options: [option('Yes'), option('Yes')] }])).toThrow(/duplicate option label "Yes"/);
    expect(unfit([
      { question: 'Sure?', header: '', options: [option('Yes'), option('No')] },
      { question: 'Sure?', header: '', options: [option('Yes'), option('No')] },
    ])).toThrow(/asked twice/);
    expect(unfit([])).toThrow(UnfitRequest);
  });

  it('shows bash as Bash with its command, and offers "always" naming the patterns opencode would remember', () => {
    expect(mapPermission(BASH).approval).toEqual({ toolName: 'Bash', toolInput: { command: 'npm test' }, suggestions: [{ label: 'Always allow bash: npm test *' }] });
  });

  it('shows an edit as its file and diff, and any other permission as its name with everything it sent', () => {
    const edit = mapPermission(OpencodePermissionRequestSchema.parse({ id: 'per_2', sessionID: 'ses_1', permission: 'edit', patterns: ['src/a.ts'], metadata: { filepath: '/p/src/a.ts', diff: '-a\n+b' }, always: [] }));
    expect(edit.approval).toEqual({ toolName: 'Edit', toolInput: { file_path: '/p/src/a.ts', diff: '-a\n+b' }, suggestions: [] });
    const other = mapPermission(OpencodePermissionRequestSchema.parse({ id: 'per_3', sessionID: 'ses_1', permission: 'webfetch', patterns: ['https://example.com'], metadata: { format: 'text' }, always: ['*'] }));
    expect(other.approval.toolName).toBe('webfetch');
    expect(other.approval.toolInput).toEqual({ patterns: ['https://example.com'], format: 'text' });
  });

  it('refuses a malformed request at the edge: an id that is not one of opencode, a missing permission, metadata too deep', () => {
    expect(OpencodePermissionRequestSchema.safeParse({ ...BASH, id: 'x_1' }).success).toBe(false);
    expect(OpencodePermissionRequestSchema.safeParse({ ...BASH, permission: '' }).success).toBe(false);
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 40; level += 1) deep = { deep };
    expect(OpencodePermissionRequestSchema.safeParse({ ...BASH, metadata: deep }).success).toBe(false);
    expect(OpencodeQuestionRequestSchema.safeParse({ id: 'que_1', sessionID: 'ses_1', questions: 'Which?' }).success).toBe(false);
  });
});

describe("opencode's replies", () => {
  const mapped = mapQuestions(QUESTION);
  const answered = (responses: Parameters<typeof formatAnswers>[1]) => ({ status: 'answered' as const, source: person, answered: formatAnswers(mapped.questions, responses) });

  it('answers with the labels chosen per question, in order, and typed text where opencode takes it', () => {
    const outcome = answered([
      { question: 'Which database?', selected: [], other: 'MySQL', notes: null },
      { question: 'Which extras?', selected: ['Queue', 'Cache'], other: null, notes: null },
    ]);
    expect(opencodeQuestionReply(mapped, outcome)).toEqual({ route: 'question.reply', body: { answers: [['MySQL'], ['Cache', 'Queue']] } });
  });

  it('gives an unanswered question (a policy may answer fewer) an empty answer', () => {
    const outcome = { ...answered([{ question: 'Which database?', selected: ['SQLite'], other: null, notes: null }]), source: { kind: 'policy', action: 'recommended', trigger: 'timeout' } as const };
    expect(opencodeQuestionReply(mapped, outcome)).toEqual({ route: 'question.reply', body: { answers: [['SQLite'], []] } });
  });

  it('refuses typed text for a question opencode takes only options for', () => {
    const outcome = answered([{ question: 'Which extras?', selected: [], other: 'Both', notes: null }]);
    expect(() => opencodeQuestionReply(mapped, outcome)).toThrow(/only its options/);
  });

  it("dismisses a declined question, and leaves anything else to opencode's own prompt", () => {
    expect(opencodeQuestionReply(mapped, { status: 'declined', source: person })).toEqual({ route: 'question.reject' });
    expect(opencodeQuestionReply(mapped, { status: 'handed-to-terminal', source: person })).toBeNull();
    expect(opencodeQuestionReply(mapped, { status: 'cancelled', source: { kind: 'hook-gone' } })).toBeNull();
  });

  it('allows once, or always with the suggestion; never a suggestion that was not offered', () => {
    const { approval } = mapPermission(BASH);
    expect(opencodePermissionReply(approval, { status: 'allowed', source: person, decision: { behavior: 'allow' } })).toEqual({ route: 'permission.reply', body: { reply: 'once' } });
    expect(opencodePermissionReply(approval, { status: 'allowed', source: person, decision: { behavior: 'allow', suggestion: 0 } })).toEqual({ route: 'permission.reply', body: { reply: 'always' } });
    expect(() => opencodePermissionReply(approval, { status: 'allowed', source: person, decision: { behavior: 'allow', suggestion: 1 } })).toThrow(/no suggestion 1/);
  });

  it("rejects with the person's words (the model goes on), with a default without words, and with none to stop the turn", () => {
    const { approval } = mapPermission(BASH);
    expect(opencodePermissionReply(approval, { status: 'denied', source: person, decision: { behavior: 'deny', message: 'use yarn' } })).toEqual({ route: 'permission.reply', body: { reply: 'reject', message: 'use yarn' } });
    expect(opencodePermissionReply(approval, { status: 'denied', source: person, decision: { behavior: 'deny', message: '  ' } })).toEqual({ route: 'permission.reply', body: { reply: 'reject', message: OPENCODE_DENIAL } });
    expect(opencodePermissionReply(approval, { status: 'denied', source: person, decision: { behavior: 'deny', interrupt: true } })).toEqual({ route: 'permission.reply', body: { reply: 'reject' } });
    expect(opencodePermissionReply(approval, { status: 'denied', source: { kind: 'policy', action: 'decline', trigger: 'immediately' } })).toEqual({ route: 'permission.reply', body: { reply: 'reject', message: UNATTENDED_DENIAL } });
    expect(opencodePermissionReply(approval, { status: 'handed-to-terminal', source: person })).toBeNull();
  });
});

describe('POST /api/attach/opencode', () => {
  let test: TestApp | undefined;
  afterEach(async () => {
    await test?.close();
    test = undefined;
  });

  const body = (request: AttachOpencodeRequest['request']): AttachOpencodeRequest => ({ request, session: { directory: '/work/project', title: 'Fix the \u202Eparser' }, environment: {} });
  const post = (app: TestApp, payload: unknown, headers: Record<string, string> = LOCAL) =>
    app.app.inject({ method: 'POST', url: '/api/attach/opencode', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

  it("holds a permission until a person decides, then replies with opencode's answer", async () => {
    test = await buildTestApp();
    const reply = post(test, body({ kind: 'permission', permission: BASH }));
    const [ask] = await test.waitForPending();
    expect(ask).toMatchObject({ agent: 'opencode', sessionId: 'ses_1', toolUseId: 'per_1', cwd: '/work/project', approval: { toolName: 'Bash' } });
    const decided = await test.app.inject({ method: 'POST', url: `/api/asks/${ask.id}/decide`, headers: LOCAL, payload: { behavior: 'allow', suggestion: 0 } });
    expect(decided.statusCode).toBe(200);
    const response = await reply;
    expect(response.statusCode).toBe(200);
    const parsed = AttachOpencodeReplySchema.parse(response.json());
    expect(parsed.reply).toEqual({ route: 'permission.reply', body: { reply: 'always' } });
    expect(parsed.ask.status).toBe('allowed');
  });

  it("shows the session's title as its context", async () => {
    test = await buildTestApp();
    const reply = post(test, body({ kind: 'question', question: QUESTION }));
    const [ask] = await test.waitForPending();
    await expect.poll(async () => (await test!.ask(ask.id)).context?.title).toBe('Fix the \u202Eparser');
    await test.app.inject({ method: 'POST', url: `/api/asks/${ask.id}/decline`, headers: LOCAL });
    expect(AttachOpencodeReplySchema.parse((await reply).json()).reply).toEqual({ route: 'question.reject' });
  });

  it('takes only the local token: not the hook key, not nothing', async () => {
    test = await buildTestApp();
    expect((await post(test, body({ kind: 'permission', permission: BASH }), { host: HOST })).statusCode).toBe(401);
    expect((await post(test, body({ kind: 'permission', permission: BASH }), { host: HOST, 'x-askbridge-hook-key': HOOK_KEY })).statusCode).toBe(401);
    expect(await test.pending()).toEqual([]);
  });

  it('refuses a request that does not fit, saying why, and opens nothing', async () => {
    test = await buildTestApp();
    const unfit = OpencodeQuestionRequestSchema.parse({ id: 'que_9', sessionID: 'ses_1', questions: [{ question: 'Sure?', header: '', options: [{ label: 'Yes', description: '' }] }] });
    const response = await post(test, body({ kind: 'question', question: unfit }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('unfit_request');
    const malformed = await post(test, { request: { kind: 'permission', permission: { id: 'per_1' } }, environment: {} });
    expect(malformed.statusCode).toBe(400);
    expect(await test.pending()).toEqual([]);
  });
});
