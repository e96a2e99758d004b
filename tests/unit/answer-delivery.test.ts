// Once an answer is accepted, Claude Code gets it: any question text is an own key of the answers
// (`__proto__` included), and a reply that cannot be made ends the question as `failed` at once,
// with nothing for the hook to print, an error for the person who answered, and a history line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatAnswers, getOwn } from '../../src/answers.js';
import { mergeConfig } from '../../src/config.js';
import { SCRIPTED_USER } from '../stack/env.js';
import { buildApp, type App } from '../../src/daemon/app.js';
import { createHistory } from '../../src/daemon/asks/history.js';
import { readHistory } from '../../src/history-file.js';
import { createPolicy } from '../../src/daemon/asks/policy.js';
import { createAskStore, type NewAsk } from '../../src/daemon/asks/store.js';
import { answersAndAnnotations, claudeCodeDecision, denyReasonAnswers } from '../../src/daemon/decisions/claude-code.js';
import { run as runHistory } from '../../src/cli/history.js';
import type { Question, AskView } from '../../src/protocol.js';
import { askThroughInject, hookBody } from '../stack/hook-client.js';
import { askView } from '../stack/views.js';

const PROTO_NAMES = ['__proto__', 'constructor', 'toString'] as const;

/** One question per name, each offering the three names as labels. */
const questions = (multiSelect: boolean): Question[] =>
  PROTO_NAMES.map((name) => ({ question: name, header: name, multiSelect, options: PROTO_NAMES.map((label) => ({ label, description: `${label}!` })) }));

describe('answers keyed by question text that names an Object.prototype property', () => {
  it('are own keys of answers and annotations, and reach the JSON the hook prints', () => {
    const asked = questions(false);
    const formatted = formatAnswers(asked, [
      { question: '__proto__', selected: ['constructor'], other: null, notes: 'a note on __proto__' },
      { question: 'constructor', selected: ['toString'], other: null, notes: null },
      { question: 'toString', selected: ['__proto__'], other: null, notes: 'a note on toString' },
    ]);
    expect(Object.keys(formatted.answers)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(formatted.answers)).toBe(Object.prototype);
    expect(getOwn(formatted.answers, '__proto__')).toBe('constructor');
    expect(Object.keys(answersAndAnnotations(formatted).annotations)).toEqual(['__proto__', 'toString']);

    const output = claudeCodeDecision({ toolInput: { questions: asked }, answerMode: 'updatedInput', waitSeconds: 60 }, { status: 'answered', source: { kind: 'person', client: 'page' }, answered: formatted });
    expect(JSON.parse(JSON.stringify(output))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: {
          questions: asked,
          answers: JSON.parse('{"__proto__":"constructor","constructor":"toString","toString":"__proto__"}'),
          annotations: JSON.parse('{"__proto__":{"notes":"a note on __proto__"},"toString":{"notes":"a note on toString"}}'),
        },
      },
    });
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it('joins multi-select labels named after prototype properties', () => {
    const formatted = formatAnswers(questions(true), [{ question: '__proto__', selected: ['toString', '__proto__'], other: null, notes: null }]);
    expect(JSON.stringify(formatted.answers)).toBe('{"__proto__":"__proto__, toString"}');
  });

  it('write the deny-reason text without taking inherited properties for notes', () => {
    const formatted = formatAnswers(questions(false), [
      { question: 'constructor', selected: ['__proto__'], other: null, notes: null },
      { question: '__proto__', selected: ['toString'], other: null, notes: 'why' },
    ]);
    expect(denyReasonAnswers(formatted)).toBe('__proto__: toString (note: why)\nconstructor: __proto__');
    const output = claudeCodeDecision({ toolInput: {}, answerMode: 'deny-reason', waitSeconds: 60 }, { status: 'answered', source: { kind: 'person', client: 'cli' }, answered: formatted });
    expect(output?.hookSpecificOutput.permissionDecisionReason).toBe('__proto__: toString (note: why)\nconstructor: __proto__');
  });

  it('keep their notes as own keys in the stored question and its history line', () => {
    const store = createAskStore();
    const asked = questions(false);
    const waiter = store.open({ ...openQuestion('own-keys'), toolInput: { questions: asked }, questions: asked });
    const result = store.answer(waiter.ask.id, [
      { question: '__proto__', selected: ['toString'], other: null, notes: 'noted' },
      { question: 'constructor', selected: ['__proto__'], other: null, notes: null },
      { question: 'toString', selected: ['constructor'], other: null, notes: null },
    ], { client: 'cli' });
    expect(result.kind).toBe('answered');
    const view = store.get(waiter.ask.id)!;
    expect(JSON.stringify({ answers: view.answers, notes: view.notes })).toBe('{"answers":{"__proto__":"toString","constructor":"__proto__","toString":"constructor"},"notes":{"__proto__":"noted"}}');
  });
});

describe('`askbridge history` with questions named after Object.prototype properties', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-own-keys-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('shows each answer by its own key, and never an inherited function for an unanswered one', async () => {
    // A line as an older askbridge wrote it, when a person could answer fewer questions than were
    // asked (now every question must be answered): history keeps reading such lines.
    const history = createHistory(join(dir, 'history.jsonl'));
    const asked = questions(false);
    const now = Date.now();
    history.append(askView({
      id: '11111111-1111-4111-8111-111111111111',
      sessionId: 's1',
      toolUseId: 'history-own-keys',
      cwd: '/project',
      createdAt: now,
      expiresAt: now + 60_000,
      timeout: { action: 'terminal', summary: 'the terminal will ask' },
      status: 'answered',
      source: { kind: 'person', client: 'cli' },
      questions: asked,
      answers: JSON.parse('{"__proto__":"toString"}') as Record<string, string>,
      resolvedAt: now,
    }));
    await history.flushed();

    let stdout = '';
    await runHistory({ argv: [], env: { ASKBRIDGE_HOME: dir }, stdout: (text) => (stdout += text), stderr: () => {} });
    expect(stdout.split('\n').slice(1)).toEqual(['  __proto__', '    -> toString', '  constructor', '    -> (no answer)', '  toString', '    -> (no answer)', '']);
  });
});

/** A question as Claude Code's hook opens it: answered in Claude Code's decision format. */
function openQuestion(toolUseId: string, toolInput?: Record<string, unknown>): NewAsk {
  const question: Question = { question: 'Which?', header: 'H', multiSelect: false, options: [{ label: 'A', description: '' }, { label: 'B', description: '' }] };
  const input = toolInput ?? { questions: [question] };
  return {
    sessionId: 's1',
    toolUseId,
    cwd: '/project',
    toolInput: input,
    questions: [question],
    waitMs: 60_000,
    timeout: { action: 'terminal', summary: 'the terminal will ask' },
    onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
    door: 'command-hook',
    reply: (outcome) => claudeCodeDecision({ toolInput: input, answerMode: 'updatedInput', waitSeconds: 60 }, outcome),
  };
}

const pickA = [{ question: 'Which?', selected: ['A'], other: null, notes: null }];

describe('an answer whose reply cannot be made', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-failed-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('ends the question as failed: the hook gets nothing to print, and history records the failure', async () => {
    const store = createAskStore();
    const history = createHistory(join(dir, 'history.jsonl'));
    store.subscribe((event) => event.type === 'resolved' && history.append(event.ask));
    // A BigInt passes through the store but cannot be serialised: the decision cannot be built.
    const waiter = store.open(openQuestion('bigint', { questions: openQuestion('bigint').questions, size: 10n }));

    const result = store.answer(waiter.ask.id, pickA, { client: 'page' });
    expect(result).toMatchObject({ kind: 'failed', ask: { status: 'failed', source: { kind: 'person', client: 'page' } } });
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'failed' });
    expect(store.get(waiter.ask.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the reply for its asker could not be made \(.*BigInt.*\)$/) });
    expect(store.get(waiter.ask.id)!.answers).toBeUndefined();
    expect(store.answer(waiter.ask.id, pickA, { client: 'cli' })).toMatchObject({ kind: 'already_resolved', ask: { status: 'failed' } });

    await history.flushed();
    const [line, ...more] = readHistory(join(dir, 'history.jsonl'));
    expect(more).toEqual([]);
    expect(line).toMatchObject({ status: 'failed', source: 'failed', detail: 'an answer from the page could not be delivered; the terminal asked instead', error: expect.stringContaining('could not be made') });
    expect(line!.answers).toBeUndefined();
  });

  it('is shown by `askbridge history` with its error, and unanswered questions read as such, whatever they are called', async () => {
    const store = createAskStore();
    const history = createHistory(join(dir, 'history.jsonl'));
    store.subscribe((event) => event.type === 'resolved' && history.append(event.ask));
    const asked = questions(false);
    const waiter = store.open({ ...openQuestion('cli-history', { questions: asked, size: 10n }), questions: asked });
    expect(store.answer(waiter.ask.id, [
      { question: '__proto__', selected: ['toString'], other: null, notes: null },
      { question: 'constructor', selected: ['__proto__'], other: null, notes: null },
      { question: 'toString', selected: ['constructor'], other: null, notes: null },
    ], { client: 'cli' }).kind).toBe('failed');
    await history.flushed();

    let stdout = '';
    await runHistory({ argv: [], env: { ASKBRIDGE_HOME: dir }, stdout: (text) => (stdout += text), stderr: () => {} });
    const [first, ...rest] = stdout.split('\n');
    expect(first).toMatch(/^\S+ {2}failed \(an answer from the cli could not be delivered; the terminal asked instead\) {2}\/project$/);
    expect(rest).toEqual([
      expect.stringMatching(/^ {2}error: the reply for its asker could not be made \(.*BigInt.*\)$/),
      '  __proto__',
      '    -> (no answer)',
      '  constructor',
      '    -> (no answer)',
      '  toString',
      '    -> (no answer)',
      '',
    ]);
  });

  it('also fails honestly when a policy decides on a timer', async () => {
    const store = createAskStore();
    const waiter = store.open({
      ...openQuestion('policy'),
      reply: () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
      immediate: { status: 'declined', source: { kind: 'policy', action: 'decline', trigger: 'immediately' } },
    });
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'failed', error: 'the reply for its asker could not be made (Maximum call stack size exceeded)' });
  });
});

describe('the daemon when an accepted answer cannot be delivered', () => {
  const PORT = 7433;
  const HOST = `127.0.0.1:${PORT}`;
  const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';
  const local = { host: HOST, authorization: `Bearer ${TOKEN}` };
  const singleSelect = JSON.parse(readFileSync(new URL('../fixtures/01-single-select.input.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  let app: App;

  /** A real store whose askers' replies all throw: no real payload can make one fail (its depth and size are bounded). */
  async function start(): Promise<void> {
    const config = { ...mergeConfig(SCRIPTED_USER, {}), files: { user: '', project: undefined }, errors: [], ignored: [] };
    const store = createAskStore();
    const open = store.open;
    store.open = (input) => open({ ...input, reply: () => { throw new RangeError('Maximum call stack size exceeded'); } });
    app = await buildApp({ store, token: TOKEN, port: PORT, command: 'askbridge', version: 'test', pid: 1, logger: false, planQuestion: createPolicy({ configFor: () => config, log: () => {} }) });
    await app.ready();
  }
  afterEach(async () => {
    await app?.close();
  });

  it('tells the answering client with a 500 that names the problem, and the hook falls through at once', async () => {
    await start();
    const hook = askThroughInject(app, { token: TOKEN, host: local.host, body: hookBody(singleSelect) });
    const pending = await vi.waitUntil(async () => {
      const { asks } = (await app.inject({ method: 'GET', url: '/api/asks', headers: local })).json<{ asks: AskView[] }>();
      return asks.length > 0 ? asks : undefined;
    });
    const answer = await app.inject({
      method: 'POST',
      url: `/api/asks/${pending[0]!.id}/answer`,
      headers: local,
      payload: { responses: [{ question: 'Which database should the new orders service use?', selected: ['SQLite'] }] },
    });
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toEqual({
      error: {
        code: 'decision_failed',
        message: 'the answer was not delivered: the reply for its asker could not be made (Maximum call stack size exceeded). The question went back to the terminal: answer it there.',
      },
    });
    expect((await hook).lines[1]).toEqual({ event: 'settled', status: 'failed', decision: '' });
    const after = await app.inject({ method: 'GET', url: `/api/asks/${pending[0]!.id}`, headers: local });
    expect(after.json<{ ask: AskView }>().ask).toMatchObject({ status: 'failed', error: expect.stringContaining('could not be made') });
  });
});
