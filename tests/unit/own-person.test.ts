// Each person's own state, once people are defined: their away switch (which holds only the turn
// ends for them), their channels' quiet while they are here (`tell: "away"`), and their grants (seen,
// revoked and covering only what they could decide). With no people, one person as before.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER, PERSON_HEADER, STOP_HOOK_PATH } from '../../src/http-hook.js';
import { createAskStore, type NewAsk } from '../../src/daemon/asks/store.js';
import { AwayFileSchema, createAwaySwitch } from '../../src/daemon/away.js';
import { fileDocuments } from '../../src/daemon/documents.js';
import type { Channel } from '../../src/daemon/channels.js';
import { createGrantStore } from '../../src/daemon/grants.js';
import { createNotifier } from '../../src/daemon/notify.js';
import { createPeople } from '../../src/daemon/people.js';
import type { AskView, Decider, Grant, ServerMessage } from '../../src/protocol.js';
import { isRoutedTo } from '../../src/route-access.js';
import { buildTestApp, HOOK_KEY, HOST, LOCAL, ORIGIN, type PairedPage, type TestApp } from '../stack/app.js';
import { stopPayload } from '../stack/turn-ends.js';

let test: TestApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await test?.close();
  test = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'askbridge-own-'));
  dirs.push(dir);
  return dir;
}

const alicePhone: Decider = { client: 'page', person: 'alice', device: 'Pixel 8' };

describe("a person's away switch", () => {
  it('reads a file written before people had their own, and keeps theirs beside it', () => {
    const file = join(tempDir(), 'away.json');
    writeFileSync(file, '{"away":true}\n');
    const away = createAwaySwitch({ document: fileDocuments.open('away', file, AwayFileSchema) });
    expect(away.isAway()).toBe(true);
    expect(away.awayPeople()).toEqual([]);
    expect(away.set(true, 'alice')).toBe(true);
    expect(away.set(true, 'alice')).toBe(false);
    expect(away.set(false)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ away: false, people: ['alice'] });
    const again = createAwaySwitch({ document: fileDocuments.open('away', file, AwayFileSchema) });
    expect([again.isAway(), again.isAway('alice'), again.isAway('bob')]).toEqual([false, true, false]);
  });

  it("holds an ask for its route's people who are away; one with no route for anyone away; the daemon's own user's for every ask", () => {
    const away = createAwaySwitch();
    const forAlice = { route: { people: ['alice'] } };
    const forBob = { route: { people: ['bob', 'carol'] } };
    expect([away.awayFor(forAlice), away.awayFor(forBob), away.awayFor({})]).toEqual([false, false, false]);
    away.set(true, 'alice');
    expect([away.awayFor(forAlice), away.awayFor(forBob), away.awayFor({})]).toEqual([true, false, true]);
    away.set(false, 'alice');
    away.set(true);
    expect([away.awayFor(forAlice), away.awayFor(forBob), away.awayFor({})]).toEqual([true, true, true]);
  });
});

const question = (route?: string[]): NewAsk => ({
  sessionId: 's1',
  toolUseId: `t-${Math.random()}`,
  cwd: '/project',
  toolInput: {},
  questions: [{ question: 'Which?', header: 'Pick', multiSelect: false, options: [{ label: 'A', description: '' }, { label: 'B', description: '' }] }],
  ...(route ? { route: { people: route, approvals: 1 as const } } : {}),
  waitMs: 60_000,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'http-hook',
  reply: (outcome) => outcome.status,
});

/** A notifier with `tell: "away"` over one channel whose recipients are nobody's, alice's and bob's: what each was told. */
function tellAway(people: string[]) {
  const store = createAskStore();
  const away = createAwaySwitch();
  const inView = new Set<string | undefined>();
  const told: Array<[string, string]> = [];
  const channel: Channel = {
    client: 'telegram',
    shows: () => 'whole',
    tell: (view, tells) => {
      for (const person of [undefined, ...people]) if (isRoutedTo(view, { kind: 'person', person }) && tells(person)) told.push([view.toolUseId, person ?? 'nobody']);
    },
  };
  const notifier = createNotifier({
    store,
    channels: [channel],
    config: () => ({ approvalNoticeSeconds: 10, tell: 'away' }),
    away,
    // Any page, or one of this person's; nobody's page counts as anyone's.
    pageVisible: (person) => (person === undefined ? inView.size > 0 : inView.has(person)),
    people: () => people,
    log: { info: () => {}, error: () => {} },
  });
  const open = async (ask: NewAsk) => {
    store.open(ask);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { store, away, inView, told, notifier, open };
}

describe('tell: "away", per person', () => {
  it("keeps a person's channels quiet only while that person is here, and tells them once they leave", async () => {
    const { inView, told, notifier, open, away } = tellAway(['alice', 'bob']);
    inView.add('alice');
    await open({ ...question(), toolUseId: 'everyone' });
    await open({ ...question(['alice', 'bob']), toolUseId: 'both' });
    // alice is here (her page in view), so is "you" (a page in view): only bob's channels are told.
    expect(told).toEqual([
      ['everyone', 'bob'],
      ['both', 'bob'],
    ]);
    told.length = 0;
    away.set(true, 'alice');
    notifier.personMayHaveLeft();
    expect(told).toEqual([
      ['everyone', 'alice'],
      ['both', 'alice'],
    ]);
    told.length = 0;
    inView.delete('alice');
    notifier.personMayHaveLeft();
    expect(told).toEqual([['everyone', 'nobody']]);
    notifier.close();
  });

  it('with no people, is quiet while a page is in view and the person is not away, as before', async () => {
    const { inView, told, notifier, open, away } = tellAway([]);
    inView.add(undefined);
    await open({ ...question(), toolUseId: 'q' });
    expect(told).toEqual([]);
    away.set(true);
    notifier.personMayHaveLeft();
    expect(told).toEqual([['q', 'nobody']]);
    notifier.personMayHaveLeft();
    expect(told).toEqual([['q', 'nobody']]);
    notifier.close();
  });
});

/** A page paired as `person`'s device, as `askbridge pair --person` makes one. */
async function pairFor(app: TestApp['app'], person: string): Promise<PairedPage> {
  const code = app.askbridge.auth.createPairingCode(person);
  const paired = await app.inject({ method: 'POST', url: '/api/pair', headers: { host: HOST, origin: ORIGIN }, payload: { code } });
  expect(paired.statusCode).toBe(200);
  const setCookie = String(paired.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  const { key } = paired.json<{ key: string }>();
  return { setCookie, cookie, key, headers: { host: HOST, origin: ORIGIN, cookie, 'x-askbridge-key': key } };
}

async function team(grants = createGrantStore()) {
  const people = createPeople();
  people.add('alice');
  people.add('bob');
  test = await buildTestApp({ people, grants });
  return { test, alice: await pairFor(test.app, 'alice'), bob: await pairFor(test.app, 'bob') };
}

const lastAway = (messages: ServerMessage[]) => messages.flatMap((message) => (message.type === 'away' ? [message] : [])).at(-1);
const lastGrants = (messages: ServerMessage[]) => messages.flatMap((message) => (message.type === 'grants' ? [message] : [])).at(-1);

describe("a person's own away switch, on the daemon", () => {
  it("a page turns its person's switch only; each page hears its own; the CLI hears who is away", async () => {
    const { test, alice, bob } = await team();
    const aliceFeed = await test.openPageSocket(alice);
    const bobFeed = await test.openPageSocket(bob);
    const put = await test.app.inject({ method: 'PUT', url: '/api/away', headers: alice.headers, payload: { away: true } });
    expect(put.json()).toMatchObject({ away: true });
    await aliceFeed.waitFor((messages) => lastAway(messages)?.away === true);
    expect((await test.app.inject({ method: 'GET', url: '/api/away', headers: bob.headers })).json()).toMatchObject({ away: false });
    expect((await test.app.inject({ method: 'GET', url: '/api/away', headers: LOCAL })).json()).toMatchObject({ away: false, awayPeople: ['alice'] });
    expect((await test.app.inject({ method: 'GET', url: '/api/status', headers: LOCAL })).json()).toMatchObject({ away: false, awayPeople: ['alice'] });
    expect(lastAway(bobFeed.messages)).toMatchObject({ away: false });
    aliceFeed.socket.terminate();
    bobFeed.socket.terminate();
  });

  it('holds the end of a turn only for a person away; the CLI\'s switch holds every one; back lets go only those nobody away is left for', async () => {
    const { test, alice } = await team();
    const stop = (person: string) =>
      test.app.inject({ method: 'POST', url: STOP_HOOK_PATH, headers: { host: HOST, [HOOK_KEY_HEADER]: HOOK_KEY, [PERSON_HEADER]: person, 'content-type': 'application/json' }, payload: stopPayload(`s-${person}`, 'Done.') });
    await test.app.inject({ method: 'PUT', url: '/api/away', headers: alice.headers, payload: { away: true } });
    // bob's turn ends at once: alice being away is nothing to his session.
    const bobs = await stop('bob');
    expect([bobs.statusCode, bobs.body]).toEqual([200, '']);
    const alices = stop('alice');
    const [held] = await test.waitForPending(1);
    expect(held).toMatchObject({ sessionId: 's-alice', route: { people: ['alice'] } });
    // The CLI's switch (the daemon's own user): bob's waits too.
    await test.app.inject({ method: 'PUT', url: '/api/away', headers: LOCAL, payload: { away: true } });
    const bobsAgain = stop('bob');
    await test.waitForPending(2);
    await test.app.inject({ method: 'PUT', url: '/api/away', headers: LOCAL, payload: { away: false } });
    // Back: bob's is let go; alice, still away, keeps hers.
    expect((await bobsAgain).body).toBe('');
    expect((await test.pending()).map((ask) => ask.sessionId)).toEqual(['s-alice']);
    await test.app.inject({ method: 'PUT', url: '/api/away', headers: alice.headers, payload: { away: false } });
    expect((await alices).body).toBe('');
    expect(await test.pending()).toEqual([]);
  });
});

function approvalAsk(sessionId = 's-1'): AskView {
  const rule = 'Bash(npm test:*)';
  return {
    id: 'a',
    sessionId,
    toolUseId: 't',
    cwd: '/project',
    createdAt: 0,
    expiresAt: 0,
    timeout: { action: 'terminal', summary: '' },
    status: 'allowed',
    questions: [],
    agent: 'claude-code',
    choices: { typedAnswers: [], notes: true, allow: true, remember: false, stop: true, grant: true },
    approval: { toolName: 'Bash', toolInput: { command: 'npm test' }, suggestions: [], grant: { rule, words: 'npm test' } },
  };
}

describe("a person's grants", () => {
  it('name who made them; cover only what their maker could decide; one made by nobody named only asks with no route', () => {
    const grants = createGrantStore();
    const alices = grants.make(approvalAsk(), { minutes: 15, scope: 'session' }, alicePhone)!;
    expect(alices).toMatchObject({ by: 'Pixel 8', person: 'alice' });
    const request = { agent: 'claude-code' as const, machine: undefined, sessionId: 's-1', cwd: '/project', approval: { toolName: 'Bash', toolInput: { command: 'npm test' } } };
    expect(grants.covering(request)?.id).toBe(alices.id);
    expect(grants.covering({ ...request, route: { people: ['bob', 'alice'] } })?.id).toBe(alices.id);
    expect(grants.covering({ ...request, route: { people: ['bob'] } })).toBeUndefined();
    grants.revoke('all', { kind: 'local' });
    const terminals = grants.make(approvalAsk(), { minutes: 15, scope: 'session' }, { client: 'cli' })!;
    expect(terminals.person).toBeUndefined();
    expect(grants.covering(request)?.id).toBe(terminals.id);
    expect(grants.covering({ ...request, route: { people: ['alice'] } })).toBeUndefined();
    grants.close();
  });

  it("a page sees and revokes only its person's (another's is 404); the CLI sees and revokes every one", async () => {
    const grants = createGrantStore();
    const { test, alice, bob } = await team(grants);
    const alices: Grant = grants.make(approvalAsk(), { minutes: 15, scope: 'session' }, alicePhone)!;
    const list = async (headers: Record<string, string>) => (await test.app.inject({ method: 'GET', url: '/api/grants', headers })).json<{ grants: Grant[] }>().grants.map((grant) => grant.id);
    expect(await list(alice.headers)).toEqual([alices.id]);
    expect(await list(bob.headers)).toEqual([]);
    expect(await list(LOCAL)).toEqual([alices.id]);
    const bobFeed = await test.openPageSocket(bob);
    const aliceFeed = await test.openPageSocket(alice);
    await bobFeed.waitFor((messages) => lastGrants(messages) !== undefined);
    await aliceFeed.waitFor((messages) => lastGrants(messages) !== undefined);
    expect(lastGrants(bobFeed.messages)).toEqual({ type: 'grants', grants: [] });
    expect(lastGrants(aliceFeed.messages)).toMatchObject({ grants: [{ id: alices.id }] });
    const refused = await test.app.inject({ method: 'POST', url: `/api/grants/${alices.id}/revoke`, headers: bob.headers });
    expect(refused.statusCode).toBe(404);
    expect((await test.app.inject({ method: 'POST', url: '/api/grants/all/revoke', headers: bob.headers })).json()).toEqual({ grants: [] });
    expect(await list(LOCAL)).toEqual([alices.id]);
    // A grant made now reaches only its person's page.
    const second = grants.make(approvalAsk('s-2'), { minutes: 15, scope: 'session' }, alicePhone)!;
    await aliceFeed.waitFor((messages) => lastGrants(messages)?.grants.length === 2);
    expect(lastGrants(bobFeed.messages)).toEqual({ type: 'grants', grants: [] });
    const revoked = await test.app.inject({ method: 'POST', url: '/api/grants/all/revoke', headers: LOCAL });
    expect(revoked.json<{ grants: Grant[] }>().grants.map((grant) => grant.id)).toEqual([alices.id, second.id]);
    aliceFeed.socket.terminate();
    bobFeed.socket.terminate();
    grants.close();
  });
});
