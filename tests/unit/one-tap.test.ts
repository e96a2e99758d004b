// One-tap answers in memory: the capabilities behind ntfy's buttons (one ask, one option, once, dead
// with their ask, bounded per asker), the buttons an ntfy message gets, POST /api/one-tap and what
// it refuses, and an answer from a notification's button marked as such.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ONE_TAP_OPTIONS, noticeOf } from '../../src/daemon/notice.js';
import { createOneTap, type OneTap } from '../../src/daemon/one-tap.js';
import { ONE_TAP_GUESSES_PER_MINUTE } from '../../src/daemon/routes/one-tap.js';
import { ntfyActions, webhookRequest, type OneTapIssuer } from '../../src/daemon/webhooks.js';
import { parsePublicUrl, type PublicUrl } from '../../src/public-url.js';
import type { AskView } from '../../src/protocol.js';
import { buildTestApp, HOST, LOCAL, type TestApp } from '../stack/app.js';
import { loadFixture } from '../stack/fixtures.js';
import { hookBody, type HookReply } from '../stack/hook-client.js';

type Payload = { tool_input: { questions: Array<{ question: string; header: string; options: Array<{ label: string; description: string }>; multiSelect: boolean }> } } & Record<string, unknown>;
const singleSelect = loadFixture<Payload>('01-single-select.input.json');
const PUBLIC = parsePublicUrl('https://phone.example.test') as PublicUrl;

/** The fixture's question with these options (and multiSelect as given). */
function withOptions(labels: string[], multiSelect = false): Payload {
  const [question] = singleSelect.tool_input.questions;
  return { ...singleSelect, tool_input: { questions: [{ ...question!, multiSelect, options: labels.map((label) => ({ label, description: '' })) }] } };
}

let daemon: TestApp;
let oneTap: OneTap;
let logText: string;
let asked = 0;

beforeEach(async () => {
  logText = '';
  // The app needs the capabilities when it is built, and they need the app's store: they are reached through this.
  const holder: { current?: OneTap } = {};
  const late: OneTap = {
    issue: (askId) => holder.current!.issue(askId),
    isLive: (capability) => holder.current!.isLive(capability),
    take: (capability) => holder.current!.take(capability),
    close: () => holder.current!.close(),
  };
  daemon = await buildTestApp({
    oneTap: late,
    logger: pino({ level: 'debug' }, { write: (line: string) => void (logText += line) }),
  });
  oneTap = holder.current = createOneTap({ store: daemon.store });
});
afterEach(async () => {
  oneTap.close();
  await daemon.close();
});

/** A question from the hook, waiting; its hook's reply comes once it is settled. */
async function ask(payload: Payload = withOptions(['PostgreSQL', 'SQLite', 'MySQL'])): Promise<{ view: AskView; hook: Promise<HookReply> }> {
  const hook = daemon.askAsHook(hookBody({ ...payload, tool_use_id: `toolu_one_tap_${++asked}` }));
  const [view] = await daemon.waitForPending();
  return { view, hook };
}

const tap = (capability: unknown, headers: Record<string, string> = { host: HOST }) =>
  daemon.app.inject({ method: 'POST', url: '/api/one-tap', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ capability }) });

/** The answers the hook was given, from its decision. */
const answersOf = (reply: HookReply) => Object.values((JSON.parse(String(reply.lines[1]?.decision)) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }).hookSpecificOutput.updatedInput.answers);

describe('capabilities', () => {
  it('answers one ask with one option, once; the ask settled, its other capabilities die', async () => {
    const { view, hook } = await ask();
    const [first, second, third] = oneTap.issue(view.id)!;
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(oneTap.take(second!)).toEqual({ askId: view.id, label: 'SQLite' });
    expect(oneTap.take(second!)).toBeUndefined();
    expect(oneTap.isLive(first)).toBe(true);
    daemon.store.answer(view.id, [{ question: view.questions[0]!.question, selected: ['MySQL'], other: null, notes: null }], { client: 'page' });
    await hook;
    expect(oneTap.isLive(first)).toBe(false);
    expect(oneTap.take(third!)).toBeUndefined();
  });

  it('is made only for a waiting ask of one single-select question, one per option', async () => {
    const { view, hook } = await ask(withOptions(['A', 'B'], true));
    expect(oneTap.issue(view.id)).toBeUndefined();
    expect(oneTap.issue('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    daemon.store.decline(view.id, { client: 'page' });
    await hook;
    const single = await ask(withOptions(['A', 'B']));
    expect(oneTap.issue(single.view.id)).toHaveLength(2);
    daemon.store.decline(single.view.id, { client: 'page' });
    await single.hook;
    expect(oneTap.issue(single.view.id)).toBeUndefined();
  });

  it("holds an asker to its share: past it, its asks get none, and none already made dies; a settled ask's give the room back", async () => {
    // A total of 24: an asker may hold 6 (two asks of three options), a credential 12.
    const bounded = createOneTap({ store: daemon.store, max: 24 });
    const hooks = [1, 2, 3].map(() => daemon.askAsHook(hookBody({ ...withOptions(['PostgreSQL', 'SQLite', 'MySQL']), tool_use_id: `toolu_one_tap_${++asked}` })));
    const views = await daemon.waitForPending(3);
    const [first, second, third] = views.map((view) => bounded.issue(view.id));
    expect(first).toHaveLength(3);
    expect(second).toHaveLength(3);
    expect(third).toBeUndefined();
    expect([...first!, ...second!].every((capability) => bounded.isLive(capability))).toBe(true);
    daemon.store.decline(views[0].id, { client: 'page' });
    expect(bounded.isLive(first![0])).toBe(false);
    const later = bounded.issue(views[2]!.id);
    expect(later).toHaveLength(3);
    bounded.close();
    expect(bounded.isLive(later![0])).toBe(false);
    for (const view of views.slice(1)) daemon.store.decline(view.id, { client: 'page' });
    await Promise.all(hooks);
  });
});

describe("ntfy's buttons", () => {
  const view = (payload: Payload, extra: Partial<AskView> = {}): AskView =>
    ({ id: '11111111-1111-4111-8111-111111111111', cwd: '/home/alice/acme-shop', questions: payload.tool_input.questions, ...extra }) as unknown as AskView;
  const issued: string[] = [];
  const issuer = (publicUrl: PublicUrl | undefined): OneTapIssuer => ({
    publicUrl: () => publicUrl,
    issue: (askId) => {
      issued.push(askId);
      return ['cap-0', 'cap-1', 'cap-2'];
    },
  });
  const link = 'https://phone.example.test/#question=11111111-1111-4111-8111-111111111111';

  it('are one POST per option, the capability in the body, for one single-select question of at most three options', () => {
    const notice = noticeOf(view(withOptions(['PostgreSQL', 'SQL\u202Eite', 'x'.repeat(60)])), { fullText: false });
    const actions = ntfyActions(notice, link, issuer(PUBLIC));
    expect(actions).toEqual([0, 1, 2].map((index) => ({
      action: 'http',
      label: ['PostgreSQL', 'SQL[U+202E]ite', `${'x'.repeat(39)}…`][index],
      url: 'https://phone.example.test/api/one-tap',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capability: `cap-${index}` }),
      clear: true,
    })));
    const request = webhookRequest({ ntfy: 'https://ntfy.example.test/topic', actions: true }, notice, link, issuer(PUBLIC));
    expect(request.body).toMatchObject({ topic: 'topic', click: link, actions });
  });

  it('are one button that opens the page for anything else, without a public URL, and none with actions off', () => {
    const open = [{ action: 'view', label: 'Open', url: link }];
    const four = withOptions(['A', 'B', 'C', 'D']);
    expect(four.tool_input.questions[0]!.options.length).toBeGreaterThan(ONE_TAP_OPTIONS);
    issued.length = 0;
    expect(ntfyActions(noticeOf(view(four), { fullText: false }), link, issuer(PUBLIC))).toEqual(open);
    expect(ntfyActions(noticeOf(view(withOptions(['A', 'B'], true)), { fullText: false }), link, issuer(PUBLIC))).toEqual(open);
    const twoQuestions = { ...singleSelect, tool_input: { questions: [...withOptions(['A', 'B']).tool_input.questions, ...withOptions(['C', 'D']).tool_input.questions] } };
    expect(ntfyActions(noticeOf(view(twoQuestions), { fullText: false }), link, issuer(PUBLIC))).toEqual(open);
    const approval = view(withOptions([]), { questions: [], approval: { toolName: 'Bash', toolInput: { command: 'ls' } } } as unknown as Partial<AskView>);
    expect(ntfyActions(noticeOf(approval, { fullText: false }), link, issuer(PUBLIC))).toEqual(open);
    expect(issued).toEqual([]);
    const simple = noticeOf(view(withOptions(['A', 'B'])), { fullText: false });
    expect(ntfyActions(simple, link, issuer(undefined))).toEqual(open);
    expect(ntfyActions(simple, link, undefined)).toEqual(open);
    // An ask that no longer waits gets no capability: the page, then.
    expect(ntfyActions(simple, link, { publicUrl: () => PUBLIC, issue: () => undefined })).toEqual(open);
    expect(webhookRequest({ ntfy: 'https://ntfy.example.test/topic' }, simple, link, issuer(PUBLIC)).body).not.toHaveProperty('actions');
  });
});

describe('POST /api/one-tap', () => {
  it('answers with its option as ntfy, once: a replay, another option after it and an altered capability are all gone (410)', async () => {
    const { view, hook } = await ask();
    const [first, second] = oneTap.issue(view.id)!;
    const answered = await tap(second);
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toEqual({ answered: true, label: 'SQLite' });
    expect(answersOf(await hook)).toEqual(['SQLite']);
    expect((await daemon.ask(view.id)).source).toEqual({ kind: 'person', client: 'ntfy' });

    const altered = `${second!.slice(0, -1)}${second!.endsWith('A') ? 'B' : 'A'}`;
    const refusals = await Promise.all([tap(second), tap(first), tap(altered), tap('never-made')]);
    for (const refusal of refusals) {
      expect(refusal.statusCode).toBe(410);
      expect(refusal.json()).toEqual({ error: { code: 'gone', message: 'this button no longer answers: the question was answered or has ended' } });
    }
    expect(logText).not.toContain(first);
    expect(logText).not.toContain(second);
    expect(logText).not.toContain(altered);
  });

  it('refuses a bad body (400), a wrong Host (403), and rate-limits taps that answer nothing, never a live one', async () => {
    for (const payload of ['{}', '{"capability":""}', '{"capability":42}', `{"capability":"${'a'.repeat(201)}"}`, '{"capability":"a","more":1}']) {
      const response = await daemon.app.inject({ method: 'POST', url: '/api/one-tap', headers: { host: HOST, 'content-type': 'application/json' }, payload });
      expect(response.statusCode, payload).toBe(400);
    }
    const { view, hook } = await ask();
    const [live] = oneTap.issue(view.id)!;
    expect((await tap(live, { host: 'evil.example.test' })).statusCode).toBe(403);
    expect(oneTap.isLive(live)).toBe(true);
    const statuses: number[] = [];
    for (let guess = 0; guess <= ONE_TAP_GUESSES_PER_MINUTE; guess++) statuses.push((await tap(`guess-${guess}`)).statusCode);
    expect(statuses).toEqual([...Array.from({ length: ONE_TAP_GUESSES_PER_MINUTE }, () => 410), 429]);
    const answered = await tap(live);
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answersOf(await hook)).toEqual(['PostgreSQL']);
  });
});

describe('an answer from a notification', () => {
  it("is marked 'notification' for a paired page that says so, and means nothing from the local token", async () => {
    const page = await daemon.pairPage();
    const answer = (id: string, headers: Record<string, string>) =>
      daemon.app.inject({ method: 'POST', url: `/api/asks/${id}/answer`, headers: { ...headers, 'content-type': 'application/json', 'x-askbridge-client': 'notification' }, payload: { responses: [{ question: singleSelect.tool_input.questions[0]!.question, selected: ['SQLite'] }] } });
    const fromPage = await ask();
    expect((await answer(fromPage.view.id, page.headers)).statusCode).toBe(200);
    await fromPage.hook;
    expect((await daemon.ask(fromPage.view.id)).source).toEqual({ kind: 'person', client: 'notification', device: expect.any(String) });
    const fromCli = await ask();
    expect((await answer(fromCli.view.id, LOCAL)).statusCode).toBe(200);
    await fromCli.hook;
    expect((await daemon.ask(fromCli.view.id)).source).toEqual({ kind: 'person', client: 'cli' });
  });
});
