// The one channel contract (choices.ts): what may be decided on an ask, from its agent's profile and
// from whether a channel shows it whole or cut; and the store refusing anything else, for every
// channel, before it settles, so that the ask stays answerable.
import { describe, expect, it } from 'vitest';
import { choicesOf, onChannel, refusedAnswer, refusedDecision } from '../../src/choices.js';
import { createAskStore, type NewAsk } from '../../src/daemon/asks/store.js';
import type { Agent, ApprovalDecision } from '../../src/protocol.js';

const BASH = { toolName: 'Bash', toolInput: { command: 'npm test' }, suggestions: [{ label: 'Always allow `Bash(npm test *)` in this project (your local settings)' }] };
const PLAN = { toolName: 'ExitPlanMode', toolInput: { plan: '# Plan' }, suggestions: [{ label: 'Approve, and use auto mode for this session' }], plan: '# Plan' };
const QUESTION = { question: 'Which folder?', header: 'Folder', multiSelect: false, options: [{ label: 'drafts/', description: '' }, { label: 'notes/', description: '' }] };

type Asked = { toolName: string; toolInput: Record<string, unknown>; suggestions: Array<{ label: string }>; plan?: string };

const approval = (agent: Agent, what: Asked = BASH): NewAsk => ({
  sessionId: `s-${agent}`,
  toolUseId: `permission-${agent}-${what.toolName}`,
  cwd: '/p',
  toolInput: what.toolInput,
  questions: [],
  approval: what,
  waitMs: 60_000,
  timeout: { action: 'terminal', summary: '' },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'http-hook',
  agent,
});

describe('the choices of an ask shown whole', () => {
  it("follow its agent's profile: a stop where it can stop, an always-allow where it takes one back, a hand-back where something is behind it", () => {
    const of = (agent: Agent) => choicesOf({ kind: 'approval', agent, questions: [], suggestions: 1 });
    expect(of('claude-code')).toEqual({ typedAnswers: [], notes: true, handBack: 'the terminal', allow: true, remember: true, stop: true, grant: false });
    expect(of('codex')).toEqual({ typedAnswers: [], notes: true, handBack: "Codex's dialog", allow: true, remember: false, stop: false, grant: false });
    expect(of('opencode')).toEqual({ typedAnswers: [], notes: false, handBack: "opencode's prompt", allow: true, remember: true, stop: true, grant: false });
    // A grant only where grant-rules.ts has a rule for the request.
    expect(choicesOf({ kind: 'approval', agent: 'claude-code', questions: [], suggestions: 0, grantable: true }).grant).toBe(true);
    // A question through an MCP tool call has nothing behind it.
    expect(choicesOf({ kind: 'question', agent: 'gemini-cli', asker: { kind: 'mcp', name: 'gemini-cli-mcp-client' }, questions: [QUESTION], suggestions: 0 }).handBack).toBeUndefined();
    expect(choicesOf({ kind: 'question', agent: 'opencode', questions: [QUESTION, QUESTION], typedAnswers: [false, true], suggestions: 0 }).typedAnswers).toEqual([false, true]);
  });

  it('allow nothing where the channel shows what would run cut short', () => {
    const whole = choicesOf({ kind: 'approval', agent: 'claude-code', questions: [], suggestions: 1, grantable: true });
    // Nor a grant: none is ever made for an input that was cut.
    expect(onChannel(whole, 'cut')).toEqual({ ...whole, allow: false, remember: false, grant: false });
    expect(onChannel(whole, 'whole')).toBe(whole);
  });
});

describe('a decision the contract refuses', () => {
  const refused = (agent: Agent, decision: ApprovalDecision, shown: 'whole' | 'cut' = 'whole', what: Asked = BASH) =>
    refusedDecision({ agent }, what, onChannel(choicesOf({ kind: 'approval', agent, questions: [], suggestions: what.suggestions.length }), shown), decision, 'askbridge')?.code;

  it('is named for each reason, in the agent’s own name', () => {
    expect(refused('claude-code', { behavior: 'allow' }, 'cut')).toBe('not_shown_whole');
    expect(refused('claude-code', { behavior: 'allow', suggestion: 0 }, 'cut')).toBe('not_shown_whole');
    expect(refused('claude-code', { behavior: 'allow', suggestion: 1 })).toBe('unknown_suggestion');
    expect(refused('codex', { behavior: 'allow', suggestion: 0 })).toBe('unknown_suggestion');
    expect(refused('codex', { behavior: 'deny', interrupt: true })).toBe('interrupt_unsupported');
    expect(refused('opencode', { behavior: 'deny', interrupt: true, message: 'no' })).toBe('message_with_stop');
    expect(refused('claude-code', { behavior: 'deny' }, 'whole', PLAN)).toBe('empty_feedback');
    // And what each may do.
    expect(refused('claude-code', { behavior: 'deny', interrupt: true })).toBeUndefined();
    expect(refused('claude-code', { behavior: 'deny' }, 'cut')).toBeUndefined();
    expect(refused('opencode', { behavior: 'allow', suggestion: 0 })).toBeUndefined();
    // A risky call is allowed once only: confirmed, and never with an "always allow".
    const risk = { reasons: ['deletes files'] };
    const whole = choicesOf({ kind: 'approval', agent: 'opencode', questions: [], suggestions: 1 });
    expect(refusedDecision({ agent: 'opencode', risk }, BASH, whole, { behavior: 'allow', suggestion: 0, confirmRisky: true }, 'askbridge')?.code).toBe('risky_once');
    expect(refusedDecision({ agent: 'opencode', risk }, BASH, whole, { behavior: 'allow', confirmRisky: true }, 'askbridge')).toBeUndefined();
    const words = refusedDecision({ agent: 'opencode' }, BASH, choicesOf({ kind: 'approval', agent: 'opencode', questions: [], suggestions: 1 }), { behavior: 'deny', interrupt: true, message: 'x' }, 'askbridge');
    expect(words?.message).toBe('opencode does not pass a message on when it stops the turn: deny with the message, or stop without one');
  });

  it('refuses typed text and a note the agent does not take, naming the question', () => {
    const choices = choicesOf({ kind: 'question', agent: 'opencode', questions: [QUESTION], typedAnswers: [false], suggestions: 0 });
    expect(refusedAnswer({ agent: 'opencode' }, [QUESTION], choices, [{ question: 'Which folder?', other: 'archive/', notes: null }])?.message).toBe('opencode takes only its options for "Folder": pick one of them');
    expect(refusedAnswer({ agent: 'opencode' }, [QUESTION], choices, [{ question: 'Which folder?', other: null, notes: 'the new one' }])?.code).toBe('notes_not_taken');
    expect(refusedAnswer({ agent: 'opencode' }, [QUESTION], choices, [{ question: 'Which folder?', other: '  ', notes: ' ' }])).toBeUndefined();
  });
});

describe('the store, for every channel', () => {
  it('refuses an allow from a channel that shows it cut, and the same permission stays decidable where it is shown whole', () => {
    const store = createAskStore({ shows: (client) => (client === 'telegram' ? 'cut' : 'whole') });
    const { ask } = store.open(approval('claude-code'));
    expect(store.decide(ask.id, { behavior: 'allow' }, { client: 'telegram' })).toMatchObject({ kind: 'invalid', error: { code: 'not_shown_whole' } });
    expect(store.decide(ask.id, { behavior: 'allow', suggestion: 0 }, { client: 'telegram' })).toMatchObject({ kind: 'invalid', error: { code: 'not_shown_whole' } });
    expect(store.get(ask.id)?.status).toBe('pending');
    expect(store.decide(ask.id, { behavior: 'allow' }, { client: 'page' })).toMatchObject({ kind: 'answered', ask: { status: 'allowed' } });
  });

  it('refuses a stop for Codex, and an allow from a notification, whatever client sends it', () => {
    const store = createAskStore({ shows: (client) => (client === 'notification' || client === 'ntfy' ? 'cut' : 'whole') });
    const codex = store.open(approval('codex'));
    expect(store.decide(codex.ask.id, { behavior: 'deny', interrupt: true }, { client: 'cli' })).toMatchObject({ kind: 'invalid', error: { code: 'interrupt_unsupported' } });
    expect(store.decide(codex.ask.id, { behavior: 'allow' }, { client: 'ntfy' })).toMatchObject({ kind: 'invalid', error: { code: 'not_shown_whole' } });
    expect(store.get(codex.ask.id)?.status).toBe('pending');
  });

  it('hands back only where something is behind it', () => {
    const store = createAskStore();
    const script = store.open({ ...approval('claude-code'), approval: undefined, agent: undefined, asker: { kind: 'script', name: 'nightly' }, door: 'ask', questions: [QUESTION], toolInput: { questions: [QUESTION] } });
    expect(script.ask.choices.handBack).toBeUndefined();
    expect(store.handToTerminal(script.ask.id, { client: 'page' }).kind).toBe('no_terminal');
    const opencode = store.open({ ...approval('opencode'), toolUseId: 'per_1' });
    expect(store.handToTerminal(opencode.ask.id, { client: 'page' })).toMatchObject({ kind: 'answered', ask: { status: 'handed-to-terminal' } });
  });
});
