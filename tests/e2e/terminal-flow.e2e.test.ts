// The interactive answer, `watch` and `listen` as a person and a script meet them: the real CLI in a
// real terminal (tmux: keys sent, the screen read back) against the real daemon and hook. Every
// step waits for what the screen or the daemon shows, within a bounded time, never for a fixed one.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { MACHINE_HEADER } from '../../src/http-hook.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { CLI_BIN, REPO_ROOT } from '../stack/env.js';
import { claudeHome, freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses, runCli, runHook, startCli, type RunningProcess } from '../stack/processes.js';
import { activePrompt, openTerminal, type Terminal } from '../stack/terminal.js';

const WAIT_MS = 10_000;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

async function daemonForTest(options: Parameters<typeof startDaemon>[0] = {}): Promise<Daemon> {
  const daemon = await startDaemon(options);
  cleanups.push(() => daemon.stop());
  return daemon;
}

/** A question asked through the real command hook; `hook.result` is what Claude Code would read. */
async function ask(daemon: Daemon, payload: HookPayload): Promise<{ hook: RunningProcess; id: string }> {
  const hook = runHook(payload, daemon.env);
  const question = await daemon.waitForAsk(payload.tool_use_id);
  return { hook, id: question.id };
}

async function answersOf(hook: RunningProcess): Promise<{ answers: Record<string, string>; annotations?: Record<string, { notes?: string }> }> {
  const result = await hook.result;
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string>; annotations?: Record<string, { notes?: string }> } } }).hookSpecificOutput.updatedInput;
}

// ---------------------------------------------------------------------------------------------
// The CLI in a real terminal (tests/stack/terminal.ts), with the daemon's home and config.

async function openFlowTerminal(args: string[], daemon: Daemon): Promise<Terminal> {
  const terminal = await openTerminal(args, { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
  cleanups.push(() => terminal.close());
  return terminal;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The deny the command hook printed for a declined question. */
async function denyOf(hook: RunningProcess): Promise<{ permissionDecision: string; permissionDecisionReason: string }> {
  const result = await hook.result;
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
}


// ---------------------------------------------------------------------------------------------

describe('askbridge answer on a terminal', () => {
  it('--confirm: shows the project, the session and the question, picks with the arrows, asks before a decline, and sends nothing before the review', async () => {
    const daemon = await daemonForTest();
    const payload = freshPayload('01-single-select', 'flow-single');
    const { hook, id } = await ask(daemon, payload);
    const terminal = await openFlowTerminal(['answer', '--confirm'], daemon);

    const first = await terminal.waitForPrompt('Choose one');
    expect(first).toContain(`Project  ${payload.cwd}`);
    expect(first).toContain(`Session  ${payload.session_id}`);
    expect(first).toMatch(/Asked {4}just now · [45]:\d\d left, then the terminal will ask/);
    expect(first).toContain('Question 1 of 1 · Database');
    expect(first).toContain('Which database should the new orders service use?');
    expect(activePrompt(first)).toMatch(/● 1\. PostgreSQL \(Recommended\)\n│ {7}Matches the existing stack/);
    expect(activePrompt(first)).toMatch(/○ 2\. SQLite\n│ {7}Zero setup, but no concurrent writers\.\n│ {2}○ 3\. Other/);
    expect(activePrompt(first)).toContain('d declines · t lets the terminal answer · c shows all the context · Esc leaves, nothing is sent');

    // With --confirm, a decline asks first; "No" goes back to the question.
    await terminal.type('d');
    await terminal.waitForPrompt('Decline? Claude is told you chose not to answer');
    await terminal.type('2');
    await terminal.waitForPrompt('Choose one');
    await terminal.press('Down');
    await terminal.waitForPrompt('● 2. SQLite');
    await terminal.press('Enter');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.press('Enter');
    const review = await terminal.waitForPrompt('Enter on Submit sends every answer at once');
    expect(activePrompt(review)).toContain('1. Database: SQLite');
    expect((await daemon.ask(id)).status).toBe('pending');

    await terminal.press('Enter');
    await terminal.waitFor('Sent: Claude Code has your answer.');
    expect(await terminal.exitCode()).toBe(0);
    expect((await answersOf(hook)).answers).toEqual({ 'Which database should the new orders service use?': 'SQLite' });

    // Named again by a prefix of its id, once answered: too late, exit 3, as its whole id gives.
    const late = await openFlowTerminal(['answer', id.slice(0, 8)], daemon);
    await late.waitFor('too late: the question was already answered: answered by a person (cli)');
    expect(await late.exitCode()).toBe(3);
  });

  it('a single single-select question: its number answers and sends at once, as in Claude Code\'s dialog; Other sends its text', async () => {
    const daemon = await daemonForTest();
    const byNumber = await ask(daemon, freshPayload('01-single-select', 'flow-one-key'));
    const terminal = await openFlowTerminal(['answer'], daemon);
    const prompt = await terminal.waitForPrompt('Choose one');
    expect(activePrompt(prompt)).toContain('A number (1-3), or ↑/↓ and Enter, answers and sends at once · n adds a note first\n└  d declines');
    await terminal.type('2');
    await terminal.waitFor('Sent: Claude Code has your answer.');
    expect(await terminal.exitCode()).toBe(0);
    expect(await terminal.screen()).not.toContain('A note for Claude');
    expect((await answersOf(byNumber.hook)).answers).toEqual({ 'Which database should the new orders service use?': 'SQLite' });

    const byOther = await ask(daemon, freshPayload('01-single-select', 'flow-one-key-other'));
    const other = await openFlowTerminal(['answer'], daemon);
    await other.waitForPrompt('Choose one');
    await other.type('3');
    await other.waitForPrompt('Your answer (Other): Enter sends it');
    await other.type('MySQL');
    await other.waitForPrompt('MySQL');
    await other.press('Enter');
    await other.waitFor('Sent: Claude Code has your answer.');
    expect(await other.exitCode()).toBe(0);
    expect((await answersOf(byOther.hook)).answers).toEqual({ 'Which database should the new orders service use?': 'MySQL' });
  });

  it('n before the number: a note, then the review, as with --confirm', async () => {
    const daemon = await daemonForTest();
    const { hook, id } = await ask(daemon, freshPayload('01-single-select', 'flow-one-key-note'));
    const terminal = await openFlowTerminal(['answer'], daemon);
    expect(activePrompt(await terminal.waitForPrompt('Choose one'))).toContain('answers and sends at once · n adds a note first');
    await terminal.type('n');
    const full = await terminal.waitForPrompt('↑/↓ and Enter, or a number (1-3)');
    expect(activePrompt(full)).not.toContain('n adds a note first');
    await terminal.type('1');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.type('behind PgBouncer');
    await terminal.waitForPrompt('behind PgBouncer');
    await terminal.press('Enter');
    await terminal.waitForPrompt('Enter on Submit');
    expect((await daemon.ask(id)).status).toBe('pending');
    await terminal.press('Enter');
    expect(await terminal.exitCode()).toBe(0);
    const decision = await answersOf(hook);
    expect(decision.answers).toEqual({ 'Which database should the new orders service use?': 'PostgreSQL (Recommended)' });
    expect(decision.annotations).toEqual({ 'Which database should the new orders service use?': { notes: 'behind PgBouncer' } });
  });

  it('d declines, as the page\'s Decline: Claude is told, and the flow says so (exit 0)', async () => {
    const daemon = await daemonForTest();
    const { hook, id } = await ask(daemon, freshPayload('02-multi-select', 'flow-decline'));
    const terminal = await openFlowTerminal(['answer'], daemon);
    await terminal.waitForPrompt('Choose one or more');
    await terminal.type('1');
    await terminal.waitForPrompt('◼ 1. Unit tests');
    await terminal.type('d');
    await terminal.waitFor('Declined: Claude is told you chose not to answer, and goes on without your answer.');
    expect(await terminal.exitCode()).toBe(0);
    const decision = await denyOf(hook);
    expect(decision.permissionDecision).toBe('deny');
    expect(decision.permissionDecisionReason).toMatch(/^The user declined to answer these questions\./);
    expect(await daemon.ask(id)).toMatchObject({ status: 'declined', source: { kind: 'person', client: 'cli' } });
  });

  it('t lets the terminal answer, as the page\'s button: Claude Code\'s own dialog asks (exit 0)', async () => {
    const daemon = await daemonForTest();
    const { hook, id } = await ask(daemon, freshPayload('01-single-select', 'flow-hand-back'));
    const terminal = await openFlowTerminal(['answer'], daemon);
    await terminal.waitForPrompt('Choose one');
    await terminal.type('t');
    await terminal.waitFor("Handed back: Claude Code's own dialog asks in its terminal.");
    expect(await terminal.exitCode()).toBe(0);
    // The command hook prints nothing: Claude Code shows its own dialog.
    expect(await hook.result).toMatchObject({ code: 0, stdout: '' });
    expect(await daemon.ask(id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'person', client: 'cli' } });
  });

  it("a script's question: who asks, no hand-back offered (no terminal behind it), and d declines it (the script exits 4)", async () => {
    const daemon = await daemonForTest();
    const asking = startCli(['ask', '--name', 'deploy-bot', '--header', 'Deploy', '--question', 'Deploy the release now?', '--option', 'Ship it: deploy at once', '--option', 'Wait: after the freeze'], daemon.env);
    await waitUntil(async () => ((await daemon.pending()).length === 1 ? true : undefined), WAIT_MS, 'the script to ask');
    const terminal = await openFlowTerminal(['answer'], daemon);
    const screen = await terminal.waitForPrompt('Choose one');
    expect(screen).toContain('The script deploy-bot asks');
    expect(screen).toContain('Asker    the script deploy-bot');
    expect(activePrompt(screen)).toContain('d declines · c shows all the context');
    expect(activePrompt(screen)).not.toContain('t lets the terminal answer');
    await terminal.type('d');
    await terminal.waitFor('Declined: the script is told you chose not to answer.');
    expect(await terminal.exitCode()).toBe(0);
    expect((await asking.result).code).toBe(4);
  });

  it('multi-select: a number or Space ticks; nothing ticked and an empty Other are explained and keep the choices; Other and a note reach Claude', async () => {
    const daemon = await daemonForTest();
    const { hook } = await ask(daemon, freshPayload('02-multi-select', 'flow-multi'));
    const terminal = await openFlowTerminal(['answer'], daemon);

    await terminal.waitForPrompt('Choose one or more');
    await terminal.press('Enter');
    await terminal.waitForPrompt(/^▲ {2}Choose one or more[\s\S]*Choose at least one: Space or its number ticks an option/);
    await terminal.type('1');
    await terminal.waitForPrompt('◼ 1. Unit tests');
    await terminal.press('Down', 'Down', 'Space');
    await terminal.waitForPrompt('◼ 3. Type check');
    await terminal.type('5');
    await terminal.waitForPrompt('◼ 5. Other');
    await terminal.press('Enter');
    await terminal.waitForPrompt('Your answer (Other)');
    await terminal.press('Enter');
    await terminal.waitFor('Other needs text: choose an option, or Other again and type your answer.');
    const kept = await terminal.waitForPrompt('Choose one or more');
    expect(activePrompt(kept)).toMatch(/◼ 1\. Unit tests[\s\S]*◻ 2\. Lint[\s\S]*◼ 3\. Type check[\s\S]*◻ 4\. E2E[\s\S]*◻ 5\. Other/);

    await terminal.type('5');
    await terminal.waitForPrompt('◼ 5. Other');
    await terminal.press('Enter');
    await terminal.waitForPrompt('Your answer (Other)');
    await terminal.type('Semgrep');
    await terminal.waitForPrompt('Semgrep');
    await terminal.press('Enter');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.type('nightly is enough');
    await terminal.waitForPrompt('nightly is enough');
    await terminal.press('Enter');
    const review = await terminal.waitForPrompt('Enter on Submit');
    expect(activePrompt(review)).toMatch(/1\. CI checks: Unit tests, Type check, Other: Semgrep\n│ {7}note: nightly is enough/);
    await terminal.press('Enter');
    expect(await terminal.exitCode()).toBe(0);

    const decision = await answersOf(hook);
    expect(decision.answers).toEqual({ 'Which checks should run in CI?': 'Unit tests, Type check, Semgrep' });
    expect(decision.annotations).toEqual({ 'Which checks should run in CI?': { notes: 'nightly is enough' } });
  });

  it('four questions in turn ("Question 2 of 4"), then the review changes one before the one submit', async () => {
    const daemon = await daemonForTest();
    const { hook, id } = await ask(daemon, freshPayload('03-four-questions', 'flow-review'));
    const terminal = await openFlowTerminal(['answer', id.slice(0, 8)], daemon);

    await terminal.waitForPrompt('Choose one');
    await terminal.type('1');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.press('Enter');
    expect(await terminal.waitForPrompt('Choose one')).toContain('Question 2 of 4 · Sessions');
    await terminal.type('1');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.press('Enter');
    expect(await terminal.waitForPrompt('Choose one or more')).toContain('Question 3 of 4 · Roles');
    await terminal.type('1');
    await terminal.type('4');
    await terminal.waitForPrompt('◼ 4. Support');
    await terminal.press('Enter');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.press('Enter');
    expect(await terminal.waitForPrompt('Choose one')).toContain('Question 4 of 4 · Audit log');
    await terminal.type('2');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.press('Enter');
    const review = activePrompt(await terminal.waitForPrompt('Enter on Submit'));
    expect(review).toContain('1. Auth: OAuth via GitHub');
    expect(review).toContain('2. Sessions: Redis');
    expect(review).toContain('3. Roles: Admin, Support');
    expect(review).toContain('4. Audit log: Later');
    expect(review).toContain('● 5. Submit');

    // Change question 2: its earlier choice is where the cursor starts.
    await terminal.type('2');
    expect(activePrompt(await terminal.waitForPrompt('Choose one'))).toContain('● 1. Redis');
    await terminal.type('2');
    await terminal.waitForPrompt('A note for Claude');
    await terminal.type('stateless is simpler');
    await terminal.waitForPrompt('stateless is simpler');
    await terminal.press('Enter');
    expect(activePrompt(await terminal.waitForPrompt('Enter on Submit'))).toMatch(/2\. Sessions: Signed cookies\n│ {7}note: stateless is simpler/);
    expect((await daemon.ask(id)).status).toBe('pending');
    await terminal.press('Enter');
    expect(await terminal.exitCode()).toBe(0);

    const decision = await answersOf(hook);
    expect(decision.answers).toEqual({
      'Which auth method should the admin panel use?': 'OAuth via GitHub',
      'Where should sessions be stored?': 'Signed cookies',
      'Which roles do you need on day one?': 'Admin, Support',
      'Should I add audit logging now?': 'Later',
    });
    expect(decision.annotations).toEqual({ 'Where should sessions be stored?': { notes: 'stateless is simpler' } });
  });

  it('Ctrl+C in the middle, or Esc, leaves the question waiting, untouched (exit 130)', async () => {
    const daemon = await daemonForTest();
    const payload = freshPayload('03-four-questions', 'flow-leave');
    const { hook, id } = await ask(daemon, payload);

    const interrupted = await openFlowTerminal(['answer'], daemon);
    await interrupted.waitForPrompt('Choose one');
    await interrupted.type('1');
    await interrupted.waitForPrompt('A note for Claude');
    await interrupted.press('Enter');
    await interrupted.waitForPrompt('Choose one');
    await interrupted.press('C-c');
    await interrupted.waitFor('Left: nothing was sent, the question still waits');
    expect(await interrupted.exitCode()).toBe(130);

    const escaped = await openFlowTerminal(['answer', '--session', payload.session_id.slice(0, 8)], daemon);
    await escaped.waitForPrompt('Choose one');
    await escaped.press('Escape');
    await escaped.waitFor('Left: nothing was sent, the question still waits');
    expect(await escaped.exitCode()).toBe(130);

    const question = await daemon.ask(id);
    expect(question.status).toBe('pending');
    expect(question.answers).toBeUndefined();
    expect(hook.child.exitCode).toBeNull();
  });

  it('answered elsewhere in the middle of the flow: it says so at once, stops, and sends nothing (exit 3)', async () => {
    const daemon = await daemonForTest();
    const { hook, id } = await ask(daemon, freshPayload('03-four-questions', 'flow-elsewhere'));
    const terminal = await openFlowTerminal(['answer'], daemon);
    await terminal.waitForPrompt('Choose one');
    await terminal.type('3');
    await terminal.waitForPrompt('A note for Claude');

    const elsewhere = await runCli(['answer', id, '--pick', '1=1', '--pick', '2=1', '--pick', '3=1', '--pick', '4=1'], daemon.env);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    await terminal.waitFor('No longer waiting: answered by a person (cli). Nothing was sent.');
    expect(await terminal.exitCode()).toBe(3);
    expect((await answersOf(hook)).answers['Which auth method should the admin panel use?']).toBe('OAuth via GitHub');
    expect((await daemon.history()).filter((line) => line.id === id)).toHaveLength(1);
  });

  it('withdrawn by Claude Code in the middle of the flow: it says so at once (exit 3)', async () => {
    const daemon = await daemonForTest();
    const key = daemon.hookKey();
    const payload = freshPayload('01-single-select', 'flow-withdrawn');
    const hook = postAsHttpHook({ port: daemon.port, key, payload });
    hook.response.catch(() => undefined);
    await daemon.waitForAsk(payload.tool_use_id);
    const terminal = await openFlowTerminal(['answer'], daemon);
    await terminal.waitForPrompt('Choose one');
    hook.abort();
    await terminal.waitFor('No longer waiting: withdrawn, Claude Code stopped waiting (Esc or its own timeout). Nothing was sent.');
    expect(await terminal.exitCode()).toBe(3);
  });

  it('a key pressed with less than a minute left asks the daemon for more time', async () => {
    const daemon = await daemonForTest({ config: { waitSeconds: 50 } });
    const { hook, id } = await ask(daemon, freshPayload('01-single-select', 'flow-more-time'));
    const asked = await daemon.ask(id);
    const terminal = await openFlowTerminal(['answer'], daemon);
    await terminal.waitForPrompt('Choose one');
    expect((await daemon.ask(id)).expiresAt).toBe(asked.expiresAt);
    await terminal.press('Down');
    const moved = await waitUntil(async () => {
      const now = await daemon.ask(id);
      return now.expiresAt > asked.expiresAt ? now : undefined;
    }, WAIT_MS, 'the deadline to move');
    expect(moved.expiresAt - asked.expiresAt).toBeGreaterThan(60_000);
    expect(moved.status).toBe('pending');
    await terminal.press('Escape');
    expect(await terminal.exitCode()).toBe(130);
    expect(hook.child.exitCode).toBeNull();
  });

  it('keys typed before the question is on screen choose nothing', async () => {
    const daemon = await daemonForTest();
    const { id } = await ask(daemon, freshPayload('01-single-select', 'flow-type-ahead'));
    const terminal = await openFlowTerminal(['answer'], daemon);
    // Sent at once: they wait in the terminal until the command reads them.
    await terminal.press('Enter', 'Enter', 'Enter', 'Enter');
    const screen = await terminal.waitForPrompt('Choose one');
    expect(screen).not.toContain('A note for Claude');
    expect((await daemon.ask(id)).status).toBe('pending');
    await terminal.press('Escape');
    expect(await terminal.exitCode()).toBe(130);
  });

  it('shows escape sequences in model text as markers and never acts on them', async () => {
    const daemon = await daemonForTest();
    const payload = freshPayload('01-single-select', 'flow-hostile');
    const question = payload.tool_input.questions[0]!;
    question.header = 'Data\u001b[2Jbase';
    question.options[0]!.label = 'Postgres \u001b]0;pwned\u0007';
    question.options[1]!.description = 'Zero setup\u001b[31m red \u202Eevil';
    await ask(daemon, payload);
    const terminal = await openFlowTerminal(['answer'], daemon);

    const screen = await terminal.waitForPrompt('Choose one');
    expect(screen).toContain('Question 1 of 1 · Data[U+001B][2Jbase');
    expect(activePrompt(screen)).toContain('1. Postgres [U+001B]]0;pwned[U+0007]');
    expect(activePrompt(screen)).toContain('Zero setup[U+001B][31m red [U+202E]evil');
    // Not cleared (the lines above are still there) and no new window title.
    expect(screen).toContain(`Project  ${payload.cwd}`);
    expect(await terminal.title()).not.toContain('pwned');
    await terminal.press('Escape');
    expect(await terminal.exitCode()).toBe(130);
  });

  it('without a terminal and without the answer, says what to pass (exit 2)', async () => {
    const daemon = await daemonForTest();
    const answer = await runCli(['answer'], daemon.env);
    expect(answer).toMatchObject({ code: 2, stdout: '' });
    expect(answer.stderr).toMatch(new RegExp(`^askbridge answer: no terminal to ask on: give the answer instead, as in ${escapeRegExp(askbridgeCommand(daemon.env))} answer ID --pick 1=LABEL\\|NUMBER .*--json FILE.*\\n$`));
    const watch = await runCli(['watch'], daemon.env);
    expect(watch).toMatchObject({ code: 2, stdout: '' });
    expect(watch.stderr).toMatch(/askbridge(\.mjs)? listen --json/);
  });
});

describe('what the page shows of a question, in the terminal', () => {
  /** What Claude said before asking: long, with a terminal escape in it. */
  const SAID = `I looked at the orders service. ${'The schema has grown, and the reporting queries now scan the whole table. '.repeat(6)}\u001b[2J ends here.`;
  /** The session's first prompt: a window title sequence, and a line break before a line that looks like the flow's own. */
  const TITLE = 'Speed up the reporting page without new infrastructure, and keep the nightly export as it is\u001b]0;pwned\u0007\n└  Sent: Claude Code has your answer.';

  /** A transcript as Claude Code writes it: the first prompt, what Claude said, then (unless told not to) the tool call. */
  function transcriptFor(projects: string, payload: HookPayload, withToolCall = true): string {
    const common = { sessionId: payload.session_id, cwd: payload.cwd, gitBranch: 'feature/reporting', version: '2.1.330' };
    const lines = [
      { ...common, type: 'user', message: { role: 'user', content: TITLE } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: SAID }] } },
      ...(withToolCall ? [{ ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: payload.tool_use_id, name: 'AskUserQuestion', input: payload.tool_input }] } }] : []),
    ];
    const path = join(projects, `${payload.session_id}.jsonl`);
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return path;
  }

  async function daemonWithTranscripts(): Promise<{ daemon: Daemon; projects: string }> {
    const claude = await claudeHome();
    cleanups.push(claude.remove);
    return { daemon: await daemonForTest({ env: { HOME: claude.home } }), projects: claude.projects };
  }

  it('the branch, the title and what Claude said, shortened and saying so; c shows all; every text marked; the machine of a remote asker', async () => {
    const { daemon, projects } = await daemonWithTranscripts();
    const payload = { ...freshPayload('01-single-select', 'flow-context'), session_id: 'c0ffee00-0000-4000-8000-000000000001' };
    const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: { ...payload, transcript_path: transcriptFor(projects, payload) } });
    const view = await daemon.waitForAsk(payload.tool_use_id);
    await waitUntil(async () => ((await daemon.ask(view.id)).context?.said === undefined ? undefined : true), WAIT_MS, 'the session context');
    const terminal = await openFlowTerminal(['answer'], daemon);

    const screen = await terminal.waitForPrompt('Choose one');
    expect(screen).toContain('Branch   feature/reporting');
    expect(screen).toMatch(/Title {4}Speed up the reporting page without new infrastructure, and keep the nightly ex… \(shortened: c shows all\)\n/);
    expect(screen).toContain('Claude said (shortened: c shows all)\n│  I looked at the orders service.');
    expect(screen).not.toContain('ends here.');
    expect(screen).toMatch(/Asked {4}just now · [45]:\d\d left, then the terminal will ask/);
    expect(activePrompt(screen)).toContain('c shows all the context');

    await terminal.type('c');
    const full = await terminal.waitFor(/ends here\.\n[\s\S]*◆ {2}Choose one/, 'the context in full, then the question again');
    const context = full.slice(full.lastIndexOf('Project  '));
    expect(context).toContain('[U+001B][2J ends here.');
    expect(context).toContain('[U+001B]]0;pwned[U+0007]');
    // The title's line break starts no line of its own: what follows it stays under the side bar.
    expect(context).toContain('\n│  └  Sent: Claude Code has your answer.');
    expect(full).not.toMatch(/^└ {2}Sent/m);
    expect(await terminal.title()).not.toContain('pwned');
    await terminal.type('2');
    await terminal.waitFor(/^└ {2}Sent: Claude Code has your answer\./m);
    expect(await terminal.exitCode()).toBe(0);
    expect((await hook.response).statusCode).toBe(200);

    const remote = freshPayload('01-single-select', 'flow-machine');
    const remoteHook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: remote, headers: { [MACHINE_HEADER]: 'build-box' } });
    await daemon.waitForAsk(remote.tool_use_id);
    const other = await openFlowTerminal(['answer'], daemon);
    expect(await other.waitForPrompt('Choose one')).toContain('Machine  build-box');
    await other.type('1');
    expect(await other.exitCode()).toBe(0);
    expect((await remoteHook.response).statusCode).toBe(200);
  });

  it('watch: context that arrives once the question is on screen takes the place of its list, above it: the question and its options are printed once', async () => {
    const { daemon, projects } = await daemonWithTranscripts();
    const terminal = await openFlowTerminal(['watch'], daemon);
    await terminal.waitFor('Waiting for questions.');
    // No line for this tool call in the transcript: the daemon reads it again later, then takes what was said last.
    const payload = { ...freshPayload('01-single-select', 'watch-context'), session_id: 'c0ffee00-0000-4000-8000-000000000002' };
    const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: { ...payload, transcript_path: transcriptFor(projects, payload, false) } });
    await daemon.waitForAsk(payload.tool_use_id);
    await terminal.waitFor(/Claude said \(shortened: c shows all\)\n[\s\S]*Question 1 of 1 · Database\n[\s\S]*◆ {2}Choose one/, 'the context above the question');
    const screen = await terminal.waitForPrompt('Choose one');
    const times = (text: string) => screen.split(text).length - 1;
    expect(times('Claude Code asks'), screen).toBe(1);
    expect(times('Project  '), screen).toBe(1);
    expect(times('Branch   feature/reporting'), screen).toBe(1);
    expect(times('Claude said'), screen).toBe(1);
    expect(times('Question 1 of 1 · Database'), screen).toBe(1);
    expect(times('Which database should the new orders service use?'), screen).toBe(1);
    expect(times('Choose one'), screen).toBe(1);
    expect(times('1. PostgreSQL (Recommended)'), screen).toBe(1);
    // In the order the page shows them: who asks, the context, the question, its options.
    const order = ['Claude Code asks', 'Project  ', 'Claude said', 'Question 1 of 1 · Database', '◆  Choose one', '1. PostgreSQL (Recommended)'].map((text) => screen.indexOf(text));
    expect(order, screen).toEqual([...order].sort((a, b) => a - b));
    await terminal.type('2');
    expect((await hook.response).statusCode).toBe(200);
    await terminal.waitFor(/Waiting for questions\. Ctrl\+C leaves; questions keep waiting\.\s*$/);
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });
});

describe('askbridge watch', () => {
  it('asks each question in turn, oldest first, with the count of the others; one answered elsewhere leaves the queue; Ctrl+C leaves the rest waiting', async () => {
    const daemon = await daemonForTest();
    const first = await ask(daemon, freshPayload('01-single-select', 'watch-first'));
    const second = await ask(daemon, freshPayload('11-newer-fields', 'watch-second'));
    const third = await ask(daemon, freshPayload('02-multi-select', 'watch-third'));
    const terminal = await openFlowTerminal(['watch'], daemon);

    const opening = await terminal.waitForPrompt('Choose one');
    expect(opening).toContain('Claude Code asks (2 more waiting after this one)');
    expect(opening).toContain('Question 1 of 1 · Database');
    // The third is answered elsewhere while the first is on screen: it leaves the queue.
    expect((await runCli(['answer', third.id, '--pick', '1=Lint'], daemon.env)).code).toBe(0);
    // One key answers each: a single single-select question.
    await terminal.type('2');

    const next = await terminal.waitFor(/Question 1 of 1 · Memory\n[\s\S]*◆ {2}Choose one/, 'the second question');
    expect(next.slice(next.lastIndexOf('Claude Code asks'))).toMatch(/^Claude Code asks\n/);
    await terminal.waitForPrompt('Choose one');
    await terminal.type('3');
    await terminal.waitFor(/Waiting for questions\. Ctrl\+C leaves; questions keep waiting\.\s*$/);
    expect((await answersOf(first.hook)).answers).toEqual({ 'Which database should the new orders service use?': 'SQLite' });
    expect((await answersOf(second.hook)).answers).toEqual({ 'Should I remember this preference for future sessions?': 'No' });

    // A question that arrives while it waits is asked at once; Ctrl+C leaves it waiting.
    const fourth = await ask(daemon, freshPayload('01-single-select', 'watch-fourth'));
    await terminal.waitForPrompt('Choose one');
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
    expect((await daemon.ask(fourth.id)).status).toBe('pending');
  });

  it('Esc skips a question: it keeps waiting and the next is asked; it comes back only once nothing else waits, when Enter asks for it', async () => {
    const daemon = await daemonForTest();
    const first = await ask(daemon, freshPayload('01-single-select', 'watch-skip-first'));
    const second = await ask(daemon, freshPayload('11-newer-fields', 'watch-skip-second'));
    const terminal = await openFlowTerminal(['watch'], daemon);

    const opening = await terminal.waitForPrompt('Choose one');
    expect(opening).toContain('Question 1 of 1 · Database');
    expect(activePrompt(opening)).toContain('Esc skips it (it keeps waiting) · Ctrl+C leaves');
    await terminal.press('Escape');
    await terminal.waitFor('Skipped: nothing was sent, it still waits. Once nothing else waits, Enter asks it again.');
    const next = await terminal.waitFor(/Question 1 of 1 · Memory\n[\s\S]*◆ {2}Choose one/, 'the next question');
    expect(next.slice(next.lastIndexOf('Claude Code asks'))).toMatch(/^Claude Code asks \(1 skipped\)\n/);
    expect((await daemon.ask(first.id)).status).toBe('pending');
    await terminal.waitForPrompt('Choose one');
    await terminal.type('1');
    expect((await answersOf(second.hook)).answers).toEqual({ 'Should I remember this preference for future sessions?': 'Yes, project memory' });

    // Nothing else waits: watch waits for questions, and does not ask the skipped one again by itself.
    const WAITING_WITH_SKIPPED = 'Waiting for questions. 1 skipped question still waits: Enter asks it again. Ctrl+C leaves; questions keep waiting.';
    await terminal.waitFor(new RegExp(`${escapeRegExp(WAITING_WITH_SKIPPED)}\\s*$`), 'the wait, the skipped question named');
    // A new question comes first; d declines it.
    const third = await ask(daemon, freshPayload('02-multi-select', 'watch-skip-third'));
    await terminal.waitFor(/Question 1 of 1 · CI checks\n[\s\S]*◆ {2}Choose one or more/, 'the new question');
    await terminal.waitForPrompt('Choose one or more');
    await terminal.type('d');
    await terminal.waitFor('Declined: Claude is told you chose not to answer');
    expect((await denyOf(third.hook)).permissionDecision).toBe('deny');
    await terminal.waitFor(new RegExp(`${escapeRegExp(WAITING_WITH_SKIPPED)}\\s*$`), 'the wait again');

    await terminal.press('Enter');
    await terminal.waitFor(new RegExp(`${escapeRegExp(WAITING_WITH_SKIPPED)}\\n[\\s\\S]*Question 1 of 1 · Database\\n[\\s\\S]*◆ {2}Choose one`), 'the skipped question, asked again');
    await terminal.waitForPrompt('Choose one');
    await terminal.type('2');
    expect((await answersOf(first.hook)).answers).toEqual({ 'Which database should the new orders service use?': 'SQLite' });
    await terminal.waitFor(/Waiting for questions\. Ctrl\+C leaves; questions keep waiting\.\s*$/);
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('leaves with exit 0 on Ctrl+C while it waits', async () => {
    const daemon = await daemonForTest();
    const terminal = await openFlowTerminal(['watch'], daemon);
    await terminal.waitFor('Waiting for questions.');
    await terminal.press('C-c');
    await terminal.waitFor('Left: the questions still waiting keep waiting.');
    expect(await terminal.exitCode()).toBe(0);
  });
});

describe('askbridge listen', () => {
  type Line = { event: string; id: string; status: string; by?: string; detail?: string; ask: { toolUseId: string } };

  function listen(daemon: Daemon, json: boolean) {
    const child = spawn(process.execPath, [CLI_BIN, 'listen', ...(json ? ['--json'] : [])], { cwd: REPO_ROOT, env: daemon.env, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const lines = () => stdout.split('\n').filter((line) => line !== '');
    return {
      child,
      exited,
      output: () => ({ stdout, stderr }),
      waitForLine: (match: (line: string) => boolean, what: string) => waitUntil(() => lines().find(match), WAIT_MS, what),
    };
  }

  it('--json: one object a line for a question waiting, added, answered (by whom) and withdrawn; SIGINT ends it with exit 0', async () => {
    const daemon = await daemonForTest();
    const before = await ask(daemon, freshPayload('01-single-select', 'listen-before'));
    const listener = listen(daemon, true);
    const parsed = (line: string) => JSON.parse(line) as Line;
    const waiting = parsed(await listener.waitForLine((line) => parsed(line).event === 'waiting', 'the question already waiting'));
    expect(waiting).toMatchObject({ id: before.id, status: 'pending' });

    const payload = freshPayload('02-multi-select', 'listen-added');
    const added = await ask(daemon, payload);
    expect(parsed(await listener.waitForLine((line) => parsed(line).event === 'added', 'added'))).toMatchObject({ id: added.id, status: 'pending', ask: { toolUseId: payload.tool_use_id } });
    expect((await runCli(['answer', added.id, '--pick', '1=Lint'], daemon.env)).code).toBe(0);
    expect(parsed(await listener.waitForLine((line) => parsed(line).event === 'resolved' && parsed(line).id === added.id, 'resolved'))).toMatchObject({ status: 'answered', by: 'person', detail: 'cli' });

    const key = daemon.hookKey();
    const httpPayload = freshPayload('11-newer-fields', 'listen-withdrawn');
    const hook = postAsHttpHook({ port: daemon.port, key, payload: httpPayload });
    hook.response.catch(() => undefined);
    const withdrawn = await daemon.waitForAsk(httpPayload.tool_use_id);
    hook.abort();
    expect(parsed(await listener.waitForLine((line) => parsed(line).event === 'resolved' && parsed(line).id === withdrawn.id, 'withdrawn'))).toMatchObject({ status: 'cancelled', by: 'cancelled' });

    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(0);
    expect(listener.output().stderr).toBe('');
  });

  it('readable lines; exit 6 with one line saying why when the daemon stops', async () => {
    const daemon = await daemonForTest();
    const listener = listen(daemon, false);
    await daemon.waitForLog((entry) => entry.msg === 'watcher connected', WAIT_MS, 'listen to connect');
    const asked = await ask(daemon, freshPayload('03-four-questions', 'listen-readable'));
    await listener.waitForLine((line) => line.includes(`added     ${asked.id}  4 questions (Auth, Sessions, Roles, Audit log)`), 'the readable added line');
    daemon.expectExit();
    expect((await runCli(['stop'], daemon.env)).code).toBe(0);
    await listener.waitForLine((line) => line.includes(`resolved  ${asked.id}  handed to Claude Code's terminal (the daemon stopped)`), 'the readable resolved line');
    expect(await listener.exited).toBe(6);
    expect(listener.output().stderr).toBe('askbridge listen: the daemon stopped\n');
  });
});
