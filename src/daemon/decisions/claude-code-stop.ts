// What Claude Code's Stop hook answers for the end of a turn (protocol.md 8): a reply blocks the
// stop, and Claude goes on with the reason as its next input; anything else is no decision (an
// empty body), and Claude stops. The only format askbridge writes for a turn's end lives here.
import { z } from 'zod';
import type { Outcome } from '../asks/store.js';

/** Claude Code's Stop output when the person replied: it continues the turn with `reason`. */
const BlockSchema = z.strictObject({ decision: z.literal('block'), reason: z.string() });
export const StopOutputSchema = z.union([BlockSchema, z.literal('')]).meta({ title: 'stop decision' });
export type StopOutput = z.infer<typeof BlockSchema>;

/**
 * The reason Claude Code hands the model as `Stop hook feedback:` followed by it, and shows in the
 * terminal under "Stop hook reported a problem": worded so the model reads the person's own words
 * as their next message, and the person at the terminal sees where it came from.
 */
export function replyReason(text: string): string {
  return `The person replied from askbridge (they are away from this terminal). Treat their reply as their next message to you:\n\n${text}`;
}

/** The Stop hook's decision for an outcome: a block with the person's reply, or null (Claude stops). */
export function stopDecision(outcome: Outcome): StopOutput | null {
  if (outcome.status !== 'replied' || outcome.reply === undefined) return null;
  return { decision: 'block', reason: replyReason(outcome.reply) };
}
