/**
 * Runs the real `claude` binary interactively inside tmux, so conformance
 * tests see exactly what a person at a terminal sees and the client behaves
 * as it does for them (hooks, dialogs, permission modes).
 *
 * Each session gets its own tmux server (its socket lives in the session's
 * temporary directory), HOME, TMPDIR and, unless given, project directory;
 * stop() removes all of them and makes sure the claude process is gone.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { installedClaude } from './client.js';
import { isProcessAlive } from '../../src/state-dir.js';

const execFileAsync = promisify(execFile);

const TMUX_BIN = existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux';

/** Never checked by the fake server; only its last 20 characters matter (they are pre-approved in .claude.json). */
export const DUMMY_API_KEY = 'askbridge-conformance-dummy-key-0000000000000000';

/** tmux key names accepted by pressKey. */
export type KeyName =
  | 'Enter'
  | 'Escape'
  | 'Up'
  | 'Down'
  | 'Left'
  | 'Right'
  | 'Tab'
  | 'BTab'
  | 'Space'
  | 'BSpace'
  | 'C-c'
  | 'C-d';

export interface StartClaudeOptions {
  /** Base URL of the fake model server (ANTHROPIC_BASE_URL). */
  baseUrl: string;
  /** An existing project directory to run in; by default a fresh temporary one that stop() removes. */
  projectDir?: string;
  /** Written as JSON to projectDir/.claude/settings.json (hooks go here). */
  settings?: unknown;
  /** Extra environment for claude and therefore for its hooks; wins over the defaults. */
  env?: Record<string, string>;
  /** Defaults to DUMMY_API_KEY. */
  apiKey?: string;
  /** Extra command-line arguments for claude. */
  args?: string[];
  /** Defaults to the pinned client (client.ts). */
  claudeBin?: string;
  /** How long to wait for the input prompt; default 60 s. */
  readyTimeoutMs?: number;
  columns?: number;
  rows?: number;
  /**
   * Makes `$HOME/.claude/projects` (where claude writes its transcripts) a link to this folder, so
   * that a daemon told to read transcripts there (CLAUDE_CONFIG_DIR) sees them, as when both share a HOME.
   */
  projectsDir?: string;
  /**
   * More keys of Claude Code's global config (`~/.claude.json`) over the seeded ones: say
   * `messageIdleNotifThresholdMs` (how long after a turn its idle notification fires; 60000 unless
   * set) or `preferredNotifChannel: 'terminal_bell'` (a notification rings the bell, counted by bells()).
   */
  globalConfig?: Record<string, unknown>;
}

export interface ClaudeSession {
  readonly projectDir: string;
  readonly homeDir: string;
  /** tmux socket path (`tmux -S <socketPath>`), one server per session. */
  readonly socketPath: string;
  readonly sessionName: string;
  /** The claude process (the pane runs it directly, so hooks see it as CLAUDE_PID). */
  readonly pid: number;
  /** Types literal text (no key names are interpreted). */
  type(text: string): Promise<void>;
  pressKey(key: KeyName): Promise<void>;
  /**
   * Presses a key, then again every retryMs (default 1.5 s) until done()
   * holds; rejects after timeoutMs (default 20 s). Dialogs drop keys that
   * arrive in their first few hundred milliseconds, so a key sent as soon as
   * a dialog is on screen is lost about half the time.
   */
  pressKeyUntil(key: KeyName, done: () => boolean | Promise<boolean>, options?: RetryOptions): Promise<void>;
  /**
   * Types a prompt, waits until it shows in the input box, presses Enter.
   * With `accepted` (e.g. "the fake server got a new main request"), presses
   * Enter once more if the first one was swallowed, and rejects if the prompt
   * is still not accepted within timeoutMs (default 20 s).
   */
  submit(text: string, options?: SubmitOptions): Promise<void>;
  /** The visible pane, trailing blanks trimmed. */
  screen(): Promise<string>;
  /** The pane's history and the visible pane together (everything still in tmux), trailing blanks trimmed. */
  scrollback(): Promise<string>;
  /**
   * How many times the terminal rang its bell so far. Claude Code rings it for a notification
   * (with `preferredNotifChannel: 'terminal_bell'`) once every Notification hook has finished.
   */
  bells(): Promise<number>;
  /** Polls the pane until it matches; returns that screen, or rejects with the last screen. */
  waitForScreen(expected: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Kills the tmux server and claude, removes temporary directories. Safe to call twice. */
  stop(): Promise<void>;
}

export interface RetryOptions {
  retryMs?: number;
  timeoutMs?: number;
}

export interface SubmitOptions {
  accepted?: () => boolean;
  timeoutMs?: number;
}

export interface HookEntryOptions {
  /** Seconds; Claude Code's default is 600. */
  timeout?: number;
  statusMessage?: string;
  /** Defaults to `AskUserQuestion`. */
  matcher?: string;
}

/** Project settings that register one PreToolUse command hook, as askbridge's settings example does. */
export function preToolUseHookSettings(command: string, options: HookEntryOptions = {}): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: 'command', command };
  if (options.timeout !== undefined) entry.timeout = options.timeout;
  if (options.statusMessage !== undefined) entry.statusMessage = options.statusMessage;
  return { hooks: { PreToolUse: [{ matcher: options.matcher ?? 'AskUserQuestion', hooks: [entry] }] } };
}

interface LiveSession {
  socketPath: string;
  pid: number | undefined;
  tempRoot: string;
}

const live = new Set<LiveSession>();

/** Synchronous so it can run from an 'exit' handler, when nothing async runs any more. */
function killSync(session: LiveSession): void {
  spawnSync(TMUX_BIN, ['-S', session.socketPath, 'kill-server'], { stdio: 'ignore' });
  if (session.pid !== undefined && isProcessAlive(session.pid)) {
    try {
      process.kill(session.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(session.tempRoot, { recursive: true, force: true });
  live.delete(session);
}

/**
 * A test runner may end its worker with a signal, which skips 'exit'
 * handlers, so a detached shell watches this process and cleans up the
 * session once it is gone. It ends by itself once stop() has removed the
 * temporary directory; it is not killed, since an orphaned `sleep` would
 * linger as a zombie where nothing reaps orphans.
 */
function startWatchdog(session: LiveSession, claudePid: number): void {
  const script = [
    'while kill -0 "$1" 2>/dev/null && [ -d "$4" ]; do sleep 1; done',
    '[ -d "$4" ] || exit 0',
    '"$5" -S "$2" kill-server 2>/dev/null',
    'sleep 2',
    'kill -9 "$3" 2>/dev/null',
    'rm -rf "$4"',
  ].join('; ');
  const child = spawn(
    '/bin/sh',
    ['-c', script, 'askbridge-conformance-watchdog', String(process.pid), session.socketPath, String(claudePid), session.tempRoot, TMUX_BIN],
    { detached: true, stdio: 'ignore', env: tmuxClientEnv() },
  );
  child.unref();
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A crashed or interrupted test run must not leave tmux servers or claude processes behind.
  process.on('exit', () => {
    for (const session of [...live]) killSync(session);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function tmux(socketPath: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(TMUX_BIN, ['-S', socketPath, ...args], { encoding: 'utf8', env: tmuxClientEnv() });
  return stdout;
}

/** The tmux client and server get a minimal environment, so nothing from the caller's shell leaks into claude. */
function tmuxClientEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TERM: 'xterm-256color' };
}

function seedClaudeJson(apiKey: string, projectDir: string, globalConfig: Record<string, unknown> = {}): Record<string, unknown> {
  // Without these, a fresh HOME stops at onboarding, the API key prompt and the trust dialog.
  return {
    ...globalConfig,
    hasCompletedOnboarding: true,
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    projects: { [projectDir]: { hasTrustDialogAccepted: true } },
  };
}

/** Starts claude in a detached tmux session and waits until its input prompt is shown. */
export async function startClaude(options: StartClaudeOptions): Promise<ClaudeSession> {
  const claudeBin = options.claudeBin ?? (await installedClaude()).bin;
  installExitHook();
  const tempRoot = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-')));
  // A socket of our own (not the user's default server) that goes away with the temp dir.
  const socketPath = join(tempRoot, 'tmux.sock');
  const sessionName = 'claude';
  const liveEntry: LiveSession = { socketPath, pid: undefined, tempRoot };
  live.add(liveEntry);

  try {
    const homeDir = join(tempRoot, 'home');
    const tmpDir = join(tempRoot, 'tmp');
    const projectDir = options.projectDir ? await realpath(options.projectDir) : join(tempRoot, 'project');
    await mkdir(homeDir, { recursive: true });
    await mkdir(tmpDir, { recursive: true });
    await mkdir(projectDir, { recursive: true });

    const apiKey = options.apiKey ?? DUMMY_API_KEY;
    await writeFile(join(homeDir, '.claude.json'), JSON.stringify(seedClaudeJson(apiKey, projectDir, options.globalConfig), null, 2));
    if (options.projectsDir !== undefined) {
      await mkdir(join(homeDir, '.claude'), { recursive: true });
      await symlink(options.projectsDir, join(homeDir, '.claude', 'projects'));
    }
    if (options.settings !== undefined) {
      await mkdir(join(projectDir, '.claude'), { recursive: true });
      await writeFile(join(projectDir, '.claude', 'settings.json'), JSON.stringify(options.settings, null, 2));
    }
    const tmuxConf = join(tempRoot, 'tmux.conf');
    // remain-on-exit keeps the last screen readable if claude exits or crashes early; @bells counts the bells the pane rings.
    await writeFile(tmuxConf, ['set -g remain-on-exit on', 'set -g history-limit 5000', 'set -g @bells 0', 'set-hook -g alert-bell "set -gF @bells \\"#{e|+:#{@bells},1}\\""', ''].join('\n'));

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: homeDir,
      TMPDIR: tmpDir,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      SHELL: existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh',
      ANTHROPIC_BASE_URL: options.baseUrl,
      ANTHROPIC_API_KEY: apiKey,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      ...options.env,
    };
    const columns = options.columns ?? 200;
    const rows = options.rows ?? 50;
    // `env -i` starts claude from exactly this environment, whatever the tmux server inherited.
    const command = ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), claudeBin, ...(options.args ?? [])];
    await execFileAsync(
      TMUX_BIN,
      ['-S', socketPath, '-f', tmuxConf, 'new-session', '-d', '-s', sessionName, '-x', String(columns), '-y', String(rows), '-c', projectDir, ...command],
      { env: tmuxClientEnv() },
    );
    const pidText = await tmux(socketPath, ['display-message', '-p', '-t', sessionName, '#{pane_pid}']);
    const pid = Number.parseInt(pidText.trim(), 10);
    if (!Number.isFinite(pid)) throw new Error(`startClaude: no pane pid from tmux (${JSON.stringify(pidText)})`);
    liveEntry.pid = pid;
    startWatchdog(liveEntry, pid);

    const target = `${sessionName}:0.0`;
    const session: ClaudeSession = {
      projectDir,
      homeDir,
      socketPath,
      sessionName,
      pid,
      async type(text: string): Promise<void> {
        // -l sends the text literally, so words like "Enter" are not taken as keys.
        await tmux(socketPath, ['send-keys', '-t', target, '-l', '--', text]);
      },
      async pressKey(key: KeyName): Promise<void> {
        await tmux(socketPath, ['send-keys', '-t', target, key]);
      },
      async pressKeyUntil(key: KeyName, done: () => boolean | Promise<boolean>, retry: RetryOptions = {}): Promise<void> {
        const retryMs = retry.retryMs ?? 1_500;
        const deadline = Date.now() + (retry.timeoutMs ?? 20_000);
        for (;;) {
          await session.pressKey(key);
          const next = Math.min(Date.now() + retryMs, deadline);
          while (Date.now() < next) {
            if (await done()) return;
            await sleep(100);
          }
          if (await done()) return;
          if (Date.now() >= deadline) {
            throw new Error(`pressKeyUntil: ${key} had no effect. Screen:\n${await session.screen().catch(() => '(no screen)')}`);
          }
        }
      },
      async submit(text: string, submitOptions: SubmitOptions = {}): Promise<void> {
        await session.type(text);
        await session.waitForScreen(text, 10_000);
        await session.pressKey('Enter');
        const accepted = submitOptions.accepted;
        if (!accepted) return;
        const deadline = Date.now() + (submitOptions.timeoutMs ?? 20_000);
        let retried = false;
        const retryAt = Date.now() + 5_000;
        while (!accepted()) {
          if (Date.now() >= deadline) {
            throw new Error(`submit: prompt not accepted. Screen:\n${await session.screen().catch(() => '(no screen)')}`);
          }
          // Enter right after typing can be taken as part of the paste. Pressing it
          // again is safe only while nothing was accepted: an empty input box
          // ignores Enter, and no dialog can be open before the request is sent.
          if (!retried && Date.now() >= retryAt) {
            retried = true;
            await session.pressKey('Enter');
          }
          await sleep(100);
        }
      },
      async screen(): Promise<string> {
        const raw = await tmux(socketPath, ['capture-pane', '-p', '-t', target]);
        return raw
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n')
          .trimEnd();
      },
      async scrollback(): Promise<string> {
        const raw = await tmux(socketPath, ['capture-pane', '-p', '-S', '-', '-t', target]);
        return raw
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n')
          .trimEnd();
      },
      async bells(): Promise<number> {
        return Number.parseInt((await tmux(socketPath, ['display-message', '-p', '-t', target, '#{@bells}'])).trim(), 10);
      },
      async waitForScreen(expected: RegExp | string, timeoutMs = 30_000): Promise<string> {
        const deadline = Date.now() + timeoutMs;
        let last = '';
        for (;;) {
          try {
            last = await session.screen();
          } catch (error) {
            last = `(capture-pane failed: ${String(error)})`;
          }
          const hit = typeof expected === 'string' ? last.includes(expected) : expected.test(last);
          if (hit) return last;
          if (Date.now() >= deadline) {
            throw new Error(`waitForScreen: ${String(expected)} not shown within ${timeoutMs} ms. Last screen:\n${last}`);
          }
          await sleep(200);
        }
      },
      async stop(): Promise<void> {
        if (!live.has(liveEntry)) return;
        await tmux(socketPath, ['kill-server']).catch(() => undefined);
        // claude outlives its pane for a moment after SIGHUP; wait, then force it.
        const pidToWait = liveEntry.pid;
        if (pidToWait !== undefined) {
          const deadline = Date.now() + 5_000;
          while (isProcessAlive(pidToWait) && Date.now() < deadline) await sleep(100);
        }
        killSync(liveEntry);
      },
    };

    await session.waitForScreen(/^❯/m, options.readyTimeoutMs ?? 60_000);
    return session;
  } catch (error) {
    killSync(liveEntry);
    throw error;
  }
}

/** Stops every session still running in this process (for afterAll hooks). */
export function stopAllClaudeSessions(): void {
  for (const session of [...live]) killSync(session);
}
