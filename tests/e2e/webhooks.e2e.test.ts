// Webhooks end to end: the real daemon with a user config naming ntfy, Slack, Discord and plain URL
// webhooks, all pointing at a local receiver. Each is told once when a question starts waiting
// (retried when it fails), never with more than the project, the headers and the link, never in
// an answer's way; and a project's own config cannot add one.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook } from '../stack/processes.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';

const PUBLIC_URL = 'https://askbridge.example.test';
/** A header a prompt-injected model might write: a Slack broadcast, a Discord ping and link, a bidi override. */
const HOSTILE_HEADER = 'DB <!channel> @everyone [x](https://evil.test)\u202E';
const RETRY_MS = 100;
/** Half of a surrogate pair without its other half: what a cut through an emoji leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

let daemon: Daemon;
let receiver: Receiver;
let project: string;
let runs = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  // The plain URL fails once, then accepts; one never answers at all.
  receiver.answer('/flaky', (_request, count) => (count === 1 ? 500 : 200));
  receiver.answer('/hang', () => 'hang');
  daemon = await startDaemon({
    config: {
      waitSeconds: 120,
      publicUrl: PUBLIC_URL,
      notify: [
        { url: `${receiver.origin}/flaky` },
        { ntfy: `${receiver.origin}/ntfy/askbridge-questions` },
        { slack: `${receiver.origin}/slack` },
        { discord: `${receiver.origin}/discord` },
        { url: `${receiver.origin}/hang` },
      ],
    },
    env: { ASKBRIDGE_TEST_NOTIFY_RETRY_MS: String(RETRY_MS) },
  });
  project = await mkdtemp(join(tmpdir(), 'askbridge-project-'));
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
  await receiver?.close();
  await rm(project, { recursive: true, force: true });
});

function asked(change: (payload: HookPayload) => void = () => {}): HookPayload {
  const payload = freshPayload('01-single-select', `webhook${++runs}`);
  change(payload);
  return payload;
}

const json = <T>(body: Buffer) => parseJson<T>(body.toString('utf8'), 'webhook body');

/** Every string in a JSON body, escapes decoded: JSON.stringify writes a lone surrogate as a \udXXX escape. */
function stringsIn(body: Buffer): string[] {
  const found: string[] = [];
  JSON.parse(body.toString('utf8'), (_key, value: unknown) => {
    if (typeof value === 'string') found.push(value);
    return value;
  });
  return found;
}

describe('webhooks', () => {
  it('tells each webhook once when a question starts waiting, after a retry where the first try failed', async () => {
    const payload = asked((p) => (p.tool_input.questions[0]!.header = HOSTILE_HEADER));
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);
    const link = `${PUBLIC_URL}/#question=${id}`;
    const marked = 'DB <!channel> @everyone [x](https://evil.test)[U+202E]';

    const [failed, delivered] = await receiver.waitFor('/flaky', 2);
    expect(failed!.body.equals(delivered!.body)).toBe(true);
    expect(json(delivered!.body)).toStrictEqual({ event: 'question_waiting', id, project: 'acme-shop', headers: [marked], url: link });
    expect(delivered!.headers['content-type']).toBe('application/json');

    const [ntfy] = await receiver.waitFor('/ntfy/');
    expect(json(ntfy!.body)).toStrictEqual({ topic: 'askbridge-questions', title: 'Question from acme-shop', message: marked, click: link, tags: ['question'] });

    const [slack] = await receiver.waitFor('/slack');
    const { text } = json<{ text: string }>(slack!.body);
    expect(text).toBe(`Question from acme-shop: DB &lt;!channel&gt; @everyone [x](https://evil.test)[U+202E]\n<${link}|Answer it>`);

    const [discord] = await receiver.waitFor('/discord');
    const message = json<{ content: string; allowed_mentions: unknown; flags: number }>(discord!.body);
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.flags).toBe(4);
    expect(message.content).toBe(`**Question from acme\\-shop**: DB \\<!channel\\> \\@everyone \\[x\\]\\(https\\://evil.test\\)\\[U+202E\\]\n${link}`);

    // Nothing but the project, the headers and the link: no question text, no secret of the daemon's.
    const secrets = [daemon.token, daemon.hookKey(), new URL(daemon.pairingUrl).hash.slice('#pair='.length), payload.tool_input.questions[0]!.question, 'SQLite'];
    for (const request of receiver.received) {
      const seen = `${JSON.stringify(request.headers)}${request.body.toString('utf8')}`;
      for (const secret of secrets) expect(seen, request.path).not.toContain(secret);
    }

    // Once told, never again: not after the retry's delay, and not when the question is answered.
    await sleep(RETRY_MS * 5);
    const answered = await runCli(['answer', id, '--pick', '1=SQLite'], daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    expect(Object.values(parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>((await hook.result).stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers)).toEqual(['SQLite']);
    await sleep(RETRY_MS * 5);
    for (const path of ['/flaky', '/ntfy/', '/slack', '/discord']) expect(receiver.to(path).filter((request) => request.body.includes(id)), path).toHaveLength(path === '/flaky' ? 2 : 1);
  });

  it('cuts a long header between characters: no webhook is sent half of an emoji', async () => {
    // 58 letters, then an emoji whose two UTF-16 halves straddle the 60-character cut of a notice's header.
    const header = `${'a'.repeat(58)}\u{1F600} and the rest`;
    const paths = ['/flaky', '/ntfy/', '/slack', '/discord'];
    const toldBefore = paths.map((path) => receiver.to(path).length);
    const payload = asked((p) => (p.tool_input.questions[0]!.header = header));
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);

    const bodies = await Promise.all(
      paths.map(async (path, index) => {
        const told = (await receiver.waitFor(path, toldBefore[index]! + 1)).find((request) => request.body.includes(id));
        if (!told) throw new Error(`${path} was not told about ${id}`);
        return told.body;
      }),
    );
    for (const [index, body] of bodies.entries()) expect(stringsIn(body).filter((text) => LONE_SURROGATE.test(text)), paths[index]).toEqual([]);
    expect(json<{ headers: string[] }>(bodies[0]!).headers).toEqual([`${'a'.repeat(58)}…`]);
    expect(json<{ message: string }>(bodies[1]!).message).toBe(`${'a'.repeat(58)}…`);
    hook.child.kill('SIGTERM');
    await hook.result;
  });

  it('never holds up an answer: the question is answered while a webhook hangs', async () => {
    const hungBefore = receiver.to('/hang').length;
    const payload = asked();
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);
    await receiver.waitFor('/hang', hungBefore + 1);

    const answered = await runCli(['answer', id, '--pick', '1=PostgreSQL (Recommended)'], daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    const result = await hook.result;
    expect(Object.values(parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>(result.stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers)).toEqual(['PostgreSQL (Recommended)']);
    // The hung request is still open: the answer did not wait for it.
    expect(receiver.to('/hang')).toHaveLength(hungBefore + 1);
  });

  it("refuses a trusted project's notify: the project's webhook is never told, and askbridge config says why", async () => {
    receiver.answer('/project', () => 200);
    await mkdir(join(project, '.claude'), { recursive: true });
    await writeFile(join(project, '.claude', 'askbridge.json'), JSON.stringify({ waitSeconds: 61, notify: [{ url: `${receiver.origin}/project` }] }));
    const trusted = await runCli(['trust', project], daemon.env);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('notify: ignored here (only your user config sets it)');

    const toldBefore = receiver.to('/slack').length;
    const payload = asked((p) => (p.cwd = project));
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    // The trusted file applies (its waitSeconds), but not its notify: the user's webhooks are told, the project's is not.
    expect(question.expiresAt - question.createdAt).toBe(61_000);
    await receiver.waitFor('/slack', toldBefore + 1);
    await sleep(RETRY_MS * 5);
    expect(receiver.to('/project')).toEqual([]);

    const config = await runCli(['config', '--cwd', project], daemon.env);
    expect(config.code, config.stderr).toBe(0);
    expect(config.stderr).toMatch(/^warning: .*askbridge\.json: notify is read from the user config only \(.*config\.json\); here it is ignored, and the rest of the file applies$/m);
    hook.child.kill('SIGTERM');
    await hook.result;
  });
});
