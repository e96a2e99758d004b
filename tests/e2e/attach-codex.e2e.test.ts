/**
 * `askbridge attach codex` (the real CLI, the real daemon) against a stand-in for Codex's app-server:
 * a WebSocket server on $CODEX_HOME/app-server-control/app-server-control.sock that speaks the
 * JSON-RPC Codex 0.169.0 was seen to speak there (protocol.md 7): it lists its loaded threads,
 * replays a thread's pending requestUserInput to a client that resumes it, takes the client's result,
 * and says `serverRequest/resolved` when a request is settled (by a client's result too). What the real Codex does with the
 * answer is the conformance test's (codex-questions.conformance.test.ts); this one covers what the
 * real Codex cannot be made to send: malformed requests, restarts, requests that are not questions.
 * And a control socket another local user planted (the neighbour, a real second user): never
 * connected to.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { becomeNeighbour, neighbourAvailability, type Neighbour } from '../stack/neighbour.js';
import { respond } from '../stack/elicitations.js';
import { runCli, startCli, whenExited, type RunningProcess } from '../stack/processes.js';

type Frame = { id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
/** `unsaved`: nothing of it on disk yet (before its first prompt), so it cannot be resumed. */
type Thread = { id: string; cwd: string; name: string | null; preview: string; ephemeral?: boolean; unsaved?: boolean };

/** A stand-in for Codex's app-server on its control socket. */
type FakeAppServer = {
  /** Every message a client sent, in order. */
  received: Frame[];
  /** Opens a request on a thread: sent to every client that resumed it, now or later (replayed). Returns its id. */
  ask(threadId: string, method: string, params: Record<string, unknown>): number;
  /** Settles a request elsewhere (the person answered in the TUI): it is forgotten and `serverRequest/resolved` goes to every client. */
  resolve(id: number, threadId: string): void;
  /** Sends raw text to every client. */
  sendRaw(text: string): void;
  notify(method: string, params: Record<string, unknown>): void;
  /** Waits for a client's reply to request `id`. */
  replyTo(id: number): Promise<Frame>;
  /** A thread Codex loads from now on (it says so with thread/started). */
  addThread(thread: Thread): void;
  /** The next result a client sends is lost: every connection drops as it arrives, and its request still waits. */
  loseNextResult(): void;
  /** Drops every connection and stops listening, as Codex exiting does. */
  stop(): Promise<void>;
  /** Listens again on the same socket, its threads and pending requests kept. */
  start(): Promise<void>;
};

async function startFakeAppServer(socketPath: string, threads: Thread[]): Promise<FakeAppServer> {
  const received: Frame[] = [];
  const pending = new Map<number, { threadId: string; method: string; params: Record<string, unknown> }>();
  const resumedBy = new Map<WebSocket, Set<string>>();
  let nextId = 100;
  let losing = false;
  let server: Server | undefined;
  let wss: WebSocketServer | undefined;
  const send = (socket: WebSocket, frame: object) => socket.send(JSON.stringify(frame));
  const sendRequest = (socket: WebSocket, id: number) => {
    const request = pending.get(id);
    if (request) send(socket, { method: request.method, id, params: request.params });
  };
  const threadOf = (id: unknown) => threads.find((thread) => thread.id === id);

  const onMessage = (socket: WebSocket, text: string) => {
    const frame = JSON.parse(text) as Frame;
    if (frame.method === undefined && typeof frame.id === 'number' && pending.has(frame.id)) {
      if (losing) {
        losing = false;
        for (const client of resumedBy.keys()) client.terminate();
        return;
      }
      received.push(frame);
      return fake.resolve(frame.id, pending.get(frame.id)!.threadId);
    }
    received.push(frame);
    if (frame.method === undefined || frame.id === undefined) return;
    const { id, method, params = {} } = frame;
    if (method === 'initialize') return send(socket, { id, result: { userAgent: 'codex-fake/0.169.0', codexHome: '', platformFamily: 'unix', platformOs: 'linux' } });
    if (method === 'thread/loaded/list') return send(socket, { id, result: { data: threads.map((thread) => thread.id), nextCursor: null } });
    const thread = threadOf(params.threadId);
    if (method === 'thread/read') return send(socket, thread ? { id, result: { thread } } : { id, error: { code: -32600, message: 'no such thread' } });
    if (method === 'thread/resume') {
      if (!thread || thread.ephemeral || thread.unsaved) return send(socket, { id, error: { code: -32600, message: `no rollout found for thread id ${String(params.threadId)}` } });
      resumedBy.get(socket)?.add(thread.id);
      send(socket, { id, result: { thread } });
      for (const [requestId, request] of pending) if (request.threadId === thread.id) sendRequest(socket, requestId);
      return;
    }
    send(socket, { id, error: { code: -32601, message: `not in this fake: ${method}` } });
  };

  const fake: FakeAppServer = {
    received,
    ask(threadId, method, params) {
      const id = nextId++;
      pending.set(id, { threadId, method, params });
      for (const [socket, resumed] of resumedBy) if (resumed.has(threadId)) sendRequest(socket, id);
      return id;
    },
    resolve(id, threadId) {
      pending.delete(id);
      for (const socket of resumedBy.keys()) send(socket, { method: 'serverRequest/resolved', params: { threadId, requestId: id } });
    },
    loseNextResult() {
      losing = true;
    },
    sendRaw(text) {
      for (const socket of resumedBy.keys()) socket.send(text);
    },
    notify(method, params) {
      for (const socket of resumedBy.keys()) send(socket, { method, params });
    },
    replyTo(id) {
      return waitUntil(() => received.find((frame) => frame.id === id && frame.method === undefined), 20_000, `a reply to request ${id}`);
    },
    addThread(thread) {
      threads.push(thread);
    },
    async stop() {
      for (const socket of resumedBy.keys()) socket.terminate();
      resumedBy.clear();
      await new Promise<void>((resolve) => wss?.close(() => resolve()));
      server?.closeAllConnections();
      await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
    },
    async start() {
      server = createServer((_, response) => response.writeHead(426).end());
      wss = new WebSocketServer({ server });
      wss.on('connection', (socket) => {
        resumedBy.set(socket, new Set());
        socket.on('message', (data) => onMessage(socket, String(data)));
        socket.on('close', () => resumedBy.delete(socket));
      });
      rmSync(socketPath, { force: true });
      await new Promise<void>((resolve) => server!.listen(socketPath, resolve));
    },
  };
  await fake.start();
  return fake;
}

const THREAD = { id: 'thread-main', cwd: '/work/project-a', name: null, preview: 'pick a database for the service' };
const EPHEMERAL = { id: 'thread-title', cwd: '/', name: null, preview: '', ephemeral: true };

function question(id = 'db', text = 'Which database should we use?') {
  return {
    id,
    header: 'Database',
    question: text,
    isOther: true,
    isSecret: false,
    options: [
      { label: 'Postgres (Recommended)', description: 'Relational' },
      { label: 'SQLite', description: 'Embedded' },
    ],
  };
}
function userInput(itemId: string, questions: unknown[] = [question()], threadId = THREAD.id) {
  return { threadId, turnId: 'turn-1', itemId, questions, isBlocking: true, autoResolutionMs: null };
}

/** An MCP server's form as Codex's app-server asks a client (mcpServer/elicitation/request, 0.169.0). */
function mcpForm(message: string, threadId = THREAD.id) {
  const requestedSchema = { type: 'object', properties: { color: { type: 'string', title: 'Color', enum: ['red', 'green', 'blue'] } }, required: ['color'] };
  return { threadId, turnId: 'turn-1', serverName: 'forms', mode: 'form', _meta: null, message, requestedSchema };
}
function mcpLink(message: string) {
  return { threadId: THREAD.id, turnId: 'turn-1', serverName: 'forms', mode: 'url', _meta: null, message, url: 'https://example.test/signin?state=1', elicitationId: 'signin-1' };
}

let root: string;
let app: FakeAppServer;
let daemon: Daemon;
let attach: RunningProcess;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-codex-')));
  // As Codex makes it: only its user's.
  mkdirSync(join(root, 'app-server-control'), { mode: 0o700 });
  app = await startFakeAppServer(join(root, 'app-server-control', 'app-server-control.sock'), [THREAD, EPHEMERAL]);
  daemon = await startDaemon();
  attach = startCli(['attach', 'codex'], { ...daemon.env, CODEX_HOME: root });
  await waitForLine('attached to Codex');
}, 60_000);

afterAll(async () => {
  if (attach && attach.child.exitCode === null) {
    attach.child.kill('SIGINT');
    await attach.result;
  }
  await daemon?.stop();
  await app?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
}, 30_000);

function waitForLine(text: string, from = 0): Promise<true> {
  return waitUntil(() => (attach.output().stdout.slice(from).includes(text) ? true : undefined), 20_000, `"${text}" from the attach (${JSON.stringify(attach.output())})`);
}

function waitForCodexAsk(itemId: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === 'codex' && ask.toolUseId === itemId), 20_000, `a Codex ask for ${itemId}`);
}

function waitForCodexElicitation(message: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === 'codex' && ask.elicitation?.message === message), 20_000, `a Codex elicitation "${message}"`);
}

describe('askbridge attach codex', () => {
  it('initializes, lists the loaded threads and resumes each (one that cannot be resumed is let be)', async () => {
    const methods = app.received.map((frame) => frame.method);
    expect(methods.slice(0, 3)).toEqual(['initialize', 'initialized', 'thread/loaded/list']);
    const init = app.received[0]!;
    expect(init.params).toMatchObject({ clientInfo: { name: 'askbridge' }, capabilities: { experimentalApi: false } });
    const resumed = () => app.received.filter((frame) => frame.method === 'thread/resume').map((frame) => frame.params?.threadId);
    await waitUntil(() => (resumed().length === 2 ? true : undefined), 10_000, 'both threads resumed');
    expect(resumed().sort()).toEqual([EPHEMERAL.id, THREAD.id].sort());
    expect(attach.output().stderr).toBe('');
  });

  it("relays a question as Codex's, with the thread's folder and first prompt, and sends the answer back in Codex's format", async () => {
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_answer'));
    const ask = await waitForCodexAsk('call_answer');
    expect(ask.sessionId).toBe(THREAD.id);
    expect(ask.cwd).toBe(THREAD.cwd);
    expect(ask.questions).toEqual([{ question: 'Which database should we use?', header: 'Database', multiSelect: false, options: question().options }]);
    await waitUntil(async () => ((await daemon.ask(ask.id)).context?.title === THREAD.preview ? true : undefined), 10_000, 'the thread title as context');

    const answered = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which database should we use?', selected: ['SQLite'], notes: 'keep it small' }] });
    expect(answered.status).toBe(200);
    expect(await app.replyTo(id)).toEqual({ id, result: { answers: { db: { answers: ['SQLite', 'user_note: keep it small'] } } } });
    await waitForLine('question call_answer of thread thread-main: answered in askbridge, delivered to Codex');
    await waitUntil(async () => ((await daemon.ask(ask.id)).delivery === 'delivered' ? true : undefined), 10_000, 'the ask to say delivered');
  });

  it('withdraws the card when Codex settles the question itself, and sends nothing', async () => {
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_tui'));
    const ask = await waitForCodexAsk('call_tui');
    app.resolve(id, THREAD.id);
    const withdrawn = await waitUntil(async () => {
      const view = await daemon.ask(ask.id);
      return view.status === 'pending' ? undefined : view;
    }, 10_000, 'the card to leave');
    expect(withdrawn.status).toBe('cancelled');
    await waitForLine('question call_tui of thread thread-main: settled in Codex, withdrawn from askbridge');
    const late = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which database should we use?', selected: ['SQLite'] }] });
    expect(late.status).toBe(409);
    expect(app.received.some((frame) => frame.id === id)).toBe(false);
  });

  it('declined in askbridge, Codex gets no option and a note that the user declined', async () => {
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_decline'));
    const ask = await waitForCodexAsk('call_decline');
    expect((await daemon.api('POST', `/api/asks/${ask.id}/decline`)).status).toBe(200);
    const reply = await app.replyTo(id);
    expect(reply.result).toEqual({ answers: { db: { answers: [expect.stringMatching(/^user_note: The user declined to answer these questions\./)] } } });
  });

  it('leaves to Codex a request askbridge cannot ask, says why, and goes on relaying', async () => {
    const from = attach.output().stdout.length;
    const secret = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_secret', [{ ...question(), isSecret: true }]));
    const malformed = app.ask(THREAD.id, 'item/tool/requestUserInput', { threadId: THREAD.id, itemId: 'call_bad', questions: 'not a list' });
    await waitForLine("question call_secret of thread thread-main: askbridge refused it (Codex's question cannot be asked here: questions.0: its answer is secret", from);
    await waitForLine(`question ${malformed}: not relayed, Codex's own picker asks (questions: `, from);
    // Nothing was answered: both stay Codex's to ask.
    const good = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_after'));
    const ask = await waitForCodexAsk('call_after');
    expect((await daemon.pending()).filter((view) => view.agent === 'codex')).toHaveLength(1);
    expect(app.received.some((frame) => frame.id === secret || frame.id === malformed)).toBe(false);
    await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which database should we use?', selected: ['Postgres (Recommended)'] }] });
    expect((await app.replyTo(good)).result).toEqual({ answers: { db: { answers: ['Postgres (Recommended)'] } } });
    app.resolve(secret, THREAD.id);
    app.resolve(malformed, THREAD.id);
  });

  it('skips a frame that is not JSON-RPC once, with a warning, and never answers what is not a question', async () => {
    app.sendRaw('not json at all');
    app.sendRaw(JSON.stringify({ id: { no: 'id' }, method: 'x' }));
    await waitUntil(() => (attach.output().stderr.includes('Codex sent a message askbridge does not read: skipped') ? true : undefined), 10_000, 'the warning');
    expect(attach.output().stderr.match(/does not read/g)).toHaveLength(1);
    const approval = app.ask(THREAD.id, 'item/commandExecution/requestApproval', { threadId: THREAD.id, turnId: 'turn-1', itemId: 'cmd-1', command: 'rm -rf /' });
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_after_noise'));
    const ask = await waitForCodexAsk('call_after_noise');
    expect((await daemon.pending()).some((view) => view.approval)).toBe(false);
    app.resolve(id, THREAD.id);
    await waitUntil(async () => ((await daemon.ask(ask.id)).status === 'pending' ? undefined : true), 10_000, 'the card to leave');
    expect(app.received.some((frame) => frame.id === approval)).toBe(false);
    app.resolve(approval, THREAD.id);
  });

  it('resumes a thread Codex starts later, and relays its questions', async () => {
    const fresh = { id: 'thread-new', cwd: '/work/project-b', name: 'Named thread', preview: 'second' };
    const from = app.received.length;
    app.addThread(fresh);
    app.notify('thread/started', { thread: { id: 'thread-eph', ephemeral: true } });
    app.notify('thread/started', { thread: fresh });
    await waitUntil(() => (app.received.slice(from).some((frame) => frame.method === 'thread/resume' && frame.params?.threadId === fresh.id) ? true : undefined), 10_000, 'a resume of the new thread');
    expect(app.received.slice(from).some((frame) => frame.params?.threadId === 'thread-eph')).toBe(false);
    const id = app.ask(fresh.id, 'item/tool/requestUserInput', userInput('call_fresh', [question()], fresh.id));
    const ask = await waitForCodexAsk('call_fresh');
    expect(ask.cwd).toBe(fresh.cwd);
    // Its name is its title, before its first prompt.
    await waitUntil(async () => ((await daemon.ask(ask.id)).context?.title === 'Named thread' ? true : undefined), 10_000, 'the thread name as context');
    app.resolve(id, fresh.id);
    await waitUntil(async () => ((await daemon.ask(ask.id)).status === 'pending' ? undefined : true), 10_000, 'the card to leave');
  });

  it('resumes a loaded thread it could not resume before its first prompt once Codex says its status changed', async () => {
    const unsaved: Thread = { id: 'thread-unsaved', cwd: '/work/project-c', name: null, preview: '', unsaved: true };
    app.addThread(unsaved);
    const from = app.received.length;
    const resumes = () => app.received.slice(from).filter((frame) => frame.method === 'thread/resume' && frame.params?.threadId === unsaved.id).length;
    app.notify('thread/status/changed', { threadId: unsaved.id, status: { type: 'idle' } });
    await waitUntil(() => (resumes() === 1 ? true : undefined), 10_000, 'a first resume, refused');
    unsaved.unsaved = false;
    const id = app.ask(unsaved.id, 'item/tool/requestUserInput', userInput('call_unsaved', [question()], unsaved.id));
    app.notify('thread/status/changed', { threadId: unsaved.id, status: { type: 'active', activeFlags: ['waitingOnUserInput'] } });
    const ask = await waitForCodexAsk('call_unsaved');
    expect(resumes()).toBe(2);
    app.resolve(id, unsaved.id);
    await waitUntil(async () => ((await daemon.ask(ask.id)).status === 'pending' ? undefined : true), 10_000, 'the card to leave');
  });

  it('keeps a question while Codex is away, and the answer given meanwhile reaches Codex once it asks again', async () => {
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_restart'));
    const ask = await waitForCodexAsk('call_restart');
    const from = attach.output().stdout.length;
    await app.stop();
    await waitUntil(() => (attach.output().stderr.includes("Codex's app-server closed the connection: connecting again") ? true : undefined), 10_000, 'the attach to see Codex go');
    expect((await daemon.ask(ask.id)).status).toBe('pending');
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which database should we use?', other: 'MariaDB' }] })).status).toBe(200);
    expect((await daemon.ask(ask.id)).delivery).toBe('waiting');
    expect((await runCli(['pending'], daemon.env)).stdout).toContain(`${ask.id}  ${THREAD.cwd}  asked by Codex  (answered, not yet delivered)`);
    await app.start();
    await waitForLine('Codex is back at', from);
    expect((await app.replyTo(id)).result).toEqual({ answers: { db: { answers: ['None of the above', 'user_note: MariaDB'] } } });
    await waitForLine('question call_restart of thread thread-main: answered in askbridge, delivered to Codex', from);
    expect((await daemon.pending()).some((waiting) => waiting.toolUseId === 'call_restart')).toBe(false);
  });

  it('an answer whose connection closed before Codex took it is never said sent: it goes again once Codex asks again, and is delivered once Codex confirms it', async () => {
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_lost'));
    const ask = await waitForCodexAsk('call_lost');
    const from = attach.output().stdout.length;
    app.loseNextResult();
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which database should we use?', selected: ['SQLite'] }] })).status).toBe(200);
    await waitUntil(() => (attach.output().stderr.slice(0).includes("Codex's app-server closed the connection") ? true : undefined), 10_000, 'the connection to drop');
    expect(attach.output().stdout.slice(from)).not.toContain('sent to Codex');
    expect(attach.output().stdout.slice(from)).not.toContain('delivered to Codex');
    expect((await app.replyTo(id)).result).toEqual({ answers: { db: { answers: ['SQLite'] } } });
    await waitForLine('question call_lost of thread thread-main: answered in askbridge, delivered to Codex', from);
    expect((await daemon.ask(ask.id)).delivery).toBe('delivered');
  });

  it("relays an MCP server's form as Codex's; the values a person accepts reach Codex exactly as {action, content}", async () => {
    const id = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpForm('Pick a color for the answer test'));
    const ask = await waitForCodexElicitation('Pick a color for the answer test');
    expect(ask).toMatchObject({ agent: 'codex', sessionId: THREAD.id, cwd: THREAD.cwd, questions: [], elicitation: { server: 'forms', mode: 'form', form: { fields: [{ name: 'color', kind: 'choice', required: true }] } } });
    // Handed back, it is Codex's own form dialog (shown all along), not its picker.
    expect(ask.choices.handBack).toBe("Codex's dialog");
    const wrong = await respond(daemon, ask.id, { action: 'accept', content: { color: 'purple' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error?.code).toBe('invalid_content');
    expect((await respond(daemon, ask.id, { action: 'accept', content: { color: 'green' } })).status).toBe(200);
    expect(await app.replyTo(id)).toEqual({ id, result: { action: 'accept', content: { color: 'green' } } });
    await waitForLine(`form ${id} of MCP server forms in thread thread-main: answered in askbridge, delivered to Codex (accept)`);
    await waitUntil(async () => ((await daemon.ask(ask.id)).delivery === 'delivered' ? true : undefined), 10_000, 'the ask to say delivered');
  });

  it('a declined form and a link the person finished reach Codex as the bare action', async () => {
    const form = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpForm('Pick a color to decline'));
    const declined = await waitForCodexElicitation('Pick a color to decline');
    expect((await respond(daemon, declined.id, { action: 'decline' })).status).toBe(200);
    expect(await app.replyTo(form)).toEqual({ id: form, result: { action: 'decline' } });
    const link = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpLink('Sign in to the forms service'));
    const opened = await waitForCodexElicitation('Sign in to the forms service');
    expect(opened.elicitation).toEqual({ server: 'forms', message: 'Sign in to the forms service', mode: 'url', url: 'https://example.test/signin?state=1', host: 'example.test', elicitationId: 'signin-1' });
    expect((await respond(daemon, opened.id, { action: 'accept' })).status).toBe(200);
    expect(await app.replyTo(link)).toEqual({ id: link, result: { action: 'accept' } });
  });

  it("never relays Codex's own approval of an MCP tool call (an empty form it asks the same way): its dialog decides it", async () => {
    const from = attach.output().stdout.length;
    const approval = app.ask(THREAD.id, 'mcpServer/elicitation/request', {
      ...mcpForm('Allow the forms MCP server to run tool "form_one_choice"?'),
      requestedSchema: { type: 'object', properties: {} },
      _meta: { codex_approval_kind: 'mcp_tool_call', persist: ['session', 'always'], tool_name: 'form_one_choice', tool_params: {} },
    });
    const id = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpForm('Pick a color after an approval'));
    const ask = await waitForCodexElicitation('Pick a color after an approval');
    expect((await daemon.pending()).filter((view) => view.agent === 'codex')).toEqual([ask]);
    app.resolve(id, THREAD.id);
    await waitForLine(`form ${id} of MCP server forms in thread thread-main: settled in Codex, withdrawn from askbridge`, from);
    expect(attach.output().stdout.slice(from)).not.toContain(`form ${approval} `);
    expect(app.received.some((frame) => frame.id === approval)).toBe(false);
    app.resolve(approval, THREAD.id);
  });

  it("withdraws a form Codex settles itself (answered in its own dialog): a late response is refused and nothing is sent", async () => {
    const id = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpForm('Pick a color in the TUI'));
    const ask = await waitForCodexElicitation('Pick a color in the TUI');
    app.resolve(id, THREAD.id);
    const withdrawn = await waitUntil(async () => {
      const view = await daemon.ask(ask.id);
      return view.status === 'pending' ? undefined : view;
    }, 10_000, 'the card to leave');
    expect(withdrawn.status).toBe('cancelled');
    expect((await respond(daemon, ask.id, { action: 'accept', content: { color: 'red' } })).status).toBe(409);
    expect(app.received.some((frame) => frame.id === id)).toBe(false);
  });

  it("leaves to Codex's own dialog a form askbridge will not show and one handed back to the terminal: no reply at all", async () => {
    const from = attach.output().stdout.length;
    const nested = app.ask(THREAD.id, 'mcpServer/elicitation/request', { ...mcpForm('A nested form'), requestedSchema: { type: 'object', properties: { address: { type: 'object', properties: {} } } } });
    await waitForLine(`form ${nested} of MCP server forms in thread thread-main: askbridge refused it (the MCP server's request cannot be shown here: `, from);
    const id = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpForm('Pick a color in the terminal'));
    const ask = await waitForCodexElicitation('Pick a color in the terminal');
    expect((await runCli(['pending'], daemon.env)).stdout).toContain(`or hand it to Codex's dialog: POST /api/asks/${ask.id}/terminal`);
    const handed = await daemon.api('POST', `/api/asks/${ask.id}/terminal`);
    expect(handed.status).toBe(200);
    await waitForLine(`form ${id} of MCP server forms in thread thread-main: handed-to-terminal in askbridge, no decision: Codex's own dialog decides`, from);
    expect(app.received.some((frame) => frame.id === nested || frame.id === id)).toBe(false);
    await waitUntil(async () => ((await runCli(['history'], daemon.env)).stdout.includes("forms asks: Pick a color in the terminal\n    -> left to Codex's own dialog") ? true : undefined), 10_000, 'the history to say where it went');
    app.resolve(nested, THREAD.id);
    app.resolve(id, THREAD.id);
  });

  // A daemon killed and started again by its keeper: seconds on an idle machine, more on a loaded one.
  it('a form waiting when the daemon is killed outright comes back with its form, and the accept given then reaches Codex', async () => {
    const id = app.ask(THREAD.id, 'mcpServer/elicitation/request', mcpForm('Pick a color across a restart'));
    const ask = await waitForCodexElicitation('Pick a color across a restart');
    const from = attach.output().stdout.length;
    await daemon.crash();
    expect(await daemon.ask(ask.id)).toMatchObject({ status: 'pending', agent: 'codex', elicitation: ask.elicitation });
    expect((await respond(daemon, ask.id, { action: 'accept', content: { color: 'red' } })).status).toBe(200);
    expect(await app.replyTo(id)).toEqual({ id, result: { action: 'accept', content: { color: 'red' } } });
    await waitForLine(`form ${id} of MCP server forms in thread thread-main: answered in askbridge, delivered to Codex (accept)`, from);
  }, 60_000);

  // Last: it stops the attach.
  it('Ctrl+C withdraws what it holds and exits 0', async () => {
    const id = app.ask(THREAD.id, 'item/tool/requestUserInput', userInput('call_ctrl_c'));
    const ask = await waitForCodexAsk('call_ctrl_c');
    attach.child.kill('SIGINT');
    const result = await attach.result;
    expect(result.code).toBe(0);
    expect((await daemon.ask(ask.id)).status).toBe('cancelled');
    expect(app.received.some((frame) => frame.id === id)).toBe(false);
  });
});

/**
 * The neighbour's stand-in for Codex: a WebSocket server (written out by hand: the neighbour has
 * Node's built-ins only) on the socket PLANT_SOCKET, in PLANT_FOLDER, which it makes first when
 * PLANT_MAKE_FOLDER is set. Whoever connects gets a thread of its own and its question for a deploy
 * token; it prints `listening`, `connected` and any answer it is sent.
 */
const PLANTED_CODEX = String.raw`
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
const { PLANT_FOLDER: folder, PLANT_SOCKET: socketPath, PLANT_MAKE_FOLDER: makeFolder } = process.env;
if (makeFolder) { mkdirSync(folder); chmodSync(folder, 0o755); }
const thread = { id: 'thread-planted', cwd: '/srv/deploy', name: null, preview: 'deploy the service' };
const question = { threadId: thread.id, turnId: 'turn-1', itemId: 'call_planted', isBlocking: true, autoResolutionMs: null,
  questions: [{ id: 'token', header: 'Deploy', question: 'Paste the deploy token', isOther: true, isSecret: false, options: [{ label: 'Skip', description: '' }, { label: 'Later', description: '' }] }] };
const frame = (text) => {
  const body = Buffer.from(text);
  const head = body.length < 126 ? Buffer.from([0x81, body.length]) : Buffer.from([0x81, 126, body.length >> 8, body.length & 255]);
  return Buffer.concat([head, body]);
};
const server = createServer();
server.on('upgrade', (request, socket) => {
  console.log('connected');
  const accept = createHash('sha1').update(request.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ' + accept + '\r\n\r\n');
  const send = (message) => socket.write(frame(JSON.stringify(message)));
  const onMessage = ({ id, method, result }) => {
    if (method === 'initialize') send({ id, result: { userAgent: 'codex/0.169.0', codexHome: '', platformFamily: 'unix', platformOs: 'linux' } });
    else if (method === 'thread/loaded/list') send({ id, result: { data: [thread.id], nextCursor: null } });
    else if (method === 'thread/read') send({ id, result: { thread } });
    else if (method === 'thread/resume') { send({ id, result: { thread } }); send({ method: 'item/tool/requestUserInput', id: 7, params: question }); }
    else if (id === 7) console.log('answer ' + JSON.stringify(result));
  };
  let buffer = Buffer.alloc(0);
  socket.on('error', () => {});
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      let length = buffer[1] & 127;
      let at = 2;
      if (length === 126) { if (buffer.length < 4) return; length = buffer.readUInt16BE(2); at = 4; }
      else if (length === 127) { if (buffer.length < 10) return; length = Number(buffer.readBigUInt64BE(2)); at = 10; }
      if (buffer.length < at + 4 + length) return;
      const mask = buffer.subarray(at, at + 4);
      const payload = Buffer.from(buffer.subarray(at + 4, at + 4 + length)).map((byte, index) => byte ^ mask[index % 4]);
      const opcode = buffer[0] & 15;
      buffer = buffer.subarray(at + 4 + length);
      if (opcode === 1) onMessage(JSON.parse(Buffer.from(payload).toString('utf8')));
    }
  });
});
server.listen(socketPath, () => { chmodSync(socketPath, 0o777); console.log('listening'); });
`;

const neighbourCheck = neighbourAvailability();

describe.skipIf(!neighbourCheck.available)(`askbridge attach codex and a control socket another user planted${neighbourCheck.available ? '' : ` (${neighbourCheck.reason})`}`, () => {
  let neighbour: Neighbour;
  const planted: string[] = [];
  beforeAll(() => {
    neighbour = becomeNeighbour();
  });
  afterAll(() => {
    for (const path of planted) rmSync(path, { recursive: true, force: true });
    neighbour?.remove();
  });

  /** Where Codex's link leads (a folder of the shared temp directory, as /tmp/codex-daemon-<uid>), and who made the folder. */
  const setups = [
    { name: 'a folder the neighbour made first', neighbourMakesFolder: true, why: (folder: string, uid: number) => `the folder ${folder} belongs to another user (uid ${uid}), not to you (uid ${process.getuid?.()})` },
    { name: 'a folder of the person that others can write in', neighbourMakesFolder: false, why: (folder: string) => `the folder ${folder} can be written by other users (mode 1777)` },
  ];

  for (const setup of setups) {
    it(`refuses a link into ${setup.name}, with the neighbour listening there: never connects, relays nothing, and says why`, async () => {
      const codexHome = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-codex-planted-')));
      planted.push(codexHome);
      const link = join(codexHome, 'app-server-control', 'app-server-control.sock');
      const folder = join(tmpdir(), `askbridge-cd-${process.pid}-${planted.length}`);
      planted.push(folder);
      if (!setup.neighbourMakesFolder) {
        mkdirSync(folder);
        chmodSync(folder, 0o1777);
      }
      // Named as Codex names it: the SHA-256 of the link's path.
      const socket = join(folder, createHash('sha256').update(link).digest('hex'));
      const stranger = neighbour.run(PLANTED_CODEX, { PLANT_FOLDER: folder, PLANT_SOCKET: socket, ...(setup.neighbourMakesFolder ? { PLANT_MAKE_FOLDER: '1' } : {}) });
      await waitUntil(() => (stranger.output().stdout.includes('listening') ? true : stranger.child.exitCode !== null ? Promise.reject(new Error(stranger.output().stderr)) : undefined), 20_000, 'the neighbour to listen');
      // Codex's own link, left in place (Codex crashed, or the temp directory was cleaned since).
      mkdirSync(dirname(link), { mode: 0o700 });
      symlinkSync(socket, link);

      const attached = startCli(['attach', 'codex'], { ...daemon.env, CODEX_HOME: codexHome });
      const plantedAsk = async () => (await daemon.pending()).find((ask) => ask.agent === 'codex' && ask.sessionId === 'thread-planted');
      // Either it gives up, or the neighbour's question reaches the inbox.
      await waitUntil(async () => (attached.child.exitCode !== null ? 'exited' : await plantedAsk()), 20_000, 'the attach to exit or relay');
      try {
        expect(await plantedAsk()).toBeUndefined();
        expect(stranger.output().stdout).not.toContain('connected');
        const result = await attached.result;
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`askbridge attach: ${setup.why(folder, neighbour.uid)}: another user could be listening there in Codex's place`);
        expect(result.stderr).not.toContain('attached to Codex');
      } finally {
        attached.child.kill('SIGINT');
        stranger.child.kill('SIGKILL');
        await Promise.all([whenExited(attached.child), whenExited(stranger.child)]);
      }
    });
  }
});
