// A kill -9 of the daemon right after an answer: the history line of every answer that reached
// Claude Code is in history.jsonl. The line is written (a completed write(2), which a kill -9 does
// not undo) before the reply goes to the hook, so killing the daemon the moment the hook's reply
// arrives must never find it missing. Real processes: the daemon, http hook requests, the kill.
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH } from '../../src/http-hook.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses } from '../stack/processes.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

type Reply = { statusCode: number; body: string } | undefined;

/**
 * The process that holds the questions: the daemon `askbridge start` forked (a keeper holds the
 * port and restarts it), or, without a keeper, the started process itself.
 */
function daemonPid(daemon: Daemon): number {
  const pid = daemon.child.pid!;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  if (children.length > 1) throw new Error(`the started process ${pid} has ${children.length} children: which one is the daemon?`);
  return children[0] ?? pid;
}

/** Whether a process is gone: exited, or a zombie that can no longer write anything. */
function isGone(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  try {
    return readFileSync(stat, 'utf8').replace(/^.*\) /s, '').startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Asks as Claude Code's http hook does, and kills the daemon (SIGKILL) in the same turn as the first
 * reply's first bytes arrive, before anything else can run. Resolves with the reply, or undefined
 * when the kill came first (the connection broke: Claude Code's own dialog asks, nothing was received).
 */
function askThenKillOnReply(daemon: Daemon, pid: number, payload: HookPayload): Promise<Reply> {
  const body = JSON.stringify(payload);
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port: daemon.port,
      method: 'POST',
      path: HTTP_HOOK_PATH,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [HOOK_KEY_HEADER]: daemon.hookKey() },
    });
    req.on('error', () => resolve(undefined));
    req.on('response', (res) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // killed already, by the first reply
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      // Only a whole reply reached the hook: one cut off by the kill is a broken connection.
      res.on('close', () => resolve(res.complete ? { statusCode: res.statusCode ?? 0, body: text } : undefined));
      res.on('error', () => resolve(undefined));
    });
    req.end(body);
  });
}

describe('history.jsonl across a kill -9', () => {
  it('holds every answer a hook received, the daemon killed as the first reply arrives', async () => {
    // Several questions answered at once in each run: the daemon settles them one after the
    // other, and the kill lands while the later ones are still being settled and replied to.
    const RUNS = 10;
    const AT_ONCE = 8;
    let received = 0;
    for (let run = 0; run < RUNS; run++) {
      const daemon = await startDaemon();
      cleanups.push(() => daemon.stop());
      const payloads = Array.from({ length: AT_ONCE }, (_, index) => freshPayload('01-single-select', `kill-${run}-${index}`));
      const pid = daemonPid(daemon);
      const replies = payloads.map((payload) => askThenKillOnReply(daemon, pid, payload));
      const views = await Promise.all(payloads.map((payload) => daemon.waitForAsk(payload.tool_use_id)));
      // The answers' own replies may or may not arrive before the kill: what counts is what each hook got.
      for (const [index, view] of views.entries()) {
        const question = payloads[index]!.tool_input.questions[0]!;
        void daemon.api('POST', `/api/asks/${view.id}/answer`, { responses: [{ question: question.question, selected: [question.options[0]!.label], other: null, notes: null }] }).catch(() => undefined);
      }
      const got = await Promise.all(replies);
      await waitUntil(() => isGone(pid) || undefined, 5000, `the daemon (pid ${pid}) to be gone`);

      const onDisk = new Map(
        (existsSync(daemon.historyFile) ? readFileSync(daemon.historyFile, 'utf8') : '')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as { id: string; status: string; answers?: Record<string, string> })
          .map((line) => [line.id, line]),
      );
      for (const [index, reply] of got.entries()) {
        // The kill came first (a broken connection), or no decision (an empty 200: Claude Code's own dialog asks): no answer reached Claude.
        if (reply === undefined || (reply.statusCode === 200 && reply.body === '')) continue;
        received++;
        const question = payloads[index]!.tool_input.questions[0]!;
        const answers = { [question.question]: question.options[0]!.label };
        expect(reply.statusCode, `run ${run}, question ${index}`).toBe(200);
        expect((JSON.parse(reply.body) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }).hookSpecificOutput.updatedInput.answers).toEqual(answers);
        const line = onDisk.get(views[index]!.id);
        expect(line && { status: line.status, answers: line.answers }, `run ${run}, question ${index}: the hook has the answer, so its line is on disk`).toEqual({ status: 'answered', answers });
      }
      await daemon.stop();
    }
    // Each run's first reply at least was received.
    expect(received).toBeGreaterThanOrEqual(RUNS);
  }, 120_000);
});
