/**
 * The facts about MCP elicitation in the real Claude Code client that askbridge relies on.
 *
 * The fake model calls a tool of elicit-server.ts (MCP server `forms`, on the official SDK),
 * which asks Claude Code for input. An `Elicitation` hook, http (HookRecorder) or command
 * (fixtures/elicit-hook.mjs), answers as each case says; the server's log shows exactly what
 * the server received. elicitation.probe.ts explores the rest (timeouts, status codes, matchers).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { ALL_KINDS_MESSAGE, ALL_KINDS_SCHEMA, ONE_CHOICE_MESSAGE, ONE_CHOICE_SCHEMA, SIGNIN_ELICITATION_ID, SIGNIN_MESSAGE, SIGNIN_URL, elicitServerCommand } from './elicit-server.js';
import type { ElicitLogLine } from './elicit-server.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { FakeAnthropic } from './fake-anthropic.js';
import { HookRecorder } from './hook-recorder.js';
import type { HookAnswer, HookCall } from './hook-recorder.js';
import { isProcessAlive } from '../../src/state-dir.js';

const ELICIT_HOOK = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'elicit-hook.mjs');
/** Claude Code's own form dialog. */
const FORM_DIALOG = /MCP server “forms” requests your input/;
/** The fields every hook input carries besides its event's own. */
const COMMON_KEYS = ['session_id', 'transcript_path', 'cwd', 'prompt_id', 'hook_event_name'];

type Tool = 'form_all_kinds' | 'form_one_choice' | 'url_signin';

interface Run {
  fake: FakeAnthropic;
  claude: ClaudeSession;
  hooks: HookRecorder;
  /** What the server received, in order (the `initialized` line left out). */
  serverLines(): ElicitLogLine[];
  /** The command hook's records (when the case has one). */
  commandHookLines(): Array<{ event: string; pid: number; input?: Record<string, unknown>; signal?: string }>;
}

/** How the Elicitation hook answers: an http entry deciding per request, or a command hook holding until killed. */
type HookSetup = { http: (call: HookCall) => HookAnswer | undefined } | { commandHolds: true };

let cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  // claude first (it holds the MCP server and hook connections), then the servers, then files.
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
});

function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

function hookOutput(fields: Record<string, unknown>): HookAnswer {
  return { json: { hookSpecificOutput: { hookEventName: 'Elicitation', ...fields } } };
}

/** Answers `Elicitation` with `answer` (undefined: holds it open) and every other event with `{}`. */
function elicitationAnswers(answer: HookAnswer | undefined): (call: HookCall) => HookAnswer | undefined {
  return (call) => (call.event === 'Elicitation' ? answer : { json: {} });
}

/** Claude Code in tmux with the `forms` server, the model calling `tool` once; returns once the server is connected. */
async function startRun(tool: Tool, setup: HookSetup): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-elicitation-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const serverLog = join(dir, 'server.jsonl');
  const hookLog = join(dir, 'hook.jsonl');
  const mcpConfig = join(dir, 'mcp.json');
  await writeFile(mcpConfig, JSON.stringify({ mcpServers: { forms: { ...elicitServerCommand(), env: { ELICIT_LOG: serverLog } } } }));

  const hooks = new HookRecorder('http' in setup ? setup.http : () => ({ json: {} }));
  await hooks.start();
  cleanups.push(() => hooks.close());
  const recorded = hooks.settings(['Elicitation', 'ElicitationResult']).hooks as Record<string, unknown[]>;
  if (!('http' in setup)) {
    const hookConfig = join(dir, 'hook-config.json');
    await writeFile(hookConfig, JSON.stringify({ recordTo: hookLog, Elicitation: { holdMs: -1 } }));
    recorded.Elicitation = [{ hooks: [{ type: 'command', command: `"${process.execPath}" "${ELICIT_HOOK}" "${hookConfig}"` }] }];
  }

  const fake = await startFakeAnthropic({ steps: [{ tool: `mcp__forms__${tool}`, input: {} }, { text: 'Nothing more to do.' }], finalText: 'Nothing more to do.' });
  cleanups.push(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    settings: { permissions: { allow: ['mcp__forms'] }, hooks: recorded },
    args: ['--permission-mode', 'default', '--mcp-config', mcpConfig, '--strict-mcp-config'],
  });
  cleanups.push(async () => {
    await claude.stop();
    // A held command hook outlives claude (see the Esc case): end it here.
    for (const line of readJsonLines<{ pid: number }>(hookLog)) {
      try {
        process.kill(line.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  // The model is offered the server's tools once the server is connected.
  await waitUntil(() => (readJsonLines<ElicitLogLine>(serverLog).some((line) => line.initialized) ? true : undefined), 30_000, 'the forms server to be initialized');
  return {
    fake,
    claude,
    hooks,
    serverLines: () => readJsonLines<ElicitLogLine>(serverLog).filter((line) => !line.initialized),
    commandHookLines: () => readJsonLines(hookLog),
  };
}

async function prompt(run: Run, text: string): Promise<void> {
  const before = run.fake.mainRequests.length;
  await run.claude.submit(text, { accepted: () => run.fake.mainRequests.length > before });
}

/** Waits for `what`, adding the screen to the error. */
async function until<T>(run: Run, what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  try {
    return await waitUntil(probe, timeoutMs, what, 50);
  } catch (error) {
    throw new Error(`${String(error)}\nScreen:\n${await run.claude.screen().catch(() => '(no screen)')}\nServer: ${JSON.stringify(run.serverLines())}`);
  }
}

/** The schema the hook sees: the server's, without `pattern` (not a key of MCP's string schema). */
function withoutPattern(schema: typeof ALL_KINDS_SCHEMA): unknown {
  const { pattern: _pattern, ...code } = schema.properties.code;
  return { ...schema, properties: { ...schema.properties, code } };
}

describe('MCP elicitation in Claude Code', () => {
  it('a form reaches the Elicitation hook with the server schema (keys MCP does not define dropped), and an accept reaches the server with its types kept', async () => {
    const content = {
      email: 'ops@example.test',
      homepage: 'https://example.test',
      start: '2026-12-01',
      deadline: '2026-12-24T10:00:00Z',
      code: 'XYZ',
      budget: 12.75,
      replicas: 3,
      confirm: true,
      environment: 'production',
      region: 'us-east',
      features: ['logs', 'traces'],
    };
    const run = await startRun('form_all_kinds', { http: elicitationAnswers(hookOutput({ action: 'accept', content })) });
    await prompt(run, 'Fill in the form.');

    const result = await until(run, 'the tool result', () => run.fake.stepResult(0));
    expect(run.serverLines()).toEqual([{ tool: 'form_all_kinds', action: 'accept', content }]);
    expect(result.text).toBe(JSON.stringify({ tool: 'form_all_kinds', action: 'accept', content }));

    const [call] = run.hooks.of('Elicitation');
    expect(Object.keys(call?.body ?? {}).sort()).toEqual([...COMMON_KEYS, 'mcp_server_name', 'message', 'mode', 'requested_schema'].sort());
    expect(call?.body).toMatchObject({ hook_event_name: 'Elicitation', mcp_server_name: 'forms', message: ALL_KINDS_MESSAGE, mode: 'form' });
    expect(call?.body.requested_schema).toEqual(withoutPattern(ALL_KINDS_SCHEMA));
    // A hook's decision goes to the server as it is: ElicitationResult is not asked.
    expect(run.hooks.of('ElicitationResult')).toEqual([]);
  });

  it('a URL request reaches the hook with url and elicitation_id and no schema, and a decline reaches the server without content', async () => {
    const run = await startRun('url_signin', { http: elicitationAnswers(hookOutput({ action: 'decline' })) });
    await prompt(run, 'Sign me in.');

    await until(run, 'the tool result', () => run.fake.stepResult(0));
    expect(run.serverLines()).toEqual([{ tool: 'url_signin', action: 'decline' }]);
    const [call] = run.hooks.of('Elicitation');
    expect(Object.keys(call?.body ?? {}).sort()).toEqual([...COMMON_KEYS, 'mcp_server_name', 'message', 'mode', 'url', 'elicitation_id'].sort());
    expect(call?.body).toMatchObject({ mcp_server_name: 'forms', message: SIGNIN_MESSAGE, mode: 'url', url: SIGNIN_URL, elicitation_id: SIGNIN_ELICITATION_ID });
    expect(run.hooks.of('ElicitationResult')).toEqual([]);
  });

  it('an empty hook reply leaves it to Claude Code’s own dialog; Esc there sends cancel, and ElicitationResult reports it', async () => {
    const run = await startRun('form_one_choice', { http: elicitationAnswers({ json: {} }) });
    await prompt(run, 'Pick a color.');

    const screen = await run.claude.waitForScreen(FORM_DIALOG, 30_000);
    expect(screen).toContain(ONE_CHOICE_MESSAGE);
    expect(screen).toMatch(/Color: ▸ not set/);
    await run.claude.pressKeyUntil('Escape', () => run.serverLines().length > 0);

    await until(run, 'the tool result', () => run.fake.stepResult(0));
    expect(run.serverLines()).toEqual([{ tool: 'form_one_choice', action: 'cancel' }]);
    const [elicitation] = run.hooks.of('Elicitation');
    expect(elicitation?.body.requested_schema).toEqual(ONE_CHOICE_SCHEMA);
    const [result] = await until(run, 'the ElicitationResult hook', () => (run.hooks.of('ElicitationResult').length > 0 ? run.hooks.of('ElicitationResult') : undefined));
    expect(Object.keys(result?.body ?? {}).sort()).toEqual([...COMMON_KEYS, 'mcp_server_name', 'mode', 'action'].sort());
    expect(result?.body).toMatchObject({ hook_event_name: 'ElicitationResult', mcp_server_name: 'forms', mode: 'form', action: 'cancel' });
  });

  it('Esc while a command hook holds cancels the tool call, but the hook is not signalled and lives on', async () => {
    const run = await startRun('form_one_choice', { commandHolds: true });
    await prompt(run, 'Pick a color.');
    const [started] = await until(run, 'the command hook to start', () => (run.commandHookLines().length > 0 ? run.commandHookLines() : undefined));
    expect(started?.input).toMatchObject({ hook_event_name: 'Elicitation', mcp_server_name: 'forms', mode: 'form', requested_schema: ONE_CHOICE_SCHEMA });
    await run.claude.waitForScreen(/running Elicitation hook/, 15_000);

    await run.claude.pressKeyUntil('Escape', () => run.serverLines().length > 0);
    // The server learns only that its tool call was cancelled: no elicitation response.
    await run.claude.waitForScreen(/Interrupted/, 15_000);
    expect(run.serverLines()).toEqual([{ tool: 'form_one_choice', cancelled: true }]);

    // A whole turn later the hook still runs, never signalled; no dialog, no ElicitationResult.
    await prompt(run, 'Never mind.');
    await run.claude.waitForScreen('Nothing more to do.', 30_000);
    expect(run.commandHookLines()).toEqual([started]);
    expect(isProcessAlive(started?.pid ?? 0)).toBe(true);
    expect(run.serverLines()).toEqual([{ tool: 'form_one_choice', cancelled: true }]);
    expect(run.hooks.of('ElicitationResult')).toEqual([]);
  });

  it('Esc while an http hook holds leaves its request open, and an answer given later still reaches the server', async () => {
    const run = await startRun('form_one_choice', { http: elicitationAnswers(undefined) });
    await prompt(run, 'Pick a color.');
    const held = await run.hooks.waitFor('Elicitation', 30_000);
    await run.claude.waitForScreen(/running Elicitation hook/, 15_000);

    await run.claude.pressKeyUntil('Escape', () => run.serverLines().length > 0);
    await run.claude.waitForScreen(/Interrupted/, 15_000);
    expect(run.serverLines()).toEqual([{ tool: 'form_one_choice', cancelled: true }]);

    await prompt(run, 'Never mind.');
    await run.claude.waitForScreen('Nothing more to do.', 30_000);
    expect(run.hooks.isOpen(held)).toBe(true);

    expect(run.hooks.answer(held, hookOutput({ action: 'accept', content: { color: 'blue' } }))).toBe(true);
    await until(run, 'the late answer at the server', () => (run.serverLines().length > 1 ? true : undefined));
    expect(run.serverLines()).toEqual([
      { tool: 'form_one_choice', cancelled: true },
      { tool: 'form_one_choice', action: 'accept', content: { color: 'blue' } },
    ]);
    expect(run.hooks.of('ElicitationResult')).toEqual([]);
  });
});
