// The hook key asks; it never answers. Whatever holds it (a process that read the settings file, a
// program that took the port while askbridge was down) can open questions and learn their outcome,
// but cannot answer, decline, extend or hand back any question, list the waiting ones, read history,
// pair a device or stop the daemon: every such request is refused and the question still waits,
// answerable by the person. Real daemon, real sockets.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER } from '../../src/http-hook.js';
import { freshPayload } from '../stack/fixtures.js';
import { bashRuleSuggestion, decisionOf, permissionPayload, requestPermission } from '../stack/approvals.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { runCli } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

type Sent = { status: number; body: string };

/** A request carrying only the hook key, as the http hook sends it (no token, no cookie, no Origin). */
function withHookKey(port: number, key: string, method: string, path: string, body?: unknown): Promise<Sent> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { [HOOK_KEY_HEADER]: key, ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }) },
      },
      (response) => {
        let received = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (received += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: received }));
      },
    );
    sent.on('error', reject);
    sent.end(text);
  });
}

describe('the hook key against every route that answers or reads', () => {
  it('is refused everywhere a person or the CLI acts, and the question still waits for the person', async () => {
    daemon = await startDaemon();
    const key = daemon.hookKey();
    const payload = freshPayload('01-single-select', 'hook-key-cannot-answer');
    const hook = postAsHttpHook({ port: daemon.port, key, payload });
    const ask = await daemon.waitForAsk(payload.tool_use_id);
    const question = ask.questions[0]!.question;

    const attempts: Array<[string, string, unknown?]> = [
      ['POST', `/api/asks/${ask.id}/answer`, { answers: { [question]: 'PostgreSQL' } }],
      ['POST', `/api/asks/${ask.id}/decline`, {}],
      ['POST', `/api/asks/${ask.id}/extend`, {}],
      ['POST', `/api/asks/${ask.id}/terminal`, {}],
      ['GET', '/api/asks'],
      ['GET', `/api/asks/${ask.id}`],
      ['GET', '/api/history'],
      ['GET', '/api/devices'],
      ['POST', '/api/pairings', {}],
      ['GET', '/api/config'],
    ];
    for (const [method, path, body] of attempts) {
      const sent = await withHookKey(daemon.port, key, method, path, body);
      expect([401, 403], `${method} ${path}: ${sent.status} ${sent.body}`).toContain(sent.status);
      expect(sent.body, `${method} ${path}`).not.toContain(question);
    }

    // Nothing of it touched the question: it waits, and the person's answer is the one Claude gets.
    expect((await daemon.ask(ask.id)).status).toBe('pending');
    expect(daemon.running()).toBe(true);
    const answered = await runCli(['answer', ask.id, '--pick', `1=${ask.questions[0]!.options[0]!.label}`], daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    const { statusCode, body } = await hook.response;
    expect(statusCode).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { answers: { [question]: ask.questions[0]!.options[0]!.label } } } });
    expect(await daemon.finishedAsk(payload.tool_use_id)).toMatchObject({ status: 'answered', source: { kind: 'person' } });
  });

  it('cannot allow or deny a permission: every decision with it is refused, and the approval waits for the person', async () => {
    const started = (daemon = await startDaemon());
    const key = started.hookKey();
    const held = await requestPermission(started, permissionPayload('hook-key-cannot-allow', 'Bash', { command: 'rm -rf ~/important', description: 'Clean up' }, { suggestions: [bashRuleSuggestion('rm -rf *')] }));
    for (const decision of [{ behavior: 'allow' }, { behavior: 'allow', suggestion: 0 }, { behavior: 'deny', message: 'no' }]) {
      const sent = await withHookKey(started.port, key, 'POST', `/api/asks/${held.view.id}/decide`, decision);
      expect([401, 403], `${JSON.stringify(decision)}: ${sent.status} ${sent.body}`).toContain(sent.status);
    }
    expect((await started.ask(held.view.id)).status).toBe('pending');
    const denied = await runCli(['answer', held.view.id, '--deny'], started.env);
    expect(denied.code, denied.stderr).toBe(0);
    expect(await decisionOf(held)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny' } } });
  });
});
