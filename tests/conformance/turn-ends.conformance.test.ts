/**
 * askbridge's turn ends against the real Claude Code client: Claude Code's Stop hook held while the
 * person is away, replied to from askbridge, and let go by what happens in the terminal; and its
 * Notification hook for a permission dialog that waits in the terminal.
 *
 * One daemon (a real `askbridge start`) serves every case; each case runs its own claude in tmux in
 * a fresh project wired by the real `askbridge install` (which writes the Stop, UserPromptSubmit and
 * Notification entries beside the others), in `--permission-mode default`, with the fake model
 * playing `steps`. The person uses the real CLI: `askbridge away on|off`, `askbridge reply SESSION
 * TEXT | --done`. Every case checks what the model really received (the fake model's recorded
 * requests) and what the terminal shows (tmux capture).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { runCli } from '../stack/processes.js';
import { createProject, hookEnvOf, resolveClaudeUnderTest, sharedTranscripts, startAskbridgeDaemon } from './askbridge-stack.js';
import type { ClaudeUnderTest, Project } from './askbridge-stack.js';
import { startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { contentText, startFakeAnthropic } from './fake-anthropic.js';
import type { FakeAnthropic, RecordedRequest, Step } from './fake-anthropic.js';

// ---------------------------------------------------------------------------------------------
// What the model reads (askbridge's words, and Claude Code 2.1.330's own)

/** The reason askbridge's Stop hook blocks with (src/daemon/decisions/claude-code-stop.ts), as the model and the terminal get it. */
const replyReason = (text: string): string =>
  `The person replied from askbridge (they are away from this terminal). Treat their reply as their next message to you:\n\n${text}`;
/** Claude Code's user message for a blocked stop. */
const feedback = (reason: string): string => `Stop hook feedback:\n${reason}`;
/** Claude Code's system message beside it: the hook's URL goes into the model's context. */
const blockingError = (url: string, reason: string): string => `Stop hook blocking error from command: "${url}": ${reason}`;

const FIRST_PROMPT = 'Write the migration.';
const LAST_MESSAGE = 'Done: migration written, tests pass. Shall I also backfill?';
const REPLY = 'Yes, backfill the last 30 days';

/** Claude Code's footer while a turn runs (the Stop hook included), and once it waits at its prompt. */
const RUNNING = 'esc to interrupt';
const AT_PROMPT = '? for shortcuts';

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
  // The daemon reads the transcripts claude writes (a turn end's context: the session's title).
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
}

interface RunOptions {
  /** More arguments for `askbridge install` (`--no-approvals`, `--no-turn-ends`). */
  installArgs?: string[];
  /** Files written into the project before claude starts. */
  files?: Record<string, string>;
  /** Extra environment for claude and its hooks. */
  env?: Record<string, string>;
}

/** A claude session in a fresh project wired by `askbridge install`, its model playing `steps`. */
async function startRun(steps: (project: Project) => Step[], options: RunOptions = {}): Promise<Run> {
  const project = await createProject({ daemon, claudeBin: client().bin, ...(options.installArgs ? { installArgs: options.installArgs } : {}) });
  defer(() => project.remove());
  for (const [name, text] of Object.entries(options.files ?? {})) await writeFile(join(project.dir, name), text);
  const fake = await startFakeAnthropic({ steps: steps(project), finalText: 'Nothing more to do.' });
  defer(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    projectDir: project.dir,
    claudeBin: client().bin,
    env: { ...hookEnvOf(daemon), ...options.env },
    args: ['--permission-mode', 'default'],
    projectsDir: transcripts.projectsDir,
  });
  defer(() => claude.stop());
  return { fake, project, claude };
}

/** Types a prompt; accepted once the model got a new main request. */
async function prompt(run: Run, text: string): Promise<void> {
  const before = run.fake.mainRequests.length;
  await run.claude.submit(text, { accepted: () => run.fake.mainRequests.length > before });
}

/** `askbridge away on|off`, as a person runs it. */
async function away(on: boolean): Promise<void> {
  const cli = await runCli(['away', on ? 'on' : 'off'], daemon.env);
  if (cli.code !== 0) throw new Error(`askbridge away ${on ? 'on' : 'off'} exited ${cli.code}: ${cli.stderr}`);
}

/** `askbridge reply SESSION TEXT` or `askbridge reply SESSION --done`, as a person runs it; what it printed. */
async function reply(turnEnd: AskView, text: string | { done: true }): Promise<string> {
  const args = ['reply', turnEnd.sessionId, ...(typeof text === 'string' ? [text] : ['--done'])];
  const cli = await runCli(args, daemon.env);
  expect(cli.code, `askbridge ${args.join(' ')}: ${cli.stderr}`).toBe(0);
  return cli.stdout.trim();
}

/** What failed, with the screen and the end of the daemon's output. */
async function withScene(run: Run, error: unknown): Promise<Error> {
  const screen = await run.claude.screen().catch(() => '(no screen)');
  const { stdout, stderr } = daemon.output();
  return new Error(`${String(error)}\nScreen:\n${screen}\nModel requests: ${run.fake.describeRequests()}\nDaemon output (end):\n${stdout.slice(-3000)}\n--- daemon stderr\n${stderr.slice(-1500)}`);
}

/** The pending ask of this run's project that `match` picks, once askbridge shows it. */
async function pendingAsk(run: Run, what: string, match: (ask: AskView) => boolean, timeoutMs = 30_000): Promise<AskView> {
  try {
    return await waitUntil(async () => (await daemon.pending()).find((ask) => ask.cwd === run.project.dir && match(ask)), timeoutMs, what);
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

/** The asks of this project that history has (every settled one but a wait in the terminal). */
async function historyOfProject(run: Run): Promise<Array<Record<string, unknown>>> {
  return (await daemon.history()).filter((line) => line.project === run.project.dir);
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

/** The installed Stop entry of the project (what `askbridge install` wrote). */
async function installedStopEntry(project: Project): Promise<{ url: string; statusMessage: string; headers: Record<string, string> }> {
  const settings = JSON.parse(await readFile(join(project.dir, '.claude', 'settings.local.json'), 'utf8')) as {
    hooks: Record<string, Array<{ hooks: Array<{ url: string; statusMessage: string; headers: Record<string, string> }> }>>;
  };
  const entry = settings.hooks.Stop?.[0]?.hooks[0];
  if (!entry) throw new Error('askbridge install wrote no Stop entry');
  return entry;
}

/** The lines of this run's transcripts (claude writes them into the shared folder). */
async function transcriptLines(run: Run): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  for (const slug of await readdir(transcripts.projectsDir)) {
    for (const name of await readdir(join(transcripts.projectsDir, slug))) {
      if (!name.endsWith('.jsonl')) continue;
      for (const line of (await readFile(join(transcripts.projectsDir, slug, name), 'utf8')).split('\n')) {
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
 * What Claude Code wrote in the transcript each time its Stop hooks ran (a `stop_hook_summary`
 * line): the block reasons it got (`hookErrors`), and whether a hook answered anything at all.
 * Waits until there are `count` (Claude Code writes the line a moment after the hook answered).
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
  return waitUntil(async () => {
    const summaries = await read();
    return summaries.length >= count ? summaries : undefined;
  }, 5_000, `${count} Stop hook summaries in the transcript`).catch(read);
}

/** For each `stop_hook_summary`, the milliseconds since the transcript line before it (Claude's final message), by Claude Code's own clock. */
async function stopHookDelays(run: Run): Promise<number[]> {
  const lines = await transcriptLines(run);
  const byUuid = new Map(lines.map((line) => [line.uuid, line]));
  return lines
    .filter((line) => line.type === 'system' && line.subtype === 'stop_hook_summary')
    .map((line) => Date.parse(String(line.timestamp)) - Date.parse(String(byUuid.get(line.parentUuid)?.timestamp)));
}

/** Claude Code's native permission dialog (Bash). */
const DIALOG = /Do you want to proceed/;

/**
 * Types `key` into Claude Code's dialog until the dialog leaves the screen (a dialog drops a key
 * typed the moment it appears).
 */
async function answerDialog(run: Run, key: string): Promise<void> {
  await run.claude.waitForScreen(DIALOG, 20_000);
  const deadline = Date.now() + 15_000;
  for (;;) {
    await run.claude.type(key);
    const retryAt = Date.now() + 1_500;
    while (Date.now() < retryAt) {
      if (!DIALOG.test(await run.claude.screen())) return;
      await new Promise((r) => setTimeout(r, 30));
    }
    if (Date.now() >= deadline) throw await withScene(run, new Error(`the dialog did not take key ${key}`));
  }
}

/** The screen from its first line that holds `from` on (for the test output). */
function screenFrom(screen: string, from: string): string {
  const lines = screen.split('\n');
  const start = lines.findIndex((line) => line.includes(from));
  return (start < 0 ? lines : lines.slice(start))
    .filter((line) => line.trim() !== '' && !/^─+$/.test(line.trim()))
    .join('\n');
}

// ---------------------------------------------------------------------------------------------

describe('turn ends: Claude Code’s Stop hook held while the person is away reaches the real client', () => {
  it('1. away: the turn end waits with Claude’s last message; a reply goes to the model as Stop hook feedback and Claude works on; Done lets it stop', async () => {
    const backfilled = 'Backfilled the last 30 days.';
    const run = await startRun(
      (project) => [{ text: LAST_MESSAGE }, { tool: 'Read', input: { file_path: join(project.dir, 'migration.sql') } }, { text: backfilled }],
      { files: { 'migration.sql': 'ALTER TABLE orders ADD COLUMN region text;\n' } },
    );
    const stop = await installedStopEntry(run.project);
    await away(true);
    await prompt(run, FIRST_PROMPT);

    const turnEnd = await pendingTurnEnd(run, LAST_MESSAGE);
    expect(turnEnd.questions).toEqual([]);
    expect(turnEnd.turnEnd).toEqual({ lastMessage: LAST_MESSAGE, repliesInARow: 0, replyLimit: 8 });
    // The session's title comes later, from the transcript: its first prompt.
    const dressed = await pendingAsk(run, 'the turn end with its title', (ask) => ask.id === turnEnd.id && ask.context?.title !== undefined);
    expect(dressed.context?.title).toBe(FIRST_PROMPT);

    // While it holds, the spinner shows the Stop entry's status message (Claude Code adds "…"), and the turn still runs.
    const held = await run.claude.waitForScreen(`${stop.statusMessage}…`, 10_000);
    expect(held).toContain(RUNNING);
    console.log(`case 1, the terminal while the turn end waits:\n${screenFrom(held, LAST_MESSAGE)}`);

    const requestsBefore = run.fake.mainRequests.length;
    const printed = await reply(turnEnd, REPLY);
    expect(printed).toBe('replied: Claude goes on');
    expect(await daemon.ask(turnEnd.id)).toMatchObject({ status: 'replied', reply: REPLY, source: { kind: 'person', client: 'cli' } });

    // The model's next request carries the reply, in Claude Code's words around askbridge's reason.
    const continued = await mainRequestAfter(run, requestsBefore);
    const reason = replyReason(REPLY);
    expect(lastUserText(continued)).toBe(feedback(reason));
    expect(messagesOf(continued).map((message) => message.text)).toContain(blockingError(stop.url, reason));
    // The Stop entry's URL reaches the model; its hook key must not.
    expect(JSON.stringify(continued.body)).not.toContain(daemon.hookKey());
    // Claude works on: it reads the file, then ends its turn again.
    const read = await run.fake.waitForStepResult(1, 15_000);
    expect(read.text).toContain('ALTER TABLE orders ADD COLUMN region text;');

    const after = await run.claude.waitForScreen('Stop hook reported a problem', 10_000);
    expect(after).toContain('Ran 1 stop hook');
    for (const line of reason.split('\n').filter((line) => line !== '')) expect(after).toContain(line);
    console.log(`case 1, the terminal after the reply:\n${screenFrom(after, LAST_MESSAGE)}`);

    const second = await pendingTurnEnd(run, backfilled);
    expect(second.turnEnd).toEqual({ lastMessage: backfilled, repliesInARow: 1, replyLimit: 8 });
    const requestsAtDone = run.fake.mainRequests.length;
    expect(await reply(second, { done: true })).toBe('done: Claude stops');
    expect(await settled(run, second.id)).toMatchObject({ status: 'done', source: { kind: 'person', client: 'cli' } });
    await atPrompt(run);
    const stopped = await run.claude.screen();
    console.log(`case 1, the terminal after Done:\n${screenFrom(stopped, backfilled)}`);
    // Claude stopped: no model request followed, and nothing waits.
    expect(run.fake.mainRequests.length).toBe(requestsAtDone);
    expect((await daemon.pending()).filter((ask) => ask.cwd === run.project.dir)).toEqual([]);

    const lines = await historyOfProject(run);
    expect(lines.map((line) => [line.status, line.reply, (line.turnEnd as { said?: string } | undefined)?.said])).toEqual([
      ['replied', REPLY, LAST_MESSAGE],
      ['done', undefined, backfilled],
    ]);
  });

  it('2. not away: the Stop hook is answered at once with no decision, and the prompt is back about as soon as without it', async () => {
    const rounds = 3;
    const texts = Array.from({ length: rounds }, (_, index) => `Answer ${index + 1}.`);
    const withHook = await startRun(() => texts.map((text) => ({ text })));
    const withoutHook = await startRun(() => texts.map((text) => ({ text })), { installArgs: ['--no-turn-ends'] });
    const settings = JSON.parse(await readFile(join(withoutHook.project.dir, '.claude', 'settings.local.json'), 'utf8')) as { hooks: Record<string, unknown> };
    expect(Object.keys(settings.hooks)).not.toContain('Stop');
    await installedStopEntry(withHook.project);

    /** Milliseconds from the model's final answer (the fake answers the moment it is asked) to the prompt back. */
    async function turnTime(run: Run, index: number): Promise<number> {
      await prompt(run, `Question ${index + 1}?`);
      const answered = run.fake.mainRequests.at(-1);
      if (!answered) throw new Error('no model request');
      await run.claude.waitForScreen(texts[index] ?? '', 10_000);
      return (await atPrompt(run)) - answered.receivedAt;
    }
    const times: { hook: number[]; none: number[] } = { hook: [], none: [] };
    for (let index = 0; index < rounds; index++) {
      times.hook.push(await turnTime(withHook, index));
      times.none.push(await turnTime(withoutHook, index));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    console.log(
      `case 2, from the model's final answer to the prompt back (ms): with the Stop hook ${times.hook.join(', ')} (median ${median(times.hook)}); without it (--no-turn-ends) ${times.none.join(', ')} (median ${median(times.none)})`,
    );
    for (const time of [...times.hook, ...times.none]) expect(time).toBeLessThan(5_000);

    // The hook ran on every turn end, and askbridge answered it with no decision (an empty body): nothing waited.
    const noDecision = { hookCount: 1, hookErrors: [], hasOutput: false, preventedContinuation: false };
    expect(await stopHookSummaries(withHook, texts.length)).toEqual(texts.map(() => noDecision));
    expect(await stopHookSummaries(withoutHook, 0)).toEqual([]);
    console.log(`case 2, Claude Code's own clock: each Stop hook's summary came ${(await stopHookDelays(withHook)).join(', ')} ms after the transcript line before it`);
    expect(await historyOfProject(withHook)).toEqual([]);
    expect((await daemon.pending()).filter((ask) => ask.cwd === withHook.project.dir)).toEqual([]);
    // The model got no feedback from a hook.
    for (const request of withHook.fake.mainRequests) expect(JSON.stringify(request.body)).not.toContain('Stop hook feedback');
  });

  it('3. typed in the terminal while a turn end waits: the hold ends with no decision, the typed prompt reaches the model as the person’s own, and the turn end settles cancelled (terminal)', async () => {
    const typed = 'Actually, write the docs first.';
    const run = await startRun(() => [{ text: LAST_MESSAGE }, { text: 'Docs written.' }]);
    const stop = await installedStopEntry(run.project);
    await away(true);
    await prompt(run, FIRST_PROMPT);
    const turnEnd = await pendingTurnEnd(run, LAST_MESSAGE);
    await run.claude.waitForScreen(`${stop.statusMessage}…`, 10_000);

    // Enter queues the prompt while the Stop hook runs; Claude Code fires UserPromptSubmit, and askbridge lets the turn end go.
    const requestsBefore = run.fake.mainRequests.length;
    await prompt(run, typed);
    expect(await settled(run, turnEnd.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    const next = run.fake.mainRequests[requestsBefore];
    if (!next) throw new Error('no model request after the typed prompt');
    expect(lastUserText(next)).toBe(typed);
    expect(JSON.stringify(next.body)).not.toContain('Stop hook feedback');
    console.log(`case 3, the terminal after the typed prompt:\n${screenFrom(await run.claude.screen(), LAST_MESSAGE)}`);

    // A reply meant for that turn end comes too late, and says why.
    const late = await daemon.api<{ error?: { code: string; message: string } }>('POST', `/api/sessions/${encodeURIComponent(turnEnd.sessionId)}/reply`, { text: 'Too late.', ask: turnEnd.id });
    expect(late.status).toBe(409);
    expect(late.body.error).toEqual({ code: 'already_resolved', message: 'the person typed in the terminal meanwhile: their prompt went to Claude' });

    // The typed prompt began a turn of its own: its end waits again, the first of its turn.
    const again = await pendingTurnEnd(run, 'Docs written.');
    expect(again.turnEnd).toMatchObject({ repliesInARow: 0 });
    const lines = await historyOfProject(run);
    expect(lines).toEqual([expect.objectContaining({ id: turnEnd.id, status: 'cancelled', source: 'terminal', detail: 'the person typed in the terminal' })]);
  });

  it('4. the limit on replies in a row (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2): the Stop entry forwards it, the second reply is the last, the third turn end is settled at once (done, reply-limit) and Claude stops', async () => {
    const texts = ['First pass done.', 'Second pass done.', 'Third pass done.'];
    const run = await startRun(() => texts.map((text) => ({ text })), { env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '2' } });
    await away(true);
    await prompt(run, FIRST_PROMPT);

    const one = await pendingTurnEnd(run, texts[0] ?? '');
    expect(one.turnEnd).toEqual({ lastMessage: texts[0], repliesInARow: 0, replyLimit: 2 });
    expect(await reply(one, 'Go on.')).toBe('replied: Claude goes on');
    const two = await pendingTurnEnd(run, texts[1] ?? '');
    expect(two.turnEnd).toEqual({ lastMessage: texts[1], repliesInARow: 1, replyLimit: 2 });
    const last = await reply(two, 'One more.');
    console.log(`case 4, askbridge reply for the last reply in a row printed: ${last}`);
    expect(last.startsWith('replied: Claude goes on (')).toBe(true);

    // The third turn end never waits: settled as it opens, and Claude stops at its prompt.
    const lines = await waitUntil(async () => {
      const found = await historyOfProject(run);
      return found.length === 3 ? found : undefined;
    }, 15_000, 'the third turn end in history');
    const third = lines[2] ?? {};
    expect(third).toMatchObject({ status: 'done', source: 'terminal', detail: 'reply-limit', turnEnd: { said: texts[2] } });
    // Settled as it opened (nobody replied to it: a hold would have waited for the person).
    expect(Date.parse(String(third.finishedAt)) - Date.parse(String(third.askedAt))).toBeLessThan(1_000);
    expect(await daemon.ask(String(third.id))).toMatchObject({ status: 'done', source: { kind: 'policy', action: 'terminal', trigger: 'reply-limit' } });
    await atPrompt(run);
    expect((await daemon.pending()).filter((ask) => ask.cwd === run.project.dir)).toEqual([]);

    // The model got the two replies and no third continuation.
    // (The prompt's message starts with Claude Code's own reminders.)
    expect(run.fake.mainRequests.map(lastUserText)).toEqual([expect.stringContaining(FIRST_PROMPT), feedback(replyReason('Go on.')), feedback(replyReason('One more.'))]);
    // Claude Code saw two blocks, then a Stop hook that answered nothing: the turn ended as askbridge let it.
    expect(await stopHookSummaries(run, 3)).toEqual([
      { hookCount: 1, hookErrors: [replyReason('Go on.')], hasOutput: true, preventedContinuation: false },
      { hookCount: 1, hookErrors: [replyReason('One more.')], hasOutput: true, preventedContinuation: false },
      { hookCount: 1, hookErrors: [], hasOutput: false, preventedContinuation: false },
    ]);
    const screen = await run.claude.screen();
    expect(screen).not.toContain('consecutive times');
    console.log(`case 4, the terminal once Claude stopped:\n${screenFrom(screen, texts[0] ?? '')}`);
  });

  it('5. Esc while a turn end waits: Claude Code drops the request, the turn end settles cancelled (hook-gone), and no model request follows', async () => {
    const run = await startRun(() => [{ text: LAST_MESSAGE }, { text: 'Never asked for.' }]);
    const stop = await installedStopEntry(run.project);
    await away(true);
    await prompt(run, FIRST_PROMPT);
    const turnEnd = await pendingTurnEnd(run, LAST_MESSAGE);
    await run.claude.waitForScreen(`${stop.statusMessage}…`, 10_000);
    const requestsBefore = run.fake.mainRequests.length;

    const escAt = Date.now();
    await run.claude.pressKey('Escape');
    const ended = await settled(run, turnEnd.id);
    expect(ended).toMatchObject({ status: 'cancelled', source: { kind: 'hook-gone' } });
    console.log(`case 5, the turn end settled ${(ended.resolvedAt ?? Number.NaN) - escAt} ms after Esc`);
    const screen = await run.claude.waitForScreen('Interrupted · What should Claude do instead?', 10_000);
    await atPrompt(run);
    console.log(`case 5, the terminal after Esc:\n${screenFrom(screen, LAST_MESSAGE)}`);
    expect(run.fake.mainRequests.length).toBe(requestsBefore);
    expect(await historyOfProject(run)).toEqual([expect.objectContaining({ id: turnEnd.id, status: 'cancelled', source: 'cancelled' })]);
  });

  it('6. a permission dialog waits in the terminal (install --no-approvals): Claude Code’s Notification permission_prompt shows it in askbridge, and it leaves once answered there', async () => {
    const run = await startRun(() => [{ tool: 'Bash', input: { command: 'echo hi > hi.txt && echo wrote-hi', description: 'Write hi.txt' } }, { text: 'Wrote it.' }], {
      installArgs: ['--no-approvals'],
    });
    await prompt(run, 'Write hi.txt.');
    await run.claude.waitForScreen(DIALOG, 15_000);
    const shownAt = Date.now();
    const wait = await pendingAsk(run, 'the wait in the terminal', (ask) => ask.terminalWait !== undefined, 20_000);
    console.log(`case 6, the Notification arrived ${wait.createdAt - shownAt} ms after the dialog was on screen`);
    expect(wait.terminalWait).toEqual({ kind: 'permission_prompt', message: 'Claude needs your permission' });
    expect(wait.questions).toEqual([]);
    expect(wait.approval).toBeUndefined();

    await answerDialog(run, '1');
    expect(await settled(run, wait.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    const result = await run.fake.waitForStepResult(0, 15_000);
    expect(result).toMatchObject({ isError: false, text: 'wrote-hi' });
    expect(existsSync(join(run.project.dir, 'hi.txt'))).toBe(true);
    await run.claude.waitForScreen('Wrote it.', 10_000);
    // A wait in the terminal is never written to history.
    expect(await historyOfProject(run)).toEqual([]);
  });
});
