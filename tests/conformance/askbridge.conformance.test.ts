/**
 * askbridge against the real Claude Code client: the model (the fake
 * Messages API) must receive every answer given in the page, by the CLI or by
 * a policy exactly as if it had been given in Claude Code's own dialog.
 *
 * One daemon (a real `askbridge start` process) and one paired Chromium page
 * serve every case; each case runs its own claude session in tmux (or as an
 * SDK host runs it) in a fresh project wired by `askbridge install` as a
 * person runs it: Claude Code's own http hook. The command hook (the settings
 * example, hooks/askbridge-hook.cjs) runs a smaller set: single, multi, the
 * daemon down, Esc, /exit, and the SDK host's own mark.
 *
 * CLAUDE_CODE_VERSION=latest (or any version) runs the suite against that
 * version, installed into a temporary folder; by default the pinned
 * devDependency runs, and the suite checks that it is the one that ran.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { CHECKS, DATABASE } from './questions.js';
import type { AskUserQuestionInput, FakeAnthropic, RecordedToolResult } from './fake-anthropic.js';
import type { AskView } from '../../src/protocol.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_BIN, REPO_ROOT, baseEnv } from '../stack/env.js';
import { sleep, waitUntil } from '../stack/clock.js';
import { runCli } from '../stack/processes.js';
import { openAsk } from '../stack/browser.js';
import type { Daemon } from '../stack/daemon.js';
import { createProject, editLocalSettings, hookEnvOf, openAnswerPage, resolveClaudeUnderTest, startAskbridgeDaemon, startSdkSession } from './askbridge-stack.js';
import { pinnedClaudeVersion } from './client.js';
import type { AnswerPage, ClaudeUnderTest, HookWiring, Project } from './askbridge-stack.js';

// ---------------------------------------------------------------------------------------------
// What the model reads (observed with Claude Code 2.1.330)

/** A pair as Claude Code writes it into the tool_result. */
const pair = (question: string, answer: string): string => `"${question}"="${answer}"`;
/** Every answer made of option labels. */
const answeredText = (...pairs: string[]): string => `Your questions have been answered: ${pairs.join(', ')}. You can now continue with these answers in mind.`;
/** Some answer holds free text or a note. */
const userAnsweredText = (...pairs: string[]): string =>
  `The user answered: ${pairs.join(', ')}. Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.`;
const HOOK_CONTEXT_PREFIX = 'PreToolUse:AskUserQuestion hook additional context: ';
const HOOK_ERROR_PREFIX = 'PreToolUse:AskUserQuestion hook error: ';
const PROCEED = 'Do not wait for an answer: proceed with your best judgment, state the assumptions you make, and let the user correct them later.';
const policyContext = (chooser: string, because: string): string =>
  `No person answered this question: askbridge chose the answer by policy (${chooser}) because ${because}. ` +
  'Treat it as a default, not as the user’s decision, and tell the user which default you went with so they can change it.';
/** Any `"question"="answer"` pair at all. */
const ANY_PAIR = /"="/;

// ---------------------------------------------------------------------------------------------
// Questions the fake model asks

/** A multi-select whose labels hold the separator of a multi-select answer. */
const CACHES: AskUserQuestionInput = {
  questions: [
    {
      question: 'Which cache layers should I enable?',
      header: 'Caching',
      multiSelect: true,
      options: [
        { label: 'HTTP cache, via CDN', description: 'Cache-Control: public, max-age=300' },
        { label: 'Redis, shared', description: 'Needs the existing Redis cluster' },
        { label: 'None', description: 'Measure first' },
      ],
    },
  ],
};

const FOUR: AskUserQuestionInput = {
  questions: [
    DATABASE.questions[0]!,
    {
      question: 'Which checks should run in CI?',
      header: 'CI checks',
      multiSelect: true,
      options: [
        { label: 'Unit tests', description: 'vitest' },
        { label: 'Lint', description: 'eslint' },
        { label: 'Type check', description: 'tsc' },
      ],
    },
    {
      question: 'Where should it deploy?',
      header: 'Deploy',
      multiSelect: false,
      options: [
        { label: 'Fly.io', description: 'Containers' },
        { label: 'A VPS', description: 'One machine' },
        { label: 'Nowhere yet', description: 'Local only' },
      ],
    },
    {
      question: 'Which license?',
      header: 'License',
      multiSelect: false,
      options: [
        { label: 'MIT', description: 'Permissive' },
        { label: 'Apache-2.0', description: 'Permissive, patent grant' },
      ],
    },
  ],
};

// "e\u0301" is a decomposed é: any Unicode normalization on the way would change the key.
const UNICODE_SINGLE = 'Quel café ☕ pour l’équipe de 東京?\nRéponds avec un seul nom — “exactement” 🙂';
const UNICODE_MULTI = 'Welche Gerichte für das Team-Essen? 🍜 料理を選んでください (Cafe\u0301 included)';
const UNICODE: AskUserQuestionInput = {
  questions: [
    {
      question: UNICODE_SINGLE,
      header: 'Café ☕',
      multiSelect: false,
      options: [
        { label: 'Café Crème 🥐', description: 'Près de la gare' },
        { label: '喫茶店 Ōkubo', description: '新宿区' },
      ],
    },
    {
      question: UNICODE_MULTI,
      header: '料理 🍜',
      multiSelect: true,
      options: [
        { label: 'ラーメン 🍜', description: '豚骨' },
        { label: 'Smørrebrød', description: 'Dansk' },
        { label: 'Crêpes (Cafe\u0301)', description: 'Sucré ou salé' },
      ],
    },
  ],
};

const LAYOUT: AskUserQuestionInput = {
  questions: [
    {
      question: 'Which layout should the report use?',
      header: 'Layout',
      multiSelect: false,
      options: [
        { label: 'Table', description: 'Rows and columns', preview: '| name | total |\n|------|-------|\n| a    | 1     |' },
        { label: 'List', description: 'One line each', preview: '- a: 1\n- b: 2' },
      ],
    },
  ],
};

const RECOMMENDED: AskUserQuestionInput = {
  questions: [
    {
      question: 'Which database should we use?',
      header: 'Database',
      multiSelect: false,
      options: [
        { label: 'SQLite', description: 'Embedded file' },
        { label: 'Postgres (Recommended)', description: 'Relational, server' },
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// Shared daemon, page and client

let claudeCode: ClaudeUnderTest | undefined;
let daemon: Daemon;
let answerPage: AnswerPage;
let cleanups: Array<() => Promise<unknown>> = [];

function defer(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

function client(): ClaudeUnderTest {
  if (!claudeCode) throw new Error('the Claude Code client was not resolved');
  return claudeCode;
}

// Installing a client not yet in .cache/claude-code (another CLAUDE_CODE_VERSION, say) can take minutes.
beforeAll(async () => {
  claudeCode = await resolveClaudeUnderTest();
  console.log(`Claude Code under test: ${claudeCode.versionLine} [${claudeCode.bin}; ${claudeCode.origin}]`);
  daemon = await startAskbridgeDaemon();
  answerPage = await openAnswerPage(daemon);
  answerPage.page.setDefaultTimeout(15_000);
}, 300_000);

afterEach(async () => {
  // Reverse order: claude first (its hook holds a connection to the daemon), then the fake model, then files.
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
});

afterAll(async () => {
  await answerPage?.close().catch(() => undefined);
  await daemon?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers

interface Run {
  fake: FakeAnthropic;
  project: Project;
  claude: ClaudeSession;
}

interface AskOptions {
  /** The project's .claude/askbridge.json. */
  config?: Record<string, unknown>;
  /** Extra environment for claude (and so for its hooks). */
  env?: Record<string, string>;
  /** The daemon the project's hooks reach (default: the shared one). */
  daemon?: Daemon;
  /** How the project's hook is wired (default: `askbridge install`, the http hook). */
  hooks?: HookWiring;
  /** Extra command-line arguments for claude. */
  args?: string[];
  /** Runs once the project is wired, before claude starts: a test's own twist on the set-up. */
  prepare?: (project: Project) => Promise<void>;
}

/** The transports every hook case can run through: `install` (http) and the settings example (command). */
const TRANSPORTS: Array<[string, HookWiring]> = [
  ['the http hook', 'install'],
  ['the command hook', 'example'],
];

/** A claude session in a fresh project, whose model has just called AskUserQuestion with `script`. */
async function askInTerminal(script: AskUserQuestionInput, options: AskOptions = {}): Promise<Run> {
  const fake = await startFakeAnthropic({ script });
  defer(() => fake.close());
  const target = options.daemon ?? daemon;
  const project = await createProject({ daemon: target, claudeBin: client().bin, ...(options.config ? { config: options.config } : {}), ...(options.hooks ? { hooks: options.hooks } : {}) });
  defer(() => project.remove());
  await options.prepare?.(project);
  const claude = await startClaude({
    baseUrl: fake.url,
    projectDir: project.dir,
    claudeBin: client().bin,
    env: { ...hookEnvOf(target), ...options.env },
    ...(options.args ? { args: options.args } : {}),
  });
  defer(() => claude.stop());
  await claude.submit('Ask me what you need to know.', { accepted: () => fake.mainRequests.length > 0 });
  return { fake, project, claude };
}

/**
 * The question as the daemon holds it, once the hook has handed it over, and its card on the page,
 * brought into focus there (`open: false`: only waiting in the page's inbox).
 */
async function pendingCard(run: Run, { open = true } = {}): Promise<AskView> {
  const question = await daemon.waitForAsk(run.fake.currentToolUseId, 30_000).catch(async (error: unknown) => {
    throw new Error(`${String(error)}\nScreen:\n${await run.claude.screen().catch(() => '(no screen)')}`);
  });
  if (open) await openAsk(answerPage.page, question.id);
  else await answerPage.page.locator(`[data-ask-id="${question.id}"]`).waitFor({ state: 'attached' });
  return question;
}

async function toolResultOf(run: Run, timeoutMs = 30_000): Promise<RecordedToolResult> {
  try {
    return await run.fake.waitForToolResult(timeoutMs);
  } catch (error) {
    const screen = await run.claude.screen().catch(() => '(no screen)');
    const { stdout, stderr } = daemon.output();
    throw new Error(`${String(error)}\nScreen:\n${screen}\nDaemon output (end):\n${stdout.slice(-3000)}\n--- daemon stderr\n${stderr.slice(-2000)}`);
  }
}

/** Waits until the card shows `status` in the page; fails with the status it has after 10 s. */
async function cardStatus(askId: string, status: string): Promise<void> {
  const card = answerPage.card(askId);
  try {
    await answerPage.page.locator(`[data-question-id="${askId}"][data-status="${status}"]`).waitFor({ state: 'attached', timeout: 10_000 });
  } catch {
    throw new Error(`card ${askId} is not "${status}" but "${String(await card.getAttribute('data-status').catch(() => '(no card)'))}"`);
  }
}

async function submitCard(askId: string): Promise<void> {
  await answerPage.card(askId).getByRole('button', { name: 'Submit', exact: true }).click();
}

/** The text of the message after the tool_result that carries the hook's additionalContext, if any. */
function hookContextOf(result: RecordedToolResult): string | undefined {
  return result.following.find((message) => message.text.includes(HOOK_CONTEXT_PREFIX))?.text;
}

/** The additionalContext must come as a system message right after the tool result, with exactly this text. */
function expectHookContext(result: RecordedToolResult, context: string): void {
  const next = result.following[0];
  expect(next, `messages after the tool_result: ${JSON.stringify(result.following)}`).toBeDefined();
  expect(next?.role).toBe('system');
  expect(next?.text).toBe(HOOK_CONTEXT_PREFIX + context);
}

/** Whether a process has exited: gone, or a zombie not yet reaped by its parent. */
function hasExited(pid: number): boolean {
  try {
    return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return true; // ps exits 1 when there is no such process
  }
}

async function realpathTemp(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

/** A port nothing listens on now (the system picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function historyOf(toolUseId: string): Promise<Record<string, unknown>> {
  return waitUntil(async () => (await daemon.history()).find((entry) => entry.toolUseId === toolUseId), 5_000, `history line for ${toolUseId}`);
}

// ---------------------------------------------------------------------------------------------

describe('askbridge answers reach the model through the real Claude Code client', () => {
  it('runs the Claude Code version it was asked to run (the pinned one unless CLAUDE_CODE_VERSION is set)', () => {
    const cc = client();
    console.log(`claude --version: ${cc.versionLine}`);
    expect(cc.versionLine).toMatch(/^\d+\.\d+\.\d+ \(Claude Code\)$/);
    expect(cc.version).toBe(cc.expectedVersion);
    if (!process.env.CLAUDE_CODE_VERSION) expect(cc.version).toBe(pinnedClaudeVersion());
  });

  it('delivers a single-select answer picked in the page as the exact tool_result', async () => {
    const run = await askInTerminal(DATABASE);
    const question = await pendingCard(run);
    // The hook ran from the project, as install wires it.
    expect(question.cwd).toBe(run.project.dir);
    // While the hook waits, the terminal shows the entry's status message, not a dialog. Claude Code
    // draws it on its next frame, which may come after the daemon has the question.
    const waiting = await run.claude.waitForScreen('Waiting for an answer in askbridge', 10_000);
    expect(waiting).not.toContain('Enter to select');

    await answerPage.question(question.id, 0).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(answeredText(pair('Which database should we use?', 'SQLite')));
    expect(hookContextOf(result)).toBeUndefined();
    await cardStatus(question.id, 'answered');
    expect(await historyOf(run.fake.currentToolUseId)).toMatchObject({ status: 'answered', source: 'person', detail: 'page' });
  });

  const wirings: Array<[string, AskOptions]> = [
    ['wired by the settings example (the command hook)', { hooks: 'example' }],
    ['wired by `askbridge install --project DIR --hook command`', { hooks: 'install-command' }],
    ['wired by the askbridge plugin (--plugin-dir, the command hook)', { hooks: 'none', args: ['--plugin-dir', REPO_ROOT] }],
  ];
  for (const [how, options] of wirings) {
    it(`delivers a single-select answer with the hook ${how}`, async () => {
      const run = await askInTerminal(DATABASE, options);
      const question = await pendingCard(run);
      expect(question.cwd).toBe(run.project.dir);
      await answerPage.question(question.id, 0).getByRole('radio', { name: 'Postgres', exact: true }).check();
      await submitCard(question.id);

      const result = await toolResultOf(run);
      expect(result.isError).toBe(false);
      expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres')));
    });
  }

  for (const [transport, hooks] of TRANSPORTS) {
    it(`delivers two multi-select labels in option order joined with ", ", whatever order they were ticked in (${transport})`, async () => {
      const run = await askInTerminal(CHECKS, { hooks });
      const question = await pendingCard(run);
      const fieldset = answerPage.question(question.id, 0);
      await fieldset.getByRole('checkbox', { name: 'Type check', exact: true }).check();
      await fieldset.getByRole('checkbox', { name: 'Unit tests', exact: true }).check();
      await submitCard(question.id);

      const result = await toolResultOf(run);
      expect(result.isError).toBe(false);
      expect(result.text).toBe(answeredText(pair('Which checks should run in CI?', 'Unit tests, Type check')));
    });
  }

  it('delivers multi-select labels that hold ", " exactly as the dialog joins them, and names each label to the model beside the answer', async () => {
    const run = await askInTerminal(CACHES);
    const question = await pendingCard(run);
    const fieldset = answerPage.question(question.id, 0);
    await fieldset.getByRole('checkbox', { name: 'Redis, shared', exact: true }).check();
    await fieldset.getByRole('checkbox', { name: 'HTTP cache, via CDN', exact: true }).check();
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    // Observed on 2.1.330: Claude Code splits the joined text at ", ", finds pieces that are not labels,
    // and words it as free text ("The user answered … Read the answers carefully"), as its own dialog would.
    console.log(`labels holding ", ": the tool_result the model reads:\n${result.text}\nand the message after it:\n${hookContextOf(result)}`);
    expect(result.text).toBe(userAnsweredText(pair('Which cache layers should I enable?', 'HTTP cache, via CDN, Redis, shared')));
    expectHookContext(result, 'Some option labels contain ", ", the separator of a multi-select answer. The answer to "Which cache layers should I enable?" picks 2 options "HTTP cache, via CDN" and "Redis, shared".');
  });

  it('delivers "Other" text in a single-select in place of the label that was ticked first', async () => {
    const run = await askInTerminal(DATABASE);
    const question = await pendingCard(run);
    const fieldset = answerPage.question(question.id, 0);
    await fieldset.getByRole('radio', { name: 'Postgres', exact: true }).check();
    await fieldset.getByRole('textbox', { name: 'Other', exact: true }).fill('DuckDB, because analytics');
    // Typing is choosing: the Other radio took the place of Postgres.
    expect(await fieldset.getByRole('radio', { name: 'Other', exact: true }).isChecked()).toBe(true);
    expect(await fieldset.getByRole('radio', { name: 'Postgres', exact: true }).isChecked()).toBe(false);
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    // Free text makes Claude Code use its "read carefully" wording, as for its own "Type something." row.
    expect(result.text).toBe(userAnsweredText(pair('Which database should we use?', 'DuckDB, because analytics')));
  });

  it('delivers "Other" text in a multi-select appended after the ticked labels', async () => {
    const run = await askInTerminal(CHECKS);
    const question = await pendingCard(run);
    const fieldset = answerPage.question(question.id, 0);
    await fieldset.getByRole('checkbox', { name: 'Lint', exact: true }).check();
    await fieldset.getByRole('checkbox', { name: 'Unit tests', exact: true }).check();
    await fieldset.getByRole('textbox', { name: 'Other', exact: true }).fill('Fuzz tests');
    expect(await fieldset.getByRole('checkbox', { name: 'Other', exact: true }).isChecked()).toBe(true);
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(userAnsweredText(pair('Which checks should run in CI?', 'Unit tests, Lint, Fuzz tests')));
  });

  it('delivers a note typed in the page to the model beside the answer (annotations notes)', async () => {
    const run = await askInTerminal(DATABASE);
    const question = await pendingCard(run);
    const fieldset = answerPage.question(question.id, 0);
    await fieldset.getByRole('radio', { name: 'Postgres', exact: true }).check();
    await fieldset.getByRole('button', { name: 'Add a note', exact: true }).click();
    await fieldset.getByRole('textbox', { name: 'Note', exact: true }).fill('keep it boring, we know it well');
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    // The note rides on the pair as ` notes: ...`, and makes Claude Code use its free-text wording.
    expect(result.text).toBe(userAnsweredText(`${pair('Which database should we use?', 'Postgres')} notes: keep it boring, we know it well`));
    expect(await historyOf(run.fake.currentToolUseId)).toMatchObject({ notes: { 'Which database should we use?': 'keep it boring, we know it well' } });
  });

  it("delivers the chosen option's preview exactly as Claude Code's own dialog does (same pick made in the terminal)", async () => {
    const inPage = await askInTerminal(LAYOUT);
    const question = await pendingCard(inPage);
    await answerPage.question(question.id, 0).getByRole('radio', { name: 'Table', exact: true }).check();
    await submitCard(question.id);
    const fromPage = await toolResultOf(inPage);

    // The same question answered in Claude Code's own dialog: a project with no hook at all.
    const inTerminal = await askInTerminal(LAYOUT, { hooks: 'none' });
    await inTerminal.claude.waitForScreen(/Which layout should the report use\?[\s\S]*Enter to select/, 20_000);
    // Enter picks the highlighted first option, Table.
    await inTerminal.claude.pressKeyUntil('Enter', () => inTerminal.fake.toolResult !== undefined);
    const fromTerminal = await toolResultOf(inTerminal);

    const expected = answeredText(`${pair('Which layout should the report use?', 'Table')} selected preview:\n| name | total |\n|------|-------|\n| a    | 1     |`);
    expect(fromTerminal.text).toBe(expected);
    expect(fromPage.text).toBe(fromTerminal.text);
    expect(fromPage.isError).toBe(false);
  });

  it('delivers all four answers of a four-question call, in question order', async () => {
    const run = await askInTerminal(FOUR);
    const question = await pendingCard(run);
    await answerPage.question(question.id, 0).getByRole('radio', { name: 'Postgres', exact: true }).check();
    await answerPage.question(question.id, 1).getByRole('checkbox', { name: 'Lint', exact: true }).check();
    await answerPage.question(question.id, 1).getByRole('checkbox', { name: 'Unit tests', exact: true }).check();
    await answerPage.question(question.id, 2).getByRole('radio', { name: 'Nowhere yet', exact: true }).check();
    await answerPage.question(question.id, 3).getByRole('radio', { name: 'Apache-2.0', exact: true }).check();
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      answeredText(
        pair('Which database should we use?', 'Postgres'),
        pair('Which checks should run in CI?', 'Unit tests, Lint'),
        pair('Where should it deploy?', 'Nowhere yet'),
        pair('Which license?', 'Apache-2.0'),
      ),
    );
  });

  it('refuses, as the page does, to send one answer of four from the CLI; all four, options given by number, reach the model', async () => {
    const run = await askInTerminal(FOUR);
    const question = await pendingCard(run);
    const partial = await runCli(['answer', question.id, '--pick', '3=A VPS'], daemon.env);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain('every question needs an answer, as on the page');
    await sleep(500);
    expect(run.fake.toolResult).toBeUndefined();
    expect((await daemon.ask(question.id)).status).toBe('pending');

    const cli = await runCli(['answer', question.id, '--pick', '1=2', '--pick', '2=1', '--pick', '2=3', '--pick', '3=A VPS', '--pick', '4=1'], daemon.env);
    expect(cli.code, cli.stderr).toBe(0);
    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      answeredText(
        pair('Which database should we use?', 'SQLite'),
        pair('Which checks should run in CI?', 'Unit tests, Type check'),
        pair('Where should it deploy?', 'A VPS'),
        pair('Which license?', 'MIT'),
      ),
    );
  });

  it('keys answers by the exact question text: emoji, accents (composed and decomposed), CJK and a newline arrive byte for byte', async () => {
    const run = await askInTerminal(UNICODE);
    const question = await pendingCard(run);
    expect(question.questions.map((q) => q.question)).toEqual([UNICODE_SINGLE, UNICODE_MULTI]);
    await answerPage.question(question.id, 0).getByRole('radio', { name: '喫茶店 Ōkubo', exact: true }).check();
    const multi = answerPage.question(question.id, 1);
    await multi.getByRole('checkbox', { name: 'Crêpes (Cafe\u0301)', exact: true }).check();
    await multi.getByRole('checkbox', { name: 'ラーメン 🍜', exact: true }).check();
    await submitCard(question.id);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    const expected = answeredText(pair(UNICODE_SINGLE, '喫茶店 Ōkubo'), pair(UNICODE_MULTI, 'ラーメン 🍜, Crêpes (Cafe\u0301)'));
    expect(result.text).toBe(expected);
    expect(Buffer.from(result.text, 'utf8').equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(result.text).toContain('\n');
  });

  it('answers with the recommended option after waitSeconds, and tells the model no person chose it', async () => {
    const run = await askInTerminal(RECOMMENDED, { config: { waitSeconds: 2, onTimeout: 'recommended' } });
    const question = await pendingCard(run);
    expect(question.expiresAt - question.createdAt).toBe(2_000);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres (Recommended)')));
    // It waited for a person first.
    const answeredAt = run.fake.requests[result.requestIndex]?.receivedAt ?? 0;
    expect(answeredAt - question.createdAt).toBeGreaterThanOrEqual(1_900);
    // The additionalContext follows the tool result as its own message.
    expectHookContext(result, policyContext('the recommended option', 'nobody answered within 2 seconds'));
    expect(result.text).not.toContain('No person answered');
    await cardStatus(question.id, 'answered');
    expect(await historyOf(run.fake.currentToolUseId)).toMatchObject({ source: 'recommended', detail: 'timeout' });
  });

  it('declines by policy after waitSeconds: the model gets an error result with the reason and no answer', async () => {
    const run = await askInTerminal(DATABASE, { config: { waitSeconds: 2, onTimeout: 'decline' } });
    const question = await pendingCard(run);

    const result = await toolResultOf(run);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(`${HOOK_ERROR_PREFIX}Nobody is available to answer these questions right now (nobody answered within 2 seconds). ${PROCEED}`);
    expect(result.text).not.toMatch(ANY_PAIR);
    expect(hookContextOf(result)).toBeUndefined();
    await cardStatus(question.id, 'declined');
  });

  it('declines from the page\'s "Decline" button: the model gets an error result saying the user declined', async () => {
    const run = await askInTerminal(DATABASE);
    const question = await pendingCard(run);
    await answerPage.card(question.id).getByRole('button', { name: 'Decline', exact: true }).click();

    const result = await toolResultOf(run);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(`${HOOK_ERROR_PREFIX}The user declined to answer these questions. ${PROCEED}`);
    expect(result.text).not.toMatch(ANY_PAIR);
    await cardStatus(question.id, 'declined');
  });

  for (const [transport, hooks] of TRANSPORTS) {
    it(`leaves the question to the native terminal dialog when the daemon is not running, and only the terminal answer reaches the model (${transport})`, async () => {
      // A daemon that ran, was wired into the project, and was stopped: its state directory (its
      // old token, its hook key) is still there, and nothing listens on its port.
      const stopped = await startAskbridgeDaemon();
      defer(() => stopped.stop());
      stopped.expectExit();
      const run = await askInTerminal(DATABASE, {
        daemon: stopped,
        hooks,
        prepare: async (project) => {
          // Without its SessionStart hook, which would start the daemon again.
          if (hooks === 'install') await editLocalSettings(project, (settings) => delete settings.hooks.SessionStart);
          const stop = await runCli(['stop'], stopped.env);
          expect(stop.code, stop.stderr).toBe(0);
          await waitUntil(() => (stopped.running() ? undefined : true), 5_000, 'the stopped daemon to exit');
        },
      });
      const screen = await run.claude.waitForScreen(/Which database should we use\?[\s\S]*Postgres[\s\S]*SQLite/, 20_000);
      expect(screen).toMatch(/Enter to select/);
      // Nothing answers on its own: no tool_result while the dialog waits for a person.
      await sleep(1_500);
      expect(run.fake.toolResult).toBeUndefined();
      expect(run.fake.mainRequests).toHaveLength(1);
      expect((await daemon.pending()).some((q) => q.toolUseId === run.fake.currentToolUseId)).toBe(false);

      // The person at the terminal answers (Enter picks the highlighted first option).
      await run.claude.pressKeyUntil('Enter', () => run.fake.toolResult !== undefined);
      const result = await toolResultOf(run);
      expect(result.isError).toBe(false);
      expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres')));
    });

    it(`withdraws the card within one second of Esc in the terminal, and no answer reaches the model (${transport})`, async () => {
      const run = await askInTerminal(DATABASE, { hooks });
      const question = await pendingCard(run);
      await run.claude.waitForScreen('esc to interrupt', 10_000);

      const pressedAt = Date.now();
      await run.claude.pressKey('Escape');
      const change = await waitUntil(async () => (await answerPage.statusChanges(question.id))[0], 5_000, 'the card to leave the pending state');
      const latencyMs = change.at - pressedAt;
      console.log(`Esc -> card "${change.status}" in the page (${transport}): ${latencyMs} ms`);
      expect(change.status).toBe('cancelled');
      expect(latencyMs).toBeLessThan(1_000);
      await cardStatus(question.id, 'cancelled');

      // A late answer is refused: the question is over.
      const late = await runCli(['answer', question.id, '--pick', '1=Postgres'], daemon.env);
      expect(late.code).toBe(3);
      expect(late.stderr).toContain('cancelled');
      expect((await daemon.ask(question.id)).answers).toBeUndefined();

      // The turn stops: the client sends nothing more until the person types again.
      await run.claude.waitForScreen(/Declined to answer Claude's questions|Interrupted/, 10_000);
      await sleep(1_000);
      expect(run.fake.mainRequests).toHaveLength(1);
      expect(run.fake.toolResult).toBeUndefined();

      // The next request carries the rejection in place of answers.
      await run.claude.submit('Go on.', { accepted: () => run.fake.mainRequests.length > 1 });
      const result = await toolResultOf(run);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^The user doesn't want to proceed with this tool use\./);
      expect(result.text).not.toMatch(ANY_PAIR);
      expect(result.text).not.toContain('Postgres');
      expect(result.following.map((message) => message.text).join('\n')).toContain('[Request interrupted by user for tool use]');
    });
  }

  // Observed with 2.1.330: `/exit` typed while the hook waits runs the SessionEnd hooks before it
  // drops an http hook's request; a command hook it ends first (SIGTERM, as for Esc), and runs
  // SessionEnd about 1.4 s later, when nothing of the session waits any more. The card goes at once either way.
  const EXIT_SOURCES: Record<string, AskView['source']> = { install: { kind: 'session-ended' }, example: { kind: 'hook-gone' } };
  for (const [transport, hooks] of TRANSPORTS) {
    it(`withdraws the card when the session ends while its question waits (/exit), and nothing reaches the model (${transport})`, async () => {
      const run = await askInTerminal(DATABASE, { hooks });
      const question = await pendingCard(run);
      await run.claude.waitForScreen('esc to interrupt', 10_000);
      await run.claude.type('/exit');
      await run.claude.waitForScreen('Exit the CLI', 10_000);
      const pressedAt = Date.now();
      await run.claude.pressKey('Enter');
      const change = await waitUntil(async () => (await answerPage.statusChanges(question.id))[0], 10_000, 'the card to leave the pending state');
      console.log(`/exit -> card "${change.status}" in the page (${transport}): ${change.at - pressedAt} ms`);
      expect(change.status).toBe('cancelled');
      expect((await daemon.ask(question.id)).source).toEqual(EXIT_SOURCES[hooks]);
      // Claude Code exits: its process is gone, or a zombie its tmux pane has not reaped yet (which
      // happens: something else may still hold the terminal for a while).
      await waitUntil(() => (hasExited(run.claude.pid) ? true : undefined), 15_000, 'claude to exit');
      expect(run.fake.toolResult).toBeUndefined();
      expect(await historyOf(run.fake.currentToolUseId)).toMatchObject({ status: 'cancelled', source: 'cancelled' });
    });
  }

  it('lets the terminal ask when the http hook sends a key that is not the current one: the daemon refuses it, nothing is shown', async () => {
    const run = await askInTerminal(DATABASE, {
      prepare: (project) =>
        editLocalSettings(project, (settings) => {
          const headers = settings.hooks.PreToolUse![0]!.hooks[0]!.headers as Record<string, string>;
          headers['x-askbridge-hook-key'] = 'a-key-from-before-a-rotation-0123456789abcd';
        }),
    });
    const screen = await run.claude.waitForScreen(/Which database should we use\?[\s\S]*Postgres[\s\S]*SQLite/, 20_000);
    console.log(`wrong hook key: the screen above the dialog:\n${screen.split('Which database')[0]?.slice(-600)}`);
    expect((await daemon.pending()).some((q) => q.toolUseId === run.fake.currentToolUseId)).toBe(false);
    await daemon.waitForLog((entry) => entry.msg === 'request refused without a valid credential: the first of its kind, the rest are counted' && entry.code === 'bad_hook_key', 5_000, 'the refusal in the log');
    await run.claude.pressKeyUntil('Enter', () => run.fake.toolResult !== undefined);
    const result = await toolResultOf(run);
    expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres')));
  });

  it("lets the terminal ask when the http hook's own timeout ends before askbridge's wait, and withdraws the card", async () => {
    const run = await askInTerminal(DATABASE, {
      config: { waitSeconds: 600 },
      prepare: (project) =>
        editLocalSettings(project, (settings) => {
          settings.hooks.PreToolUse![0]!.hooks[0]!.timeout = 3;
        }),
    });
    const question = await pendingCard(run);
    // Claude Code closes the request when the entry's timeout runs out: the card goes, the dialog comes.
    await cardStatus(question.id, 'cancelled');
    const withdrawnAfterMs = ((await daemon.ask(question.id)).resolvedAt ?? 0) - question.createdAt;
    console.log(`http hook timeout 3 s: card withdrawn ${withdrawnAfterMs} ms after it was asked`);
    expect(withdrawnAfterMs).toBeGreaterThanOrEqual(2_500);
    await run.claude.waitForScreen(/Which database should we use\?[\s\S]*Enter to select/, 20_000);
    expect(run.fake.toolResult).toBeUndefined();
    await run.claude.pressKeyUntil('Enter', () => run.fake.toolResult !== undefined);
    expect((await toolResultOf(run)).text).toBe(answeredText(pair('Which database should we use?', 'Postgres')));
  });

  it('answers ten questions from two sessions, two waiting at once each round, every answer reaching its own session', async () => {
    const names = ['A', 'B'];
    const ask = (session: string, round: number): AskUserQuestionInput => ({
      questions: [{ ...DATABASE.questions[0]!, question: `Session ${session}, question ${round + 1}: which database should we use?` }],
    });
    const labelFor = (session: number, round: number) => ((session + round) % 2 === 0 ? 'Postgres' : 'SQLite');
    const runs = await Promise.all(names.map((name) => askInTerminal(ask(name, 0))));
    for (let round = 0; round < 5; round++) {
      if (round > 0) {
        await Promise.all(
          runs.map(async (run, session) => {
            const before = run.fake.mainRequests.length;
            run.fake.setScript(ask(names[session]!, round));
            await run.claude.submit('Next question, please.', { accepted: () => run.fake.mainRequests.length > before });
          }),
        );
      }
      const questions = await Promise.all(runs.map((run) => pendingCard(run, { open: false })));
      const waiting = (await daemon.pending()).map((question) => question.id);
      expect(waiting).toEqual(expect.arrayContaining(questions.map((question) => question.id)));
      // Answered in the other order than asked, each by its own id.
      for (const session of [1, 0]) {
        const cli = await runCli(['answer', questions[session]!.id, '--pick', `1=${labelFor(session, round)}`], daemon.env);
        expect(cli.code, cli.stderr).toBe(0);
      }
      const results = await Promise.all(runs.map((run) => toolResultOf(run)));
      results.forEach((result, session) => {
        expect(result.text).toBe(answeredText(pair(ask(names[session]!, round).questions[0]!.question, labelFor(session, round))));
      });
    }
  });

  it('answers an MCP client: Claude Code, with `askbridge mcp` registered, calls mcp__askbridge__ask_user and the model receives the answer given in the page', async () => {
    const fake = await startFakeAnthropic({ script: DATABASE, tool: 'mcp__askbridge__ask_user' });
    defer(() => fake.close());
    const project = await createProject({ hooks: 'none' });
    defer(() => project.remove());
    // Registered as `claude mcp add` would, in a file given with --mcp-config (the test's HOME is Claude Code's own).
    const mcpConfig = join(project.dir, 'askbridge-mcp.json');
    await writeFile(mcpConfig, JSON.stringify({ mcpServers: { askbridge: { command: process.execPath, args: [CLI_BIN, 'mcp'], env: hookEnvOf(daemon) } } }));
    const claude = await startClaude({
      baseUrl: fake.url,
      projectDir: project.dir,
      claudeBin: client().bin,
      args: ['--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', 'mcp__askbridge__ask_user'],
    });
    defer(() => claude.stop());
    await claude.submit('Ask me what you need to know.', { accepted: () => fake.mainRequests.length > 0 });
    expect(JSON.stringify(fake.mainRequests[0]?.body)).toContain('mcp__askbridge__ask_user');

    const question = await waitUntil(async () => (await daemon.pending()).find((waiting) => waiting.asker?.kind === 'mcp'), 30_000, 'the MCP question in the daemon').catch(async (error: unknown) => {
      throw new Error(`${String(error)}\nScreen:\n${await claude.screen().catch(() => '(no screen)')}`);
    });
    expect(question.cwd).toBe(project.dir);
    await answerPage.question(question.id, 0).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await submitCard(question.id);

    const result = await fake.waitForToolResult(30_000);
    expect(result.isError).toBe(false);
    // Claude Code 2.1.330 gives the model the structured content only, when there is some: the sentence is in it.
    expect(JSON.parse(result.text)).toEqual({ message: answeredText(pair('Which database should we use?', 'SQLite')), status: 'answered', answers: { 'Which database should we use?': 'SQLite' }, notes: {}, answeredBy: 'person' });
    await cardStatus(question.id, 'answered');
  });

  it('warns at session start that another program holds the port the http hook posts to, and the terminal asks', async () => {
    const home = await realpathTemp('askbridge-conformance-squatted-');
    const squatter = createHttpServer((_request, response) => response.end('not askbridge'));
    await new Promise<void>((listening) => squatter.listen(0, '127.0.0.1', listening));
    defer(async () => {
      squatter.close();
      await rm(home, { recursive: true, force: true });
    });
    const port = (squatter.address() as AddressInfo).port;
    const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: String(port), XDG_CONFIG_HOME: join(home, 'xdg-config') });
    const fake = await startFakeAnthropic({ script: DATABASE });
    defer(() => fake.close());
    const root = await realpathTemp('askbridge-conformance-squatted-project-');
    defer(() => rm(root, { recursive: true, force: true }));
    const installed = await runCli(['install', '--project', root, '--hook', 'http', '--claude', client().bin], { ...env, HOME: root });
    expect(installed.code, installed.stderr).toBe(0);

    const claude = await startClaude({ baseUrl: fake.url, projectDir: root, claudeBin: client().bin, env: { ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: join(home, 'xdg-config') } });
    defer(() => claude.stop());
    await claude.waitForScreen(`SessionStart:startup says: askbridge: another program holds 127.0.0.1:${port}`, 20_000);
    await claude.submit('Ask me what you need to know.', { accepted: () => fake.mainRequests.length > 0 });
    await claude.waitForScreen(/Which database should we use\?[\s\S]*Enter to select/, 20_000);
  });

  it('starts the daemon from the SessionStart hook when none runs; the question reaches it, and with nobody to tell it is in Claude Code’s own dialog at once', async () => {
    // A state directory no daemon has used, and a port nothing listens on: install wires both.
    const home = await realpathTemp('askbridge-conformance-session-start-');
    const port = await freePort();
    const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: String(port), XDG_CONFIG_HOME: join(home, 'xdg-config') });
    defer(async () => {
      await runCli(['stop'], env);
      await rm(home, { recursive: true, force: true });
    });
    const fake = await startFakeAnthropic({ script: DATABASE });
    defer(() => fake.close());
    const root = await realpathTemp('askbridge-conformance-session-start-project-');
    defer(() => rm(root, { recursive: true, force: true }));
    const installed = await runCli(['install', '--project', root, '--hook', 'http', '--claude', client().bin], { ...env, HOME: root });
    expect(installed.code, installed.stderr).toBe(0);
    expect((await runCli(['status'], env)).code).not.toBe(0);

    const claude = await startClaude({ baseUrl: fake.url, projectDir: root, claudeBin: client().bin, env: { ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: join(home, 'xdg-config') } });
    defer(() => claude.stop());
    // The session's start started it, in the background, on the port the hook entry names.
    const status = await waitUntil(async () => {
      const result = await runCli(['status', '--json'], env);
      return result.code === 0 ? (JSON.parse(result.stdout) as { port: number }) : undefined;
    }, 20_000, 'the daemon started by the SessionStart hook');
    expect(status.port).toBe(port);

    await claude.submit('Ask me what you need to know.', { accepted: () => fake.mainRequests.length > 0 });
    // A new user's daemon: no page, no terminal watching, nobody to tell (the defaults): Claude Code's own dialog asks at once.
    await claude.waitForScreen(/Which database should we use\?[\s\S]*Enter to select/, 20_000);
    const line = await waitUntil(async () => {
      const history = await runCli(['history', '--json'], env);
      return history.stdout
        .split('\n')
        .filter(Boolean)
        .map((each) => JSON.parse(each) as { toolUseId: string; status: string; detail?: string })
        .find((each) => each.toolUseId === fake.currentToolUseId);
    }, 10_000, 'the question in the history of the daemon the session started');
    expect(line).toMatchObject({ status: 'handed-to-terminal', detail: 'nobody-reachable' });
    await claude.pressKeyUntil('Enter', () => fake.toolResult !== undefined);
    const result = await fake.waitForToolResult(30_000);
    expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres')));
  });

  // Claude Code marks an SDK-hosted session for hook processes only (CLAUDE_CODE_SESSION_ATTENDED=0):
  // the command hook reads it; an http hook cannot, so the SDK host sets ASKBRIDGE_UNATTENDED=1,
  // which the http entry forwards, as docs/configuration.md tells SDK hosts to.
  const sdkCases: Array<[string, HookWiring, Record<string, string>]> = [
    ["Claude Code's own CLAUDE_CODE_SESSION_ATTENDED=0, read by the command hook", 'example', {}],
    ['ASKBRIDGE_UNATTENDED=1 set by the SDK host, forwarded by the http hook', 'install', { ASKBRIDGE_UNATTENDED: '1' }],
  ];
  for (const [mark, hooks, hostEnv] of sdkCases) {
    it(`answers at once with the recommended option when an SDK host runs the session (${mark}), despite waitSeconds 600`, async () => {
      const fake = await startFakeAnthropic({ script: RECOMMENDED });
      defer(() => fake.close());
      const project = await createProject({ config: { onTimeout: 'recommended', waitSeconds: 600 }, daemon, hooks, claudeBin: client().bin });
      defer(() => project.remove());
      const sdk = await startSdkSession({ bin: client().bin, baseUrl: fake.url, projectDir: project.dir, env: { ...hookEnvOf(daemon), ...hostEnv } });
      defer(() => sdk.stop());

      // All the client needs: one user message as stream-json on stdin (no initialize request).
      sdk.send({ type: 'user', message: { role: 'user', content: 'Ask me what you need to know.' }, parent_tool_use_id: null, session_id: '' });
      const init = await sdk.waitForMessage((m) => m.type === 'system' && m.subtype === 'init', 30_000, 'the init message');
      expect(init.claude_code_version).toBe(client().version);
      expect(init.tools).toContain('AskUserQuestion');

      const result = await fake.waitForToolResult(60_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\nclaude stderr: ${sdk.stderr().slice(-2000)}\nmessages: ${JSON.stringify(sdk.messages).slice(-4000)}`);
      });
      const askedAt = fake.mainRequests[0]?.receivedAt ?? 0;
      const answeredAfterMs = (fake.requests[result.requestIndex]?.receivedAt ?? 0) - askedAt;
      console.log(`SDK session: the policy answered ${answeredAfterMs} ms after the model asked (waitSeconds 600)`);
      expect(answeredAfterMs).toBeLessThan(15_000);
      expect(result.isError).toBe(false);
      expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres (Recommended)')));
      expectHookContext(result, policyContext('the recommended option', 'nobody was watching when it was asked'));
      // The page is connected and whenNobodyWatching is "wait": only the session's mark made it unattended.
      expect(await historyOf(fake.currentToolUseId)).toMatchObject({ source: 'recommended', detail: 'nobody-watching' });

      // What the client printed: the tool result with the answers, decided by the hook, and no permission request to the host.
      const echoed = await sdk.waitForMessage(
        (m) => m.type === 'user' && JSON.stringify(m).includes(fake.currentToolUseId) && typeof m.tool_use_result === 'object',
        10_000,
        'the tool result on stdout',
      );
      expect(echoed.tool_use_result).toMatchObject({ answers: { 'Which database should we use?': 'Postgres (Recommended)' } });
      expect(JSON.stringify(echoed.tool_result_meta)).toContain('"source":"hook"');
      const done = await sdk.waitForMessage((m) => m.type === 'result', 30_000, 'the result message');
      expect(done.subtype).toBe('success');
      expect(sdk.messages.some((m) => m.type === 'control_request')).toBe(false);
    });
  }

  it('waits for a person in an attended terminal session with the same config (the control for the SDK case)', async () => {
    const run = await askInTerminal(RECOMMENDED, { config: { onTimeout: 'recommended', waitSeconds: 600 } });
    const question = await pendingCard(run);
    expect(question.expiresAt - question.createdAt).toBe(600_000);
    await sleep(3_000);
    expect((await daemon.ask(question.id)).status).toBe('pending');
    expect(run.fake.toolResult).toBeUndefined();

    await answerPage.question(question.id, 0).getByRole('radio', { name: 'SQLite', exact: true }).check();
    await submitCard(question.id);
    const result = await toolResultOf(run);
    expect(result.text).toBe(answeredText(pair('Which database should we use?', 'SQLite')));
    expect(hookContextOf(result)).toBeUndefined();
  });

  it('answers at once with the recommended option in a terminal session whose hook has ASKBRIDGE_UNATTENDED=1', async () => {
    const run = await askInTerminal(RECOMMENDED, { config: { onTimeout: 'recommended', waitSeconds: 600 }, env: { ASKBRIDGE_UNATTENDED: '1' } });
    const result = await toolResultOf(run, 20_000);
    const answeredAfterMs = (run.fake.requests[result.requestIndex]?.receivedAt ?? 0) - (run.fake.mainRequests[0]?.receivedAt ?? 0);
    expect(answeredAfterMs).toBeLessThan(15_000);
    expect(result.text).toBe(answeredText(pair('Which database should we use?', 'Postgres (Recommended)')));
    expectHookContext(result, policyContext('the recommended option', 'nobody was watching when it was asked'));
    expect(await historyOf(run.fake.currentToolUseId)).toMatchObject({ source: 'recommended', detail: 'nobody-watching' });
  });
});
