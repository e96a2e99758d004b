import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHistory, readHistory } from '../../src/daemon/history.js';
import type { QuestionView } from '../../src/protocol.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-history-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const finished = (id: string, source: QuestionView['source'], status: QuestionView['status']): QuestionView => ({
  id,
  sessionId: 's',
  toolUseId: `t-${id}`,
  cwd: '/p',
  createdAt: 0,
  expiresAt: 1000,
  resolvedAt: 500,
  timeout: { action: 'terminal', summary: '' },
  status,
  source,
  questions: [{ question: 'Q?', header: 'H', multiSelect: false, options: [] }],
  answers: { 'Q?': 'A' },
});

describe('history.jsonl', () => {
  it('records who or what settled each question', async () => {
    const path = join(dir, 'history.jsonl');
    const history = createHistory(path);
    history.append(finished('1', { kind: 'person', client: 'page' }, 'answered'));
    history.append(finished('2', { kind: 'policy', action: 'rule', trigger: 'immediately', rule: '"tests"' }, 'answered'));
    history.append(finished('3', { kind: 'policy', action: 'terminal', trigger: 'timeout' }, 'terminal'));
    history.append(finished('4', { kind: 'hook-gone' }, 'cancelled'));
    history.append(finished('5', { kind: 'person', client: 'cli' }, 'declined'));
    await history.flushed();
    expect(readHistory(path).map((line) => [line.source, line.detail])).toEqual([
      ['person', 'page'],
      ['rule', 'immediately: "tests"'],
      ['expired', 'timeout'],
      ['cancelled', 'the hook stopped waiting (Esc or timeout in Claude Code)'],
      ['declined', 'person via cli'],
    ]);
  });

  it('skips a torn last line, and the next append starts on a fresh line', async () => {
    const path = join(dir, 'history.jsonl');
    const first = createHistory(path);
    first.append(finished('1', { kind: 'person', client: 'page' }, 'answered'));
    await first.flushed();
    appendFileSync(path, '{"id":"torn","sour');
    expect(readHistory(path).map((line) => line.id)).toEqual(['1']);
    const afterCrash = createHistory(path);
    afterCrash.append(finished('2', { kind: 'person', client: 'page' }, 'answered'));
    await afterCrash.flushed();
    expect(readHistory(path).map((line) => line.id)).toEqual(['1', '2']);
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(4);
  });
});
