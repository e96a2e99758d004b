/**
 * askbridge carrying an MCP server's elicitation, against the real Claude Code client.
 *
 * The fake model calls a tool of elicit-server.ts (MCP server `forms`, on the official SDK), which
 * asks Claude Code for input; Claude Code's Elicitation hook is askbridge's http entry, as install
 * writes it, posting to a real daemon. A form answered through the API reaches the server with
 * exactly those values; with nobody reachable, askbridge lets go at once and Claude Code's own
 * dialog asks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { elicitationEntry } from '../../src/claude-settings.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon, type StartDaemonOptions } from '../stack/daemon.js';
import { pendingElicitation, respond } from '../stack/elicitations.js';
import { startClaude, type ClaudeSession } from './claude-tmux.js';
import { ALL_KINDS_MESSAGE, ONE_CHOICE_MESSAGE, elicitServerCommand, type ElicitLogLine } from './elicit-server.js';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';

/** Claude Code's own form dialog. */
const FORM_DIALOG = /MCP server “forms” requests your input/;

let cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
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

type Run = { daemon: Daemon; fake: FakeAnthropic; claude: ClaudeSession; serverLines(): ElicitLogLine[] };

/** A daemon, and Claude Code in tmux wired to it for Elicitation (the http entry install writes), the model calling `tool` once. */
async function startRun(tool: 'form_all_kinds' | 'form_one_choice', daemonOptions: StartDaemonOptions = {}): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-elicitation-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const daemon = await startDaemon(daemonOptions);
  cleanups.push(() => daemon.stop());
  const serverLog = join(dir, 'server.jsonl');
  const mcpConfig = join(dir, 'mcp.json');
  await writeFile(mcpConfig, JSON.stringify({ mcpServers: { forms: { ...elicitServerCommand(), env: { ELICIT_LOG: serverLog } } } }));
  const entry = elicitationEntry({ transport: 'http', url: daemon.url, key: daemon.hookKey() }, 'Waiting for an answer in askbridge');
  const fake = await startFakeAnthropic({ steps: [{ tool: `mcp__forms__${tool}`, input: {} }, { text: 'Nothing more to do.' }], finalText: 'Nothing more to do.' });
  cleanups.push(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    settings: { permissions: { allow: ['mcp__forms'] }, hooks: { Elicitation: [{ hooks: [entry] }] } },
    args: ['--permission-mode', 'default', '--mcp-config', mcpConfig, '--strict-mcp-config'],
  });
  cleanups.push(() => claude.stop());
  await waitUntil(() => (readJsonLines<ElicitLogLine>(serverLog).some((line) => line.initialized) ? true : undefined), 30_000, 'the forms server to be initialized');
  return { daemon, fake, claude, serverLines: () => readJsonLines<ElicitLogLine>(serverLog).filter((line) => !line.initialized) };
}

async function prompt(run: Run, text: string): Promise<void> {
  const before = run.fake.mainRequests.length;
  await run.claude.submit(text, { accepted: () => run.fake.mainRequests.length > before });
}

describe('MCP elicitation through askbridge, in Claude Code', () => {
  it('a form answered through the API reaches the MCP server with exactly those values, its types kept', async () => {
    const run = await startRun('form_all_kinds');
    await prompt(run, 'Fill in the form.');
    const sessionId = await waitUntil(async () => (await run.daemon.pending()).find((ask) => ask.elicitation)?.sessionId, 30_000, 'the form to wait in askbridge');
    const view = await pendingElicitation(run.daemon, sessionId);
    expect(view.elicitation).toMatchObject({ server: 'forms', message: ALL_KINDS_MESSAGE, mode: 'form' });
    // Claude Code shows no dialog while askbridge holds it.
    await run.claude.waitForScreen(/Waiting for an answer in askbridge/, 15_000);

    const content = { email: 'ops@example.test', homepage: 'https://example.test', start: '2026-12-01', deadline: '2026-12-24T10:00:00Z', code: 'XYZ', budget: 12.75, replicas: 3, confirm: true, environment: 'production', region: 'us-east', features: ['logs', 'traces'] };
    // A value that does not fit is refused, and nothing reaches the server.
    const refused = await respond(run.daemon, view.id, { action: 'accept', content: { ...content, replicas: 3.5 } });
    expect(refused.status).toBe(400);
    expect(run.serverLines()).toEqual([]);

    expect((await respond(run.daemon, view.id, { action: 'accept', content })).status).toBe(200);
    const result = await waitUntil(() => run.fake.stepResult(0), 30_000, 'the tool result');
    expect(run.serverLines()).toEqual([{ tool: 'form_all_kinds', action: 'accept', content }]);
    expect(result.text).toBe(JSON.stringify({ tool: 'form_all_kinds', action: 'accept', content }));
  });

  it("with nobody reachable, askbridge lets go at once and Claude Code's own dialog asks", async () => {
    const run = await startRun('form_one_choice', { defaults: true });
    await prompt(run, 'Pick a color.');
    const screen = await run.claude.waitForScreen(FORM_DIALOG, 30_000);
    expect(screen).toContain(ONE_CHOICE_MESSAGE);
    const logged = await run.daemon.waitForLog((entry) => entry.msg === 'elicitation received');
    expect(logged).toMatchObject({ settled: 'nobody-reachable' });
    expect(await run.daemon.pending()).toEqual([]);
    await run.claude.pressKeyUntil('Escape', () => run.serverLines().length > 0);
    await waitUntil(() => run.fake.stepResult(0), 30_000, 'the tool result');
    expect(run.serverLines()).toEqual([{ tool: 'form_one_choice', action: 'cancel' }]);
  });
});
