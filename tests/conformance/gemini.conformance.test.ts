/**
 * askbridge's MCP server (`askbridge mcp`) against the real Gemini CLI: Gemini's hooks can deny a
 * tool but not ask a person, so its way in is MCP. Each case registers askbridge in a fresh HOME with
 * Gemini's own command, as docs/agents.md says (`gemini mcp add --scope user --trust --timeout 3600000
 * askbridge askbridge mcp`, less what a case leaves out), runs the pinned Gemini CLI in tmux (or
 * headless) against the fake Gemini API (fake-gemini.ts), whose model calls askbridge's tool, and
 * answers through the daemon's API as the CLI and the page do. What the model read is checked word
 * for word.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withoutComments } from '../../src/cli/gemini-settings.js';
import { askbridgeCommand } from '../../src/command-name.js';
import type { AskView } from '../../src/protocol.js';
import { isProcessAlive } from '../../src/state-dir.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { CLI_BIN, REPO_ROOT } from '../stack/env.js';
import { runCli } from '../stack/processes.js';
import { startAskbridgeDaemon } from './askbridge-stack.js';
import { IDLE_TEXT, startFakeGemini } from './fake-gemini.js';
import type { FakeGemini } from './fake-gemini.js';
import { DATABASE } from './questions.js';

const execFileAsync = promisify(execFile);
const TMUX_BIN = existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux';

/** A model named outright: with the default (`auto`), Gemini CLI first asks a routing model to choose one. */
const MODEL = 'gemini-2.5-pro';
/** How Gemini CLI 0.61.0 names an MCP server's tool to its model: `mcp_<server>_<tool>`. */
const TOOL = 'mcp_askbridge_ask_user';
/** Gemini CLI's own name for askbridge's MCP client, which askbridge shows as the asker. */
const MCP_CLIENT = 'gemini-cli-mcp-client';
const QUESTION = DATABASE.questions[0]!.question;
/** Gemini CLI wraps an MCP tool's text in this before its model reads it. */
const untrusted = (text: string) => ({ output: `<untrusted_context>\n${text}\n</untrusted_context>` });

// ---------------------------------------------------------------------------------------------
// The Gemini CLI under test

let gemini: { bin: string };

beforeAll(async () => {
  // scripts/conformance-client.mjs installs the pinned version into .cache/gemini/<version>/ (at once when it is there).
  const { stdout } = await execFileAsync(process.execPath, [join(REPO_ROOT, 'scripts', 'conformance-client.mjs'), 'gemini'], { encoding: 'utf8', timeout: 280_000 });
  gemini = { bin: join(stdout.trim(), 'node_modules', '.bin', 'gemini') };
}, 300_000);

// ---------------------------------------------------------------------------------------------
// One case's world: a daemon, the fake model, a HOME where askbridge is registered, a terminal

let cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

interface GeminiHome {
  root: string;
  home: string;
  project: string;
  settingsFile: string;
  /** The environment Gemini runs in; its MCP servers get it too (less what it redacts). */
  env: Record<string, string>;
}

/** The user settings a Gemini CLI user with an API key has, before askbridge is registered (Gemini allows comments). */
const USER_SETTINGS = { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } };
const USER_COMMENT = '// my own settings';
/** A case drives two or three runs of Gemini on a machine that may be busy. */
const CASE_TIMEOUT_MS = 240_000;

/**
 * A fresh HOME with USER_SETTINGS (mode 0600), a project, and `askbridge` on PATH (a shim that runs
 * this build), for Gemini to talk to `fake` and for askbridge to find `daemon`.
 */
async function geminiHome(daemon: Daemon, fake: FakeGemini): Promise<GeminiHome> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-gemini-')));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const project = join(root, 'project');
  const bin = join(root, 'bin');
  await mkdir(join(home, '.gemini'), { recursive: true });
  await mkdir(project);
  await mkdir(bin);
  await writeFile(join(bin, 'askbridge'), `#!/bin/sh\nexec '${process.execPath}' '${CLI_BIN}' "$@"\n`);
  await chmod(join(bin, 'askbridge'), 0o755);
  const settingsFile = join(home, '.gemini', 'settings.json');
  await writeFile(settingsFile, `${USER_COMMENT}\n${JSON.stringify(USER_SETTINGS, null, 2)}\n`, { mode: 0o600 });
  const env: Record<string, string> = {
    PATH: `${bin}:${dirname(gemini.bin)}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
    GEMINI_API_KEY: 'askbridge-conformance-dummy-key',
    // What trusting the folder in Gemini's own dialog does: an untrusted folder runs no MCP server.
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // Gemini otherwise starts itself again with a larger heap: seconds per run, nothing askbridge sees.
    GEMINI_CLI_NO_RELAUNCH: 'true',
    ASKBRIDGE_HOME: daemon.home,
    XDG_CONFIG_HOME: daemon.env.XDG_CONFIG_HOME ?? join(root, 'no-config'),
    XDG_CACHE_HOME: daemon.env.XDG_CACHE_HOME ?? join(root, 'cache'),
  };
  return { root, home, project, settingsFile, env };
}

/** `gemini ARGS` in the project, to its end. */
function runGemini(where: GeminiHome, args: string[]) {
  return execFileAsync(gemini.bin, args, { cwd: where.project, env: where.env, encoding: 'utf8', timeout: 120_000 });
}

/** askbridge registered as docs/agents.md says, with Gemini's own command. */
async function registerAskbridge(where: GeminiHome, { trust }: { trust: boolean }): Promise<void> {
  await runGemini(where, ['mcp', 'add', '--scope', 'user', ...(trust ? ['--trust'] : []), '--timeout', '3600000', 'askbridge', 'askbridge', 'mcp']);
}

async function startWorld(config: Record<string, unknown> = {}): Promise<{ daemon: Daemon; fake: FakeGemini; where: GeminiHome }> {
  const daemon = await startAskbridgeDaemon({ config });
  cleanups.push(() => daemon.stop());
  const fake = await startFakeGemini({ functionName: TOOL, args: DATABASE, finalText: 'Going on with that.' });
  cleanups.push(() => fake.close());
  return { daemon, fake, where: await geminiHome(daemon, fake) };
}

interface Terminal {
  screen(): Promise<string>;
  waitForScreen(expected: string | RegExp, timeoutMs?: number): Promise<string>;
  type(text: string): Promise<void>;
  press(key: 'Enter' | 'Escape'): Promise<void>;
}

/** The interactive Gemini CLI in a tmux of its own (it offers MCP tools named ask_user only there: see the last case). */
async function startInteractiveGemini(where: GeminiHome): Promise<Terminal> {
  const socket = join(where.root, 'tmux.sock');
  const conf = join(where.root, 'tmux.conf');
  // remain-on-exit keeps the last screen readable if gemini exits early.
  await writeFile(conf, 'set -g remain-on-exit on\n');
  const tmux = async (args: string[]) => (await execFileAsync(TMUX_BIN, ['-S', socket, ...args], { encoding: 'utf8' })).stdout;
  // `env -i`: gemini starts from exactly this environment, whatever the tmux server inherited.
  const command = ['env', '-i', ...Object.entries(where.env).map(([name, value]) => `${name}=${value}`), gemini.bin, '--model', MODEL];
  await tmux(['-f', conf, 'new-session', '-d', '-s', 'gemini', '-x', '200', '-y', '50', '-c', where.project, ...command]);
  const pid = Number((await tmux(['display-message', '-p', '-t', 'gemini', '#{pane_pid}'])).trim());
  cleanups.push(async () => {
    await tmux(['kill-server']).catch(() => undefined);
    // Gemini writes into its HOME as it exits: that folder is removed only once it is gone.
    await waitUntil(() => (isProcessAlive(pid) ? undefined : true), 10_000, 'Gemini to exit', 100).catch(() => process.kill(pid, 'SIGKILL'));
  });
  const terminal: Terminal = {
    async screen() {
      return (await tmux(['capture-pane', '-p', '-t', 'gemini'])).trimEnd();
    },
    async waitForScreen(expected, timeoutMs = 30_000) {
      let last = '';
      try {
        return await waitUntil(
          async () => {
            last = await terminal.screen();
            return (typeof expected === 'string' ? last.includes(expected) : expected.test(last)) ? last : undefined;
          },
          timeoutMs,
          `${String(expected)} on Gemini's screen`,
          200,
        );
      } catch (error) {
        throw new Error(`${(error as Error).message}. Last screen:\n${last}`, { cause: error });
      }
    },
    async type(text) {
      await tmux(['send-keys', '-t', 'gemini', '-l', '--', text]);
    },
    async press(key) {
      await tmux(['send-keys', '-t', 'gemini', key]);
    },
  };
  await terminal.waitForScreen('Type your message', 120_000);
  return terminal;
}

/** Types the prompt and sends it once it shows; Gemini queues it until its MCP servers are up. */
async function submitPrompt(terminal: Terminal, fake: FakeGemini, text: string): Promise<void> {
  await terminal.type(text);
  await terminal.waitForScreen(text, 10_000);
  await terminal.press('Enter');
  await fake.waitForRequest((request) => request.main, 120_000, 'main request offering askbridge\'s tool');
}

async function waitForAsk(daemon: Daemon): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending())[0], 60_000, 'the question from Gemini in the daemon', 100);
}

describe(`Gemini CLI (pinned) through askbridge mcp`, () => {
  it('`gemini mcp add --scope user` registers askbridge in the user settings, keeping what was there, and doctor sees it', async () => {
    const { where } = await startWorld();
    const doctorEnv = { ...where.env, NO_COLOR: '1' };
    const before = JSON.parse((await runCli(['doctor', '--json', '--cwd', where.project], doctorEnv)).stdout) as { findings: Array<{ id: string; fix?: string }> };
    expect(before.findings.find((finding) => finding.id.startsWith('gemini-'))).toEqual(expect.objectContaining({ id: 'gemini-mcp-missing', fix: `gemini mcp add --scope user --trust --timeout 3600000 askbridge ${askbridgeCommand(doctorEnv)} mcp` }));

    await registerAskbridge(where, { trust: true });
    const text = await readFile(where.settingsFile, 'utf8');
    expect(text.startsWith(USER_COMMENT)).toBe(true);
    expect(JSON.parse(withoutComments(text))).toEqual({ ...USER_SETTINGS, mcpServers: { askbridge: { command: 'askbridge', args: ['mcp'], timeout: 3_600_000, trust: true } } });
    expect((await stat(where.settingsFile)).mode & 0o777).toBe(0o600);
    // Gemini starts `askbridge mcp` and lists its tools.
    const listed = await runGemini(where, ['mcp', 'list']);
    expect(listed.stdout + listed.stderr).toContain('askbridge: askbridge mcp (stdio) - Connected');
    const after = await runCli(['doctor', '--cwd', where.project], doctorEnv);
    expect(after.stdout).toContain(`✓ askbridge is registered with Gemini CLI as the MCP server "askbridge" in ${where.settingsFile}`);
    expect(after.stdout).not.toMatch(/gemini mcp (add|remove)/);
  }, CASE_TIMEOUT_MS);

  it('doctor warns of a registration Gemini would give up on after 10 minutes, and of settings it cannot read', async () => {
    const { where } = await startWorld();
    await runGemini(where, ['mcp', 'add', '--scope', 'user', 'askbridge', 'askbridge', 'mcp']);
    const doctor = async () => (JSON.parse((await runCli(['doctor', '--json', '--cwd', where.project], where.env)).stdout) as { findings: Array<{ id: string; level: string }> }).findings.filter((finding) => finding.id.startsWith('gemini-'));
    expect(await doctor()).toEqual([expect.objectContaining({ id: 'gemini-mcp-timeout-short', level: 'warning' }), expect.objectContaining({ id: 'gemini-mcp-untrusted', level: 'info' })]);

    await writeFile(where.settingsFile, '{"mcpServers": {"askbridge": ');
    expect(await doctor()).toEqual([expect.objectContaining({ id: 'gemini-settings-unparsable', level: 'warning' })]);
  }, CASE_TIMEOUT_MS);

  it('a question from Gemini\'s model waits in the daemon, named by its MCP client, and the person\'s answer is what the model reads', async () => {
    const { daemon, fake, where } = await startWorld();
    await registerAskbridge(where, { trust: true });
    const terminal = await startInteractiveGemini(where);
    await submitPrompt(terminal, fake, 'Set up the service storage.');
    const main = fake.requests.find((request) => request.main)!;
    expect(main.model).toBe(MODEL);

    const ask = await waitForAsk(daemon);
    expect(ask.asker).toEqual({ kind: 'mcp', name: MCP_CLIENT });
    expect(ask.questions).toEqual(DATABASE.questions);
    expect(ask.cwd).toBe(where.project);
    // Trusted: Gemini runs the tool without a confirmation of its own.
    expect(await terminal.screen()).not.toContain('Allow execution');

    const answered = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: QUESTION, selected: ['SQLite'] }] });
    expect(answered.status).toBe(200);
    const response = await fake.waitForFunctionResponse(30_000);
    expect(response.response).toEqual(untrusted(`Your questions have been answered: "${QUESTION}"="SQLite". You can now continue with these answers in mind.`));
    await terminal.waitForScreen('Going on with that.');
    expect((await daemon.history()).map((line) => [line.status, line.asker, line.answers])).toEqual([['answered', { kind: 'mcp', name: MCP_CLIENT }, { [QUESTION]: 'SQLite' }]]);
  }, CASE_TIMEOUT_MS);

  it('with nobody answering within the wait, the model reads askbridge\'s policy outcome and no invented answer', async () => {
    const { daemon, fake, where } = await startWorld({ waitSeconds: 3 });
    await registerAskbridge(where, { trust: true });
    const terminal = await startInteractiveGemini(where);
    await submitPrompt(terminal, fake, 'Set up the service storage.');
    const ask = await waitForAsk(daemon);
    expect(ask.asker).toEqual({ kind: 'mcp', name: MCP_CLIENT });

    const response = await fake.waitForFunctionResponse(30_000);
    expect(response.response).toEqual(untrusted('The user did not answer the questions (nobody answered in time). No answer was given: do not assume one.'));
    const [line] = await daemon.history();
    expect(line).toMatchObject({ id: ask.id, status: 'handed-to-terminal', source: 'expired' });
    expect(line?.answers).toBeUndefined();
    await terminal.waitForScreen('Going on with that.');
  }, CASE_TIMEOUT_MS);

  it('registered without --trust, Gemini asks in its own terminal before each call, and nothing reaches askbridge until allowed', async () => {
    const { daemon, fake, where } = await startWorld();
    await registerAskbridge(where, { trust: false });
    const terminal = await startInteractiveGemini(where);
    await submitPrompt(terminal, fake, 'Set up the service storage.');
    await terminal.waitForScreen('Allow execution of MCP tool "ask_user" from server "askbridge"?');
    expect(await daemon.pending()).toEqual([]);

    await terminal.press('Enter'); // 1. Allow once
    const ask = await waitForAsk(daemon);
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: QUESTION, selected: ['Postgres'] }] })).status).toBe(200);
    expect((await fake.waitForFunctionResponse(30_000)).response).toEqual(untrusted(`Your questions have been answered: "${QUESTION}"="Postgres". You can now continue with these answers in mind.`));
  }, CASE_TIMEOUT_MS);

  it('headless (`gemini -p`) offers the model no MCP tool named ask_user, not even a trusted one: Gemini drops its own ask_user there, by bare name', async () => {
    const { daemon, fake, where } = await startWorld();
    await registerAskbridge(where, { trust: true });
    const { stdout } = await runGemini(where, ['--model', MODEL, '-p', 'Set up the service storage.']);
    expect(stdout).toContain(IDLE_TEXT);
    const conversation = fake.requests.filter((request) => request.rpc === 'streamGenerateContent');
    expect(conversation.length).toBeGreaterThan(0);
    for (const request of conversation) expect(request.functions).not.toContain(TOOL);
    expect(await daemon.history()).toEqual([]);
  }, CASE_TIMEOUT_MS);
});
