/**
 * Probes of what the pinned Codex and opencode do with an MCP server's elicitation (not run by
 * CI: neither vitest config includes *.probe.ts). Each runs the real client with temp homes and a
 * fake model that calls tools of elicit-server.ts (server `forms`), and prints its facts as one
 * JSON document: the capabilities the client declared to the server in `initialize`, what reached
 * the client's own clients, and what the server received back (elicit-server's log).
 *
 * - `codex-app-server`: `codex app-server` on stdio, initialized as `askbridge attach codex`
 *   initializes; it answers Codex's approval of the MCP tool call, accepts the form and declines the
 *   URL. Codex's TUI gets the same requests from its app-server (its own form and URL dialogs).
 * - `codex-exec`: `codex exec`, the tool call approved in config, with nobody to ask.
 * - `opencode-serve`: `opencode serve`, once with the SDK's server (which checks the client's
 *   capabilities first) and once with a server that sends `elicitation/create` regardless.
 *
 *   npx tsx tests/conformance/agent-elicitation.probe.ts <probe> [<probe>...]
 *   npx tsx tests/conformance/agent-elicitation.probe.ts --list
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitUntil } from '../stack/clock.js';
import { installedCodex } from './codex-tmux.js';
import { elicitServerCommand } from './elicit-server.js';
import { startFakeChat } from './fake-chat.js';
import { startFakeResponses, type ResponsesStep } from './fake-responses.js';
import { opencodeBinary, startOpencode } from './opencode-serve.js';

type Facts = Record<string, unknown>;

/** How long a client may take to start elicit-server.ts (tsx compiles it first): the clients' defaults (Codex 10 s, opencode 5 s) are too short on a busy machine. */
const MCP_STARTUP_MS = 60_000;
type JsonRpc = { id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

function readLog(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const capabilitiesIn = (log: Array<Record<string, unknown>>) => log.find((line) => line.initialized)?.capabilities;

/** A CODEX_HOME whose config points Codex at the fake model and runs elicit-server.ts as MCP server `forms`. */
async function codexHome(root: string, model: { baseUrl: string }, log: string, extra: string[] = []): Promise<{ home: string; project: string }> {
  const home = join(root, 'codex-home');
  const project = join(root, 'project');
  await mkdir(home);
  await mkdir(project);
  const server = elicitServerCommand();
  const config = [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "on-request"',
    'sandbox_mode = "read-only"',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${model.baseUrl}"`,
    'wire_api = "responses"',
    `[projects.${JSON.stringify(project)}]`,
    'trust_level = "trusted"',
    '[mcp_servers.forms]',
    `command = ${JSON.stringify(server.command)}`,
    `args = ${JSON.stringify(server.args)}`,
    `env = { ELICIT_LOG = ${JSON.stringify(log)} }`,
    `startup_timeout_sec = ${MCP_STARTUP_MS / 1000}`,
    // Codex starts MCP servers alongside the first turn: without this, the model may be asked before the server's tools are there.
    'required = true',
    ...extra,
    '',
  ];
  await writeFile(join(home, 'config.toml'), config.join('\n'));
  return { home, project };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const codexEnv = (home: string) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home });
const mcpCall = (tool: string): ResponsesStep => ({ call: tool, namespace: 'mcp__forms' });

async function codexAppServer(root: string): Promise<Facts> {
  const log = join(root, 'elicit.jsonl');
  const model = await startFakeResponses([mcpCall('form_one_choice'), mcpCall('url_signin'), { say: 'MODEL-DONE' }]);
  const { home, project } = await codexHome(root, model, log);
  const codex = installedCodex();
  const child = spawn(codex.bin, ['app-server'], { cwd: project, env: codexEnv(home), stdio: ['pipe', 'pipe', 'ignore'] });
  const requests: JsonRpc[] = [];
  const resolved: unknown[] = [];
  let turnCompleted = false;
  const replies = new Map<number | string, (message: JsonRpc) => void>();
  const send = (message: JsonRpc) => child.stdin.write(`${JSON.stringify(message)}\n`);
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as JsonRpc;
    if (message.method !== undefined && message.id !== undefined) {
      requests.push(message);
      const params = message.params ?? {};
      const meta = params._meta as { codex_approval_kind?: string } | null | undefined;
      // Codex's own approval of the tool call comes first, as an elicitation with an empty schema.
      const result = meta?.codex_approval_kind ? { action: 'accept' } : params.mode === 'url' ? { action: 'decline' } : { action: 'accept', content: { color: 'green' } };
      send({ id: message.id, result });
    } else if (message.id !== undefined) replies.get(message.id)?.(message);
    else if (message.method === 'serverRequest/resolved') resolved.push(message.params);
    else if (message.method === 'turn/completed') turnCompleted = true;
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown>) =>
    new Promise<JsonRpc>((resolve) => {
      next += 1;
      replies.set(next, resolve);
      send({ id: next, method, params });
    });
  try {
    // As `askbridge attach codex` introduces itself to Codex's app-server.
    await call('initialize', { clientInfo: { name: 'askbridge', title: 'askbridge', version: '0' }, capabilities: { experimentalApi: false, requestAttestation: false } });
    send({ method: 'initialized' });
    const started = (await call('thread/start', { cwd: project })).result as { thread: { id: string } };
    await waitUntil(() => capabilitiesIn(readLog(log)), 60_000, 'the MCP server initialized by Codex');
    await call('turn/start', { threadId: started.thread.id, input: [{ type: 'text', text: 'Go.' }] });
    await waitUntil(() => (turnCompleted ? true : undefined), 60_000, "Codex's turn to complete");
    return {
      client: `codex ${codex.version} app-server`,
      capabilities: capabilitiesIn(readLog(log)),
      requestsToClient: requests.map(({ method, params }) => ({ method, params })),
      resolvedNotices: resolved,
      serverReceived: readLog(log).filter((line) => line.tool),
      modelRead: model.outputs().map((output) => output.output),
    };
  } finally {
    await stop(child);
    await model.stop();
  }
}

async function codexExec(root: string): Promise<Facts> {
  const log = join(root, 'elicit.jsonl');
  const model = await startFakeResponses([mcpCall('form_one_choice'), { say: 'MODEL-DONE' }]);
  // exec runs with approval "never": the tool call itself is approved here, so the form is what is left to ask.
  const { home, project } = await codexHome(root, model, log, ['[mcp_servers.forms.tools.form_one_choice]', 'approval_mode = "approve"']);
  const codex = installedCodex();
  const child = spawn(codex.bin, ['exec', '--skip-git-repo-check', 'Go.'], { cwd: project, env: codexEnv(home), stdio: 'ignore' });
  try {
    const code = await new Promise((resolve) => child.once('exit', resolve));
    return {
      client: `codex ${codex.version} exec`,
      exitCode: code,
      mcpToolsOffered: JSON.stringify(model.requests[0]?.tools).includes('mcp__forms'),
      capabilities: capabilitiesIn(readLog(log)),
      serverReceived: readLog(log).filter((line) => line.tool),
      modelRead: model.outputs().map((output) => output.output),
    };
  } finally {
    await stop(child);
    await model.stop();
  }
}

async function opencodeServe(root: string): Promise<Facts> {
  const checkedLog = join(root, 'checked.jsonl');
  const uncheckedLog = join(root, 'unchecked.jsonl');
  const chat = await startFakeChat();
  const server = elicitServerCommand();
  const command = [server.command, ...server.args];
  const opencode = await startOpencode(chat.baseUrl, {
    mcp: {
      forms: { type: 'local', command, environment: { ELICIT_LOG: checkedLog }, timeout: MCP_STARTUP_MS },
      unchecked: { type: 'local', command, environment: { ELICIT_LOG: uncheckedLog, ELICIT_UNCHECKED: '1' }, timeout: MCP_STARTUP_MS },
    },
  });
  try {
    // opencode starts its MCP servers when the project is first used: asking for their status is enough.
    const mcpStatus = (await opencode.api('GET', '/mcp')).body;
    await waitUntil(() => capabilitiesIn(readLog(checkedLog)), MCP_STARTUP_MS, 'the MCP server initialized by opencode');
    chat.play({ tool: 'forms_form_one_choice', input: {} });
    await opencode.prompt('Go.');
    await chat.waitForToolResult((text) => text.includes('form_one_choice'));
    chat.play({ tool: 'unchecked_form_one_choice', input: {} });
    await opencode.prompt('Go again.');
    await waitUntil(() => (chat.toolResults().length === 2 ? true : undefined), 60_000, 'the second tool result');
    return {
      client: `opencode ${spawnSync(opencodeBinary(), ['--version'], { encoding: 'utf8' }).stdout.trim()} serve`,
      mcpStatus,
      capabilities: capabilitiesIn(readLog(checkedLog)),
      serverReceived: readLog(checkedLog).filter((line) => line.tool),
      uncheckedServerReceived: readLog(uncheckedLog).filter((line) => line.tool),
      modelRead: chat.toolResults(),
      eventTypes: [...new Set(opencode.events().map((event) => event.payload.type))],
    };
  } finally {
    await opencode.stop();
    await chat.close();
  }
}

const probes: Record<string, (root: string) => Promise<Facts>> = {
  'codex-app-server': codexAppServer,
  'codex-exec': codexExec,
  'opencode-serve': opencodeServe,
};

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '--list') {
  process.stdout.write(`${Object.keys(probes).join('\n')}\n`);
} else {
  for (const name of args) {
    const probe = probes[name];
    if (!probe) {
      process.stderr.write(`unknown probe ${name}\n`);
      process.exitCode = 2;
      continue;
    }
    const root = await realpath(await mkdtemp(join(tmpdir(), `askbridge-probe-${name}-`)));
    try {
      process.stdout.write(`\n===== ${name}\n${JSON.stringify(await probe(root), null, 2)}\n`);
    } finally {
      // The MCP server, the client's child, may still be writing its log as it goes.
      await rm(root, { recursive: true, force: true, maxRetries: 5 });
    }
  }
}
