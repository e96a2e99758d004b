/**
 * A Codex approval under Codex's shared app-server (plain `codex`, its default): the TUI hands its
 * turns to `codex app-server --managed-daemon`, which runs the hooks as its own children and
 * outlives the TUI. When the TUI that asked goes away (its terminal closed), its approval leaves
 * askbridge within one check of the hook, and the hook ends printing nothing: the approval goes back
 * to Codex, which asks whoever resumes the thread in its own dialog.
 *
 * One daemon (a real `askbridge start`), one CODEX_HOME with askbridge's hook installed by the real
 * `askbridge install --codex --user`, the pinned Codex in tmux against the mock model; a client of
 * the app-server's control socket (as `askbridge attach codex` connects) sees what Codex asks after.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { now, waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { hookEnvOf, startAskbridgeDaemon } from './askbridge-stack.js';
import { setUpCodex, startCodex, type CodexSession, type CodexSetup } from './codex-tmux.js';

const COMMAND = 'echo ASKBRIDGE_MARK_$((6*7))';
/** How often the hook checks that the TUI still runs (AGENT_CHECK_MS in hooks/askbridge-hook.cjs). */
const HOOK_CHECK_MS = 2_000;

let daemon: Daemon;
let setup: CodexSetup;
let codex: CodexSession | undefined;

beforeAll(async () => {
  daemon = await startAskbridgeDaemon();
  setup = await setUpCodex(hookEnvOf(daemon), { sharedAppServer: true });
  console.log(`Codex under test: ${setup.codex.version} [${setup.codex.bin}]`);
}, 120_000);

afterAll(async () => {
  await codex?.stop();
  await setup?.remove();
  await daemon?.stop();
}, 60_000);

/** The shared app-server's pid, once it runs (Codex writes it to app-server-daemon/daemon.pid). */
function appServerPid(): Promise<number> {
  return waitUntil(
    () => {
      try {
        const { pid } = JSON.parse(readFileSync(join(setup.codexHome, 'app-server-daemon', 'daemon.pid'), 'utf8')) as { pid?: unknown };
        return typeof pid === 'number' ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    // The first start copies Codex's binary into CODEX_HOME: tens of seconds on a busy machine.
    90_000,
    "Codex's shared app-server",
    200,
  );
}

/** The pids of askbridge's hooks that `parent` runs now. */
function hooksOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === parent && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('askbridge-hook.cjs');
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A client of the app-server's control socket that resumes `threadId` and keeps every request Codex sends it. */
async function resumeThread(threadId: string): Promise<{ requests: Array<{ method: string; params: Record<string, unknown> }>; close(): void }> {
  const link = join(setup.codexHome, 'app-server-control', 'app-server-control.sock');
  const socketPath = resolve(dirname(link), readlinkSync(link));
  const socket = new WebSocket('ws://localhost/', { createConnection: () => createConnection(socketPath) });
  const requests: Array<{ method: string; params: Record<string, unknown> }> = [];
  const replies = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
    if (message.method !== undefined && message.id !== undefined) requests.push({ method: message.method, params: message.params ?? {} });
    else if (message.id !== undefined) replies.get(message.id)?.(message.result ?? message.error);
  });
  await new Promise((opened, failed) => socket.once('open', opened).once('error', failed));
  let next = 0;
  const call = (method: string, params: unknown) =>
    new Promise((answered) => {
      next += 1;
      replies.set(next, answered);
      socket.send(JSON.stringify({ id: next, method, params }));
    });
  await call('initialize', { clientInfo: { name: 'askbridge-conformance', version: '0' }, capabilities: { experimentalApi: true } });
  socket.send(JSON.stringify({ method: 'initialized' }));
  await call('thread/resume', { threadId });
  return { requests, close: () => socket.close() };
}

describe("a Codex approval under Codex's shared app-server", () => {
  it('leaves askbridge within one check when the TUI that asked is gone, and goes back to Codex undecided', async () => {
    setup.model.play([{ exec: COMMAND, justification: 'Print the marker' }, { say: 'Finished.' }]);
    codex = await startCodex(setup, { ASKBRIDGE_HOME: daemon.home });
    const server = await appServerPid();
    await codex.submit('print the marker');
    const ask = await waitUntil(async () => (await daemon.pending()).find((pending) => pending.agent === 'codex' && pending.approval), 60_000, "Codex's approval in askbridge");
    expect(ask.approval).toMatchObject({ toolName: 'Bash', toolInput: { command: COMMAND } });
    // The hook runs in the app-server, not in the TUI: the TUI's end is not its parent's.
    const [hook] = await waitUntil(() => (hooksOf(server).length === 1 ? hooksOf(server) : undefined), 10_000, "askbridge's hook under the app-server");

    const killed = now();
    await codex.stop();
    const stopped = now() - killed;
    await waitUntil(async () => ((await daemon.ask(ask.id)).status === 'pending' ? undefined : true), 15_000, 'the approval to leave askbridge');
    const left = now() - killed;
    console.log(`the approval left askbridge ${Math.round(left)} ms after the TUI was killed (its terminal was gone after ${Math.round(stopped)} ms)`);
    expect((await daemon.ask(ask.id)).status).toBe('cancelled');
    expect(left).toBeLessThan(stopped + HOOK_CHECK_MS + 2_000);
    await waitUntil(() => (hooksOf(server).includes(hook!) ? undefined : true), 5_000, 'the hook to end');
    // The app-server still runs the turn, undecided: whoever resumes the thread gets Codex's own approval.
    expect(hooksOf(server)).toEqual([]);
    const client = await resumeThread(ask.sessionId);
    try {
      const request = await waitUntil(() => client.requests.find((sent) => sent.method.endsWith('requestApproval')), 15_000, "Codex's own approval request");
      console.log(`after the hook, Codex asked a client that resumed the thread with ${request.method}`);
      expect(request.params).toMatchObject({ threadId: ask.sessionId });
      expect(JSON.stringify(request.params)).toContain('ASKBRIDGE_MARK_');
    } finally {
      client.close();
    }
    expect(setup.model.outputs()).toEqual([]);
  });
});
