// The end of Claude's turn and waits in the terminal, from the CLI: `away on|off` and `status`;
// `reply SESSION TEXT...` (by the whole id or a prefix, from standard input, --done) gives the held
// Stop hook exactly the text, or lets Claude stop; a reply when nothing waits, to an ambiguous prefix,
// or after the person typed in the terminal is refused in words. `pending`, `listen` and `history`
// show turn ends and waits in the terminal; `watch` (in a real terminal, tmux) shows Claude's hostile
// last message with every escape sequence marked, sends a reply typed there, says when one ended
// elsewhere, and prints a wait in the terminal as a line. Real processes throughout: the daemon, the
// CLI, Claude Code's hook requests.
import { askbridgeCommand } from '../../src/command-name.js';
import { join } from 'node:path';
import { MACHINE_HEADER } from '../../src/http-hook.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replyReason } from '../../src/daemon/decisions/claude-code-stop.js';
import type { AskView } from '../../src/protocol.js';
import { INVISIBLE_CHARACTER } from '../../src/visible-text.js';
import { sleep, waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { CLI_BIN } from '../stack/env.js';
import { freshPayload } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook, startCli } from '../stack/processes.js';
import { openTerminal, type Terminal } from '../stack/terminal.js';
import { continuationOf, endTurn, notifyWaiting, setAway, stopPayload, submitPrompt, type HeldStop } from '../stack/turn-ends.js';

const WAIT_MS = 10_000;
const PROJECT = '/home/alice/projects/shop';
/** What `away` says when on, `command` being how askbridge runs here (askbridgeCommand). */
const awayOn = (command: string) => `away: on (the end of each of Claude's turns waits for your reply: the page, \`${command} watch\`, \`${command} reply\`)`;
const AWAY_OFF = "away: off (Claude's turns end in the terminal, as usual)";
const replyUsage = (command: string) => `${command} reply SESSION [--machine NAME] TEXT... | SESSION - (the text from standard input) | SESSION --done`;

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon({ wired: true });
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
/** A session of its own for each turn end: the tests share one daemon, and a session's next hook settles what it waited at. */
const sessionFor = (tag: string) => `${tag}-${++sessions}-5f0c7a1e`;

/** Claude finished a turn in a new session while the person is away: its Stop waits for a reply. */
async function turnEnd(tag: string, lastMessage: string, options: { cap?: string; sessionId?: string } = {}): Promise<HeldStop & { view: AskView }> {
  await setAway(daemon, true);
  const held = await endTurn(daemon, stopPayload(options.sessionId ?? sessionFor(tag), lastMessage), options.cap);
  // One a test leaves waiting (it failed) goes as Esc in Claude Code takes it.
  cleanups.push(async () => held.abort());
  return held;
}

async function statusOf(id: string): Promise<AskView['status']> {
  return (await daemon.ask(id)).status;
}

describe('askbridge away', () => {
  it('on, off and alone say the state in one line; status says it too; off lets go of a turn end waiting (Claude stops)', async () => {
    await setAway(daemon, false);
    expect(await runCli(['away'], daemon.env)).toMatchObject({ code: 0, stdout: `${AWAY_OFF}\n`, stderr: '' });
    expect(await runCli(['away', 'on'], daemon.env)).toMatchObject({ code: 0, stdout: `${awayOn(askbridgeCommand(daemon.env))}\n`, stderr: '' });
    expect((await daemon.api<{ away: boolean }>('GET', '/api/away')).body).toEqual({ away: true, turnEnds: { reach: 'everywhere', gaps: [] } });
    expect(await runCli(['away'], daemon.env)).toMatchObject({ code: 0, stdout: `${awayOn(askbridgeCommand(daemon.env))}\n` });

    const status = await runCli(['status'], daemon.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.split('\n')).toContain(awayOn(askbridgeCommand(daemon.env)));
    expect(parseJson<{ away: boolean }>((await runCli(['status', '--json'], daemon.env)).stdout, 'status --json').away).toBe(true);

    const held = await turnEnd('away-off', 'Done: the tests pass.');
    expect(await runCli(['away', 'off'], daemon.env)).toMatchObject({ code: 0, stdout: `${AWAY_OFF}\n` });
    expect(await continuationOf(held)).toBeNull();
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'handed-to-terminal', source: { kind: 'back' } });
    expect((await runCli(['status'], daemon.env)).stdout.split('\n')).toContain(AWAY_OFF);
  });

  it('anything but on or off is a usage error (exit 2) and changes nothing', async () => {
    await setAway(daemon, true);
    const maybe = await runCli(['away', 'maybe'], daemon.env);
    expect(maybe).toMatchObject({ code: 2, stdout: '' });
    const command = askbridgeCommand(daemon.env);
    expect(maybe.stderr).toBe(`askbridge away: "maybe" is neither on nor off: ${command} away on|off (or ${command} away: the state as it is)\n`);
    const both = await runCli(['away', 'on', 'off'], daemon.env);
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: `askbridge away: one of on or off: ${command} away on|off (or ${command} away: the state as it is)\n` });
    const flag = await runCli(['away', '--on'], daemon.env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^askbridge away: Unknown option '--on'/);
    expect((await daemon.api<{ away: boolean }>('GET', '/api/away')).body).toMatchObject({ away: true });
  });

  it('promises nothing the wiring cannot deliver: where the end of a turn reaches askbridge nowhere, away and status name the one command that adds it', async () => {
    const unwired = await startDaemon();
    try {
      const fix = `node ${CLI_BIN} install --user`;
      const line = `away: on (but the end of a turn does not reach askbridge here, so it never waits for your reply: run \`${fix}\`)`;
      expect(await runCli(['away', 'on'], unwired.env)).toMatchObject({ code: 0, stdout: `${line}\n` });
      expect((await runCli(['status'], unwired.env)).stdout.split('\n')).toContain(line);
      expect(parseJson<{ turnEnds: unknown }>((await runCli(['status', '--json'], unwired.env)).stdout, 'status --json').turnEnds).toEqual({ reach: 'nowhere', gaps: [], fix });
      // Once it is wired (the command it named), the same daemon says so.
      expect((await runCli(['install', '--user'], unwired.env)).code).toBe(0);
      await waitUntil(async () => (await runCli(['away'], unwired.env)).stdout === `${awayOn(askbridgeCommand(unwired.env))}\n` || undefined, 10_000, 'away to say it waits, once wired');
    } finally {
      await unwired.stop();
    }
  });
});

describe('askbridge reply', () => {
  it('by the whole session id: the Stop hook gets exactly the text, and Claude goes on', async () => {
    const held = await turnEnd('reply-whole', 'I refactored the cart. Shall I deploy?');
    const replied = await runCli(['reply', held.view.sessionId, 'Yes,', 'deploy  to staging', '--', '--first'], daemon.env);
    expect(replied).toMatchObject({ code: 0, stdout: 'replied: Claude goes on\n', stderr: '' });
    expect(await continuationOf(held)).toBe(replyReason('Yes, deploy  to staging --first'));
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'replied', reply: 'Yes, deploy  to staging --first', source: { kind: 'person', client: 'cli' } });
  });

  it('by a unique prefix; an ambiguous prefix is refused naming no session; --done lets Claude stop', async () => {
    const first = await turnEnd('prefix', 'First.', { sessionId: 'prefix-shared-aaaa-1' });
    const second = await turnEnd('prefix', 'Second.', { sessionId: 'prefix-shared-bbbb-2' });
    const ambiguous = await runCli(['reply', 'prefix-shared-', 'go on'], daemon.env);
    expect(ambiguous).toMatchObject({ code: 1, stdout: '', stderr: 'askbridge reply: more than one session has an id that starts with prefix-shared-: give more of it\n' });
    expect(await statusOf(first.view.id)).toBe('pending');
    expect(await statusOf(second.view.id)).toBe('pending');

    expect(await runCli(['reply', 'prefix-shared-a', 'Add', 'a', 'test'], daemon.env)).toMatchObject({ code: 0, stdout: 'replied: Claude goes on\n' });
    expect(await continuationOf(first)).toBe(replyReason('Add a test'));
    // One session is left under the prefix: it names that one.
    expect(await runCli(['reply', 'prefix-shared-', '--done'], daemon.env)).toMatchObject({ code: 0, stdout: 'done: Claude stops\n' });
    expect(await continuationOf(second)).toBeNull();
    expect(await daemon.ask(second.view.id)).toMatchObject({ status: 'done', source: { kind: 'person', client: 'cli' } });
  });

  it("never gives a reply meant for this machine's session to a turn end another machine opened under its id: --machine names that one", async () => {
    const sessionId = sessionFor('intercept');
    // Another machine's Stop under the session's id: a reply to the session here is not for it.
    const laptop = await endTurn(daemon, stopPayload(sessionId, 'Paste the deploy token here.'), undefined, { [MACHINE_HEADER]: 'laptop; rm -rf ~' });
    cleanups.push(async () => laptop.abort());
    const refused = await runCli(['reply', sessionId, 'the deploy token is hunter2'], daemon.env);
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `askbridge reply: no turn's end waits in session ${sessionId} on this machine; it waits\n  from machine "laptop; rm -rf ~": ${askbridgeCommand(daemon.env)} reply ${sessionId} --machine 'laptop; rm -rf ~' TEXT...\n`,
    });

    const here = await turnEnd('intercept', 'I refactored the cart.', { sessionId });
    const listed = (await runCli(['pending'], daemon.env)).stdout.split('\n');
    expect(listed).toContain(`       - reply: ${askbridgeCommand(daemon.env)} reply ${sessionId} TEXT... (or --done: Claude stops)`);
    expect(listed).toContain(`       - reply: ${askbridgeCommand(daemon.env)} reply ${sessionId} --machine 'laptop; rm -rf ~' TEXT... (or --done: Claude stops)`);
    expect(await runCli(['reply', sessionId, 'the deploy token is hunter2'], daemon.env)).toMatchObject({ code: 0, stdout: 'replied: Claude goes on\n' });
    expect(await continuationOf(here)).toBe(replyReason('the deploy token is hunter2'));
    expect(await daemon.ask(laptop.view.id)).toMatchObject({ status: 'pending' });
    expect((await daemon.ask(laptop.view.id)).reply).toBeUndefined();

    expect(await runCli(['reply', sessionId.slice(0, 14), '--machine', 'laptop; rm -rf ~', '--done'], daemon.env)).toMatchObject({ code: 0, stdout: 'done: Claude stops\n' });
    expect(await continuationOf(laptop)).toBeNull();
    const empty = await runCli(['reply', sessionId, '--machine', ' ', 'hello'], daemon.env);
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringMatching(/^askbridge reply: --machine names the machine a turn's end comes from, as `.*askbridge(\.mjs)? pending` shows it: /) });
  });

  it('refuses, naming both, when two turn ends wait under one session id on this machine: nothing tells which is the one the person saw', async () => {
    const sessionId = sessionFor('twice');
    const first = await turnEnd('twice', 'Shall I deploy?', { sessionId });
    const second = await turnEnd('twice', 'Paste the token.', { sessionId });
    const refused = await runCli(['reply', sessionId, 'the deploy token is hunter2'], daemon.env);
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: [
        `askbridge reply: 2 turn ends wait in session ${sessionId} on this machine, and nothing tells which one is the session you saw (a session id is no secret): reply in \`${askbridgeCommand(daemon.env)} watch\` or on the page, which show each whole`,
        `  ${first.view.id}  Claude finished: Shall I deploy?`,
        `  ${second.view.id}  Claude finished: Paste the token.`,
        '',
      ].join('\n'),
    });
    for (const held of [first, second]) expect(await statusOf(held.view.id)).toBe('pending');
  });

  it('TEXT "-" reads the reply from standard input, exactly, its last line break dropped', async () => {
    const held = await turnEnd('reply-stdin', 'Which branch?');
    const text = 'Use `main`,\n  then open a PR: "fix(cart)" \u00e9\u{1F680}';
    const replied = await startCli(['reply', held.view.sessionId.slice(0, 12), '-'], daemon.env, `${text}\n`).result;
    expect(replied).toMatchObject({ code: 0, stdout: 'replied: Claude goes on\n', stderr: '' });
    expect(await continuationOf(held)).toBe(replyReason(text));
  });

  it('the last reply Claude Code takes in a row says so', async () => {
    const held = await turnEnd('reply-last', 'Done.', { cap: '1' });
    expect(held.view.turnEnd).toMatchObject({ repliesInARow: 0, replyLimit: 1 });
    const replied = await runCli(['reply', held.view.sessionId, 'One more thing'], daemon.env);
    expect(replied).toMatchObject({ code: 0, stdout: 'replied: Claude goes on (this is the last reply Claude Code takes in a row: when Claude finishes the turn after it, it stops)\n' });
    expect(await continuationOf(held)).toBe(replyReason('One more thing'));
  });

  it('when nothing waits there: a clear error, exit 1; bad arguments are usage errors (exit 2), with nothing sent', async () => {
    await setAway(daemon, true);
    const none = await runCli(['reply', 'no-such-session', 'hello'], daemon.env);
    expect(none).toMatchObject({ code: 1, stdout: '', stderr: `askbridge reply: no session waits for a reply with the id no-such-session: \`${askbridgeCommand(daemon.env)} pending\` lists those waiting\n` });
    await setAway(daemon, false);
    const notAway = await runCli(['reply', 'no-such-session', 'hello'], daemon.env);
    expect(notAway.stderr).toBe(`askbridge reply: no session waits for a reply with the id no-such-session: you are not away, so a turn ends in the terminal without waiting (\`${askbridgeCommand(daemon.env)} away on\`)\n`);

    const held = await turnEnd('reply-usage', 'Done.');
    const usage = replyUsage(askbridgeCommand(daemon.env));
    const cases: Array<[string[], string]> = [
      [['reply'], `usage: ${usage}`],
      [['reply', held.view.sessionId], `say what Claude should do, or let it stop with --done: ${usage}`],
      [['reply', held.view.sessionId, '--done', 'and more'], `--done lets Claude stop, and takes no text: ${usage}`],
      [['reply', held.view.sessionId, '  ', ''], `the reply is empty: say what Claude should do, or let it stop with --done (${usage})`],
      [['reply', held.view.sessionId, 'x'.repeat(20_001)], 'the reply is 20001 characters long, and a reply holds at most 20000: shorten it'],
    ];
    for (const [args, message] of cases) expect(await runCli(args, daemon.env)).toMatchObject({ code: 2, stdout: '', stderr: `askbridge reply: ${message}\n` });
    const blankStdin = await startCli(['reply', held.view.sessionId, '-'], daemon.env, '\n').result;
    expect(blankStdin).toMatchObject({ code: 2, stderr: `askbridge reply: the reply is empty: say what Claude should do, or let it stop with --done (${usage})\n` });
    expect(await statusOf(held.view.id)).toBe('pending');
  });

  it('after the person typed in the terminal: the daemon\'s words, exit 3, and their prompt went to Claude', async () => {
    const held = await turnEnd('reply-typed', 'Done: shall I go on?');
    expect((await submitPrompt(daemon, held.view.sessionId)).statusCode).toBe(200);
    expect(await continuationOf(held)).toBeNull();
    await waitUntil(async () => ((await daemon.history()).some((line) => line.id === held.view.id) ? true : undefined), WAIT_MS, 'the history line');

    const late = await runCli(['reply', held.view.sessionId, 'Go on'], daemon.env);
    expect(late).toMatchObject({ code: 3, stdout: '', stderr: 'askbridge reply: not sent: the person typed in the terminal meanwhile: their prompt went to Claude\n' });
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });
    expect((await daemon.ask(held.view.id)).reply).toBeUndefined();
  });

  it('askbridge answer on a turn end or a wait in the terminal points elsewhere (exit 2)', async () => {
    const held = await turnEnd('answer-turn', 'Done.');
    const answered = await runCli(['answer', held.view.id.slice(0, 8), '--pick', '1=1'], daemon.env);
    expect(answered).toMatchObject({ code: 2, stdout: '' });
    expect(answered.stderr).toBe(`askbridge answer: ${held.view.id} is the end of Claude's turn, not a question: reply with \`${askbridgeCommand(daemon.env)} reply ${held.view.sessionId} TEXT...\` (Claude goes on with it), or \`${askbridgeCommand(daemon.env)} reply ${held.view.sessionId} --done\` (Claude stops)\n`);
    expect((await runCli(['answer', held.view.id, '--allow'], daemon.env)).code).toBe(2);
    expect(await statusOf(held.view.id)).toBe('pending');

    const waitSession = sessionFor('answer-wait');
    await notifyWaiting(daemon, waitSession, 'idle_prompt', 'Claude is waiting for your input');
    const wait = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === waitSession), WAIT_MS, 'the wait in the terminal');
    const refused = await runCli(['answer', wait.id, '--pick', '1=1'], daemon.env);
    expect(refused).toMatchObject({ code: 2, stderr: `askbridge answer: ${wait.id} is a session waiting for you in its terminal: nothing in askbridge answers it, go to that terminal\n` });
  });
});

/** Claude's last message, with what would clear the screen, retitle the terminal, write the clipboard (OSC 52) and reverse the text, were it printed raw. */
const HOSTILE_MESSAGE = 'All done.\n\u001b[2J\u001b]0;pwned-title\u0007Tests \u001b[31mpass\u001b[0m.\n\u001b]52;c;cm0gLXJmIH4=\u0007 \u202eevil\u2066 end';
const HOSTILE_MARKED = ['All done.', '[U+001B][2J[U+001B]]0;pwned-title[U+0007]Tests [U+001B][31mpass[U+001B][0m.', '[U+001B]]52;c;cm0gLXJmIH4=[U+0007] [U+202E]evil[U+2066] end'];

describe('askbridge pending, listen and history', () => {
  it('pending lists a turn end (what Claude said, in one line, marked) and a wait in the terminal (no countdown); --json as the daemon sends them', async () => {
    const held = await turnEnd('pending', HOSTILE_MESSAGE);
    const waitSession = sessionFor('pending-wait');
    await notifyWaiting(daemon, waitSession, 'permission_prompt', 'Claude needs your permission to use Bash');
    const wait = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === waitSession), WAIT_MS, 'the wait in the terminal');

    const listed = await runCli(['pending'], daemon.env);
    expect(listed.code, listed.stderr).toBe(0);
    expect([...listed.stdout.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    const lines = listed.stdout.split('\n');
    const at = lines.findIndex((line) => line.startsWith(held.view.id));
    expect(lines[at]).toMatch(new RegExp(`^${held.view.id}  ${PROJECT}  \\(\\d+s left, then Claude stops, and its session waits at its prompt\\)$`));
    expect(lines[at + 1]).toBe(`  Claude finished: ${HOSTILE_MARKED.join(' ')}  (session ${held.view.sessionId})`);
    expect(lines[at + 2]).toBe(`       - reply: ${askbridgeCommand(daemon.env)} reply ${held.view.sessionId} TEXT... (or --done: Claude stops)`);
    const waitAt = lines.findIndex((line) => line.startsWith(wait.id));
    expect(lines.slice(waitAt, waitAt + 2)).toEqual([`${wait.id}  ${PROJECT}`, `  waiting for you in the terminal (a permission dialog waits): Claude needs your permission to use Bash  (session ${waitSession})`]);

    const asks = parseJson<AskView[]>((await runCli(['pending', '--json'], daemon.env)).stdout, 'pending --json');
    expect(asks.find((ask) => ask.id === held.view.id)?.turnEnd).toEqual({ lastMessage: HOSTILE_MESSAGE, repliesInARow: 0, replyLimit: 8 });
    expect(asks.find((ask) => ask.id === wait.id)?.terminalWait).toEqual({ kind: 'permission_prompt', message: 'Claude needs your permission to use Bash' });
  });

  it('listen --json carries turnEnd, reply and terminalWait as the daemon sends them; readable lines say what happened', async () => {
    const connected = () => daemon.logs().filter((entry) => entry.msg === 'watcher connected').length;
    const before = connected();
    const readable = startCli(['listen'], daemon.env);
    const json = startCli(['listen', '--json'], daemon.env);
    await waitUntil(() => (connected() >= before + 2 ? true : undefined), WAIT_MS, 'both listeners to connect');

    const held = await turnEnd('listen', 'Done: the cart has quantities.');
    expect((await runCli(['reply', held.view.sessionId, 'Now', 'write', 'the', 'docs'], daemon.env)).code).toBe(0);
    const waitSession = sessionFor('listen-wait');
    await notifyWaiting(daemon, waitSession, 'idle_prompt', 'Claude is waiting for your input');
    const wait = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === waitSession), WAIT_MS, 'the wait in the terminal');
    // The session moves on: its wait ends.
    await submitPrompt(daemon, waitSession);
    const seen = (text: string) => text.includes(`resolved  ${wait.id}`) || text.includes(`"event":"resolved","id":"${wait.id}"`);
    await waitUntil(() => (seen(readable.output().stdout) && seen(json.output().stdout) ? true : undefined), WAIT_MS, 'both listeners to show the wait ended');
    readable.child.kill('SIGINT');
    json.child.kill('SIGINT');
    const [shown, streamed] = await Promise.all([readable.result, json.result]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(streamed.code, streamed.stderr).toBe(0);

    const mine = (id: string) => shown.stdout.split('\n').filter((line) => line.includes(id));
    expect(mine(held.view.id)).toEqual([
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}added {5}${held.view.id} {2}Claude finished: Done: the cart has quantities\\. {2}session ${held.view.sessionId} {2}${PROJECT}$`)),
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}resolved {2}${held.view.id} {2}replied by a person \\(cli\\): Claude went on {2}reply: "Now write the docs"$`)),
    ]);
    expect(mine(wait.id)).toEqual([
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}added {5}${wait.id} {2}waiting for you in the terminal \\(Claude waits for your next prompt\\): Claude is waiting for your input {2}session ${waitSession}`)),
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}resolved {2}${wait.id} {2}the session moved on$`)),
    ]);

    type Event = { event: string; id: string; status: string; by?: string; ask: AskView };
    const events = streamed.stdout.trim().split('\n').map((line) => parseJson<Event>(line, 'a listen --json line'));
    const turnEvents = events.filter((event) => event.id === held.view.id);
    expect(turnEvents.map((event) => event.event)).toEqual(['added', 'resolved']);
    expect(turnEvents[0]!.ask).toMatchObject({ status: 'pending', questions: [], turnEnd: { lastMessage: 'Done: the cart has quantities.', repliesInARow: 0, replyLimit: 8 } });
    expect(turnEvents[1]).toMatchObject({ status: 'replied', by: 'person', ask: { reply: 'Now write the docs', turnEnd: { lastMessage: 'Done: the cart has quantities.' } } });
    const waitEvents = events.filter((event) => event.id === wait.id);
    expect(waitEvents.map((event) => event.event)).toEqual(['added', 'resolved']);
    expect(waitEvents[0]!.ask).toMatchObject({ questions: [], terminalWait: { kind: 'idle_prompt', message: 'Claude is waiting for your input' } });
    expect(waitEvents[1]).toMatchObject({ status: 'cancelled', ask: { source: { kind: 'terminal' } } });
  });

  it('history shows a turn end as what Claude said, how it ended, and the reply in the person\'s words', async () => {
    const replied = await turnEnd('history-reply', 'Done:\n\u001b[2Jthe parser is split.');
    expect((await runCli(['reply', replied.view.sessionId, 'Say "thanks"\u202e'], daemon.env)).code).toBe(0);
    const done = await turnEnd('history-done', 'Nothing left to do.');
    expect((await runCli(['reply', done.view.sessionId, '--done'], daemon.env)).code).toBe(0);
    const typed = await turnEnd('history-typed', 'Shall I go on?');
    await submitPrompt(daemon, typed.view.sessionId);
    await waitUntil(async () => ((await daemon.history()).some((line) => line.id === typed.view.id) ? true : undefined), WAIT_MS, 'the history lines');

    const history = await runCli(['history', '--limit', '3'], daemon.env);
    expect(history.code, history.stderr).toBe(0);
    expect([...history.stdout.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    const lines = history.stdout.trimEnd().split('\n');
    // Newest first.
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\S+Z  terminal \\(the person typed in the terminal\\)  ${PROJECT}$`)),
      '  Claude finished: Shall I go on?',
      '  -> the person typed in the terminal: their prompt went to Claude',
      expect.stringMatching(new RegExp(`^\\S+Z  person \\(cli\\)  ${PROJECT}$`)),
      '  Claude finished: Nothing left to do.',
      '  -> done by a person (cli): Claude stopped',
      expect.stringMatching(new RegExp(`^\\S+Z  person \\(cli\\)  ${PROJECT}$`)),
      '  Claude finished: Done: [U+001B][2Jthe parser is split.',
      '  -> replied by a person (cli): Claude went on',
      '     reply: "Say \\"thanks\\"\\u202e"',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// watch, in a real terminal (tests/stack/terminal.ts).

async function openWatch(): Promise<Terminal> {
  const terminal = await openTerminal(['watch'], { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
  cleanups.push(() => terminal.close());
  return terminal;
}


describe('askbridge watch', () => {
  it('shows a hostile last message whole with every escape sequence marked, and a reply typed there reaches the Stop hook', async () => {
    await setAway(daemon, true);
    const terminal = await openWatch();
    await terminal.waitFor('Waiting for questions.');
    const held = await turnEnd('watch', HOSTILE_MESSAGE, { cap: '1' });

    const screen = await terminal.waitForPrompt('Your reply');
    expect(screen).toContain('Claude finished its turn');
    expect(screen).toContain(`Project  ${PROJECT}`);
    expect(screen).toContain(`Session  ${held.view.sessionId}`);
    expect(screen).toMatch(/Finished just now · (29|30):\d\d left, then Claude stops, and its session waits at its prompt/);
    expect(screen).toContain(`◇  Claude's last message\n${HOSTILE_MARKED.map((line) => `│  ${line}`).join('\n')}`);
    expect(screen).toContain('Note: this is the last reply Claude Code takes in a row: when Claude finishes the turn after it, it stops.');
    expect(screen).toContain('Type your reply and press Enter: Claude goes on with it. An empty line or /done: Claude stops.\n│  Esc skips it (it keeps waiting) · Ctrl+C leaves');
    // Nothing raw reached the terminal: no control or override character on it, and its title is not the model's.
    expect([...screen.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    expect(await terminal.title()).not.toContain('pwned');

    await terminal.type('Ship it to staging');
    await terminal.waitForPrompt('Ship it to staging');
    await terminal.press('Enter');
    await terminal.waitFor('Replied: Claude goes on with your reply. It was the last one in a row: when Claude finishes again, it stops.');
    expect(await continuationOf(held)).toBe(replyReason('Ship it to staging'));
    await terminal.waitFor(/Replied: Claude goes on[\s\S]*Waiting for questions\./);

    // An empty line: Claude stops.
    const done = await turnEnd('watch-done', 'Anything else?');
    await terminal.waitForPrompt('Your reply');
    await terminal.press('Enter');
    await terminal.waitFor('Done: Claude stops.');
    expect(await continuationOf(done)).toBeNull();
    expect(await daemon.ask(done.view.id)).toMatchObject({ status: 'done', source: { kind: 'person', client: 'cli' } });

    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('/done lets Claude stop; one settled elsewhere while its prompt is open ends the prompt and says how; a wait in the terminal is a line', async () => {
    await setAway(daemon, true);
    const terminal = await openWatch();
    await terminal.waitFor('Waiting for questions.');

    const typed = await turnEnd('watch-typed', 'Shall I go on?');
    await terminal.waitForPrompt('Your reply');
    await terminal.type('half a rep');
    await terminal.waitForPrompt('half a rep');
    await submitPrompt(daemon, typed.view.sessionId);
    await terminal.waitFor('No longer waiting: the person typed in the terminal: their prompt went to Claude. Nothing was sent.');
    expect(await continuationOf(typed)).toBeNull();
    expect((await daemon.ask(typed.view.id)).reply).toBeUndefined();

    const waitSession = sessionFor('watch-wait');
    await notifyWaiting(daemon, waitSession, 'elicitation_dialog', '\u001b]0;pwned-title\u0007Token?');
    await terminal.waitFor('●  waiting for you in the terminal (an MCP server asks for input): [U+001B]]0;pwned-title[U+0007]Token?');

    const done = await turnEnd('watch-slash-done', 'Finished the migration.');
    await terminal.waitForPrompt('Your reply');
    await terminal.type('/done');
    await terminal.waitForPrompt('/done');
    await terminal.press('Enter');
    await terminal.waitFor('Done: Claude stops.');
    expect(await continuationOf(done)).toBeNull();
    expect(await terminal.title()).not.toContain('pwned');

    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('Enter pressed twice answers the question on screen and never lets Claude stop at the turn end shown after it: its reply takes Enter only once its keys wait no more', async () => {
    await setAway(daemon, true);
    const terminal = await openWatch();
    await terminal.waitFor('Waiting for questions.');
    const payload = freshPayload('01-single-select', 'enter-twice');
    const hook = runHook(payload, daemon.env);
    await daemon.waitForAsk(payload.tool_use_id);
    await terminal.waitForPrompt('Choose one');
    const held = await turnEnd('enter-twice', 'The migration is ready.');

    await terminal.press('Enter');
    await sleep(150);
    await terminal.press('Enter');
    expect((await hook.result).code).toBe(0);
    await terminal.waitForPrompt('Your reply');
    expect(await statusOf(held.view.id)).toBe('pending');
    await terminal.type('Run it on staging');
    await terminal.waitForPrompt('Run it on staging');
    await terminal.press('Enter');
    expect(await continuationOf(held)).toBe(replyReason('Run it on staging'));
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('Esc leaves a turn end for later: it keeps waiting, and a reply from elsewhere reaches it', async () => {
    await setAway(daemon, true);
    const terminal = await openWatch();
    await terminal.waitFor('Waiting for questions.');
    const held = await turnEnd('watch-skip', 'Done.');
    await terminal.waitForPrompt('Your reply');
    await terminal.press('Escape');
    await terminal.waitFor('Skipped: nothing was sent, it still waits.');
    expect(await statusOf(held.view.id)).toBe('pending');
    expect((await runCli(['reply', held.view.sessionId, 'From the CLI'], daemon.env)).code).toBe(0);
    expect(await continuationOf(held)).toBe(replyReason('From the CLI'));
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });
});
