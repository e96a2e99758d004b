// `askbridge mcp` through the official MCP SDK client, over stdio, as an agent runs it: the tool call
// waits for the person, whose answer comes from the real page in Chromium.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { baseEnv, CLI_BIN, REPO_ROOT, SCRIPTED_USER } from '../stack/env.js';
import { runCli } from '../stack/processes.js';

const chromium = chromiumAvailability();
if (!chromium.available && process.env.CI) throw new Error(`the answer page tests need Chromium: ${chromium.reason}`);

const DATABASE = {
  question: 'Which database should the service use?',
  header: 'Database',
  multiSelect: false,
  options: [
    { label: 'PostgreSQL (Recommended)', description: 'Relational, well known' },
    { label: 'SQLite', description: 'One file, embedded' },
  ],
};

let daemon: Daemon | undefined;
let browser: Browser | undefined;
const clients: Client[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  if (chromium.available) browser = await launchBrowser();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await daemon?.stop();
  daemon = undefined;
});
afterAll(async () => {
  await browser?.close();
});

/** The SDK's own client, running `askbridge mcp` as its stdio server. */
async function connect(env: NodeJS.ProcessEnv): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp'], env: env as Record<string, string>, cwd: REPO_ROOT, stderr: 'pipe' });
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('askbridge mcp', () => {
  it('lists ask_user with AskUserQuestion input, up to ten questions', async () => {
    daemon = await startDaemon();
    const client = await connect(daemon.env);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ask_user']);
    const questions = (tools[0]!.inputSchema.properties as Record<string, { maxItems?: number; items?: { required?: string[] } }>).questions!;
    expect(questions.maxItems).toBe(10);
    expect(questions.items?.required).toEqual(expect.arrayContaining(['question', 'options']));
  });

  it.skipIf(!chromium.available)('blocks until the person answers in the page, with progress meanwhile, and returns the answer in Claude Code wording', async () => {
    daemon = await startDaemon({ env: { ASKBRIDGE_TEST_PROGRESS_MS: '200' } });
    const client = await connect({ ...daemon.env, ASKBRIDGE_TEST_PROGRESS_MS: '200' });
    const { page, context } = await openPairedPage(browser!, daemon);
    cleanups.push(() => context.close());
    const progress: number[] = [];
    const call = client.callTool({ name: 'ask_user', arguments: { questions: [DATABASE] } }, undefined, { onprogress: (event) => progress.push(event.progress), resetTimeoutOnProgress: true });

    const question = await waitUntil(async () => (await daemon!.pending())[0], 10_000, 'the MCP question to wait in the daemon');
    expect(question.asker).toEqual({ kind: 'mcp', name: 'e2e-agent' });
    await waitUntil(() => (progress.length >= 2 ? true : undefined), 10_000, 'two progress notifications');
    const card = page.locator(`article[data-question-id="${question.id}"]`);
    await expect.poll(async () => card.locator('.meta-line').textContent()).toContain('asked by the MCP client e2e-agent');
    await card.getByRole('group', { name: DATABASE.question }).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const result = (await call) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: `Your questions have been answered: "${DATABASE.question}"="SQLite". You can now continue with these answers in mind.` }]);
    expect(result.structuredContent).toEqual({ message: (result.content[0] as { text: string }).text, status: 'answered', answers: { [DATABASE.question]: 'SQLite' }, notes: {}, answeredBy: 'person' });
  });

  it('says when the answer was chosen by the configuration, never passing a default off as the person\'s', async () => {
    daemon = await startDaemon({ config: { waitSeconds: 0, onTimeout: 'recommended' } });
    const client = await connect(daemon.env);
    const byPolicy = (await client.callTool({ name: 'ask_user', arguments: { questions: [DATABASE] } })) as CallToolResult;
    expect(byPolicy.structuredContent).toMatchObject({ status: 'answered', answeredBy: 'policy', answers: { [DATABASE.question]: 'PostgreSQL (Recommended)' } });
    expect((byPolicy.content[0] as { text: string }).text).toContain('chosen by the configured default, not by a person');
  });

  it('starts the daemon when it is not running', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-mcp-'));
    // Answered as a script does, polling `askbridge pending`, which does not watch: the question waits.
    await mkdir(join(home, 'config', 'askbridge'), { recursive: true });
    await writeFile(join(home, 'config', 'askbridge', 'config.json'), JSON.stringify(SCRIPTED_USER));
    const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: String(await freePort()), XDG_CONFIG_HOME: join(home, 'config') });
    cleanups.push(async () => {
      await runCli(['stop'], env);
      await rm(home, { recursive: true, force: true });
    });
    const client = await connect(env);
    const call = client.callTool({ name: 'ask_user', arguments: { questions: [DATABASE] } });
    const status = await waitUntil(async () => {
      const result = await runCli(['pending', '--json'], env);
      return result.code === 0 && JSON.parse(result.stdout).length === 1 ? JSON.parse(result.stdout)[0] : undefined;
    }, 20_000, 'the question in a daemon the MCP server started');
    expect((await runCli(['answer', status.id, '--pick', '1=2'], env)).code).toBe(0);
    expect(((await call) as CallToolResult).structuredContent).toMatchObject({ status: 'answered', answers: { [DATABASE.question]: 'SQLite' } });
  });

  it('returns a clear tool error at once, and no answer, when the daemon cannot be reached', async () => {
    const squatter: Server = createServer((_request, response) => response.end('not askbridge'));
    await new Promise<void>((listening) => squatter.listen(0, '127.0.0.1', listening));
    cleanups.push(() => new Promise((closed) => squatter.close(() => closed())));
    const home = await mkdtemp(join(tmpdir(), 'askbridge-mcp-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: String((squatter.address() as AddressInfo).port), XDG_CONFIG_HOME: join(home, 'no-config') });
    const client = await connect(env);
    const result = (await client.callTool({ name: 'ask_user', arguments: { questions: [DATABASE] } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^askbridge could not ask the user: .+\. No answer was given: do not assume one\.$/);
    expect(result.structuredContent).toBeUndefined();
  });

  it('refuses input that is not AskUserQuestion-shaped, naming the field', async () => {
    daemon = await startDaemon();
    const client = await connect(daemon.env);
    const result = (await client.callTool({ name: 'ask_user', arguments: { questions: [{ ...DATABASE, options: [DATABASE.options[0]] }] } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('options');
    expect(await daemon.pending()).toEqual([]);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}
