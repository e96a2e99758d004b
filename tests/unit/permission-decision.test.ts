// Claude Code's PermissionRequest decision, made from what the store recorded: exactly the shapes
// the real client was seen to accept (protocol.md 8), the input never changed, a suggestion sent
// back as Claude Code made it, and nothing at all where the terminal's dialog should decide.
import { describe, expect, it } from 'vitest';
import { PLAN_AUTO_MODE, describeSuggestion, offeredSuggestions, planChoices, approvalTarget } from '../../src/approvals.js';
import { PermissionOutputSchema, UNATTENDED_DENIAL, permissionDecision } from '../../src/daemon/decisions/claude-code-permission.js';
import { createAskStore, type NewAsk } from '../../src/daemon/asks/store.js';

const RULE = { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test *' }], behavior: 'allow', destination: 'localSettings' };
const BASH = { toolName: 'Bash', toolInput: { command: 'npm test', description: 'Run the tests' }, suggestions: [RULE] };
const PLAN = { toolName: 'ExitPlanMode', toolInput: { plan: '# Plan\n\n1. Migrate', planFilePath: '/home/alice/.claude/plans/p.md' }, suggestions: planChoices([]).map((choice) => choice.suggestion) };

const person = { kind: 'person', client: 'page' } as const;
/** The decision as the hook's body carries it (one JSON document, or '' for none), checked against its schema. */
const reply = (ask: typeof BASH | typeof PLAN, outcome: Parameters<typeof permissionDecision>[1]) => {
  const decision = permissionDecision(ask, outcome);
  if (decision === null) return '';
  const written = JSON.stringify(decision);
  PermissionOutputSchema.parse(JSON.parse(written));
  return JSON.parse(written);
};

describe("Claude Code's PermissionRequest decision", () => {
  it('allows once with nothing but the behaviour: the call runs as it was asked', () => {
    expect(reply(BASH, { status: 'allowed', source: person, decision: { behavior: 'allow' } })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  it("sends a chosen suggestion back exactly as Claude Code made it, and nothing else", () => {
    const decision = reply(BASH, { status: 'allowed', source: person, decision: { behavior: 'allow', suggestion: 0 } }).hookSpecificOutput.decision;
    expect(decision).toEqual({ behavior: 'allow', updatedPermissions: [RULE] });
    expect(decision.updatedPermissions[0]).not.toBe(RULE); // the same content: a serialised copy, never a reference kept around
  });

  it('approves a plan only with its input echoed back whole, and uses auto mode when that was chosen', () => {
    expect(reply(PLAN, { status: 'allowed', source: person, decision: { behavior: 'allow' } }).hookSpecificOutput.decision).toEqual({ behavior: 'allow', updatedInput: PLAN.toolInput });
    expect(reply(PLAN, { status: 'allowed', source: person, decision: { behavior: 'allow', suggestion: 0 } }).hookSpecificOutput.decision).toEqual({
      behavior: 'allow',
      updatedInput: PLAN.toolInput,
      updatedPermissions: [PLAN_AUTO_MODE],
    });
  });

  it("denies with the person's words for the model, and stops the turn when asked to", () => {
    const denied = reply(BASH, { status: 'denied', source: person, decision: { behavior: 'deny', message: 'use yarn instead' } }).hookSpecificOutput.decision;
    expect(denied).toEqual({ behavior: 'deny', message: 'The user denied permission for this Bash call. They said:\nuse yarn instead' });
    const stopped = reply(BASH, { status: 'denied', source: person, decision: { behavior: 'deny', interrupt: true } }).hookSpecificOutput.decision;
    expect(stopped.interrupt).toBe(true);
    expect(stopped.message).toMatch(/denied permission for this Bash call/);
  });

  it("gives plan feedback to the model as what to change", () => {
    const message = reply(PLAN, { status: 'denied', source: person, decision: { behavior: 'deny', message: 'Add a rollback step.' } }).hookSpecificOutput.decision.message;
    expect(message).toBe('The user did not approve the plan. Change it as they ask, then present it again. They said:\nAdd a rollback step.');
  });

  it('says nobody was there when a policy denies an unattended session, and never allows by policy', () => {
    expect(reply(BASH, { status: 'denied', source: { kind: 'policy', action: 'decline', trigger: 'nobody-watching' }, decision: { behavior: 'deny' } }).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: UNATTENDED_DENIAL });
  });

  it("writes nothing for every other ending: Claude Code's own dialog, on screen all along, decides", () => {
    for (const status of ['handed-to-terminal', 'cancelled', 'failed'] as const) expect(reply(BASH, { status, source: { kind: 'terminal' } })).toBe('');
  });
});

describe('the words of a permission', () => {
  it("puts each kind of Claude Code's suggestion in words that say what choosing it does: its rules, folders or mode, and where they are kept", () => {
    const rules = (type: string, behavior: string, destination: string, ...contents: Array<string | undefined>) => ({
      type,
      rules: contents.map((ruleContent) => (ruleContent === undefined ? { toolName: 'Bash' } : { toolName: 'Bash', ruleContent })),
      behavior,
      destination,
    });
    expect(describeSuggestion(RULE)).toBe('Always allow `Bash(npm test *)` in this project (your local settings)');
    expect(describeSuggestion(rules('addRules', 'deny', 'userSettings', 'rm *', undefined))).toBe('Always deny `Bash(rm *)`, `Bash` in every project');
    expect(describeSuggestion(rules('addRules', 'ask', 'session', 'git push *'))).toBe('Always ask about `Bash(git push *)` for this session');
    expect(describeSuggestion(rules('replaceRules', 'deny', 'localSettings', 'rm *'))).toBe("Replace every deny rule in this project's local settings with `Bash(rm *)`");
    expect(describeSuggestion(rules('replaceRules', 'ask', 'projectSettings'))).toBe("Remove every ask rule in this project's shared settings");
    expect(describeSuggestion(rules('removeRules', 'allow', 'session', 'npm test'))).toBe('Remove the allow rule `Bash(npm test)` from this session');
    expect(describeSuggestion(rules('removeRules', 'deny', 'userSettings', 'curl *', 'wget *'))).toBe('Remove the deny rules `Bash(curl *)`, `Bash(wget *)` from your user settings (every project)');
    expect(describeSuggestion({ type: 'setMode', mode: 'acceptEdits', destination: 'session' })).toBe('Allow all edits for this session');
    expect(describeSuggestion({ type: 'setMode', mode: 'bypassPermissions', destination: 'localSettings' })).toBe('Allow everything (bypass permissions) in this project (your local settings)');
    expect(describeSuggestion({ type: 'addDirectories', directories: ['/srv/data'], destination: 'session' })).toBe('Allow access to `/srv/data` for this session');
    expect(describeSuggestion({ type: 'removeDirectories', directories: ['/srv/data', '/srv/logs'], destination: 'projectSettings' })).toBe("Remove `/srv/data`, `/srv/logs` from the folders allowed in this project's shared settings");
    expect(planChoices([]).map((choice) => choice.words)).toEqual(['Approve, and use auto mode for this session']);
    expect(planChoices([]).map((choice) => choice.suggestion)).toEqual([PLAN_AUTO_MODE]);
  });

  it('offers no suggestion it cannot put in true words: a kind not known, a field missing, more or of another type', () => {
    const unsayable = [
      { type: 'somethingNew', destination: 'userSettings' },
      { type: 'addRules', rules: [], behavior: 'allow', destination: 'session' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'ls' }], destination: 'session' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'ls' }], behavior: 'allowAll', destination: 'session' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'ls' }, { tool: 'Bash' }], behavior: 'allow', destination: 'session' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'ls', also: 'rm' }], behavior: 'allow', destination: 'session' },
      { type: 'replaceRules', rules: [{ toolName: 'Bash', ruleContent: 'ls' }], behavior: 'allow', destination: 'everywhere' },
      { type: 'removeRules', rules: 'Bash(ls)', behavior: 'allow', destination: 'session' },
      { type: 'setMode', mode: 'yolo', destination: 'session' },
      { type: 'setMode', mode: 'acceptEdits' },
      { type: 'addDirectories', directories: [], destination: 'session' },
      { type: 'removeDirectories', directories: ['/srv', 7], destination: 'session' },
      { type: 'addDirectories', directories: ['/srv'], destination: 'session', mode: 'bypassPermissions' },
    ];
    for (const suggestion of unsayable) expect(describeSuggestion(suggestion), JSON.stringify(suggestion)).toBeUndefined();
    expect(offeredSuggestions([unsayable[0]!, RULE, unsayable[8]!])).toEqual([{ suggestion: RULE, words: 'Always allow `Bash(npm test *)` in this project (your local settings)' }]);
    // A plan whose suggestions cannot be said is offered what its dialog offers: auto mode.
    expect(planChoices(offeredSuggestions([unsayable[0]!])).map((choice) => choice.suggestion)).toEqual([PLAN_AUTO_MODE]);
  });

  it('says in one line what a call acts on', () => {
    expect(approvalTarget('Bash', BASH.toolInput)).toBe('npm test');
    expect(approvalTarget('Edit', { file_path: '/src/a.ts', old_string: 'a', new_string: 'b' })).toBe('/src/a.ts');
    expect(approvalTarget('ExitPlanMode', PLAN.toolInput)).toBe('Plan');
    expect(approvalTarget('Bash', { command: 'x'.repeat(500) }, 50)).toHaveLength(50);
  });
});

describe('deciding an approval in the store', () => {
  const approval = (): NewAsk => ({
    sessionId: 's1',
    toolUseId: 'permission-1',
    cwd: '/p',
    toolInput: BASH.toolInput,
    questions: [],
    approval: { toolName: 'Bash', toolInput: BASH.toolInput, suggestions: [{ label: describeSuggestion(RULE)! }] },
    waitMs: 60_000,
    timeout: { action: 'terminal', summary: '' },
    onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
    door: 'http-hook',
    reply: (outcome) => permissionDecision(BASH, outcome),
  });

  it('takes the first decision, refuses a second (a double click allows once), and hands the hook the first', async () => {
    const store = createAskStore();
    const waiter = store.open(approval());
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, { client: 'page' }).kind).toBe('answered');
    const second = store.decide(waiter.ask.id, { behavior: 'allow', suggestion: 0 }, { client: 'page' });
    expect(second.kind).toBe('already_resolved');
    expect(await waiter.reply).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    expect(store.get(waiter.ask.id)).toMatchObject({ status: 'allowed', decision: { behavior: 'allow' }, source: person });
  });

  it('refuses a suggestion Claude Code did not make, an answer, and a decline, and the approval still waits', () => {
    const store = createAskStore();
    const { ask } = store.open(approval());
    expect(store.decide(ask.id, { behavior: 'allow', suggestion: 1 }, { client: 'cli' })).toMatchObject({ kind: 'invalid', error: { code: 'unknown_suggestion' } });
    expect(store.answer(ask.id, [{ question: 'x', selected: ['a'], other: null, notes: null }], { client: 'cli' })).toMatchObject({ kind: 'invalid', error: { code: 'not_a_question' } });
    expect(store.decline(ask.id, { client: 'cli' })).toMatchObject({ kind: 'invalid', error: { code: 'not_a_question' } });
    expect(store.get(ask.id)?.status).toBe('pending');
  });

  it('refuses empty feedback on a plan, and a decision on a question', () => {
    const store = createAskStore();
    const plan = store.open({ ...approval(), toolUseId: 'permission-2', toolInput: PLAN.toolInput, approval: { toolName: 'ExitPlanMode', toolInput: PLAN.toolInput, suggestions: [], plan: PLAN.toolInput.plan } });
    expect(store.decide(plan.ask.id, { behavior: 'deny', message: '  ' }, { client: 'page' })).toMatchObject({ kind: 'invalid', error: { code: 'empty_feedback' } });
    const question = store.open({ ...approval(), toolUseId: 'toolu_q', approval: undefined, questions: [{ question: 'Q?', header: 'Q', multiSelect: false, options: [{ label: 'a', description: '' }, { label: 'b', description: '' }] }] } as NewAsk);
    expect(store.decide(question.ask.id, { behavior: 'allow' }, { client: 'page' })).toMatchObject({ kind: 'invalid', error: { code: 'not_an_approval' } });
  });

  it('withdraws an approval whose request Claude Code closed (No or Esc in its dialog) as answered in the terminal', async () => {
    const store = createAskStore();
    const waiter = store.open(approval());
    waiter.leave();
    expect(store.get(waiter.ask.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    expect(await waiter.reply).toBeNull();
    expect(store.decide(waiter.ask.id, { behavior: 'allow' }, { client: 'page' }).kind).toBe('already_resolved');
  });
});
