// `askbridge history` shows the note a person added to an answer, under that answer, as safely as
// the rest: its invisible and terminal-active characters as markers, its later lines indented.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryLine } from '../../src/history-file.js';
import { baseEnv } from '../stack/env.js';
import { runCli } from '../stack/processes.js';

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

const FINISHED: HistoryLine = {
  id: 'a1',
  sessionId: 's',
  toolUseId: 't1',
  project: '/work/shop',
  askedAt: '2026-01-02T10:00:00.000Z',
  finishedAt: '2026-01-02T10:01:00.000Z',
  status: 'answered',
  source: 'person',
  detail: 'page',
  questions: [
    { question: 'Which database?', header: 'Database' },
    { question: 'Deploy now?', header: 'Deploy' },
  ],
  answers: { 'Which database?': 'Postgres', 'Deploy now?': 'Wait' },
  notes: { 'Which database?': 'keep it small\n\u001b[2Jand cheap\u0007' },
};

describe('askbridge history', () => {
  it("shows a person's note under their answer, marked and indented for the terminal; answers without one show none", async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-history-notes-'));
    homes.push(home);
    await writeFile(join(home, 'history.jsonl'), `${JSON.stringify(FINISHED)}\n`, { mode: 0o600 });
    const result = await runCli(['history'], baseEnv({ ASKBRIDGE_HOME: home }));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        '2026-01-02T10:01:00.000Z  person (page)  /work/shop',
        '  Which database?',
        '    -> Postgres',
        '       note: keep it small',
        '             [U+001B][2Jand cheap[U+0007]',
        '  Deploy now?',
        '    -> Wait',
        '',
      ].join('\n'),
    );
  });
});
