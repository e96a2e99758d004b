import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPendingFiles } from '../../src/daemon/asks/pending-files.js';
import { EXTEND_STEP_MS, MAX_PENDING, WAITING_BYTES } from '../../src/daemon/limits.js';
import { createAskStore, KEEP_UNDELIVERED_MS, REATTACH_MS, type AskerIdentity, type NewAsk, type PendingRecord, type StoreEvent } from '../../src/daemon/asks/store.js';
import type { Question } from '../../src/protocol.js';

const question: Question = { question: 'Which?', header: 'H', multiSelect: false, options: [{ label: 'A', description: '' }, { label: 'B', description: '' }] };
const open = (toolUseId: string, waitMs = 60_000): NewAsk => ({
  sessionId: 's1',
  toolUseId,
  cwd: '/project',
  toolInput: { questions: [question] },
  questions: [question],
  waitMs,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'command-hook',
  // The asker's own reply: the store hands it over and knows nothing of what it means.
  reply: (outcome) => `${outcome.status}:${JSON.stringify(outcome.answered?.answers ?? {})}`,
});
const pick = (label: string) => [{ question: 'Which?', selected: [label], other: null, notes: null }];
const LIMITS = { asks: MAX_PENDING, bytes: WAITING_BYTES };
/** Who ends a session: the command hook, or Claude Code's http hook from a machine. */
const commandHook: AskerIdentity = { transport: 'command-hook', agent: undefined, credential: 'token', machine: undefined, program: undefined };
const httpHook = (machine?: string): AskerIdentity => ({ transport: 'http-hook', agent: undefined, credential: 'hook-key', machine, program: undefined });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the question store', () => {
  it('refuses a person\'s answer that leaves a question out, naming it, and keeps the question open', () => {
    const store = createAskStore();
    const second: Question = { ...question, question: 'Which too?', header: 'Too' };
    const waiter = store.open({ ...open('t1'), toolInput: { questions: [question, second] }, questions: [question, second] });
    const result = store.answer(waiter.ask.id, pick('A'), { client: 'cli' });
    expect(result).toMatchObject({ kind: 'invalid', error: { code: 'unanswered', message: 'every question needs an answer, as on the page: question 2 (Too) has none' } });
    expect(store.get(waiter.ask.id)?.status).toBe('pending');
    expect(store.answer(waiter.ask.id, [...pick('A'), { question: 'Which too?', selected: [], other: 'C', notes: null }], { client: 'cli' })).toMatchObject({ kind: 'answered' });
  });

  it('settles a question a person declines, and one handed back, each once, with its asker\'s reply', async () => {
    const store = createAskStore();
    const declined = store.open(open('t1'));
    expect(store.decline(declined.ask.id, { client: 'page' })).toMatchObject({ kind: 'answered', ask: { status: 'declined', source: { kind: 'person', client: 'page' } } });
    await expect(declined.outcome).resolves.toEqual({ status: 'declined', source: { kind: 'person', client: 'page' } });
    await expect(declined.reply).resolves.toBe('declined:{}');
    const handedBack = store.open(open('t2'));
    expect(store.handToTerminal(handedBack.ask.id, { client: 'cli' })).toMatchObject({ kind: 'answered', ask: { status: 'handed-to-terminal', source: { kind: 'person', client: 'cli' } } });
    await expect(handedBack.outcome).resolves.toMatchObject({ status: 'handed-to-terminal' });
    // Once settled, neither way settles it again; an unknown id is not found.
    expect(store.decline(handedBack.ask.id, { client: 'page' })).toMatchObject({ kind: 'already_resolved', ask: { status: 'handed-to-terminal' } });
    expect(store.handToTerminal(declined.ask.id, { client: 'page' })).toMatchObject({ kind: 'already_resolved', ask: { status: 'declined' } });
    expect(store.decline('00000000-0000-4000-8000-000000000000', { client: 'page' })).toEqual({ kind: 'not_found' });
  });

  it('withdraws a question when its last waiting hook leaves, and refuses later answers', async () => {
    const store = createAskStore();
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const waiter = store.open(open('t1'));
    waiter.leave();
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'cancelled' });
    expect(events.map((event) => [event.type, event.ask.status])).toEqual([['added', 'pending'], ['resolved', 'cancelled']]);
    expect(store.answer(waiter.ask.id, pick('A'), { client: 'page' })).toMatchObject({ kind: 'already_resolved', ask: { status: 'cancelled' } });
    expect(store.pending()).toEqual([]);
  });

  it('reports a question a policy settles at once as settled only: it was never waiting, so nobody is told it waits', async () => {
    const store = createAskStore();
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const waiter = store.open({ ...open('t1'), immediate: { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'immediately' } } });
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'handed-to-terminal' });
    expect(events.map((event) => [event.type, event.ask.status])).toEqual([['resolved', 'handed-to-terminal']]);
  });

  it('keeps the question while another hook still waits for it', () => {
    const store = createAskStore();
    const first = store.open(open('t1'));
    const second = store.open(open('t1'));
    expect(second.ask.id).toBe(first.ask.id);
    first.leave();
    expect(store.pending()).toHaveLength(1);
    expect(store.answer(first.ask.id, pick('B'), { client: 'cli' }).kind).toBe('answered');
  });

  it('settles by the plan when nobody answers in time', async () => {
    const store = createAskStore();
    const waiter = store.open(open('t1', 5000));
    vi.advanceTimersByTime(4999);
    expect(store.pending()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', trigger: 'timeout' } });
  });

  it('forgets finished questions after a while, so memory stays bounded', () => {
    const store = createAskStore({ keepFinishedMs: 1000 });
    const done = store.open(open('t1'));
    store.answer(done.ask.id, pick('A'), { client: 'page' });
    vi.advanceTimersByTime(1001);
    const later = store.open(open('t2'));
    store.answer(later.ask.id, pick('A'), { client: 'page' });
    expect(store.get(done.ask.id)).toBeUndefined();
    expect(store.get(later.ask.id)?.status).toBe('answered');
  });

  it("adds a waiting question's session context with an updated event, and leaves a settled one as it was", () => {
    const store = createAskStore();
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const waiter = store.open(open('t1'));
    expect(store.setContext(waiter.ask.id, { title: 'Add dark mode', branch: 'main', said: 'Which palette?' }, LIMITS)).toBe('added');
    expect(store.get(waiter.ask.id)).toMatchObject({ status: 'pending', context: { title: 'Add dark mode', branch: 'main', said: 'Which palette?' } });
    expect(events.at(-1)).toEqual({ type: 'updated', ask: store.get(waiter.ask.id) });
    store.answer(waiter.ask.id, pick('A'), { client: 'page' });
    const count = events.length;
    expect(store.setContext(waiter.ask.id, { title: 'Too late' }, LIMITS)).toBe('settled');
    expect(store.setContext('00000000-0000-4000-8000-000000000000', { title: 'Nobody' }, LIMITS)).toBe('settled');
    expect(events).toHaveLength(count);
    expect(store.get(waiter.ask.id)?.context).toEqual({ title: 'Add dark mode', branch: 'main', said: 'Which palette?' });
  });

  it("withdraws every waiting question of a session that ended that its own kind of hook asked: the same transport and machine", async () => {
    const store = createAskStore();
    const first = store.open(open('t1'));
    const second = store.open(open('t2'));
    const answered = store.open(open('t3'));
    store.answer(answered.ask.id, pick('A'), { client: 'page' });
    const otherSession = store.open({ ...open('t4'), sessionId: 's2' });
    const otherMachine = store.open({ ...open('t5'), machine: 'ci-runner', door: 'http-hook' });
    const script = store.open({ ...open('t6'), asker: { kind: 'script', name: 'deploy' } });
    const byHttpHook = store.open({ ...open('t7'), door: 'http-hook' });

    const withdrawn = store.endSession('s1', commandHook);
    expect(withdrawn.map((view) => view.toolUseId)).toEqual(['t1', 't2']);
    for (const waiter of [first, second]) await expect(waiter.outcome).resolves.toEqual({ status: 'cancelled', source: { kind: 'session-ended' } });
    expect(store.get(answered.ask.id)?.status).toBe('answered');
    expect(store.pending().map((view) => view.id).sort()).toEqual([otherSession.ask.id, otherMachine.ask.id, script.ask.id, byHttpHook.ask.id].sort());
    // The http hook from another machine, or from this one, ends only what it asked itself.
    expect(store.endSession('s1', httpHook('laptop'))).toEqual([]);
    expect(store.endSession('s1', httpHook('ci-runner')).map((view) => view.toolUseId)).toEqual(['t5']);
    expect(store.endSession('s1', httpHook()).map((view) => view.toolUseId)).toEqual(['t7']);
    // Nothing ends a script's ask: it is never a session's.
    expect(store.endSession('script:deploy', { transport: 'ask', agent: undefined, credential: 'token', machine: undefined, program: 'script' })).toEqual([]);
    expect(store.endSession('s1', commandHook)).toEqual([]);
    expect(store.answer(first.ask.id, pick('A'), { client: 'page' })).toMatchObject({ kind: 'already_resolved', ask: { status: 'cancelled', source: { kind: 'session-ended' } } });
  });

  it('hands every waiting hook back to the terminal when the daemon stops', async () => {
    const store = createAskStore();
    const waiter = store.open(open('t1'));
    store.releaseAll();
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'handed-to-terminal', source: { kind: 'daemon-stopped' } });
  });
});

// Waiting questions survive a daemon that dies: kept on disk while they wait, restored with their
// id and deadline, re-attached by the hook that comes back, withdrawn when it does not.
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-pending-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('waiting questions on disk', () => {
  it('are written (0600) while they wait, kept with their decision until it is handed to the hook, and removed then', () => {
    const files = createPendingFiles(dir, () => {});
    const store = createAskStore({ persistence: files });
    const waiter = store.open(open('t1'));
    const file = join(dir, 'pending', `${waiter.ask.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = { id: waiter.ask.id, sessionId: 's1', toolUseId: 't1', cwd: '/project', createdAt: waiter.ask.createdAt, expiresAt: waiter.ask.expiresAt, toolInput: open('t1').toolInput };
    expect(files.load()).toEqual([record]);
    store.answer(waiter.ask.id, pick('A'), { client: 'page' });
    expect(files.load()).toEqual([{ ...record, settled: { outcome: expect.objectContaining({ status: 'answered', source: { kind: 'person', client: 'page' } }), resolvedAt: expect.any(Number) } }]);
    waiter.delivered();
    expect(readdirSync(join(dir, 'pending'))).toEqual([]);
  });

  it('give a decision kept on disk to the hook that re-attaches after a restart, and then remove it', async () => {
    const files = createPendingFiles(dir, () => {});
    const before = createAskStore({ persistence: files });
    const asked = before.open(open('t1'));
    before.answer(asked.ask.id, pick('A'), { client: 'page' });
    // The daemon dies here, before its hook had the decision.
    const [kept] = files.load();
    const after = createAskStore({ persistence: files });
    after.restore({ ...open('t1'), door: 'command-hook', restored: { id: kept!.id, createdAt: kept!.createdAt, expiresAt: kept!.expiresAt }, settled: kept!.settled! });
    const back = after.open(open('t1'));
    expect(back.ask.id).toBe(asked.ask.id);
    expect((await back.outcome).answered?.answers).toEqual((await asked.outcome).answered?.answers);
    expect(await back.reply).toEqual(await asked.reply);
    back.delivered();
    expect(readdirSync(join(dir, 'pending'))).toEqual([]);
  });

  it('are not written when a policy settles them at once', () => {
    const store = createAskStore({ persistence: createPendingFiles(dir, () => {}) });
    store.open({ ...open('t1'), immediate: { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'nobody-watching' } } });
    expect(() => readdirSync(join(dir, 'pending'))).toThrow(/ENOENT/);
  });

  it("set a file aside as .corrupt when its route or allows are not the protocol's, and load the others", () => {
    const files = createPendingFiles(dir, () => {});
    const store = createAskStore({ persistence: files });
    const waiter = store.open(open('t1'));
    const base = { sessionId: 's1', cwd: '/project', createdAt: 1, expiresAt: 2, toolInput: {} };
    const badRoute = '00000000-0000-4000-8000-000000000001';
    const badAllow = '00000000-0000-4000-8000-000000000002';
    writeFileSync(join(dir, 'pending', `${badRoute}.json`), JSON.stringify({ ...base, id: badRoute, toolUseId: 't2', route: { people: ['alice'], approvals: 3 } }));
    writeFileSync(join(dir, 'pending', `${badAllow}.json`), JSON.stringify({ ...base, id: badAllow, toolUseId: 't3', allows: [{ person: 'not a name', device: 'x', client: 'page', at: 1 }] }));
    expect(files.load().map((record) => record.id)).toEqual([waiter.ask.id]);
    expect(readdirSync(join(dir, 'pending')).filter((name) => name.endsWith('.corrupt')).sort()).toEqual([`${badRoute}.json.corrupt`, `${badAllow}.json.corrupt`]);
  });

  it('set a file that cannot be read aside as .corrupt, and load the others', () => {
    const files = createPendingFiles(dir, () => {});
    const store = createAskStore({ persistence: files });
    const waiter = store.open(open('t1'));
    writeFileSync(join(dir, 'pending', '00000000-0000-4000-8000-000000000000.json'), '{ torn');
    expect(files.load().map((record) => record.id)).toEqual([waiter.ask.id]);
    expect(readdirSync(join(dir, 'pending')).sort()).toEqual([`${waiter.ask.id}.json`, '00000000-0000-4000-8000-000000000000.json.corrupt'].sort());
  });

  it('log a write that fails, and the question goes on', () => {
    const messages: string[] = [];
    writeFileSync(join(dir, 'pending'), 'a file where the folder should be');
    const store = createAskStore({ persistence: createPendingFiles(dir, (_fields, message) => messages.push(message)) });
    const waiter = store.open(open('t1'));
    expect(messages).toEqual(['could not keep a waiting question on disk: it will not survive a daemon crash']);
    expect(store.answer(waiter.ask.id, pick('B'), { client: 'page' })).toMatchObject({ kind: 'answered' });
  });
});

describe('the store and its askers', () => {
  it('lists waiting asks oldest first', () => {
    const store = createAskStore();
    const first = store.open(open('t1'));
    vi.advanceTimersByTime(1000);
    const second = store.open(open('t2'));
    vi.advanceTimersByTime(1000);
    const third = store.open(open('t3'));
    expect(store.pending().map((ask) => ask.id)).toEqual([first.ask.id, second.ask.id, third.ask.id]);
  });

  it('refuses to hand a script\'s or an MCP client\'s ask to a terminal it does not have, and keeps it waiting', async () => {
    const store = createAskStore();
    const scripted = store.open({ ...open('t1'), asker: { kind: 'script', name: 'deploy.sh' } });
    expect(store.handToTerminal(scripted.ask.id, { client: 'page' })).toMatchObject({ kind: 'no_terminal', ask: { status: 'pending' } });
    expect(store.get(scripted.ask.id)?.status).toBe('pending');
    expect(store.decline(scripted.ask.id, { client: 'page' })).toMatchObject({ kind: 'answered', ask: { status: 'declined' } });
    await expect(scripted.outcome).resolves.toMatchObject({ status: 'declined', source: { kind: 'person' } });
  });

  it('fails an ask whose reply cannot be made before anyone is told it was answered, and no waiter gets a decision', async () => {
    const store = createAskStore();
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const first = store.open({ ...open('t1'), reply: () => { throw new RangeError('Maximum call stack size exceeded'); } });
    const second = store.open(open('t1'));
    expect(store.answer(first.ask.id, pick('A'), { client: 'page' })).toMatchObject({ kind: 'failed', ask: { status: 'failed', error: 'the reply for its asker could not be made (Maximum call stack size exceeded)' } });
    await expect(first.reply).resolves.toBeNull();
    await expect(second.reply).resolves.toBeNull();
    expect(events.map((event) => [event.type, event.ask.status])).toEqual([['added', 'pending'], ['resolved', 'failed']]);
  });

  it('gives no reply at all to an asker that gave no reply function (a script\'s ask builds no client decision)', async () => {
    const store = createAskStore();
    const { reply: _unused, ...withoutReply } = open('t1');
    const waiter = store.open({ ...withoutReply, asker: { kind: 'mcp', name: 'agent' } });
    store.answer(waiter.ask.id, pick('B'), { client: 'cli' });
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'answered', answered: { answers: { 'Which?': 'B' } } });
    await expect(waiter.reply).resolves.toBeNull();
  });
});

describe('a restored question', () => {
  function restoredFrom(record: PendingRecord, reattachMs?: number) {
    const store = createAskStore(reattachMs === undefined ? {} : { reattachMs });
    store.restore({ ...open(record.toolUseId, record.expiresAt - Date.now()), door: 'command-hook', restored: { id: record.id, createdAt: record.createdAt, expiresAt: record.expiresAt } });
    return store;
  }
  const record = (): PendingRecord => ({ id: '11111111-1111-4111-8111-111111111111', sessionId: 's1', toolUseId: 't1', cwd: '/project', createdAt: Date.now() - 5000, expiresAt: Date.now() + 55_000, toolInput: open('t1').toolInput });

  it('keeps its id and deadline, and delivers the answer to the hook that re-attaches, exactly once', async () => {
    const saved = record();
    const store = restoredFrom(saved);
    expect(store.pending()).toMatchObject([{ id: saved.id, createdAt: saved.createdAt, expiresAt: saved.expiresAt, status: 'pending' }]);
    const waiter = store.open(open('t1'));
    expect(waiter.ask.id).toBe(saved.id);
    expect(store.answer(saved.id, pick('B'), { client: 'page' })).toMatchObject({ kind: 'answered' });
    const outcome = await waiter.outcome;
    expect(outcome.answered?.answers).toEqual({ 'Which?': 'B' });
    await expect(waiter.reply).resolves.toBe('answered:{"Which?":"B"}');
    expect(store.answer(saved.id, pick('A'), { client: 'cli' })).toMatchObject({ kind: 'already_resolved' });
  });

  it('is withdrawn when no hook comes back within the re-attach window', () => {
    const store = restoredFrom(record());
    vi.advanceTimersByTime(REATTACH_MS - 1);
    expect(store.pending()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(store.pending()).toEqual([]);
    expect(store.get(record().id)).toMatchObject({ status: 'cancelled', source: { kind: 'hook-gone' } });
  });

  it('is settled by its policy at its old deadline once its hook is back', async () => {
    const saved = record();
    const store = restoredFrom(saved);
    const waiter = store.open(open('t1'));
    vi.advanceTimersByTime(saved.expiresAt - Date.now());
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', trigger: 'timeout' } });
  });
});

// A relay's ask settled with a decision its relay has not delivered yet stays on disk with its
// outcome: a daemon that dies in between gives it back settled, the relay that comes back gets the
// decision (never a new ask), and its delivery report is taken; then the file goes.
describe('a relayed decision not delivered yet', () => {
  const relayBody = { request: { kind: 'question' } };
  const relayed = (toolUseId: string): NewAsk => ({ ...open(toolUseId), door: 'relay', agent: 'opencode', relayed: relayBody });
  const relay: AskerIdentity = { transport: 'relay', agent: 'opencode', credential: 'token', machine: undefined, program: undefined };
  /** A new store on the same files, as a restarted daemon makes it (main.ts). */
  function restartOn(files: ReturnType<typeof createPendingFiles>) {
    const store = createAskStore({ persistence: files });
    for (const record of files.load()) {
      store.restore({ ...relayed(record.toolUseId), door: 'relay', restored: { id: record.id, createdAt: record.createdAt, expiresAt: record.expiresAt }, ...(record.settled ? { settled: record.settled } : {}) });
    }
    return store;
  }

  it('is kept on disk with its outcome, comes back settled after a restart, gives its relay the decision, and leaves the disk once delivered', async () => {
    const files = createPendingFiles(dir, () => {});
    const before = createAskStore({ persistence: files });
    const asked = before.open(relayed('que_1'));
    before.answer(asked.ask.id, pick('B'), { client: 'page' });
    await expect(asked.reply).resolves.toBe('answered:{"Which?":"B"}');
    expect(files.load()).toMatchObject([{ id: asked.ask.id, door: 'relay', relayed: relayBody, settled: { outcome: { status: 'answered', answered: { answers: { 'Which?': 'B' } } } } }]);

    const after = restartOn(files);
    const events: StoreEvent[] = [];
    after.subscribe((event) => events.push(event));
    expect(after.pending()).toEqual([]);
    expect(after.undelivered()).toMatchObject([{ id: asked.ask.id, status: 'answered', delivery: 'waiting', answers: { 'Which?': 'B' } }]);
    // The relay comes back for it: the same ask, settled, and its decision made again.
    expect(after.admit(relayed('que_1'), LIMITS)).toEqual({ kind: 'reattach' });
    const again = after.open(relayed('que_1'));
    expect(again.ask).toMatchObject({ id: asked.ask.id, status: 'answered' });
    await expect(again.reply).resolves.toBe('answered:{"Which?":"B"}');
    expect(after.deliveryReported(asked.ask.id, relay, { delivered: true })).toMatchObject({ delivery: 'delivered' });
    expect(events.map((event) => [event.type, event.ask.delivery])).toEqual([['updated', 'delivered']]);
    expect(readdirSync(join(dir, 'pending'))).toEqual([]);
    expect(after.undelivered()).toEqual([]);
  });

  it('is said undeliverable, and leaves the disk, when no relay reports it within its keep-time, counted from when it was settled', () => {
    const files = createPendingFiles(dir, () => {});
    const before = createAskStore({ persistence: files });
    const asked = before.open(relayed('que_2'));
    before.answer(asked.ask.id, pick('A'), { client: 'page' });
    vi.advanceTimersByTime(KEEP_UNDELIVERED_MS / 2);
    const after = restartOn(files);
    const events: StoreEvent[] = [];
    after.subscribe((event) => events.push(event));
    vi.advanceTimersByTime(KEEP_UNDELIVERED_MS / 2 - 1);
    expect(after.get(asked.ask.id)?.delivery).toBe('waiting');
    vi.advanceTimersByTime(1);
    // Told to every page and to history; then forgotten with the finished asks of its time.
    expect(events).toMatchObject([{ type: 'updated', ask: { id: asked.ask.id, status: 'answered', delivery: 'undeliverable', error: 'askbridge attach did not report it delivered within 24 hours' } }]);
    expect(after.undelivered()).toEqual([]);
    expect(readdirSync(join(dir, 'pending'))).toEqual([]);
  });

  it('is not forgotten with the finished asks while it waits to be delivered', () => {
    const store = createAskStore({ keepFinishedMs: 1000 });
    const asked = store.open(relayed('que_3'));
    store.answer(asked.ask.id, pick('A'), { client: 'page' });
    vi.advanceTimersByTime(60_000);
    store.open(open('t9')); // anything that forgets old finished asks
    expect(store.deliveryReported(asked.ask.id, relay, { delivered: true })).toMatchObject({ delivery: 'delivered' });
  });

  it('of two people, keeps its route and both allows once each across a restart; the first allow alone is on disk while it waits', async () => {
    const approval = { toolName: 'Bash', toolInput: { command: 'git push --force' }, suggestions: [] };
    const route = { people: ['alice', 'bob'], approvals: 2 as const, rule: 'route[0]' };
    const twoPeople: NewAsk = { ...relayed('per_1'), questions: [], toolInput: approval.toolInput, approval, route };
    const files = createPendingFiles(dir, () => {});
    const before = createAskStore({ persistence: files });
    const asked = before.open(twoPeople);
    expect(before.decide(asked.ask.id, { behavior: 'allow' }, { client: 'page', person: 'alice', device: 'Pixel 8' })).toMatchObject({ kind: 'allowed_once' });
    expect(files.load()).toMatchObject([{ id: asked.ask.id, route, allows: [{ person: 'alice', device: 'Pixel 8', client: 'page' }] }]);
    expect(before.decide(asked.ask.id, { behavior: 'allow' }, { client: 'telegram', person: 'bob', device: 'Bob' })).toMatchObject({ kind: 'answered', ask: { status: 'allowed' } });
    await expect(asked.reply).resolves.toBe('allowed:{}');

    const [record] = files.load();
    const after = createAskStore({ persistence: files });
    after.restore({ ...twoPeople, door: 'relay', route: record!.route!, restored: { id: record!.id, createdAt: record!.createdAt, expiresAt: record!.expiresAt, allows: record!.allows! }, settled: record!.settled! });
    expect(after.get(asked.ask.id)).toMatchObject({ status: 'allowed', route, delivery: 'waiting' });
    expect(after.get(asked.ask.id)?.allows?.map((allow) => allow.person)).toEqual(['alice', 'bob']);
  });

  it("keeps on disk the outcome's every part its relay's decision is made from: an MCP server's response, and the allow that settled it", () => {
    const files = createPendingFiles(dir, () => {});
    const id = '00000000-0000-4000-8000-000000000003';
    const outcome = { status: 'answered' as const, source: { kind: 'person' as const, client: 'page' as const, person: 'bob' }, elicitation: { action: 'accept' as const, content: { color: 'red' } }, allow: { person: 'bob', device: 'iPhone', client: 'page' as const, at: 5 } };
    files.save({ id, agent: 'codex', sessionId: 'thread-1', toolUseId: 'req-1', cwd: '/project', createdAt: 1, expiresAt: 2, toolInput: {}, door: 'relay', relayed: relayBody, settled: { outcome, resolvedAt: 3 } });
    expect(files.load()[0]?.settled).toEqual({ outcome, resolvedAt: 3 });
  });

  it('without a decision to deliver (handed back to its agent), leaves the disk as any settled ask', () => {
    const files = createPendingFiles(dir, () => {});
    const store = createAskStore({ persistence: files });
    const asked = store.open(relayed('que_4'));
    store.handToTerminal(asked.ask.id, { client: 'page' });
    expect(readdirSync(join(dir, 'pending'))).toEqual([]);
  });
});

// More time for a person who is answering: the deadline moves to EXTEND_STEP_MS from now, never past
// what the asker can wait (extendableUntil), never earlier; the timer, the copy on disk and every
// page follow, and a policy never settles the question at its old deadline.
describe('more time for a person who is answering', () => {
  const HOUR = 3_600_000;

  it('moves the deadline to two minutes from now, tells every page, and the policy waits for the new deadline', async () => {
    const store = createAskStore();
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const waiter = store.open({ ...open('t1', 60_000), maxWaitMs: HOUR });
    const { id, createdAt } = waiter.ask;
    expect(waiter.ask.extendableUntil).toBe(createdAt + HOUR);
    vi.advanceTimersByTime(50_000);
    const result = store.extend(id);
    expect(result).toMatchObject({ kind: 'extended', ask: { expiresAt: createdAt + 50_000 + EXTEND_STEP_MS, extendableUntil: createdAt + HOUR } });
    expect(events.map((event) => [event.type, event.ask.expiresAt])).toEqual([
      ['added', createdAt + 60_000],
      ['updated', createdAt + 50_000 + EXTEND_STEP_MS],
    ]);
    expect(store.get(id)?.expiresAt).toBe(createdAt + 50_000 + EXTEND_STEP_MS);
    // The old deadline passes: nothing happens.
    vi.advanceTimersByTime(10_000);
    expect(store.get(id)?.status).toBe('pending');
    vi.advanceTimersByTime(EXTEND_STEP_MS - 10_000 - 1);
    expect(store.get(id)?.status).toBe('pending');
    vi.advanceTimersByTime(1);
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', trigger: 'timeout' } });
  });

  it('never moves it past what the asker can wait, and at that limit leaves it as it is, telling nobody', () => {
    const store = createAskStore();
    const waiter = store.open({ ...open('t1', 60_000), maxWaitMs: 90_000 });
    const { id, createdAt } = waiter.ask;
    expect(store.extend(id)).toMatchObject({ kind: 'extended', ask: { expiresAt: createdAt + 90_000 } });
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    vi.advanceTimersByTime(80_000);
    expect(store.extend(id)).toMatchObject({ kind: 'unchanged', ask: { expiresAt: createdAt + 90_000, extendableUntil: createdAt + 90_000 } });
    expect(events).toEqual([]);
  });

  it('leaves a deadline that is further away than the step as it is: it never comes sooner', () => {
    const store = createAskStore();
    const waiter = store.open({ ...open('t1', 300_000), maxWaitMs: HOUR });
    expect(store.extend(waiter.ask.id)).toMatchObject({ kind: 'unchanged', ask: { expiresAt: waiter.ask.createdAt + 300_000 } });
    vi.advanceTimersByTime(200_000);
    expect(store.extend(waiter.ask.id)).toMatchObject({ kind: 'extended', ask: { expiresAt: waiter.ask.createdAt + 200_000 + EXTEND_STEP_MS } });
  });

  it('has no limit, and so never moves, when the asker cannot wait longer than the wait itself', () => {
    const store = createAskStore();
    const unbounded = store.open(open('t1', 60_000));
    const asLong = store.open({ ...open('t2', 60_000), maxWaitMs: 60_000 });
    for (const waiter of [unbounded, asLong]) {
      expect(waiter.ask.extendableUntil).toBeUndefined();
      expect(store.extend(waiter.ask.id)).toMatchObject({ kind: 'unchanged', ask: { expiresAt: waiter.ask.createdAt + 60_000 } });
    }
  });

  it('gives a question a policy settles at once no limit, and refuses more time for it as settled', () => {
    const store = createAskStore();
    const waiter = store.open({ ...open('t1'), maxWaitMs: HOUR, immediate: { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'nobody-watching' } } });
    expect(waiter.ask.extendableUntil).toBeUndefined();
    expect(store.extend(waiter.ask.id)).toMatchObject({ kind: 'already_resolved', ask: { status: 'handed-to-terminal' } });
    expect(store.get(waiter.ask.id)?.extendableUntil).toBeUndefined();
  });

  it('refuses a settled question with who won, and does not know an unknown one', () => {
    const store = createAskStore();
    const waiter = store.open({ ...open('t1', 60_000), maxWaitMs: HOUR });
    store.answer(waiter.ask.id, pick('A'), { client: 'page' });
    expect(store.extend(waiter.ask.id)).toMatchObject({ kind: 'already_resolved', ask: { status: 'answered', expiresAt: waiter.ask.createdAt + 60_000 } });
    expect(store.extend('00000000-0000-4000-8000-000000000000')).toEqual({ kind: 'not_found' });
  });

  it('writes the new deadline, with the limit, to the copy on disk; an http question has none to write', () => {
    const files = createPendingFiles(dir, () => {});
    const store = createAskStore({ persistence: files });
    const kept = store.open({ ...open('t1', 60_000), maxWaitMs: HOUR });
    const notKept = store.open({ ...open('t2', 60_000), maxWaitMs: HOUR, door: 'http-hook' });
    vi.advanceTimersByTime(30_000);
    store.extend(kept.ask.id);
    store.extend(notKept.ask.id);
    expect(files.load()).toEqual([
      expect.objectContaining({ id: kept.ask.id, expiresAt: kept.ask.createdAt + 30_000 + EXTEND_STEP_MS, extendableUntil: kept.ask.createdAt + HOUR }),
    ]);
  });

  it('restores a question with its extended deadline and its limit, which it may still use', async () => {
    const files = createPendingFiles(dir, () => {});
    const before = createAskStore({ persistence: files });
    const asked = before.open({ ...open('t1', 60_000), maxWaitMs: 200_000 });
    vi.advanceTimersByTime(50_000);
    before.extend(asked.ask.id);
    const [record] = files.load();
    before.releaseAll(); // the old daemon is gone; its file was read back before

    const after = createAskStore({ persistence: files });
    after.restore({ ...open(record!.toolUseId, record!.expiresAt - Date.now()), door: 'command-hook', restored: { id: record!.id, createdAt: record!.createdAt, expiresAt: record!.expiresAt, extendableUntil: record!.extendableUntil } });
    const waiter = after.open(open('t1')); // the hook re-attaches
    expect(waiter.ask).toMatchObject({ id: asked.ask.id, expiresAt: asked.ask.createdAt + 50_000 + EXTEND_STEP_MS, extendableUntil: asked.ask.createdAt + 200_000 });
    vi.advanceTimersByTime(100_000);
    expect(after.extend(record!.id)).toMatchObject({ kind: 'extended', ask: { expiresAt: asked.ask.createdAt + 200_000 } });
    vi.advanceTimersByTime(50_000 - 1);
    expect(after.get(record!.id)?.status).toBe('pending');
    vi.advanceTimersByTime(1);
    await expect(waiter.outcome).resolves.toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', trigger: 'timeout' } });
  });
});
