// The command hook run as Codex runs it (`--agent codex`, Codex's PermissionRequest payload on
// stdin, protocol.md 7) against the real daemon: the approval is shown as Codex's, with no "always
// allow" to offer, and the hook prints exactly Codex's decision format, never a field Codex calls
// unsupported (which would bring back its dialog); anything it cannot use prints nothing.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { HOOK_SCRIPT, REPO_ROOT } from '../stack/env.js';

/** What Codex 0.169.0 writes to a PermissionRequest hook's stdin (protocol.md 7): no tool_use_id, no suggestions. */
const codexPayload = (sessionId: string, command = 'npm run migrate') => ({
  session_id: sessionId,
  turn_id: 'turn-1',
  transcript_path: '/home/alice/.codex/sessions/rollout-1.jsonl',
  cwd: '/home/alice/projects/shop',
  hook_event_name: 'PermissionRequest',
  model: 'gpt-test',
  permission_mode: 'default',
  tool_name: 'Bash',
  tool_input: { command, description: 'Run the migrations' },
});

/** Runs the hook as Codex does, with `args`, the payload on stdin; resolves with what it printed and its exit code. */
function runCodexHook(payload: unknown, env: NodeJS.ProcessEnv, args = ['--agent', 'codex']) {
  const child = spawn(process.execPath, [HOOK_SCRIPT, ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stdin.end(JSON.stringify(payload));
  const result = new Promise<{ stdout: string; code: number | null }>((resolve) => child.once('close', (code) => resolve({ stdout, code })));
  return { child, result };
}

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

async function approvalOf(sessionId: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === sessionId), 10_000, "the Codex approval to wait");
}

const decide = (id: string, decision: unknown) => daemon.api('POST', `/api/asks/${encodeURIComponent(id)}/decide`, decision);

describe("the command hook as Codex's PermissionRequest hook", () => {
  it("shows the approval as Codex's, with the command and no suggestion, and prints Codex's allow", async () => {
    const hook = runCodexHook(codexPayload('codex-allow'), daemon.env);
    const ask = await approvalOf('codex-allow');
    expect(ask.agent).toBe('codex');
    expect(ask.approval).toMatchObject({ toolName: 'Bash', toolInput: { command: 'npm run migrate' }, suggestions: [], permissionMode: 'default' });
    // Codex takes no "always allow" back: there is none to choose.
    expect((await decide(ask.id, { behavior: 'allow', suggestion: 0 })).status).toBe(400);
    expect((await decide(ask.id, { behavior: 'allow' })).status).toBe(200);
    const { stdout, code } = await hook.result;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  it("prints a denial with the person's words, and never interrupt (Codex would show its dialog instead)", async () => {
    const hook = runCodexHook(codexPayload('codex-deny'), daemon.env);
    const ask = await approvalOf('codex-deny');
    const decided = await decide(ask.id, { behavior: 'deny', message: 'not on production', interrupt: true });
    // Whether the daemon takes `interrupt` for Codex or refuses it, what Codex gets never carries it.
    if (decided.status !== 200) expect((await decide(ask.id, { behavior: 'deny', message: 'not on production' })).status).toBe(200);
    const { stdout } = await hook.result;
    expect(JSON.parse(stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'The user denied permission for this Bash call. They said:\nnot on production' } },
    });
  });

  it('prints nothing when the person hands it to the terminal: Codex shows its own dialog', async () => {
    const hook = runCodexHook(codexPayload('codex-terminal'), daemon.env);
    const ask = await approvalOf('codex-terminal');
    expect((await daemon.api('POST', `/api/asks/${encodeURIComponent(ask.id)}/terminal`, {})).status).toBe(200);
    expect(await hook.result).toEqual({ stdout: '', code: 0 });
  });

  it('withdraws the approval when Codex kills its hook (Esc)', async () => {
    const hook = runCodexHook(codexPayload('codex-esc'), daemon.env);
    const ask = await approvalOf('codex-esc');
    hook.child.kill('SIGKILL');
    await waitUntil(async () => ((await daemon.ask(ask.id)).status === 'cancelled' ? true : undefined), 10_000, 'the approval to be withdrawn');
  });

  it('an agent it does not know: prints nothing, asks nothing', async () => {
    const { stdout, code } = await runCodexHook(codexPayload('codex-unknown'), daemon.env, ['--agent', 'gemini']).result;
    expect({ stdout, code }).toEqual({ stdout: '', code: 0 });
    expect((await daemon.pending()).some((ask) => ask.sessionId === 'codex-unknown')).toBe(false);
  });
});
