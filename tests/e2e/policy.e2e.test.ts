// Timeout policies end to end: the real daemon process, the real hook process, config files on disk.
import { mkdtemp, rm, writeFile, mkdir, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import type { HookOutput } from '../../src/daemon/decisions/claude-code.js';

const DATABASE = 'Which database should the new orders service use?';
const CHECKS = 'Which checks should run in CI?';
/**
 * Who or what settled the ask of `payload`. A policy that acts as the question is asked says so in its
 * trigger (`immediately`, `nobody-watching`), one that waited for the wait to run out says `timeout`.
 * How fast the first kind is, the bench measures (rows 1 and 1a).
 */
const settledBy = async (payload: HookPayload) => (await daemon.finishedAsk(payload.tool_use_id)).source;

let daemon: Daemon;
let project: string;
let runs = 0;

beforeAll(async () => {
  daemon = await startDaemon();
  project = await mkdtemp(join(tmpdir(), 'askbridge-project-'));
  await mkdir(join(project, '.claude'));
  await mkdir(join(project, 'src'));
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
  await rm(project, { recursive: true, force: true });
});

/**
 * Write the project's .claude/askbridge.json, as the user does, and trust it with the real
 * `askbridge trust` (a file that does not parse cannot be trusted: it stays as written, untrusted).
 * Each write gets a later mtime, as an editor's would.
 */
async function projectConfig(config: unknown, options: { trust: boolean } = { trust: true }): Promise<void> {
  const path = join(project, '.claude', 'askbridge.json');
  await writeFile(path, typeof config === 'string' ? config : JSON.stringify(config));
  const stamp = new Date(Date.now() + ++runs * 1000);
  await utimes(path, stamp, stamp);
  if (options.trust) {
    const trusted = await runCli(['trust', project], daemon.env);
    expect(trusted.code, trusted.stderr).toBe(0);
  }
}

/** A fixture payload asked from inside the project, as a new tool call. */
function asked(fixture: string, change: (payload: HookPayload) => void = () => {}): HookPayload {
  const payload = freshPayload(fixture, `policy${++runs}`);
  payload.cwd = join(project, 'src');
  change(payload);
  return payload;
}

async function ask(payload: HookPayload, env: NodeJS.ProcessEnv = {}) {
  const result = await runHook(payload, { ...daemon.env, ...env }).result;
  expect(result.code).toBe(0);
  return { ...result, output: result.stdout === '' ? undefined : parseJson<HookOutput>(result.stdout, 'hook stdout') };
}

/** The banner as a page sees it: the first messages on a new WebSocket, as the CLI listener. */
async function bannerOf(target: Daemon): Promise<string | null> {
  const { default: WebSocket } = await import('ws');
  const socket = new WebSocket(`ws://127.0.0.1:${target.port}/ws`, { headers: { authorization: `Bearer ${target.token}` } });
  try {
    return await new Promise<string | null>((resolve, reject) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string; message?: string | null };
        if (message.type === 'banner') resolve(message.message ?? null);
      });
      socket.on('error', reject);
    });
  } finally {
    socket.close();
  }
}

const answersOf = (output: HookOutput | undefined) => output?.hookSpecificOutput.updatedInput?.answers as Record<string, string> | undefined;

describe('timeout policies with the real hook and daemon', () => {
  it('a rule "immediately" answers at once and tells Claude which rule chose', async () => {
    await projectConfig({ rules: [{ name: 'db', header: 'Database', choose: 'SQLite', when: 'immediately' }] });
    const payload = asked('01-single-select');
    const { output } = await ask(payload);
    expect(answersOf(output)).toEqual({ [DATABASE]: 'SQLite' });
    expect(output?.hookSpecificOutput.additionalContext).toMatch(/No person answered.*the rule "db"/);
    expect(await settledBy(payload)).toMatchObject({ kind: 'policy', action: 'rule', trigger: 'immediately' });
  });

  it('a rule on timeout answers when waitSeconds run out', async () => {
    await projectConfig({ waitSeconds: 1, rules: [{ question: { regex: 'orders service', flags: 'i' }, choose: 'SQLite' }] });
    const { output, ms } = await ask(asked('01-single-select'));
    expect(answersOf(output)).toEqual({ [DATABASE]: 'SQLite' });
    expect(ms).toBeGreaterThanOrEqual(1000);
  });

  it('"recommended" picks the (Recommended) label in single-select', async () => {
    await projectConfig({ waitSeconds: 1, onTimeout: 'recommended' });
    const { output } = await ask(asked('01-single-select'));
    expect(answersOf(output)).toEqual({ [DATABASE]: 'PostgreSQL (Recommended)' });
    expect(output?.hookSpecificOutput.additionalContext).toMatch(/No person answered.*recommended option.*within 1 second/);
  });

  it('"recommended" picks every recommended label in multi-select, else the first option', async () => {
    await projectConfig({ waitSeconds: 1, onTimeout: 'recommended' });
    const marked = await ask(
      asked('02-multi-select', (payload) => {
        const options = payload.tool_input.questions[0]!.options;
        options[1]!.label = 'Lint (Recommended)';
        options[3]!.label = 'E2E (recommended)';
      }),
    );
    expect(answersOf(marked.output)).toEqual({ [CHECKS]: 'Lint (Recommended), E2E (recommended)' });
    const unmarked = await ask(asked('02-multi-select'));
    expect(answersOf(unmarked.output)).toEqual({ [CHECKS]: 'Unit tests' });
  });

  it('"decline" refuses the call with a reason to proceed on best judgment', async () => {
    await projectConfig({ waitSeconds: 1, onTimeout: 'decline' });
    const { output } = await ask(asked('01-single-select'));
    expect(output?.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(output?.hookSpecificOutput.permissionDecisionReason).toMatch(/Nobody is available.*best judgment.*assumptions/);
  });

  it('"terminal" prints nothing when the time is up, so Claude Code asks itself', async () => {
    await projectConfig({ waitSeconds: 1, onTimeout: 'terminal' });
    const { stdout, ms } = await ask(asked('01-single-select'));
    expect(stdout).toBe('');
    expect(ms).toBeGreaterThanOrEqual(1000);
  });

  it.each([
    ['ASKBRIDGE_UNATTENDED=1', { ASKBRIDGE_UNATTENDED: '1' }],
    ['CI=true', { CI: 'true' }],
    ['CLAUDE_CODE_SESSION_ATTENDED=0', { CLAUDE_CODE_SESSION_ATTENDED: '0' }],
  ])('an unattended question (%s) is answered by the policy at once, not when its wait runs out', async (_case, env) => {
    await projectConfig({ waitSeconds: 600, onTimeout: 'recommended' });
    const payload = asked('01-single-select');
    const { output } = await ask(payload, env);
    expect(answersOf(output)).toEqual({ [DATABASE]: 'PostgreSQL (Recommended)' });
    expect(output?.hookSpecificOutput.additionalContext).toMatch(/nobody was watching/);
    expect(await settledBy(payload)).toEqual({ kind: 'policy', action: 'recommended', trigger: 'nobody-watching' });
  });

  it('whenNobodyWatching "act" applies the policy at once when no page or CLI is connected', async () => {
    await projectConfig({ waitSeconds: 600, onTimeout: 'decline', whenNobodyWatching: 'act' });
    const payload = asked('01-single-select');
    const { output } = await ask(payload);
    expect(output?.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(await settledBy(payload)).toEqual({ kind: 'policy', action: 'decline', trigger: 'nobody-watching' });
  });

  it('a rule naming a label that is not offered is skipped and logged; the policy decides instead', async () => {
    await projectConfig({ waitSeconds: 1, onTimeout: 'recommended', rules: [{ name: 'typo', header: 'Database', choose: 'Postgres' }] });
    const { output } = await ask(asked('01-single-select'));
    expect(answersOf(output)).toEqual({ [DATABASE]: 'PostgreSQL (Recommended)' });
    await daemon.waitForLog((entry) => entry.msg?.startsWith('rule skipped') === true && entry.rule === '"typo"', 5000, 'the skipped-rule log line');
  });

  it('a catastrophic rule pattern on a 31-character question is matched at once, and another question is answered meanwhile', async () => {
    // A backtracking engine takes minutes on `^(a+)+$` against 30 a's and a b; RE2 takes microseconds.
    await projectConfig({ rules: [{ question: { regex: '^(a+)+$' }, choose: 'SQLite', when: 'immediately' }, { header: 'Database', choose: 'PostgreSQL (Recommended)', when: 'immediately' }] });
    const hostile = asked('01-single-select', (payload) => (payload.tool_input.questions[0]!.question = `${'a'.repeat(30)}b`));
    const other = asked('01-single-select');
    const [first, second] = await Promise.all([ask(hostile), ask(other)]);
    // The pattern does not match (the text ends in b): the next rule answers both, as each is asked.
    expect(answersOf(first.output)).toEqual({ [`${'a'.repeat(30)}b`]: 'PostgreSQL (Recommended)' });
    expect(answersOf(second.output)).toEqual({ [DATABASE]: 'PostgreSQL (Recommended)' });
    for (const payload of [hostile, other]) expect(await settledBy(payload)).toMatchObject({ kind: 'policy', action: 'rule', trigger: 'immediately' });
  });

  it('a trusted edit to the project file changes the next question without a restart; an untrusted or broken edit applies nothing', async () => {
    await projectConfig({ rules: [{ header: 'Database', choose: 'SQLite', when: 'immediately' }] });
    expect(answersOf((await ask(asked('01-single-select'))).output)).toEqual({ [DATABASE]: 'SQLite' });

    await projectConfig({ rules: [{ header: 'Database', choose: 'PostgreSQL (Recommended)', when: 'immediately' }] });
    expect(answersOf((await ask(asked('01-single-select'))).output)).toEqual({ [DATABASE]: 'PostgreSQL (Recommended)' });

    // Not trusted (a pull, a teammate's edit): ignored, so the default (the terminal asks, at the timeout) applies.
    await projectConfig({ waitSeconds: 1, rules: [{ header: 'Database', choose: 'SQLite', when: 'immediately' }] }, { trust: false });
    const untrusted = await ask(asked('01-single-select'), { ASKBRIDGE_UNATTENDED: '1' });
    expect(untrusted.output).toBeUndefined();
    await daemon.waitForLog((entry) => entry.msg === 'project config file ignored: not trusted', 5000, 'the untrusted-config log line');

    await projectConfig('{ "rules": [ { "header": "Database", "choose": "SQLite", "when": "immediately" } ', { trust: false });
    expect((await runCli(['trust', project], daemon.env)).stderr).toMatch(/not valid JSON.*nothing was trusted/);
    expect((await ask(asked('01-single-select'), { ASKBRIDGE_UNATTENDED: '1' })).output).toBeUndefined();
  });

  it("a fresh clone's project file never applies by itself: its rule does not answer, the page banner names it, the user's config still applies", async () => {
    await projectConfig({ rules: [{ header: 'Database', choose: 'SQLite', when: 'immediately' }] }, { trust: false });
    await runCli(['trust', '--revoke', project], daemon.env);
    const fresh = await ask(asked('01-single-select'), { ASKBRIDGE_UNATTENDED: '1' });
    expect(fresh.output).toBeUndefined();
    const doctor = parseJson<{ findings: Array<{ id: string; fix?: string }> }>((await runCli(['doctor', '--json', '--cwd', project, '--claude', '/nonexistent'], daemon.env)).stdout, 'doctor');
    expect(doctor.findings).toContainEqual(expect.objectContaining({ id: 'project-config-untrusted', fix: expect.stringMatching(new RegExp(`askbridge(\\.mjs)? trust '${project}'`)) }));
    await daemon.waitForLog((entry) => entry.msg === 'project config file ignored: not trusted');
    const banner = await bannerOf(daemon);
    expect(banner).toContain(`The project config ${join(project, '.claude', 'askbridge.json')} is ignored: it is not trusted yet`);

    const trusted = await runCli(['trust', project], daemon.env);
    expect(trusted.stdout).toContain('chooses "SQLite" AT ONCE, without asking anyone');
    expect(answersOf((await ask(asked('01-single-select'))).output)).toEqual({ [DATABASE]: 'SQLite' });
  });

  it('additionalContext is absent when a person answers', async () => {
    await projectConfig({ waitSeconds: 60, onTimeout: 'recommended' });
    const payload = asked('01-single-select');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect(question.timeout.summary).toBe('the recommended option will be chosen');
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    const output = parseJson<HookOutput>((await hook.result).stdout, 'hook stdout');
    expect(answersOf(output)).toEqual({ [DATABASE]: 'SQLite' });
    expect(output.hookSpecificOutput).not.toHaveProperty('additionalContext');
  });

  it('answerMode "deny-reason" sends a person\'s answer as "Header: label" lines', async () => {
    await projectConfig({ waitSeconds: 60, answerMode: 'deny-reason' });
    const payload = asked('02-multi-select');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    await runCli(['answer', question.id, '--pick', '1=Type check', '--pick', '1=Lint', '--other', '1=fuzzing'], daemon.env);
    const output = parseJson<HookOutput>((await hook.result).stdout, 'hook stdout');
    expect(output.hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'CI checks: Lint, Type check, Other: fuzzing' });
  });

  it('a person can hand the question to the terminal, or decline it, at once', async () => {
    await projectConfig({ waitSeconds: 60 });
    const toTerminal = asked('01-single-select');
    const first = runHook(toTerminal, daemon.env);
    const one = await daemon.waitForAsk(toTerminal.tool_use_id);
    expect((await daemon.api('POST', `/api/asks/${one.id}/terminal`, {})).status).toBe(200);
    expect((await first.result).stdout).toBe('');

    const toDecline = asked('01-single-select');
    const second = runHook(toDecline, daemon.env);
    const two = await daemon.waitForAsk(toDecline.tool_use_id);
    expect((await daemon.api('POST', `/api/asks/${two.id}/decline`, {})).status).toBe(200);
    const output = parseJson<HookOutput>((await second.result).stdout, 'hook stdout');
    expect(output.hookSpecificOutput.permissionDecisionReason).toMatch(/The user declined to answer/);
    expect((await daemon.api('POST', `/api/asks/${two.id}/terminal`, {})).status).toBe(409);
  });
});
