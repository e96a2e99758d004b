// Two-person approval in the store: an approval whose route says `approvals: 2` is allowed only
// once two distinct people allowed it, each from their own paired device or chat. The first allow
// is recorded and kept in the view (the ask waits on), the same person again changes nothing, any
// deny ends it, and nothing is kept or released without its audit record.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAskStore, type NewAsk, type Outcome, type RecordedEvent, type StoreEvent } from '../../src/daemon/asks/store.js';
import type { Decider } from '../../src/protocol.js';
import { twoPeopleLine } from '../../src/two-people.js';

const PUSH = { toolName: 'Bash', toolInput: { command: 'git push --force' }, suggestions: [{ label: 'Always allow `Bash(git push *)` in this project' }] };

const twoPeople = (toolUseId = 't1', extra: Partial<NewAsk> = {}): NewAsk => ({
  sessionId: 's1',
  toolUseId,
  cwd: '/project',
  toolInput: PUSH.toolInput,
  questions: [],
  approval: PUSH,
  agent: 'claude-code',
  route: { people: ['alice', 'bob'], approvals: 2, rule: 'permission: risky' },
  waitMs: 60_000,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'http-hook',
  reply: (outcome) => outcome.status,
  ...extra,
});

const alicePhone: Decider = { client: 'page', person: 'alice', device: 'Pixel 8' };
const aliceLaptop: Decider = { client: 'page', person: 'alice', device: 'ThinkPad' };
const aliceChat: Decider = { client: 'telegram', person: 'alice', device: 'Alice' };
const bobPhone: Decider = { client: 'page', person: 'bob', device: 'iPhone' };
const cli: Decider = { client: 'cli' };

/** A store that records every audit event, and fails to while `failing` says so. */
function recordingStore() {
  const recorded: RecordedEvent[] = [];
  const audit = { failing: false };
  const store = createAskStore({
    record: (event) => {
      if (audit.failing) throw new Error('the disk is full');
      recorded.push(event);
    },
  });
  const events: StoreEvent[] = [];
  store.subscribe((event) => events.push(event));
  return { store, recorded, audit, events };
}

/** Whether the waiter's outcome has arrived (a microtask turn is enough for a settled one). */
async function settledYet(outcome: Promise<Outcome>): Promise<boolean> {
  return Promise.race([outcome.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
afterEach(() => vi.useRealTimers());

describe('an approval two people must allow', () => {
  it('offers no "always allow" and no grant', () => {
    const { store } = recordingStore();
    const waiter = store.open(twoPeople());
    expect(waiter.ask.choices).toMatchObject({ allow: true, remember: false, grant: false });
    expect(waiter.ask.approval?.grant).toBeUndefined();
  });

  it('refuses the CLI\'s allow, and a device paired for no person, and changes nothing', async () => {
    const { store, recorded, events } = recordingStore();
    const waiter = store.open(twoPeople());
    const refusal = { kind: 'invalid', error: { code: 'two_people_required', message: 'two people must allow this from their own paired devices; the CLI may deny it' } };
    expect(store.decide(waiter.ask.id, { behavior: 'allow', confirmRisky: true }, cli)).toMatchObject(refusal);
    // A page paired before people were defined sees only what is routed to nobody: not this one at all.
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, { client: 'page', device: 'old phone' })).toEqual({ kind: 'not_found' });
    expect(store.get(waiter.ask.id)).toMatchObject({ status: 'pending' });
    expect(store.get(waiter.ask.id)?.allows).toBeUndefined();
    expect(recorded).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['added']);
    expect(await settledYet(waiter.outcome)).toBe(false);
  });

  it('keeps the first allow, records it, tells everyone, and waits for a second person', async () => {
    const { store, recorded, events } = recordingStore();
    const waiter = store.open(twoPeople());
    const result = store.decide(waiter.ask.id, { behavior: 'allow' }, alicePhone);
    const allow = { person: 'alice', device: 'Pixel 8', client: 'page', at: Date.now() };
    expect(result).toMatchObject({ kind: 'allowed_once', ask: { status: 'pending', allows: [allow] } });
    expect(recorded).toEqual([{ kind: 'allow', ask: expect.objectContaining({ id: waiter.ask.id, status: 'pending' }), allow }]);
    expect(events.map((event) => [event.type, event.ask.allows?.length ?? 0])).toEqual([
      ['added', 0],
      ['updated', 1],
    ]);
    expect(store.pending()).toMatchObject([{ id: waiter.ask.id, allows: [allow] }]);
    expect(await settledYet(waiter.outcome)).toBe(false);
  });

  it('refuses the same person again, from any device or chat, and changes nothing', async () => {
    const { store, recorded, events } = recordingStore();
    const waiter = store.open(twoPeople());
    store.decide(waiter.ask.id, { behavior: 'allow' }, alicePhone);
    for (const again of [alicePhone, aliceLaptop, aliceChat]) {
      expect(store.decide(waiter.ask.id, { behavior: 'allow' }, again)).toMatchObject({ kind: 'already_allowed', person: 'alice', ask: { status: 'pending', allows: [{ person: 'alice', device: 'Pixel 8' }] } });
    }
    expect(recorded).toHaveLength(1);
    expect(events).toHaveLength(2);
    expect(await settledYet(waiter.outcome)).toBe(false);
  });

  it('is allowed once a second person allows: both allows kept, the second person its source', async () => {
    const { store, recorded } = recordingStore();
    const waiter = store.open(twoPeople());
    store.decide(waiter.ask.id, { behavior: 'allow' }, alicePhone);
    vi.advanceTimersByTime(30_000);
    const result = store.decide(waiter.ask.id, { behavior: 'allow' }, bobPhone);
    expect(result).toMatchObject({ kind: 'answered', ask: { status: 'allowed', source: { kind: 'person', ...bobPhone }, decision: { behavior: 'allow' } } });
    const settled = store.get(waiter.ask.id)!;
    expect(settled.allows?.map((allow) => allow.person)).toEqual(['alice', 'bob']);
    expect(recorded.map((event) => event.kind)).toEqual(['allow', 'settled']);
    expect(recorded[1]).toMatchObject({ kind: 'settled', ask: { status: 'allowed', allows: [{ person: 'alice' }, { person: 'bob' }] } });
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'allowed', source: { person: 'bob' } });
    await expect(waiter.reply).resolves.toBe('allowed');
    // Late: whoever comes after learns it was allowed.
    expect(store.decide(waiter.ask.id, { behavior: 'deny' }, cli)).toMatchObject({ kind: 'already_resolved', ask: { status: 'allowed' } });
  });

  it('is denied at once by any deny, the CLI\'s too, even after one allow, which stays in its view', async () => {
    const { store } = recordingStore();
    const byBob = store.open(twoPeople('t1'));
    store.decide(byBob.ask.id, { behavior: 'allow' }, alicePhone);
    expect(store.decide(byBob.ask.id, { behavior: 'deny', message: 'not on main' }, bobPhone)).toMatchObject({ kind: 'answered', ask: { status: 'denied', allows: [{ person: 'alice' }] } });
    await expect(byBob.outcome).resolves.toMatchObject({ status: 'denied', source: { person: 'bob' } });
    const byCli = store.open(twoPeople('t2'));
    expect(store.decide(byCli.ask.id, { behavior: 'deny' }, cli)).toMatchObject({ kind: 'answered', ask: { status: 'denied', source: { kind: 'person', client: 'cli' } } });
    // The person who allowed may change their mind: a deny is never counted, it ends it.
    const byAlice = store.open(twoPeople('t3'));
    store.decide(byAlice.ask.id, { behavior: 'allow' }, alicePhone);
    expect(store.decide(byAlice.ask.id, { behavior: 'deny' }, aliceLaptop)).toMatchObject({ kind: 'answered', ask: { status: 'denied' } });
  });

  it('keeps nothing when the first allow cannot be recorded, and settles nothing when the second cannot', async () => {
    const { store, audit, events } = recordingStore();
    const waiter = store.open(twoPeople());
    audit.failing = true;
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, alicePhone)).toMatchObject({ kind: 'not_recorded', reason: 'the disk is full', ask: { status: 'pending' } });
    expect(store.get(waiter.ask.id)?.allows).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(['added']);
    audit.failing = false;
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, alicePhone)).toMatchObject({ kind: 'allowed_once' });
    audit.failing = true;
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, bobPhone)).toMatchObject({ kind: 'not_recorded', reason: 'the disk is full' });
    expect(store.get(waiter.ask.id)).toMatchObject({ status: 'pending', allows: [{ person: 'alice' }] });
    expect(await settledYet(waiter.outcome)).toBe(false);
    audit.failing = false;
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, bobPhone)).toMatchObject({ kind: 'answered', ask: { status: 'allowed' } });
  });

  it('refuses a grant or an "always allow" with it: each person allows it once', () => {
    const { store } = recordingStore();
    const waiter = store.open(twoPeople());
    const refusal = { kind: 'invalid', error: { code: 'two_people_allow_once' } };
    expect(store.decide(waiter.ask.id, { behavior: 'allow', grant: { minutes: 15, scope: 'session' } }, alicePhone)).toMatchObject(refusal);
    expect(store.decide(waiter.ask.id, { behavior: 'allow', suggestion: 0 }, alicePhone)).toMatchObject(refusal);
    expect(store.get(waiter.ask.id)?.allows).toBeUndefined();
  });

  it('still needs a risky one confirmed, on each allow', () => {
    const { store } = recordingStore();
    const waiter = store.open(twoPeople('t1', { risk: { reasons: ['force-pushes'] } }));
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, alicePhone)).toMatchObject({ kind: 'invalid', error: { code: 'risky_unconfirmed' } });
    expect(store.decide(waiter.ask.id, { behavior: 'allow', confirmRisky: true }, alicePhone)).toMatchObject({ kind: 'allowed_once' });
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, bobPhone)).toMatchObject({ kind: 'invalid', error: { code: 'risky_unconfirmed' } });
    expect(store.decide(waiter.ask.id, { behavior: 'allow', confirmRisky: true }, bobPhone)).toMatchObject({ kind: 'answered', ask: { status: 'allowed' } });
  });

  it('ends as today at its deadline, or when the agent\'s own dialog answers first, the one allow kept', async () => {
    const { store } = recordingStore();
    const timedOut = store.open(twoPeople('t1'));
    store.decide(timedOut.ask.id, { behavior: 'allow' }, alicePhone);
    vi.advanceTimersByTime(60_000);
    await expect(timedOut.outcome).resolves.toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', trigger: 'timeout' } });
    expect(store.get(timedOut.ask.id)).toMatchObject({ status: 'handed-to-terminal', allows: [{ person: 'alice' }] });
    const answeredThere = store.open(twoPeople('t2'));
    store.decide(answeredThere.ask.id, { behavior: 'allow' }, bobPhone);
    answeredThere.leave();
    await expect(answeredThere.outcome).resolves.toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    expect(store.get(answeredThere.ask.id)).toMatchObject({ status: 'cancelled', allows: [{ person: 'bob' }] });
  });

  it('leaves an approval one person decides as it was: the CLI allows it', () => {
    const { store, recorded } = recordingStore();
    const waiter = store.open(twoPeople('t1', { route: { people: ['alice', 'bob'], approvals: 1 } }));
    expect(waiter.ask.choices.remember).toBe(true);
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, cli)).toMatchObject({ kind: 'answered', ask: { status: 'allowed' } });
    expect(store.get(waiter.ask.id)?.allows).toBeUndefined();
    expect(recorded.map((event) => event.kind)).toEqual(['settled']);
  });
});

describe('the words for where it stands', () => {
  it('says it needs two people, then who allowed it and when, in local time', () => {
    const at = new Date(2026, 11, 2, 14, 2).getTime();
    const view = { approval: PUSH, route: { people: ['alice', 'bob'], approvals: 2 as const } };
    expect(twoPeopleLine(view)).toBe('Needs two people');
    const byAlice = { ...view, allows: [{ person: 'alice', device: 'Pixel 8', client: 'page' as const, at }] };
    expect(twoPeopleLine(byAlice)).toBe('1 of 2: allowed by alice at 14:02');
    expect(twoPeopleLine({ ...view, allows: [{ person: 'alice', at }, { person: 'bob', at: at + 3 * 60_000 }] })).toBe('2 of 2: allowed by alice at 14:02 and bob at 14:05');
    const onePerson = { ...view, route: { people: ['alice'], approvals: 1 } };
    expect(twoPeopleLine(onePerson)).toBeUndefined();
    expect(twoPeopleLine({ route: view.route })).toBeUndefined();
  });
});
