// What the store counts of the waiting asks, per asker (transport, credential, machine), per
// credential and in all, in asks and in bytes; what it refuses over each limit; and who may reach an
// ask again (only the command hook that asked it).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAskStore, type AskerIdentity, type NewAsk } from '../../src/daemon/asks/store.js';
import type { Question } from '../../src/protocol.js';

const question = (preview = ''): Question => ({
  question: 'Which?',
  header: 'H',
  multiSelect: false,
  options: [{ label: 'A', description: '', ...(preview ? { preview } : {}) }, { label: 'B', description: '' }],
});

type Who = Partial<Pick<NewAsk, 'machine' | 'asker' | 'credential' | 'door' | 'sessionId'>>;

/** An ask of `who` (the command hook by default), its preview `previewBytes` long. */
function ask(toolUseId: string, who: Who = {}, previewBytes = 0): NewAsk {
  const questions = [question('p'.repeat(previewBytes))];
  return {
    sessionId: 's1',
    toolUseId,
    cwd: '/project',
    toolInput: { questions },
    questions,
    waitMs: 60_000,
    timeout: { action: 'terminal', summary: 'the terminal will ask' },
    onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
    door: 'command-hook',
    reply: (outcome) => outcome.status,
    ...who,
  };
}

const HTTP: Who = { door: 'http-hook' };
const fromMachine = (machine: string): Who => ({ door: 'http-hook', machine });
const SCRIPT: Who = { asker: { kind: 'script', name: 'deploy' }, door: 'ask' };
const COMMAND_HOOK: AskerIdentity = { transport: 'command-hook', agent: undefined, credential: 'token', machine: undefined, program: undefined };
const pick = [{ question: 'Which?', selected: ['A'], other: null, notes: null }];

/** Admits and opens, as open-ask.ts does; throws on a refusal. */
function openAdmitted(store: ReturnType<typeof createAskStore>, input: NewAsk, limits: { asks: number; bytes: number }) {
  const admission = store.admit(input, limits);
  if (admission.kind === 'over' || admission.kind === 'taken') throw new Error(`refused: ${JSON.stringify(admission)}`);
  return store.open(input);
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('what an asker may hold', () => {
  it('is a quarter of the asks: its next one is refused, another asker still asks, and it has room again once one is settled', () => {
    const store = createAskStore();
    const limits = { asks: 8, bytes: 1024 * 1024 };
    const first = openAdmitted(store, ask('t1', SCRIPT), limits);
    openAdmitted(store, ask('t2', SCRIPT), limits);
    expect(store.admit(ask('t3', SCRIPT), limits)).toMatchObject({ kind: 'over', limit: 'asks', scope: 'asker', max: 2, first: true, asker: { transport: 'ask', agent: undefined, credential: 'token', program: 'script' } });
    // Refused again: the same episode, not logged again.
    expect(store.admit(ask('t4', SCRIPT), limits)).toMatchObject({ kind: 'over', first: false });
    expect(store.admit(ask('t5'), limits)).toMatchObject({ kind: 'new', refusedMeanwhile: 0 });
    store.answer(first.ask.id, pick, { client: 'page' });
    expect(store.admit(ask('t6', SCRIPT), limits)).toEqual({ kind: 'new', asker: { transport: 'ask', agent: undefined, credential: 'token', machine: undefined, program: 'script' }, refusedMeanwhile: 2 });
  });

  it('counts each ask as the JSON of its view and of its input, and gives the bytes back once it is settled', () => {
    const store = createAskStore();
    const limits = { asks: 100, bytes: 1024 * 1024 };
    const input = ask('t1', HTTP, 10_000);
    const waiter = openAdmitted(store, input, limits);
    const bytes = Buffer.byteLength(JSON.stringify(store.get(waiter.ask.id))) + Buffer.byteLength(JSON.stringify(input.toolInput));
    expect(bytes).toBeGreaterThan(20_000);
    expect(store.waiting()).toEqual({ asks: 1, bytes });
    expect(store.waiting({ transport: 'http-hook', agent: undefined, credential: 'hook-key', machine: undefined, program: undefined })).toEqual({ asks: 1, bytes });
    expect(store.waiting(COMMAND_HOOK)).toEqual({ asks: 0, bytes: 0 });
    waiter.leave();
    expect(store.waiting()).toEqual({ asks: 0, bytes: 0 });
  });

  it('is a quarter of the bytes: an ask that would pass it is refused, and one larger than the share is refused with nothing waiting', () => {
    const store = createAskStore();
    const limits = { asks: 100, bytes: 400_000 }; // 100,000 per asker
    openAdmitted(store, ask('t1', HTTP, 20_000), limits);
    openAdmitted(store, ask('t2', HTTP, 20_000), limits);
    expect(store.admit(ask('t3', HTTP, 20_000), limits)).toMatchObject({ kind: 'over', limit: 'bytes', scope: 'asker', max: 100_000 });
    expect(store.admit(ask('t4', fromMachine('laptop'), 52_000), limits)).toMatchObject({ kind: 'over', limit: 'bytes', scope: 'asker', max: 100_000 });
    expect(store.waiting({ transport: 'http-hook', agent: undefined, credential: 'hook-key', machine: 'laptop', program: undefined })).toEqual({ asks: 0, bytes: 0 });
    expect(store.admit(ask('t5', fromMachine('laptop'), 20_000), limits)).toMatchObject({ kind: 'new' });
  });
});

describe('what one credential may hold, from any number of machines it names', () => {
  it('is half of everything: the hook key naming a new machine for each ask cannot crowd out the command hook', () => {
    const store = createAskStore();
    const limits = { asks: 1000, bytes: 400_000 }; // 200,000 per credential, 100,000 per asker
    let opened = 0;
    for (let index = 0; index < 50; index++) {
      const admission = store.admit(ask(`flood-${index}`, fromMachine(`m${index}`), 20_000), limits);
      if (admission.kind === 'over') {
        expect(admission).toMatchObject({ limit: 'bytes', scope: 'credential', max: 200_000 });
        continue;
      }
      store.open(ask(`flood-${index}`, fromMachine(`m${index}`), 20_000));
      opened++;
    }
    expect(opened).toBe(4);
    expect(store.waiting().bytes).toBeLessThanOrEqual(200_000);
    expect(store.admit(ask('claude', {}, 20_000), limits)).toMatchObject({ kind: 'new' });
    expect(store.admit(ask('script', SCRIPT, 20_000), limits)).toMatchObject({ kind: 'new' });
    // A script asking with the hook key counts with the hook key's askers.
    expect(store.admit(ask('keyed-script', { ...SCRIPT, credential: 'hook-key' }, 20_000), limits)).toMatchObject({ kind: 'over', scope: 'credential' });
  });

  it('is refused as everyone\'s limit first when all askers together hold it', () => {
    const store = createAskStore();
    const limits = { asks: 4, bytes: 1024 * 1024 }; // 1 per asker, 2 per credential
    openAdmitted(store, ask('a'), limits);
    openAdmitted(store, ask('b', SCRIPT), limits);
    openAdmitted(store, ask('c', HTTP), limits);
    openAdmitted(store, ask('d', fromMachine('laptop')), limits);
    expect(store.admit(ask('e', fromMachine('desk')), limits)).toMatchObject({ kind: 'over', limit: 'asks', scope: 'all', max: 4 });
  });

  it('keeps the listing (every waiting view) within the byte limit however many ask', () => {
    const store = createAskStore();
    const limits = { asks: 4096, bytes: 2 * 1024 * 1024 };
    const askers: Who[] = [{}, HTTP, SCRIPT, { asker: { kind: 'mcp', name: 'agent' }, door: 'http-hook' }, ...Array.from({ length: 20 }, (_, index) => fromMachine(`m${index}`))];
    for (let index = 0; index < 400; index++) {
      const input = ask(`t${index}`, askers[index % askers.length], 30_000 + (index % 7) * 1000);
      if (store.admit(input, limits).kind === 'new') store.open(input);
    }
    const listing = Buffer.byteLength(JSON.stringify({ asks: store.pending() }));
    expect(listing).toBeLessThanOrEqual(limits.bytes);
    expect(store.waiting().bytes).toBeLessThanOrEqual(limits.bytes);
    expect(store.pending().length).toBeGreaterThan(20);
  });

  it('adds a session context only when it fits in what its asker may still hold', () => {
    const store = createAskStore();
    const limits = { asks: 100, bytes: 4 * 60_000 }; // 60,000 per asker
    const waiter = openAdmitted(store, ask('t1', HTTP, 28_000), limits);
    const before = store.waiting();
    expect(store.setContext(waiter.ask.id, { said: 's'.repeat(4000) }, limits)).toBe('no_room');
    expect(store.waiting()).toEqual(before);
    expect(store.get(waiter.ask.id)?.context).toBeUndefined();
    expect(store.setContext(waiter.ask.id, { said: 'Which palette?' }, limits)).toBe('added');
    expect(store.waiting().bytes).toBe(before.bytes + Buffer.byteLength(',"context":{"said":"Which palette?"}'));
  });
});

describe('who may reach an ask again', () => {
  const limits = { asks: 100, bytes: 1024 * 1024 };

  it('only the command hook that asked it: a second command hook attaches, and gets the answer', async () => {
    const store = createAskStore();
    const first = openAdmitted(store, ask('t1'), limits);
    expect(store.admit(ask('t1'), limits)).toEqual({ kind: 'reattach' });
    const second = store.open(ask('t1'));
    expect(second.ask.id).toBe(first.ask.id);
    store.answer(first.ask.id, pick, { client: 'page' });
    await expect(second.reply).resolves.toBe('answered');
    // After a restart, the command hook comes back for an ask settled meanwhile: it learns how.
    expect(store.admit(ask('t1'), limits)).toEqual({ kind: 'reattach' });
    await expect(store.open(ask('t1')).reply).resolves.toBe('answered');
  });

  it("never the http hook, another machine, a script or the command hook for another's ask: refused, waiting or settled", async () => {
    const store = createAskStore();
    const byCommandHook = openAdmitted(store, ask('t1'), limits);
    const byHttpHook = openAdmitted(store, ask('t2', HTTP), limits);
    for (const who of [HTTP, fromMachine('laptop'), { ...SCRIPT, sessionId: 's1' }, { credential: 'hook-key' as const }]) expect(store.admit(ask('t1', who), limits)).toEqual({ kind: 'taken' });
    for (const who of [{}, HTTP, fromMachine('laptop')]) expect(store.admit(ask('t2', who), limits)).toEqual({ kind: 'taken' });
    expect(() => store.open(ask('t1', HTTP))).toThrow(/another asker/);
    store.answer(byCommandHook.ask.id, pick, { client: 'page' });
    store.answer(byHttpHook.ask.id, pick, { client: 'page' });
    // Settled: its answer is still kept a while, for nobody but its own command hook.
    expect(store.admit(ask('t1', HTTP), limits)).toEqual({ kind: 'taken' });
    expect(store.admit(ask('t2', HTTP), limits)).toEqual({ kind: 'taken' });
    await expect(byHttpHook.reply).resolves.toBe('answered');
  });
});

describe('finished asks', () => {
  it('are kept within a byte budget, the oldest forgotten first', () => {
    const store = createAskStore({ keepFinishedBytes: 100_000 });
    const limits = { asks: 100, bytes: 10 * 1024 * 1024 };
    const ids: string[] = [];
    for (let index = 0; index < 10; index++) {
      const waiter = openAdmitted(store, ask(`t${index}`, HTTP, 30_000), limits);
      store.answer(waiter.ask.id, pick, { client: 'page' });
      ids.push(waiter.ask.id);
    }
    const kept = ids.filter((id) => store.get(id) !== undefined);
    expect(kept).toEqual(ids.slice(-3));
    expect(store.waiting()).toEqual({ asks: 0, bytes: 0 });
  });
});
