// Permissions and plans as Claude Code's PermissionRequest http hook asks for them: the payload it
// sends, the request held open until a person decides (its response is the decision), and the
// approval as the daemon shows it. And axe-core run in a page, for the tests that look at one.
import { Agent } from 'node:http';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { HOOK_KEY_HEADER, PERMISSION_HOOK_PATH } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from './clock.js';
import type { Daemon } from './daemon.js';
import { post, postAsHttpHook, readResponse } from './hook-client.js';

export type PermissionSuggestion = Record<string, unknown> & { type: string };

/** A PermissionRequest payload as Claude Code sends it. */
export function permissionPayload(
  sessionId: string,
  toolName: string,
  toolInput: Record<string, unknown>,
  options: { suggestions?: PermissionSuggestion[]; cwd?: string; permissionMode?: string } = {},
): Record<string, unknown> {
  return {
    session_id: sessionId,
    transcript_path: `/home/alice/.claude/projects/shop/${sessionId}.jsonl`,
    cwd: options.cwd ?? '/home/alice/projects/shop',
    permission_mode: options.permissionMode ?? 'default',
    hook_event_name: 'PermissionRequest',
    tool_name: toolName,
    tool_input: toolInput,
    ...(options.suggestions ? { permission_suggestions: options.suggestions } : {}),
  };
}

/** Claude Code's "always allow" suggestion for a Bash command prefix. */
export function bashRuleSuggestion(ruleContent: string, destination = 'localSettings'): PermissionSuggestion {
  return { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent }], behavior: 'allow', destination };
}

export type HeldPermission = {
  payload: Record<string, unknown>;
  /** The hook's response once decided: its status, and its body (the decision JSON, or empty for none). */
  response: Promise<{ statusCode: number; body: string; at: number }>;
  /** The approval, once the daemon shows it as pending. */
  view: AskView;
  /** Closes the connection, as Claude Code does once the person answered its own dialog in the terminal (or pressed Esc). */
  abort(): void;
};

/**
 * POSTs a PermissionRequest as Claude Code's http hook does (the hook key, keep-alive, no Origin) and
 * keeps it open; resolves once its approval is pending (found by its session, tool and exact input:
 * the daemon's own id for it is not known to the hook).
 */
export async function requestPermission(daemon: Daemon, payload: Record<string, unknown>): Promise<HeldPermission> {
  const headers = { 'user-agent': 'axios/1.13.2', connection: 'keep-alive', [HOOK_KEY_HEADER]: daemon.hookKey() };
  const req = post(daemon.port, PERMISSION_HOOK_PATH, headers, JSON.stringify(payload), new Agent({ keepAlive: true }));
  const response = readResponse(req);
  // Whoever never awaits it (an aborted request) has no unhandled rejection.
  response.catch(() => {});
  const sessionId = String(payload.session_id);
  const input = JSON.stringify(payload.tool_input);
  const mine = (ask: AskView) => ask.sessionId === sessionId && ask.approval?.toolName === payload.tool_name && JSON.stringify(ask.approval?.toolInput) === input;
  const view = await Promise.race([
    waitUntil(async () => (await daemon.pending()).find(mine), 10_000, `the ${String(payload.tool_name)} approval of session ${sessionId} to be pending`),
    response.then((early) => {
      throw new Error(`the permission hook was answered before it waited: ${early.statusCode} ${early.body.slice(0, 300)}`);
    }),
  ]);
  return { payload, response, view, abort: () => req.destroy() };
}

/** A PermissionRequest that a grant should cover: answered at once, never shown as a card; its decision, and the ask the grant allowed. */
export async function askCovered(daemon: Daemon, payload: Record<string, unknown>): Promise<{ decision: unknown; ask: AskView }> {
  const allowedByGrant = () => daemon.logs().filter((entry) => entry.msg === 'approval allowed by a grant');
  const before = allowedByGrant().length;
  const sent = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload, path: PERMISSION_HOOK_PATH });
  const { statusCode, body } = await sent.response;
  if (statusCode !== 200) throw new Error(`the permission hook was answered ${statusCode}: ${body.slice(0, 300)}`);
  const entry = await waitUntil(() => allowedByGrant()[before], 5_000, 'the log line of the grant that allowed it');
  if (allowedByGrant().length !== before + 1) throw new Error(`one request was allowed by a grant ${allowedByGrant().length - before} times`);
  return { decision: JSON.parse(body), ask: await daemon.ask(String(entry.askId)) };
}

/** The decision an http PermissionRequest hook received: its JSON, or null for an empty body (no decision). */
export async function decisionOf(held: HeldPermission): Promise<unknown> {
  const { statusCode, body } = await held.response;
  if (statusCode !== 200) throw new Error(`the permission hook was answered ${statusCode}: ${body.slice(0, 300)}`);
  return body === '' ? null : JSON.parse(body);
}

/** axe-core's violations in the page as it is, one line each (rule: the elements), evaluated over DevTools as a tool does (the page's CSP allows no injected script). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
  return results.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
