// What the model reads from ask_user (askbridge mcp): Claude Code's own wording for answers, and never
// an answer where there is none.
import { describe, expect, it } from 'vitest';
import { resultOf } from '../../src/cli/mcp.js';
import type { AskView } from '../../src/protocol.js';
import { askView } from '../stack/views.js';

const settled = (fields: Partial<AskView>): AskView => askView({
  id: '00000000-0000-4000-8000-000000000000',
  sessionId: 'mcp:agent',
  toolUseId: 't',
  cwd: '/p',
  createdAt: 0,
  expiresAt: 1,
  timeout: { action: 'terminal', summary: '' },
  status: 'answered',
  questions: [
    { question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'Postgres', description: '' }, { label: 'SQLite', description: '' }] },
    { question: 'Which checks?', header: 'Checks', multiSelect: true, options: [{ label: 'Lint', description: '' }, { label: 'Tests', description: '' }] },
  ],
  ...fields,
});

describe('resultOf', () => {
  it('uses Claude Code wording when every answer is made of option labels', () => {
    const result = resultOf(settled({ answers: { 'Which database?': 'Postgres', 'Which checks?': 'Lint, Tests' }, source: { kind: 'person', client: 'page' } }));
    expect(result.content).toEqual([{ type: 'text', text: 'Your questions have been answered: "Which database?"="Postgres", "Which checks?"="Lint, Tests". You can now continue with these answers in mind.' }]);
    expect(result.structuredContent).toEqual({ message: (result.content[0] as { text: string }).text, status: 'answered', answers: { 'Which database?': 'Postgres', 'Which checks?': 'Lint, Tests' }, notes: {}, answeredBy: 'person' });
  });

  it('asks the model to read free text and notes carefully', () => {
    const result = resultOf(settled({ answers: { 'Which database?': 'DuckDB, for analytics', 'Which checks?': 'Lint' }, notes: { 'Which checks?': 'only on main' }, source: { kind: 'person', client: 'cli' } }));
    expect(result.content).toEqual([{ type: 'text', text: 'The user answered: "Which database?"="DuckDB, for analytics", "Which checks?"="Lint" (note: only on main). Read the answers carefully and follow what they actually say.' }]);
  });

  it('gives no answer when nobody answered, and says a decline is a decline', () => {
    const unanswered = resultOf(settled({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }));
    expect(unanswered.structuredContent).toMatchObject({ status: 'unanswered', answers: {}, notes: {}, answeredBy: 'nobody' });
    expect(JSON.stringify(unanswered.content)).toContain('do not assume one');
    const declined = resultOf(settled({ status: 'declined', source: { kind: 'person', client: 'page' } }));
    expect(declined.structuredContent).toMatchObject({ status: 'declined', answeredBy: 'person' });
    expect(JSON.stringify(declined.content)).toContain('The user declined to answer');
  });

  it('says why a policy answered: a rule that answers at once is not "nobody answered in time"', () => {
    const atOnce = resultOf(settled({ answers: { 'Which database?': 'SQLite', 'Which checks?': 'Lint' }, source: { kind: 'policy', action: 'rule', trigger: 'immediately', rule: '"db"' } }));
    expect(atOnce.structuredContent).toMatchObject({ answeredBy: 'policy' });
    expect((atOnce.content[0] as { text: string }).text).toContain('not by a person: a rule answers it at once.');
    expect(JSON.stringify(atOnce.content)).not.toContain('in time');
    const unwatched = resultOf(settled({ answers: { 'Which database?': 'Postgres', 'Which checks?': 'Lint' }, source: { kind: 'policy', action: 'recommended', trigger: 'nobody-watching' } }));
    expect((unwatched.content[0] as { text: string }).text).toContain('not by a person: nobody was watching when it was asked.');
  });

  it('tells what really happened when nobody answered: the daemon stopped, or the ask was withdrawn', () => {
    expect((resultOf(settled({ status: 'handed-to-terminal', source: { kind: 'daemon-stopped' } })).content[0] as { text: string }).text).toContain('(nobody answered: the daemon stopped)');
    expect((resultOf(settled({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } })).content[0] as { text: string }).text).toContain('(nobody answered in time)');
  });
});
