// The askbridge command as a process: how it ends, and how it behaves in a pipeline.
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { askbridgeCommand } from '../../src/command-name.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createHookIdentity } from '../../src/daemon/hook-identity.js';
import { baseEnv, CLI_BIN } from '../stack/env.js';
import { freshPayload } from '../stack/fixtures.js';
import { line, writeLines } from '../stack/history-lines.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { runCli, runHook } from '../stack/processes.js';
import { startDaemon } from '../stack/daemon.js';

const homes: string[] = [];
afterAll(async () => {
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

describe('askbridge in a pipeline', () => {
  it('ends quietly when the reader closes the pipe early (`askbridge history | head -n 1`)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-pipe-'));
    homes.push(home);
    const line = (index: number) =>
      JSON.stringify({ id: `id-${index}`, sessionId: 's', toolUseId: `t-${index}`, project: '/p', askedAt: new Date(0).toISOString(), finishedAt: new Date(0).toISOString(), status: 'answered', source: 'person', detail: 'page', questions: [{ question: `Question ${index}?`, header: 'H' }], answers: { [`Question ${index}?`]: 'A'.repeat(200) } });
    // Far more than a pipe buffer holds, so the writer is still writing when `head` exits.
    await writeFile(join(home, 'history.jsonl'), `${Array.from({ length: 3000 }, (_, index) => line(index)).join('\n')}\n`, { mode: 0o600 });
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-c', `"${process.execPath}" "${CLI_BIN}" history --limit 3000 | head -n 1; exit \${PIPESTATUS[0]}`], { env: baseEnv({ ASKBRIDGE_HOME: home }) }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/person \(page\)/);
  });
});

describe('askbridge history', () => {
  it('lists the newest first, as the page does, and says so in its help', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-history-order-'));
    homes.push(home);
    await writeFile(join(home, 'history.jsonl'), [line(1), line(2), line(3)].map((entry) => `${JSON.stringify(entry)}\n`).join(''), { mode: 0o600 });
    const json = await runCli(['history', '--json'], baseEnv({ ASKBRIDGE_HOME: home }));
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.trim().split('\n').map((text) => (JSON.parse(text) as { id: string }).id)).toEqual(['3', '2', '1']);
    const readable = await runCli(['history', '--limit', '2'], baseEnv({ ASKBRIDGE_HOME: home }));
    expect(readable.stdout.split('\n').filter((text) => text.startsWith('  Which')).map((text) => text.trim())).toEqual(['Which database, take 3?', 'Which database, take 2?']);
    expect((await runCli(['history', '--help'], baseEnv({ ASKBRIDGE_HOME: home }))).stdout).toMatch(/newest first/);
  });

  it('with --search shows only the finished questions that hold the text, in any case, as the page searches them', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-history-search-'));
    homes.push(home);
    const lines = [line(1), line(2, { machine: 'Build-Box' }), line(3, { notes: { 'Which database, take 3?': 'build it small' } }), line(4)];
    await writeFile(join(home, 'history.jsonl'), lines.map((entry) => `${JSON.stringify(entry)}\n`).join(''), { mode: 0o600 });
    const found = await runCli(['history', '--search', 'BUILD', '--json'], baseEnv({ ASKBRIDGE_HOME: home }));
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout.trim().split('\n').map((text) => (JSON.parse(text) as { id: string }).id)).toEqual(['3', '2']);
    const none = await runCli(['history', '--search', 'nowhere'], baseEnv({ ASKBRIDGE_HOME: home }));
    expect(none).toMatchObject({ code: 0, stdout: 'No finished question holds that text.\n' });
  });
});

describe('askbridge status', () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });

  /** A state directory whose daemon.json points at `port`, as if a daemon had written it. */
  async function stateFor(port: number, pid = process.pid): Promise<NodeJS.ProcessEnv> {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-status-'));
    homes.push(home);
    await writeFile(join(home, 'token'), `${'t'.repeat(43)}\n`, { mode: 0o600 });
    await writeFile(join(home, 'daemon.json'), JSON.stringify({ pid, port, host: '127.0.0.1', version: 'test', startedAt: Date.now() }), { mode: 0o600 });
    return baseEnv({ ASKBRIDGE_HOME: home });
  }

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    return (server.address() as AddressInfo).port;
  }

  const status = async (env: NodeJS.ProcessEnv) => {
    const result = await runCli(['status', '--json'], env);
    return { code: result.code, ...(JSON.parse(result.stdout) as { running: boolean; state?: string; reason?: string }) };
  };

  it('tells "something that is not askbridge" on the port from "not running"', async () => {
    const port = await serve((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>a dev server</h1>'));
    expect(await status(await stateFor(port))).toMatchObject({ code: 1, running: false, state: 'not-askbridge', reason: expect.stringContaining(`:${port}`) });
  });

  it('sends nothing to a program on the port that cannot prove it is askbridge, and doctor says so loudly', async () => {
    const seen: string[] = [];
    const port = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${JSON.stringify(request.headers)} ${body}`);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    const env = await stateFor(port);
    expect(await status(env)).toMatchObject({ code: 1, running: false, state: 'not-askbridge', reason: expect.stringContaining('could not prove it is askbridge') });
    const doctor = await runCli(['doctor', '--json', '--claude', '/nonexistent'], env);
    expect(JSON.parse(doctor.stdout).findings).toContainEqual(expect.objectContaining({ id: 'port-impostor', level: 'error' }));
    expect(seen.length).toBeGreaterThan(0);
    for (const request of seen) {
      expect(request).toMatch(/^POST \/api\/hook\/hello /);
      expect(request).not.toContain('t'.repeat(43));
    }
  });

  it('tells a program that accepts connections and never answers apart from "not running"', async () => {
    const port = await serve(() => {});
    expect(await status(await stateFor(port))).toMatchObject({ code: 1, running: false, state: 'not-askbridge', reason: expect.stringContaining('does not answer') });
  });

  it('tells an askbridge that holds another token (its hello proof does not match ours)', async () => {
    const other = createHookIdentity('another-state-directory-token');
    const port = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(other.hello((JSON.parse(body) as { nonce: string }).nonce))));
    });
    expect(await status(await stateFor(port))).toMatchObject({ code: 1, running: false, state: 'refuses-token' });
  });

  it('says when daemon.json is left over from a daemon that ended without cleaning up', async () => {
    const port = await serve(() => {});
    servers.pop()!.close();
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((exited) => dead.once('exit', exited));
    expect(await status(await stateFor(port, dead.pid))).toMatchObject({ code: 1, running: false, state: 'not-running', reason: expect.stringContaining('left over') });
  });
});

describe('askbridge --help and errors', () => {
  const COMMANDS = ['start', 'stop', 'status', 'open', 'install', 'uninstall', 'pending', 'answer', 'watch', 'listen', 'history', 'config', 'logs', 'doctor'];

  it('every command has --help, which prints its usage and exits 0 without doing anything', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-help-'));
    homes.push(home);
    for (const name of COMMANDS) {
      const result = await runCli([name, '--help'], baseEnv({ ASKBRIDGE_HOME: home, HOME: home }));
      expect(result, name).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout, name).toMatch(new RegExp(`^Usage: (askbridge|node \\S+/bin/askbridge\\.mjs) ${name}\\b`));
    }
    expect(await readdir(home)).toEqual([]);
  });

  it('`askbridge --help` and `askbridge status` load neither zod, fastify nor pino', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'askbridge-trace-'));
    homes.push(dir);
    const hooks = join(dir, 'trace.mjs');
    await writeFile(hooks, "export async function resolve(s, c, next) { const r = await next(s, c); if (/node_modules\\/(zod|fastify|pino)\\//.test(r.url)) console.error('heavy ' + r.url); return r; }\n");
    const register = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(pathToFileURL(hooks).href)})`;
    const trace = (args: string[]) =>
      new Promise<{ stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, ['--import', register, CLI_BIN, ...args], { env: baseEnv({ ASKBRIDGE_HOME: dir }) }, (_error, stdout, stderr) => resolve({ stdout, stderr })),
      );
    const help = await trace(['--help']);
    expect(help.stdout).toMatch(/^Usage: (askbridge|node \S+\/bin\/askbridge\.mjs) <command>/);
    expect(help.stderr).toBe('');
    const status = await trace(['status']);
    expect(status.stdout).toMatch(/^askbridge is not running/);
    expect(status.stderr).toBe('');
  });

  it('an unknown option is one line naming the command, with exit code 2', async () => {
    const env = baseEnv();
    const result = await runCli(['status', '--bogus'], env);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(`askbridge status: Unknown option '--bogus' (${askbridgeCommand(env)} status --help)\n`);
  });
});

describe('askbridge answer --json with a bad file', () => {
  it('says in one line that the file is missing or not JSON, exit 2, and the question still waits', async () => {
    const daemon = await startDaemon();
    try {
      const payload = freshPayload('01-single-select', 'bad-json-file');
      const hook = runHook(payload, daemon.env);
      const question = await daemon.waitForAsk(payload.tool_use_id);
      const dir = await mkdtemp(join(tmpdir(), 'askbridge-answer-file-'));
      homes.push(dir);

      const missing = await runCli(['answer', question.id, '--json', join(dir, 'nope.json')], daemon.env);
      expect(missing).toMatchObject({ code: 2, stdout: '', stderr: `askbridge answer: cannot read ${join(dir, 'nope.json')}: no such file\n` });
      await writeFile(join(dir, 'broken.json'), '{ "responses": [');
      const broken = await runCli(['answer', question.id, '--json', join(dir, 'broken.json')], daemon.env);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toMatch(/^askbridge answer: .*broken\.json is not valid JSON: [^\n]*\n$/);
      expect((await daemon.ask(question.id)).status).toBe('pending');

      hook.child.kill('SIGTERM');
      await hook.result;
    } finally {
      await daemon.stop();
    }
  });
});

describe('askbridge answer --pick follows the page\'s rules', () => {
  it('refuses to send part of a four-question answer, naming what is missing; takes options by number; the hook gets all four', async () => {
    const daemon = await startDaemon();
    try {
      const payload = freshPayload('03-four-questions', 'pick-rules');
      const hook = runHook(payload, daemon.env);
      const question = await daemon.waitForAsk(payload.tool_use_id);
      const [first, second, third, fourth] = question.questions;

      const partial = await runCli(['answer', question.id, '--pick', `1=${first!.options[0]!.label}`], daemon.env);
      expect(partial.code).toBe(2);
      expect(partial.stderr).toBe(`askbridge answer: every question needs an answer, as on the page: add --pick or --other for question 2 (${second!.header}) and 3 (${third!.header}) and 4 (${fourth!.header})\n`);
      const unknown = await runCli(['answer', question.id, '--pick', '1=9', '--pick', '2=1', '--pick', '3=1', '--pick', '4=1'], daemon.env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('"9" is not an option of question');
      expect((await daemon.ask(question.id)).status).toBe('pending');

      // By number (2 is the second option) and by label, mixed.
      const answered = await runCli(['answer', question.id, '--pick', '1=2', '--pick', `2=${second!.options[0]!.label}`, '--pick', '3=1', '--other', '4=Something else'], daemon.env);
      expect(answered.code, answered.stderr).toBe(0);
      const result = await hook.result;
      const answers = (JSON.parse(result.stdout) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }).hookSpecificOutput.updatedInput.answers;
      expect(answers).toEqual({
        [first!.question]: first!.options[1]!.label,
        [second!.question]: second!.options[0]!.label,
        [third!.question]: third!.options[0]!.label,
        [fourth!.question]: 'Something else',
      });
    } finally {
      await daemon.stop();
    }
  });
});

describe('askbridge config with a daemon running', () => {
  it('shows what the daemon applies: the last good version of a file that is broken now, and says why', async () => {
    const daemon = await startDaemon({ config: { waitSeconds: 45 } });
    try {
      const file = join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
      const env = { ...daemon.env, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') };
      await writeFile(file, '{ "waitSeconds": ');
      // Written the moment the daemon is up: while its file watcher may still be setting up.
      await daemon.waitForLog((entry) => entry.msg === 'config file is invalid: keeping its last good version');
      const shown = await runCli(['config', '--json', '--cwd', daemon.home], env);
      expect(shown.code).toBe(1);
      const view = JSON.parse(shown.stdout) as { source: string; config: { waitSeconds: number }; errors: Array<{ message: string }> };
      expect(view).toMatchObject({ source: 'daemon', config: { waitSeconds: 45 } });
      expect(view.errors[0]?.message).toMatch(/not valid JSON/);
      const text = await runCli(['config', '--cwd', daemon.home], env);
      expect(text.stdout).toMatch(/\(as the running daemon applies it\)\n/);
      expect(text.stdout).toMatch(/waitSeconds\s+45\s+\(user\)/);
      expect(text.stderr).toContain("the daemon keeps using this file's last good version");
    } finally {
      await daemon.stop();
    }
  });
});

describe('askbridge answer ID --pick: a prefix of an id names a question as the whole id does', () => {
  it('a finished question is too late (exit 3, the same words) by its whole id or a prefix, held by the daemon or known only to history', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-answer-prefix-'));
    // Finished before this daemon started: only history.jsonl knows it.
    const forgotten = '0f1e2d3c-4b5a-4698-8776-5a4b3c2d1e0f';
    writeLines(home, [line(1, { id: forgotten, status: 'declined', source: 'declined', detail: 'person via page', answers: undefined })]);
    const daemon = await startDaemon({ home });
    try {
      const payload = freshPayload('01-single-select', 'prefix-finished');
      const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
      const question = await daemon.waitForAsk(payload.tool_use_id);
      const prefix = question.id.slice(0, 8);
      const answered = await daemon.api('POST', `/api/asks/${question.id}/answer`, { responses: [{ question: question.questions[0]!.question, selected: ['PostgreSQL (Recommended)'], other: null, notes: null }] });
      expect(answered.status).toBe(200);
      expect((await hook.response).statusCode).toBe(200);

      const pick = (idOrPrefix: string) => runCli(['answer', idOrPrefix, '--pick', '1=2'], daemon.env);
      const [byId, byPrefix, oldById, oldByPrefix, unknown] = await Promise.all([pick(question.id), pick(prefix), pick(forgotten), pick(forgotten.slice(0, 6)), pick('ffffffff')]);
      expect(byId).toMatchObject({ code: 3, stdout: '' });
      expect(byId.stderr).toBe('askbridge answer: too late: the question was already answered: answered by a person (cli), with {"Which database should the new orders service use?":"PostgreSQL (Recommended)"}\n');
      expect(byPrefix).toMatchObject({ code: 3, stdout: '', stderr: byId.stderr });
      expect(oldById).toMatchObject({ code: 3, stdout: '', stderr: 'askbridge answer: too late: the question was already declined: declined (person via page)\n' });
      expect(oldByPrefix).toMatchObject({ code: 3, stdout: '', stderr: oldById.stderr });
      expect(unknown).toMatchObject({ code: 1, stdout: '' });
      expect(unknown.stderr).toMatch(/^askbridge answer: no question has the id ffffffff/);
    } finally {
      await daemon.stop();
    }
  });
});
