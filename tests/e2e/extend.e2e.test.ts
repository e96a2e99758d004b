// More time for a person who is answering, end to end: the real daemon with a short waitSeconds, a
// paired page's requests, and Claude Code's http hook or the real command hook process. A question
// extended before its deadline is still waiting after it (the hook too, past its own first
// deadline), and an answer given then reaches the hook; one not extended is decided by the policy at
// its deadline. The order is proven, not timed: the question not extended was asked after the
// extended one, with the same wait, so once the policy has settled it, the extended one's first
// deadline is behind us too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { HOOK_TIMEOUT_SECONDS, TIMEOUT_MARGIN_SECONDS } from '../../src/hook-timeout.js';
import type { AskView, ServerMessage } from '../../src/protocol.js';
import type { HookOutput } from '../../src/daemon/decisions/claude-code.js';
import type { HistoryLine } from '../../src/history-file.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { HOOK_SCRIPT } from '../stack/env.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { pairOverHttp, type PageClient } from '../stack/page-client.js';
import { killStrayProcesses, parseJson, runCli, runHook } from '../stack/processes.js';

const WAIT_SECONDS = 3;
const CONFIG = { waitSeconds: WAIT_SECONDS, onTimeout: 'decline' };
const DATABASE = 'Which database should the new orders service use?';
/** How far past the daemon's deadline the command hook waits on its own (DEADLINE_MARGIN_MS in the hook). */
const HOOK_MARGIN_MS = Number(/const DEADLINE_MARGIN_MS = ([\d_]+);/.exec(readFileSync(HOOK_SCRIPT, 'utf8'))![1]!.replaceAll('_', ''));

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

async function daemonForTest(options: Parameters<typeof startDaemon>[0] = {}): Promise<Daemon> {
  const daemon = await startDaemon({ config: CONFIG, ...options });
  cleanups.push(() => daemon.stop());
  return daemon;
}

/** A paired page with its live feed open, and every message the feed brought. */
async function pageOf(daemon: Daemon): Promise<{ page: PageClient; messages: ServerMessage[] }> {
  const page = await pairOverHttp(daemon);
  const socket: WebSocket = await page.openSocket();
  cleanups.push(async () => socket.terminate());
  const messages: ServerMessage[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as ServerMessage));
  return { page, messages };
}

/** Asks the page's way for more time, and checks it was given: two minutes, within the hook's limit. */
async function extend(page: PageClient, question: AskView): Promise<AskView> {
  const response = await page.request<{ ask: AskView }>('POST', `/api/asks/${question.id}/extend`);
  expect(response.status).toBe(200);
  const moved = response.body.ask;
  expect(moved.expiresAt).toBeGreaterThan(question.expiresAt + 100_000);
  expect(moved.extendableUntil).toBe(question.createdAt + (HOOK_TIMEOUT_SECONDS - TIMEOUT_MARGIN_SECONDS) * 1000);
  return moved;
}

const answerOf = (output: HookOutput) => (output.hookSpecificOutput.updatedInput?.answers as Record<string, string> | undefined)?.[DATABASE];

describe('more time for a person who is answering', () => {
  it("keeps Claude Code's http hook waiting past the first deadline, and the answer given then reaches it; without it the policy decides", async () => {
    const daemon = await daemonForTest();
    const key = daemon.hookKey();
    const { page, messages } = await pageOf(daemon);

    const extendedPayload = freshPayload('01-single-select', 'extend-http');
    const extendedHook = postAsHttpHook({ port: daemon.port, key, payload: extendedPayload });
    let extendedHookEnded = false;
    void extendedHook.response.finally(() => (extendedHookEnded = true));
    const asked = await daemon.waitForAsk(extendedPayload.tool_use_id);
    const moved = await extend(page, asked);
    await waitUntil(() => messages.find((message) => message.type === 'updated' && message.ask.id === asked.id), 5_000, 'the page to hear updated');

    const plainPayload = freshPayload('01-single-select', 'plain-http');
    const plainHook = postAsHttpHook({ port: daemon.port, key, payload: plainPayload });
    const plain = await daemon.waitForAsk(plainPayload.tool_use_id);
    expect(plain.expiresAt).toBeGreaterThanOrEqual(asked.expiresAt);

    // Not extended: the policy decides at its deadline.
    const decided = await plainHook.response;
    expect(parseJson<HookOutput>(decided.body, 'the decision').hookSpecificOutput.permissionDecision).toBe('deny');
    const settled = await daemon.ask(plain.id);
    expect(settled).toMatchObject({ status: 'declined', source: { kind: 'policy', trigger: 'timeout' } });
    expect(settled.resolvedAt! - settled.createdAt).toBeGreaterThanOrEqual(WAIT_SECONDS * 1000);

    // Extended: its first deadline has passed too, and it still waits, hook and all.
    expect(await daemon.ask(asked.id)).toMatchObject({ status: 'pending', expiresAt: moved.expiresAt });
    expect(extendedHookEnded).toBe(false);
    const answered = await page.request('POST', `/api/asks/${asked.id}/answer`, { responses: [{ question: DATABASE, selected: ['SQLite'] }] });
    expect(answered.status).toBe(200);
    const { statusCode, body } = await extendedHook.response;
    expect(statusCode).toBe(200);
    expect(answerOf(parseJson<HookOutput>(body, 'the answer'))).toBe('SQLite');
    expect((await daemon.ask(asked.id)).resolvedAt).toBeGreaterThan(asked.expiresAt);

    // The page's history has both, newest first, with who or what settled each.
    const history = await page.request<{ entries: HistoryLine[] }>('GET', '/api/history?q=orders%20SERVICE');
    expect(history.body.entries.map((line) => [line.id, line.source, line.detail])).toEqual([
      [asked.id, 'person', 'page'],
      [plain.id, 'declined', 'timeout'],
    ]);
  });

  it('keeps the command hook waiting past its own first deadline, and the answer given then reaches it; without it the policy decides', { timeout: 60_000 }, async () => {
    const daemon = await daemonForTest();
    const { page } = await pageOf(daemon);

    const extendedPayload = freshPayload('01-single-select', 'extend-command');
    const extendedHook = runHook(extendedPayload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' });
    const asked = await daemon.waitForAsk(extendedPayload.tool_use_id);
    const moved = await extend(page, asked);

    const plainPayload = freshPayload('01-single-select', 'plain-command');
    const plainHook = runHook(plainPayload, daemon.env);
    const plain = await daemon.waitForAsk(plainPayload.tool_use_id);
    expect(plain.expiresAt).toBeGreaterThanOrEqual(asked.expiresAt);
    const decided = await plainHook.result;
    expect(decided.code).toBe(0);
    expect(parseJson<HookOutput>(decided.stdout, 'the decision').hookSpecificOutput.permissionDecision).toBe('deny');
    expect(await daemon.ask(plain.id)).toMatchObject({ status: 'declined', source: { kind: 'policy', trigger: 'timeout' } });

    // The hook was first told the question waits until asked.expiresAt, and waits that and its margin on
    // its own; told of the extension, it waits on. Time has to pass here: the hook is a process whose
    // only clock is its own.
    await waitUntil(() => (Date.now() > asked.expiresAt + HOOK_MARGIN_MS + 2_000 ? true : undefined), HOOK_MARGIN_MS + 10_000, "the hook's first deadline to pass", 100);
    expect(extendedHook.child.exitCode, extendedHook.output().stderr).toBeNull();
    expect(await daemon.ask(asked.id)).toMatchObject({ status: 'pending', expiresAt: moved.expiresAt });

    const cli = await runCli(['answer', asked.id, '--pick', '1=SQLite'], daemon.env);
    expect(cli.code, cli.stderr).toBe(0);
    const result = await extendedHook.result;
    expect(result.code).toBe(0);
    expect(answerOf(parseJson<HookOutput>(result.stdout, 'the answer'))).toBe('SQLite');
  });

  it('keeps an extended deadline and its limit across a daemon killed and started again; the hook re-attaches and gets the answer', async () => {
    const first = await startDaemon({ config: CONFIG });
    cleanups.push(() => first.stop());
    // Paired before the question is asked: more time is asked for the moment it waits, well within its wait.
    const { page } = await pageOf(first);
    const payload = freshPayload('01-single-select', 'extend-restart');
    const hook = runHook(payload, first.env);
    const asked = await first.waitForAsk(payload.tool_use_id);
    const moved = await extend(page, asked);
    // The copy on disk has the new deadline before the reply says so.
    const kept = JSON.parse(readFileSync(join(first.home, 'pending', `${asked.id}.json`), 'utf8')) as Record<string, unknown>;
    expect(kept).toMatchObject({ expiresAt: moved.expiresAt, extendableUntil: moved.extendableUntil });

    // The daemon and its keeper both killed outright: nothing restarts it until the next start.
    await first.killOutright();
    const second = await daemonForTest({ home: first.home, env: { ASKBRIDGE_PORT: String(first.port) } });
    await second.waitForLog((entry) => entry.msg === 'question received' && entry.askId === asked.id, 10_000, 'the hook re-attaching');
    expect(await second.ask(asked.id)).toMatchObject({ status: 'pending', expiresAt: moved.expiresAt, extendableUntil: moved.extendableUntil });

    // Past the first deadline, the restored question still waits for the person.
    await waitUntil(() => (Date.now() > asked.expiresAt + 1_000 ? true : undefined), 10_000, 'the first deadline to pass', 100);
    expect((await second.ask(asked.id)).status).toBe('pending');
    const cli = await runCli(['answer', asked.id, '--pick', '1=SQLite'], second.env);
    expect(cli.code, cli.stderr).toBe(0);
    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(answerOf(parseJson<HookOutput>(result.stdout, 'the answer'))).toBe('SQLite');
    expect((await second.history()).filter((line) => line.id === asked.id)).toMatchObject([{ source: 'person', status: 'answered' }]);
  });
});
