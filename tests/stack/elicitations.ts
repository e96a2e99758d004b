// MCP elicitations as Claude Code's Elicitation hook hands them over (protocol.md 9): the payload
// it sends for a form or a URL, the http request held open until a person responds (its response is
// the decision), and a person's response through POST /api/asks/:id/elicitation.
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { ELICITATION_HOOK_PATH, HOOK_KEY_HEADER } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from './clock.js';
import type { Daemon } from './daemon.js';
import { post, readResponse } from './hook-client.js';

const common = (sessionId: string) => ({
  session_id: sessionId,
  transcript_path: `/home/alice/.claude/projects/shop/${sessionId}.jsonl`,
  cwd: '/home/alice/projects/shop',
  prompt_id: randomUUID(),
  hook_event_name: 'Elicitation',
});

/** A form elicitation as Claude Code 2.1.330 sends it. */
export function formPayload(sessionId: string, schema: unknown, options: { server?: string; message?: string } = {}): Record<string, unknown> {
  return { ...common(sessionId), mcp_server_name: options.server ?? 'forms', message: options.message ?? 'Who should get the report?', mode: 'form', requested_schema: schema };
}

/** A URL elicitation as Claude Code 2.1.330 sends it: no schema. */
export function urlPayload(sessionId: string, url: string, options: { server?: string; message?: string } = {}): Record<string, unknown> {
  return { ...common(sessionId), mcp_server_name: options.server ?? 'forms', message: options.message ?? 'Sign in to continue.', mode: 'url', url, elicitation_id: `elicit-${randomUUID()}` };
}

export type SentElicitation = {
  payload: Record<string, unknown>;
  /** The hook's response once settled: its status, and its body (the decision JSON, or empty: Claude Code's own dialog). */
  response: Promise<{ statusCode: number; body: string; at: number }>;
  /** Closes the connection, as the hook's timeout does. */
  abort(): void;
};

/** POSTs an Elicitation as Claude Code's http hook does and keeps it open. */
export function sendElicitation(daemon: Daemon, payload: Record<string, unknown>, headers: Record<string, string> = {}): SentElicitation {
  const all = { 'user-agent': 'axios/1.13.2', connection: 'keep-alive', [HOOK_KEY_HEADER]: daemon.hookKey(), ...headers };
  const req = post(daemon.port, ELICITATION_HOOK_PATH, all, JSON.stringify(payload), new Agent({ keepAlive: true }));
  const response = readResponse(req);
  response.catch(() => {});
  return { payload, response, abort: () => req.destroy() };
}

/** The pending elicitation of a session, once the daemon shows it (a new one). */
export async function pendingElicitation(daemon: Daemon, sessionId: string, early?: Promise<{ statusCode: number; body: string }>): Promise<AskView> {
  const found = waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === sessionId && ask.elicitation !== undefined), 10_000, `the elicitation of session ${sessionId} to be pending`);
  if (!early) return found;
  return Promise.race([
    found,
    early.then((answered) => {
      throw new Error(`the elicitation hook was answered before it waited: ${answered.statusCode} ${answered.body.slice(0, 300)}`);
    }),
  ]);
}

/** An Elicitation held by the daemon's http hook route, once its ask is pending. */
export async function requestElicitation(daemon: Daemon, payload: Record<string, unknown>): Promise<SentElicitation & { view: AskView }> {
  const sent = sendElicitation(daemon, payload);
  const view = await pendingElicitation(daemon, String(payload.session_id), sent.response);
  return { ...sent, view };
}

/** A person's response (accept, decline, cancel), with the CLI's token unless `headers` say otherwise. */
export async function respond(daemon: Daemon, id: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: { error?: { code: string; message: string; details?: string[] }; ask?: AskView } }> {
  const response = await fetch(`${daemon.url}api/asks/${id}/elicitation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(headers ?? { authorization: `Bearer ${daemon.token}` }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as never };
}
