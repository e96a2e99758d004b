// @ts-check
// A decision a relay (askbridge attach opencode, attach codex) still has to hand to its agent: the
// page shows it as answered, not yet delivered, until the relay says the agent took it (then it is
// finished like any other), or as not delivered, and why, when it never can be. Nothing to do here:
// the relay delivers it. The reason is the relay's words, shown as text.
import { agentNameOf } from './api.js';

/**
 * What became of a relayed decision, in words: "Answered, not yet delivered to Codex", "Not
 * delivered: WHY"; null for any other ask (and for one delivered).
 * @param {{ delivery?: string; error?: string; agent?: string; asker?: unknown }} view
 */
export function deliveryTitle(view) {
  if (view.delivery === 'waiting') return `Answered, not yet delivered to ${agentNameOf(view) || 'its agent'}`;
  if (view.delivery === 'undeliverable') return `Not delivered: ${view.error ?? 'the agent no longer waits'}`;
  return null;
}
