/**
 * askbridge's approvals against the real Claude Code client: Claude Code's PermissionRequest hook
 * (a permission, or a plan's approval) shown in askbridge and decided there, as a person does.
 *
 * One daemon (a real `askbridge start`) serves every case; each case runs its own claude in tmux
 * in a fresh project wired by the real `askbridge install` (the http hooks: AskUserQuestion,
 * PermissionRequest, SessionEnd), in `--permission-mode default` (`plan` for the plan cases), with
 * the fake model playing `steps`. A person decides with the real CLI (`askbridge answer ID --allow`,
 * `--allow-suggestion N`, `--deny [--message M] [--interrupt]`, which POST /api/asks/:id/decide as
 * the page's buttons do); refusals are read from the route itself. Every case checks what the model really received
 * (the tool_result and is_error) and what really happened (files, settings, the mode).
 */
import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { runCli } from '../stack/processes.js';
import { createProject, hookEnvOf, pendingApprovalIn, pendingAskIn, resolveClaudeUnderTest, sharedTranscripts, startAskbridgeDaemon, withScene as withDaemonScene } from './askbridge-stack.js';
import type { ClaudeUnderTest, Project } from './askbridge-stack.js';
import { startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { bashStep, startFakeAnthropic } from './fake-anthropic.js';
import type { FakeAnthropic, RecordedToolResult, Step } from './fake-anthropic.js';
import { DATABASE } from './questions.js';

// ---------------------------------------------------------------------------------------------
// What the model reads (askbridge's words, and Claude Code 2.1.330's own)

const denied = (tool: string, words: string): string => `The user denied permission for this ${tool} call. They said:\n${words}`;
const deniedSilently = (tool: string): string => `The user denied permission for this ${tool} call. Do not run it; ask the user what to do instead.`;
const planFeedback = (words: string): string => `The user did not approve the plan. Change it as they ask, then present it again. They said:\n${words}`;
/** Claude Code's own text for a rejected call that stops the turn (a plain No, Esc, or a deny with interrupt). */
const REJECTED_AND_STOPPED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
const INTERRUPTED = '[Request interrupted by user for tool use]';
const UNATTENDED =
  'Nobody is there to approve this (the session runs unattended), so askbridge denied it. Do not retry it: continue without it, or say what you needed and why.';

/** Claude Code's native permission dialog (Bash, Edit). */
const DIALOG = /Do you want to (proceed|make this edit)/;
const PLAN_TEXT = '# Plan\n\n1. Add a greeting to hello.txt\n2. Run the tests\n';
const SCRIPT = '#!/bin/sh\necho "script ran with $1"\necho "$1" >> runs.txt\n';

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
  // The daemon reads the transcripts claude writes (as with one HOME): it watches them for an approval answered in the terminal.
  transcripts = await sharedTranscripts();
  daemon = await startAskbridgeDaemon({ env: transcripts.daemonEnv });
}, 300_000);

afterEach(async () => {
  // claude first (its hooks hold connections to the daemon), then the fake model, then files.
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
  /** Claude Code's permission mode: `default` unless set. */
  mode?: 'default' | 'plan';
  /** Files written into the project before claude starts (`*.sh` made executable). */
  files?: Record<string, string>;
  /** Extra environment for claude and its hooks. */
  env?: Record<string, string>;
}

/** A claude session in a fresh project wired by `askbridge install`, its model playing `steps`. */
async function startRun(steps: (project: Project) => Step[], options: RunOptions = {}): Promise<Run> {
  const project = await createProject({ daemon, claudeBin: client().bin });
  defer(() => project.remove());
  for (const [name, text] of Object.entries(options.files ?? {})) {
    await writeFile(join(project.dir, name), text);
    if (name.endsWith('.sh')) await chmod(join(project.dir, name), 0o755);
  }
  const fake = await startFakeAnthropic({ steps: steps(project), finalText: 'Nothing more to do.' });
  defer(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    projectDir: project.dir,
    claudeBin: client().bin,
    env: { ...hookEnvOf(daemon), ...options.env },
    args: ['--permission-mode', options.mode ?? 'default'],
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

/** What failed, with the screen and the end of the daemon's output. */
function withScene(run: Run, error: unknown): Promise<Error> {
  return withDaemonScene(daemon, run.claude, error);
}

/** The pending ask of this run's project that `match` picks, once askbridge shows it. */
function pendingAsk(run: Run, what: string, match: (ask: AskView) => boolean, timeoutMs = 30_000): Promise<AskView> {
  return pendingAskIn(daemon, run.claude, run.project.dir, what, match, timeoutMs);
}

/** The pending approval of this run's project for `toolName` (and, if given, this command). */
function pendingApproval(run: Run, toolName: string, command?: string): Promise<AskView> {
  return pendingApprovalIn(daemon, run.claude, run.project.dir, toolName, command);
}

async function resultOf(run: Run, step: number, timeoutMs = 30_000): Promise<RecordedToolResult> {
  try {
    return await run.fake.waitForStepResult(step, timeoutMs);
  } catch (error) {
    throw await withScene(run, error);
  }
}

type Decision = { behavior: 'allow'; suggestion?: number } | { behavior: 'deny'; message?: string; interrupt?: boolean };

/**
 * POST /api/asks/:id/decide as a local program (the CLI's token): the route the page's buttons and
 * the CLI use. For what only the HTTP reply shows (a refusal's code and message).
 */
async function decideRequest(id: string, decision: Decision): Promise<{ status: number; body: { ask?: AskView; error?: { code: string; message: string } } }> {
  return daemon.api('POST', `/api/asks/${encodeURIComponent(id)}/decide`, decision);
}

/** `askbridge answer ID --allow | --allow-suggestion N | --deny [--message M] [--interrupt]`, as a person runs it; returns the ask as settled. */
async function decide(id: string, decision: Decision): Promise<AskView> {
  const args =
    decision.behavior === 'allow'
      ? decision.suggestion === undefined
        ? ['--allow']
        : ['--allow-suggestion', String(decision.suggestion + 1)] // numbered from 1, as `askbridge pending` shows them
      : ['--deny', ...(decision.message !== undefined ? ['--message', decision.message] : []), ...(decision.interrupt ? ['--interrupt'] : [])];
  const cli = await runCli(['answer', id, ...args], daemon.env);
  expect(cli.code, `askbridge answer ${id} ${args.join(' ')}: ${cli.stderr}`).toBe(0);
  return daemon.ask(id);
}

/** The asks of this project that history has (every settled one). */
async function historyOfProject(run: Run): Promise<Array<Record<string, unknown>>> {
  return (await daemon.history()).filter((line) => line.project === run.project.dir);
}

/**
 * Types `key` into Claude Code's dialog until the dialog leaves the screen (a dialog drops a key
 * typed the moment it appears); returns when the key that worked was typed (Date.now()).
 */
async function answerDialog(run: Run, key: string, dialog: RegExp = DIALOG): Promise<number> {
  await run.claude.waitForScreen(dialog, 20_000);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const typedAt = Date.now();
    await run.claude.type(key);
    const retryAt = Date.now() + 1_500;
    while (Date.now() < retryAt) {
      if (!dialog.test(await run.claude.screen())) return typedAt;
      await new Promise((r) => setTimeout(r, 30));
    }
    if (Date.now() >= deadline) throw await withScene(run, new Error(`the dialog did not take key ${key}`));
  }
}

/**
 * Watches the session's transcript (in the shared transcripts folder) every 25 ms for the
 * tool_result of `toolUseId`; `at()` is when its line was first seen there.
 */
function watchTranscriptForResult(sessionId: string, toolUseId: string): { at(): number | undefined; stop(): void } {
  let seenAt: number | undefined;
  let stopped = false;
  const file = (async () => {
    for (const slug of await readdir(transcripts.projectsDir)) {
      const path = join(transcripts.projectsDir, slug, `${sessionId}.jsonl`);
      if (existsSync(path)) return path;
    }
    return undefined;
  })();
  void (async () => {
    const path = await file;
    if (!path) return;
    while (!stopped && seenAt === undefined) {
      const text = await readFile(path, 'utf8').catch(() => '');
      if (text.split('\n').some((line) => line.includes('"tool_result"') && line.includes(`"tool_use_id":"${toolUseId}"`))) seenAt = Date.now();
      else await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    at: () => seenAt,
    stop: () => {
      stopped = true;
    },
  };
}

/** Waits until the ask is no longer pending in GET /api/asks; returns when (Date.now()). */
async function whenWithdrawn(run: Run, id: string, timeoutMs = 15_000): Promise<number> {
  try {
    await waitUntil(async () => ((await daemon.pending()).some((ask) => ask.id === id) ? undefined : true), timeoutMs, `ask ${id} to leave the inbox`);
  } catch (error) {
    throw await withScene(run, error);
  }
  return Date.now();
}

/** The plan file Claude Code names in plan mode (in the plan_mode attachment of the request). */
function planPathOf(body: unknown): string {
  const match = /(\/[^\s"'`\\]*\/plans\/[^\s"'`\\]+\.md)/.exec(JSON.stringify(body));
  if (!match?.[1]) throw new Error('no plan file path in the request');
  return match[1];
}

/** Plan mode: the model writes its plan file (allowed in plan mode), then calls ExitPlanMode. */
const PLAN_STEPS = (): Step[] => [
  { tool: 'Write', inputFrom: ({ body }) => ({ file_path: planPathOf(body), content: PLAN_TEXT }) },
  { tool: 'ExitPlanMode', input: {} },
  { text: 'Plan answered.' },
];

// ---------------------------------------------------------------------------------------------

describe('approvals: Claude Code permissions and plans decided in askbridge reach the real client', () => {
  it('a. Bash allowed once: the command runs and the model gets its output', async () => {
    const command = 'echo ran > ran.txt && echo command-ran';
    const run = await startRun(() => [bashStep(command, 'Write ran.txt'), { text: 'Done with Bash.' }]);
    await prompt(run, 'Run it.');
    const approval = await pendingApproval(run, 'Bash');
    expect(approval.questions).toEqual([]);
    expect(approval.approval?.toolInput).toEqual({ command, description: 'Write ran.txt' });
    // The redirect: Claude Code suggests the project folder for the session.
    expect(approval.approval?.suggestions).toEqual([{ label: `Allow access to \`${run.project.dir}\` for this session` }]);
    expect(existsSync(join(run.project.dir, 'ran.txt'))).toBe(false);

    const decided = await decide(approval.id, { behavior: 'allow' });
    expect(decided).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'cli' }, decision: { behavior: 'allow' } });
    expect(decided.decision).toEqual({ behavior: 'allow' });

    const result = await resultOf(run, 0);
    expect(result.isError).toBe(false);
    expect(result.text).toBe('command-ran');
    expect(await readFile(join(run.project.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
    await run.claude.waitForScreen('Allowed by PermissionRequest hook', 10_000);
  });

  it('b. always allow (suggestion 0): the rule lands in settings.local.json as Claude Code writes it, and the same call runs again unasked', async () => {
    const command = './script.sh arg';
    const run = await startRun(() => [bashStep(command, 'Run the script'), { text: 'First run done.' }, bashStep(command, 'Run the script again'), { text: 'Second run done.' }], {
      files: { 'script.sh': SCRIPT },
    });
    await prompt(run, 'Run the script.');
    const approval = await pendingApproval(run, 'Bash');
    expect(approval.approval?.suggestions).toEqual([{ label: 'Always allow `Bash(./script.sh arg *)` in this project (your local settings)' }]);
    await decide(approval.id, { behavior: 'allow', suggestion: 0 });

    const first = await resultOf(run, 0);
    expect(first.isError).toBe(false);
    expect(first.text).toBe('script ran with arg');
    const local = JSON.parse(await readFile(join(run.project.dir, '.claude', 'settings.local.json'), 'utf8')) as {
      permissions?: { allow?: string[] };
      hooks?: Record<string, unknown>;
    };
    expect(local.permissions).toEqual({ allow: ['Bash(./script.sh arg *)'] });
    // Claude Code wrote its rule beside askbridge's hooks, which stay.
    expect(Object.keys(local.hooks ?? {})).toEqual(expect.arrayContaining(['PreToolUse', 'PermissionRequest', 'SessionEnd']));
    expect(await historyOfProject(run)).toHaveLength(1);

    // The same call again: it runs with no approval at all (nobody decides anything here).
    await prompt(run, 'Run it again.');
    const second = await resultOf(run, 2);
    expect(second.isError).toBe(false);
    expect(second.text).toBe('script ran with arg');
    expect(await readFile(join(run.project.dir, 'runs.txt'), 'utf8')).toBe('arg\narg\n');
    expect((await daemon.pending()).filter((ask) => ask.cwd === run.project.dir)).toEqual([]);
    expect(await historyOfProject(run)).toHaveLength(1);
  });

  it('c. denied with a message (and without one): the model gets exactly askbridge’s deny message, is_error, and nothing ran', async () => {
    const first = 'echo x > denied.txt';
    const second = 'echo y > denied-too.txt';
    const run = await startRun(() => [bashStep(first, 'Write denied.txt'), bashStep(second, 'Write denied-too.txt'), { text: 'Both were denied.' }]);
    await prompt(run, 'Write the files.');

    const one = await pendingApproval(run, 'Bash', first);
    await decide(one.id, { behavior: 'deny', message: 'Use the staging database instead.' });
    const oneResult = await resultOf(run, 0);
    expect(oneResult.isError).toBe(true);
    expect(oneResult.text).toBe(denied('Bash', 'Use the staging database instead.'));

    // The turn goes on: the model's next call asks again; denied with no words this time.
    const two = await pendingApproval(run, 'Bash', second);
    const decided = await decide(two.id, { behavior: 'deny' });
    expect(decided).toMatchObject({ status: 'denied', decision: { behavior: 'deny' } });
    const twoResult = await resultOf(run, 1);
    expect(twoResult.isError).toBe(true);
    expect(twoResult.text).toBe(deniedSilently('Bash'));

    await run.claude.waitForScreen('Both were denied.', 10_000);
    expect(existsSync(join(run.project.dir, 'denied.txt'))).toBe(false);
    expect(existsSync(join(run.project.dir, 'denied-too.txt'))).toBe(false);
  });

  it('d. deny and stop (interrupt): the turn stops, nothing ran; Claude Code gives the model its own "STOP" text, so askbridge takes no message with it', async () => {
    const command = 'echo x > stopped.txt';
    const run = await startRun(() => [bashStep(command, 'Write stopped.txt'), { text: 'Turn went on after the stop.' }]);
    await prompt(run, 'Write stopped.txt.');
    const approval = await pendingApproval(run, 'Bash');
    const requestsBefore = run.fake.mainRequests.length;
    // A message would never reach the model (observed: Claude Code drops it): refused, and the approval still waits.
    const withMessage = await runCli(['answer', approval.id, '--deny', '--message', 'Not now, wrong branch.', '--interrupt'], daemon.env);
    expect(withMessage.code).toBe(2);
    expect(withMessage.stderr).toContain('Claude Code does not pass a message on when it stops the turn');
    const decided = await decide(approval.id, { behavior: 'deny', interrupt: true });
    expect(decided).toMatchObject({ status: 'denied', decision: { behavior: 'deny', interrupt: true } });

    await run.claude.waitForScreen('Interrupted · What should Claude do instead?', 15_000);
    // The turn ended with the call: no request carried its result to the model.
    expect(run.fake.mainRequests.length).toBe(requestsBefore);
    expect(run.fake.stepResult(0)).toBeUndefined();
    expect(existsSync(join(run.project.dir, 'stopped.txt'))).toBe(false);

    // What the model reads, with the person's next prompt.
    await prompt(run, 'Why did you stop?');
    const result = await resultOf(run, 0);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(REJECTED_AND_STOPPED);
    expect(result.following[0]?.text).toContain(INTERRUPTED);
    expect(existsSync(join(run.project.dir, 'stopped.txt'))).toBe(false);
  });

  describe('e. answered in the terminal first: the card leaves (No: within 2 s of the key; Yes: within 1 s of the call’s result in the transcript), a late decision is refused', () => {
    /**
     * Answers the waiting approval's dialog in the terminal with `key`; resolves once the card has
     * left, checking that it left as answered in the terminal, within a second of the call's result
     * in the transcript (askbridge reads it every 250 ms; the time before that is Claude Code's).
     */
    async function answeredInTerminal(run: Run, approval: AskView, key: string, step: number, dialog?: RegExp): Promise<void> {
      const transcript = watchTranscriptForResult(approval.sessionId, run.fake.stepToolUseId(step) ?? '');
      defer(async () => transcript.stop());
      const keyAt = await answerDialog(run, key, dialog);
      const goneAt = await whenWithdrawn(run, approval.id);
      const resultAt = await waitUntil(() => transcript.at(), 5_000, 'the tool_result in the transcript');
      console.log(
        `terminal ${approval.approval?.toolName} "${key}": the tool_result was in the transcript ${resultAt - keyAt} ms after the key; the card left ${goneAt - keyAt} ms after the key (${goneAt - resultAt} ms after the tool_result)`,
      );
      expect(goneAt - resultAt).toBeLessThanOrEqual(1_000);
      expect(await daemon.ask(approval.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
      const late = await decideRequest(approval.id, { behavior: 'deny', message: 'too late' });
      expect(late.status).toBe(409);
      expect(late.body.error?.message).toBe('this was answered in the terminal');
      const lateCli = await runCli(['answer', approval.id, '--allow'], daemon.env);
      expect(lateCli.code, lateCli.stderr).toBe(3);
    }

    it('Yes in the terminal (a short command): withdrawn once the call has its result', async () => {
      const command = 'echo yes > yes.txt && echo yes-ran';
      const run = await startRun(() => [bashStep(command, 'Write yes.txt'), { text: 'Done.' }]);
      await prompt(run, 'Write yes.txt.');
      const approval = await pendingApproval(run, 'Bash');
      await answeredInTerminal(run, approval, '1', 0);

      const result = await resultOf(run, 0);
      expect(result.isError).toBe(false);
      expect(result.text).toBe('yes-ran');
      expect(await readFile(join(run.project.dir, 'yes.txt'), 'utf8')).toBe('yes\n');
    });

    it('Yes in the terminal for an Edit (the input has replace_all, added by Claude Code, in the hook and the transcript alike)', async () => {
      const run = await startRun((project) => [
        { tool: 'Edit', input: { file_path: join(project.dir, 'notes.txt'), old_string: 'hello', new_string: 'goodbye' } },
        { text: 'Edited.' },
      ], { files: { 'notes.txt': 'hello world\n' } });
      await prompt(run, 'Edit the notes.');
      const approval = await pendingApproval(run, 'Edit');
      await answeredInTerminal(run, approval, '1', 0);
      expect((await resultOf(run, 0)).isError).toBe(false);
      expect(await readFile(join(run.project.dir, 'notes.txt'), 'utf8')).toBe('goodbye world\n');
    });

    it('a plan approved in the terminal (the model called it with {}; the hook and the transcript both have {plan, planFilePath})', async () => {
      const run = await startRun(PLAN_STEPS, { mode: 'plan' });
      await prompt(run, 'Plan it.');
      const approval = await pendingApproval(run, 'ExitPlanMode');
      // 2: "Yes, manually approve edits".
      await answeredInTerminal(run, approval, '2', 1, /Would you like to proceed/);
      expect((await resultOf(run, 1)).text.startsWith('User has approved your plan.')).toBe(true);
      await run.claude.waitForScreen('manual mode on', 10_000);
    });

    it('No in the terminal: withdrawn at once (Claude Code closes the request)', async () => {
      const command = 'echo no > no.txt';
      const run = await startRun(() => [bashStep(command, 'Write no.txt'), { text: 'Done.' }]);
      await prompt(run, 'Write no.txt.');
      const approval = await pendingApproval(run, 'Bash');

      const keyAt = await answerDialog(run, '4');
      const goneAt = await whenWithdrawn(run, approval.id);
      console.log(`terminal Bash "4" (No): the card left ${goneAt - keyAt} ms after the key`);
      expect(goneAt - keyAt).toBeLessThanOrEqual(2_000);
      expect(await daemon.ask(approval.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });

      const late = await decideRequest(approval.id, { behavior: 'allow' });
      expect(late.status).toBe(409);
      expect(late.body.error?.message).toBe('this was answered in the terminal');
      const lateCli = await runCli(['answer', approval.id, '--deny'], daemon.env);
      expect(lateCli.code, lateCli.stderr).toBe(3);

      await run.claude.waitForScreen('Interrupted · What should Claude do instead?', 10_000);
      expect(existsSync(join(run.project.dir, 'no.txt'))).toBe(false);
    });
  });

  it('f. an Edit of an existing file: the approval shows the exact edit; allowed, the file changes', async () => {
    const run = await startRun((project) => [
      { tool: 'Edit', input: { file_path: join(project.dir, 'notes.txt'), old_string: 'hello', new_string: 'goodbye' } },
      { text: 'Edited.' },
    ], { files: { 'notes.txt': 'hello world\n' } });
    await prompt(run, 'Edit the notes.');
    const approval = await pendingApproval(run, 'Edit');
    const input = approval.approval?.toolInput ?? {};
    expect(input.file_path).toBe(join(run.project.dir, 'notes.txt'));
    expect(input.old_string).toBe('hello');
    expect(input.new_string).toBe('goodbye');
    // Claude Code adds replace_all: false to the model's input; nothing else.
    expect(input).toEqual({ file_path: join(run.project.dir, 'notes.txt'), old_string: 'hello', new_string: 'goodbye', replace_all: false });
    expect(approval.approval?.suggestions).toEqual([{ label: 'Allow all edits for this session' }]);

    await decide(approval.id, { behavior: 'allow' });
    const result = await resultOf(run, 0);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(`The file ${join(run.project.dir, 'notes.txt')} has been updated successfully.`);
    expect(await readFile(join(run.project.dir, 'notes.txt'), 'utf8')).toBe('goodbye world\n');
  });

  describe('g. a plan approved in askbridge', () => {
    it('approved once: the model gets "User has approved your plan", the session leaves plan mode for manual mode', async () => {
      const run = await startRun(PLAN_STEPS, { mode: 'plan' });
      await run.claude.waitForScreen('plan mode on', 10_000);
      await prompt(run, 'Plan it.');
      const approval = await pendingApproval(run, 'ExitPlanMode');
      expect(approval.approval?.plan).toBe(PLAN_TEXT);
      expect(approval.approval?.suggestions).toEqual([{ label: 'Approve, and use auto mode for this session' }]);
      await decide(approval.id, { behavior: 'allow' });

      const result = await resultOf(run, 1);
      expect(result.isError).toBe(false);
      const planPath = String(approval.approval?.toolInput.planFilePath);
      expect(result.text).toBe(
        `User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: ${planPath}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n${PLAN_TEXT}`,
      );
      expect(result.following.map((message) => message.text).join('\n')).toContain('## Exited Plan Mode');
      await run.claude.waitForScreen('manual mode on', 10_000);
    });

    it('approved with "use auto mode": the session goes to auto mode', async () => {
      const run = await startRun(PLAN_STEPS, { mode: 'plan' });
      await prompt(run, 'Plan it.');
      const approval = await pendingApproval(run, 'ExitPlanMode');
      await decide(approval.id, { behavior: 'allow', suggestion: 0 });

      const result = await resultOf(run, 1);
      expect(result.isError).toBe(false);
      expect(result.text.startsWith('User has approved your plan.')).toBe(true);
      expect(result.following.map((message) => message.text).join('\n')).toContain('While auto mode is active');
      await run.claude.waitForScreen('auto mode on', 10_000);
    });
  });

  it('h. plan feedback: the model gets askbridge’s feedback text, and the session stays in plan mode', async () => {
    const run = await startRun(PLAN_STEPS, { mode: 'plan' });
    await prompt(run, 'Plan it.');
    const approval = await pendingApproval(run, 'ExitPlanMode');
    // A plan's denial must say what to change.
    const empty = await decideRequest(approval.id, { behavior: 'deny' });
    expect(empty.status).toBe(400);
    expect(empty.body.error?.code).toBe('empty_feedback');

    await decide(approval.id, { behavior: 'deny', message: 'Add a rollback step.' });
    const result = await resultOf(run, 1);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(planFeedback('Add a rollback step.'));
    await run.claude.waitForScreen('Plan answered.', 10_000);
    await run.claude.waitForScreen('plan mode on', 10_000);
    expect(await run.claude.screen()).not.toContain('manual mode on');
  });

  it('i. AskUserQuestion in default mode: asked once in askbridge (a question, never an approval), answered there or handed to the terminal', async () => {
    const run = await startRun(() => [
      { tool: 'AskUserQuestion', input: DATABASE },
      { text: 'Going with it.' },
      { tool: 'AskUserQuestion', input: DATABASE },
      { text: 'Going with that one.' },
    ]);
    await prompt(run, 'Ask me.');
    const question = await pendingAsk(run, 'the question', () => true);
    expect(question.approval).toBeUndefined();
    expect(question.questions.map((q) => q.question)).toEqual(['Which database should we use?']);
    expect((await daemon.pending()).filter((ask) => ask.cwd === run.project.dir)).toHaveLength(1);

    const cli = await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env);
    expect(cli.code, cli.stderr).toBe(0);
    const result = await resultOf(run, 0);
    expect(result.isError).toBe(false);
    expect(result.text).toBe('Your questions have been answered: "Which database should we use?"="SQLite". You can now continue with these answers in mind.');
    await run.claude.waitForScreen('Going with it.', 10_000);

    // Handed back to the terminal: PreToolUse decides nothing, so Claude Code raises the
    // PermissionRequest for it, which askbridge answers with no decision; its own dialog asks.
    await prompt(run, 'Ask me again.');
    const again = await pendingAsk(run, 'the second question', (ask) => ask.id !== question.id);
    expect(again.approval).toBeUndefined();
    const handed = await daemon.api('POST', `/api/asks/${encodeURIComponent(again.id)}/terminal`, {});
    expect(handed.status).toBe(200);
    await run.claude.waitForScreen(/Which database should we use\?[\s\S]*Enter to select/, 15_000);
    await answerDialog(run, '2', /Enter to select/);
    const second = await resultOf(run, 2);
    expect(second.isError).toBe(false);
    expect(second.text).toBe('Your questions have been answered: "Which database should we use?"="SQLite". You can now continue with these answers in mind.');

    // Never twice: two questions settled, no approval raised (not even one withdrawn at once).
    expect((await daemon.pending()).filter((ask) => ask.cwd === run.project.dir)).toEqual([]);
    const lines = await historyOfProject(run);
    expect(lines.map((line) => line.status)).toEqual(['answered', 'handed-to-terminal']);
    expect(lines.filter((line) => line.approval !== undefined)).toEqual([]);
  });

  it('unattended (CI=true): an approval is denied at once, and the model is told nobody was there', async () => {
    const command = 'echo x > unattended.txt';
    const run = await startRun(() => [bashStep(command, 'Write unattended.txt'), { text: 'Carrying on without it.' }], { env: { CI: 'true' } });
    await prompt(run, 'Write it.');
    const result = await resultOf(run, 0);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(UNATTENDED);
    expect(existsSync(join(run.project.dir, 'unattended.txt'))).toBe(false);
    const lines = await waitUntil(async () => {
      const found = await historyOfProject(run);
      return found.length > 0 ? found : undefined;
    }, 5_000, 'the denial in history');
    expect(lines).toEqual([expect.objectContaining({ status: 'denied', approval: expect.objectContaining({ toolName: 'Bash' }) })]);
  });
});
