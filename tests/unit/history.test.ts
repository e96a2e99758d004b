import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHistory, HISTORY_BACKLOG_LINES } from '../../src/daemon/asks/history.js';
import { readHistory, readHistoryTail } from '../../src/history-file.js';
import type { HistoryProblem, AskView } from '../../src/protocol.js';
import { askView } from '../stack/views.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-history-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const finished = (id: string, source: AskView['source'], status: AskView['status']): AskView => askView({
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
    history.append(finished('3', { kind: 'policy', action: 'terminal', trigger: 'timeout' }, 'handed-to-terminal'));
    history.append(finished('4', { kind: 'hook-gone' }, 'cancelled'));
    history.append(finished('5', { kind: 'person', client: 'cli' }, 'declined'));
    history.append({ ...finished('6', { kind: 'hook-gone' }, 'cancelled'), agent: 'opencode' });
    await history.flushed();
    expect(readHistory(path).map((line) => [line.source, line.detail])).toEqual([
      ['person', 'page'],
      ['rule', 'immediately: "tests"'],
      ['expired', 'timeout'],
      ['cancelled', 'the hook stopped waiting (Esc or timeout in Claude Code)'],
      ['declined', 'person via cli'],
      ['cancelled', "opencode's own prompt settled it, or askbridge's relay for it stopped"],
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

  it('reads a line written before the status was called handed-to-terminal, as the new name', () => {
    const path = join(dir, 'history.jsonl');
    const old = { id: 'old', sessionId: 's', toolUseId: 't', project: '/p', askedAt: '2026-11-01T10:00:00.000Z', finishedAt: '2026-11-01T10:05:00.000Z', status: 'terminal', source: 'expired', questions: [{ question: 'Q?', header: 'H' }] };
    appendFileSync(path, `${JSON.stringify(old)}\n`);
    expect(readHistory(path)).toEqual([{ ...old, status: 'handed-to-terminal' }]);
    expect(readHistoryTail(path, 5).map((line) => line.status)).toEqual(['handed-to-terminal']);
  });
});

describe('history.jsonl under a burst', () => {
  it('has each line in the file when append returns, before the answer can be sent: a kill -9 right after finds it', () => {
    const path = join(dir, 'history.jsonl');
    const history = createHistory(path);
    for (let index = 0; index < 50; index++) {
      history.append(finished(String(index), { kind: 'person', client: 'page' }, 'answered'));
      // Read straight away, with no turn of the event loop in between.
      expect(readHistory(path).map((line) => line.id)).toEqual(Array.from({ length: index + 1 }, (_, written) => String(written)));
    }
  });
});

describe('history.jsonl that cannot be written', () => {
  it('keeps the lines in memory, reports the problem, and writes them in order once it can', async () => {
    const path = join(dir, 'history.jsonl');
    // A folder where the file should be: every append fails (EISDIR) until it is removed.
    mkdirSync(path);
    const problems: Array<HistoryProblem | null> = [];
    const history = createHistory(path, { onProblem: (problem) => problems.push(problem) });
    history.append(finished('1', { kind: 'person', client: 'page' }, 'answered'));
    await history.flushed();
    expect(history.problem()).toMatchObject({ error: 'EISDIR', waiting: 1, lost: 0 });

    rmSync(path, { recursive: true });
    history.append(finished('2', { kind: 'person', client: 'cli' }, 'answered'));
    await history.flushed();
    history.close();
    expect(history.problem()).toBeNull();
    expect(problems.map((problem) => problem?.waiting ?? null)).toEqual([1, null]);
    expect(readHistory(path).map((line) => line.id)).toEqual(['1', '2']);
  });

  it('says how many lines it lost when more finished than it could keep', async () => {
    const path = join(dir, 'history.jsonl');
    mkdirSync(path);
    const history = createHistory(path);
    for (let index = 0; index < HISTORY_BACKLOG_LINES + 3; index++) history.append(finished(String(index), { kind: 'person', client: 'page' }, 'answered'));
    await history.flushed();
    expect(history.problem()).toMatchObject({ waiting: HISTORY_BACKLOG_LINES, lost: 3 });
    rmSync(path, { recursive: true });
    history.append(finished('last', { kind: 'person', client: 'page' }, 'answered'));
    await history.flushed();
    history.close();
    const lines = readHistory(path);
    // The line that brought it past the limit again pushed out one more: four in all.
    expect(lines[0]).toMatchObject({ source: 'lost', detail: '4 finished question(s) could not be recorded (EISDIR)' });
    expect(lines.slice(1).map((line) => line.id)).toEqual([...Array.from({ length: HISTORY_BACKLOG_LINES - 1 }, (_, index) => String(index + 4)), 'last']);
  });
});

describe('reading history from its end', () => {
  it('gives the last N lines of a long history, across chunk boundaries and multi-byte text, skipping a torn line', () => {
    const path = join(dir, 'history.jsonl');
    const lines = Array.from({ length: 3000 }, (_, index) =>
      JSON.stringify({
        id: String(index),
        sessionId: 's',
        toolUseId: `t${index}`,
        project: '/p',
        askedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:01.000Z',
        status: 'answered',
        source: 'person',
        questions: [{ question: `Café ☕ 東京 ${'é'.repeat(index % 50)}?`, header: 'H' }],
      }),
    );
    // A torn line, and a line that is JSON but not a history line (something else wrote to the file).
    appendFileSync(path, `{"id":"foreign"}\n${lines.join('\n')}\n{"id":"torn","sou`);
    const all = readHistory(path);
    expect(all.map((line) => line.id)).toEqual(lines.map((_, index) => String(index)));
    for (const limit of [1, 7, 500, 2999, 3000, 5000]) {
      expect(readHistoryTail(path, limit)).toEqual(all.slice(-limit).reverse());
    }
    expect(readHistoryTail(join(dir, 'none.jsonl'), 5)).toEqual([]);
  });
});
