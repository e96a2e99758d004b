// Codex's PermissionRequest decision, made from what the store recorded: exactly the shapes Codex
// was seen to accept (protocol.md 7), never a field it calls unsupported (which would bring back its
// dialog), and nothing at all where its own dialog should decide.
import { describe, expect, it } from 'vitest';
import { CodexPermissionOutputSchema, codexPermissionDecision } from '../../src/daemon/decisions/codex.js';
import { UNATTENDED_DENIAL } from '../../src/daemon/decisions/claude-code-permission.js';

const person = { kind: 'person', client: 'page' } as const;
type TestOutcome = Parameters<typeof codexPermissionDecision>[1];
/** The decision as the hook prints it (one JSON document, or '' for none), checked against its schema. */
const reply = (outcome: TestOutcome) => {
  const decision = codexPermissionDecision('Bash', outcome);
  return decision === null ? '' : CodexPermissionOutputSchema.parse(JSON.parse(JSON.stringify(decision)));
};

describe("Codex's PermissionRequest decision", () => {
  it('allows with nothing but the behaviour', () => {
    expect(reply({ status: 'allowed', source: person, decision: { behavior: 'allow' } })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  it("denies with the person's words for the model, and never stops the turn (Codex cannot take interrupt)", () => {
    const decision = reply({ status: 'denied', source: person, decision: { behavior: 'deny', message: 'use the staging database', interrupt: true } });
    expect(decision).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'The user denied permission for this Bash call. They said:\nuse the staging database' } },
    });
  });

  it('denies without words in the same neutral wording as for Claude Code', () => {
    const decision = reply({ status: 'denied', source: person, decision: { behavior: 'deny' } });
    expect(decision !== '' && decision.hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'The user denied permission for this Bash call. Do not run it; ask the user what to do instead.' });
  });

  it('tells the model plainly when a policy denied it because nobody attends the session', () => {
    const decision = reply({ status: 'denied', source: { kind: 'policy', action: 'decline', trigger: 'immediately' } });
    expect(decision !== '' && decision.hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: UNATTENDED_DENIAL });
  });

  it.each([
    ['handed to the terminal', { status: 'handed-to-terminal', source: person }],
    ['nobody reachable', { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' } }],
    ['withdrawn', { status: 'cancelled', source: { kind: 'hook-gone' } }],
    ['failed', { status: 'failed', source: person }],
    ['an allow status without an allow decision', { status: 'allowed', source: person }],
  ] as const)('prints nothing when %s: Codex shows its own dialog', (_, outcome) => {
    expect(reply(outcome as TestOutcome)).toBe('');
  });

  it('has no way to send what Codex would refuse', () => {
    const unsupported = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: {} } } };
    expect(CodexPermissionOutputSchema.safeParse(unsupported).success).toBe(false);
    const interrupt = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no', interrupt: true } } };
    expect(CodexPermissionOutputSchema.safeParse(interrupt).success).toBe(false);
  });
});
