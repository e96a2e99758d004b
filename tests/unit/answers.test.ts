import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AnswerError, formatAnswers } from '../../src/answers.js';
import { answersAndAnnotations, claudeCodeDecision, PERSON_DECLINE_REASON } from '../../src/daemon/decisions/claude-code.js';
import { ResponseSchema, ToolInputSchema, type Question } from '../../src/protocol.js';

const fixtures = new URL('../fixtures/', import.meta.url);
const readJson = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as Record<string, unknown>;
const answeredFixtures = readdirSync(fixtures)
  .filter((name) => name.endsWith('.answer.json'))
  .map((name) => name.replace('.answer.json', ''));

describe('formatting answers for Claude Code', () => {
  it('has fixtures to check against', () => {
    expect(answeredFixtures.length).toBeGreaterThanOrEqual(6);
  });

  it.each(answeredFixtures)('%s: the decision equals the expected hook output', (name) => {
    const input = readJson(`${name}.input.json`) as { tool_input: Record<string, unknown> };
    const answer = readJson(`${name}.answer.json`) as { responses: unknown[] };
    const { questions } = ToolInputSchema.parse(input.tool_input);
    const responses = answer.responses.map((response) => ResponseSchema.parse(response));

    const answered = formatAnswers(questions, responses);
    const output = claudeCodeDecision({ toolInput: input.tool_input, answerMode: 'updatedInput', waitSeconds: 300 }, { status: 'answered', source: { kind: 'person', client: 'page' }, answered });

    expect(output).toEqual(readJson(`${name}.expected-allow.json`));
  });
});

const single: Question = {
  question: 'Which database?',
  header: 'DB',
  multiSelect: false,
  options: [
    { label: 'Postgres', description: 'server', preview: 'CREATE TABLE orders (...)' },
    { label: 'SQLite', description: 'file' },
  ],
};
const multi: Question = {
  question: 'Which checks?',
  header: 'CI',
  multiSelect: true,
  options: [
    { label: 'Lint', description: '' },
    { label: 'Unit, fast', description: '' },
    { label: 'E2E', description: '' },
  ],
};
const response = (question: string, selected: string[], other: string | null = null, notes: string | null = null) => ({ question, selected, other, notes });

describe('formatAnswers', () => {
  it('joins multi-select labels with ", " in option order, not click order, and appends free text last', () => {
    const { answers } = formatAnswers([multi], [response('Which checks?', ['E2E', 'Lint'], 'fuzzing')]);
    expect(answers).toEqual({ 'Which checks?': 'Lint, E2E, fuzzing' });
  });

  it('uses free text instead of a label in single-select', () => {
    expect(formatAnswers([single], [response('Which database?', [], 'DuckDB')]).answers).toEqual({ 'Which database?': 'DuckDB' });
  });

  it('puts a note in annotations and the chosen option preview beside it', () => {
    const { annotations } = answersAndAnnotations(formatAnswers([single], [response('Which database?', ['Postgres'], null, 'keep it boring')]));
    expect(annotations).toEqual({ 'Which database?': { notes: 'keep it boring', preview: 'CREATE TABLE orders (...)' } });
  });

  it('leaves unanswered questions out and keeps the order of the questions asked', () => {
    const { answers } = formatAnswers([single, multi], [response('Which checks?', ['Lint']), response('Which database?', [])]);
    expect(Object.keys(answers)).toEqual(['Which checks?']);
  });

  it('keys answers by the exact question text, newlines and emoji included', () => {
    const tricky: Question = { ...single, question: 'Deploy 🚀\nnow or "later"?' };
    expect(formatAnswers([tricky], [response(tricky.question, ['SQLite'])]).answers).toEqual({ 'Deploy 🚀\nnow or "later"?': 'SQLite' });
  });

  it.each([
    ['an unknown question', [response('Which cache?', ['Redis'])], 'unknown_question'],
    ['a label that was not offered', [response('Which database?', ['MySQL'])], 'unknown_label'],
    ['two labels in single-select', [response('Which database?', ['Postgres', 'SQLite'])], 'too_many_choices'],
    ['a label and free text in single-select', [response('Which database?', ['Postgres'], 'DuckDB')], 'too_many_choices'],
    ['the same label twice', [response('Which checks?', ['Lint', 'Lint'])], 'duplicate_label'],
    ['the same question twice', [response('Which database?', ['SQLite']), response('Which database?', ['SQLite'])], 'duplicate_response'],
    ['nothing chosen at all', [response('Which database?', [], '   ')], 'empty_answer'],
    ['a note without an answer', [response('Which database?', [], null, 'hmm')], 'note_without_answer'],
  ])('refuses %s', (_case, responses, code) => {
    expect(() => formatAnswers([single, multi], responses)).toThrow(expect.objectContaining({ code }) as AnswerError);
  });
});

describe("Claude Code's decision", () => {
  const ask = { toolInput: { questions: [single], metadata: { source: 'x' } }, answerMode: 'updatedInput', waitSeconds: 300 } as const;
  const person = { kind: 'person', client: 'page' } as const;

  it('never adds an empty annotations object, and echoes every key of the input', () => {
    const output = claudeCodeDecision(ask, { status: 'answered', source: person, answered: formatAnswers([single], [response('Which database?', ['SQLite'])]) });
    expect(output?.hookSpecificOutput.updatedInput).toEqual({ questions: [single], metadata: { source: 'x' }, answers: { 'Which database?': 'SQLite' } });
    expect(output?.hookSpecificOutput).not.toHaveProperty('additionalContext');
  });

  it("is a deny with the person's decline, and nothing at all for a hand-back, a withdrawal or a failure", () => {
    expect(claudeCodeDecision(ask, { status: 'declined', source: person })).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: PERSON_DECLINE_REASON } });
    expect(claudeCodeDecision(ask, { status: 'handed-to-terminal', source: person })).toBeNull();
    expect(claudeCodeDecision(ask, { status: 'cancelled', source: { kind: 'hook-gone' } })).toBeNull();
    expect(claudeCodeDecision(ask, { status: 'failed', source: person, error: 'x' })).toBeNull();
  });

  it('answers with labels holding ", " exactly as the dialog joins them, and names each label to Claude beside the answer', () => {
    const output = claudeCodeDecision({ ...ask, toolInput: { questions: [multi] } }, { status: 'answered', source: person, answered: formatAnswers([multi], [response('Which checks?', ['Unit, fast', 'Lint'], 'fuzz')]) });
    expect(output?.hookSpecificOutput.updatedInput?.answers).toEqual({ 'Which checks?': 'Lint, Unit, fast, fuzz' });
    expect(output?.hookSpecificOutput.additionalContext).toBe(
      'Some option labels contain ", ", the separator of a multi-select answer. The answer to "Which checks?" picks 2 options "Lint" and "Unit, fast", then free text "fuzz".',
    );
  });
});
