/**
 * `askbridge attach codex` against the real Codex CLI (the pinned TUI in tmux, Plan mode): the
 * model's request_user_input shown in askbridge as Codex's, answered there as a person does (POST
 * /api/asks/:id/answer, as the page does), and what the model really read (the mock of the Responses
 * API records every tool result); answered in Codex's own picker first, the card leaves.
 *
 * Codex's questions reach a client of its shared app-server (the control socket under CODEX_HOME),
 * which the TUI starts unless told not to: this CODEX_HOME leaves that on, and stops the app-server
 * at the end (it outlives the TUI). One daemon, one attach, one Codex serve every case; each case
 * submits a prompt in Plan mode (`/plan <prompt>`), and the mock model asks one question.
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { startCli, type RunningProcess } from '../stack/processes.js';
import { installedCodex, startCodex, stopAppServer, type CodexSession, type CodexSetup } from './codex-tmux.js';
import type { FakeResponses, RecordedOutput } from './fake-responses.js';

/** The question the mock model asks through request_user_input (Codex's tool: id, header, question, options). */
type AskedQuestion = { id: string; header: string; question: string; options: Array<{ label: string; description: string }> };

/** Codex's picker while a question waits (0.169.0). */
const PICKER = /Question 1\/1/;
const DONE = 'Noted, thank you.';

/** The mock model: each prompt gets a request_user_input call with the questions given to askNext(), then a final message. */
type QuestionModel = FakeResponses & {
  askNext(questions: AskedQuestion[]): void;
  /** The tool result the model received for that call, once it did. */
  outputFor(callId: string): string | undefined;
};

async function startQuestionModel(): Promise<QuestionModel> {
  const requests: Array<Record<string, unknown>> = [];
  const seen: string[] = [];
  let questions: AskedQuestion[] = [];
  let calls = 0;
  type Item = { type?: string; role?: string; call_id?: string; output?: unknown; content?: unknown };
  const inputOf = (body: Record<string, unknown>) => (Array.isArray(body.input) ? (body.input as Item[]) : []);
  const text = (value: unknown): string => (typeof value === 'string' ? value : Array.isArray(value) ? value.map((part) => String((part as { text?: unknown }).text ?? '')).join('') : JSON.stringify(value));
  const events = (id: string, item: Record<string, unknown>) =>
    [
      { type: 'response.created', response: { id } },
      { type: 'response.output_item.done', item },
      { type: 'response.completed', response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 10, output_tokens_details: null, total_tokens: 20 } } },
    ]
      .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      .join('');
  const readBody = (request: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      request.on('error', reject);
    });
  const server = createServer((request, response) => {
    void readBody(request).then((raw) => {
      seen.push(`${request.method} ${request.url}`);
      if (request.method !== 'POST' || !request.url?.endsWith('/responses')) return response.writeHead(404).end();
      const body = JSON.parse(raw) as Record<string, unknown>;
      const id = `resp-${seen.length}`;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      const offersQuestions = Array.isArray(body.tools) && body.tools.some((tool) => (tool as { name?: unknown }).name === 'request_user_input');
      // Codex's side requests (a task's title) offer no tools: a short message, not counted.
      if (!offersQuestions) return response.end(events(id, { type: 'message', role: 'assistant', id: `msg-${id}`, content: [{ type: 'output_text', text: 'Scripted task' }] }));
      requests.push(body);
      const last = inputOf(body).at(-1);
      if (last?.type === 'message' && last.role === 'user') {
        calls += 1;
        return response.end(events(id, { type: 'function_call', id: `fc-${calls}`, call_id: `call-ask-${calls}`, name: 'request_user_input', arguments: JSON.stringify({ questions }) }));
      }
      response.end(events(id, { type: 'message', role: 'assistant', id: `msg-${id}`, content: [{ type: 'output_text', text: DONE }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const outputs = (): RecordedOutput[] =>
    requests.flatMap((body) => inputOf(body).filter((item) => item.type === 'function_call_output').map((item) => ({ callId: String(item.call_id), output: text(item.output) })));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    seen,
    outputs,
    userMessages: () => inputOf(requests.at(-1) ?? {}).filter((item) => item.type === 'message' && item.role === 'user').map((item) => text(item.content)),
    play(steps) {
      if (steps.length > 0) throw new Error('this model only asks questions: use askNext()');
    },
    askNext(next) {
      questions = next;
    },
    outputFor: (callId) => outputs().find((output) => output.callId === callId)?.output,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A CODEX_HOME whose TUI talks to the mock and starts its shared app-server (the control socket), and a trusted project. */
async function setUpCodexWithAppServer(model: QuestionModel): Promise<CodexSetup> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-codexq-')));
  const codexHome = join(root, 'codex-home');
  const projectDir = join(root, 'project');
  await mkdir(codexHome);
  await mkdir(projectDir);
  const config = [
    'model = "mock-model"',
    'model_provider = "mock"',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${model.baseUrl}"`,
    'wire_api = "responses"',
    '',
    `[projects.${JSON.stringify(projectDir)}]`,
    'trust_level = "trusted"',
    '',
  ].join('\n');
  await writeFile(join(codexHome, 'config.toml'), config);
  const codex = installedCodex();
  return {
    codex,
    model,
    codexHome,
    projectDir,
    installed: { stdout: '', stderr: '' },
    remove: async () => {
      stopAppServer(codex.bin, codexHome);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

let model: QuestionModel;
let setup: CodexSetup;
let daemon: Daemon;
let attach: RunningProcess;
let codex: CodexSession;

beforeAll(async () => {
  model = await startQuestionModel();
  setup = await setUpCodexWithAppServer(model);
  daemon = await startDaemon();
  // Started before Codex, as a person may: it waits for Codex's app-server to appear.
  attach = startCli(['attach', 'codex'], { ...daemon.env, CODEX_HOME: setup.codexHome });
  codex = await startCodex(setup, {});
  await waitForAttachLine('attached to Codex');
}, 120_000);

afterAll(async () => {
  if (attach && attach.child.exitCode === null) {
    attach.child.kill('SIGINT');
    await attach.result;
  }
  await codex?.stop();
  await daemon?.stop();
  await setup?.remove();
  await model?.stop();
}, 60_000);

function waitForAttachLine(text: string, from = 0): Promise<true> {
  return waitUntil(() => (attach.output().stdout.slice(from).includes(text) ? true : undefined), 60_000, `"${text}" from the attach (${JSON.stringify(attach.output())})`);
}

/** The ask of Codex's call, once it waits in askbridge (GET /api/asks with the token). */
function waitForCodexAsk(callId: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === 'codex' && ask.toolUseId === callId), 60_000, `an ask of Codex's ${callId}`).catch((error: unknown) => {
    throw new Error(`${String(error)}; the attach said: ${JSON.stringify(attach.output())}`);
  });
}

function databaseQuestion(marker: string): AskedQuestion {
  return {
    id: 'database',
    header: 'Database',
    question: `Which database should we use for ${marker}?`,
    options: [
      { label: 'Postgres (Recommended)', description: 'Relational, runs as a server' },
      { label: 'SQLite', description: 'Embedded in one file' },
    ],
  };
}

let turns = 0;
/** Submits a prompt in Plan mode; returns the call id the model's question will have. */
async function askInPlanMode(question: AskedQuestion): Promise<string> {
  model.askNext([question]);
  turns += 1;
  await codex.submit(`/plan decide ${turns}`);
  await codex.waitForScreen(PICKER);
  return `call-ask-${turns}`;
}

describe('askbridge attach codex, with the real Codex CLI', () => {
  it("shows Codex's question as Codex's; answered in askbridge, the model reads Codex's own answer format and the picker goes away", async () => {
    const question = databaseQuestion(`answer-${Date.now()}`);
    const callId = await askInPlanMode(question);
    const ask = await waitForCodexAsk(callId);
    expect(ask.agent).toBe('codex');
    expect(ask.cwd).toBe(setup.projectDir);
    expect(ask.questions).toEqual([{ question: question.question, header: 'Database', multiSelect: false, options: question.options }]);

    const answered = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: question.question, selected: ['SQLite'] }] });
    expect(answered.status).toBe(200);
    const output = await waitUntil(() => model.outputFor(callId), 30_000, `the model to receive the answer to ${callId}`);
    expect(output).toBe('{"answers":{"database":{"answers":["SQLite"]}}}');
    const screen = await codex.waitForScreen(DONE);
    expect(screen).not.toMatch(PICKER);
    await waitForAttachLine(`question ${callId} of thread ${ask.sessionId}: answered in askbridge, delivered to Codex`);
    expect((await daemon.ask(ask.id)).delivery).toBe('delivered');
  });

  it('typed text reaches the model as the picker sends it: "None of the above" and a note', async () => {
    const question = databaseQuestion(`other-${Date.now()}`);
    const callId = await askInPlanMode(question);
    const ask = await waitForCodexAsk(callId);
    await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: question.question, other: 'MariaDB, managed' }] });
    const output = await waitUntil(() => model.outputFor(callId), 30_000, `the model to receive the answer to ${callId}`);
    expect(output).toBe('{"answers":{"database":{"answers":["None of the above","user_note: MariaDB, managed"]}}}');
    await codex.waitForScreen(DONE);
  });

  it("answered in Codex's own picker first, the card leaves askbridge and a late answer there is refused", async () => {
    const question = databaseQuestion(`tui-${Date.now()}`);
    const callId = await askInPlanMode(question);
    const ask = await waitForCodexAsk(callId);
    // The picker's first option is highlighted: Enter chooses it (again, should the picker have dropped a key while it opened).
    const output = await waitUntil(
      async () => {
        if (PICKER.test(await codex.screen())) await codex.pressKey('Enter');
        return model.outputFor(callId);
      },
      30_000,
      `the model to receive the picker's answer to ${callId}`,
      1_500,
    );
    expect(output).toBe('{"answers":{"database":{"answers":["Postgres (Recommended)"]}}}');
    const settled = await waitUntil(async () => {
      const view = await daemon.ask(ask.id);
      return view.status === 'pending' ? undefined : view;
    }, 30_000, 'the card to leave');
    expect(settled.status).toBe('cancelled');
    const late = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: question.question, selected: ['SQLite'] }] });
    expect(late.status).toBe(409);
    await waitForAttachLine(`question ${callId} of thread ${ask.sessionId}: settled in Codex, withdrawn from askbridge`);
  });
});
