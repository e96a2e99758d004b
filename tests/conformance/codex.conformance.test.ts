/**
 * askbridge's approvals against the real Codex CLI: its PermissionRequest hook, installed by the real
 * `askbridge install --codex --user` and trusted by it, shown in askbridge as Codex's, and decided
 * there as a person does (the CLI's token API, as the page's buttons post it).
 *
 * One CODEX_HOME, one mock model and one daemon (a real `askbridge start`) serve the cases; each case
 * starts its own codex in tmux, whose model asks to run a shell command outside the sandbox. Every
 * case checks what the model really received (the command's output, or the denial) and what the
 * person at the terminal saw (Codex's own dialog, or askbridge's status message instead).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { hookEnvOf, startAskbridgeDaemon } from './askbridge-stack.js';
import { setUpCodex, startCodex, type CodexSession, type CodexSetup } from './codex-tmux.js';

/** The model's command: its output proves it ran ($((6*7)) is only ever 42 once a shell ran it). */
const COMMAND = 'echo ASKBRIDGE_MARK_$((6*7))';
const RAN = 'ASKBRIDGE_MARK_42';
/** Codex's own approval dialog. */
const DIALOG = 'Would you like to run the following command?';
const STEPS = [{ exec: COMMAND, justification: 'Print the marker' }, { say: 'Finished.' }];

let setup: CodexSetup;
let daemon: Daemon;
let cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  daemon = await startAskbridgeDaemon();
  setup = await setUpCodex(hookEnvOf(daemon));
  console.log(`Codex under test: ${setup.codex.version} [${setup.codex.bin}]`);
}, 120_000);

afterEach(async () => {
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
  // Each case starts with no ask left waiting: the next one finds only its own.
  await waitUntil(async () => ((await daemon.pending()).length === 0 ? true : undefined), 15_000, 'no ask left waiting after the case');
});

afterAll(async () => {
  await setup?.remove();
  await daemon?.stop();
});

/** codex in the shared home, its hooks reaching the daemon in `askbridgeHome`, stopped after the case. */
async function codexWith(askbridgeHome: string): Promise<CodexSession> {
  setup.model.play(STEPS);
  const session = await startCodex(setup, { ASKBRIDGE_HOME: askbridgeHome });
  cleanups.push(() => session.stop());
  return session;
}

async function codexApproval(on: Daemon): Promise<AskView> {
  return waitUntil(async () => (await on.pending()).find((ask) => ask.agent === 'codex' && ask.approval), 30_000, "Codex's approval in askbridge");
}

/** What the model got for its command, once it got it (else what the terminal showed, to say why). */
async function commandResult(codex: CodexSession): Promise<string> {
  try {
    const output = await waitUntil(() => setup.model.outputs().find((result) => result.callId === 'call-0'), 30_000, "the command's result at the model");
    return output.output;
  } catch (error) {
    throw new Error(`${(error as Error).message}; the model got ${JSON.stringify(setup.model.outputs())}; Codex showed:\n${await codex.screen()}`);
  }
}

describe("Codex's approvals through its PermissionRequest hook", () => {
  it('install --codex trusts the hook as the person ran it: Codex runs it without asking for a review, and asks askbridge', async () => {
    expect(setup.installed.stdout).toMatch(/askbridge hook for Codex installed in .*hooks\.json/);
    expect(setup.installed.stdout).toContain('trusted in');
    const codex = await codexWith(daemon.home);
    expect(await codex.screen()).not.toMatch(/need review/i);
    await codex.submit('print the marker');
    const ask = await codexApproval(daemon);
    expect(ask.approval).toMatchObject({ toolName: 'Bash', toolInput: { command: COMMAND }, suggestions: [] });
  });

  it('when Codex quits while its approval waits, the card leaves (its orphaned hook lets go)', async () => {
    const codex = await codexWith(daemon.home);
    await codex.submit('print the marker');
    const ask = await codexApproval(daemon);
    await codex.stop();
    await waitUntil(async () => !(await daemon.pending()).some((pending) => pending.id === ask.id) || undefined, 15_000, 'the card to leave');
    expect((await daemon.ask(ask.id)).status).toBe('cancelled');
  });

  it('an approval allowed in askbridge runs the command, and Codex never shows its dialog', async () => {
    const codex = await codexWith(daemon.home);
    await codex.submit('print the marker');
    const ask = await codexApproval(daemon);
    // While it waits, Codex says where to answer, not its own dialog.
    const waiting = await codex.waitForScreen('Waiting for an answer in askbridge');
    expect(waiting).not.toContain(DIALOG);
    const decided = await daemon.api('POST', `/api/asks/${encodeURIComponent(ask.id)}/decide`, { behavior: 'allow' });
    expect(decided.status).toBe(200);
    expect(await commandResult(codex)).toContain(RAN);
    await codex.waitForScreen('Finished.');
    expect(await codex.screen()).not.toContain(DIALOG);
    expect((await daemon.ask(ask.id)).status).toBe('allowed');
  });

  it("an approval denied with a message does not run, and the model reads the person's words", async () => {
    const codex = await codexWith(daemon.home);
    await codex.submit('print the marker');
    const ask = await codexApproval(daemon);
    await daemon.api('POST', `/api/asks/${encodeURIComponent(ask.id)}/decide`, { behavior: 'deny', message: 'print it with printf instead' });
    const result = await commandResult(codex);
    expect(result).toContain('The user denied permission for this Bash call. They said:');
    expect(result).toContain('print it with printf instead');
    expect(result).not.toContain(RAN);
    // The turn goes on: the model answers the denial.
    await codex.waitForScreen('Finished.');
    expect(await codex.screen()).not.toContain(DIALOG);
  });

  it("Esc in Codex withdraws the card: its hook is killed, and askbridge lets go of the ask", async () => {
    const codex = await codexWith(daemon.home);
    await codex.submit('print the marker');
    const ask = await codexApproval(daemon);
    await codex.waitForScreen('Waiting for an answer in askbridge');
    await codex.pressKey('Escape');
    await waitUntil(async () => !(await daemon.pending()).some((pending) => pending.id === ask.id) || undefined, 15_000, 'the card to leave');
    expect((await daemon.ask(ask.id)).status).toBe('cancelled');
    expect(setup.model.outputs().some((result) => result.output.includes(RAN))).toBe(false);
  });
});

describe('where askbridge cannot ask anybody, Codex asks in its own dialog at once', () => {
  it('nobody reachable (the defaults, no page, nobody to tell): the dialog, and no card left waiting', async () => {
    const lonely = await startAskbridgeDaemon({ defaults: true });
    cleanups.push(() => lonely.stop());
    const codex = await codexWith(lonely.home);
    await codex.submit('print the marker');
    await codex.waitForScreen(DIALOG, 15_000);
    expect(await lonely.pending()).toEqual([]);
    const [line] = await waitUntil(async () => {
      const history = await lonely.history();
      return history.length > 0 ? history : undefined;
    }, 10_000, 'the ask in the history');
    expect(line).toMatchObject({ agent: 'codex', status: 'handed-to-terminal' });
  });

  it('no daemon: the hook prints nothing and Codex shows its dialog', async () => {
    const nowhere = await mkdtemp(join(tmpdir(), 'askbridge-conformance-no-daemon-'));
    cleanups.push(() => rm(nowhere, { recursive: true, force: true }));
    const codex = await codexWith(nowhere);
    await codex.submit('print the marker');
    await codex.waitForScreen(DIALOG, 15_000);
    expect(setup.model.outputs()).toEqual([]);
  });
});
