// Codex CLI's decision for its PermissionRequest hook (protocol.md 7), made from the neutral outcome
// the core recorded. The one place that knows Codex's format. Codex takes only a plain allow or a
// deny with a message: `updatedInput`, `updatedPermissions`, `interrupt` and `continue: false` are
// unsupported there and bring back its own dialog, so none is ever sent (no "always allow", no
// stopping the turn). Anything else is no decision (nothing printed): Codex shows its own dialog.
import { z } from 'zod';
import type { Outcome } from '../asks/store.js';
import { denialMessage, UNATTENDED_DENIAL } from './claude-code-permission.js';

/** What Codex's PermissionRequest hook prints: exactly these fields, nothing Codex would refuse. */
export const CodexPermissionOutputSchema = z.strictObject({
  hookSpecificOutput: z.strictObject({
    hookEventName: z.literal('PermissionRequest'),
    decision: z.discriminatedUnion('behavior', [z.strictObject({ behavior: z.literal('allow') }), z.strictObject({ behavior: z.literal('deny'), message: z.string() })]),
  }),
});
export type CodexPermissionOutput = z.infer<typeof CodexPermissionOutputSchema>;

/** The decision for a settled approval, or null for none (Codex's own dialog decides). */
export function codexPermissionDecision(toolName: string, outcome: Outcome): CodexPermissionOutput | null {
  const decision = outcome.decision;
  if (outcome.status === 'allowed' && decision?.behavior === 'allow') {
    return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
  }
  if (outcome.status === 'denied') {
    const message = outcome.source.kind === 'policy' ? UNATTENDED_DENIAL : denialMessage({ toolName }, decision?.behavior === 'deny' ? decision.message : undefined);
    return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message } } };
  }
  return null;
}
