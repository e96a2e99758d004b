// Each agent by its own profile, never by Claude Code's rules: what may be decided on its ask (the
// channel contract, carried on the ask as its choices and checked by the daemon), what its relay is
// called, and what its connection closing means. Real processes: the daemon, opencode's relay as
// `askbridge attach opencode` posts it (the token, the held request), the CLI, the MCP SDK's own
// client running `askbridge mcp` under Gemini CLI's name.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskView, AttachOpencodeRequest, OpencodeReply } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { CLI_BIN, REPO_ROOT } from '../stack/env.js';
import { runCli } from '../stack/processes.js';

let daemon: Daemon | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await daemon?.stop();
  daemon = undefined;
});

/** One of opencode's pending requests, relayed as `askbridge attach opencode` does: held until settled; `close()` is the relay stopping. */
function relay(running: Daemon, request: AttachOpencodeRequest['request']) {
  const controller = new AbortController();
  const body: AttachOpencodeRequest = { request, session: { directory: '/home/alice/projects/notes', title: 'Tidy the notes' } };
  const response = fetch(`${running.url}api/attach/opencode`, {
    method: 'POST',
    headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  }).then(async (reply) => ({ status: reply.status, body: (await reply.json()) as { ask?: AskView; reply?: OpencodeReply | null; error?: { code: string; message: string } } }));
  response.catch(() => {});
  return { response, close: () => controller.abort() };
}

const opencodeQuestion = (custom: boolean) => ({
  kind: 'question' as const,
  question: {
    id: `que_${randomUUID()}`,
    sessionID: 'ses_notes',
    questions: [{ question: 'Which folder holds the drafts?', header: 'Drafts', options: [{ label: 'drafts/', description: 'The usual one' }, { label: 'notes/wip/', description: 'Older notes' }], custom }],
  },
});

const opencodePermission = () => ({
  kind: 'permission' as const,
  permission: { id: `per_${randomUUID()}`, sessionID: 'ses_notes', permission: 'bash', patterns: ['rm -rf drafts'], always: ['rm *'], metadata: { command: 'rm -rf drafts', description: 'Remove the drafts' } },
});

async function pendingAsk(running: Daemon, toolUseId: string): Promise<AskView> {
  return waitUntil(async () => (await running.pending()).find((ask) => ask.toolUseId === toolUseId), 10_000, `ask ${toolUseId}`);
}

describe('an opencode question that takes only its options', () => {
  it('offers no typed answer, refuses one with 400 naming opencode, and stays answerable: the label then reaches opencode', async () => {
    daemon = await startDaemon();
    const request = opencodeQuestion(false);
    const held = relay(daemon, request);
    cleanups.push(async () => held.close());
    const ask = await pendingAsk(daemon, request.question.id);
    expect(ask.choices.typedAnswers).toEqual([false]);
    expect(ask.choices.notes).toBe(false);

    const typed = await daemon.api<{ error: { code: string; message: string } }>('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which folder holds the drafts?', other: 'archive/' }] });
    expect(typed).toEqual({ status: 400, body: { error: { code: 'typed_text_not_taken', message: 'opencode takes only its options for "Drafts": pick one of them' } } });
    const withNote = await daemon.api<{ error: { code: string } }>('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which folder holds the drafts?', selected: ['drafts/'], notes: 'the new one' }] });
    expect(withNote.status).toBe(400);
    expect(withNote.body.error.code).toBe('notes_not_taken');
    // The CLI refuses it the same way, before anything is sent.
    const cli = await runCli(['answer', ask.id, '--other', '1=archive/'], daemon.env);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('opencode takes only its options for "Drafts": pick one of them');
    expect((await daemon.ask(ask.id)).status).toBe('pending');

    const answered = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which folder holds the drafts?', selected: ['drafts/'] }] });
    expect(answered.status).toBe(200);
    const { status, body } = await held.response;
    expect(status).toBe(200);
    expect(body.reply).toEqual({ route: 'question.reply', body: { answers: [['drafts/']] } });
  });

  it('offers a typed answer where opencode takes one (its default)', async () => {
    daemon = await startDaemon();
    const request = opencodeQuestion(true);
    const held = relay(daemon, request);
    cleanups.push(async () => held.close());
    const ask = await pendingAsk(daemon, request.question.id);
    expect(ask.choices.typedAnswers).toEqual([true]);
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Which folder holds the drafts?', other: 'archive/' }] })).status).toBe(200);
    expect((await held.response).body.reply).toEqual({ route: 'question.reply', body: { answers: [['archive/']] } });
  });
});

describe("an opencode permission, by opencode's own rules", () => {
  it("refuses a stop with words in opencode's name, not Claude Code's, and stays decidable", async () => {
    daemon = await startDaemon();
    const request = opencodePermission();
    const held = relay(daemon, request);
    cleanups.push(async () => held.close());
    const ask = await pendingAsk(daemon, request.permission.id);
    expect(ask.choices).toMatchObject({ allow: true, remember: true, stop: true, handBack: "opencode's prompt" });
    const refused = await daemon.api('POST', `/api/asks/${ask.id}/decide`, { behavior: 'deny', interrupt: true, message: 'keep them' });
    expect(refused).toEqual({ status: 400, body: { error: { code: 'message_with_stop', message: 'opencode does not pass a message on when it stops the turn: deny with the message, or stop without one' } } });
    expect((await daemon.api('POST', `/api/asks/${ask.id}/decide`, { behavior: 'deny', interrupt: true })).status).toBe(200);
    expect((await held.response).body.reply).toEqual({ route: 'permission.reply', body: { reply: 'reject' } });
  });

  it('is recorded as withdrawn by its relay, not as answered in the terminal, when the relay stops', async () => {
    daemon = await startDaemon();
    const request = opencodePermission();
    const held = relay(daemon, request);
    const ask = await pendingAsk(daemon, request.permission.id);
    // As `askbridge attach opencode` lets go when it stops: its connection ends, and it says so.
    held.close();
    const letGo = await fetch(`${daemon.url}api/attach/withdraw`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'opencode', sessionId: request.permission.sessionID, toolUseId: request.permission.id }),
    });
    expect(letGo.status).toBe(200);
    const finished = await waitUntil(async () => {
      const seen = await daemon!.ask(ask.id);
      return seen.status === 'pending' ? undefined : seen;
    }, 10_000, 'the permission to be withdrawn');
    expect(finished).toMatchObject({ status: 'cancelled', source: { kind: 'hook-gone' } });
    const line = await waitUntil(async () => (await daemon!.history()).find((entry) => entry.id === ask.id), 5_000, 'its history line');
    expect(line).toMatchObject({ source: 'cancelled', detail: "opencode's own prompt settled it, or askbridge's relay for it stopped" });
  });

  it("names opencode's relay, not Claude Code's http hook, when it is over its limit", async () => {
    // Four asks may wait in all: one asker may hold one of them.
    daemon = await startDaemon({ env: { ASKBRIDGE_TEST_MAX_PENDING: '4' } });
    const first = opencodePermission();
    const held = relay(daemon, first);
    cleanups.push(async () => held.close());
    await pendingAsk(daemon, first.permission.id);
    const over = await relay(daemon, opencodePermission()).response;
    expect(over.status).toBe(503);
    expect(over.body.error?.message).toMatch(/^1 questions are waiting from opencode's relay \(askbridge attach opencode\), as many as one asker may: this one goes to the terminal$/);
  });
});

describe('Gemini CLI, asking through the MCP tool', () => {
  it('is named Gemini CLI on its ask and in `askbridge pending`, not by its MCP client name', async () => {
    daemon = await startDaemon();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp'], env: daemon.env as Record<string, string>, cwd: REPO_ROOT, stderr: 'pipe' });
    // The name Gemini CLI 0.61.0 gives itself (observed).
    const client = new Client({ name: 'gemini-cli-mcp-client', version: '0.61.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const call = client.callTool({ name: 'ask_user', arguments: { questions: [{ question: 'Ship it today?', header: 'Ship', options: [{ label: 'Yes', description: '' }, { label: 'No', description: '' }] }] } });
    call.catch(() => {});
    const ask = await waitUntil(async () => (await daemon!.pending())[0], 10_000, 'the question from Gemini CLI');
    expect(ask).toMatchObject({ agent: 'gemini-cli', asker: { kind: 'mcp', name: 'gemini-cli-mcp-client' } });
    // Nothing is behind an MCP tool call to hand it back to: it is answered or declined.
    expect(ask.choices.handBack).toBeUndefined();
    const pending = await runCli(['pending'], daemon.env);
    expect(pending.stdout).toContain('asked by Gemini CLI');
    expect(pending.stdout).not.toContain('gemini-cli-mcp-client');
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Ship it today?', selected: ['Yes'] }] })).status).toBe(200);
    await call;
  });
});
