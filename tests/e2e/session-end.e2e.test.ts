// A session that ends takes its questions with it, with the real daemon, hook and CLI: Claude Code's
// SessionEnd hook as an http entry and as the command hook, and a command hook that finds Claude Code
// itself gone (CLAUDE_PID). Every waiting question of that session that a hook of the same kind
// asked (the http hook from the same machine, or the command hook), and only those, is withdrawn
// (source session-ended) from the pages and the history says so; the hooks that waited get no
// decision (an empty 200, or exit 0 with nothing printed), so nothing answers for anyone. Whoever
// holds the hook key cannot end the command hook's questions, nor another machine's.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView, ServerMessage } from '../../src/protocol.js';
import { expectSilentPassThrough } from '../stack/assertions.js';
import { sleep, waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { baseEnv } from '../stack/env.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook, postSessionEndAsHttpHook, sessionEndPayload } from '../stack/hook-client.js';
import { MACHINE_HEADER } from '../../src/http-hook.js';
import { pairOverHttp } from '../stack/page-client.js';
import { killStrayProcesses, runCli, runHook, startCli, whenExited } from '../stack/processes.js';

const WAIT_MS = 10_000;

let daemon: Daemon;
let hookKey: string;
beforeAll(async () => {
  daemon = await startDaemon();
  hookKey = daemon.hookKey();
}, 30_000);
afterEach(async () => {
  await killStrayProcesses();
});
afterAll(async () => {
  await daemon?.stop();
});

/** A fixture as a new tool call of `sessionId`. */
const askedIn = (sessionId: string, tag: string): HookPayload => ({ ...freshPayload('01-single-select', tag), session_id: sessionId });

/** A paired page's feed, waiting for the message that settles `id`. */
async function pageFeed(): Promise<{ resolved(id: string): Promise<AskView>; close(): void; messages: ServerMessage[] }> {
  const socket = await (await pairOverHttp(daemon)).openSocket();
  const messages: ServerMessage[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as ServerMessage));
  return {
    messages,
    close: () => socket.close(),
    resolved: async (id) => {
      const message = await waitUntil(() => messages.find((candidate) => candidate.type === 'resolved' && candidate.ask.id === id), WAIT_MS, `question ${id} to be settled on the page`);
      if (message.type !== 'resolved') throw new Error('not a resolved message');
      return message.ask;
    },
  };
}

async function expectWithdrawnBySessionEnd(feed: Awaited<ReturnType<typeof pageFeed>>, id: string): Promise<void> {
  expect(await feed.resolved(id)).toMatchObject({ status: 'cancelled', source: { kind: 'session-ended' } });
  const line = await waitUntil(async () => (await daemon.history()).find((entry) => entry.id === id), WAIT_MS, `the history line of ${id}`);
  expect(line).toMatchObject({ status: 'cancelled', source: 'cancelled', detail: 'the Claude Code session ended' });
  // A late answer is refused, and says how the question ended.
  const late = await runCli(['answer', id, '--pick', '1=SQLite'], daemon.env);
  expect(late.code).toBe(3);
  expect(late.stderr).toContain('cancelled');
}

describe("Claude Code's SessionEnd hook", () => {
  it("over http withdraws every waiting question the http hook asked in that session, and only those, and the hooks that waited get no decision", async () => {
    const feed = await pageFeed();
    const listen = startCli(['listen'], daemon.env);
    await daemon.waitForLog((entry) => entry.msg === 'watcher connected' && entry.client === 'local', WAIT_MS, 'listen to connect');
    const session = 'session-end-http';
    const httpPayloads = [askedIn(session, 'end-http-1'), askedIn(session, 'end-http-2')];
    const httpHooks = httpPayloads.map((payload) => postAsHttpHook({ port: daemon.port, key: hookKey, payload }));
    const otherPayload = askedIn('another-session', 'end-http-other');
    const otherHook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: otherPayload });
    const questions = await Promise.all([...httpPayloads, otherPayload].map((payload) => daemon.waitForAsk(payload.tool_use_id)));
    const other = questions.pop()!;

    const ended = await postSessionEndAsHttpHook({ port: daemon.port, key: hookKey, payload: sessionEndPayload(session) });
    expect(ended).toMatchObject({ statusCode: 200, body: '' });
    for (const hook of httpHooks) expect(await hook.response).toMatchObject({ statusCode: 200, body: '' });
    for (const question of questions) await expectWithdrawnBySessionEnd(feed, question.id);
    // A person watching from a terminal reads why.
    for (const { id } of questions) {
      await waitUntil(() => listen.output().stdout.split('\n').find((line) => line.endsWith(`resolved  ${id}  withdrawn, the session ended`)), WAIT_MS, `the listen line of ${id}`);
    }
    listen.child.kill('SIGINT');
    expect((await listen.result).code).toBe(0);

    // The other session's question still waits, and is answered as usual.
    expect((await daemon.ask(other.id)).status).toBe('pending');
    expect((await runCli(['answer', other.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await otherHook.response).statusCode).toBe(200);
    feed.close();
  });

  it("over http never withdraws the command hook's questions, nor another machine's: only its own transport's, from its own machine", async () => {
    const session = 'session-end-reach';
    const commandPayload = askedIn(session, 'end-reach-command');
    const commandHook = runHook(commandPayload, daemon.env);
    const laptopPayload = askedIn(session, 'end-reach-laptop');
    const laptopHook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: laptopPayload, headers: { [MACHINE_HEADER]: 'laptop' } });
    const [commandQuestion, laptopQuestion] = await Promise.all([commandPayload, laptopPayload].map((payload) => daemon.waitForAsk(payload.tool_use_id)));

    // The hook key, from this machine and from a machine of another name: nothing of theirs is withdrawn.
    for (const headers of [{}, { [MACHINE_HEADER]: 'desk' }] as Array<Record<string, string>>) {
      expect(await postSessionEndAsHttpHook({ port: daemon.port, key: hookKey, payload: sessionEndPayload(session), headers })).toMatchObject({ statusCode: 200, body: '' });
    }
    expect((await daemon.ask(commandQuestion!.id)).status).toBe('pending');
    expect((await daemon.ask(laptopQuestion!.id)).status).toBe('pending');

    // The laptop's own SessionEnd withdraws the laptop's; the command hook's own withdraws its.
    await postSessionEndAsHttpHook({ port: daemon.port, key: hookKey, payload: sessionEndPayload(session), headers: { [MACHINE_HEADER]: 'laptop' } });
    expect(await laptopHook.response).toMatchObject({ statusCode: 200, body: '' });
    expect(await daemon.ask(laptopQuestion!.id)).toMatchObject({ status: 'cancelled', source: { kind: 'session-ended' } });
    expect((await daemon.ask(commandQuestion!.id)).status).toBe('pending');
    expectSilentPassThrough(await runHook(sessionEndPayload(session), daemon.env).result);
    expectSilentPassThrough(await commandHook.result);
    expect(await daemon.ask(commandQuestion!.id)).toMatchObject({ status: 'cancelled', source: { kind: 'session-ended' } });
  });

  it('refuses a SessionEnd with a wrong key (401) and withdraws nothing', async () => {
    const payload = askedIn('session-end-wrong-key', 'end-wrong-key');
    const hook = postAsHttpHook({ port: daemon.port, key: hookKey, payload });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const refused = await postSessionEndAsHttpHook({ port: daemon.port, key: `${hookKey}x`, payload: sessionEndPayload('session-end-wrong-key') });
    expect(refused.statusCode).toBe(401);
    expect((await daemon.ask(question.id)).status).toBe('pending');
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook.response).statusCode).toBe(200);
  });

  it('through the command hook withdraws the session\'s questions within its 1.5 s budget, and prints nothing', async () => {
    const feed = await pageFeed();
    const session = 'session-end-command';
    const payload = askedIn(session, 'end-command');
    const waiting = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);

    const ending = await runHook(sessionEndPayload(session), { ...daemon.env, ASKBRIDGE_DEBUG: '1' }).result;
    expectSilentPassThrough(ending);
    // Within the budget: the daemon's reply ended the hook, not the timer it sets to its budget.
    expect(ending.stderr).toBe("askbridge hook: the daemon withdrew the session's questions\n");
    expectSilentPassThrough(await waiting.result);
    await expectWithdrawnBySessionEnd(feed, question.id);
    feed.close();
  });

  it('through the command hook with no daemon running: exit 0 at once, nothing printed', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'askbridge-session-end-nodaemon-'));
    try {
      const result = await runHook(sessionEndPayload('no-daemon'), baseEnv({ ASKBRIDGE_HOME: empty, ASKBRIDGE_DEBUG: '1' })).result;
      expectSilentPassThrough(result);
      // At once: without a token it has no daemon to tell, and connects nowhere.
      expect(result.stderr).toMatch(/^askbridge hook: ENOENT: no such file or directory, open '.*\/token'\n$/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('a command hook whose Claude Code is gone (CLAUDE_PID)', () => {
  it("keeps waiting while Claude Code runs, and withdraws the session's command hook questions once it has exited", async () => {
    const feed = await pageFeed();
    // Stands in for the claude process: the hook only checks that its pid lives.
    const claude = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
    const session = 'session-claude-gone';
    const payload = askedIn(session, 'claude-gone');
    const hook = runHook(payload, { ...daemon.env, CLAUDE_PID: String(claude.pid), ASKBRIDGE_DEBUG: '1' });
    // A question of the same session asked by the http hook, which has no process to watch: the
    // command hook cannot end it (only the http hook's own SessionEnd can).
    const httpPayload = askedIn(session, 'claude-gone-http');
    const httpHook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: httpPayload });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const httpQuestion = await daemon.waitForAsk(httpPayload.tool_use_id);

    // Two checks pass with Claude Code alive: the question still waits.
    await sleep(4500);
    expect((await daemon.ask(question.id)).status).toBe('pending');
    expect(hook.child.exitCode).toBeNull();

    claude.kill('SIGKILL');
    await whenExited(claude);
    const result = await hook.result;
    expectSilentPassThrough(result);
    // Its check found Claude Code gone and told the daemon (reason claude-exited), which withdrew the
    // session's questions; the hook left on whichever reply came first, its question's or its own.
    expect(await daemon.waitForLog((entry) => entry.msg === 'session ended: its waiting questions withdrawn' && entry.reason === 'claude-exited')).toMatchObject({ askIds: [question.id] });
    expect(result.stderr).toMatch(new RegExp(`^askbridge hook: (no answer \\(cancelled\\): the terminal asks|Claude Code \\(pid ${claude.pid}\\) has exited: the daemon withdrew the session's questions)\n$`));
    await expectWithdrawnBySessionEnd(feed, question.id);
    expect((await daemon.ask(httpQuestion.id)).status).toBe('pending');
    httpHook.abort();
    await expect(httpHook.response).rejects.toThrow(/socket hang up/);
    feed.close();
  });

  it.skipIf(process.platform !== 'linux')('takes a Claude Code that has exited but is not reaped yet (a zombie) as gone', async () => {
    // A shell starts the stand-in, then becomes a program that never reaps it: once it exits, it stays a zombie.
    const parent = spawn('/bin/sh', ['-c', 'sleep 1 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const zombie = Number(await new Promise<string>((read) => parent.stdout.once('data', (chunk: Buffer) => read(chunk.toString()))));
    const payload = askedIn('session-claude-zombie', 'claude-zombie');
    const hook = runHook(payload, { ...daemon.env, CLAUDE_PID: String(zombie) });
    try {
      const question = await daemon.waitForAsk(payload.tool_use_id);
      await waitUntil(() => (readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ? true : undefined), WAIT_MS, 'the stand-in to be a zombie');
      expectSilentPassThrough(await hook.result);
      expect(await daemon.ask(question.id)).toMatchObject({ status: 'cancelled', source: { kind: 'session-ended' } });
    } finally {
      parent.kill('SIGKILL');
      await whenExited(parent);
    }
  });
});
