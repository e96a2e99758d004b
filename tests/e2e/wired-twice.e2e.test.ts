// askbridge wired twice for the same sessions (the user's settings and a project's, or the plugin
// and install): Claude Code runs every entry of an event at once, so each wait arrives twice. It is
// one card, and every entry gets the person's decision, whichever transports the two use; a wait
// asked again after the first was settled is a new one, never handed the old decision. `install`
// says where askbridge is wired already, and how to keep one. Real processes: the daemon, the
// command hook as Claude Code runs it, Claude Code's http requests, the CLI.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_HOOK_PATH } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { decisionOf, permissionPayload, requestPermission } from '../stack/approvals.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { baseEnv } from '../stack/env.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses, runCli, runHook, type RunningProcess } from '../stack/processes.js';
import { continuationOf, sendStop, setAway, stopPayload } from '../stack/turn-ends.js';

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});
afterEach(async () => {
  await setAway(daemon, false);
  await killStrayProcesses();
});

const PROJECT = '/home/alice/projects/shop';

/** The asks pending for this session. */
async function pendingOf(sessionId: string): Promise<AskView[]> {
  return (await daemon.pending()).filter((ask) => ask.sessionId === sessionId);
}

const JOINED = 'the same wait, asked again by another hook entry (askbridge is wired twice): it waits with the first';

/** Once the daemon has had the second entry's request wait with the first (its log says so), for the ask `askId` when given. */
async function joined(askId?: string): Promise<void> {
  await waitUntil(() => daemon.logs().some((entry) => entry.msg === JOINED && (askId === undefined || entry.askId === askId)) || undefined, 10_000, 'the second entry waiting with the first');
}

/** What a command hook printed, once it exited: its decision JSON, or null for nothing. */
async function printed(hook: RunningProcess): Promise<unknown> {
  const result = await hook.result;
  expect(result.code).toBe(0);
  return result.stdout === '' ? null : JSON.parse(result.stdout);
}

describe('askbridge wired twice', () => {
  it('shows a permission asked through two command hook entries once, and both entries print the decision', async () => {
    const sessionId = `twice-${randomUUID()}`;
    const payload = permissionPayload(sessionId, 'Bash', { command: 'npm test', description: 'Run the tests' }, { cwd: PROJECT });
    const first = runHook(payload, daemon.env);
    const second = runHook(payload, daemon.env);
    const view = await waitUntil(async () => (await pendingOf(sessionId))[0], 10_000, 'the permission');
    await joined(view.id);
    const pending = await pendingOf(sessionId);
    expect(pending).toHaveLength(1);

    const decided = await daemon.api<{ ask: AskView }>('POST', `/api/asks/${pending[0]!.id}/decide`, { behavior: 'allow' });
    expect(decided.status).toBe(200);
    const allow = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
    expect(await printed(first)).toEqual(allow);
    expect(await printed(second)).toEqual(allow);
    // One decision, recorded once.
    await waitUntil(async () => (await daemon.history()).some((line) => line.sessionId === sessionId) || undefined, 5_000, 'the history line');
    expect((await daemon.history()).filter((line) => line.sessionId === sessionId)).toHaveLength(1);
  });

  it("shows a permission asked through an http entry and a command entry once: Claude Code's request gets the decision as its body, the command hook prints it", async () => {
    const sessionId = `mixed-${randomUUID()}`;
    const payload = permissionPayload(sessionId, 'Bash', { command: 'rm -rf build', description: 'Clean' }, { cwd: PROJECT });
    const http = await requestPermission(daemon, payload);
    const command = runHook(payload, daemon.env);
    await joined(http.view.id);
    expect(await pendingOf(sessionId)).toHaveLength(1);

    expect((await daemon.api('POST', `/api/asks/${http.view.id}/decide`, { behavior: 'deny', message: 'not now' })).status).toBe(200);
    const deny = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'The user denied permission for this Bash call. They said:\nnot now' } } };
    expect(await decisionOf(http)).toEqual(deny);
    expect(await printed(command)).toEqual(deny);
  });

  it('shows a question asked through an http entry and a command entry once, and both get the answer (the second was refused before, and asked nothing)', async () => {
    const payload = freshPayload('01-single-select', randomUUID());
    const http = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
    const view = await daemon.waitForAsk(String(payload.tool_use_id));
    const command = runHook(payload, daemon.env);
    await joined(view.id);
    const answered = await daemon.api('POST', `/api/asks/${view.id}/answer`, { responses: [{ question: view.questions[0]!.question, selected: [view.questions[0]!.options[0]!.label] }] });
    expect(answered.status).toBe(200);
    const body = JSON.parse((await http.response).body) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } };
    expect(body.hookSpecificOutput.updatedInput.answers).toEqual({ [view.questions[0]!.question]: view.questions[0]!.options[0]!.label });
    expect(await printed(command)).toEqual(body);
  });

  it('holds the end of a turn sent by two entries as one, while away, and both get the reply', async () => {
    await setAway(daemon, true);
    const sessionId = `stop-${randomUUID()}`;
    const payload = stopPayload(sessionId, 'Done: migration written.', { cwd: PROJECT });
    const http = sendStop(daemon, payload);
    const command = runHook(payload, daemon.env);
    const turnEnd = await waitUntil(async () => (await pendingOf(sessionId))[0], 10_000, 'the turn end');
    await joined(turnEnd.id);
    const pending = await pendingOf(sessionId);
    expect(pending).toHaveLength(1);
    expect((await daemon.api('POST', `/api/sessions/${sessionId}/reply`, { text: 'Backfill too', ask: pending[0]!.id })).status).toBe(200);
    const reason = await continuationOf(http);
    expect(reason).toContain('Backfill too');
    expect(await printed(command)).toEqual({ decision: 'block', reason });
  });

  it('shows a notification sent by two entries once', async () => {
    await setAway(daemon, true);
    const sessionId = `notify-${randomUUID()}`;
    const payload = { session_id: sessionId, cwd: PROJECT, hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt' };
    const http = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload, path: NOTIFICATION_HOOK_PATH });
    const command = runHook(payload, daemon.env);
    expect((await http.response).statusCode).toBe(200);
    expect(await printed(command)).toBeNull();
    const waits = await pendingOf(sessionId);
    expect(waits.map((ask) => ask.terminalWait?.kind)).toEqual(['permission_prompt']);
    // Both were answered, and only one card was ever added.
    expect(daemon.logs().filter((entry) => entry.msg === 'session waits in its terminal')).toHaveLength(1);
  });

  it('never hands a permission asked again, after the first was decided, the first one\'s decision: it is a new card', async () => {
    const sessionId = `again-${randomUUID()}`;
    const payload = permissionPayload(sessionId, 'Bash', { command: 'npm pack', description: 'Pack' }, { cwd: PROJECT });
    const first = runHook(payload, daemon.env);
    const view = await waitUntil(async () => (await pendingOf(sessionId))[0], 10_000, 'the first permission');
    expect((await daemon.api('POST', `/api/asks/${view.id}/decide`, { behavior: 'allow' })).status).toBe(200);
    expect(await printed(first)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });

    const again = runHook(payload, daemon.env);
    const next = await waitUntil(async () => (await pendingOf(sessionId))[0], 10_000, 'the second permission, as a new card');
    expect(next.id).not.toBe(view.id);
    expect((await daemon.api('POST', `/api/asks/${next.id}/decide`, { behavior: 'deny' })).status).toBe(200);
    expect(await printed(again)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
  });
});

describe('askbridge install, where askbridge is wired already', () => {
  it('says where, and the command that keeps only the new one; the settings of both still hand over every event', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-wired-twice-'));
    try {
      const project = join(home, 'shop');
      await runCli(['install', '--user'], baseEnv({ HOME: home, ASKBRIDGE_HOME: join(home, 'state'), PATH: '/usr/bin:/bin' })).then((result) => expect(result.code, result.stderr).toBe(0));
      await mkdir(project);
      const second = await runCli(['install', '--project', project], baseEnv({ HOME: home, ASKBRIDGE_HOME: join(home, 'state'), PATH: '/usr/bin:/bin' }));
      expect(second.code, second.stderr).toBe(0);
      const userSettings = join(home, '.claude', 'settings.json');
      expect(second.stderr).toContain(`note: askbridge is wired already in ${userSettings}: Claude Code runs every entry, and each wait still shows once; to keep only the one just written: `);
      expect(second.stderr).toMatch(/uninstall --user`/);
      for (const file of [userSettings, join(project, '.claude', 'settings.local.json')]) {
        const settings = JSON.parse(await readFile(file, 'utf8')) as { hooks: Record<string, unknown> };
        expect(Object.keys(settings.hooks).sort()).toEqual(['Elicitation', 'Notification', 'PermissionRequest', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
