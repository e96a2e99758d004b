// What Claude Code's Elicitation hook answers for an MCP server's form or URL request (protocol.md
// 9): the person's accept (with the form's checked values), decline or cancel, which the server
// receives exactly; anything else is no decision (an empty body or stdout), and Claude Code shows its
// own dialog at once. No policy ever makes one. The only format askbridge writes for it lives here.
import { z } from 'zod';
import type { Outcome } from '../asks/store.js';

export const ElicitationOutputSchema = z
  .strictObject({
    hookSpecificOutput: z.strictObject({
      hookEventName: z.literal('Elicitation'),
      action: z.enum(['accept', 'decline', 'cancel']),
      content: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ title: 'elicitation decision' });
export type ElicitationOutput = z.infer<typeof ElicitationOutputSchema>;

/** The Elicitation hook's decision for an outcome: a person's response, or null (Claude Code's own dialog asks). */
export function elicitationDecision(outcome: Outcome): ElicitationOutput | null {
  const result = outcome.elicitation;
  if (result === undefined || outcome.source.kind !== 'person') return null;
  const content = result.action === 'accept' ? result.content : undefined;
  return { hookSpecificOutput: { hookEventName: 'Elicitation', action: result.action, ...(content === undefined ? {} : { content }) } };
}
