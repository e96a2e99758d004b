/**
 * `askbridge attach codex` against the real Codex CLI (the pinned TUI in tmux, its shared
 * app-server on) with a real MCP server (elicit-server.ts, server `forms`) whose tools ask for a
 * form or a link: the request shown in askbridge as Codex's, responded to there as a person does
 * (POST /api/asks/:id/elicitation, as the page does), and what the MCP server really received (its
 * log). Codex asks its own approval of an MCP tool call the same way, as an empty form: that one
 * never reaches askbridge, and Codex's dialog decides it.
 *
 * One daemon, one attach, one Codex serve every case; each case submits a prompt, and the mock
 * model calls one tool of the server. `form_one_choice` is approved in Codex's config (no approval
 * asked); `url_signin` is not.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { respond } from '../stack/elicitations.js';
import { startCli, type RunningProcess } from '../stack/processes.js';
import { installedCodex, startCodex, stopAppServer, type CodexSession, type CodexSetup } from './codex-tmux.js';
import { ONE_CHOICE_MESSAGE, SIGNIN_MESSAGE, SIGNIN_URL, elicitServerCommand, type ElicitLogLine } from './elicit-server.js';
import { startFakeResponses, type FakeResponses, type ResponsesStep } from './fake-responses.js';

/** How long Codex may take to start elicit-server.ts (tsx compiles it first): its default (10 s) is too short on a busy machine. */
const MCP_STARTUP_MS = 60_000;
const DONE = 'Nothing more to do.';
/** Codex's own approval of an MCP tool call (0.169.0), in its TUI. */
const TOOL_APPROVAL = /Allow the forms MCP server to run tool "url_signin"\?/;

let model: FakeResponses;
let setup: CodexSetup;
let serverLog: string;
let daemon: Daemon;
let attach: RunningProcess;
let codex: CodexSession;

/** A CODEX_HOME whose TUI talks to the mock, starts its shared app-server (the control socket) and runs elicit-server.ts as MCP server `forms`; a trusted project. */
async function setUpCodexWithForms(): Promise<CodexSetup> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-codexe-')));
  const codexHome = join(root, 'codex-home');
  const projectDir = join(root, 'project');
  await mkdir(codexHome);
  await mkdir(projectDir);
  serverLog = join(root, 'elicit.jsonl');
  const server = elicitServerCommand();
  const config = [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "on-request"',
    'sandbox_mode = "read-only"',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${model.baseUrl}"`,
    'wire_api = "responses"',
    '',
    `[projects.${JSON.stringify(projectDir)}]`,
    'trust_level = "trusted"',
    '',
    '[mcp_servers.forms]',
    `command = ${JSON.stringify(server.command)}`,
    `args = ${JSON.stringify(server.args)}`,
    `env = { ELICIT_LOG = ${JSON.stringify(serverLog)} }`,
    `startup_timeout_sec = ${MCP_STARTUP_MS / 1000}`,
    // Codex starts MCP servers alongside the first turn: without this, the model may be asked before the server's tools are there.
    'required = true',
    '',
    '[mcp_servers.forms.tools.form_one_choice]',
    'approval_mode = "approve"',
    '',
  ].join('\n');
  await writeFile(join(codexHome, 'config.toml'), config);
  const installed = installedCodex();
  return {
    codex: installed,
    model,
    codexHome,
    projectDir,
    installed: { stdout: '', stderr: '' },
    remove: async () => {
      stopAppServer(installed.bin, codexHome);
      rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

beforeAll(async () => {
  model = await startFakeResponses([]);
  setup = await setUpCodexWithForms();
  daemon = await startDaemon();
  attach = startCli(['attach', 'codex'], { ...daemon.env, CODEX_HOME: setup.codexHome });
  codex = await startCodex(setup, {});
  await waitForAttachLine('attached to Codex');
}, 180_000);

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
  return waitUntil(() => (attach.output().stdout.slice(from).includes(text) ? true : undefined), 90_000, `"${text}" from the attach (${JSON.stringify(attach.output())})`);
}

/** What the MCP server received back, one line per elicitation. */
function serverLines(): ElicitLogLine[] {
  if (!existsSync(serverLog)) return [];
  return readFileSync(serverLog, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ElicitLogLine)
    .filter((line) => line.tool !== undefined);
}

/** The MCP server's request, once it waits in askbridge as Codex's. */
function waitForCodexElicitation(message: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === 'codex' && ask.elicitation?.message === message), 90_000, `Codex's "${message}" in askbridge`).catch((error: unknown) => {
    throw new Error(`${String(error)}; the attach said: ${JSON.stringify(attach.output())}`);
  });
}

let turns = 0;
/** The model calls `tool` of the forms server at the next prompt (the mock plays the step as far as the thread's tool results go: the earlier cases' come first). */
async function callTool(tool: 'form_one_choice' | 'url_signin'): Promise<void> {
  const earlier: ResponsesStep[] = model.outputs().map(() => ({ say: DONE }));
  model.play([...earlier, { call: tool, namespace: 'mcp__forms' }, { say: DONE }]);
  turns += 1;
  await codex.submit(`go ${turns}`);
}

describe('askbridge attach codex and an MCP server’s requests, with the real Codex CLI', () => {
  it("shows the server's form as Codex's; accepted in askbridge, the MCP server receives exactly those values and Codex's dialog goes away", async () => {
    const served = serverLines().length;
    await callTool('form_one_choice');
    const ask = await waitForCodexElicitation(ONE_CHOICE_MESSAGE);
    expect(ask).toMatchObject({ agent: 'codex', cwd: setup.projectDir, elicitation: { server: 'forms', mode: 'form', form: { fields: [{ name: 'color', kind: 'choice', required: true }] } } });
    expect(serverLines()).toHaveLength(served);

    expect((await respond(daemon, ask.id, { action: 'accept', content: { color: 'blue' } })).status).toBe(200);
    const received = await waitUntil(() => serverLines()[served], 60_000, 'the MCP server to receive the response');
    expect(received).toEqual({ tool: 'form_one_choice', action: 'accept', content: { color: 'blue' } });
    expect(await codex.waitForScreen(DONE, 60_000)).not.toContain(ONE_CHOICE_MESSAGE);
    await waitForAttachLine(`of MCP server forms in thread ${ask.sessionId}: answered in askbridge, delivered to Codex (accept)`);
    expect((await daemon.ask(ask.id)).delivery).toBe('delivered');
  });

  it("never shows Codex's approval of the tool call as a form; the link after it, declined in askbridge, reaches the server as a decline", async () => {
    const served = serverLines().length;
    const from = attach.output().stdout.length;
    await callTool('url_signin');
    await codex.waitForScreen(TOOL_APPROVAL, 60_000);
    // Codex's own dialog decides it: approved there (its first choice; again, should the dialog have dropped a key while it opened).
    const ask = await waitUntil(
      async () => {
        if (TOOL_APPROVAL.test(await codex.screen())) await codex.pressKey('Enter');
        return (await daemon.pending()).find((view) => view.agent === 'codex' && view.elicitation?.message === SIGNIN_MESSAGE);
      },
      60_000,
      'the approval to be given in the TUI and the link to reach askbridge',
      1_500,
    );
    expect(ask.elicitation).toMatchObject({ server: 'forms', mode: 'url', url: SIGNIN_URL, host: 'example.test' });
    // Only the link was relayed: the approval, asked before it, never was.
    const relayed = attach
      .output()
      .stdout.slice(from)
      .split('\n')
      .filter((line) => line.endsWith(': relayed to askbridge'));
    expect(relayed).toEqual([expect.stringMatching(/^link \d+ of MCP server forms in thread /)]);
    expect((await daemon.pending()).filter((view) => view.agent === 'codex')).toEqual([ask]);

    expect((await respond(daemon, ask.id, { action: 'decline' })).status).toBe(200);
    const received = await waitUntil(() => serverLines()[served], 60_000, 'the MCP server to receive the decline');
    expect(received).toEqual({ tool: 'url_signin', action: 'decline' });
    await codex.waitForScreen(DONE, 60_000);
  });
});
