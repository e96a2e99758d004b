// Claude Code's `http` hook against the real daemon process, over real sockets: a POST as Claude
// Code sends it, answered from the CLI; the socket closing (Esc, the entry's timeout) withdraws the
// question at once; the hook key from `askbridge install`, its rotation without a restart, and its
// survival across restarts; and the SessionStart hook (`start --background --quiet`) making one
// daemon however many sessions start at once.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv } from '../stack/env.js';
import { answerArgs, freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { runCli } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { hookBody, postAsHttpHook } from '../stack/hook-client.js';

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function daemonWithKey(options: Parameters<typeof startDaemon>[0] = {}): Promise<{ daemon: Daemon; key: () => string }> {
  const daemon = await startDaemon(options);
  stops.push(() => daemon.stop());
  // The daemon makes the key at start; install writes it into settings from there.
  return { daemon, key: () => daemon.hookKey() };
}

describe('the http hook against the real daemon', () => {
  it('hands the question over in the POST and gets the decision JSON back as the response body', async () => {
    const { daemon, key } = await daemonWithKey();
    const payload = freshPayload('02-multi-select', 'http-answer');
    const hook = postAsHttpHook({ port: daemon.port, key: key(), payload });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const answer = loadFixture<FixtureAnswer>('02-multi-select.answer.json');
    const cli = await runCli(answerArgs(question.id, payload, answer), daemon.env);
    expect(cli.code, cli.stderr).toBe(0);

    const { statusCode, body } = await hook.response;
    expect(statusCode).toBe(200);
    expect(JSON.parse(body)).toEqual(loadFixture('02-multi-select.expected-allow.json'));
    expect((await daemon.history()).find((line) => line.toolUseId === payload.tool_use_id)).toMatchObject({ status: 'answered', source: 'person' });
  });

  it('withdraws the question at once when the socket closes (Esc), and refuses a late answer', async () => {
    const { daemon, key } = await daemonWithKey();
    const payload = freshPayload('01-single-select', 'http-esc');
    const hook = postAsHttpHook({ port: daemon.port, key: key(), payload });
    hook.response.catch(() => undefined);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    // An http question is not kept on disk while it waits (nothing would come back for it after a
    // restart); a command hook's question, asked meanwhile, is.
    const commandPayload = freshPayload('01-single-select', 'command-beside-http');
    const commandHook = daemon.askAsHook(hookBody(commandPayload));
    const commandQuestion = await daemon.waitForAsk(commandPayload.tool_use_id);
    expect(existsSync(join(daemon.home, 'pending', `${commandQuestion.id}.json`))).toBe(true);
    expect(existsSync(join(daemon.home, 'pending', `${question.id}.json`))).toBe(false);
    expect((await runCli(['answer', commandQuestion.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await commandHook).lines.at(-1)).toMatchObject({ event: 'settled', status: 'answered' });
    hook.abort();
    // Withdrawn because the socket closed, not at a timeout: the daemon settles it as the hook gone.
    const settled = await daemon.waitForLog((entry) => entry.msg === 'question settled' && entry.askId === question.id, 10_000, 'the question to be withdrawn');
    expect(settled).toMatchObject({ status: 'cancelled', source: 'hook-gone' });
    expect(await daemon.ask(question.id)).toMatchObject({ status: 'cancelled', source: { kind: 'hook-gone' } });
    const late = await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env);
    expect(late.code).toBe(3);
    expect(late.stderr).toContain('cancelled');
  });

  it('answers two questions in turn over one keep-alive connection, as Claude Code does', async () => {
    const { daemon, key } = await daemonWithKey();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    stops.push(async () => agent.destroy());
    for (const tag of ['first', 'second']) {
      const payload = freshPayload('01-single-select', `keepalive-${tag}`);
      const hook = postAsHttpHook({ port: daemon.port, key: key(), payload, agent });
      const question = await daemon.waitForAsk(payload.tool_use_id);
      expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
      expect(JSON.parse((await hook.response).body)).toMatchObject({ hookSpecificOutput: { updatedInput: { answers: { 'Which database should the new orders service use?': 'SQLite' } } } });
    }
  });

  it('refuses a wrong key with 401 and asks nothing; a rotated key works at once, the old one no more, with no restart', async () => {
    const { daemon, key } = await daemonWithKey();
    const project = await mkdtemp(join(tmpdir(), 'askbridge-http-key-'));
    stops.push(() => rm(project, { recursive: true, force: true }));
    const payload = freshPayload('01-single-select', 'http-key');

    const wrong = await postAsHttpHook({ port: daemon.port, key: `${key()}x`, payload }).response;
    expect(wrong.statusCode).toBe(401);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: { code: 'bad_hook_key' } });
    expect(await daemon.pending()).toEqual([]);

    const old = key();
    const rotated = await runCli(['install', '--hook', 'http', '--rotate-key', '--project', project], baseEnv({ ...daemon.env, HOME: project }));
    expect(rotated.code, rotated.stderr).toBe(0);
    const settings = readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8');
    expect(settings).toContain(key());
    expect(settings).toContain(`http://127.0.0.1:${daemon.port}/api/hook/ask`);
    expect((await postAsHttpHook({ port: daemon.port, key: old, payload }).response).statusCode).toBe(401);

    const hook = postAsHttpHook({ port: daemon.port, key: key(), payload });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook.response).statusCode).toBe(200);
  });

  it('keeps the hook key across daemon restarts: settings written once keep working', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-http-restart-'));
    stops.push(() => rm(home, { recursive: true, force: true }));
    const first = await startDaemon({ home });
    const key = readFileSync(join(home, 'hook-key'), 'utf8').trim();
    first.expectExit();
    expect((await runCli(['stop'], first.env)).code).toBe(0);
    await first.exited;

    const second = await startDaemon({ home });
    stops.push(() => second.stop());
    expect(readFileSync(join(home, 'hook-key'), 'utf8').trim()).toBe(key);
    const payload = freshPayload('01-single-select', 'http-restart');
    const hook = postAsHttpHook({ port: second.port, key, payload });
    const question = await second.waitForAsk(payload.tool_use_id);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], second.env)).code).toBe(0);
    expect((await hook.response).statusCode).toBe(200);
  });
});

describe('the SessionStart hook: askbridge start --background --quiet', () => {
  it('starts one daemon when ten sessions start at once, prints nothing, and returns at once once it runs', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-session-start-'));
    const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config') });
    stops.push(async () => {
      await runCli(['stop'], env);
      await rm(home, { recursive: true, force: true });
    });
    const starts = await Promise.all(Array.from({ length: 10 }, () => runCli(['start', '--background', '--quiet'], env)));
    for (const start of starts) {
      expect(start.code, start.stderr).toBe(0);
      expect(start.stdout).toBe('');
      expect(start.stderr).toBe('');
    }
    const status = await runCli(['status', '--json'], env);
    const { pid } = JSON.parse(status.stdout) as { pid: number };
    expect(pid).toBeGreaterThan(0);
    // Every start found or made this one daemon: the lock holds its pid, and it serves.
    expect(JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'))).toMatchObject({ pid });

    const again = await runCli(['start', '--background', '--quiet'], env);
    expect(again).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse((await runCli(['status', '--json'], env)).stdout)).toMatchObject({ pid });
  });
});
