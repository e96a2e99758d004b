// The end of a turn and a wait in the terminal, through the real daemon as Claude Code's http hooks
// reach it: nothing is held unless the person is away; while away, a reply continues the turn with
// exactly its text, Done or the person typing in the terminal lets it end, and the limit on replies
// in a row is kept. A wait in the terminal is shown until the session moves on, and announced only
// while away. Only a paired page or the token replies: the hook key cannot.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { envHeader, HOOK_KEY_HEADER, MACHINE_HEADER } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, parseJson } from '../stack/processes.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';
import { permissionPayload, requestPermission } from '../stack/approvals.js';
import { continuationOf, endTurn, notifyWaiting, sendStop, setAway, stopPayload, submitPrompt } from '../stack/turn-ends.js';

const REASON = 'The person replied from askbridge (they are away from this terminal). Treat their reply as their next message to you:\n\n';
const LAST_MESSAGE = 'Done: migration written, tests pass. Shall I also **backfill**?';

let daemon: Daemon;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  daemon = await startDaemon({ config: { publicUrl: 'https://askbridge.example.test', notify: [{ url: `${receiver.origin}/hook` }] } });
});
beforeEach(() => setAway(daemon, false));
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
  await receiver?.close();
});

const session = () => `turn-end-${randomUUID()}`;
const reply = (sessionId: string, body: unknown, headers?: Record<string, string>) =>
  fetch(`${daemon.url}api/sessions/${encodeURIComponent(sessionId)}/reply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(headers ?? { authorization: `Bearer ${daemon.token}` }) },
    body: JSON.stringify(body),
  });
const toldAbout = (id: string) => receiver.to('/hook').filter((request) => request.body.includes(id));

describe('the end of a turn', () => {
  it('holds nothing while the person is not away, and never holds a subagent', async () => {
    const sessionId = session();
    expect(await continuationOf(sendStop(daemon, stopPayload(sessionId, LAST_MESSAGE)))).toBeNull();
    await setAway(daemon, true);
    expect(await continuationOf(sendStop(daemon, stopPayload(sessionId, LAST_MESSAGE, { event: 'SubagentStop' })))).toBeNull();
    // An unattended session has nobody to reply: answered at once too.
    const unattended = sendStop(daemon, stopPayload(sessionId, LAST_MESSAGE), undefined, { [envHeader('CI')]: 'true' });
    expect(await continuationOf(unattended)).toBeNull();
    expect((await daemon.pending()).filter((ask) => ask.sessionId === sessionId)).toEqual([]);
  });

  it('while away, waits with the last message, and a reply continues the turn with exactly its text', async () => {
    await setAway(daemon, true);
    const sessionId = session();
    const held = await endTurn(daemon, stopPayload(sessionId, LAST_MESSAGE));
    expect(held.view).toMatchObject({ status: 'pending', questions: [], turnEnd: { lastMessage: LAST_MESSAGE, repliesInARow: 0, replyLimit: 8 } });
    const text = '  Yes: backfill the last 30 days.\n\nThen run `npm test`.  ';
    const replied = await reply(sessionId, { text, ask: held.view.id });
    expect(replied.status).toBe(200);
    expect(await continuationOf(held)).toBe(`${REASON}${text}`);
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'replied', reply: text, source: { kind: 'person', client: 'cli' } });
    // History keeps the reply as the person's words.
    const line = await waitUntil(async () => (await daemon.history()).find((entry) => entry.id === held.view.id), 5000, 'the history line');
    expect(line).toMatchObject({ status: 'replied', reply: text, turnEnd: { said: 'Done: migration written, tests pass. Shall I also **backfill**?' } });
    // A second reply learns the first won.
    const late = await reply(sessionId, { text: 'again', ask: held.view.id });
    expect(late.status).toBe(409);
  });

  it('Done lets Claude stop; a reply with nothing waiting, or an empty one, is refused and loses nothing', async () => {
    await setAway(daemon, true);
    const sessionId = session();
    expect((await reply(sessionId, { text: 'anyone?' })).status).toBe(404);
    const held = await endTurn(daemon, stopPayload(sessionId, LAST_MESSAGE));
    const blank = await reply(sessionId, { text: '   ' });
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { error: { message: string } }).error.message).toMatch(/must not be empty/);
    expect((await reply(sessionId, { text: 'x', done: true })).status).toBe(400);
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    expect((await reply(sessionId, { done: true })).status).toBe(200);
    expect(await continuationOf(held)).toBeNull();
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'done', source: { kind: 'person', client: 'cli' } });
  });

  it('ends the wait with no decision when the person types in that terminal, and a late reply says so', async () => {
    await setAway(daemon, true);
    const sessionId = session();
    const other = await endTurn(daemon, stopPayload(session(), LAST_MESSAGE));
    const held = await endTurn(daemon, stopPayload(sessionId, LAST_MESSAGE));
    expect(await submitPrompt(daemon, sessionId)).toMatchObject({ statusCode: 200, body: '' });
    expect(await continuationOf(held)).toBeNull();
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    const late = await reply(sessionId, { text: 'go on', ask: held.view.id });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { message: string } }).error.message).toBe('the person typed in the terminal meanwhile: their prompt went to Claude');
    // Another session's wait is its own.
    expect((await daemon.ask(other.view.id)).status).toBe('pending');
    other.abort();
    await waitUntil(async () => (await daemon.ask(other.view.id)).status !== 'pending', 5000, 'the aborted turn end to settle');
    expect(await daemon.ask(other.view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'hook-gone' } });
  });

  it("ends only its own asker's wait when the person types: another machine naming the same session, named or not, ends nothing of this machine's", async () => {
    await setAway(daemon, true);
    const sessionId = session();
    const here = await endTurn(daemon, stopPayload(sessionId, LAST_MESSAGE));
    // Another machine's hook key, naming itself, and naming nothing through the public URL.
    const laptop = { [MACHINE_HEADER]: 'laptop' };
    const unnamed = { host: 'askbridge.example.test' };
    for (const headers of [laptop, unnamed]) expect(await submitPrompt(daemon, sessionId, 'never read', headers)).toMatchObject({ statusCode: 200, body: '' });
    expect((await daemon.ask(here.view.id)).status).toBe('pending');

    // Each machine's turn end waits apart under the same session id; a prompt there ends its own.
    const there = await endTurn(daemon, stopPayload(sessionId, 'From the laptop.'), undefined, laptop);
    const elsewhere = await endTurn(daemon, stopPayload(sessionId, 'From nowhere named.'), undefined, unnamed);
    expect(there.view.machine).toBe('laptop');
    expect(elsewhere.view.machine).toBe('another machine');
    await submitPrompt(daemon, sessionId, 'never read', laptop);
    expect(await continuationOf(there)).toBeNull();
    expect((await daemon.ask(here.view.id)).status).toBe('pending');
    expect((await daemon.ask(elsewhere.view.id)).status).toBe('pending');

    await submitPrompt(daemon, sessionId);
    expect(await continuationOf(here)).toBeNull();
    expect(await daemon.ask(here.view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    expect((await daemon.ask(elsewhere.view.id)).status).toBe('pending');
    elsewhere.abort();
  });

  it("replies, when it names no turn end, to this machine's: never to another machine's under the same session id", async () => {
    await setAway(daemon, true);
    const sessionId = session();
    const there = await endTurn(daemon, stopPayload(sessionId, 'From the laptop.'), undefined, { [MACHINE_HEADER]: 'laptop' });
    const unnamed = await endTurn(daemon, stopPayload(sessionId, 'From nowhere named.'), undefined, { host: 'askbridge.example.test' });
    const none = await reply(sessionId, { text: 'the deploy token is hunter2' });
    expect(none.status).toBe(404);
    const here = await endTurn(daemon, stopPayload(sessionId, LAST_MESSAGE));
    expect((await reply(sessionId, { text: 'the deploy token is hunter2' })).status).toBe(200);
    expect(await continuationOf(here)).toBe(`${REASON}the deploy token is hunter2`);
    for (const held of [there, unnamed]) {
      expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'pending' });
      expect((await daemon.ask(held.view.id)).reply).toBeUndefined();
    }
    // Named by its id, another machine's is replied to.
    expect((await reply(sessionId, { text: 'for the laptop', ask: there.view.id })).status).toBe(200);
    expect(await continuationOf(there)).toBe(`${REASON}for the laptop`);
    unnamed.abort();
  });

  it('lets every waiting turn end go when the person is back', async () => {
    await setAway(daemon, true);
    const held = await endTurn(daemon, stopPayload(session(), LAST_MESSAGE));
    await setAway(daemon, false);
    expect(await continuationOf(held)).toBeNull();
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'back' } });
  });

  it("keeps Claude Code's limit on replies in a row: the last reply is shown, and the stop after it is not held", async () => {
    await setAway(daemon, true);
    const sessionId = session();
    const promptId = randomUUID();
    const first = await endTurn(daemon, stopPayload(sessionId, 'one', { promptId }), '2');
    expect(first.view.turnEnd).toMatchObject({ repliesInARow: 0, replyLimit: 2 });
    await reply(sessionId, { text: 'more' });
    await continuationOf(first);
    // Another machine's first stop under the same session id counts for that machine alone.
    const laptop = await endTurn(daemon, stopPayload(sessionId, 'elsewhere', { promptId: randomUUID() }), '2', { [MACHINE_HEADER]: 'laptop' });
    expect(laptop.view.turnEnd).toMatchObject({ repliesInARow: 0 });
    laptop.abort();
    const second = await endTurn(daemon, stopPayload(sessionId, 'two', { promptId, active: true }), '2');
    expect(second.view.turnEnd).toMatchObject({ repliesInARow: 1, replyLimit: 2 });
    await reply(sessionId, { text: 'last' });
    expect(await continuationOf(second)).toBe(`${REASON}last`);
    const third = sendStop(daemon, stopPayload(sessionId, 'three', { promptId, active: true }), '2');
    expect(await continuationOf(third)).toBeNull();
    const ended = await waitUntil(async () => (await daemon.history()).find((entry) => entry.sessionId === sessionId && entry.turnEnd?.said === 'three'), 5000, 'the third turn end in history');
    expect(ended).toMatchObject({ status: 'done', source: 'terminal' });
    // A new prompt (not a continuation) starts counting again; a cap that is not a count is Claude Code's default.
    const fresh = await endTurn(daemon, stopPayload(sessionId, 'four'), 'lots');
    expect(fresh.view.turnEnd).toMatchObject({ repliesInARow: 0, replyLimit: 8 });
    fresh.abort();
  });

  it('takes a reply only from a paired page or the token, never the hook key', async () => {
    await setAway(daemon, true);
    const sessionId = session();
    const held = await endTurn(daemon, stopPayload(sessionId, LAST_MESSAGE));
    const byHookKey = await reply(sessionId, { text: 'rm -rf ~' }, { [HOOK_KEY_HEADER]: daemon.hookKey() });
    expect(byHookKey.status).toBe(401);
    const away = await fetch(`${daemon.url}api/away`, { method: 'PUT', headers: { 'content-type': 'application/json', [HOOK_KEY_HEADER]: daemon.hookKey() }, body: JSON.stringify({ away: false }) });
    expect(away.status).toBe(401);
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    held.abort();
  });

  it('is told to webhooks at once while away', async () => {
    await setAway(daemon, true);
    const held = await endTurn(daemon, stopPayload(session(), 'secret: the API key is hunter2'));
    await waitUntil(() => toldAbout(held.view.id).length > 0, 5000, 'the turn end to be told');
    const told = toldAbout(held.view.id)[0]!;
    expect(parseJson(told.body.toString('utf8'), 'webhook body')).toStrictEqual({ event: 'turn_end_waiting', id: held.view.id, project: 'shop', url: `https://askbridge.example.test/#question=${held.view.id}` });
    held.abort();
  });
});

describe('a wait in the terminal', () => {
  const waitsOf = async (sessionId: string) => (await daemon.pending()).filter((ask): ask is AskView & { terminalWait: object } => ask.sessionId === sessionId && ask.terminalWait !== undefined);

  it("makes nothing of Claude Code's idle notification while the person is not away: no card, no count, no notice", async () => {
    await setAway(daemon, false);
    const sessionId = session();
    const before = (await daemon.api<{ pending: number }>('GET', '/api/status')).body.pending;
    expect(await notifyWaiting(daemon, sessionId, 'idle_prompt', 'Claude is waiting for your input')).toEqual({ statusCode: 200, body: '', at: expect.any(Number) });
    expect(await waitsOf(sessionId)).toEqual([]);
    expect((await daemon.api<{ pending: number }>('GET', '/api/status')).body.pending).toBe(before);
    // The same notification while away is a wait in the terminal (the next test).
    await setAway(daemon, true);
    await notifyWaiting(daemon, sessionId, 'idle_prompt', 'Claude is waiting for your input');
    expect((await waitsOf(sessionId)).map((ask) => ask.terminalWait.kind)).toEqual(['idle_prompt']);
    await submitPrompt(daemon, sessionId);
    await setAway(daemon, false);
  });

  it('is shown until the session moves on, and told only while away', async () => {
    const sessionId = session();
    expect(await notifyWaiting(daemon, sessionId, 'elicitation_dialog', 'The server needs your input')).toEqual({ statusCode: 200, body: '', at: expect.any(Number) });
    const [wait] = await waitsOf(sessionId);
    expect(wait).toMatchObject({ status: 'pending', questions: [], terminalWait: { kind: 'elicitation_dialog', message: 'The server needs your input' } });
    // Nothing answers it here.
    const answer = await daemon.api('POST', `/api/asks/${wait!.id}/decline`);
    expect(answer.status).toBe(400);
    // A newer wait replaces it.
    await notifyWaiting(daemon, sessionId, 'elicitation_dialog', 'The server needs your login');
    expect((await waitsOf(sessionId)).map((ask) => ask.terminalWait.kind)).toEqual(['elicitation_dialog']);
    expect(await daemon.ask(wait!.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    await submitPrompt(daemon, sessionId);
    expect(await waitsOf(sessionId)).toEqual([]);
    expect(toldAbout(wait!.id)).toEqual([]);
    expect((await daemon.history()).some((entry) => entry.id === wait!.id)).toBe(false);

    await setAway(daemon, true);
    const awaySession = session();
    await notifyWaiting(daemon, awaySession, 'idle_prompt', 'Claude is waiting for your input', '/home/alice/projects/acme-shop');
    const [told] = await waitsOf(awaySession);
    await waitUntil(() => toldAbout(told!.id).length > 0, 5000, 'the wait to be told');
    expect(parseJson(toldAbout(told!.id)[0]!.body.toString('utf8'), 'webhook body')).toStrictEqual({ event: 'terminal_waiting', id: told!.id, project: 'acme-shop', kind: 'idle_prompt', url: `https://askbridge.example.test/#question=${told!.id}` });
    await submitPrompt(daemon, awaySession);
  });

  it('needs no card of its own for a permission askbridge shows already', async () => {
    const sessionId = session();
    const held = await requestPermission(daemon, permissionPayload(sessionId, 'Bash', { command: 'npm test' }));
    await notifyWaiting(daemon, sessionId, 'permission_prompt', 'Claude needs your permission to use Bash');
    expect(await waitsOf(sessionId)).toEqual([]);
    held.abort();
    await notifyWaiting(daemon, sessionId, 'permission_prompt', 'Claude needs your permission to use Bash');
    expect((await waitsOf(sessionId)).map((ask) => ask.terminalWait.kind)).toEqual(['permission_prompt']);
    // The session's next hook says it moved on.
    expect(await continuationOf(sendStop(daemon, stopPayload(sessionId, 'ok')))).toBeNull();
    expect(await waitsOf(sessionId)).toEqual([]);
  });
});
