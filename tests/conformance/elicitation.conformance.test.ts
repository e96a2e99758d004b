/**
 * askbridge carrying an MCP server's elicitation, against the real Claude Code client.
 *
 * The fake model calls a tool of elicit-server.ts (MCP server `forms`, on the official SDK), which
 * asks Claude Code for input; Claude Code's Elicitation hook is askbridge's http entry, as install
 * writes it, posting to a real daemon, and a paired page in a real Chromium answers. A form of every
 * field kind filled in on the page reaches the server with exactly those values; Decline and Cancel
 * reach it as such; a URL request's Done is its accept; Esc in the terminal while askbridge holds a
 * request makes its card leave; with nobody reachable, askbridge lets go at once and Claude Code's
 * own dialog asks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { elicitationEntry } from '../../src/claude-settings.js';
import type { AskView } from '../../src/protocol.js';
import { launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon, type StartDaemonOptions } from '../stack/daemon.js';
import { sharedTranscripts } from './askbridge-stack.js';
import { startClaude, type ClaudeSession } from './claude-tmux.js';
import { ALL_KINDS_MESSAGE, ONE_CHOICE_MESSAGE, SIGNIN_MESSAGE, SIGNIN_URL, elicitServerCommand, type ElicitLogLine } from './elicit-server.js';
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

type Tool = 'form_all_kinds' | 'form_one_choice' | 'url_signin';
type Run = { daemon: Daemon; fake: FakeAnthropic; claude: ClaudeSession; serverLines(): ElicitLogLine[] };

/** A daemon, and Claude Code in tmux wired to it for Elicitation (the http entry install writes), the model calling each of `tools` in turn. */
async function startRun(tools: Tool[], daemonOptions: StartDaemonOptions = {}): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-elicitation-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  // The daemon reads the session's transcript (where Esc on a held request shows), as when both share a HOME.
  const transcripts = await sharedTranscripts();
  cleanups.push(() => transcripts.remove());
  const daemon = await startDaemon({ ...daemonOptions, env: { ...daemonOptions.env, ...transcripts.daemonEnv } });
  cleanups.push(() => daemon.stop());
  const serverLog = join(dir, 'server.jsonl');
  const mcpConfig = join(dir, 'mcp.json');
  await writeFile(mcpConfig, JSON.stringify({ mcpServers: { forms: { ...elicitServerCommand(), env: { ELICIT_LOG: serverLog } } } }));
  const entry = elicitationEntry({ transport: 'http', url: daemon.url, key: daemon.hookKey() }, 'Waiting for an answer in askbridge');
  const fake = await startFakeAnthropic({ steps: [...tools.map((tool) => ({ tool: `mcp__forms__${tool}`, input: {} })), { text: 'Nothing more to do.' }], finalText: 'Nothing more to do.' });
  cleanups.push(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    settings: { permissions: { allow: ['mcp__forms'] }, hooks: { Elicitation: [{ hooks: [entry] }] } },
    args: ['--permission-mode', 'default', '--mcp-config', mcpConfig, '--strict-mcp-config'],
    projectsDir: transcripts.projectsDir,
  });
  cleanups.push(() => claude.stop());
  await waitUntil(() => (readJsonLines<ElicitLogLine>(serverLog).some((line) => line.initialized) ? true : undefined), 30_000, 'the forms server to be initialized');
  return { daemon, fake, claude, serverLines: () => readJsonLines<ElicitLogLine>(serverLog).filter((line) => !line.initialized) };
}

async function prompt(run: Run, text: string): Promise<void> {
  const before = run.fake.mainRequests.length;
  await run.claude.submit(text, { accepted: () => run.fake.mainRequests.length > before });
}

/** A page paired with the run's daemon, in a real Chromium. */
async function pairPage(run: Run): Promise<PairedPage> {
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  return openPairedPage(browser, run.daemon);
}

/** The elicitation waiting in askbridge, once Claude Code's hook holds it (its spinner on screen), and its card on the page. */
async function heldOnPage(run: Run, paired: PairedPage, served: number): Promise<{ view: AskView; card: Locator }> {
  const view = await waitUntil(async () => (await run.daemon.pending()).find((ask) => ask.elicitation), 30_000, 'the request to wait in askbridge');
  // Claude Code shows no dialog while askbridge holds it.
  await run.claude.waitForScreen(/Waiting for an answer in askbridge/, 15_000);
  expect(run.serverLines()).toHaveLength(served);
  return { view, card: await openAsk(paired.page, view.id) };
}

const field = (card: Locator, name: string) => card.locator(`[data-field="${name}"]`);

describe('MCP elicitation through askbridge, in Claude Code', () => {
  it('a form of every field kind filled in on the page reaches the MCP server with exactly those values, its types kept', async () => {
    const run = await startRun(['form_all_kinds']);
    const paired = await pairPage(run);
    await prompt(run, 'Fill in the form.');
    const { view, card } = await heldOnPage(run, paired, 0);
    expect(view.elicitation).toMatchObject({ server: 'forms', message: ALL_KINDS_MESSAGE, mode: 'form' });
    expect(await card.locator('.elicit-server').textContent()).toBe('forms');

    await field(card, 'email').locator('input').fill('ops@example.test');
    await field(card, 'homepage').locator('input').fill('https://example.test');
    await field(card, 'start').locator('input').fill('2026-12-01');
    await field(card, 'deadline').locator('input').fill('2026-12-24T10:00:00');
    await field(card, 'budget').locator('input').fill('12.75');
    await field(card, 'replicas').locator('input').fill('3.5');
    await field(card, 'confirm').locator('input').check();
    await field(card, 'environment').getByLabel('production').check();
    await field(card, 'region').getByLabel('US (East)').check();
    await field(card, 'features').getByLabel('traces').check();
    // A value that does not fit is refused on the page, and nothing reaches the server.
    await card.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => field(card, 'replicas').locator('.q-error').textContent()).toBe('Replicas: must be a whole number');
    expect(await run.daemon.ask(view.id)).toMatchObject({ status: 'pending' });

    await field(card, 'replicas').locator('input').fill('3');
    const deadline = await paired.page.evaluate(() => new Date('2026-12-24T10:00:00').toISOString().replace(/\.000Z$/, 'Z'));
    await card.getByRole('button', { name: 'Accept' }).click();
    const result = await waitUntil(() => run.fake.stepResult(0), 30_000, 'the tool result');
    const content = { email: 'ops@example.test', homepage: 'https://example.test', start: '2026-12-01', deadline, code: 'ABC', budget: 12.75, replicas: 3, confirm: true, environment: 'production', region: 'us-east', features: ['logs', 'traces'] };
    expect(run.serverLines()).toEqual([{ tool: 'form_all_kinds', action: 'accept', content }]);
    expect(result.text).toBe(JSON.stringify({ tool: 'form_all_kinds', action: 'accept', content }));
  });

  it('Decline and Cancel on the page reach the MCP server as such', async () => {
    const run = await startRun(['form_one_choice', 'form_one_choice']);
    const paired = await pairPage(run);
    await prompt(run, 'Pick a color twice.');
    const first = await heldOnPage(run, paired, 0);
    expect(await first.card.textContent()).toContain(ONE_CHOICE_MESSAGE);
    await first.card.getByRole('button', { name: 'Decline' }).click();
    await waitUntil(() => run.fake.stepResult(0), 30_000, 'the first tool result');
    const second = await heldOnPage(run, paired, 1);
    await second.card.getByRole('button', { name: 'Cancel' }).click();
    await waitUntil(() => run.fake.stepResult(1), 30_000, 'the second tool result');
    expect(run.serverLines()).toEqual([
      { tool: 'form_one_choice', action: 'decline' },
      // Claude Code hands a cancel on with empty content.
      { tool: 'form_one_choice', action: 'cancel', content: {} },
    ]);
  });

  it('a URL request shows its exact host, and Done on the page is its accept', async () => {
    const run = await startRun(['url_signin']);
    const paired = await pairPage(run);
    await prompt(run, 'Sign in.');
    const { view, card } = await heldOnPage(run, paired, 0);
    expect(view.elicitation).toMatchObject({ mode: 'url', url: SIGNIN_URL, host: 'example.test', message: SIGNIN_MESSAGE });
    expect(await card.locator('.elicit-host strong').textContent()).toBe('example.test');
    await card.getByRole('button', { name: 'Done' }).click();
    await waitUntil(() => run.fake.stepResult(0), 30_000, 'the tool result');
    expect(run.serverLines()).toEqual([{ tool: 'url_signin', action: 'accept' }]);
  });

  it('Esc in the terminal while askbridge holds a form makes its card leave, and nothing more reaches the server', async () => {
    const run = await startRun(['form_one_choice']);
    const paired = await pairPage(run);
    await prompt(run, 'Pick a color.');
    const { view } = await heldOnPage(run, paired, 0);
    await run.claude.pressKey('Escape');
    // Claude Code keeps the hook's request open and tells the server the call is cancelled; its transcript says the call was interrupted.
    await waitUntil(() => (run.serverLines().some((line) => line.cancelled) ? true : undefined), 30_000, 'the server to learn the call was cancelled');
    const finished = paired.page.locator(`article.is-finished[data-question-id="${view.id}"]`);
    await expect.poll(() => finished.locator('.status-title').textContent(), { timeout: 15_000 }).toBe('Let go: the session moved on');
    expect(await run.daemon.ask(view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    expect(await run.daemon.pending()).toEqual([]);
    expect(run.serverLines()).toEqual([{ tool: 'form_one_choice', cancelled: true }]);
  });

  it("with nobody reachable, askbridge lets go at once and Claude Code's own dialog asks", async () => {
    const run = await startRun(['form_one_choice'], { defaults: true });
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
