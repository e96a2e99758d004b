/**
 * The default when nobody watches, on the real client, as a new user meets it: `askbridge install`,
 * a daemon with no config file, no page open anywhere. A question nobody could be told about goes
 * to Claude Code's own dialog at once; with a paired page closed and its device subscribed to
 * pushes, the question waits in askbridge, the terminal says where to answer it, and an answer
 * from there reaches the model.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { pairOverHttp } from '../stack/page-client.js';
import { runCli } from '../stack/processes.js';
import { newSubscriptionKeys } from '../stack/push-service.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';
import { createProject, hookEnvOf, resolveClaudeUnderTest, startAskbridgeDaemon } from './askbridge-stack.js';
import type { ClaudeUnderTest } from './askbridge-stack.js';
import { startClaude } from './claude-tmux.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { DATABASE } from './questions.js';

let claudeCode: ClaudeUnderTest | undefined;
let daemon: Daemon;
let receiver: Receiver;
let cleanups: Array<() => Promise<unknown>> = [];
const defer = (cleanup: () => Promise<unknown>) => void cleanups.push(cleanup);

beforeAll(async () => {
  claudeCode = await resolveClaudeUnderTest();
  receiver = await startReceiver();
  // No config file: every default applies, as on a new user's machine.
  daemon = await startAskbridgeDaemon({ defaults: true, env: { ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });
}, 300_000);

afterEach(async () => {
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
});

afterAll(async () => {
  await daemon?.stop();
  await receiver?.close();
});

/** Claude asks DATABASE in a project wired by `askbridge install`. */
async function askInTerminal() {
  const fake = await startFakeAnthropic({ script: DATABASE });
  defer(() => fake.close());
  const project = await createProject({ daemon, claudeBin: claudeCode!.bin, hooks: 'install' });
  defer(() => project.remove());
  const claude = await startClaude({ baseUrl: fake.url, projectDir: project.dir, claudeBin: claudeCode!.bin, env: hookEnvOf(daemon) });
  defer(() => claude.stop());
  await claude.submit('Ask me what you need to know.', { accepted: () => fake.mainRequests.length > 0 });
  return { fake, claude };
}

const answered = (answer: string) => `Your questions have been answered: "Which database should we use?"="${answer}". You can now continue with these answers in mind.`;

describe('nobody watching, on the real client', () => {
  it('with nobody to tell, the question goes to Claude Code’s own dialog at once, and the terminal’s answer reaches the model', async () => {
    const run = await askInTerminal();
    const asked = await waitUntil(() => (run.fake.currentToolUseId ? Date.now() : undefined), 30_000, 'the model to call AskUserQuestion');
    await run.claude.waitForScreen(/Which database should we use\?[\s\S]*Enter to select/, 20_000);
    console.log(`AskUserQuestion → Claude Code's own dialog on screen, nobody reachable: ${Date.now() - asked} ms`);
    const settled = await daemon.finishedAsk(run.fake.currentToolUseId!);
    expect(settled.source).toEqual({ kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' });

    // The person at the terminal answers (Enter picks the highlighted first option).
    await run.claude.pressKeyUntil('Enter', () => run.fake.toolResult !== undefined);
    const result = await run.fake.waitForToolResult(30_000);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(answered('Postgres'));
  });

  it('with a paired page closed and its device subscribed to pushes, the question waits, the terminal names the page, and an answer from askbridge reaches the model', async () => {
    const page = await pairOverHttp(daemon);
    const keys = newSubscriptionKeys();
    expect((await page.request('POST', '/api/push/subscription', { endpoint: `${receiver.origin}/push/phone`, expirationTime: null, keys: keys.json })).status).toBe(200);
    defer(async () => {
      const { devices } = (await daemon.api<{ devices: Array<{ id: string }> }>('GET', '/api/devices')).body;
      for (const device of devices) await daemon.api('POST', `/api/devices/${device.id}/revoke`);
    });

    const run = await askInTerminal();
    const question = await daemon.waitForAsk(await waitUntil(() => run.fake.currentToolUseId, 30_000, 'the model to call AskUserQuestion'), 30_000);
    await receiver.waitFor('/push/phone');
    // The entry's status message, as install wrote it: this machine's page and the command.
    await run.claude.waitForScreen(`Waiting for an answer in askbridge: http://127.0.0.1:${daemon.port}/`, 10_000);

    const answer = await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env);
    expect(answer.code, answer.stderr).toBe(0);
    const result = await run.fake.waitForToolResult(30_000);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(answered('SQLite'));
  });
});
