// An MCP server's form or link as Codex's app-server asks a client (`mcpServer/elicitation/request`,
// relayed by `askbridge attach codex`), and the answer it takes: the one place that knows that
// format. Codex passes the answer to the server as it is: `{action, content?}`, exactly what a person
// gave (accept with the form's checked values, decline, cancel). Anything else is no answer (null):
// Codex's own dialog stays and asks. No policy ever answers one.
import type { CodexElicitationResponse } from '../../protocol.js';
import type { Outcome } from '../asks/store.js';

/** Codex's answer for a settled ask: a person's response, or null (its own dialog asks). */
export function codexElicitationReply(outcome: Outcome): CodexElicitationResponse | null {
  const result = outcome.elicitation;
  if (result === undefined || outcome.source.kind !== 'person') return null;
  return result.action === 'accept' && result.content !== undefined ? { action: 'accept', content: result.content } : { action: result.action };
}
