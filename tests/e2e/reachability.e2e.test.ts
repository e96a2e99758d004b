// The default when nobody watches (`whenNobodyWatching: "wait-if-reachable"`), with the real daemon
// process and the real hooks: a question nobody could be told about goes back to Claude Code's own
// dialog at once; one that a terminal watches, a device with a push subscription or a webhook could
// be told about waits as before. The daemon runs with the defaults only (no config file).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { permissionPayload } from '../stack/approvals.js';
import { now, waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { pairOverHttp } from '../stack/page-client.js';
import { killStrayProcesses, runCli, runHook, startCli } from '../stack/processes.js';
import { newSubscriptionKeys } from '../stack/push-service.js';
import { startReceiver, type Receiver } from '../stack/receiver.js';
import { PERMISSION_HOOK_PATH } from '../../src/http-hook.js';

let daemon: Daemon;
let receiver: Receiver;
let runs = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  daemon = await startDaemon({ defaults: true, env: { ASKBRIDGE_TEST_PUSH_SERVICE: receiver.origin } });
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
  await receiver?.close();
});

const NOBODY_REACHABLE = { kind: 'policy', action: 'terminal', trigger: 'nobody-reachable' };

/** A question from the command hook: its result, and how long it took. */
async function askNow(tag: string) {
  const payload = freshPayload('01-single-select', `${tag}${++runs}`);
  const started = now();
  const result = await runHook(payload, daemon.env).result;
  return { payload, result, ms: now() - started };
}

/** A question from the command hook that is to wait: pending, with its hook still running. */
async function askAndWait(tag: string) {
  const payload = freshPayload('01-single-select', `${tag}${++runs}`);
  const hook = runHook(payload, daemon.env);
  const { id } = await daemon.waitForAsk(payload.tool_use_id);
  return { id, hook };
}

async function answerWithCli(id: string, hook: ReturnType<typeof runHook>) {
  const answered = await runCli(['answer', id, '--pick', '1=SQLite'], daemon.env);
  expect(answered.code, answered.stderr).toBe(0);
  expect((await hook.result).stdout).toContain('SQLite');
}

const userConfig = () => join(daemon.home, 'xdg-config', 'askbridge', 'config.json');

describe('nobody watching and nobody to tell', () => {
  it('a question goes back to the terminal at once: no decision, so Claude Code shows its own dialog', async () => {
    const { payload, result, ms } = await askNow('alone');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(ms).toBeLessThan(10_000); // not the five minutes of waitSeconds (the bench measures how fast)
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual(NOBODY_REACHABLE);
    expect((await daemon.history()).find((line) => line.toolUseId === payload.tool_use_id)).toMatchObject({ status: 'handed-to-terminal', source: 'terminal', detail: 'nobody-reachable' });
  });

  it('a permission too: an empty body over the http hook, never an allow', async () => {
    const held = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), path: PERMISSION_HOOK_PATH, payload: permissionPayload(`alone-perm-${++runs}`, 'Bash', { command: 'npm run migrate', description: 'Migrate' }) });
    const response = await held.response;
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    const line = await waitUntil(async () => (await daemon.history()).find((entry) => entry.approval?.target === 'npm run migrate'), 5000, 'the permission in history');
    expect(line).toMatchObject({ status: 'handed-to-terminal', source: 'terminal', detail: 'nobody-reachable' });
  });

  it('waits while a terminal watches (askbridge listen), and hands back at once again when it leaves', async () => {
    const listen = startCli(['listen', '--json'], daemon.env);
    await waitUntil(async () => ((await daemon.api<{ watchers: number }>('GET', '/api/status')).body.watchers === 1 ? true : undefined), 10_000, 'the listener to connect');
    const waiting = await askAndWait('watched');
    await answerWithCli(waiting.id, waiting.hook);
    listen.child.kill('SIGTERM');
    await listen.result;
    await waitUntil(async () => ((await daemon.api<{ watchers: number }>('GET', '/api/status')).body.watchers === 0 ? true : undefined), 10_000, 'the listener to leave');
    const { result, payload } = await askNow('left');
    expect(result.stdout).toBe('');
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual(NOBODY_REACHABLE);
  });

  it('waits when a paired page is closed but its device has a push subscription, and the push goes out; not once the device is revoked', async () => {
    const page = await pairOverHttp(daemon);
    const keys = newSubscriptionKeys();
    expect((await page.request('POST', '/api/push/subscription', { endpoint: `${receiver.origin}/push/phone`, expirationTime: null, keys: keys.json })).status).toBe(200);
    const waiting = await askAndWait('phone');
    await receiver.waitFor('/push/phone');
    await answerWithCli(waiting.id, waiting.hook);

    const { devices } = (await daemon.api<{ devices: Array<{ id: string }> }>('GET', '/api/devices')).body;
    for (const device of devices) expect((await daemon.api('POST', `/api/devices/${device.id}/revoke`)).status).toBe(200);
    const { result, payload } = await askNow('revoked');
    expect(result.stdout).toBe('');
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual(NOBODY_REACHABLE);
  });

  it('waits when a webhook could be told (the user config, written while the daemon runs), and the webhook is told', async () => {
    await mkdir(join(daemon.home, 'xdg-config', 'askbridge'), { recursive: true });
    await writeFile(userConfig(), JSON.stringify({ notify: [{ url: `${receiver.origin}/hook` }] }));
    try {
      // Each question reads the config as it is on disk now.
      const waiting = await askAndWait('webhook');
      const [told] = await receiver.waitFor('/hook');
      expect(JSON.parse(told!.body.toString())).toMatchObject({ event: 'question_waiting', id: waiting.id });
      await answerWithCli(waiting.id, waiting.hook);
    } finally {
      await rm(userConfig(), { force: true });
    }
  });
});
