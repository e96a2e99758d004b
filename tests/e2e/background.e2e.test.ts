// `askbridge start --background` and `askbridge logs`, as real processes: the daemon detaches (two
// starts at once each return once the one daemon serves), logs to rotated files in the state
// directory, and the log is shown without letting model text or colours steer the terminal.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, appendFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { assertBuildIsFresh, baseEnv, CLI_BIN } from '../stack/env.js';
import { parseJson, runCli } from '../stack/processes.js';

const homes: string[] = [];
afterAll(async () => {
  for (const home of homes) {
    await runCli(['stop'], baseEnv({ ASKBRIDGE_HOME: home }));
    rmSync(home, { recursive: true, force: true });
  }
});

function newEnv(): { home: string; env: NodeJS.ProcessEnv } {
  assertBuildIsFresh();
  const home = mkdtempSync(join(tmpdir(), 'askbridge-bg-'));
  homes.push(home);
  return { home, env: baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config') }) };
}

/** Runs a command on a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function onTerminal(command: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('script', ['-qec', command, '/dev/null'], { env }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
}

describe('askbridge start --background', () => {
  it('returns once the daemon serves, prints the page link, and logs to a 0600 file in the state directory', async () => {
    const { home, env } = newEnv();
    const started = await runCli(['start', '--background'], env);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^askbridge is running in the background \(pid \d+\); logs: .+ logs\nAnswer page \(one-time link, pairs one browser\): http:\/\/127\.0\.0\.1:\d+\/#pair=[\w-]+\n$/);
    expect(started.stdout).toContain(`; logs: ${askbridgeCommand(env)} logs\n`);
    const status = parseJson<{ running: boolean; pid: number }>((await runCli(['status', '--json'], env)).stdout, 'status');
    expect(status.running).toBe(true);
    expect(started.stdout).toContain(`pid ${status.pid}`);

    const logFile = join(home, 'logs', readlinkSync(join(home, 'logs', 'current.log')));
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(logFile, 'utf8')).toContain('"msg":"askbridge is listening"');
    const logs = await runCli(['logs'], env);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/INFO: askbridge is listening/);

    // A second one finds it running: exit 0, and says where.
    const again = await runCli(['start', '--background'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^askbridge is already running \\(pid ${status.pid}, `));

    expect((await runCli(['stop'], env)).code).toBe(0);
    expect(parseJson<{ running: boolean }>((await runCli(['status', '--json'], env)).stdout, 'status').running).toBe(false);
  });
});

/** Whether a daemon answers for this state directory at this moment: daemon.json names it, and it answers a request. */
async function daemonAnswers(home: string): Promise<string> {
  let info: { pid: number; port: number };
  try {
    info = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { pid: number; port: number };
  } catch (error) {
    return `no daemon.json (${(error as NodeJS.ErrnoException).code})`;
  }
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${info.port}/api/status`, { headers: { authorization: `Bearer ${token}` } }).catch((error: Error) => error);
  return response instanceof Error ? `pid ${info.pid} does not answer (${response.message})` : `answers ${response.status}`;
}

describe('askbridge start --background, twice at once', () => {
  it('each returns only once a daemon serves, its own or the one the other start brings up, and says which (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const { home, env } = newEnv();
      // As two Claude Code sessions starting together run it (--quiet), and as a person does.
      const outcomes = await Promise.all(
        [['--quiet'], []].map(async (flags) => {
          const result = await runCli(['start', '--background', ...flags], env);
          return { flags, result, daemon: await daemonAnswers(home) };
        }),
      );
      for (const { flags, result, daemon } of outcomes) {
        expect(result.code, result.stderr).toBe(0);
        expect(daemon, `round ${round}, start --background ${flags.join(' ')}`).toBe('answers 200');
      }
      const [quiet, loud] = outcomes;
      expect(quiet!.result.stdout + quiet!.result.stderr).toBe('');
      const status = parseJson<{ pid: number }>((await runCli(['status', '--json'], env)).stdout, 'status');
      if (loud!.result.stdout === '') expect(loud!.result.stderr).toMatch(new RegExp(`^askbridge is already running \\(pid ${status.pid}, http://127\\.0\\.0\\.1:\\d+/\\)`));
      else expect(loud!.result.stdout).toMatch(new RegExp(`^askbridge is running in the background \\(pid ${status.pid}\\)`));
    }
  }, 120_000);
});

describe('askbridge logs', () => {
  it('shows control characters in logged text as visible marks, and colours only a terminal without NO_COLOR', async () => {
    const { home, env } = newEnv();
    expect((await runCli(['start', '--background'], env)).code).toBe(0);
    // Stopped first: the daemon writes its log through a worker, so a line it logs late (its own
    // start) could otherwise land after the one this test adds, and `-n 1` would show that one.
    expect((await runCli(['stop'], env)).code).toBe(0);
    const logFile = join(home, 'logs', readlinkSync(join(home, 'logs', 'current.log')));
    // A header from a question, as the policy logs it: the model chose these bytes.
    appendFileSync(logFile, `${JSON.stringify({ level: 30, time: Date.now(), header: '\u001b]0;pwned-title\u0007\u001b[2J\u202eevil', msg: 'rule skipped' })}\n`);

    const piped = await runCli(['logs', '-n', '1'], env);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences this test makes sure never reach a terminal
    expect(piped.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(piped.stdout).toContain('[U+001B]]0;pwned-title[U+0007][U+001B][2J[U+202E]evil');

    const command = `"${process.execPath}" "${CLI_BIN}" logs -n 1`;
    const coloured = await onTerminal(command, env);
    expect(coloured).toContain('\u001b[');
    expect(coloured).not.toContain('\u001b]0;');
    const plain = await onTerminal(command, { ...env, NO_COLOR: '1' });
    expect(plain).not.toContain('\u001b');
    expect(plain).toContain('rule skipped');
  });

  it('says where the log will be when there is none yet', async () => {
    const { env } = newEnv();
    const result = await runCli(['logs'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^askbridge logs: no log yet at .*current\.log: a daemon started with `.*askbridge(\.mjs)? start --background` writes it/);
  });
});
