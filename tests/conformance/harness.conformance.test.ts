/**
 * Proves the conformance harness: the real Claude Code client, in tmux, asks
 * the scripted question, a fixed PreToolUse hook answers it, and the fake
 * model receives the answer exactly as Claude would.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { preToolUseHookSettings, startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { CHECKS, DATABASE } from './questions.js';
import type { AskUserQuestionInput, FakeAnthropic, RecordedToolResult } from './fake-anthropic.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const STATIC_HOOK = resolve(HERE, 'fixtures', 'static-hook.mjs');

interface StaticHookConfig {
  answers?: string[];
  additionalContext?: string;
  silent?: boolean;
}

/** What the static hook saved about its own run. */
interface HookRecord {
  input: {
    hook_event_name: string;
    tool_name: string;
    tool_use_id: string;
    session_id: string;
    cwd: string;
    tool_input: AskUserQuestionInput;
  };
  env: Record<string, string | null>;
  cwd: string;
}

interface Harness {
  fake: FakeAnthropic;
  claude: ClaudeSession;
  hookRecordPath: string;
}

let cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  // Reverse order: claude first (it holds connections to the fake server), then the server, then files.
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch(() => undefined);
});

async function setUp(script: AskUserQuestionInput, hookConfig: StaticHookConfig): Promise<Harness> {
  const fixtureDir = await mkdtemp(join(tmpdir(), 'askbridge-hook-config-'));
  cleanups.push(() => rm(fixtureDir, { recursive: true, force: true }));
  const hookRecordPath = join(fixtureDir, 'hook-input.json');
  const configPath = join(fixtureDir, 'hook-config.json');
  await writeFile(configPath, JSON.stringify({ ...hookConfig, recordTo: hookRecordPath }));

  const fake = await startFakeAnthropic({ script });
  cleanups.push(() => fake.close());

  const claude = await startClaude({
    baseUrl: fake.url,
    settings: preToolUseHookSettings(`"${process.execPath}" "${STATIC_HOOK}" "${configPath}"`, { timeout: 60 }),
  });
  cleanups.push(() => claude.stop());
  return { fake, claude, hookRecordPath };
}

/** Submits the prompt; accepted once the fake model got a new main-conversation request. */
async function submitPrompt(harness: Harness, prompt: string): Promise<void> {
  const before = harness.fake.mainRequests.length;
  await harness.claude.submit(prompt, { accepted: () => harness.fake.mainRequests.length > before });
}

/** waitForToolResult, with the terminal screen added to the error so failures explain themselves. */
async function toolResultOf(harness: Harness, timeoutMs = 45_000): Promise<RecordedToolResult> {
  try {
    return await harness.fake.waitForToolResult(timeoutMs);
  } catch (error) {
    const screen = await harness.claude.screen().catch(() => '(no screen)');
    throw new Error(`${String(error)}\nScreen:\n${screen}`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readHookRecord(path: string): HookRecord {
  return JSON.parse(readFileSync(path, 'utf8')) as HookRecord;
}

describe('conformance harness with a static hook', () => {
  it('delivers a single-select answer to the model as the tool_result', async () => {
    const harness = await setUp(DATABASE, { answers: ['Postgres'] });
    await submitPrompt(harness, 'Ask me which database to use.');

    const result = await toolResultOf(harness);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('"Which database should we use?"="Postgres"');
    expect(result.text).toBe(
      'Your questions have been answered: "Which database should we use?"="Postgres". You can now continue with these answers in mind.',
    );

    // The hook saw the very call the model made, from the project directory.
    const record = readHookRecord(harness.hookRecordPath);
    expect(record.input.hook_event_name).toBe('PreToolUse');
    expect(record.input.tool_name).toBe('AskUserQuestion');
    expect(record.input.tool_use_id).toBe(harness.fake.currentToolUseId);
    expect(record.input.tool_input).toEqual(DATABASE);
    expect(record.cwd).toBe(harness.claude.projectDir);
    expect(record.env.CLAUDE_PROJECT_DIR).toBe(harness.claude.projectDir);

    expect(record.env.CLAUDE_PID).toBe(String(harness.claude.pid));

    // The turn ends with the fake model's closing text, shown in the terminal.
    await harness.claude.waitForScreen('Thanks, I will go with that.', 15_000);

    // stop() leaves nothing behind: no claude process, no tmux server, no temp dirs.
    await harness.claude.stop();
    expect(isAlive(harness.claude.pid)).toBe(false);
    expect(existsSync(harness.claude.socketPath)).toBe(false);
    expect(existsSync(harness.claude.homeDir)).toBe(false);
    expect(existsSync(harness.claude.projectDir)).toBe(false);
  });

  it('delivers a multi-select answer joined with ", "', async () => {
    const harness = await setUp(CHECKS, { answers: ['Unit tests, Type check'] });
    await submitPrompt(harness, 'Ask me which CI checks to run.');

    const result = await toolResultOf(harness);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('"Which checks should run in CI?"="Unit tests, Type check"');
    expect(result.text).toMatch(/^Your questions have been answered: /);
  });

  it('delivers additionalContext as a separate message after the tool_result', async () => {
    const context = 'The answer was chosen by policy askbridge-default, not by a person.';
    const harness = await setUp(DATABASE, { answers: ['SQLite'], additionalContext: context });
    await submitPrompt(harness, 'Ask me which database to use.');

    const result = await toolResultOf(harness);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('"Which database should we use?"="SQLite"');
    // The context is not folded into the tool_result itself.
    expect(result.text).not.toContain(context);

    const carrier = result.following.find((m) => m.text.includes(context));
    expect(carrier, `following messages: ${JSON.stringify(result.following)}`).toBeDefined();
    expect(['system', 'user']).toContain(carrier?.role);
    expect(carrier?.text).toContain(`PreToolUse:AskUserQuestion hook additional context: ${context}`);
  });

  it('shows the native dialog when the hook prints nothing, and the terminal answer reaches the model', async () => {
    const harness = await setUp(DATABASE, { silent: true });
    await submitPrompt(harness, 'Ask me which database to use.');

    const screen = await harness.claude.waitForScreen(/Which database should we use\?[\s\S]*Postgres[\s\S]*SQLite/, 45_000);
    expect(screen).toContain('Type something.');
    expect(screen).toMatch(/Enter to select/);
    // The dialog shows because the hook gave no decision, not because it did not run.
    expect(existsSync(harness.hookRecordPath)).toBe(true);
    expect(readHookRecord(harness.hookRecordPath).input.tool_use_id).toBe(harness.fake.currentToolUseId);
    expect(harness.fake.toolResult).toBeUndefined();

    // Picking the highlighted first option in the terminal answers the call.
    // The dialog drops keys in its first moments, hence the retrying press.
    await harness.claude.pressKeyUntil('Enter', () => harness.fake.toolResult !== undefined);
    const result = await toolResultOf(harness);
    expect(result.text).toContain('"Which database should we use?"="Postgres"');
  });
});
