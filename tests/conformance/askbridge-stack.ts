/**
 * askbridge as a person runs it, for the conformance suite: the daemon as a
 * real process (`askbridge start`), a project wired by `askbridge install` (the
 * http hook, or the command hook) or by hand with the settings example, the
 * CLI, a paired Chromium page, and the Claude
 * Code client either in tmux (claude-tmux.ts) or as an SDK host runs it
 * (`claude -p` with stream-json on stdin and stdout).
 *
 * Everything started here is stopped by its own stop(); a detached watchdog
 * also stops it if the test process dies without running its cleanup.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { AskView } from '../../src/protocol.js';
import { HOOK_SCRIPT, REPO_ROOT, baseEnv } from '../stack/env.js';
import { sleep, waitUntil } from '../stack/clock.js';
import { runCli, stopProcess, whenExited } from '../stack/processes.js';
import { startDaemon, type Daemon, type StartDaemonOptions } from '../stack/daemon.js';
import { launchBrowser, openPairedPage } from '../stack/browser.js';
import { DUMMY_API_KEY } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { installedClaude } from './client.js';

const execFileAsync = promisify(execFile);

const SETTINGS_EXAMPLE = join(REPO_ROOT, '.claude', 'settings.example.json');

/**
 * A detached shell that, once this test process is gone without cleaning up
 * (a worker killed by a signal skips every handler), kills `pid` (if given)
 * and removes `dir`. It ends by itself when `dir` has been removed.
 */
function startWatchdog(dir: string, pid?: number): void {
  const script = ['while kill -0 "$1" 2>/dev/null && [ -d "$3" ]; do sleep 1; done', '[ -d "$3" ] || exit 0', '[ "$2" = 0 ] || kill -9 "$2" 2>/dev/null', 'rm -rf "$3"'].join('; ');
  const child = spawn('/bin/sh', ['-c', script, 'askbridge-conformance-watchdog', String(process.pid), String(pid ?? 0), dir], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  child.unref();
}

// ---------------------------------------------------------------------------------------------
// The Claude Code client under test

export interface ClaudeUnderTest {
  bin: string;
  /** What `claude --version` printed, e.g. `2.1.330 (Claude Code)`. */
  versionLine: string;
  /** The version number from that line. */
  version: string;
  /** The version the suite must run: the pinned one, or the one installed for CLAUDE_CODE_VERSION. */
  expectedVersion: string;
  /** How it was chosen, for the test output. */
  origin: string;
}

/**
 * The pinned client, or, with CLAUDE_CODE_VERSION set (a version or a dist-tag such as
 * `latest`), that version; either installed by scripts/conformance-client.mjs (client.ts).
 */
export async function resolveClaudeUnderTest(requested = process.env.CLAUDE_CODE_VERSION): Promise<ClaudeUnderTest> {
  const spec = requested?.trim() || undefined;
  const installed = await installedClaude(spec);
  const origin = `${spec ? `CLAUDE_CODE_VERSION=${spec}` : 'pinned'}: ${installed.version} in ${installed.dir}`;
  const { stdout } = await execFileAsync(installed.bin, ['--version'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), DISABLE_AUTOUPDATER: '1' },
    timeout: 30_000,
  });
  const versionLine = stdout.trim();
  const version = /^(\S+)/.exec(versionLine)?.[1] ?? '';
  return { bin: installed.bin, versionLine, version, expectedVersion: installed.version, origin };
}

// ---------------------------------------------------------------------------------------------
// The daemon

/**
 * The end-to-end harness's daemon (`askbridge start`), watched from outside from the moment it
 * is spawned, so that a killed worker does not leave it running or its state directory behind.
 */
export function startAskbridgeDaemon(options: Omit<StartDaemonOptions, 'onSpawn'> = {}): Promise<Daemon> {
  return startDaemon({ ...options, onSpawn: (child, home) => startWatchdog(home, child.pid) });
}

/**
 * A folder of Claude Code transcripts that the daemon and every claude started with it share, as
 * when both run with one HOME: the daemon reads `$CLAUDE_CONFIG_DIR/projects` (pass `daemonEnv` to
 * startAskbridgeDaemon), each claude writes there through a link (startClaude's `projectsDir`).
 * The daemon reads a session's transcript only inside that folder (to see an approval answered in
 * the terminal, and a question's context).
 */
export async function sharedTranscripts(): Promise<{ projectsDir: string; daemonEnv: Record<string, string>; remove(): Promise<void> }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-transcripts-')));
  startWatchdog(root);
  const projectsDir = join(root, 'projects');
  await mkdir(projectsDir);
  return { projectsDir, daemonEnv: { CLAUDE_CONFIG_DIR: root }, remove: () => rm(root, { recursive: true, force: true }) };
}

/** What the hook needs to find `daemon`; passed to claude, which passes it to its hooks. */
export function hookEnvOf(daemon: Daemon): Record<string, string> {
  return { ASKBRIDGE_HOME: daemon.home };
}

/** What failed, with claude's screen and the end of the daemon's output. */
export async function withScene(daemon: Daemon, claude: ClaudeSession, error: unknown): Promise<Error> {
  const screen = await claude.screen().catch(() => '(no screen)');
  const { stdout, stderr } = daemon.output();
  return new Error(`${String(error)}\nScreen:\n${screen}\nDaemon output (end):\n${stdout.slice(-3000)}\n--- daemon stderr\n${stderr.slice(-1500)}`);
}

/** The pending ask of the project in `cwd` that `match` picks, once `daemon` shows it. */
export async function pendingAskIn(daemon: Daemon, claude: ClaudeSession, cwd: string, what: string, match: (ask: AskView) => boolean, timeoutMs = 30_000): Promise<AskView> {
  try {
    return await waitUntil(async () => (await daemon.pending()).find((ask) => ask.cwd === cwd && match(ask)), timeoutMs, what);
  } catch (error) {
    throw await withScene(daemon, claude, error);
  }
}

/** The pending approval of the project in `cwd` for `toolName` (and, if given, this command). */
export function pendingApprovalIn(daemon: Daemon, claude: ClaudeSession, cwd: string, toolName: string, command?: string): Promise<AskView> {
  return pendingAskIn(
    daemon,
    claude,
    cwd,
    `a pending ${toolName} approval${command ? ` for \`${command}\`` : ''}`,
    (ask) => ask.approval?.toolName === toolName && (command === undefined || ask.approval.toolInput.command === command),
  );
}

// ---------------------------------------------------------------------------------------------
// A project wired as docs/claude-code.md says

export interface Project {
  dir: string;
  /** What `askbridge install` printed, when it wired the project. */
  installed?: { stdout: string; stderr: string };
  remove(): Promise<void>;
}

/**
 * How the project's hook is wired:
 * - `install`: `askbridge install --project DIR` as a person runs it, for the Claude Code under test
 *   (`--claude`): the http hook, with the hook key and port of `daemon`, and the SessionStart hook;
 * - `install-command`: the same with `--hook command`: the command hook;
 * - `install-default`: `askbridge install --project DIR` with no `--hook`, the transport a newcomer
 *   gets: the command hook, since no systemd socket holds the daemon's port (install is run where it
 *   cannot reach a user's systemd, so a machine with askbridge's service installed gets it too);
 * - `example`: the hook file and .claude/settings.example.json copied in, as docs/claude-code.md describes
 *   wiring by hand (the command hook);
 * - `none`: nothing (the plugin, loaded with --plugin-dir, brings the hook; or no hook at all).
 */
export type HookWiring = 'install' | 'install-command' | 'install-default' | 'example' | 'none';

export interface ProjectOptions {
  /** Written to .claude/askbridge.json and trusted with the real `askbridge trust` (a project's config applies only once trusted). */
  config?: Record<string, unknown>;
  hooks?: HookWiring;
  /** The daemon the project's hooks reach: install reads its hook key and port, trust its state directory. */
  daemon?: Daemon;
  /** The Claude Code that install asks for its version. */
  claudeBin?: string;
  /** More arguments for `askbridge install` (`--no-approvals`, `--no-turn-ends`). */
  installArgs?: string[];
}

export async function createProject(options: ProjectOptions = {}): Promise<Project> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-project-')));
  startWatchdog(root);
  const dir = join(root, 'shop');
  await mkdir(join(dir, '.claude'), { recursive: true });
  const wiring = options.hooks ?? 'install';
  let installOutput: Project['installed'];
  if (wiring === 'example') {
    await mkdir(join(dir, 'hooks'), { recursive: true });
    await copyFile(HOOK_SCRIPT, join(dir, 'hooks', 'askbridge-hook.cjs'));
    await copyFile(SETTINGS_EXAMPLE, join(dir, '.claude', 'settings.json'));
  } else if (wiring === 'install' || wiring === 'install-command' || wiring === 'install-default') {
    if (!options.daemon) throw new Error('install wires the hook to a daemon: pass it');
    // The http hook by name: without a systemd socket holding the port, install picks the command hook.
    const hook = wiring === 'install-default' ? [] : ['--hook', wiring === 'install-command' ? 'command' : 'http'];
    const args = ['install', '--project', dir, ...hook, ...(options.claudeBin ? ['--claude', options.claudeBin] : []), ...(options.installArgs ?? [])];
    const env = baseEnv({ HOME: root, ...hookEnvOf(options.daemon) });
    // A newcomer has no askbridge service: without the user's bus, `systemctl --user` finds none here either.
    if (wiring === 'install-default') for (const name of ['XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS']) delete env[name];
    const installed = await runCli(args, env);
    if (installed.code !== 0) throw new Error(`askbridge install failed: ${installed.stderr}`);
    installOutput = { stdout: installed.stdout, stderr: installed.stderr };
  }
  if (options.config) {
    await writeFile(join(dir, '.claude', 'askbridge.json'), JSON.stringify(options.config, null, 2));
    if (!options.daemon) throw new Error('a project config applies only once trusted: pass the daemon to trust it in');
    const trusted = await runCli(['trust', dir], baseEnv(hookEnvOf(options.daemon)));
    if (trusted.code !== 0) throw new Error(`askbridge trust failed: ${trusted.stderr}`);
  }
  return { dir, ...(installOutput ? { installed: installOutput } : {}), remove: () => rm(root, { recursive: true, force: true }) };
}

/** The project's settings.local.json, as install wrote it, changed by `edit` (a test's own twist on it). */
export async function editLocalSettings(project: Project, edit: (settings: { hooks: Record<string, Array<{ hooks: Array<Record<string, unknown>> }>> }) => void): Promise<void> {
  const local = join(project.dir, '.claude', 'settings.local.json');
  const settings = JSON.parse(await readFile(local, 'utf8')) as Parameters<typeof edit>[0];
  edit(settings);
  await writeFile(local, JSON.stringify(settings, null, 2));
}

// ---------------------------------------------------------------------------------------------
// The answer page in Chromium

export interface AnswerPage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The card of one tool call. */
  card(askId: string): Locator;
  /** The fieldset of the index-th question of a card. */
  question(askId: string, index: number): Locator;
  /**
   * Wall-clock times (Date.now() in the page) at which each card's data-status
   * changed, recorded by a MutationObserver in the page.
   */
  statusChanges(askId: string): Promise<Array<{ status: string; at: number }>>;
  /** Every ask the page ever showed (an inbox row or a card, waiting or finished), by id, in the order first shown. */
  shownAsks(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Records, in the page, when each card's data-status changes (read back by statusChanges()), and
 * every ask it ever shows (read back by shownAsks()), even one that left at once.
 */
async function recordStatusChanges(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const changes: Array<{ id: string; status: string; at: number }> = [];
    const shown: string[] = [];
    (window as unknown as { __statusChanges: typeof changes; __shownAsks: typeof shown }).__statusChanges = changes;
    (window as unknown as { __shownAsks: typeof shown }).__shownAsks = shown;
    const noteShown = (el: Element) => {
      for (const each of [el, ...el.querySelectorAll('[data-ask-id], [data-question-id]')]) {
        const id = each.getAttribute('data-ask-id') ?? each.getAttribute('data-question-id');
        if (id !== null && !shown.includes(id)) shown.push(id);
      }
    };
    const observer = new MutationObserver((records) => {
      for (const record of records) {
        for (const added of record.addedNodes) if (added instanceof Element) noteShown(added);
        // A card's status changes in place, or a finished card replaces the set that was in focus.
        const cards = record.type === 'attributes' ? [record.target] : [...record.addedNodes];
        for (const el of cards) {
          if (!(el instanceof Element) || !el.hasAttribute('data-question-id') || !el.hasAttribute('data-status')) continue;
          if (record.type === 'childList' && el.getAttribute('data-status') === 'pending') continue;
          changes.push({ id: el.getAttribute('data-question-id') ?? '', status: el.getAttribute('data-status') ?? '', at: Date.now() });
        }
      }
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
}

/** Chromium (the end-to-end harness's launch) with a page paired through the link `daemon` printed at start. */
export async function openAnswerPage(daemon: Daemon): Promise<AnswerPage> {
  // Playwright puts the profile and artifacts folders in os.tmpdir(), and a killed test process
  // leaves them behind; launched with TMPDIR pointing into a watched folder, they go with it.
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-browser-')));
  startWatchdog(root);
  const savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  } finally {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
  }
  const close = async (): Promise<void> => {
    await browser.close().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
  try {
    const { context, page } = await openPairedPage(browser, daemon, { pairingUrl: daemon.pairingUrl, beforeNavigate: recordStatusChanges, liveTimeoutMs: 15_000 });
    return {
      browser,
      context,
      page,
      card: (id) => page.locator(`[data-question-id="${id}"]`),
      question: (id, index) => page.locator(`[data-question-id="${id}"] fieldset[data-question-index="${index}"]`),
      statusChanges: (id) =>
        page.evaluate((askId) => {
          const all = (window as unknown as { __statusChanges: Array<{ id: string; status: string; at: number }> }).__statusChanges;
          return all.filter((change) => change.id === askId).map(({ status, at }) => ({ status, at }));
        }, id),
      shownAsks: () => page.evaluate(() => [...(window as unknown as { __shownAsks: string[] }).__shownAsks]),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Claude Code as an SDK host runs it

export interface SdkSession {
  readonly pid: number;
  /** Every JSON line claude printed on stdout so far. */
  readonly messages: Array<Record<string, unknown>>;
  stderr(): string;
  /** Writes one stream-json line on claude's stdin. */
  send(message: Record<string, unknown>): void;
  waitForMessage(match: (message: Record<string, unknown>) => boolean, timeoutMs: number, what: string): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export interface StartSdkOptions {
  bin: string;
  baseUrl: string;
  projectDir: string;
  env?: Record<string, string>;
}

/**
 * `claude -p --input-format stream-json --output-format stream-json --verbose
 * --permission-prompt-tool stdio` as a child process, the way the Agent SDK
 * runs it: messages in on stdin, events out on stdout, one JSON per line.
 */
export async function startSdkSession(options: StartSdkOptions): Promise<SdkSession> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'askbridge-conformance-sdk-')));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  await mkdir(join(root, 'tmp'), { recursive: true });
  await writeFile(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [DUMMY_API_KEY.slice(-20)], rejected: [] },
      projects: { [options.projectDir]: { hasTrustDialogAccepted: true } },
    }),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: join(root, 'tmp'),
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: DUMMY_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...options.env,
  };
  const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-prompt-tool', 'stdio'];
  const child = spawn(options.bin, args, { cwd: options.projectDir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${options.bin}`);
  startWatchdog(root, child.pid);
  const messages: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (!line) continue;
      try {
        messages.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        messages.push({ type: '(not json)', line });
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => undefined);
  let stopped = false;
  return {
    pid: child.pid,
    messages,
    stderr: () => stderr,
    send(message) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    waitForMessage(match, timeoutMs, what) {
      return waitUntil(
        () => {
          const found = messages.find(match);
          if (found) return found;
          if (child.exitCode !== null) throw new Error(`claude exited (${child.exitCode}) before ${what}; stderr: ${stderr.slice(-2000)}`);
          return undefined;
        },
        timeoutMs,
        what,
      );
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      child.stdin.end();
      const gone = await Promise.race([whenExited(child).then(() => true), sleep(3_000).then(() => false)]);
      if (!gone) await stopProcess(child, 2_000);
      await rm(root, { recursive: true, force: true });
    },
  };
}
