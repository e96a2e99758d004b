// `askbridge answer --all` in a real terminal (tmux), with permissions asked for as Claude Code's
// PermissionRequest http hook asks: every waiting permission shown whole (escape sequences marked),
// plans left out; the ones ticked allowed, others ticked denied with one message, and each hook
// gets exactly its decision; one settled elsewhere while the lists are on screen is said and left
// out, never decided twice. In `watch`, a key on a permission opens the same review while two or
// more wait, and watch goes on with the ones left waiting. Real processes throughout: the daemon,
// the CLI, the hook's requests.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { denialMessage } from '../../src/daemon/decisions/claude-code-permission.js';
import { INVISIBLE_CHARACTER } from '../../src/visible-text.js';
import { decisionOf, type HeldPermission, permissionPayload, requestPermission } from '../stack/approvals.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { activePrompt, openTerminal, type Terminal } from '../stack/terminal.js';

const MESSAGE = 'Use the test database instead';
/** A command that would clear the screen and retitle the terminal, were it printed raw. */
const HOSTILE_COMMAND = 'psql -c "SELECT count(*) FROM orders" \u001b[2J\u001b]0;pwned-title\u0007';
const HOSTILE_MARKED = 'psql -c "SELECT count(*) FROM orders" [U+001B][2J[U+001B]]0;pwned-title[U+0007]';

/** What Claude Code's http hook receives for a decision. */
const hookGets = (decision: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

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

async function held(payload: Record<string, unknown>): Promise<HeldPermission> {
  const one = await requestPermission(daemon, payload);
  cleanups.push(async () => one.abort());
  return one;
}

/** Three permissions from three sessions, oldest first: the tests, an edit, a hostile command. */
async function threePermissions(tag: string): Promise<[HeldPermission, HeldPermission, HeldPermission]> {
  const session = () => `s-all-${tag}-${++sessions}`;
  return [
    await held(permissionPayload(session(), 'Bash', { command: 'npm test', description: 'Run the tests' })),
    await held(permissionPayload(session(), 'Edit', { file_path: '/home/alice/projects/shop/src/cart.ts', old_string: 'let sum = 0;', new_string: 'let sum = 1;' })),
    await held(permissionPayload(session(), 'Bash', { command: HOSTILE_COMMAND, description: 'Count the orders' })),
  ];
}

async function openCli(args: string[]): Promise<Terminal> {
  const terminal = await openTerminal(args, { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
  cleanups.push(() => terminal.close());
  return terminal;
}

const answerAll = () => openCli(['answer', '--all']);

describe('askbridge answer --all', () => {
  it('shows each permission whole, allows the two ticked and denies the third with one message; a plan stays out', async () => {
    const [tests, edit, drop] = await threePermissions('ticks');
    const plan = await held(permissionPayload(`s-all-plan-${++sessions}`, 'ExitPlanMode', { plan: '# Add quantities' }, { permissionMode: 'plan' }));
    const terminal = await answerAll();

    const screen = await terminal.waitForPrompt('Allow which?');
    expect(screen).toContain('Review all: 3 permissions wait');
    expect(screen).toContain(`1 of 3 · Project /home/alice/projects/shop · Session ${tests.payload.session_id}`);
    expect(screen).toContain('◇  Permission · Bash\n│  Claude says: Run the tests\n│  Command:\n│    npm test');
    expect(screen).toContain('│  Change:\n│    - let sum = 0;\n│    + let sum = 1;');
    expect(screen).toContain(`│    ${HOSTILE_MARKED}`);
    expect(screen).not.toContain('Add quantities');
    expect([...screen.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    expect(await terminal.title()).not.toContain('pwned');
    const allowList = activePrompt(screen);
    expect(allowList).toContain('Bash: npm test');
    expect(allowList).toContain('Edit: /home/alice/projects/shop/src/cart.ts');

    // Number keys tick, Enter confirms.
    await terminal.type('1');
    await terminal.type('2');
    await terminal.press('Enter');
    const denyList = activePrompt(await terminal.waitForPrompt('Deny which?'));
    expect(denyList).not.toContain('npm test');
    expect(denyList).toContain('SELECT count(*) FROM orders');
    await terminal.press('Space');
    await terminal.press('Enter');
    await terminal.waitForPrompt('A message for the one denied (optional): Enter denies');
    await terminal.type(MESSAGE);
    await terminal.waitForPrompt(MESSAGE);
    await terminal.press('Enter');
    await terminal.waitFor('2 allowed, 1 denied.');
    expect(await terminal.exitCode()).toBe(0);

    expect(await decisionOf(tests)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(edit)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(drop)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, MESSAGE) }));
    expect(await daemon.ask(plan.view.id)).toMatchObject({ status: 'pending' });
  });

  it('one settled elsewhere while the lists are on screen is said and left out: it is never decided twice', async () => {
    const [tests, edit, drop] = await threePermissions('elsewhere');
    const terminal = await answerAll();
    await terminal.waitForPrompt('Allow which?');
    // Every one ticked, then the edit is denied from another terminal before Enter.
    for (const key of ['1', '2', '3']) await terminal.type(key);
    const elsewhere = await runCli(['answer', edit.view.id, '--deny'], daemon.env);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    await terminal.press('Enter');
    await terminal.waitFor('2 allowed, 0 denied, 1 already settled elsewhere.');
    expect(await terminal.screen()).toContain('Already settled, left out: Edit: /home/alice/projects/shop/src/cart.ts (denied by a person (cli))');
    expect(await terminal.exitCode()).toBe(0);

    expect(await decisionOf(tests)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(drop)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(edit)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Edit' }, undefined) }));
    expect((await daemon.ask(edit.view.id)).source).toMatchObject({ kind: 'person', client: 'cli' });
  });

  it('Esc leaves with nothing sent (exit 130); with no terminal, or with anything else given, it says what to do (exit 2)', async () => {
    const [tests] = await threePermissions('leave');
    const terminal = await answerAll();
    await terminal.waitForPrompt('Allow which?');
    await terminal.type('1');
    await terminal.press('Escape');
    await terminal.waitFor('Left: nothing was sent, every permission still waits.');
    expect(await terminal.exitCode()).toBe(130);
    expect(await daemon.ask(tests.view.id)).toMatchObject({ status: 'pending' });

    const piped = await runCli(['answer', '--all'], daemon.env);
    expect(piped.code).toBe(2);
    const command = askbridgeCommand(daemon.env);
    expect(piped.stderr).toBe(`askbridge answer: no terminal to ask on: --all lists every waiting permission to tick; for a script, decide each with ${command} answer ID --allow [--confirm-risky] | ID --allow-suggestion N | ID --deny [--message TEXT] [--interrupt]\n`);
    const mixed = await runCli(['answer', '--all', '--allow'], daemon.env);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toBe(`askbridge answer: --all goes alone: ${command} answer --all, on a terminal\n`);
  });
});

describe('askbridge watch: Review all', () => {
  it('r on a permission opens the review of every waiting one: one allowed, one denied with a message, each hook gets its own; watch then asks the one left waiting', async () => {
    const [tests, edit, drop] = await threePermissions('watch');
    const terminal = await openCli(['watch']);

    // The oldest is asked first; its list offers the review while two or more wait.
    const first = activePrompt(await terminal.waitForPrompt('Allow this call?'));
    expect(first).toContain('r reviews all 3 waiting permissions');
    await terminal.type('r');

    // The same review as answer --all: each shown whole, then the lists.
    const screen = await terminal.waitForPrompt('Allow which?');
    expect(screen).toContain('Review all: 3 permissions wait');
    expect(screen).toContain(`2 of 3 · Project /home/alice/projects/shop · Session ${edit.payload.session_id}`);
    expect(screen).toContain(`│    ${HOSTILE_MARKED}`);
    expect(await terminal.title()).not.toContain('pwned');
    await terminal.type('1');
    await terminal.press('Enter');
    const denyList = activePrompt(await terminal.waitForPrompt('Deny which?'));
    expect(denyList).toContain('Edit: /home/alice/projects/shop/src/cart.ts');
    await terminal.type('1');
    await terminal.press('Enter');
    await terminal.waitForPrompt('A message for the one denied (optional): Enter denies');
    await terminal.type(MESSAGE);
    await terminal.waitForPrompt(MESSAGE);
    await terminal.press('Enter');
    await terminal.waitFor('1 allowed, 1 denied; 1 still waiting.');

    expect(await decisionOf(tests)).toEqual(hookGets({ behavior: 'allow' }));
    expect(await decisionOf(edit)).toEqual(hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Edit' }, MESSAGE) }));

    // Watch goes on with the one left waiting, and only it: one permission has no review to offer.
    const next = await terminal.waitFor(/1 allowed, 1 denied; 1 still waiting\.[\s\S]*Claude Code asks for a permission\n[\s\S]*◆ {2}Allow this call\?/, 'the one left waiting, asked next');
    expect(next.slice(next.lastIndexOf('1 allowed, 1 denied'))).toContain('SELECT count(*) FROM orders');
    const last = activePrompt(await terminal.waitForPrompt('Allow this call?'));
    expect(last).not.toContain('reviews all');
    await terminal.type('1');
    expect(await decisionOf(drop)).toEqual(hookGets({ behavior: 'allow' }));
    await terminal.waitFor(/Allowed once: Claude Code runs it\.[\s\S]*Waiting for questions\. Ctrl\+C leaves; questions keep waiting\.\s*$/, 'nothing waiting');
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });
});
