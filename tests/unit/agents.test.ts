// The agent that asked, wherever a person sees an ask, and the choices it can take: Codex cannot stop
// its turn on a denial, so "deny and stop" is refused for it, losing nothing;
// notices name another agent in their title; history's CSV says which agent asked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentName } from '../../src/agents.js';
import { choicesOf } from '../../src/choices.js';
import type { NewAsk } from '../../src/daemon/asks/store.js';
import { noticeOf, noticeTitle } from '../../src/daemon/notice.js';
import { askDraft, promptFor } from '../../src/daemon/telegram/messages.js';
import { historyCsv } from '../../src/history-csv.js';
import { type Agent, AGENTS, type AskView } from '../../src/protocol.js';
import { buildTestApp, LOCAL, type TestApp } from '../stack/app.js';
import { parseCsv } from '../stack/csv.js';
import { line } from '../stack/history-lines.js';
import { askView } from '../stack/views.js';

const BASH = { toolName: 'Bash', toolInput: { command: 'npm test' }, suggestions: [] };

/** A permission for `npm test`, as the agent's transport would open it. */
const permission = (agent: Agent | undefined, toolUseId: string): NewAsk => ({
  sessionId: `${agent ?? 'none'}-session`,
  toolUseId,
  cwd: '/home/alice/acme-shop',
  toolInput: BASH.toolInput,
  questions: [],
  approval: BASH,
  waitMs: 600_000,
  timeout: { action: 'terminal', summary: "it stays with the terminal's own dialog" },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'http-hook',
  ...(agent ? { agent } : {}),
});

describe('which agents can stop their turn', () => {
  const stops = (who: { agent?: Agent; asker?: AskView['asker'] }) => choicesOf({ kind: 'approval', ...who, questions: [], suggestions: 0 }).stop;

  it('is Claude Code and opencode (a reject without words); Codex and Gemini CLI cannot, and a script has no turn to stop', () => {
    expect(Object.fromEntries(AGENTS.map((agent) => [agent, stops({ agent })]))).toEqual({ 'claude-code': true, codex: false, opencode: true, 'gemini-cli': false });
    expect(stops({ asker: { kind: 'script', name: 'deploy' } })).toBe(false);
  });
});

describe('POST /api/asks/:id/decide with interrupt', () => {
  let tested: TestApp;
  beforeEach(async () => {
    tested = await buildTestApp();
  });
  afterEach(() => tested.close());

  const decide = (id: string, payload: unknown) => tested.app.inject({ method: 'POST', url: `/api/asks/${id}/decide`, headers: LOCAL, payload: payload as Record<string, unknown> });

  it.each([['codex', 'Codex']] as const)("is refused with 400 for %s's permission, which keeps waiting for a decision it can take", async (agent, name) => {
    const waiter = tested.store.open(permission(agent, `${agent}-call`));
    const refused = await decide(waiter.ask.id, { behavior: 'deny', interrupt: true });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: { code: 'interrupt_unsupported', message: `${name} cannot stop its turn from here: deny, and say why in the message` } });
    expect((await tested.ask(waiter.ask.id)).status).toBe('pending');

    const denied = await decide(waiter.ask.id, { behavior: 'deny', message: 'Run the unit tests only' });
    expect(denied.statusCode).toBe(200);
    expect(denied.json().ask).toMatchObject({ status: 'denied', agent, decision: { behavior: 'deny', message: 'Run the unit tests only' } });
  });

  it("stops Claude Code's turn", async () => {
    const waiter = tested.store.open(permission('claude-code', 'claude-call'));
    const stopped = await decide(waiter.ask.id, { behavior: 'deny', interrupt: true });
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json().ask).toMatchObject({ status: 'denied', decision: { behavior: 'deny', interrupt: true } });
  });

  it('answers a late interrupt for a settled Codex permission with 409 and who won, as any late decision', async () => {
    const waiter = tested.store.open(permission('codex', 'codex-late'));
    expect((await decide(waiter.ask.id, { behavior: 'allow' })).statusCode).toBe(200);
    const late = await decide(waiter.ask.id, { behavior: 'deny', interrupt: true });
    expect(late.statusCode).toBe(409);
    expect(late.json().ask).toMatchObject({ status: 'allowed' });
  });
});

const view = (change: Partial<AskView>): AskView => askView({
  id: '7d3f0c2e-0000-4000-8000-000000000001',
  sessionId: 'session-1',
  toolUseId: 'tool-1',
  cwd: '/home/alice/acme-shop',
  createdAt: 0,
  expiresAt: 600_000,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  status: 'pending',
  questions: [{ question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'SQLite', description: '' }, { label: 'Postgres', description: '' }] }],
  ...change,
});

describe('notices', () => {
  const title = (change: Partial<AskView>) => noticeTitle(noticeOf(view(change), { fullText: false }));

  it("keep Claude Code's titles, and name another agent in each kind's title", () => {
    expect(title({ agent: 'claude-code' })).toBe('Question from acme-shop');
    expect(title({ agent: 'codex' })).toBe('Question from Codex in acme-shop');
    expect(title({ agent: 'codex', questions: [], approval: BASH })).toBe('Permission from Codex in acme-shop');
    expect(title({ agent: 'claude-code', questions: [], approval: BASH })).toBe('Permission from acme-shop');
    expect(title({ agent: 'opencode', questions: [], turnEnd: { lastMessage: 'Done.', repliesInARow: 0, replyLimit: 8 } })).toBe('opencode finished in acme-shop');
    expect(title({ agent: 'claude-code', questions: [], turnEnd: { lastMessage: 'Done.', repliesInARow: 0, replyLimit: 8 } })).toBe('Claude finished in acme-shop');
    expect(title({ agent: 'codex', questions: [], terminalWait: { kind: 'idle_prompt', message: '' } })).toBe('Codex waits for you in acme-shop');
    expect(title({ asker: { kind: 'script', name: 'nightly' } })).toBe('Question from acme-shop');
  });

  it('carry the name only, never the id, and none for Claude Code', () => {
    expect(noticeOf(view({ agent: 'opencode' }), { fullText: false }).agent).toBe('opencode');
    expect(noticeOf(view({ agent: 'claude-code' }), { fullText: false })).not.toHaveProperty('agent');
  });

  it("name the agent that wants to run something in Telegram's message and its deny prompt", () => {
    const codex = view({ agent: 'codex', questions: [], approval: BASH });
    const draft = askDraft(codex, { headersOnly: false, link: undefined });
    expect(draft.text).toMatch(/^Permission from Codex in acme-shop\n\nCodex wants to use Bash:\n/);
    expect(promptFor(codex, { kind: 'deny-message' })).toBe('Type your message for Codex: the permission is denied with it.');
    expect(promptFor(view({ agent: 'claude-code', questions: [], approval: BASH }), { kind: 'deny-message' })).toBe('Type your message for Claude: the permission is denied with it.');
  });
});

describe("history's CSV", () => {
  it('says which agent asked in the asker column; a line from before agents were named is Claude Code\'s', () => {
    const rows = parseCsv(historyCsv([line(1, { agent: 'codex' }), line(2), line(3, { agent: 'opencode' }), line(4, { asker: { kind: 'script', name: 'nightly' } })]));
    const asker = rows[0]!.indexOf('asker');
    expect(rows.slice(1).map((row) => row[asker])).toEqual(['codex', 'claude-code', 'opencode', 'script:nightly']);
  });
});

describe('agentName', () => {
  it('names the agents askbridge knows, and shows one it does not (a newer history line) as written', () => {
    expect(AGENTS.map(agentName)).toEqual(['Claude Code', 'Codex', 'opencode', 'Gemini CLI']);
    expect(agentName('cursor')).toBe('cursor');
    expect(agentName('__proto__')).toBe('__proto__');
  });
});
