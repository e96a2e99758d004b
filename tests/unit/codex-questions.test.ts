// Codex's request_user_input as askbridge asks it, and the answer it gets back: what Codex's own
// picker sends (observed on 0.169.0: `{"answers": {"<id>": {"answers": ["<label>"]}}}`, a note as
// `user_note: <text>`, typed text as "None of the above" with the text as its note), keyed by Codex's
// question ids; nothing at all where Codex's picker should ask; and a request askbridge could not
// answer in that format refused as a whole, never half asked.
import { describe, expect, it } from 'vitest';
import { formatAnswers } from '../../src/answers.js';
import { CODEX_OTHER_LABEL, codexQuestionsReply, mapCodexQuestions, type MappedCodexQuestions } from '../../src/daemon/decisions/codex-questions.js';
import type { Outcome } from '../../src/daemon/asks/store.js';
import { AttachCodexRequestSchema, CodexUserInputRequestSchema, CodexUserInputResponseSchema, type Response } from '../../src/protocol.js';

/** Codex's request as its app-server sends it (item/tool/requestUserInput params, 0.169.0). */
function codexRequest(questions: unknown[] = [database(), color()]): unknown {
  return { threadId: 'thread-1', turnId: 'turn-1', itemId: 'call_1', questions, isBlocking: true, autoResolutionMs: null };
}
function database(extra: Record<string, unknown> = {}) {
  return {
    id: 'db',
    header: 'Database',
    question: 'Which database should we use?',
    isOther: true,
    isSecret: false,
    options: [
      { label: 'Postgres (Recommended)', description: 'Relational' },
      { label: 'SQLite', description: 'Embedded' },
    ],
    ...extra,
  };
}
function color() {
  return { id: 'color', header: 'Colour', question: 'Which colour?', isOther: true, isSecret: false, options: [{ label: 'Red', description: '' }, { label: 'Blue', description: 'cool' }] };
}

function mapped(request = codexRequest()): MappedCodexQuestions {
  const mapping = mapCodexQuestions(CodexUserInputRequestSchema.parse(request));
  if (!mapping.ok) throw new Error(mapping.details.join('; '));
  return mapping.mapped;
}

function answered(questions: MappedCodexQuestions, responses: Array<Partial<Response> & { question: string }>, source: Outcome['source'] = { kind: 'person', client: 'page' }): Outcome {
  const full = responses.map((response) => ({ selected: [], other: null, notes: null, ...response }));
  return { status: 'answered', source, answered: formatAnswers(questions.questions, full) };
}

/** The answer as `askbridge attach codex` receives it (as JSON, or '' for none): checked against the reply's schema. */
function reply(questions: MappedCodexQuestions, outcome: Outcome) {
  const answer = codexQuestionsReply(questions, outcome);
  return answer === null ? '' : CodexUserInputResponseSchema.parse(JSON.parse(JSON.stringify(answer)));
}

describe("Codex's questions as askbridge asks them", () => {
  it('keeps header, question and options, single-select (Codex has no multi-select), and each id to answer by', () => {
    const { questions, ids } = mapped();
    expect(ids).toEqual(['db', 'color']);
    expect(questions).toEqual([
      { question: 'Which database should we use?', header: 'Database', multiSelect: false, options: [{ label: 'Postgres (Recommended)', description: 'Relational' }, { label: 'SQLite', description: 'Embedded' }] },
      { question: 'Which colour?', header: 'Colour', multiSelect: false, options: [{ label: 'Red', description: '' }, { label: 'Blue', description: 'cool' }] },
    ]);
  });

  it('asks a question that takes only its options with no typed answer offered, as Codex takes it', () => {
    const mapping = mapCodexQuestions(CodexUserInputRequestSchema.parse(codexRequest([database({ isOther: false }), color()])));
    expect(mapping.ok && mapping.mapped.typed).toEqual([false, true]);
  });

  it.each([
    ['a secret answer', [database({ isSecret: true })], "questions.0: its answer is secret, typed only in Codex's terminal"],
    ['no options', [database({ options: null })], 'questions.0: it has no options, only typed text'],
    ['empty options', [database({ options: [] })], 'questions.0: it has no options, only typed text'],
    ['one option', [database({ options: [{ label: 'Only', description: '' }] })], 'questions.0.options'],
    ['two questions with one id', [database(), { ...color(), id: 'db' }], 'two questions have the same id'],
    ['the same text twice', [database(), { ...database(), id: 'db2' }], 'the same question text is asked twice'],
    ['a duplicate label', [database({ options: [{ label: 'A', description: '' }, { label: 'A', description: '' }] })], 'duplicate option label'],
    ['five questions', [1, 2, 3, 4, 5].map((n) => ({ ...color(), id: `q${n}`, question: `Question ${n}?` })), 'questions'],
  ])('refuses a request with %s: Codex’s own picker asks it', (_, questions, detail) => {
    const mapping = mapCodexQuestions(CodexUserInputRequestSchema.parse(codexRequest(questions)));
    expect(mapping.ok).toBe(false);
    expect(!mapping.ok && mapping.details.join('\n')).toContain(detail);
  });

  it('refuses, at the edge, what is not a request of Codex at all, with a line per problem', () => {
    const body = (question: unknown) => AttachCodexRequestSchema.safeParse({ request: { kind: 'question', question }, environment: {} });
    expect(body({ ...(codexRequest() as object), threadId: '' }).success).toBe(false);
    expect(body({ threadId: 't', itemId: 'i', questions: 'no' }).success).toBe(false);
    expect(body({ threadId: 't', itemId: 'i', questions: [{ ...database(), id: 7 }] }).success).toBe(false);
    // An id that could not stay a key of the answer is refused, not silently dropped from it.
    const proto = body({ threadId: 't', itemId: 'i', questions: [database({ id: '__proto__' })] });
    expect(proto.success).toBe(false);
    expect(!proto.success && proto.error.issues[0]?.path).toEqual(['request', 'question', 'questions', 0, 'id']);
    // Fields Codex adds later are kept and ignored.
    expect(body({ ...(codexRequest() as object), somethingNew: { x: 1 } }).success).toBe(true);
  });
});

describe("the answer Codex gets, in its picker's format", () => {
  const questions = mapped();

  it('gives each question id the label chosen', () => {
    const outcome = answered(questions, [
      { question: 'Which database should we use?', selected: ['SQLite'] },
      { question: 'Which colour?', selected: ['Blue'] },
    ]);
    expect(reply(questions, outcome)).toEqual({ answers: { db: { answers: ['SQLite'] }, color: { answers: ['Blue'] } } });
  });

  it('sends a note after the label, as `user_note:`', () => {
    const outcome = answered(questions, [
      { question: 'Which database should we use?', selected: ['Postgres (Recommended)'], notes: 'version 17 please' },
      { question: 'Which colour?', selected: ['Red'] },
    ]);
    expect(reply(questions, outcome)).toEqual({ answers: { db: { answers: ['Postgres (Recommended)', 'user_note: version 17 please'] }, color: { answers: ['Red'] } } });
  });

  it('sends typed text as the picker does: "None of the above", then the text as a note (and a note after it)', () => {
    const outcome = answered(questions, [
      { question: 'Which database should we use?', other: 'use MySQL instead' },
      { question: 'Which colour?', other: 'green', notes: 'dark' },
    ]);
    expect(reply(questions, outcome)).toEqual({
      answers: { db: { answers: [CODEX_OTHER_LABEL, 'user_note: use MySQL instead'] }, color: { answers: [CODEX_OTHER_LABEL, 'user_note: green', 'user_note: dark'] } },
    });
    expect(CODEX_OTHER_LABEL).toBe('None of the above');
  });

  it('tells the model when a policy chose, not a person, and leaves a question the policy did not answer empty', () => {
    const outcome = answered(questions, [{ question: 'Which database should we use?', selected: ['Postgres (Recommended)'] }], { kind: 'policy', action: 'recommended', trigger: 'timeout' });
    const answer = reply(questions, outcome);
    expect(answer !== '' && answer.answers.db?.answers[0]).toBe('Postgres (Recommended)');
    expect(answer !== '' && answer.answers.db?.answers[1]).toMatch(/^user_note: No person answered this question: askbridge's configuration chose it \(the recommended option\) because nobody answered in time\./);
    expect(answer !== '' && answer.answers.color).toEqual({ answers: [] });
  });

  it('declines by choosing nothing for every question, with a note that tells the model to go on without an answer', () => {
    const answer = reply(questions, { status: 'declined', source: { kind: 'person', client: 'cli' } });
    expect(answer).toEqual({
      answers: {
        db: { answers: [expect.stringMatching(/^user_note: The user declined to answer these questions\. Do not wait for an answer: go on with your best judgment/)] },
        color: { answers: [expect.stringMatching(/^user_note: The user declined/)] },
      },
    });
    const byPolicy = reply(questions, { status: 'declined', source: { kind: 'policy', action: 'decline', trigger: 'timeout' } });
    expect(byPolicy !== '' && byPolicy.answers.db?.answers[0]).toMatch(/^user_note: Nobody is available to answer these questions right now \(nobody answered in time\)\./);
  });

  it.each([
    ['handed to the terminal', { status: 'handed-to-terminal', source: { kind: 'person', client: 'page' } }],
    ['nobody reachable', { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' } }],
    ['withdrawn', { status: 'cancelled', source: { kind: 'hook-gone' } }],
    ['the daemon stopping', { status: 'handed-to-terminal', source: { kind: 'daemon-stopped' } }],
    ['failed', { status: 'failed', source: { kind: 'person', client: 'page' } }],
    ['answered without answers', { status: 'answered', source: { kind: 'person', client: 'page' } }],
  ] as const)('is nothing when %s: Codex’s own picker stays', (_, outcome) => {
    expect(reply(questions, outcome as Outcome)).toBe('');
  });

  it('keys answers by ids that look like object properties, as own keys', () => {
    const odd = mapped(codexRequest([database({ id: 'constructor' }), { ...color(), id: 'toString' }]));
    const text = JSON.stringify(codexQuestionsReply(odd, answered(odd, [{ question: 'Which database should we use?', selected: ['SQLite'] }, { question: 'Which colour?', selected: ['Red'] }])));
    expect(JSON.parse(text)).toEqual({ answers: { constructor: { answers: ['SQLite'] }, toString: { answers: ['Red'] } } });
  });
});
