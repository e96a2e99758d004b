/**
 * Runs the real Codex CLI interactively inside tmux, against a local mock of its model API
 * (fake-responses.ts), so conformance tests see what a person at the terminal sees: its hooks, its
 * approval dialog, its status line.
 *
 * setUpCodex() makes one CODEX_HOME for a test file (its config.toml points Codex at the mock,
 * trusts the project folder, and asks for approvals outside a read-only sandbox), with askbridge's
 * hook installed by the real `askbridge install --codex --user`. Each case then starts its own codex
 * in tmux with startCodex(), in that home, with the environment its hooks get. Codex's shared
 * app-server daemon is turned off (`features.daemon_auto_start = false`): the TUI runs its own,
 * so hooks are its children, get its environment, and nothing outlives the case. With
 * `{ sharedAppServer: true }` it stays on, as plain `codex` has it: the first TUI starts the shared
 * app-server, whose children the hooks are, with that TUI's environment; it outlives the TUIs and
 * is stopped by remove().
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { baseEnv, REPO_ROOT } from '../stack/env.js';
import { runCli } from '../stack/processes.js';
import { startFakeResponses, type FakeResponses } from './fake-responses.js';
import { isProcessAlive } from '../../src/state-dir.js';

const execFileAsync = promisify(execFile);
const TMUX_BIN = existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux';

/** The pinned Codex CLI (package.json config.codexVersion), as scripts/conformance-client.mjs installs it. */
export function installedCodex(): { bin: string; version: string } {
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { config: { codexVersion: string } }).config.codexVersion;
  const bin = join(REPO_ROOT, '.cache', 'codex', version, 'node_modules', '.bin', 'codex');
  if (!existsSync(bin)) throw new Error(`Codex ${version} is not installed: node scripts/conformance-client.mjs codex`);
  return { bin, version };
}

/** What a test file shares: the mock model, one CODEX_HOME with askbridge's hook installed and trusted, one project folder. */
export interface CodexSetup {
  readonly codex: { bin: string; version: string };
  readonly model: FakeResponses;
  readonly codexHome: string;
  readonly projectDir: string;
  /** What `askbridge install --codex --user` printed. */
  readonly installed: { stdout: string; stderr: string };
  remove(): Promise<void>;
}

/**
 * The mock model, a CODEX_HOME and a project, and askbridge's hook installed for the user as a
 * person does it (`askbridge install --codex --user`), with `askbridgeEnv` (ASKBRIDGE_HOME: the
 * daemon whose page the hook's status message names).
 */
export async function setUpCodex(askbridgeEnv: NodeJS.ProcessEnv, { sharedAppServer = false } = {}): Promise<CodexSetup> {
  const codex = installedCodex();
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-codex-')));
  const codexHome = join(root, 'codex-home');
  const projectDir = join(root, 'project');
  await mkdir(codexHome);
  await mkdir(projectDir);
  const model = await startFakeResponses([]);
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
    ...(sharedAppServer ? [] : ['[features]', 'daemon_auto_start = false', '']),
  ].join('\n');
  await writeFile(join(codexHome, 'config.toml'), config);
  const installed = await runCli(['install', '--codex', '--user'], baseEnv({ ...askbridgeEnv, HOME: root, CODEX_HOME: codexHome }));
  if (installed.code !== 0) throw new Error(`askbridge install --codex failed: ${installed.stderr}`);
  return {
    codex,
    model,
    codexHome,
    projectDir,
    installed: { stdout: installed.stdout, stderr: installed.stderr },
    remove: async () => {
      if (sharedAppServer) stopAppServer(codex.bin, codexHome);
      await model.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Codex's shared app-server outlives its TUI: stopped as Codex stops it, then whatever of it is left by its pid files, and its sockets (links out of CODEX_HOME). */
export function stopAppServer(bin: string, codexHome: string): void {
  spawnSync(bin, ['app-server', 'daemon', 'stop'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: codexHome, CODEX_HOME: codexHome }, stdio: 'ignore', timeout: 5_000 });
  const daemonDir = join(codexHome, 'app-server-daemon');
  for (const name of existsSync(daemonDir) ? readdirSync(daemonDir).filter((file) => file.endsWith('.pid')) : []) {
    try {
      const { pid } = JSON.parse(readFileSync(join(daemonDir, name), 'utf8')) as { pid?: unknown };
      if (typeof pid === 'number') process.kill(pid, 'SIGKILL');
    } catch {
      // gone already, or never written whole
    }
  }
  for (const link of [join(codexHome, 'app-server-control', 'app-server-control.sock'), join(daemonDir, 'daemon-updater.sock')]) {
    try {
      const target = readlinkSync(link);
      rmSync(target, { force: true });
      rmSync(`${target}.lock`, { force: true });
    } catch {
      // no link
    }
  }
}

export type CodexKey = 'Enter' | 'Escape' | 'C-c' | 'Down';

export interface CodexSession {
  readonly pid: number;
  /** Types a prompt until the composer shows it (keys typed while the TUI connects are lost), then Enter until the model gets the turn. */
  submit(text: string): Promise<void>;
  pressKey(key: CodexKey): Promise<void>;
  /** The visible pane, trailing blanks trimmed. */
  screen(): Promise<string>;
  /** Polls the pane until it matches; returns that screen, or rejects with the last one. */
  waitForScreen(expected: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Kills tmux and codex. Safe to call twice. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A detached shell that kills the tmux server and codex once this test process is gone without stopping them. */
function startWatchdog(socketPath: string, pid: number, dir: string): void {
  const script = ['while kill -0 "$1" 2>/dev/null && [ -d "$4" ]; do sleep 1; done', '[ -d "$4" ] || exit 0', '"$5" -S "$2" kill-server 2>/dev/null', 'sleep 2', 'kill -9 "$3" 2>/dev/null', 'rm -rf "$4"'].join('; ');
  spawn('/bin/sh', ['-c', script, 'askbridge-codex-watchdog', String(process.pid), socketPath, String(pid), dir, TMUX_BIN], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  }).unref();
}

/** Starts codex in tmux in the setup's home and project, with `env` for it and its hooks, and waits for its composer. */
export async function startCodex(setup: CodexSetup, env: Record<string, string>): Promise<CodexSession> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-codex-tmux-')));
  const socketPath = join(dir, 'tmux.sock');
  await writeFile(join(dir, 'tmux.conf'), 'set -g remain-on-exit on\nset -g history-limit 5000\n');
  const tmuxEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TERM: 'xterm-256color' };
  const tmux = async (args: string[]) => (await execFileAsync(TMUX_BIN, ['-S', socketPath, ...args], { encoding: 'utf8', env: tmuxEnv })).stdout;
  const codexEnv: Record<string, string> = {
    ...tmuxEnv,
    HOME: join(dir, 'home'),
    CODEX_HOME: setup.codexHome,
    SHELL: existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh',
    ...env,
  };
  await mkdir(codexEnv.HOME!, { recursive: true });
  // `env -i`: codex gets exactly this environment, whatever the tmux server inherited.
  const command = ['env', '-i', ...Object.entries(codexEnv).map(([name, value]) => `${name}=${value}`), setup.codex.bin];
  await execFileAsync(TMUX_BIN, ['-S', socketPath, '-f', join(dir, 'tmux.conf'), 'new-session', '-d', '-s', 'codex', '-x', '200', '-y', '50', '-c', setup.projectDir, ...command], { env: tmuxEnv });
  const pid = Number.parseInt((await tmux(['display-message', '-p', '-t', 'codex', '#{pane_pid}'])).trim(), 10);
  startWatchdog(socketPath, pid, dir);
  let stopped = false;

  const session: CodexSession = {
    pid,
    async submit(text) {
      const before = setup.model.requests.length;
      const deadline = Date.now() + 30_000;
      while (!(await session.screen()).includes(`› ${text}`)) {
        if (Date.now() >= deadline) throw new Error(`submit: the composer never showed the prompt. Screen:\n${await session.screen()}`);
        await tmux(['send-keys', '-t', 'codex', 'C-u']);
        await tmux(['send-keys', '-t', 'codex', '-l', '--', text]);
        await sleep(500);
      }
      while (setup.model.requests.length === before) {
        if (Date.now() >= deadline) throw new Error(`submit: the model never got the prompt. Screen:\n${await session.screen()}`);
        // Enter again only while the prompt still waits in the composer: then nothing was sent.
        if ((await session.screen()).includes(`› ${text}`)) await tmux(['send-keys', '-t', 'codex', 'Enter']);
        await sleep(1_000);
      }
    },
    async pressKey(key) {
      await tmux(['send-keys', '-t', 'codex', key]);
    },
    async screen() {
      const raw = await tmux(['capture-pane', '-p', '-t', 'codex']);
      return raw
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n')
        .trimEnd();
    },
    async waitForScreen(expected, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const last = await session.screen().catch((error: unknown) => `(capture-pane failed: ${String(error)})`);
        if (typeof expected === 'string' ? last.includes(expected) : expected.test(last)) return last;
        if (Date.now() >= deadline) throw new Error(`waitForScreen: ${String(expected)} not shown within ${timeoutMs} ms. Last screen:\n${last}`);
        await sleep(200);
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await tmux(['kill-server']).catch(() => undefined);
      const deadline = Date.now() + 5_000;
      while (isProcessAlive(pid) && Date.now() < deadline) await sleep(100);
      if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
      spawnSync(TMUX_BIN, ['-S', socketPath, 'kill-server'], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await session.waitForScreen(/^› /m, 60_000);
  } catch (error) {
    await session.stop();
    throw error;
  }
  return session;
}
