// Permissions and plans in the terminal, asked for as Claude Code's PermissionRequest http hook asks:
// `askbridge pending` lists them with Claude Code's suggestions numbered; `answer ID --allow |
// --allow-suggestion N | --deny [--message] [--interrupt]` decides one for a script, and the hook's
// response is exactly the decision chosen; a second decision is too late (exit 3) and says how it
// ended; an answer's flags on a permission are refused. In a real terminal (tmux), the interactive
// flow shows a hostile command with every escape sequence and bidi override marked and allows it
// with one key; a plan goes back with what to change; `watch` denies with a message. `history` and
// `listen` say how each ended, a permission given in Claude Code's own dialog (its transcript says
// so) included. Real processes throughout: the daemon, the CLI, the hook's request.
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { denialMessage } from '../../src/daemon/decisions/claude-code-permission.js';
import { HELD } from '../../src/cli/prompts.js';
import type { AskView } from '../../src/protocol.js';
import { INVISIBLE_CHARACTER } from '../../src/visible-text.js';
import { bashRuleSuggestion, decisionOf, permissionPayload, requestPermission, type HeldPermission } from '../stack/approvals.js';
import { sleep, waitUntil } from '../stack/clock.js';
import { parseCsv } from '../stack/csv.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook, startCli } from '../stack/processes.js';
import { activePrompt, openTerminal, type Terminal } from '../stack/terminal.js';

const WAIT_MS = 10_000;
/** What a prompt says while a new ask's keys wait, as a pattern. */
const HELD_TEXT = HELD.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PROJECT = '/home/alice/projects/shop';
const SUGGESTION_WORDS = 'Always allow `Bash(npm test *)` in this project (your local settings)';
/** How a permission is decided, `command` being how askbridge runs here (askbridgeCommand). */
const decisionUsage = (command: string) => `${command} answer ID --allow [--confirm-risky] | ID --allow-suggestion N | ID --deny [--message TEXT] [--interrupt]`;

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

let sessions = 0;
/** A session of its own for each approval: the tests share one daemon. */
const sessionFor = (tag: string) => `s-${tag}-${++sessions}`;

/** `npm test` (or `command`) waiting for a person, with Claude Code's "always allow" suggestion for it. */
async function bashPermission(tag: string, command = 'npm test'): Promise<HeldPermission> {
  const held = await requestPermission(daemon, permissionPayload(sessionFor(tag), 'Bash', { command, description: 'Run the tests' }, { suggestions: [bashRuleSuggestion('npm test *')] }));
  // One a test leaves waiting (it failed) is withdrawn as Esc in Claude Code does.
  cleanups.push(async () => held.abort());
  return held;
}

async function planApproval(tag: string, plan: string): Promise<HeldPermission> {
  const held = await requestPermission(daemon, permissionPayload(sessionFor(tag), 'ExitPlanMode', { plan }, { permissionMode: 'plan' }));
  cleanups.push(async () => held.abort());
  return held;
}

/** What Claude Code's http hook receives for a decision. */
const hookGets = (decision: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

async function statusOf(id: string): Promise<AskView['status']> {
  return (await daemon.ask(id)).status;
}

/**
 * `command` waiting for a person, asked by a session whose transcript is where Claude Code writes it
 * (under the daemon's HOME). `answerInTerminal` writes there what the terminal's "Yes" leaves: the
 * call, then its result.
 */
async function permissionWithTranscript(tag: string, command: string): Promise<{ held: HeldPermission; answerInTerminal(): Promise<unknown> }> {
  const sessionId = sessionFor(tag);
  const folder = join(daemon.home, '.claude', 'projects', '-home-alice-projects-shop');
  await mkdir(folder, { recursive: true });
  const transcript = join(folder, `${sessionId}.jsonl`);
  await writeFile(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'Migrate the database' } })}\n`);
  const toolInput = { command, description: 'Run the tests' };
  const held = await requestPermission(daemon, { ...permissionPayload(sessionId, 'Bash', toolInput, { suggestions: [bashRuleSuggestion('npm test *')] }), transcript_path: transcript });
  cleanups.push(async () => held.abort());
  let calls = 0;
  const answerInTerminal = () =>
    waitUntil(
      async () => {
        // The daemon reads on from where the transcript ended when it opened it: a call answered before
        // then is not the one it waits on, so each try is the call made again, and its result.
        const id = `toolu_${sessionId}_${++calls}`;
        const call = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: toolInput }] } };
        const result = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'migrated' }] } };
        await appendFile(transcript, `${JSON.stringify(call)}\n${JSON.stringify(result)}\n`);
        return (await statusOf(held.view.id)) === 'cancelled' ? true : undefined;
      },
      WAIT_MS,
      'the approval to be answered in the terminal',
      300,
    );
  return { held, answerInTerminal };
}

describe('askbridge pending', () => {
  it('lists a permission as such, with its session and Claude Code\'s suggestions numbered, and a plan by its first line', async () => {
    const bash = await bashPermission('pending');
    const plan = await planApproval('pending-plan', '## Refactor the parser\n\n1. Split the lexer out');
    const listed = await runCli(['pending'], daemon.env);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.split('\n');

    const at = lines.findIndex((line) => line.startsWith(bash.view.id));
    expect(lines[at]).toMatch(new RegExp(`^${bash.view.id}  ${PROJECT}  \\(\\d+s left, then it stays with the terminal's own dialog\\)$`));
    expect(lines.slice(at + 1, at + 3)).toEqual([`  Permission · Bash: npm test  (session ${bash.view.sessionId})`, `       - suggestion 1: ${SUGGESTION_WORDS}`]);

    const planAt = lines.findIndex((line) => line.startsWith(plan.view.id));
    expect(planAt).toBeGreaterThanOrEqual(0);
    const planChoices = plan.view.approval!.suggestions.map((suggestion, index) => `       - suggestion ${index + 1}: ${suggestion.label}`);
    expect(lines.slice(planAt + 1, planAt + 2 + planChoices.length)).toEqual([`  Plan: Refactor the parser  (session ${plan.view.sessionId})`, ...planChoices]);

    // --json: the approval exactly as the daemon gives it.
    const json = await runCli(['pending', '--json'], daemon.env);
    const asks = parseJson<AskView[]>(json.stdout, 'pending --json');
    expect(asks.find((ask) => ask.id === bash.view.id)?.approval).toEqual({ toolName: 'Bash', toolInput: { command: 'npm test', description: 'Run the tests' }, suggestions: [{ label: SUGGESTION_WORDS }], permissionMode: 'default', grant: { rule: 'Bash(npm test:*)', words: expect.stringContaining('run commands that start with “npm test”') } });
  });
});

describe('askbridge answer ID, for scripts', () => {
  it('--allow (by a prefix of the id) allows it once; a second decision is too late, exit 3, and says how it ended', async () => {
    const held = await bashPermission('allow');
    const allowed = await runCli(['answer', held.view.id.slice(0, 8), '--allow'], daemon.env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe('allowed once · Bash: npm test\n');
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'allow' }));

    const again = await runCli(['answer', held.view.id, '--deny'], daemon.env);
    expect(again.code).toBe(3);
    expect(again.stderr).toBe('askbridge answer: too late: the permission was already allowed: allowed by a person (cli), with {"behavior":"allow"}\n');
  });

  it('--allow-suggestion N sends back exactly the suggestion Claude Code made; a number it did not make is a usage error', async () => {
    const held = await bashPermission('suggestion');
    const wrong = await runCli(['answer', held.view.id, '--allow-suggestion', '2'], daemon.env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(`askbridge answer: --allow-suggestion 2: give the number of one of Claude Code's suggestions (1 ${SUGGESTION_WORDS})\n`);
    expect(await statusOf(held.view.id)).toBe('pending');

    const allowed = await runCli(['answer', held.view.id, '--allow-suggestion', '1'], daemon.env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe(`allowed (${SUGGESTION_WORDS}) · Bash: npm test\n`);
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'allow', updatedPermissions: [bashRuleSuggestion('npm test *')] }));
  });

  it('--deny --interrupt: Claude stops; a message with it is refused, since Claude Code would drop it', async () => {
    const held = await bashPermission('deny');
    const withMessage = await runCli(['answer', held.view.id, '--deny', '--message', 'Use the test database instead', '--interrupt'], daemon.env);
    expect(withMessage.code).toBe(2);
    expect(withMessage.stderr).toBe('askbridge answer: Claude Code does not pass a message on when it stops the turn: --deny --message TEXT, or --deny --interrupt without one\n');
    const refused = await daemon.api('POST', `/api/asks/${held.view.id}/decide`, { behavior: 'deny', message: 'Use the test database instead', interrupt: true });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'message_with_stop' } } });

    const denied = await runCli(['answer', held.view.id, '--deny', '--interrupt'], daemon.env);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toBe('denied and stopped · Bash: npm test\n');
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, undefined), interrupt: true }));

    const late = await runCli(['answer', held.view.id, '--allow'], daemon.env);
    expect(late.code).toBe(3);
    expect(late.stderr).toBe('askbridge answer: too late: the permission was already denied: denied by a person (cli), with {"behavior":"deny","interrupt":true}\n');
  });

  it('a plan: --deny needs what to change; with it, the plan goes back; --allow approves another with its input', async () => {
    const held = await planApproval('plan-deny', '# Add quantities\n\n1. Add `quantity` to Item');
    const bare = await runCli(['answer', held.view.id, '--deny'], daemon.env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe('askbridge answer: a plan is sent back with what Claude should change: add --message TEXT (or --interrupt to stop Claude)\n');
    expect(await statusOf(held.view.id)).toBe('pending');
    const sent = await runCli(['answer', held.view.id, '--deny', '--message', 'Keep the old API'], daemon.env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('sent back with changes: Keep the old API · Plan: Add quantities\n');
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'ExitPlanMode' }, 'Keep the old API') }));

    const approved = await planApproval('plan-allow', '# Ship it');
    const ok = await runCli(['answer', approved.view.id, '--allow'], daemon.env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('approved · Plan: Ship it\n');
    expect(await decisionOf(approved)).toEqual(hookGets({ behavior: 'allow', updatedInput: { plan: '# Ship it' } }));
  });

  it('a permission given in Claude Code\'s own dialog first: a decision is too late, "answered in the terminal"', async () => {
    const { held, answerInTerminal } = await permissionWithTranscript('in-terminal', 'npm run migrate');
    await answerInTerminal();
    const late = await runCli(['answer', held.view.id, '--allow'], daemon.env);
    expect(late.code).toBe(3);
    expect(late.stderr).toBe('askbridge answer: too late: the permission was already cancelled: answered in the terminal\n');
  });

  it('refuses an answer\'s flags on a permission, and a decision on a question, with nothing sent (exit 2)', async () => {
    const held = await bashPermission('pick');
    const picked = await runCli(['answer', held.view.id, '--pick', '1=Allow once'], daemon.env);
    expect(picked.code).toBe(2);
    expect(picked.stderr).toBe(`askbridge answer: ${held.view.id} is a permission Claude Code asks you to allow, not a question: --pick, --other, --note and --json answer questions; decide it with ${decisionUsage(askbridgeCommand(daemon.env))}\n`);
    const both = await runCli(['answer', held.view.id, '--allow', '--pick', '1=1'], daemon.env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one or the other');
    const loose = await runCli(['answer', held.view.id, '--message', 'hi'], daemon.env);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toBe(`askbridge answer: --message and --interrupt go with --deny: ${decisionUsage(askbridgeCommand(daemon.env))}\n`);
    const twice = await runCli(['answer', held.view.id, '--allow', '--deny'], daemon.env);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toBe(`askbridge answer: one decision at a time: ${decisionUsage(askbridgeCommand(daemon.env))}\n`);
    expect(await statusOf(held.view.id)).toBe('pending');

    const payload = freshPayload('01-single-select', 'approval-cli-question');
    const hook = runHook(payload, daemon.env);
    cleanups.push(async () => hook.child.kill());
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const allowed = await runCli(['answer', question.id, '--allow'], daemon.env);
    expect(allowed.code).toBe(2);
    expect(allowed.stderr).toMatch(new RegExp(`^askbridge answer: ${question.id} is a question, not a permission: answer it with ${escapeRegExp(askbridgeCommand(daemon.env))} answer ID --pick`));
    expect(await statusOf(question.id)).toBe('pending');
  });
});

// ---------------------------------------------------------------------------------------------
// The interactive flow in a real terminal (tests/stack/terminal.ts).

async function openFlowTerminal(args: string[]): Promise<Terminal> {
  const terminal = await openTerminal(args, { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
  cleanups.push(() => terminal.close());
  return terminal;
}


/** A command that would clear the screen, retitle the terminal and reverse what follows, were it printed raw. */
const HOSTILE_COMMAND = 'npm run migrate \u001b[2J\u001b]0;pwned-title\u0007 \u202eevil';
const HOSTILE_MARKED = 'npm run migrate [U+001B][2J[U+001B]]0;pwned-title[U+0007] [U+202E]evil';

describe('askbridge answer on a terminal', () => {
  it('shows a hostile command whole with every escape sequence and override marked, and allows it once with one key', async () => {
    const payload = permissionPayload(sessionFor('tmux'), 'Bash', { command: HOSTILE_COMMAND, description: 'Migrate\u001b]0;pwned-title\u0007 the database' }, { suggestions: [bashRuleSuggestion('npm run migrate *')] });
    const held = await requestPermission(daemon, payload);
    cleanups.push(async () => held.abort());
    const terminal = await openFlowTerminal(['answer', held.view.id.slice(0, 8)]);

    const screen = await terminal.waitForPrompt('Allow this call?');
    expect(screen).toContain('Claude Code asks for a permission');
    expect(screen).toContain(`Session  ${payload.session_id}`);
    expect(screen).toContain(`◇  Permission · Bash\n│  Claude says: Migrate[U+001B]]0;pwned-title[U+0007] the database\n│  Command:\n│    ${HOSTILE_MARKED}`);
    const prompt = activePrompt(screen);
    expect(prompt).toContain('1. Allow once');
    expect(prompt).toContain('2. Always allow `Bash(npm run migrate *)` in this project (your local settings)');
    expect(prompt).toContain('3. Deny');
    expect(prompt).toContain('4. Deny and stop');
    expect(prompt).toContain('A number (1-4), or ↑/↓ and Enter, decides at once');
    expect(prompt).toContain('t lets the terminal answer · c shows all the context · Esc leaves, nothing is sent');
    expect(prompt).not.toContain('d declines');
    // Nothing raw reached the terminal: no override in its text, and its title is not the model's.
    expect([...screen.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    expect(await terminal.title()).not.toContain('pwned');

    await terminal.type('1');
    await terminal.waitFor('Allowed once: Claude Code runs it.');
    expect(await terminal.exitCode()).toBe(0);
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'allow' }));
  });

  it('a plan: its text, then "Tell Claude what to change" asks for it (nothing typed goes back) and sends the plan back with it', async () => {
    const held = await planApproval('tmux-plan', '# Add quantities\n\n1. Add `quantity` to **Item**\n2. Update `total()`');
    const terminal = await openFlowTerminal(['answer', held.view.id]);
    const screen = await terminal.waitForPrompt('Approve the plan?');
    expect(screen).toContain('Claude Code asks you to approve its plan');
    expect(screen).toContain('│  The plan:\n│    # Add quantities\n│\n│    1. Add `quantity` to **Item**\n│    2. Update `total()`');
    // Approve, each of Claude Code's suggestions (the daemon offers auto mode when it sends none), then the way back to planning.
    const suggestions = held.view.approval!.suggestions.map((suggestion) => suggestion.label);
    const change = String(suggestions.length + 2);
    const prompt = activePrompt(screen);
    expect(prompt).toContain('1. Approve\n');
    for (const [index, label] of suggestions.entries()) expect(prompt).toContain(`${index + 2}. ${label}`);
    expect(prompt).toContain(`${change}. Tell Claude what to change`);
    expect(prompt).toContain(`${suggestions.length + 3}. Reject and stop`);

    await terminal.type(change);
    await terminal.waitForPrompt('What should Claude change?');
    await terminal.press('Enter');
    await terminal.waitFor('The plan goes back with what to change');
    await terminal.waitForPrompt('Approve the plan?');
    expect(await statusOf(held.view.id)).toBe('pending');
    await terminal.type(change);
    await terminal.waitForPrompt('What should Claude change?');
    await terminal.type('Keep the old API');
    await terminal.waitForPrompt('Keep the old API');
    await terminal.press('Enter');
    await terminal.waitFor('Sent back: Claude keeps planning with what you said.');
    expect(await terminal.exitCode()).toBe(0);
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'ExitPlanMode' }, 'Keep the old API') }));
  });

  it('watch: a permission as it arrives; Deny asks for a message, sent with it', async () => {
    const terminal = await openFlowTerminal(['watch']);
    await terminal.waitFor('Waiting for questions.');
    const held = await bashPermission('watch');
    await terminal.waitForPrompt('Allow this call?');
    expect(activePrompt(await terminal.screen())).toContain('Esc skips it (it keeps waiting) · Ctrl+C leaves');
    await terminal.type('3');
    await terminal.waitForPrompt('A message for Claude (optional): Enter denies');
    await terminal.type('Use the test database');
    await terminal.waitForPrompt('Use the test database');
    await terminal.press('Enter');
    await terminal.waitFor('Denied: Claude is told why, with your message.');
    expect(await decisionOf(held)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, 'Use the test database') }));
    await terminal.waitFor(/Denied: Claude is told why, with your message\.[\s\S]*Waiting for questions\./);
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });
});

describe('a key meant for the ask before', () => {
  /** Presses `key` `times` times, `gapMs` apart: a person pressing twice, or a key held down (auto-repeat). */
  async function pressRepeatedly(terminal: Terminal, key: string, times: number, gapMs: number): Promise<void> {
    for (let count = 0; count < times; count += 1) {
      if (count > 0) await sleep(gapMs);
      await terminal.type(key);
    }
  }

  it('watch: "1" pressed twice answers the question on screen and never allows the permission shown after it; its prompt says keys wait, then takes them', async () => {
    const terminal = await openFlowTerminal(['watch']);
    await terminal.waitFor('Waiting for questions.');
    for (const gapMs of [60, 150, 300]) {
      // A question on screen, and a permission behind it.
      const payload = freshPayload('01-single-select', `double-press-${gapMs}`);
      const hook = runHook(payload, daemon.env);
      const question = await daemon.waitForAsk(payload.tool_use_id);
      await terminal.waitForPrompt('Choose one');
      const held = await bashPermission(`double-press-${gapMs}`, 'rm -rf ./important');

      await pressRepeatedly(terminal, '1', 2, gapMs);
      expect((await hook.result).code).toBe(0);
      expect((await daemon.ask(question.id)).status).toBe('answered');
      await terminal.waitForPrompt('Allow this call?');
      expect((await daemon.ask(held.view.id)).status, `a second "1" ${gapMs} ms after the first`).toBe('pending');
      // Esc skips it (it keeps waiting), and watch waits for the next.
      await terminal.press('Escape');
      await terminal.waitFor(/Skipped: nothing was sent, it still waits\.[\s\S]*Waiting for questions\. \d skipped [^\n]*\s*$/);
      expect((await daemon.ask(held.view.id)).status).toBe('pending');
    }
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('watch: "1" held down allows the permission on screen once, and none of the ones behind it', async () => {
    const waiting = [await bashPermission('held-key-1', 'rm -rf ./one'), await bashPermission('held-key-2', 'rm -rf ./two'), await bashPermission('held-key-3', 'rm -rf ./three')];
    const terminal = await openFlowTerminal(['watch']);
    await terminal.waitForPrompt('Allow this call?');
    // A terminal repeats a held key about every 33 ms, after its first repeat.
    await pressRepeatedly(terminal, '1', 30, 33);
    const second = await terminal.waitFor(new RegExp(`▲ {2}Allow this call\\?[\\s\\S]*${HELD_TEXT}`), 'the next permission, saying its keys wait');
    expect(second).toContain('rm -rf ./two');
    expect(await decisionOf(waiting[0]!)).toEqual(hookGets({ behavior: 'allow' }));
    expect((await daemon.ask(waiting[1]!.view.id)).status).toBe('pending');
    expect((await daemon.ask(waiting[2]!.view.id)).status).toBe('pending');
    // Once the key is let go, the prompt takes keys again: Deny is a deliberate press.
    await terminal.waitForPrompt('Allow this call?');
    expect((await daemon.ask(waiting[1]!.view.id)).status).toBe('pending');
    await terminal.type('3');
    await terminal.waitForPrompt('A message for Claude (optional): Enter denies');
    await terminal.press('Enter');
    expect(await decisionOf(waiting[1]!)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, undefined) }));
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
    expect((await daemon.ask(waiting[2]!.view.id)).status).toBe('pending');
  });
});

describe('askbridge history and listen', () => {
  it('history says how each permission ended: the decision, the call, who decided', async () => {
    const allowed = await bashPermission('history-allow');
    expect((await runCli(['answer', allowed.view.id, '--allow-suggestion', '1'], daemon.env)).code).toBe(0);
    const denied = await bashPermission('history-deny');
    expect((await runCli(['answer', denied.view.id, '--deny', '--message', 'Not on main'], daemon.env)).code).toBe(0);
    const { held: inTerminal, answerInTerminal } = await permissionWithTranscript('history-terminal', 'npm run migrate');
    await answerInTerminal();
    await waitUntil(async () => ((await daemon.history()).some((line) => line.id === inTerminal.view.id) ? true : undefined), WAIT_MS, 'the history line');

    const history = await runCli(['history', '--limit', '3'], daemon.env);
    expect(history.code, history.stderr).toBe(0);
    const lines = history.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    // Newest first.
    expect(lines[0]).toMatch(/ {2}terminal \(answered in the terminal\) {2}/);
    expect(lines[1]).toBe('  answered in the terminal · Bash: npm run migrate');
    expect(lines[3]).toBe('  denied: Not on main · Bash: npm test · by cli');
    expect(lines[4]).toMatch(new RegExp(`^\\S+Z  person \\(cli\\)  ${PROJECT}$`));
    expect(lines[5]).toBe(`  allowed (${SUGGESTION_WORDS}) · Bash: npm test · by cli`);

    // The CSV export (the page's Export CSV) has a cell for each part of each decision.
    const exported = await fetch(new URL('/api/history?format=csv&limit=3', daemon.url), { headers: { authorization: `Bearer ${daemon.token}` } });
    const [header, ...rows] = parseCsv(await exported.text());
    const byId = new Map(rows.map((row) => [row[header!.indexOf('session')], Object.fromEntries(header!.map((column, index) => [column, row[index]]))]));
    expect(byId.get(allowed.view.sessionId)).toMatchObject({ tool: 'Bash', target: 'npm test', decision: 'allow', suggestion: SUGGESTION_WORDS, message: '' });
    expect(byId.get(denied.view.sessionId)).toMatchObject({ tool: 'Bash', target: 'npm test', decision: 'deny', suggestion: '', message: 'Not on main' });
    expect(byId.get(inTerminal.view.sessionId)).toMatchObject({ tool: 'Bash', target: 'npm run migrate', decision: '' });
  });

  it('listen shows a permission readably, and --json carries it as the daemon sends it', async () => {
    const connected = () => daemon.logs().filter((entry) => entry.msg === 'watcher connected').length;
    const before = connected();
    const readable = startCli(['listen'], daemon.env);
    const json = startCli(['listen', '--json'], daemon.env);
    await waitUntil(() => (connected() >= before + 2 ? true : undefined), WAIT_MS, 'both listeners to connect');

    const held = await bashPermission('listen');
    expect((await runCli(['answer', held.view.id, '--allow'], daemon.env)).code).toBe(0);
    const resolved = (text: string) => text.includes(`resolved  ${held.view.id}`) || text.includes('"event":"resolved"');
    await waitUntil(() => (resolved(readable.output().stdout) && resolved(json.output().stdout) ? true : undefined), WAIT_MS, 'both listeners to show the decision');
    readable.child.kill('SIGINT');
    json.child.kill('SIGINT');
    const [shown, streamed] = await Promise.all([readable.result, json.result]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(streamed.code, streamed.stderr).toBe(0);

    const mine = shown.stdout.split('\n').filter((line) => line.includes(held.view.id));
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}added {5}${held.view.id} {2}Permission · Bash: npm test {2}session ${held.view.sessionId} {2}${PROJECT}$`));
    expect(mine[1]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}resolved {2}${held.view.id} {2}allowed by a person \\(cli\\) {2}allowed once · Bash: npm test$`));

    const events = streamed.stdout
      .trim()
      .split('\n')
      .map((line) => parseJson<{ event: string; id: string; status: string; by?: string; ask: AskView }>(line, 'a listen --json line'))
      .filter((event) => event.id === held.view.id);
    expect(events.map((event) => event.event)).toEqual(['added', 'resolved']);
    expect(events[0]!.ask.approval).toEqual(held.view.approval);
    expect(events[0]!.ask.questions).toEqual([]);
    expect(events[1]).toMatchObject({ status: 'allowed', by: 'person', ask: { decision: { behavior: 'allow' } } });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
