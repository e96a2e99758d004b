// The hook, the daemon and the CLI as real processes, without a browser: every way the hook can fail
// must end in "exit 0, empty stdout" (Claude Code then asks in the terminal), and every answer must
// reach Claude Code byte for byte as the fixtures expect.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { baseEnv, HOOK_SCRIPT } from '../stack/env.js';
import { waitUntil } from '../stack/clock.js';
import { answerArgs, fixtureNames, freshPayload, loadFixture, type FixtureAnswer, type HookPayload } from '../stack/fixtures.js';
import { moduleReport, parseJson, runCli, runHook, killStrayProcesses } from '../stack/processes.js';
import { expectHandedBackByStoppingDaemon, expectSilentPassThrough } from '../stack/assertions.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';

const ANSWERED_FIXTURES = fixtureNames('.answer.json');
const MALFORMED_FIXTURES = fixtureNames('.input.json').filter((name) => /^9\d-malformed-/.test(name));

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  await new Promise<void>((closed) => server.close(() => closed()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** A state directory that looks like a daemon's (token + daemon.json) but names `port`. */
async function fakeStateDir(port: number | undefined): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-nodaemon-'));
  await writeFile(join(home, 'token'), `${'A'.repeat(43)}\n`, { mode: 0o600 });
  if (port !== undefined) {
    await writeFile(join(home, 'daemon.json'), JSON.stringify({ pid: 2 ** 22 + 1, port, host: '127.0.0.1', version: '0.1.0', startedAt: Date.now() }), { mode: 0o600 });
  }
  return home;
}

afterAll(async () => {
  await killStrayProcesses();
});

describe('the hook when no daemon is running', () => {
  const homes: string[] = [];
  afterAll(async () => {
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  });

  // Why each is quick, as the hook itself says (ASKBRIDGE_DEBUG=1): one line, the reason it gave up
  // before it could wait on anything. (How quick: the bench, row 1.)
  const passThroughReason = async (home: string) => {
    const result = await runHook('01-single-select', baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_DEBUG: '1' })).result;
    expectSilentPassThrough(result);
    return result.stderr;
  };

  it('prints nothing and exits 0 when the state directory is empty: without a token it connects nowhere', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-empty-'));
    homes.push(home);
    expect(await passThroughReason(home)).toMatch(/^askbridge hook: ENOENT: no such file or directory, open '.*\/token'\n$/);
  });

  it('prints nothing and exits 0 when there is a token but no daemon.json: without a port it connects nowhere', async () => {
    const home = await fakeStateDir(undefined);
    homes.push(home);
    expect(await passThroughReason(home)).toBe('askbridge hook: no daemon.json and no usable ASKBRIDGE_PORT\n');
  });

  it('prints nothing and exits 0 when daemon.json points at a closed port: one refused connection, not tried again', async () => {
    const port = await closedPort();
    const home = await fakeStateDir(port);
    homes.push(home);
    expect(await passThroughReason(home)).toBe(`askbridge hook: daemon unreachable: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });

  it('gives up quietly after its handshake timeout (15 s) when the port accepts but never answers', async () => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const address = server.address();
      if (typeof address !== 'object' || address === null) throw new Error('no port');
      const home = await fakeStateDir(address.port);
      homes.push(home);
      const result = await runHook('01-single-select', baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_DEBUG: '1' })).result;
      expectSilentPassThrough(result);
      expect(result.stderr).toContain('did not answer in time');
      expect(sockets.size).toBe(1);
      expect(result.ms).toBeGreaterThanOrEqual(15_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });
});

describe('the hook with a running daemon', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterEach(async () => {
    await killStrayProcesses();
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
  });

  it.each(MALFORMED_FIXTURES)('prints nothing and exits 0 for the malformed input %s', async (name) => {
    const payload = loadFixture<HookPayload>(`${name}.input.json`);
    const result = await runHook(name, daemon.env).result;
    expectSilentPassThrough(result);
    expect((await daemon.pending()).map((question) => question.toolUseId)).not.toContain(payload.tool_use_id);
  });

  it('has malformed fixtures to test', () => {
    expect(MALFORMED_FIXTURES.length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['not JSON', 'this is not json'],
    ['empty', ''],
    ['truncated JSON', '{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":['],
    ['JSON null', 'null'],
    ['a JSON array', '[{"tool_name":"AskUserQuestion"}]'],
    ['binary bytes', '\u0000\u00ff\u00fe{\u0001'],
  ])('prints nothing and exits 0 when stdin is %s', async (_what, stdin) => {
    const result = await runHook(Buffer.from(stdin, 'latin1'), daemon.env).result;
    expectSilentPassThrough(result);
  });

  it('keeps running and answering after malformed input', async () => {
    for (const name of MALFORMED_FIXTURES) expectSilentPassThrough(await runHook(name, daemon.env).result);
    expectSilentPassThrough(await runHook(Buffer.from('garbage'), daemon.env).result);
    expect(daemon.child.exitCode).toBeNull();
    const status = await runCli(['status', '--json'], daemon.env);
    expect(status.code).toBe(0);
    expect(parseJson<{ running: boolean }>(status.stdout, 'status --json').running).toBe(true);

    const payload = freshPayload('01-single-select', 'after-malformed');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const answered = await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env);
    expect(answered.code).toBe(0);
    const output = parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>((await hook.result).stdout, 'hook stdout');
    expect(output.hookSpecificOutput.updatedInput.answers).toEqual({ 'Which database should the new orders service use?': 'SQLite' });
  });

  const base = () => freshPayload('01-single-select', 'bad');
  const option = (label: string) => ({ label, description: `about ${label}` });
  const BAD_QUESTIONS: Array<[string, (payload: HookPayload) => void]> = [
    ['five options', (p) => (p.tool_input.questions[0]!.options = ['A', 'B', 'C', 'D', 'E'].map(option))],
    ['one option', (p) => (p.tool_input.questions[0]!.options = [option('Only')])],
    ['duplicate option labels', (p) => (p.tool_input.questions[0]!.options = [option('Same'), option('Same')])],
    ['an empty option label', (p) => (p.tool_input.questions[0]!.options = [option(' '), option('B')])],
    ['five questions', (p) => (p.tool_input.questions = [1, 2, 3, 4, 5].map((n) => ({ ...p.tool_input.questions[0]!, question: `Question ${n}?` })))],
    ['the same question text twice', (p) => (p.tool_input.questions = [p.tool_input.questions[0]!, { ...p.tool_input.questions[0]! }])],
    ['an option without a description', (p) => Reflect.deleteProperty(p.tool_input.questions[0]!.options[0]!, 'description')],
  ];

  it.each(BAD_QUESTIONS)('prints nothing and exits 0 for a question with %s, which the daemon refuses with 400', async (what, spoil) => {
    const payload = base();
    payload.tool_use_id = `${payload.tool_use_id}_${what.replaceAll(' ', '-')}`;
    spoil(payload);

    const direct = await daemon.askAsHook(JSON.stringify({ payload, environment: {} }));
    expect(direct.statusCode).toBe(400);
    expect(direct.json<{ error: { code: string } }>().error.code).toBe('invalid_request');

    const result = await runHook(payload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' }).result;
    expectSilentPassThrough(result);
    expect(result.stderr).toContain('daemon answered 400');
    expect((await daemon.pending()).map((question) => question.toolUseId)).not.toContain(payload.tool_use_id);
    expect(daemon.child.exitCode).toBeNull();
  });

  it('logs why it refused a hook\'s question', async () => {
    const since = Date.now();
    expectSilentPassThrough(await runHook('91-malformed-options-not-array', daemon.env).result);
    await daemon.waitForLog(
      (entry) => typeof entry.time === 'number' && entry.time >= since && /invalid|refus|reject|400/i.test(JSON.stringify(entry)),
      10_000,
      'a log line about the refused question',
    );
  });

  it("loads only itself and Node's own modules on its way to an answer: no package, no ES module, not node:http", async () => {
    // What makes the hook cost little more than `node -e 0` (the bench's row 1 measures how little).
    const report = await moduleReport();
    const payload = freshPayload('01-single-select', 'modules');
    const hook = runHook(payload, { ...daemon.env, ...report.env });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    const result = await hook.result;
    expect(parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>(result.stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers).toEqual({
      'Which database should the new orders service use?': 'SQLite',
    });
    const modules = await report.read();
    expect(modules.files).toEqual([HOOK_SCRIPT]);
    expect(modules.esModuleLoader).toBe(false);
    expect(modules.builtins).toContain('net');
    expect(modules.builtins).not.toContain('http');
  });

  it('has answer fixtures to test', () => {
    expect(ANSWERED_FIXTURES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(ANSWERED_FIXTURES)('prints exactly the expected decision for %s when answered with `askbridge answer`', async (name) => {
    const payload = loadFixture<HookPayload>(`${name}.input.json`);
    const answer = loadFixture<FixtureAnswer>(`${name}.answer.json`);
    const expected = loadFixture(`${name}.expected-allow.json`);

    const hook = runHook(name, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect(question.status).toBe('pending');
    expect(question.questions.map((q) => q.question)).toEqual(payload.tool_input.questions.map((q) => q.question));

    const answered = await runCli(answerArgs(question.id, payload, answer), daemon.env);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);

    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(result.signal).toBeNull();
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual(expected);
    // Exactly one JSON document: nothing before or after it.
    expect(result.stdout.trim().startsWith('{')).toBe(true);
    expect(() => JSON.parse(result.stdout)).not.toThrow();

    const after = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${question.id}`);
    expect(after.body.ask.status).toBe('answered');
    expect(after.body.ask.source).toEqual({ kind: 'person', client: 'cli' });
  });

  it('withdraws the question when the hook is killed with SIGKILL, as its connection closes, and refuses a late answer', async () => {
    const payload = freshPayload('01-single-select', 'sigkill');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);

    hook.child.kill('SIGKILL');
    const result = await hook.result;
    expect(result.signal).toBe('SIGKILL');
    // Withdrawn at once, not at a timeout: the daemon settles it as the killed hook's connection closes.
    const settled = await daemon.waitForLog((entry) => entry.msg === 'question settled' && entry.askId === question.id, 10_000, "the killed hook's question to be settled");
    expect(settled).toMatchObject({ status: 'cancelled', source: 'hook-gone' });

    const pending = await runCli(['pending', '--json'], daemon.env);
    expect(pending.code).toBe(0);
    expect(parseJson<AskView[]>(pending.stdout, 'pending --json').map((q) => q.id)).not.toContain(question.id);

    const view = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${question.id}`);
    expect(view.body.ask.status).toBe('cancelled');
    expect(view.body.ask.source).toEqual({ kind: 'hook-gone' });

    const late = await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env);
    expect(late.code).toBe(3);
    expect(late.stderr).toMatch(/too late: the question was already cancelled/);
  });

  it('exits 0 with empty stdout on SIGTERM (Esc in Claude Code) and the question is withdrawn', async () => {
    const payload = freshPayload('02-multi-select', 'sigterm');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);

    hook.child.kill('SIGTERM');
    const result = await hook.result;
    expectSilentPassThrough(result);

    await waitUntil(async () => ((await daemon.pending()).some((q) => q.id === question.id) ? undefined : true), 10_000, 'the question to be withdrawn', 10);
    const view = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${question.id}`);
    expect(view.body.ask.status).toBe('cancelled');

    const late = await runCli(['answer', question.id, '--pick', '1=Lint'], daemon.env);
    expect(late.code).toBe(3);
  });

  /** The daemon logs each hook request it holds: two for one ask once the second hook is attached to it. */
  const secondHookReceived = (askId: string) =>
    waitUntil(() => (daemon.logs().filter((entry) => entry.msg === 'question received' && entry.askId === askId).length >= 2 ? true : undefined), 10_000, 'the second hook to be received');

  it('attaches a second hook with the same session and tool call to the same question, and both print the answer', async () => {
    const payload = freshPayload('01-single-select', 'twice');
    const expected = loadFixture('01-single-select.expected-allow.json');
    const first = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const second = runHook(payload, daemon.env);
    await secondHookReceived(question.id);
    expect((await daemon.pending()).filter((q) => q.toolUseId === payload.tool_use_id)).toHaveLength(1);

    const answered = await runCli(['answer', question.id, '--pick', '1=PostgreSQL (Recommended)'], daemon.env);
    expect(answered.code).toBe(0);
    const [one, two] = await Promise.all([first.result, second.result]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(parseJson(one.stdout, 'first hook stdout')).toStrictEqual(expected);
    expect(parseJson(two.stdout, 'second hook stdout')).toStrictEqual(expected);
  });

  it('keeps the question for the remaining hook when one of two hooks for the same call is killed', async () => {
    const payload = freshPayload('01-single-select', 'one-of-two-killed');
    const expected = loadFixture('01-single-select.expected-allow.json');
    const first = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const second = runHook(payload, daemon.env);
    await secondHookReceived(question.id);
    first.child.kill('SIGKILL');
    expect((await first.result).signal).toBe('SIGKILL');
    // Let the daemon see the closed connection: a status round trip after the kill.
    await daemon.api('GET', '/api/status');
    const still = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${question.id}`);
    expect(still.body.ask.status).toBe('pending');

    const answered = await runCli(['answer', question.id, '--pick', '1=PostgreSQL (Recommended)'], daemon.env);
    expect(answered.code).toBe(0);
    expect(parseJson((await second.result).stdout, 'remaining hook stdout')).toStrictEqual(expected);
  });

  it('refuses a second answer to an answered question with exit code 3 and names the winner', async () => {
    const payload = freshPayload('01-single-select', 'second-answer');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    const late = await runCli(['answer', question.id, '--pick', '1=PostgreSQL (Recommended)'], daemon.env);
    expect(late.code).toBe(3);
    expect(late.stderr).toContain('already answered');
    expect(late.stderr).toContain('SQLite');
    const output = parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>((await hook.result).stdout, 'hook stdout');
    expect(Object.values(output.hookSpecificOutput.updatedInput.answers)).toEqual(['SQLite']);
  });
});

describe('`askbridge status --json`', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
  });

  type Status = { running: boolean; pid: number; port: number; url: string; version: string; pending: number; watchers: number };
  const status = async () => {
    const result = await runCli(['status', '--json'], daemon.env);
    expect(result.code).toBe(0);
    return parseJson<Status>(result.stdout, 'status --json');
  };

  it('reports the daemon\'s pid, port, url and the number of pending questions', async () => {
    const idle = await status();
    expect(idle).toMatchObject({ running: true, pid: daemon.child.pid, port: daemon.port, url: daemon.url, pending: 0, watchers: 0 });
    expect(idle.version).toMatch(/^\d+\.\d+\.\d+/);

    const a = freshPayload('01-single-select', 'status-a');
    const b = freshPayload('03-four-questions', 'status-b');
    const hookA = runHook(a, daemon.env);
    const hookB = runHook(b, daemon.env);
    const qa = await daemon.waitForAsk(a.tool_use_id);
    await daemon.waitForAsk(b.tool_use_id);
    expect((await status()).pending).toBe(2);

    expect((await runCli(['answer', qa.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hookA.result).code).toBe(0);
    expect((await status()).pending).toBe(1);

    hookB.child.kill('SIGTERM');
    expectSilentPassThrough(await hookB.result);
    await waitUntil(async () => ((await status()).pending === 0 ? true : undefined), 10_000, 'pending to drop to 0');
  });

  it('reports running: false with exit code 1 once the daemon is stopped', async () => {
    daemon.expectExit();
    const stopped = await runCli(['stop'], daemon.env);
    expect(stopped.code).toBe(0);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    const result = await runCli(['status', '--json'], daemon.env);
    expect(result.code).toBe(1);
    expect(parseJson(result.stdout, 'status --json')).toMatchObject({ running: false, state: 'not-running' });
  });
});

describe('the hook when the daemon goes away while it waits', () => {
  const daemons: Daemon[] = [];
  afterAll(async () => {
    await killStrayProcesses();
    await Promise.all(daemons.map((daemon) => daemon.stop()));
  });

  it('exits 0 with empty stdout when `askbridge stop` is run, told by the daemon as it stops, and the daemon removes daemon.json', async () => {
    const daemon = await startDaemon();
    daemons.push(daemon);
    const payload = freshPayload('03-four-questions', 'stop');
    const hook = runHook(payload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' });
    const question = await daemon.waitForAsk(payload.tool_use_id);

    daemon.expectExit();
    const stopped = await runCli(['stop'], daemon.env);
    expect(stopped.code).toBe(0);
    await expectHandedBackByStoppingDaemon(daemon, question.id, await hook.result);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);

    // And the next question does not try to reach it: the daemon took its token with it. (How fast
    // a hook with nothing to reach passes through: "the hook when no daemon is running" above.)
    expect(existsSync(join(daemon.home, 'token'))).toBe(false);
    const next = await runHook('01-single-select', { ...daemon.env, ASKBRIDGE_DEBUG: '1' }).result;
    expectSilentPassThrough(next);
    expect(next.stderr).toMatch(/ENOENT.*\/token'/);
  });

  it('exits 0 with empty stdout when the daemon is stopped with SIGTERM (Ctrl-C), told by the daemon as it stops, which exits 0 and removes daemon.json', async () => {
    const daemon = await startDaemon();
    daemons.push(daemon);
    const payload = freshPayload('02-multi-select', 'daemon-sigterm');
    const hook = runHook(payload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' });
    const question = await daemon.waitForAsk(payload.tool_use_id);

    daemon.expectExit();
    daemon.child.kill('SIGTERM');
    await expectHandedBackByStoppingDaemon(daemon, question.id, await hook.result);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);
  });

  it('when the daemon dies (SIGKILL) and nothing restarts it, retries until its own deadline, then exits 0 with empty stdout', async () => {
    const daemon = await startDaemon({ config: { waitSeconds: 2 } });
    daemons.push(daemon);
    const payload = freshPayload('01-single-select', 'daemon-killed');
    const hook = runHook(payload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' });
    await daemon.waitForAsk(payload.tool_use_id);

    await daemon.killOutright();
    const result = await hook.result;
    expectSilentPassThrough(result);
    // After its connection dropped it kept trying the dead daemon's port (the last try refused) until
    // its own deadline, the daemon's 2 s wait and its margin, had come.
    expect(result.stderr).toMatch(/^askbridge hook: daemon unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+; no daemon came back before the deadline\n$/);
  });

  it('when the daemon dies (SIGKILL) and starts again, re-attaches to the kept question and prints exactly one answer', async () => {
    const first = await startDaemon({ config: { waitSeconds: 120 } });
    daemons.push(first);
    const payload = freshPayload('01-single-select', 'daemon-restarted');
    const hook = runHook(payload, first.env);
    const asked = await first.waitForAsk(payload.tool_use_id);
    await first.killOutright();
    expect(hook.child.exitCode).toBeNull(); // still waiting for an answer

    const second = await startDaemon({ home: first.home, config: { waitSeconds: 120 } });
    daemons.push(second);
    const restored = await second.waitForAsk(payload.tool_use_id);
    expect(restored).toMatchObject({ id: asked.id, createdAt: asked.createdAt, expiresAt: asked.expiresAt });
    // The hook is back: answering now reaches it.
    await second.waitForLog((entry) => entry.msg === 'question received' && entry.askId === asked.id);
    const answered = await runCli(answerArgs(asked.id, payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), second.env);
    expect(answered.code).toBe(0);
    const result = await hook.result;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(loadFixture('01-single-select.expected-allow.json'));
    expect((await second.history()).filter((line) => line.id === asked.id)).toMatchObject([{ status: 'answered', source: 'person' }]);
  });
});

describe('ASKBRIDGE_PORT=0, the setting that lets the daemon pick any free port', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
  });

  // ASKBRIDGE_PORT=0 tells the daemon to take any free port; clients inheriting it must use daemon.json.
  it('a hook that inherits ASKBRIDGE_PORT=0 still reaches the daemon through daemon.json', async () => {
    const payload = freshPayload('01-single-select', 'port-zero');
    const hook = runHook(payload, { ...daemon.env, ASKBRIDGE_PORT: '0' });
    const first = await Promise.race([
      hook.result.then(() => 'hook exited without an answer'),
      daemon.waitForAsk(payload.tool_use_id, 5000).then(
        () => 'question pending',
        () => 'question never arrived',
      ),
    ]);
    expect(first).toBe('question pending');
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook.result).stdout).not.toBe('');
  });

  it('`askbridge open --print` with ASKBRIDGE_PORT=0 finds the running daemon', async () => {
    const result = await runCli(['open', '--print'], { ...daemon.env, ASKBRIDGE_PORT: '0' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${daemon.url}#pair=`);
  });
});

describe('what happens when nobody answers, as set in the user config file', () => {
  const daemons: Daemon[] = [];
  afterAll(async () => {
    await killStrayProcesses();
    await Promise.all(daemons.map((daemon) => daemon.stop()));
  });
  const startWith = async (config: Record<string, unknown>) => {
    const daemon = await startDaemon({ config });
    daemons.push(daemon);
    return daemon;
  };
  type Decision = { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason?: string; additionalContext?: string; [key: string]: unknown } };

  it('lets the terminal ask (empty stdout) once waitSeconds pass with onTimeout "terminal"', async () => {
    const daemon = await startWith({ waitSeconds: 1, onTimeout: 'terminal' });
    const payload = freshPayload('01-single-select', 'timeout-terminal');
    const hook = runHook(payload, { ...daemon.env, ASKBRIDGE_DEBUG: '1' });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect(question.timeout.action).toBe('terminal');
    expect(question.expiresAt - question.createdAt).toBe(1000);
    const result = await hook.result;
    expectSilentPassThrough(result);
    expect(result.ms).toBeGreaterThanOrEqual(1000);
    // Ended by the daemon's policy, not by the hook's own (later) deadline.
    expect(result.stderr).toBe('askbridge hook: no answer (handed-to-terminal): the terminal asks\n');
    const view = await daemon.api<{ ask: AskView }>('GET', `/api/asks/${question.id}`);
    expect(view.body.ask.status).toBe('handed-to-terminal');
    expect(view.body.ask.source).toEqual({ kind: 'policy', action: 'terminal', trigger: 'timeout' });
  });

  it('answers with the "(Recommended)" option and tells Claude it was a default, with onTimeout "recommended"', async () => {
    const daemon = await startWith({ waitSeconds: 1, onTimeout: 'recommended' });
    const result = await runHook('01-single-select', daemon.env).result;
    expect(result.code).toBe(0);
    expect(result.ms).toBeGreaterThanOrEqual(1000);
    const output = parseJson<Decision>(result.stdout, 'hook stdout');
    const { additionalContext, ...decision } = output.hookSpecificOutput;
    expect(additionalContext).toMatch(/No person answered/);
    // The rest is exactly what a person choosing the recommended option would have sent.
    const personal = loadFixture<Decision>('01-single-select.expected-allow.json');
    expect(personal.hookSpecificOutput.updatedInput).toMatchObject({ answers: { 'Which database should the new orders service use?': 'PostgreSQL (Recommended)' } });
    expect({ hookSpecificOutput: decision }).toStrictEqual(personal);
  });

  it('denies with a reason Claude can act on, with onTimeout "decline"', async () => {
    const daemon = await startWith({ waitSeconds: 1, onTimeout: 'decline' });
    const result = await runHook(freshPayload('03-four-questions', 'timeout-decline'), daemon.env).result;
    expect(result.code).toBe(0);
    const output = parseJson<Decision>(result.stdout, 'hook stdout');
    expect(Object.keys(output.hookSpecificOutput).sort()).toEqual(['hookEventName', 'permissionDecision', 'permissionDecisionReason']);
    expect(output.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(output.hookSpecificOutput.permissionDecisionReason).toMatch(/\S/);
  });

  it('decides at once, without waiting, for an unattended session (CLAUDE_CODE_SESSION_ATTENDED=0)', async () => {
    const daemon = await startWith({ waitSeconds: 300, onTimeout: 'recommended' });
    const payload = freshPayload('01-single-select', 'unattended');
    const result = await runHook(payload, { ...daemon.env, CLAUDE_CODE_SESSION_ATTENDED: '0' }).result;
    expect(result.code).toBe(0);
    // Decided as it was asked, because nobody watches: not at the end of its 300 s wait.
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual({ kind: 'policy', action: 'recommended', trigger: 'nobody-watching' });
    const output = parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> }; additionalContext?: string } }>(result.stdout, 'hook stdout');
    expect(output.hookSpecificOutput.updatedInput.answers).toEqual({ 'Which database should the new orders service use?': 'PostgreSQL (Recommended)' });
    expect(output.hookSpecificOutput.additionalContext).toMatch(/nobody was watching/);
  });
});
