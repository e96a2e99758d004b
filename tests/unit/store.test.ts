import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQuestionStore, type OpenQuestion, type StoreEvent } from '../../src/daemon/store.js';
import type { Question } from '../../src/protocol.js';

const question: Question = { question: 'Which?', header: 'H', multiSelect: false, options: [{ label: 'A', description: '' }, { label: 'B', description: '' }] };
const open = (toolUseId: string, waitMs = 60_000): OpenQuestion => ({
  sessionId: 's1',
  toolUseId,
  cwd: '/project',
  toolInput: { questions: [question] },
  questions: [question],
  waitMs,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  onTimeout: () => ({ status: 'terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' }, hookOutput: null }),
  answerMode: 'updatedInput',
});
const pick = (label: string) => [{ question: 'Which?', selected: [label], other: null, notes: null }];

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the question store', () => {
  it('withdraws a question when its last waiting hook leaves, and refuses later answers', async () => {
    const store = createQuestionStore();
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const waiter = store.open(open('t1'));
    waiter.leave();
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'cancelled', hookOutput: null });
    expect(events.map((event) => [event.type, event.question.status])).toEqual([['added', 'pending'], ['resolved', 'cancelled']]);
    expect(store.answer(waiter.question.id, pick('A'), 'page')).toMatchObject({ kind: 'already_resolved', question: { status: 'cancelled' } });
    expect(store.pending()).toEqual([]);
  });

  it('keeps the question while another hook still waits for it', () => {
    const store = createQuestionStore();
    const first = store.open(open('t1'));
    const second = store.open(open('t1'));
    expect(second.question.id).toBe(first.question.id);
    first.leave();
    expect(store.pending()).toHaveLength(1);
    expect(store.answer(first.question.id, pick('B'), 'cli').kind).toBe('answered');
  });

  it('settles by the plan when nobody answers in time', async () => {
    const store = createQuestionStore();
    const waiter = store.open(open('t1', 5000));
    vi.advanceTimersByTime(4999);
    expect(store.pending()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'terminal', source: { kind: 'policy', trigger: 'timeout' } });
  });

  it('lists pending questions newest first', () => {
    const store = createQuestionStore();
    store.open(open('t1'));
    vi.advanceTimersByTime(10);
    store.open(open('t2'));
    expect(store.pending().map((view) => view.toolUseId)).toEqual(['t2', 't1']);
  });

  it('forgets finished questions after a while, so memory stays bounded', () => {
    const store = createQuestionStore({ keepFinishedMs: 1000 });
    const done = store.open(open('t1'));
    store.answer(done.question.id, pick('A'), 'page');
    vi.advanceTimersByTime(1001);
    const later = store.open(open('t2'));
    store.answer(later.question.id, pick('A'), 'page');
    expect(store.get(done.question.id)).toBeUndefined();
    expect(store.get(later.question.id)?.status).toBe('answered');
  });

  it('hands every waiting hook back to the terminal when the daemon stops', async () => {
    const store = createQuestionStore();
    const waiter = store.open(open('t1'));
    store.releaseAll();
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'terminal', source: { kind: 'daemon-stopped' }, hookOutput: null });
  });
});
