// Claude Code's decision for a PermissionRequest (protocol.md 8), made from the neutral outcome the
// core recorded. The one place that knows this format. Allow is the tool call as Claude Code sent
// it, never changed: with one of its own suggestions sent back exactly when the person chose "always
// allow", and for a plan (ExitPlanMode) with its input echoed back, which is what approves it. Deny
// carries a message for the model, and `interrupt` when the person also stopped the turn. Anything
// else is no decision (an empty body): Claude Code's own dialog, on screen all along, decides.
import { z } from 'zod';
import { PLAN_TOOL } from '../../approvals.js';
import type { Outcome } from '../asks/store.js';

const AllowSchema = z.object({
  behavior: z.literal('allow'),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  updatedPermissions: z.array(z.record(z.string(), z.unknown())).optional(),
});
const DenySchema = z.object({ behavior: z.literal('deny'), message: z.string(), interrupt: z.boolean().optional() });

/** What an http PermissionRequest hook answers with. */
export const PermissionOutputSchema = z.object({
  hookSpecificOutput: z.object({ hookEventName: z.literal('PermissionRequest'), decision: z.discriminatedUnion('behavior', [AllowSchema, DenySchema]) }),
});
export type PermissionOutput = z.infer<typeof PermissionOutputSchema>;

/** The call as Claude Code asked about it: its tool, its exact input, and its suggestions as sent. */
export type PermissionAsk = {
  toolName: string;
  toolInput: Readonly<Record<string, unknown>>;
  suggestions: readonly Record<string, unknown>[];
};

/** What the model reads when the session is unattended and nobody can allow it: Claude Code's own behaviour where nobody can answer, said plainly. */
export const UNATTENDED_DENIAL = 'Nobody is there to approve this (the session runs unattended), so askbridge denied it. Do not retry it: continue without it, or say what you needed and why.';

/** The message a person's denial gives the model: who denied it, and their words when they gave some. */
export function denialMessage(ask: Pick<PermissionAsk, 'toolName'>, message: string | undefined): string {
  const words = message?.trim();
  if (ask.toolName === PLAN_TOOL) {
    return words ? `The user did not approve the plan. Change it as they ask, then present it again. They said:\n${words}` : 'The user did not approve the plan.';
  }
  const denied = `The user denied permission for this ${ask.toolName} call.`;
  return words ? `${denied} They said:\n${words}` : `${denied} Do not run it; ask the user what to do instead.`;
}

/** The decision for a settled approval, or null for none (Claude Code's own dialog decides). */
export function permissionDecision(ask: PermissionAsk, outcome: Outcome): PermissionOutput | null {
  const decision = outcome.decision;
  if (outcome.status === 'allowed' && decision?.behavior === 'allow') {
    const suggestion = decision.suggestion === undefined ? undefined : ask.suggestions[decision.suggestion];
    if (decision.suggestion !== undefined && suggestion === undefined) throw new Error(`no suggestion ${decision.suggestion} was made`);
    return {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: {
          behavior: 'allow',
          // A plan is approved only by its input sent back (protocol.md 8); any other call runs as it was asked.
          ...(ask.toolName === PLAN_TOOL ? { updatedInput: { ...ask.toolInput } } : {}),
          ...(suggestion ? { updatedPermissions: [suggestion] } : {}),
        },
      },
    };
  }
  if (outcome.status === 'denied') {
    const message = outcome.source.kind === 'policy' ? UNATTENDED_DENIAL : denialMessage(ask, decision?.behavior === 'deny' ? decision.message : undefined);
    const interrupt = decision?.behavior === 'deny' && decision.interrupt === true;
    return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message, ...(interrupt ? { interrupt: true } : {}) } } };
  }
  return null;
}
