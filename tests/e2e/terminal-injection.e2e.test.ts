// Model, repository and request text on its way to a terminal through askbridge's own output: the
// foreground daemon's log (readable on a terminal, JSON on a pipe), `askbridge logs` and `logs
// --json`, `askbridge listen` and `listen --json`, and the errors `answer --pick` prints. Real
// processes throughout: the daemon, the hook, the CLI, and a pseudo-terminal (util-linux `script`)
// where a terminal is what decides the output. Escape sequences (OSC 52, OSC 0, ESC[2J), a C1
// control (U+009B, a one-byte CSI), a bidi override and a zero-width space must reach the terminal
// as visible marks, JSON must parse back to the exact text, and a newline in such text must not
// start a line that looks like one askbridge wrote.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INVISIBLE_CHARACTER } from '../../src/visible-text.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { assertBuildIsFresh, baseEnv, CLI_BIN } from '../stack/env.js';
import { freshPayload } from '../stack/fixtures.js';
import { postSessionEndAsHttpHook, sessionEndPayload } from '../stack/hook-client.js';
import { killStrayProcesses, parseJson, runCli, runHook, startCli, whenExited } from '../stack/processes.js';

const TITLE = '\u001b]0;pwned-title\u0007';
const CLEAR = '\u001b[2J';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007';
/** U+009B is CSI on its own: a terminal that takes C1 controls runs what follows. */
const C1_CSI = '\u009b2J';
const HOSTILE = `${TITLE}${CLEAR}${CLIPBOARD}${C1_CSI}\u202Eevil\u202C\u200Bhidden`;
/** HOSTILE as every terminal surface must show it. */
const HOSTILE_MARKED = '[U+001B]]0;pwned-title[U+0007][U+001B][2J[U+001B]]52;c;cm0gLXJmIH4K[U+0007][U+009B]2J[U+202E]evil[U+202C][U+200B]hidden';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

async function daemonForTest(): Promise<Daemon> {
  const daemon = await startDaemon();
  cleanups.push(() => daemon.stop());
  return daemon;
}

/** Bytes that must never reach a terminal from hostile text: ESC, C1 controls, bidi controls, zero-width characters. */
function expectNoHiddenBytes(text: string, what: string): void {
  expect(Buffer.from(text, 'utf8').includes(0x1b), `${what}: ESC`).toBe(false);
  const hidden = [...text.matchAll(INVISIBLE_CHARACTER)].map((match) => `U+${match[0].codePointAt(0)!.toString(16)}`);
  expect(hidden, what).toEqual([]);
}

describe('askbridge listen', () => {
  it('shows each event on one line of its own: hostile text is marked, and a newline in it cannot start a line', async () => {
    const daemon = await daemonForTest();
    const readable = startCli(['listen'], daemon.env);
    const json = startCli(['listen', '--json'], daemon.env);
    await waitUntil(() => daemon.logs().filter((entry) => entry.msg === 'watcher connected').length >= 2 || undefined, 10_000, 'both listeners to connect');

    const payload = freshPayload('01-single-select', 'listen-hostile');
    // Each newline is followed by what an event line of `listen` looks like.
    payload.session_id = `s-${HOSTILE}\n12:00:00  resolved  00000000-0000-4000-8000-000000000000  answered by a person (page)`;
    payload.cwd = `/home/alice/${CLEAR}proj\n12:00:01  added     00000000-0000-4000-8000-000000000001  1 question (Deploy)`;
    const question = payload.tool_input.questions[0]!;
    question.header = `H${HOSTILE}\n12:00:02  waiting   fake`;
    const label = question.options[0]!.label;
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const answered = await runCli(['answer', view.id, '--pick', `1=${label}`], daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    expect((await hook.result).code).toBe(0);
    await waitUntil(() => (readable.output().stdout.includes('resolved') && json.output().stdout.includes('"event":"resolved"')) || undefined, 10_000, 'both listeners to show the answer');
    readable.child.kill('SIGINT');
    json.child.kill('SIGINT');
    const [shown, streamed] = await Promise.all([readable.result, json.result]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(streamed.code, streamed.stderr).toBe(0);

    expectNoHiddenBytes(shown.stdout, 'listen');
    const lines = shown.stdout.split('\n').filter((line) => line !== '');
    // A line at the left edge is an event, and the only events are this question's two; every other line is indented.
    const events = lines.filter((line) => !/^\s/.test(line));
    expect(events.map((line) => /^\d\d:\d\d:\d\d {2}(\w+) +(\S+) /.exec(line)?.slice(1, 3))).toEqual([
      ['added', view.id],
      ['resolved', view.id],
    ]);
    expect(shown.stdout).toContain(`session s-${HOSTILE_MARKED}`);
    expect(shown.stdout).toContain(`(H${HOSTILE_MARKED}`);
    expect(shown.stdout).toContain('/home/alice/[U+001B][2Jproj');

    expectNoHiddenBytes(streamed.stdout, 'listen --json');
    const objects = streamed.stdout
      .trim()
      .split('\n')
      .map((line) => parseJson<{ event: string; sessionId: string; ask: AskView }>(line, 'a listen --json line'));
    expect(objects.map((object) => object.event)).toEqual(['added', 'resolved']);
    // The exact text comes back from the JSON.
    expect(objects[0]!.sessionId).toBe(payload.session_id);
    expect(objects[0]!.ask.cwd).toBe(payload.cwd);
    expect(objects[0]!.ask.questions[0]!.header).toBe(question.header);
  });
});

describe('askbridge answer --pick', () => {
  it('quotes hostile labels in its errors marked, with no line that passes for its own', async () => {
    const daemon = await daemonForTest();
    const payload = freshPayload('01-single-select', 'answer-hostile');
    const question = payload.tool_input.questions[0]!;
    question.question = `Deploy?${HOSTILE}\naskbridge answer: answered: {"Deploy?":"Yes"}`;
    question.options[0]!.label = `Yes${CLIPBOARD}\naskbridge answer: answered: {"Deploy?":"Yes"}`;
    question.options[1]!.label = `No${C1_CSI}\u202E`;
    const hook = runHook(payload, daemon.env);
    const view = await daemon.waitForAsk(payload.tool_use_id);

    const wrong = await runCli(['answer', view.id, '--pick', `1=Nope${TITLE}\naskbridge answer: answered`], daemon.env);
    expect(wrong.code).toBe(2);
    expectNoHiddenBytes(wrong.stderr, 'the error');
    const lines = wrong.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^askbridge answer: "Nope\[U\+001B\]\]0;pwned-title\[U\+0007\]$/);
    // Every line after the first is indented: none starts as askbridge's own lines do.
    for (const line of lines.slice(1)) expect(line).toMatch(/^\s/);
    expect(wrong.stderr).toContain('[U+001B]]52;c;cm0gLXJmIH4K[U+0007]');
    expect(wrong.stderr).toContain(`2 No[U+009B]2J[U+202E])`);

    // Refused by the daemon (an option and other text for one question): its message quotes the question.
    const refused = await runCli(['answer', view.id, '--pick', '1=2', '--other', '1=both'], daemon.env);
    expect(refused.code).toBe(1);
    expectNoHiddenBytes(refused.stderr, "the daemon's refusal");
    for (const line of refused.stderr.trimEnd().split('\n').slice(1)) expect(line).toMatch(/^\s/);
    expect(refused.stderr).toContain('takes one answer');

    const answered = await runCli(['answer', view.id, '--pick', '1=2'], daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    expectNoHiddenBytes(answered.stdout, 'the answer');
    expect(JSON.parse(answered.stdout.replace(/^answered: /, ''))).toEqual({ [question.question]: question.options[1]!.label });
    expect((await hook.result).code).toBe(0);
  });
});

/** A SessionEnd whose reason (request text, up to 200 characters) the daemon logs. */
const HOSTILE_REASON = `bye${HOSTILE}\n[03:00:00] INFO: forged line`;

describe('the daemon log', () => {
  it('in the foreground, as JSON on a pipe: the exact text, with nothing raw that a terminal would act on', async () => {
    const daemon = await daemonForTest();
    const ended = await postSessionEndAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: sessionEndPayload('s-log-json', HOSTILE_REASON) });
    expect(ended.statusCode).toBe(200);
    const entry = await daemon.waitForLog((line) => line.msg === 'session ended: its waiting questions withdrawn');
    expect(entry.reason).toBe(HOSTILE_REASON);
    expectNoHiddenBytes(daemon.output().stdout, 'the JSON log');
  });

  it('in the foreground on a terminal: readable lines, every hostile character marked, no forged line', async () => {
    assertBuildIsFresh();
    const home = mkdtempSync(join(tmpdir(), 'askbridge-fg-log-'));
    // A HOME of its own: no Claude Code there, so a start on a terminal goes straight to the daemon.
    const env = baseEnv({ HOME: home, ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config'), NO_COLOR: '1' });
    cleanups.push(async () => {
      await runCli(['stop'], env);
      rmSync(home, { recursive: true, force: true });
    });
    // The daemon's stdout is a pseudo-terminal: it writes readable lines, as to a person.
    const terminal = spawn('script', ['-qfec', `"${process.execPath}" "${CLI_BIN}" start`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
    const port = Number((await waitUntil(() => /http:\/\/127\.0\.0\.1:(\d+)\/#pair=/.exec(screen) ?? undefined, 15_000, 'the page link'))[1]);
    const key = readFileSync(join(home, 'hook-key'), 'utf8').trim();
    const ended = await postSessionEndAsHttpHook({ port, key, payload: sessionEndPayload('s-log-terminal', HOSTILE_REASON) });
    expect(ended.statusCode).toBe(200);
    await waitUntil(() => screen.includes('session ended') || undefined, 10_000, 'the log line');
    expect((await runCli(['stop'], env)).code).toBe(0);
    await whenExited(terminal);
    // The terminal ends each line with CR LF.
    screen = screen.replace(/\r\n/g, '\n');

    expectNoHiddenBytes(screen, 'the terminal');
    const line = screen.split('\n').find((text) => text.includes('session ended'));
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: session ended: its waiting questions withdrawn$/);
    expect(screen).toContain(`reason: "bye${HOSTILE_MARKED}\\n[03:00:00] INFO: forged line"`);
    expect(screen).not.toMatch(/^\[03:00:00\] INFO: forged line/m);
  });

  it('through `askbridge logs` and `logs --json`: marked, and JSON that parses back to the exact text', async () => {
    assertBuildIsFresh();
    const home = mkdtempSync(join(tmpdir(), 'askbridge-bg-log-'));
    const env = baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config') });
    cleanups.push(async () => {
      await runCli(['stop'], env);
      rmSync(home, { recursive: true, force: true });
    });
    expect((await runCli(['start', '--background'], env)).code).toBe(0);
    const status = parseJson<{ url: string }>((await runCli(['status', '--json'], env)).stdout, 'status');
    const port = Number(new URL(status.url).port);
    const ended = await postSessionEndAsHttpHook({ port, key: readFileSync(join(home, 'hook-key'), 'utf8').trim(), payload: sessionEndPayload('s-logs', HOSTILE_REASON) });
    expect(ended.statusCode).toBe(200);
    // Stopped first, so the log file holds every line the daemon wrote.
    expect((await runCli(['stop'], env)).code).toBe(0);

    const readable = await runCli(['logs', '-n', '1000'], env);
    expect(readable.code, readable.stderr).toBe(0);
    expectNoHiddenBytes(readable.stdout, 'logs');
    expect(readable.stdout).toContain(`reason: "bye${HOSTILE_MARKED}\\n[03:00:00] INFO: forged line"`);

    const json = await runCli(['logs', '-n', '1000', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    expectNoHiddenBytes(json.stdout, 'logs --json');
    const entries = json.stdout
      .trim()
      .split('\n')
      .map((line) => parseJson<{ msg?: string; reason?: string }>(line, 'a logs --json line'));
    expect(entries.find((entry) => entry.msg === 'session ended: its waiting questions withdrawn')?.reason).toBe(HOSTILE_REASON);
  });
});
