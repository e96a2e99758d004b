// What the session was doing, with the real daemon: Claude Code's http hook (and the command hook)
// names the session's transcript under the scrubbed HOME's ~/.claude/projects; a paired page's feed
// and `askbridge listen` see the question added at once, then updated with the session's title,
// branch and what Claude said. A hostile transcript_path gives no context, and the question is
// answered all the same; no path ever reaches a view, history or the log.
import { copyFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView, ServerMessage } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { REPO_ROOT } from '../stack/env.js';
import { claudeHome, freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { pairOverHttp } from '../stack/page-client.js';
import { killStrayProcesses, runCli, runHook, startCli } from '../stack/processes.js';

const FIXTURE_TRANSCRIPT = join(REPO_ROOT, 'tests', 'fixtures', 'transcript-2.1.330.jsonl');
const FIXTURE_TOOL_USE = 'toolu_mock_7689_1';
const WAIT_MS = 10_000;

let daemon: Daemon;
let home: string;
let projects: string;
let removeHome: () => Promise<void> = async () => {};
let hookKey: string;
beforeAll(async () => {
  const claude = await claudeHome();
  ({ home, projects } = claude);
  removeHome = claude.remove;
  // Debug: the daemon says why a question got no context (never which path it was given).
  daemon = await startDaemon({ env: { HOME: home, ASKBRIDGE_LOG_LEVEL: 'debug' } });
  hookKey = daemon.hookKey();
}, 30_000);
afterEach(async () => {
  await killStrayProcesses();
});
afterAll(async () => {
  await daemon?.stop();
  await removeHome();
});

/** The real transcript of a session that asked, as Claude Code names it (`<session_id>.jsonl`), with this tool call. */
function transcriptOf(payload: HookPayload, title = 'ask me'): string {
  const path = join(projects, `${payload.session_id}.jsonl`);
  writeFileSync(path, readFileSync(FIXTURE_TRANSCRIPT, 'utf8').replaceAll(FIXTURE_TOOL_USE, payload.tool_use_id).replaceAll('"ask me"', JSON.stringify(title)));
  return path;
}

/** A fixture as a tool call of a session of its own. */
const inSession = (fixture: string, tag: string): HookPayload => ({ ...freshPayload(fixture, tag), session_id: `session-${tag}` });

/** A paired page's live feed: every message it received, and a wait for the first one that matches. */
async function pageFeed(): Promise<{ messages: ServerMessage[]; next(match: (message: ServerMessage) => boolean, what: string): Promise<ServerMessage>; socket: WebSocket }> {
  const page = await pairOverHttp(daemon);
  const socket = await page.openSocket();
  const messages: ServerMessage[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as ServerMessage));
  return { messages, socket, next: (match, what) => waitUntil(() => messages.find(match), WAIT_MS, what) };
}

const about = (id: string, type: ServerMessage['type']) => (message: ServerMessage) => message.type === type && 'ask' in message && message.ask.id === id;
const questionOf = (message: ServerMessage): AskView => {
  if (!('ask' in message)) throw new Error(`no ask in a ${message.type} message`);
  return message.ask;
};

describe("a question's session context", () => {
  it('reaches a page as added at once, then updated with the title and what Claude said; listen --json sees the update too', async () => {
    const feed = await pageFeed();
    const listen = startCli(['listen', '--json'], daemon.env);
    const readable = startCli(['listen'], daemon.env);
    await waitUntil(() => (daemon.logs().filter((entry) => entry.msg === 'watcher connected' && entry.client === 'local').length === 2 ? true : undefined), WAIT_MS, 'both listeners to connect');
    const payload = inSession('01-single-select', 'context-http');
    const transcriptPath = transcriptOf(payload);
    const hook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: { ...payload, transcript_path: transcriptPath } });

    const question = await daemon.waitForAsk(payload.tool_use_id);
    const added = questionOf(await feed.next(about(question.id, 'added'), 'the added message'));
    expect(added.context).toBeUndefined();
    const updated = questionOf(await feed.next(about(question.id, 'updated'), 'the updated message'));
    // The transcript's branch is a detached HEAD: no branch.
    expect(updated.context).toEqual({ title: 'ask me', said: 'MOCK: asking a question.' });
    expect(updated.status).toBe('pending');
    expect(feed.messages.findIndex(about(question.id, 'added'))).toBeLessThan(feed.messages.findIndex(about(question.id, 'updated')));
    expect(await daemon.pending()).toEqual([expect.objectContaining({ id: question.id, context: updated.context })]);

    const line = await waitUntil(() => listen.output().stdout.split('\n').find((text) => text.includes('"event":"updated"')), WAIT_MS, 'the updated line of listen');
    expect(JSON.parse(line)).toMatchObject({ event: 'updated', id: question.id, status: 'pending', ask: { context: { title: 'ask me', said: 'MOCK: asking a question.' } } });
    const expires = new Date(question.expiresAt).toTimeString().slice(0, 8);
    await waitUntil(() => readable.output().stdout.split('\n').find((text) => text.endsWith(`  updated   ${question.id}  session "ask me", expires ${expires}`)), WAIT_MS, 'the readable updated line');

    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook.response).statusCode).toBe(200);
    for (const listener of [listen, readable]) {
      listener.child.kill('SIGINT');
      expect((await listener.result).code).toBe(0);
    }
    feed.socket.close();

    // The path was read, never repeated: not in the history, not in any log line.
    const history = await waitUntil(async () => (await daemon.history()).find((entry) => entry.id === question.id), WAIT_MS, 'the history line');
    expect(JSON.stringify(history)).not.toContain(transcriptPath);
    expect(daemon.output().stdout).not.toContain(transcriptPath);
    expect(daemon.logs().find((entry) => entry.msg === 'session context added' && entry.askId === question.id)).toMatchObject({ found: 'tool-call' });
  });

  it("comes with the command hook's question too", async () => {
    const payload = inSession('02-multi-select', 'context-command');
    const hook = runHook({ ...payload, transcript_path: transcriptOf(payload) }, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const withContext = await waitUntil(async () => ((await daemon.ask(question.id)).context ? daemon.ask(question.id) : undefined), WAIT_MS, 'the context');
    expect(withContext.context).toEqual({ title: 'ask me', said: 'MOCK: asking a question.' });
    expect((await runCli(['answer', question.id, '--pick', '1=Lint'], daemon.env)).code).toBe(0);
    expect((await hook.result).code).toBe(0);
  });

  it('is never read from a hostile transcript_path: no context, a reason in the debug log, and the question is answered all the same', async () => {
    const secret = join(home, 'secret.jsonl');
    copyFileSync(FIXTURE_TRANSCRIPT, secret);
    symlinkSync('/etc/passwd', join(projects, 'passwd.jsonl'));
    symlinkSync(secret, join(projects, 'outside.jsonl'));
    // Each named as its session's own (`<session_id>.jsonl`), so that the reader's own checks are the ones that refuse.
    const hostile: Array<[string, string, string]> = [
      ['/etc/passwd', 'passwd', 'not the transcript of its session'],
      [join(projects, 'passwd.jsonl'), 'passwd', "outside Claude Code's projects folder"],
      [join(projects, 'outside.jsonl'), 'outside', "outside Claude Code's projects folder"],
      [`${projects}/../../../secret.jsonl`, 'secret', "outside Claude Code's projects folder"],
      ['.claude/projects/-home-alice-shop/x.jsonl', 'x', 'not an absolute path'],
    ];
    const feed = await pageFeed();
    for (const [index, [transcriptPath, sessionId, reason]] of hostile.entries()) {
      const payload = { ...freshPayload('01-single-select', `hostile-${index}`), session_id: sessionId };
      const hook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: { ...payload, transcript_path: transcriptPath } });
      const question = await daemon.waitForAsk(payload.tool_use_id);
      const log = await daemon.waitForLog((entry) => entry.msg === 'no session context' && entry.askId === question.id, WAIT_MS, `the reason for ${transcriptPath}`);
      expect(log.reason).toBe(reason);
      expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
      expect((await hook.response).statusCode).toBe(200);
      expect((await daemon.ask(question.id)).context).toBeUndefined();
      expect(feed.messages.some(about(question.id, 'updated'))).toBe(false);
      expect(daemon.output().stdout).not.toContain(transcriptPath);
    }
    feed.socket.close();
  });

  it("is read only from the asking session's own transcript: a question naming another session's gets none of its title, branch or words", async () => {
    const feed = await pageFeed();
    // A real session, waiting on its own question; its id and tool call are on every page.
    const victim = inSession('01-single-select', 'victim');
    const victimTranscript = transcriptOf(victim, 'Rotate the production database credentials');
    const victimHook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: { ...victim, transcript_path: victimTranscript } });
    const victimQuestion = await daemon.waitForAsk(victim.tool_use_id);
    expect(questionOf(await feed.next(about(victimQuestion.id, 'updated'), "the victim's context")).context?.title).toBe('Rotate the production database credentials');

    // Whoever holds the hook key asks in a session of its own, naming the victim's transcript.
    const dressed = { ...inSession('01-single-select', 'dressed'), tool_use_id: victim.tool_use_id };
    const dressedHook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: { ...dressed, transcript_path: victimTranscript } });
    const dressedQuestion = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === dressed.session_id), WAIT_MS, 'the dressed question');
    const log = await daemon.waitForLog((entry) => entry.msg === 'no session context' && entry.askId === dressedQuestion.id, WAIT_MS, 'why it has no context');
    expect(log.reason).toBe('not the transcript of its session');
    expect((await daemon.ask(dressedQuestion.id)).context).toBeUndefined();
    expect(feed.messages.some(about(dressedQuestion.id, 'updated'))).toBe(false);

    for (const [question, hook] of [[victimQuestion, victimHook], [dressedQuestion, dressedHook]] as const) {
      expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
      expect((await hook.response).statusCode).toBe(200);
    }
    feed.socket.close();
  });
});
