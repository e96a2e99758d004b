// The end of a turn and a wait in the terminal as Claude Code's http hooks send them: the away
// switch turned on, a Stop request held open until the person replies (its response is the
// decision), and a Notification. The turn's end as the daemon shows it.
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { HOOK_KEY_HEADER, NOTIFICATION_HOOK_PATH, PROMPT_HOOK_PATH, STOP_CAP_HEADER, STOP_HOOK_PATH } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from './clock.js';
import type { Daemon } from './daemon.js';
import { post, readResponse } from './hook-client.js';

const hookHeaders = (daemon: Daemon) => ({ 'user-agent': 'axios/1.13.2', connection: 'keep-alive', [HOOK_KEY_HEADER]: daemon.hookKey() });

/** Says the person is away (or back), as `askbridge away on|off` does. */
export async function setAway(daemon: Daemon, away: boolean): Promise<void> {
  const response = await fetch(`${daemon.url}api/away`, { method: 'PUT', headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ away }) });
  if (response.status !== 200) throw new Error(`PUT /api/away answered ${response.status}: ${await response.text()}`);
}

/** A Stop payload as Claude Code 2.1.330 sends it (protocol.md 8). */
export function stopPayload(sessionId: string, lastMessage: string, options: { promptId?: string; active?: boolean; cwd?: string; event?: 'Stop' | 'SubagentStop' } = {}): Record<string, unknown> {
  return {
    session_id: sessionId,
    transcript_path: `/home/alice/.claude/projects/shop/${sessionId}.jsonl`,
    cwd: options.cwd ?? '/home/alice/projects/shop',
    prompt_id: options.promptId ?? randomUUID(),
    permission_mode: 'default',
    effort: 'medium',
    hook_event_name: options.event ?? 'Stop',
    stop_hook_active: options.active ?? false,
    last_assistant_message: lastMessage,
    background_tasks: [],
    session_crons: [],
  };
}

export type HeldStop = {
  payload: Record<string, unknown>;
  /** The hook's response once settled: its status, and its body (the block JSON, or empty: Claude stops). */
  response: Promise<{ statusCode: number; body: string; at: number }>;
  /** Closes the connection, as Claude Code does on Esc. */
  abort(): void;
};

/** POSTs a Stop as Claude Code's http hook does and keeps it open. `cap`: the limit header the entry forwards; `more`: other headers (a forwarded environment). */
export function sendStop(daemon: Daemon, payload: Record<string, unknown>, cap?: string, more: Record<string, string> = {}): HeldStop {
  const headers = { ...hookHeaders(daemon), ...(cap === undefined ? {} : { [STOP_CAP_HEADER]: cap }), ...more };
  const req = post(daemon.port, STOP_HOOK_PATH, headers, JSON.stringify(payload), new Agent({ keepAlive: true }));
  const response = readResponse(req);
  response.catch(() => {});
  return { payload, response, abort: () => req.destroy() };
}

/** A Stop held while away, once its turn's end is pending in the daemon (a new one: another may wait in the same session). */
export async function endTurn(daemon: Daemon, payload: Record<string, unknown>, cap?: string, more: Record<string, string> = {}): Promise<HeldStop & { view: AskView }> {
  const sessionId = String(payload.session_id);
  const turnEnds = async () => (await daemon.pending()).filter((ask) => ask.sessionId === sessionId && ask.turnEnd !== undefined);
  const before = new Set((await turnEnds()).map((ask) => ask.id));
  const held = sendStop(daemon, payload, cap, more);
  const view = await Promise.race([
    waitUntil(async () => (await turnEnds()).find((ask) => !before.has(ask.id)), 10_000, `the turn end of session ${sessionId} to be pending`),
    held.response.then((early) => {
      throw new Error(`the Stop hook was answered before it waited: ${early.statusCode} ${early.body.slice(0, 300)}`);
    }),
  ]);
  return { ...held, view };
}

/** What the Stop hook received: the block's reason (Claude goes on with it), or null (Claude stops). */
export async function continuationOf(held: HeldStop): Promise<string | null> {
  const { statusCode, body } = await held.response;
  if (statusCode !== 200) throw new Error(`the Stop hook was answered ${statusCode}: ${body.slice(0, 300)}`);
  if (body === '') return null;
  const decision = JSON.parse(body) as { decision?: unknown; reason?: unknown };
  if (decision.decision !== 'block' || typeof decision.reason !== 'string') throw new Error(`not a Stop decision: ${body.slice(0, 300)}`);
  return decision.reason;
}

/** POSTs a hook that is answered at once (Notification, UserPromptSubmit) and returns its response; `more`: other headers (a machine's name). */
async function sendAtOnce(daemon: Daemon, path: string, payload: Record<string, unknown>, more: Record<string, string> = {}): Promise<{ statusCode: number; body: string }> {
  return readResponse(post(daemon.port, path, { ...hookHeaders(daemon), ...more }, JSON.stringify(payload), new Agent({ keepAlive: false })));
}

/** Claude Code's Notification: the session waits for the person in its terminal. */
export function notifyWaiting(daemon: Daemon, sessionId: string, kind: string, message: string, cwd = '/home/alice/projects/shop') {
  return sendAtOnce(daemon, NOTIFICATION_HOOK_PATH, { session_id: sessionId, transcript_path: `/home/alice/.claude/projects/shop/${sessionId}.jsonl`, cwd, hook_event_name: 'Notification', message, notification_type: kind });
}

/** Claude Code's UserPromptSubmit: the person typed a prompt in that session's terminal; `more`: other headers (a machine's name). */
export function submitPrompt(daemon: Daemon, sessionId: string, prompt = 'never read', more: Record<string, string> = {}) {
  return sendAtOnce(daemon, PROMPT_HOOK_PATH, { session_id: sessionId, transcript_path: `/home/alice/.claude/projects/shop/${sessionId}.jsonl`, cwd: '/home/alice/projects/shop', hook_event_name: 'UserPromptSubmit', prompt, prompt_id: randomUUID() }, more);
}
