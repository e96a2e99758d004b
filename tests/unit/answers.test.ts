import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AnswerError, buildAllowOutput, formatAnswers } from '../../src/answers.js';
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

    const output = buildAllowOutput(input.tool_input, formatAnswers(questions, responses));

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
    const { annotations } = formatAnswers([single], [response('Which database?', ['Postgres'], null, 'keep it boring')]);
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

describe('buildAllowOutput', () => {
  it('never adds an empty annotations object', () => {
    const output = buildAllowOutput({ questions: [] }, { answers: { q: 'a' }, annotations: {}, choices: [] });
    expect(output.hookSpecificOutput.updatedInput).not.toHaveProperty('annotations');
  });

  it('adds additionalContext beside the decision only when given', () => {
    const output = buildAllowOutput({ questions: [] }, { answers: { q: 'a' }, annotations: {}, choices: [] }, 'chosen by policy');
    expect(output.hookSpecificOutput.additionalContext).toBe('chosen by policy');
  });
});
