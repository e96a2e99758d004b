// An MCP server's elicitation through the real daemon, as Claude Code's Elicitation hook hands it
// over (its http POST, and the command hook as a real process): a form accepted through the API
// reaches the hook exactly, its types kept; values that do not fit are refused field by field and
// the ask waits on; decline and cancel; a URL request; and every way it goes back to Claude Code's
// own dialog with an empty reply (a form askbridge will not show, a URL that is not http(s), nobody
// reachable, the deadline, "answer in the terminal", the session's turn over), while another call
// of the session (a subagent's, a parallel one) leaves it waiting. Only a person decides:
// the hook key cannot, and no policy ever accepts.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_KEY_HEADER } from '../../src/http-hook.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { formPayload, pendingElicitation, requestElicitation, respond, sendElicitation, urlPayload } from '../stack/elicitations.js';
import { loadFixture } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';
import { permissionPayload, requestPermission } from '../stack/approvals.js';
import { notifyWaiting, sendStop, stopPayload, submitPrompt } from '../stack/turn-ends.js';

const CONTACT = loadFixture('elicitation/contact.json');
const EVERY_KIND = loadFixture('elicitation/every-kind.json');

let daemon: Daemon;

beforeAll(async () => {
  daemon = await startDaemon();
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
});

const session = () => `elicit-${randomUUID()}`;

/** The decision an http Elicitation hook received: its JSON, or null for an empty body (Claude Code's own dialog). */
async function decisionOf(sent: { response: Promise<{ statusCode: number; body: string }> }): Promise<unknown> {
  const { statusCode, body } = await sent.response;
  expect(statusCode).toBe(200);
  return body === '' ? null : JSON.parse(body);
}

describe('a form', () => {
  it('accepted through the API reaches the http hook exactly as sent, its types kept', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT, { message: 'Who gets the report?' }));
    expect(held.view).toMatchObject({ status: 'pending', questions: [], agent: 'claude-code', elicitation: { server: 'forms', message: 'Who gets the report?', mode: 'form' }, choices: { handBack: 'the terminal' } });
    expect(held.view.elicitation?.mode === 'form' && held.view.elicitation.form.fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['name', 'text', true],
      ['email', 'text', true],
      ['age', 'number', false],
    ]);
    const content = { name: 'Ada', email: 'ada@example.test', age: 36 };
    const accepted = await respond(daemon, held.view.id, { action: 'accept', content });
    expect(accepted.status).toBe(200);
    expect(accepted.body.ask).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'cli' }, elicitationResult: { action: 'accept', content } });
    const { body } = await held.response;
    expect(body).toBe(JSON.stringify({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content } }));
    // A second response learns the first won.
    expect((await respond(daemon, held.view.id, { action: 'decline' })).status).toBe(409);
  });

  it('accepted through the API reaches the command hook on stdout exactly, every kind of field with its type', async () => {
    const sessionId = session();
    const hook = runHook(formPayload(sessionId, EVERY_KIND), daemon.env);
    const view = await pendingElicitation(daemon, sessionId);
    const content = { branch: 'release/2.0', homepage: 'https://example.test', releaseDate: '2026-12-31', freezeAt: '2026-12-24T10:00:00Z', rowLimit: 250, ratio: 0.25, dryRun: false, environment: 'prod', region: 'us-east-1', checks: ['lint', 'e2e'], notify: ['qa'] };
    expect((await respond(daemon, view.id, { action: 'accept', content })).status).toBe(200);
    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(JSON.stringify({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content } }));
  });

  it('refuses values that do not fit, with one detail per field, and the ask still waits', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    const refused = await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Ada', email: 'not an address', age: '36' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('invalid_content');
    expect(refused.body.error?.details).toEqual(['email: must be an email address, such as name@example.com', 'age: must be a number']);
    const missing = await respond(daemon, held.view.id, { action: 'accept', content: {} });
    expect(missing.body.error?.details).toEqual(['name: required', 'email: required']);
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    // Nothing was sent meanwhile; a fitting answer then goes through.
    expect((await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.test' } })).status).toBe(200);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { name: 'Ada', email: 'ada@example.test' } } });
  });

  it('declined: the server is told decline, with no content', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    expect((await respond(daemon, held.view.id, { action: 'decline' })).status).toBe(200);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' } });
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'declined', elicitationResult: { action: 'decline' } });
  });

  it('cancelled: the server is told cancel, with no content', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    expect((await respond(daemon, held.view.id, { action: 'cancel' })).status).toBe(200);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'cancel' } });
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'person', client: 'cli' }, elicitationResult: { action: 'cancel' } });
  });

  it('askbridge will not show (not a flat object of fields) is not held: an empty reply at once, and the log says why', async () => {
    const sessionId = session();
    const nested = { type: 'object', properties: { address: { type: 'object', properties: { street: { type: 'string' } } } } };
    const sent = sendElicitation(daemon, formPayload(sessionId, nested));
    expect(await decisionOf(sent)).toBeNull();
    expect((await daemon.pending()).filter((ask) => ask.sessionId === sessionId)).toEqual([]);
    const logged = await daemon.waitForLog((entry) => entry.msg === "elicitation not held: Claude Code's own dialog asks" && String(entry.reason).includes('"address"'));
    expect(logged.reason).toMatch(/flat/);
    // The command hook too.
    const hook = await runHook(formPayload(sessionId, nested), daemon.env).result;
    expect(hook).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('a URL request', () => {
  it('shows the exact host; accepted it reaches the hook with no content, declined with decline', async () => {
    const held = await requestElicitation(daemon, urlPayload(session(), 'https://login.example.test:8443/device?code=ABCD'));
    expect(held.view.elicitation).toMatchObject({ mode: 'url', url: 'https://login.example.test:8443/device?code=ABCD', host: 'login.example.test:8443' });
    // A URL's accept carries no values.
    const withContent = await respond(daemon, held.view.id, { action: 'accept', content: { token: 'x' } });
    expect(withContent).toMatchObject({ status: 400, body: { error: { code: 'content_not_taken' } } });
    expect((await respond(daemon, held.view.id, { action: 'accept' })).status).toBe(200);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept' } });

    const second = await requestElicitation(daemon, urlPayload(session(), 'https://xn--pypal-4ve.example/login'));
    expect(second.view.elicitation).toMatchObject({ host: 'xn--pypal-4ve.example' });
    expect((await respond(daemon, second.view.id, { action: 'decline' })).status).toBe(200);
    expect(await decisionOf(second)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' } });
  });

  it('that is not an http(s) address, or does not parse, is not held: an empty reply at once', async () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url']) {
      const sessionId = session();
      expect(await decisionOf(sendElicitation(daemon, urlPayload(sessionId, url)))).toBeNull();
      expect((await daemon.pending()).filter((ask) => ask.sessionId === sessionId)).toEqual([]);
    }
  });
});

describe('handed back to Claude Code', () => {
  it('"answer in the terminal" lets it go at once with an empty reply', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    const handed = await fetch(`${daemon.url}api/asks/${held.view.id}/terminal`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}` } });
    expect(handed.status).toBe(200);
    expect(await decisionOf(held)).toBeNull();
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'person', client: 'cli' } });
    expect((await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.test' } })).status).toBe(409);
  });

  it("the session's turn ending or a prompt typed lets it go with an empty reply, and a late response is refused (409)", async () => {
    const next: Array<[string, (sessionId: string) => Promise<unknown>]> = [
      ['UserPromptSubmit', (sessionId) => submitPrompt(daemon, sessionId)],
      ['Stop', (sessionId) => sendStop(daemon, stopPayload(sessionId, 'Interrupted')).response],
    ];
    for (const [event, moveOn] of next) {
      const sessionId = session();
      const other = await requestElicitation(daemon, formPayload(session(), CONTACT));
      const held = await requestElicitation(daemon, formPayload(sessionId, CONTACT));
      await moveOn(sessionId);
      expect(await decisionOf(held), event).toBeNull();
      expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
      const late = await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.test' } });
      expect(late.status).toBe(409);
      expect(late.body.error?.message).toMatch(/the session moved on meanwhile/);
      // Another session's form waits on.
      expect((await daemon.ask(other.view.id)).status).toBe('pending');
      other.abort();
    }
  });

  it("another call of the session (a subagent's or a parallel one: a permission, a notification) leaves its form waiting", async () => {
    const sessionId = session();
    const held = await requestElicitation(daemon, formPayload(sessionId, CONTACT));
    const permission = await requestPermission(daemon, permissionPayload(sessionId, 'Bash', { command: 'ls' }));
    await notifyWaiting(daemon, sessionId, 'permission_prompt', 'Claude needs your permission');
    const viaCommandHook = runHook(permissionPayload(sessionId, 'Bash', { command: 'pwd' }), daemon.env);
    await waitUntil(async () => ((await daemon.pending()).filter((ask) => ask.sessionId === sessionId && ask.approval).length === 2 ? true : undefined), 10_000, 'both permissions to wait');
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    expect((await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.test' } })).status).toBe(200);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { name: 'Ada', email: 'ada@example.test' } } });
    permission.abort();
    viaCommandHook.child.kill('SIGTERM');
  });

  it('a prompt typed or a turn ending in that session lets the command hook\'s form go, though the person is not away', async () => {
    for (const next of ['UserPromptSubmit', 'Stop'] as const) {
      const sessionId = session();
      const hook = runHook(formPayload(sessionId, CONTACT), daemon.env);
      const view = await pendingElicitation(daemon, sessionId);
      // The command hook reads which sessions the daemon holds a request of; another session's prompt changes nothing.
      expect(await runHook({ session_id: session(), hook_event_name: next, prompt: 'x', last_assistant_message: 'x' }, daemon.env).result).toMatchObject({ code: 0, stdout: '' });
      expect((await daemon.ask(view.id)).status).toBe('pending');
      expect(await runHook({ session_id: sessionId, cwd: '/home/alice/projects/shop', hook_event_name: next, prompt: 'never mind', last_assistant_message: 'Interrupted' }, daemon.env).result).toMatchObject({ code: 0, stdout: '' });
      expect(await hook.result, next).toMatchObject({ code: 0, stdout: '' });
      expect(await daemon.ask(view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
      expect((await respond(daemon, view.id, { action: 'cancel' })).status).toBe(409);
    }
  });

});

describe('who decides', () => {
  it('the hook key cannot respond, hand it back or decline it; the form still waits for the person', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    const key = { [HOOK_KEY_HEADER]: daemon.hookKey() };
    expect((await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Mallory', email: 'm@example.test' } }, key)).status).toBe(401);
    expect((await respond(daemon, held.view.id, { action: 'decline' }, key)).status).toBe(401);
    for (const verb of ['terminal', 'decline']) {
      const refused = await fetch(`${daemon.url}api/asks/${held.view.id}/${verb}`, { method: 'POST', headers: key });
      expect(refused.status, verb).toBe(401);
    }
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    expect((await respond(daemon, held.view.id, { action: 'decline' })).status).toBe(200);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' } });
  });

  it('answering, declining as a question or deciding it is refused: a form is responded to', async () => {
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    for (const [verb, body] of [
      ['answer', { responses: [{ question: 'x', selected: ['y'] }] }],
      ['decline', undefined],
      ['decide', { behavior: 'allow' }],
    ] as const) {
      const refused = await fetch(`${daemon.url}api/asks/${held.view.id}/${verb}`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(refused.status, verb).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message, verb).toMatch(/MCP server asks for input/);
    }
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    held.abort();
    await waitUntil(async () => ((await daemon.ask(held.view.id)).status === 'pending' ? undefined : true), 5000, 'the aborted form to be withdrawn');
  });
});

describe('presence and policy', () => {
  let other: Daemon | undefined;
  afterEach(async () => {
    await other?.stop();
    other = undefined;
  });

  it('with nobody watching or reachable (the defaults), a form is not held: an empty reply at once', async () => {
    other = await startDaemon({ defaults: true });
    const sessionId = session();
    expect(await decisionOf(sendElicitation(other, formPayload(sessionId, CONTACT)))).toBeNull();
    const logged = await other.waitForLog((entry) => entry.msg === 'elicitation received');
    expect(logged).toMatchObject({ settled: 'nobody-reachable' });
    // The command hook too.
    expect(await runHook(formPayload(sessionId, CONTACT), other.env).result).toMatchObject({ code: 0, stdout: '' });
  });

  it('in a session nobody watches (CI), a form is not held either', async () => {
    const sent = sendElicitation(daemon, formPayload(session(), CONTACT), { 'x-askbridge-env-ci': 'true' });
    expect(await decisionOf(sent)).toBeNull();
  });

  it('at the deadline the reply is empty, whatever the policy says: no rule or default ever accepts a form', async () => {
    other = await startDaemon({
      config: { waitSeconds: 1, onTimeout: 'recommended', rules: [{ question: 'report', text: 'Ada', when: 'immediately' }, { header: 'Name', choose: 'Ada' }] },
    });
    const sessionId = session();
    const sent = sendElicitation(other, formPayload(sessionId, CONTACT, { message: 'Who gets the report?' }));
    const view = await pendingElicitation(other, sessionId, sent.response);
    expect(view.timeout).toMatchObject({ action: 'terminal', summary: 'the terminal will ask' });
    expect(await decisionOf(sent)).toBeNull();
    expect(await other.ask(view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } });
    // The command hook likewise.
    const hook = runHook(formPayload(sessionId, CONTACT), other.env);
    expect(await hook.result).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('in the terminal', () => {
  it('pending and history name the server and its message, with escape sequences and invisible characters marked', async () => {
    const server = 'forms\u001b[2J\u202e';
    const message = 'Who gets\u001b]0;pwned\u0007 the report?';
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT, { server, message }));
    const pending = await runCli(['pending'], daemon.env);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toContain('  forms[U+001B][2J[U+202E] asks: Who gets[U+001B]]0;pwned[U+0007] the report?  (session ');
    expect(pending.stdout).toContain('       - email (text, required)\n');
    expect(pending.stdout).toContain(`/api/asks/${held.view.id}/elicitation`);
    expect(pending.stdout).not.toContain('\u001b');

    expect((await respond(daemon, held.view.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.test', age: 36 } })).status).toBe(200);
    await waitUntil(async () => (await daemon.history()).find((line) => line.id === held.view.id), 5000, 'the history line');
    const line = (await daemon.history()).find((entry) => entry.id === held.view.id);
    expect(line).toMatchObject({ status: 'answered', source: 'person', elicitation: { server, message, mode: 'form', fields: ['name', 'email', 'age'], result: { action: 'accept', content: { name: 'Ada', email: 'ada@example.test', age: 36 } } } });
    const history = await runCli(['history', '--limit', '1'], daemon.env);
    expect(history.stdout).toContain('  forms[U+001B][2J[U+202E] asks: Who gets[U+001B]]0;pwned[U+0007] the report?\n    -> accepted {"name":"Ada","email":"ada@example.test","age":36}\n');
    expect(history.stdout).not.toContain('\u001b');
    // `answer` does not take it for a question.
    const answer = await runCli(['answer', held.view.id, '--pick', '1'], daemon.env);
    expect(answer).toMatchObject({ code: 2, stderr: expect.stringContaining("is an MCP server's request for input, not a question") });
  });

  it("history says a form was let go when its session moved on, and a link's host", async () => {
    const sessionId = session();
    const held = await requestElicitation(daemon, urlPayload(sessionId, 'https://login.example.test/device'));
    await submitPrompt(daemon, sessionId);
    expect(await decisionOf(held)).toBeNull();
    await waitUntil(async () => (await daemon.history()).find((line) => line.id === held.view.id), 5000, 'the history line');
    const history = await runCli(['history', '--limit', '1'], daemon.env);
    expect(history.stdout).toContain('terminal (the session moved on)');
    expect(history.stdout).toContain('  forms asks: Sign in to continue.  (link to login.example.test)\n    -> let go: the session moved on\n');
  });
});
