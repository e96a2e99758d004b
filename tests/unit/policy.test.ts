import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_PROFILES } from '../../src/agents.js';
import { formatAnswers } from '../../src/answers.js';
import { compileRulePattern, ConfigFileSchema, createConfigReader, DEFAULT_CONFIG, mergeConfig, type ConfigFileInput, type EffectiveConfig } from '../../src/config.js';
import { answerByRules, createPolicy, recommendedResponse, type PolicyContext } from '../../src/daemon/asks/policy.js';
import type { Outcome } from '../../src/daemon/asks/store.js';
import { claudeCodeDecision, denyReasonAnswers, type ClaudeCodeAsk } from '../../src/daemon/decisions/claude-code.js';
import { ResponseSchema, ToolInputSchema, type Question } from '../../src/protocol.js';
import { contentHash, createTrustStore } from '../../src/trust.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as { tool_input: Record<string, unknown>; responses: unknown[] };
const fourQuestions = fixture('03-four-questions.input.json').tool_input;
const CLAUDE_CODE = AGENT_PROFILES['claude-code'];

/** What Claude Code is told of the last planned ask's outcome, with the configuration it was planned with. */
let planned: ClaudeCodeAsk = { toolInput: fourQuestions, answerMode: 'updatedInput', waitSeconds: 0 };
const decided = (outcome: Outcome | undefined) => (outcome === undefined ? null : claudeCodeDecision(planned, outcome));

function plan(file: ConfigFileInput, context: Partial<PolicyContext> = {}, logs: string[] = []) {
  const effective: EffectiveConfig = { ...mergeConfig({}, ConfigFileSchema.parse(file)), files: { user: '', project: undefined }, errors: [], ignored: [] };
  const policy = createPolicy({ configFor: () => effective, log: (fields, message) => logs.push(`${message} ${JSON.stringify(fields)}`) });
  const result = policy({ cwd: '/p', questions: ToolInputSchema.parse(fourQuestions).questions, profile: CLAUDE_CODE, unattended: false, watchers: 1, reachableElsewhere: false, ...context });
  planned = { toolInput: fourQuestions, answerMode: result.config.answerMode, waitSeconds: result.config.waitSeconds };
  return result;
}
const view = {} as Parameters<ReturnType<typeof plan>['onTimeout']>[0];
const answersOf = (output: unknown) => (output as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }).hookSpecificOutput.updatedInput.answers;

const option = (label: string) => ({ label, description: '' });
const question = (labels: string[], multiSelect = false): Question => ({ question: 'Q?', header: 'H', multiSelect, options: labels.map(option) });

describe('the recommended option', () => {
  it('is the option whose label says (Recommended), in any case', () => {
    expect(recommendedResponse(question(['A', 'B (recommended)'])).selected).toEqual(['B (recommended)']);
  });
  it('is the first option when none is marked', () => {
    expect(recommendedResponse(question(['A', 'B'])).selected).toEqual(['A']);
    expect(recommendedResponse(question(['A', 'B'], true)).selected).toEqual(['A']);
  });
  it('is every marked option in multi-select, and only the first marked one in single-select', () => {
    expect(recommendedResponse(question(['A (Recommended)', 'B', 'C (RECOMMENDED)'], true)).selected).toEqual(['A (Recommended)', 'C (RECOMMENDED)']);
    expect(recommendedResponse(question(['A (Recommended)', 'B', 'C (RECOMMENDED)'])).selected).toEqual(['A (Recommended)']);
  });
});

describe('the policy', () => {
  it('waits waitSeconds, then lets the terminal ask by default', () => {
    const result = plan({});
    expect(result.waitMs).toBe(DEFAULT_CONFIG.waitSeconds * 1000);
    expect(result.immediate).toBeUndefined();
    expect(result.timeout).toEqual({ action: 'terminal', summary: 'the terminal will ask' });
    expect(result.onTimeout(view)).toMatchObject({ status: 'handed-to-terminal' });
  });

  it('answers with the recommended options on timeout and tells Claude no person chose', () => {
    const outcome = plan({ onTimeout: 'recommended', waitSeconds: 120 }).onTimeout(view);
    expect(outcome.status).toBe('answered');
    expect(answersOf(decided(outcome))).toEqual({
      'Which auth method should the admin panel use?': 'OAuth via GitHub',
      'Where should sessions be stored?': 'Redis',
      'Which roles do you need on day one?': 'Admin',
      'Should I add audit logging now?': 'Yes, now',
    });
    expect(decided(outcome)?.hookSpecificOutput.additionalContext).toMatch(/No person answered.*recommended option.*within 2 minutes/);
  });

  it('declines with a reason that tells Claude to proceed on its own judgment', () => {
    const outcome = plan({ onTimeout: 'decline' }).onTimeout(view);
    expect(outcome.status).toBe('declined');
    expect(decided(outcome)?.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(decided(outcome)?.hookSpecificOutput.permissionDecisionReason).toMatch(/Nobody is available.*best judgment.*assumptions/);
  });

  it('applies rules that cover every question at once, naming them', () => {
    const result = plan({
      rules: [
        { header: 'Auth', choose: 'Email magic link', when: 'immediately' },
        { question: { regex: '^where', flags: 'i' }, choose: 'Redis', when: 'immediately' },
        { name: 'roles', header: 'roles', choose: ['Viewer', 'Admin'], when: 'immediately' },
        { header: 'Audit', text: 'Only for refunds', when: 'immediately' },
      ],
    });
    expect(result.immediate?.source).toEqual({ kind: 'policy', action: 'rule', trigger: 'immediately', rule: '#1, #2, "roles", #4' });
    expect(answersOf(decided(result.immediate))).toMatchObject({ 'Which roles do you need on day one?': 'Admin, Viewer', 'Should I add audit logging now?': 'Only for refunds' });
  });

  it('waits when immediate rules cover only some questions, then combines rules with onTimeout', () => {
    const result = plan({ onTimeout: 'recommended', rules: [{ header: 'Auth', choose: 'Email magic link', when: 'immediately' }] });
    expect(result.immediate).toBeUndefined();
    const outcome = result.onTimeout(view);
    expect(answersOf(decided(outcome))['Which auth method should the admin panel use?']).toBe('Email magic link');
    expect(answersOf(decided(outcome))['Where should sessions be stored?']).toBe('Redis');
    expect(outcome.source).toMatchObject({ action: 'recommended', rule: '#1' });
  });

  it('skips a rule whose label is not offered, logs it, and falls back to the next rule or the policy', () => {
    const logs: string[] = [];
    const outcome = plan({ onTimeout: 'recommended', rules: [{ header: 'Auth', choose: 'Passkeys' }, { header: 'Auth', choose: 'Username + password' }, { header: 'Sessions', choose: 'Memcached' }] }, {}, logs).onTimeout(view);
    expect(answersOf(decided(outcome))).toMatchObject({ 'Which auth method should the admin panel use?': 'Username + password', 'Where should sessions be stored?': 'Redis' });
    expect(logs.filter((line) => line.startsWith('rule skipped'))).toHaveLength(2);
  });

  it('refuses two labels from a rule for a single-select question', () => {
    const outcome = plan({ onTimeout: 'terminal', rules: [{ header: 'Auth', choose: ['OAuth via GitHub', 'Email magic link'] }] }).onTimeout(view);
    expect(outcome.status).toBe('handed-to-terminal');
  });

  it('lets the terminal ask on timeout when rules leave a question unanswered', () => {
    expect(plan({ rules: [{ header: 'Auth', choose: 'Email magic link' }] }).onTimeout(view)).toMatchObject({ status: 'handed-to-terminal' });
  });

  it('acts at once for an unattended session', () => {
    expect(plan({ onTimeout: 'recommended' }, { unattended: true }).immediate).toMatchObject({ status: 'answered', source: { trigger: 'nobody-watching' } });
    expect(plan({}, { unattended: true }).immediate).toMatchObject({ status: 'handed-to-terminal' });
  });

  it('acts at once when nobody watches only if whenNobodyWatching is "act"', () => {
    expect(plan({ whenNobodyWatching: 'act', onTimeout: 'decline' }, { watchers: 0 }).immediate).toMatchObject({ status: 'declined' });
    expect(plan({ whenNobodyWatching: 'act', onTimeout: 'decline' }, { watchers: 1 }).immediate).toBeUndefined();
    expect(plan({ whenNobodyWatching: 'wait', onTimeout: 'decline' }, { watchers: 0 }).immediate).toBeUndefined();
  });

  it('by default hands a question to the terminal at once when nobody watches and nobody could be told', () => {
    const terminalAtOnce = { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' } };
    expect(plan({ onTimeout: 'recommended' }, { watchers: 0 }).immediate).toEqual(terminalAtOnce);
    expect(decided(plan({}, { watchers: 0 }).immediate)).toBeNull(); // no decision: Claude Code's own dialog asks
    // A page or a terminal watching, a device or chat that could be told, or a webhook: it waits.
    expect(plan({}, { watchers: 1 }).immediate).toBeUndefined();
    expect(plan({}, { watchers: 0, reachableElsewhere: true }).immediate).toBeUndefined();
    const withWebhook: EffectiveConfig = { ...mergeConfig(ConfigFileSchema.parse({ notify: [{ url: 'https://hooks.example.com/askbridge' }] }), {}), files: { user: '', project: undefined }, errors: [], ignored: [] };
    const told = createPolicy({ configFor: () => withWebhook, log: () => {} });
    expect(told({ cwd: '/p', questions: [question(['A', 'B'])], profile: CLAUDE_CODE, unattended: false, watchers: 0, reachableElsewhere: false }).immediate).toBeUndefined();
    // A webhook is told only of asks with no route: one routed to people none of whom could see it goes to the terminal.
    expect(told({ cwd: '/p', questions: [question(['A', 'B'])], profile: CLAUDE_CODE, unattended: false, watchers: 0, reachableElsewhere: false, routed: true }).immediate).toEqual(terminalAtOnce);
    // A rule that answers at once still answers.
    const atOnce = ['Auth', 'Sessions', 'Roles', 'Audit log'].map((header) => ({ header, choose: { Auth: 'OAuth via GitHub', Sessions: 'Redis', Roles: 'Admin', 'Audit log': 'Yes, now' }[header]!, when: 'immediately' as const }));
    expect(plan({ rules: atOnce }, { watchers: 0 }).immediate).toMatchObject({ status: 'answered', source: { kind: 'policy', action: 'rule', trigger: 'immediately' } });
    // "wait" keeps the old way: it waits for nobody.
    expect(plan({ whenNobodyWatching: 'wait' }, { watchers: 0 }).immediate).toBeUndefined();
  });

  it('hands a permission and the end of a turn back at once too when nobody could be told, and never allows one', () => {
    const terminalAtOnce = { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' } };
    expect(plan({}, { watchers: 0, kind: 'approval' }).immediate).toEqual(terminalAtOnce);
    expect(plan({}, { watchers: 0, kind: 'turn-end' }).immediate).toEqual(terminalAtOnce);
    expect(plan({}, { watchers: 0, reachableElsewhere: true, kind: 'approval' }).immediate).toBeUndefined();
    expect(plan({}, { watchers: 0, reachableElsewhere: true, kind: 'turn-end' }).immediate).toBeUndefined();
    expect(plan({ whenNobodyWatching: 'wait' }, { watchers: 0, kind: 'turn-end' }).immediate).toBeUndefined();
    // A wait in the terminal is shown whoever watches: nothing here answers it.
    expect(plan({}, { watchers: 0, kind: 'terminal-wait' }).immediate).toBeUndefined();
  });

  it('answers through a deny reason in deny-reason mode, one line per question', () => {
    const outcome = plan({ onTimeout: 'recommended', answerMode: 'deny-reason' }).onTimeout(view);
    expect(decided(outcome)?.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: 'Auth: OAuth via GitHub\nSessions: Redis\nRoles: Admin\nAudit log: Yes, now',
    });
    expect(decided(outcome)?.hookSpecificOutput.additionalContext).toMatch(/No person answered/);
  });
});

describe('the deny-reason text', () => {
  it.each([
    ['02-multi-select', 'CI checks: Unit tests, Type check'],
    ['06-long-descriptions-other', 'Reporting: Other: None of these yet. First add an index on orders(created_at, status) and measure again; explain the trade-offs before changing infrastructure.'],
  ])('%s gives "Header: answer" lines', (name, expected) => {
    const input = fixture(`${name}.input.json`).tool_input;
    const responses = fixture(`${name}.answer.json`).responses.map((response) => ResponseSchema.parse(response));
    expect(denyReasonAnswers(formatAnswers(ToolInputSchema.parse(input).questions, responses))).toBe(expected);
  });

  it('uses the shortened question text when there is no header', () => {
    const long: Question = { question: 'Which of these deployment strategies should we use for the new payments service in production?', header: '', multiSelect: true, options: [option('Blue/green'), option('Canary')] };
    const text = denyReasonAnswers(formatAnswers([long], [{ question: long.question, selected: ['Canary', 'Blue/green'], other: 'flags', notes: null }]));
    expect(text).toBe('Which of these deployment strategies should we use for the…: Blue/green, Canary, Other: flags');
  });
});

describe('rule patterns', () => {
  it('are compiled by RE2, which cannot backtrack, and match a catastrophic pattern correctly', () => {
    const rules = ConfigFileSchema.parse({ rules: [{ question: { regex: '^(a+)+$' }, choose: 'Yes', when: 'immediately' }, { question: { regex: '^(a|aa)+b$' }, choose: 'No', when: 'immediately' }] }).rules!;
    const asked: Question = { question: `${'a'.repeat(30)}b`, header: 'H', multiSelect: false, options: [option('Yes'), option('No')] };
    // A backtracking engine takes minutes on the first pattern; RE2 cannot backtrack, so it is linear by construction.
    expect(compileRulePattern('^(a+)+$').constructor.name).toBe('RE2JS');
    const result = answerByRules(rules, { questions: [asked] }, 'immediately', () => {});
    expect(result.responses).toEqual([{ question: asked.question, selected: ['No'], other: null, notes: null }]);
  });
});

describe('the configuration a question is planned with', () => {
  it("is the user configuration alone for another machine's question, whose cwd names a path on that machine", () => {
    const home = mkdtempSync(join(tmpdir(), 'askbridge-remote-plan-'));
    try {
      const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state') };
      const project = join(home, 'shop');
      mkdirSync(join(project, '.claude'), { recursive: true });
      const projectFile = join(project, '.claude', 'askbridge.json');
      writeFileSync(projectFile, JSON.stringify({ waitSeconds: 10 }));
      const trust = createTrustStore(env);
      trust.trust(projectFile, contentHash(readFileSync(projectFile)));
      const reader = createConfigReader(env, trust);
      const policy = createPolicy({ configFor: (cwd) => reader.effective(cwd), log: () => {} });
      const questions = ToolInputSchema.parse(fourQuestions).questions;

      // This machine's question in that folder: its trusted project file applies.
      expect(policy({ cwd: project, questions, profile: CLAUDE_CODE, unattended: false, watchers: 1, reachableElsewhere: false }).waitMs).toBe(10_000);
      // Another machine's question naming the same path: only the user configuration (here the defaults).
      expect(policy({ cwd: project, machine: 'build-box', questions, profile: CLAUDE_CODE, unattended: false, watchers: 1, reachableElsewhere: false }).waitMs).toBe(DEFAULT_CONFIG.waitSeconds * 1000);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
