// An MCP server's form or link as Codex's app-server asks a client (`mcpServer/elicitation/request`,
// relayed by `askbridge attach codex`), and the answer it takes: the one place that knows that
// format. Codex passes the answer to the server as it is: `{action, content?}`, exactly what a person
// gave (accept with the form's checked values, decline, cancel). Anything else is no answer (null):
// Codex's own dialog stays and asks. No policy ever answers one.
import { createHash } from 'node:crypto';
import type { CodexElicitationRequest, CodexElicitationResponse } from '../../protocol.js';
import type { Outcome } from '../asks/store.js';

/**
 * The ask's key for one of Codex's elicitations, which carry no id of their own: Codex's JSON-RPC id
 * of it (the same to every client, and when it asks again after a reconnect), with what it asks, so
 * that an id Codex gives again after it restarted, for another request, never finds this one's ask.
 */
export function codexElicitationKey(requestId: string | number, request: CodexElicitationRequest): string {
  const asked = [requestId, request.threadId, request.turnId ?? null, request.serverName, request.message, request.mode, request.requestedSchema ?? null, request.url ?? null, request.elicitationId ?? null];
  return `elicitation-${createHash('sha256').update(JSON.stringify(asked)).digest('base64url').slice(0, 32)}`;
}

/** Codex's answer for a settled ask: a person's response, or null (its own dialog asks). */
export function codexElicitationReply(outcome: Outcome): CodexElicitationResponse | null {
  const result = outcome.elicitation;
  if (result === undefined || outcome.source.kind !== 'person') return null;
  return result.action === 'accept' && result.content !== undefined ? { action: 'accept', content: result.content } : { action: result.action };
}
