// Questions the fake model asks in more than one conformance file.
import type { AskUserQuestionInput } from './fake-anthropic.js';

export const DATABASE: AskUserQuestionInput = {
  questions: [
    {
      question: 'Which database should we use?',
      header: 'Database',
      multiSelect: false,
      options: [
        { label: 'Postgres', description: 'Relational, server' },
        { label: 'SQLite', description: 'Embedded file' },
      ],
    },
  ],
};

export const CHECKS: AskUserQuestionInput = {
  questions: [
    {
      question: 'Which checks should run in CI?',
      header: 'CI checks',
      multiSelect: true,
      options: [
        { label: 'Unit tests', description: 'vitest, ~40 s' },
        { label: 'Lint', description: 'eslint + prettier --check' },
        { label: 'Type check', description: 'tsc --noEmit' },
      ],
    },
  ],
};
