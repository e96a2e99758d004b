// Another daemon's asks, as a daemon sharing the store shows them (store.mirror()): listed and told
// like its own, never settled here, and sent to their holder by the person decisions; a settled view
// ends one for good, and a stale waiting view that comes after changes nothing. Nothing of them
// reaches this daemon's history, notifications or limits (the events say `elsewhere`).
import { describe, expect, it } from 'vitest';
import { createPersonDecisions, type PersonDecision } from '../../src/daemon/asks/person-decisions.js';
import { createAskStore, type NewAsk, type StoreEvent } from '../../src/daemon/asks/store.js';
import type { Decider, Question } from '../../src/protocol.js';

const question: Question = { question: 'Which?', header: 'H', multiSelect: false, options: [{ label: 'A', description: '' }, { label: 'B', description: '' }] };
const open = (toolUseId: string): NewAsk => ({
  sessionId: 's1',
  toolUseId,
  cwd: '/project',
  toolInput: { questions: [question] },
  questions: [question],
  waitMs: 60_000,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'command-hook',
});
const pick = (label: string) => [{ question: 'Which?', selected: [label], other: null, notes: null }];

/** An ask as the daemon holding it shows it, and the store of another daemon that mirrors it. */
function heldAndShown() {
  const holder = createAskStore();
  const waiter = holder.open(open('t1'));
  const here = createAskStore();
  const events: StoreEvent[] = [];
  here.subscribe((event) => events.push(event));
  here.mirror(waiter.ask, 'b:7433');
  return { holder, waiter, here, events, id: waiter.ask.id };
}

describe("another daemon's asks", () => {
  it('are listed and told here, never counted against this daemon, and never settled here', () => {
    const { here, events, id } = heldAndShown();
    expect(here.pending().map((ask) => ask.id)).toEqual([id]);
    expect(events).toEqual([{ type: 'added', ask: expect.objectContaining({ id }), elsewhere: true }]);
    expect(here.holderOf(id)).toBe('b:7433');
    expect(here.askerOf(id)).toBeUndefined();
    expect(here.waiting()).toEqual({ asks: 0, bytes: 0 });
    // A person method here finds nothing to settle: the decision goes to the holder.
    expect(here.answer(id, pick('A'), { client: 'cli' })).toEqual({ kind: 'not_found' });
    expect(here.extend(id)).toEqual({ kind: 'not_found' });
    here.releaseAll();
    expect(here.get(id)?.status).toBe('pending');
  });

  it('end with the settled view their holder writes, and a stale waiting view after it changes nothing', () => {
    const { holder, here, events, id } = heldAndShown();
    const waiting = here.get(id)!;
    // Read again unchanged (a reconnect): nothing is told.
    here.mirror({ ...waiting }, 'b:7433');
    expect(events.map((event) => event.type)).toEqual(['added']);
    expect(holder.answer(id, pick('B'), { client: 'page' })).toMatchObject({ kind: 'answered' });
    here.mirror(holder.get(id)!, 'b:7433');
    expect(here.get(id)).toMatchObject({ status: 'answered', answers: { 'Which?': 'B' } });
    expect(here.pending()).toEqual([]);
    here.mirror(waiting, 'b:7433');
    expect(here.get(id)?.status).toBe('answered');
    expect(events.map((event) => event.type)).toEqual(['added', 'resolved']);
  });

  it('are taken off when their daemon is gone, and shown again if it comes back with them', () => {
    const { here, events, id } = heldAndShown();
    const view = here.get(id)!;
    here.forget(id);
    expect(here.get(id)).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'resolved', ask: { id, status: 'cancelled' }, elsewhere: true });
    here.mirror(view, 'b:7433');
    expect(here.pending().map((ask) => ask.id)).toEqual([id]);
  });

  it("never replace an ask held here", () => {
    const { holder, waiter } = heldAndShown();
    holder.mirror({ ...waiter.ask, expiresAt: waiter.ask.expiresAt + 1 }, 'c:7433');
    expect(holder.holderOf(waiter.ask.id)).toBeUndefined();
    expect(holder.get(waiter.ask.id)?.expiresAt).toBe(waiter.ask.expiresAt);
  });

  it('are decided by their holder: a person decision is sent there, and its result is the reply', async () => {
    const { holder, here, id } = heldAndShown();
    const sent: Array<{ holder: string; id: string; decision: PersonDecision; by: Decider }> = [];
    const holderDecisions = createPersonDecisions(holder, undefined);
    const decisions = createPersonDecisions(here, undefined);
    decisions.forwardWith(async (to, askId, decision, by) => {
      sent.push({ holder: to, id: askId, decision, by });
      return holderDecisions.decideHere(askId, decision, by);
    });
    const by: Decider = { client: 'page', device: 'Firefox on Linux' };
    expect(await decisions.take(id, { action: 'answer', responses: pick('A') }, by)).toMatchObject({ kind: 'answered', ask: { status: 'answered', source: { kind: 'person', client: 'page', device: 'Firefox on Linux' } } });
    expect(sent).toEqual([{ holder: 'b:7433', id, decision: { action: 'answer', responses: pick('A') }, by }]);
    expect(await decisions.take(id, { action: 'decline' }, by)).toMatchObject({ kind: 'already_resolved', ask: { status: 'answered' } });
    // One held here is decided here.
    const own = here.open(open('t2'));
    expect(await decisions.take(own.ask.id, { action: 'answer', responses: pick('B') }, by)).toMatchObject({ kind: 'answered' });
    expect(sent).toHaveLength(2);
  });
});
