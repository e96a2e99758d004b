// The key of an ask askbridge opens for one of Codex's MCP elicitations: made the same way by
// `askbridge attach codex`, which withdraws the ask by it, and by the daemon, which keys the ask by
// it (decisions/relayed.ts). Codex gives such a request no id of its own.
import { createHash } from 'node:crypto';
import type { CodexElicitationRequest } from './protocol.js';

/**
 * Codex's JSON-RPC id of the request (the same to every client, and when it asks again after a
 * reconnect), with what it asks, so that an id Codex gives again after it restarted, for another
 * request, never finds this one's ask.
 */
export function codexElicitationKey(requestId: string | number, request: CodexElicitationRequest): string {
  const asked = [requestId, request.threadId, request.turnId ?? null, request.serverName, request.message, request.mode, request.requestedSchema ?? null, request.url ?? null, request.elicitationId ?? null];
  return `elicitation-${createHash('sha256').update(JSON.stringify(asked)).digest('base64url').slice(0, 32)}`;
}
