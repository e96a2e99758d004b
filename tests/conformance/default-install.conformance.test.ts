/**
 * askbridge as a newcomer wires it, against the real Claude Code client: `askbridge install --project
 * DIR` with no `--hook`, which picks the command hook where no systemd socket holds the daemon's port
 * (here, always) and writes it for every event: PreToolUse, PermissionRequest, Stop,
 * UserPromptSubmit, Notification and SessionEnd.
 *
 * - While the person is away, a turn's end waits through the command hook and a reply continues
 *   Claude; back, a turn ends at once.
 * - With askbridge stopped, the command hook stays silent in the terminal, where an http hook to the
 *   same dead port shows Claude Code's hook errors (the control: why install never picks http alone).
 * - Claude Code's idle notification makes no ask while the person is not away, by either transport;
 *   while away it shows as a wait in the terminal.
 *
 * One daemon (a real `askbridge start`) serves the cases but the stopped one, which has its own. Each
 * case runs its own claude in tmux, in `--permission-mode default`, with the fake model playing
 * `steps`; the person uses the real CLI (`askbridge away on|off`, `reply`, `status`, `stop`).
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { HOOK_SCRIPT } from '../stack/env.js';
import { runCli } from '../stack/processes.js';
import { createProject, editLocalSettings, hookEnvOf, resolveClaudeUnderTest, sharedTranscripts, startAskbridgeDaemon } from './askbridge-stack.js';
import type { ClaudeUnderTest, HookWiring, Project } from './askbridge-stack.js';
import { startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { contentText, startFakeAnthropic } from './fake-anthropic.js';
import type { FakeAnthropic, RecordedRequest, Step } from './fake-anthropic.js';
import { HookRecorder } from './hook-recorder.js';
import { DATABASE } from './questions.js';

// ---------------------------------------------------------------------------------------------
// What install writes, and what the model and the terminal read

/** The command every entry of the default install runs: this checkout's hook, by absolute path. */
const HOOK_COMMAND = `node '${HOOK_SCRIPT}'`;
/** The events the default install hands to that command. */
const COMMAND_EVENTS = ['PreToolUse', 'PermissionRequest', 'Stop', 'UserPromptSubmit', 'Notification', 'SessionEnd'] as const;

/** The reason askbridge's Stop hook blocks with (src/daemon/decisions/claude-code-stop.ts). */
const replyReason = (text: string): string =>
  `The person replied from askbridge (they are away from this terminal). Treat their reply as their next message to you:\n\n${text}`;
/** Claude Code's user message for a blocked stop. */
const feedback = (reason: string): string => `Stop hook feedback:\n${reason}`;
/** Claude Code's system message beside it, naming the hook that blocked. */
const blockingError = (hook: string, reason: string): string => `Stop hook blocking error from command: "${hook}": ${reason}`;

/** Claude Code's footer while a turn runs (its Stop hook included), and once it waits at its prompt. */
const RUNNING = 'esc to interrupt';
const AT_PROMPT = '? for shortcuts';

/** Claude Code's idle notification (2.1.330), as a Notification hook gets it. */
const IDLE_MESSAGE = 'Claude is waiting for your input';
/**
 * Claude Code's global config for the idle cases: the notification 2 s after a turn instead of 60,
 * rung as the terminal's bell. Claude Code rings it only once every Notification hook of that
 * notification has finished (observed: a hook that answered after 3 s held the bell 3 s), so a bell
 * means askbridge's hook is done with it too.
 */
const IDLE_CONFIG = { messageIdleNotifThresholdMs: 2_000, preferredNotifChannel: 'terminal_bell' };

/**
 * What a hook that failed, or askbridge complaining, looks like in Claude Code's terminal: `⎿
 * UserPromptSubmit hook failed`, `connect ECONNREFUSED 127.0.0.1:PORT`, the footer's `stop hook
 * problem`, `SessionEnd hook [URL] failed: ...`. Where these screens are taken (Claude at its prompt
 * or in its own dialog, or gone) askbridge has nothing to say at all: its status messages show only
 * while one of its hooks runs, and its name here is otherwise only in this harness's temporary paths.
 */
const ERROR_LINE = /hook (failed|error|problem)|ECONNREFUSED|askbridge(?!-conformance-)/i;

// ---------------------------------------------------------------------------------------------
// Shared daemon and client

let claudeCode: ClaudeUnderTest | undefined;
let daemon: Daemon;
let transcripts: Awaited<ReturnType<typeof sharedTranscripts>>;
let cleanups: Array<() => Promise<unknown>> = [];

function defer(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

function client(): ClaudeUnderTest {
  if (!claudeCode) throw new Error('the Claude Code client was not resolved');
  return claudeCode;
}

beforeAll(async () => {
  claudeCode = await resolveClaudeUnderTest();
  console.log(`Claude Code under test: ${claudeCode.versionLine} [${claudeCode.bin}; ${claudeCode.origin}]`);
  transcripts = await sharedTranscripts();
  daemon = await startAskbridgeDaemon({ env: transcripts.daemonEnv });
}, 300_000);

afterEach(async () => {
  // Back first: every turn end still held is let go, so claude stops at once when it is killed.
  await away(false).catch((error: unknown) => console.error('away off failed:', error));
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
});

afterAll(async () => {
  await daemon?.stop();
  await transcripts?.remove();
});

// ---------------------------------------------------------------------------------------------
// Helpers

interface Run {
  fake: FakeAnthropic;
  project: Project;
  claude: ClaudeSession;
  /** The daemon the project is wired to. */
  daemon: Daemon;
}

interface RunOptions {
  /** How install wires the project: by default as a newcomer gets it (no --hook). */
  hooks?: HookWiring;
  /** The daemon the project is wired to; the shared one unless set. */
  daemon?: Daemon;
  /** The project's own .claude/settings.json (hooks of the person's own). */
  settings?: unknown;
  /** More keys of Claude Code's global config (~/.claude.json). */
  globalConfig?: Record<string, unknown>;
  /** Runs once the project is wired, before claude starts. */
  prepare?: (project: Project) => Promise<void>;
}

/** A claude session in a fresh project wired by `askbridge install`, its model playing `steps`. */
async function startRun(steps: Step[], options: RunOptions = {}): Promise<Run> {
  const wiredTo = options.daemon ?? daemon;
  const project = await createProject({ daemon: wiredTo, claudeBin: client().bin, hooks: options.hooks ?? 'install-default' });
  defer(() => project.remove());
  await options.prepare?.(project);
  const fake = await startFakeAnthropic({ steps, finalText: 'Nothing more to do.' });
  defer(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    projectDir: project.dir,
    claudeBin: client().bin,
    env: hookEnvOf(wiredTo),
    args: ['--permission-mode', 'default'],
    projectsDir: transcripts.projectsDir,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.globalConfig === undefined ? {} : { globalConfig: options.globalConfig }),
  });
  defer(() => claude.stop());
  return { fake, project, claude, daemon: wiredTo };
}

/** Types a prompt; accepted once the model got a new main request. Returns that request. */
async function prompt(run: Run, text: string): Promise<RecordedRequest> {
  const before = run.fake.mainRequests.length;
  await run.claude.submit(text, { accepted: () => run.fake.mainRequests.length > before });
  const request = run.fake.mainRequests[before];
  if (!request) throw new Error('no model request for the prompt');
  return request;
}

/** `askbridge away on|off`, as a person runs it. */
async function away(on: boolean, of: Daemon = daemon): Promise<void> {
  const cli = await runCli(['away', on ? 'on' : 'off'], of.env);
  if (cli.code !== 0) throw new Error(`askbridge away ${on ? 'on' : 'off'} exited ${cli.code}: ${cli.stderr}`);
}

/** `askbridge reply SESSION TEXT` or `askbridge reply SESSION --done`, as a person runs it; what it printed. */
async function reply(turnEnd: AskView, text: string | { done: true }): Promise<string> {
  const args = ['reply', turnEnd.sessionId, ...(typeof text === 'string' ? [text] : ['--done'])];
  const cli = await runCli(args, daemon.env);
  expect(cli.code, `askbridge ${args.join(' ')}: ${cli.stderr}`).toBe(0);
  return cli.stdout.trim();
}

/** How many asks `askbridge status` says are pending. */
async function pendingCount(): Promise<number> {
  const cli = await runCli(['status', '--json'], daemon.env);
  expect(cli.code, `askbridge status --json: ${cli.stderr}`).toBe(0);
  return (JSON.parse(cli.stdout) as { pending: number }).pending;
}

/** What failed, with the screen and the end of the daemon's output. */
async function withScene(run: Run, error: unknown): Promise<Error> {
  const screen = await run.claude.screen().catch(() => '(no screen)');
  const { stdout, stderr } = run.daemon.output();
  return new Error(`${String(error)}\nScreen:\n${screen}\nModel requests: ${run.fake.describeRequests()}\nDaemon output (end):\n${stdout.slice(-3000)}\n--- daemon stderr\n${stderr.slice(-1500)}`);
}

/** The pending asks of this run's project. */
async function pendingOf(run: Run): Promise<AskView[]> {
  return (await daemon.pending()).filter((ask) => ask.cwd === run.project.dir);
}

/** The pending ask of this run's project that `match` picks, once askbridge shows it. */
async function pendingAsk(run: Run, what: string, match: (ask: AskView) => boolean, timeoutMs = 30_000): Promise<AskView> {
  try {
    return await waitUntil(async () => (await pendingOf(run)).find(match), timeoutMs, what);
  } catch (error) {
    throw await withScene(run, error);
  }
}

/** The pending turn end of this run's project whose last message is `lastMessage`. */
function pendingTurnEnd(run: Run, lastMessage: string): Promise<AskView> {
  return pendingAsk(run, `a pending turn end after "${lastMessage}"`, (ask) => ask.turnEnd?.lastMessage === lastMessage);
}

/** The ask once it is no longer pending. */
async function settled(run: Run, id: string, timeoutMs = 15_000): Promise<AskView> {
  try {
    return await waitUntil(async () => {
      const ask = await daemon.ask(id);
      return ask.status === 'pending' ? undefined : ask;
    }, timeoutMs, `ask ${id} to settle`);
  } catch (error) {
    throw await withScene(run, error);
  }
}

/** Waits until a main request beyond the first `count` has arrived; returns it. */
async function mainRequestAfter(run: Run, count: number, timeoutMs = 15_000): Promise<RecordedRequest> {
  try {
    return await waitUntil(() => run.fake.mainRequests[count], timeoutMs, `model request #${count + 1}`);
  } catch (error) {
    throw await withScene(run, error);
  }
}

/** Claude Code back at its prompt: its footer no longer offers to interrupt. Returns when that was seen (Date.now()). */
async function atPrompt(run: Run, timeoutMs = 15_000): Promise<number> {
  try {
    return await waitUntil(
      async () => {
        const screen = await run.claude.screen();
        return screen.includes(AT_PROMPT) && !screen.includes(RUNNING) ? Date.now() : undefined;
      },
      timeoutMs,
      'claude back at its prompt',
      10,
    );
  } catch (error) {
    throw await withScene(run, error);
  }
}

/** The messages of a model request, each with its role and its text. */
function messagesOf(request: RecordedRequest): Array<{ role: string; text: string }> {
  const body = request.body as { messages?: Array<{ role?: unknown; content?: unknown }> } | undefined;
  return (body?.messages ?? []).map((message) => ({ role: String(message.role), text: contentText(message.content) }));
}

/** The text of the last user message of a model request. */
function lastUserText(request: RecordedRequest): string | undefined {
  return messagesOf(request)
    .filter((message) => message.role === 'user')
    .at(-1)?.text;
}

type HookEntry = { type: string; command?: string; url?: string; statusMessage?: string; timeout?: number };

/** The project's settings.local.json hooks, as `askbridge install` wrote them: each event's entries. */
async function installedEntries(project: Project): Promise<Record<string, HookEntry[]>> {
  const settings = JSON.parse(await readFile(join(project.dir, '.claude', 'settings.local.json'), 'utf8')) as {
    hooks: Record<string, Array<{ matcher?: string; hooks: HookEntry[] }>>;
  };
  return Object.fromEntries(Object.entries(settings.hooks).map(([event, groups]) => [event, groups.flatMap((group) => group.hooks)]));
}

/** The lines of this run's transcripts (claude writes them into the shared folder). */
async function transcriptLines(run: Run): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  for (const slug of await readdir(transcripts.projectsDir)) {
    for (const name of await readdir(join(transcripts.projectsDir, slug))) {
      if (!name.endsWith('.jsonl')) continue;
      const text = await readFile(join(transcripts.projectsDir, slug, name), 'utf8');
      // Claude Code may be appending a line as it is read: only whole lines (ended by a newline) count.
      for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
        if (line.trim() === '') continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.cwd === run.project.dir) lines.push(parsed);
      }
    }
  }
  return lines;
}

type StopHookSummary = { hookCount: number; hookErrors: string[]; hasOutput: boolean; preventedContinuation: boolean };

/**
 * What Claude Code wrote in the transcript each time its Stop hooks had all finished (a
 * `stop_hook_summary` line): the block reasons or failures it got (`hookErrors`), and whether a
 * hook answered anything at all. Waits until there are `count`.
 */
async function stopHookSummaries(run: Run, count: number): Promise<StopHookSummary[]> {
  const read = async (): Promise<StopHookSummary[]> =>
    (await transcriptLines(run))
      .filter((line) => line.type === 'system' && line.subtype === 'stop_hook_summary')
      .map((line) => ({
        hookCount: Number(line.hookCount),
        hookErrors: line.hookErrors as string[],
        hasOutput: line.hasOutput === true,
        preventedContinuation: line.preventedContinuation === true,
      }));
  try {
    return await waitUntil(async () => {
      const summaries = await read();
      return summaries.length >= count ? summaries : undefined;
    }, 10_000, `${count} Stop hook summaries in the transcript`);
  } catch (error) {
    throw await withScene(run, error);
  }
}

/** The lines of a screen that show a hook failing or askbridge complaining. */
function errorLines(screen: string): string[] {
  return screen
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => ERROR_LINE.test(line));
}

/** The screen without its blank lines and rules (for the test output). */
function compact(screen: string): string {
  return screen
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^─+$/.test(line.trim()))
    .join('\n');
}

/** Whether the process has exited: gone, or a zombie its tmux pane has not reaped yet. */
function hasExited(pid: number): boolean {
  try {
    return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return true; // ps exits 1 when there is no such process
  }
}

/** `/exit` typed at Claude Code's prompt; resolves once claude has exited, with the pane as it was left. */
async function exitClaude(run: Run): Promise<string> {
  await run.claude.type('/exit');
  await run.claude.waitForScreen('Exit the CLI', 10_000);
  await run.claude.pressKey('Enter');
  try {
    await waitUntil(() => (hasExited(run.claude.pid) ? true : undefined), 15_000, 'claude to exit');
  } catch (error) {
    throw await withScene(run, error);
  }
  return run.claude.scrollback();
}

/** Waits until the terminal has rung its bell `count` times in all. */
async function bellsRung(run: Run, count: number, timeoutMs = 15_000): Promise<void> {
  try {
    await waitUntil(async () => ((await run.claude.bells()) >= count ? true : undefined), timeoutMs, `bell #${count} in the terminal`, 50);
  } catch (error) {
    throw await withScene(run, error);
  }
}

/** A daemon of this case's own, wired into the project, then stopped with `askbridge stop` (its state directory stays). */
async function startDaemonToStop(): Promise<Daemon> {
  const own = await startAskbridgeDaemon();
  defer(() => own.stop());
  own.expectExit();
  return own;
}

async function stopDaemon(own: Daemon): Promise<void> {
  const stop = await runCli(['stop'], own.env);
  expect(stop.code, stop.stderr).toBe(0);
  await waitUntil(() => (own.running() ? undefined : true), 10_000, 'the stopped daemon to exit');
}

/**
 * The project wired to a daemon that is then stopped. Its SessionStart entry goes, since it would
 * start the daemon again: this is askbridge down while sessions run (stopped, crashed, upgrading),
 * with every entry that hands it an event still in place.
 */
function stopAfterInstall(own: Daemon, options: { away: boolean }): (project: Project) => Promise<void> {
  return async (project) => {
    await editLocalSettings(project, (settings) => delete settings.hooks.SessionStart);
    if (options.away) await away(true, own);
    await stopDaemon(own);
  };
}

// ---------------------------------------------------------------------------------------------

describe('the default install (`askbridge install --project DIR`, no --hook) against the real client', () => {
  it('1. picks the command hook for every event; away, a turn end waits and `askbridge reply` continues Claude with Stop hook feedback; back (away off), the next turn ends at once with no ask', async () => {
    const lastMessage = 'Done: migration written, tests pass. Shall I also backfill?';
    const text = 'Yes, backfill the last 30 days';
    const backfilled = 'Backfilled the last 30 days.';
    const later = 'Nothing else changed.';
    const run = await startRun([{ text: lastMessage }, { text: backfilled }, { text: later }]);

    // What install wrote: the command hook, and no http entry, for every event askbridge takes.
    expect(run.project.installed?.stderr).toContain('installing the command hook, not the http hook: no service holds port');
    expect(run.project.installed?.stdout).toContain('askbridge hook (command) installed in');
    const entries = await installedEntries(run.project);
    console.log(`case 1, install wrote: ${Object.entries(entries).map(([event, hooks]) => `${event}: ${hooks.map((hook) => hook.type).join(', ')}`).join('; ')}`);
    for (const event of COMMAND_EVENTS) expect(entries[event], event).toEqual([expect.objectContaining({ type: 'command', command: HOOK_COMMAND })]);
    expect(Object.values(entries).flat().filter((hook) => hook.type !== 'command')).toEqual([]);
    const stopEntry = entries.Stop?.[0];
    if (!stopEntry?.statusMessage) throw new Error('the Stop entry has no status message');

    await away(true);
    await prompt(run, 'Write the migration.');
    const turnEnd = await pendingTurnEnd(run, lastMessage);
    expect(turnEnd.turnEnd).toEqual({ lastMessage, repliesInARow: 0, replyLimit: 8 });
    expect(turnEnd.questions).toEqual([]);
    // While it holds, the spinner shows the Stop entry's status message, and the turn still runs.
    const held = await run.claude.waitForScreen(`${stopEntry.statusMessage}…`, 10_000);
    expect(held).toContain(RUNNING);

    const requestsBefore = run.fake.mainRequests.length;
    const repliedAt = Date.now();
    expect(await reply(turnEnd, text)).toBe('replied: Claude goes on');
    expect(await daemon.ask(turnEnd.id)).toMatchObject({ status: 'replied', reply: text, source: { kind: 'person', client: 'cli' } });
    // The model's next request carries the reply as Stop hook feedback, blocked by the command hook.
    const continued = await mainRequestAfter(run, requestsBefore);
    const reason = replyReason(text);
    expect(lastUserText(continued)).toBe(feedback(reason));
    // Beside it Claude Code names the hook that blocked: a command hook by its status message (observed
    // on 2.1.330; an http one by its URL), so the command line, this machine's path, stays out of the model's context.
    expect(messagesOf(continued).map((message) => message.text)).toContain(blockingError(stopEntry.statusMessage, reason));
    expect(JSON.stringify(continued.body)).not.toContain(HOOK_SCRIPT);
    console.log(`case 1, the model's next request came ${continued.receivedAt - repliedAt} ms after \`askbridge reply\` started; its last user message:\n${lastUserText(continued)}`);

    // Claude ended its turn again: held again, one reply in a row. Back, it is let go and Claude stops.
    const second = await pendingTurnEnd(run, backfilled);
    expect(second.turnEnd).toEqual({ lastMessage: backfilled, repliesInARow: 1, replyLimit: 8 });
    await away(false);
    expect(await settled(run, second.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'back' } });
    await atPrompt(run);

    // Not away: the next turn ends at once. The command hook leaves without asking the daemon.
    const asked = await prompt(run, 'Anything else?');
    await run.claude.waitForScreen(later, 10_000);
    const backAt = await atPrompt(run);
    console.log(`case 1, not away: from the model's final answer to the prompt back: ${backAt - asked.receivedAt} ms`);
    expect(backAt - asked.receivedAt).toBeLessThan(5_000);
    // Claude Code's record of its Stop hooks (written once they have all finished): the reply, then
    // two turn ends with no decision (let go by away off, then not held at all).
    const noDecision = { hookCount: 1, hookErrors: [], hasOutput: false, preventedContinuation: false };
    expect(await stopHookSummaries(run, 3)).toEqual([{ hookCount: 1, hookErrors: [reason], hasOutput: true, preventedContinuation: false }, noDecision, noDecision]);
    expect(await pendingOf(run)).toEqual([]);
    const lines = (await daemon.history()).filter((line) => line.project === run.project.dir);
    expect(lines.map((line) => [line.status, line.turnEnd?.said])).toEqual([
      ['replied', lastMessage],
      ['handed-to-terminal', backfilled],
    ]);
    expect(run.fake.mainRequests.map(lastUserText)).toEqual([expect.stringContaining('Write the migration.'), feedback(reason), expect.stringContaining('Anything else?')]);
    console.log(`case 1, the terminal at the end:\n${compact(await run.claude.screen())}`);
  });

  for (const [label, awayWhenStopped] of [
    ['not away', false],
    ['away when it stopped: every entry tries the dead daemon', true],
  ] as const) {
    it(`2. askbridge stopped (${label}): a prompt, a turn end, Claude Code's own AskUserQuestion dialog and /exit show no hook error`, async () => {
      const stopped = await startDaemonToStop();
      const run = await startRun([{ text: 'Hello back.' }, { tool: 'AskUserQuestion', input: DATABASE }, { text: 'Going with Postgres.' }], {
        daemon: stopped,
        prepare: stopAfterInstall(stopped, { away: awayWhenStopped }),
      });
      const screens: Array<[string, string]> = [];

      // UserPromptSubmit, then Stop.
      await prompt(run, 'Hello');
      await run.claude.waitForScreen('Hello back.', 10_000);
      await atPrompt(run);
      screens.push(['after a prompt and a turn end', await run.claude.scrollback()]);
      // Claude Code ran the Stop hook, and it said nothing.
      expect(await stopHookSummaries(run, 1)).toEqual([{ hookCount: 1, hookErrors: [], hasOutput: false, preventedContinuation: false }]);

      // PreToolUse (and PermissionRequest): Claude Code's own dialog, answered in the terminal.
      await prompt(run, 'Pick a database.');
      screens.push(['with the AskUserQuestion dialog', await run.claude.waitForScreen(/Which database should we use\?[\s\S]*Enter to select/, 20_000)]);
      await run.claude.pressKeyUntil('Enter', () => run.fake.stepResult(1) !== undefined);
      expect(await run.fake.waitForStepResult(1, 10_000)).toMatchObject({
        isError: false,
        text: 'Your questions have been answered: "Which database should we use?"="Postgres". You can now continue with these answers in mind.',
      });
      await run.claude.waitForScreen('Going with Postgres.', 10_000);
      await atPrompt(run);
      screens.push(['after the answer and the turn end', await run.claude.scrollback()]);

      // SessionEnd: what stays in the pane once claude has exited.
      screens.push(['after /exit (the pane once claude exited)', await exitClaude(run)]);
      expect(screens.at(-1)?.[1]).toContain('Resume this session with:');

      for (const [when, screen] of screens) {
        console.log(`case 2 (${label}), ${when}:\n${compact(screen)}`);
        expect(errorLines(screen), when).toEqual([]);
      }
      expect(await stopHookSummaries(run, 2)).toEqual([1, 2].map(() => ({ hookCount: 1, hookErrors: [], hasOutput: false, preventedContinuation: false })));
      // Nothing started askbridge again meanwhile: every hook met a stopped daemon.
      const status = await runCli(['status'], stopped.env);
      expect(status.code, status.stdout).toBe(1);
    });
  }

  it('2c. control: wired with --hook http to the same stopped daemon, Claude Code shows "UserPromptSubmit hook failed" and the rest (why install never picks http without a service holding the port)', async () => {
    const stopped = await startDaemonToStop();
    const run = await startRun([{ text: 'Hello back.' }], { daemon: stopped, hooks: 'install', prepare: stopAfterInstall(stopped, { away: false }) });
    const refused = `connect ECONNREFUSED 127.0.0.1:${stopped.port}`;

    await prompt(run, 'Hello');
    await run.claude.waitForScreen('Hello back.', 10_000);
    await atPrompt(run);
    const afterTurn = await run.claude.scrollback();
    console.log(`case 2c, after a prompt and a turn end:\n${compact(afterTurn)}`);
    // (Claude Code puts a no-break space after its `⎿`.)
    expect(errorLines(afterTurn)).toEqual([expect.stringMatching(/^⎿\s+UserPromptSubmit hook failed$/), refused, expect.stringMatching(/^⎿\s+Stop hook failed$/), refused, 'stop hook problem · ctrl+o to see']);
    expect((await stopHookSummaries(run, 1))[0]?.hookErrors).toEqual([expect.stringContaining(refused)]);

    const afterExit = await exitClaude(run);
    console.log(`case 2c, after /exit:\n${compact(afterExit)}`);
    expect(errorLines(afterExit)).toEqual([`SessionEnd hook [http://127.0.0.1:${stopped.port}/api/hook/session-end] failed: ${refused}`]);
  });

  for (const [label, hooks] of [
    ['the default install: command hook', 'install-default'],
    ['--hook http', 'install'],
  ] as const) {
    it(`3. Claude Code's idle notification (${label}): not away it makes no ask; away, a wait in the terminal`, async () => {
      // The person's own Notification hook records every notification: proof that it fired.
      const t0 = Date.now();
      const recorder = new HookRecorder(undefined, t0);
      await recorder.start();
      defer(() => recorder.close());
      const run = await startRun([{ text: 'First answer.' }, { text: 'Second answer.' }], { hooks, settings: recorder.settings(['Notification']), globalConfig: IDLE_CONFIG });
      expect((await installedEntries(run.project)).Notification).toEqual([expect.objectContaining({ type: hooks === 'install' ? 'http' : 'command' })]);
      const idleNotifications = () => recorder.of('Notification').filter((call) => call.body.notification_type === 'idle_prompt');

      // No key from the turn's end on: Claude Code sends no idle notification after the person typed.
      const answered = await prompt(run, 'First question?');
      await run.claude.waitForScreen('First answer.', 10_000);
      const idle = await recorder.waitFor('Notification', 15_000, (call) => call.body.notification_type === 'idle_prompt');
      expect(idle.body).toMatchObject({ hook_event_name: 'Notification', message: IDLE_MESSAGE, cwd: run.project.dir });
      const sessionId = String(idle.body.session_id);
      // The bell: every Notification hook, askbridge's included, has finished with it.
      await bellsRung(run, 1);
      console.log(`case 3 (${label}), not away: the idle notification reached the recorder ${t0 + idle.at - answered.receivedAt} ms after the model's answer, the bell was seen ${Date.now() - t0 - idle.at} ms after that`);
      expect((await daemon.pending()).filter((ask) => ask.sessionId === sessionId)).toEqual([]);
      expect(await pendingCount()).toBe(0);
      expect(idleNotifications()).toHaveLength(1);

      // Away: the next turn's end waits; once Claude stops, its idle notification is a wait in the terminal.
      await away(true);
      await prompt(run, 'Second question?');
      const turnEnd = await pendingTurnEnd(run, 'Second answer.');
      expect(turnEnd.sessionId).toBe(sessionId);
      expect(await reply(turnEnd, { done: true })).toBe('done: Claude stops');
      const doneAt = Date.now();
      const wait = await pendingAsk(run, 'the idle notification as a wait in the terminal', (ask) => ask.terminalWait !== undefined);
      console.log(`case 3 (${label}), the wait in the terminal opened ${wait.createdAt - doneAt} ms after Done`);
      expect(wait).toMatchObject({ sessionId, terminalWait: { kind: 'idle_prompt', message: IDLE_MESSAGE }, questions: [] });
      expect(await pendingCount()).toBe(1);
      await bellsRung(run, 2);
      expect(idleNotifications()).toHaveLength(2);

      // The session ends: its wait in the terminal goes with it.
      const screen = await exitClaude(run);
      const ended = await settled(run, wait.id);
      console.log(`case 3 (${label}), after /exit the wait in the terminal is ${ended.status} (${JSON.stringify(ended.source)})`);
      expect(ended.status).toBe('cancelled');
      expect(errorLines(screen)).toEqual([]);
      expect(await pendingCount()).toBe(0);
    });
  }
});
