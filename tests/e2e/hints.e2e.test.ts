// The commands askbridge tells a person to type run here: on a fresh clone, where no askbridge is
// on PATH, a hint names this checkout's `node …/bin/askbridge.mjs`, never a bare `askbridge`.
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { askbridgeCommand, CLI_PATH } from '../../src/command-name.js';
import { assertBuildIsFresh, baseEnv } from '../stack/env.js';
import { parseJson, runCli } from '../stack/processes.js';

const homes: string[] = [];
afterAll(async () => {
  for (const home of homes) {
    await runCli(['stop'], baseEnv({ ASKBRIDGE_HOME: home }));
    rmSync(home, { recursive: true, force: true });
  }
});

/** A state directory, and a PATH with no askbridge on it (the CLI itself is run by its path). */
function freshClone(): NodeJS.ProcessEnv {
  assertBuildIsFresh();
  const home = mkdtempSync(join(tmpdir(), 'askbridge-hints-'));
  homes.push(home);
  return baseEnv({ HOME: home, ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config'), PATH: '/usr/bin:/bin' });
}

describe('a hint on a machine without askbridge on PATH', () => {
  it('names `node …/bin/askbridge.mjs` in status when stopped, and in start when it runs already', async () => {
    const env = freshClone();
    const command = askbridgeCommand(env);
    expect(command).toBe(`node ${CLI_PATH}`);

    const stopped = await runCli(['status'], env);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain(`start it with \`${command} start\``);

    expect((await runCli(['start', '--background', '--public-url', 'https://askbridge.example.net'], env)).code).toBe(0);
    for (const args of [['start'], ['start', '--background']]) {
      const again = await runCli(args, env);
      expect(again.code, args.join(' ')).toBe(0);
      expect(again.stderr, args.join(' ')).toContain(`use \`${command} open\` for a page link, or \`${command} stop\``);
    }

    // The page's card: this machine's form for a page opened here; through the public URL (another
    // Host), the plain name, and no folder of this machine.
    const { url } = parseJson<{ url: string }>((await runCli(['status', '--json'], env)).stdout, 'status');
    const here = await pageHtml(url, new URL(url).host);
    expect(here).toContain(`run <code>${command} open</code> (that computer) or <code>${command} pair</code>`);
    const there = await pageHtml(url, 'askbridge.example.net');
    expect(there).toContain('On the machine running askbridge, run <code>askbridge open</code>');
    expect(there).not.toContain(CLI_PATH);

    expect((await runCli(['stop'], env)).code).toBe(0);
    const stopAgain = await runCli(['stop'], env);
    expect(stopAgain.stderr).toContain(`start it with \`${command} start\``);
  }, 60_000);

  it('names it in --help, and in the usage a wrong answer command is told', async () => {
    const env = freshClone();
    const command = askbridgeCommand(env);
    const help = await runCli(['--help'], env);
    expect(help.stdout).toContain(`Usage: ${command} <command> [options]   (${command} <command> --help for its options)`);
    expect((await runCli(['answer', '--help'], env)).stdout).toMatch(new RegExp(`^Usage: ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} answer `));
    const wrong = await runCli(['answer', 'one', 'two'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`usage: ${command} answer [ID | --session ID] [--confirm] | --all on a terminal, or ${command} answer ID --pick 1=LABEL|NUMBER`);
    expect(wrong.stderr).toContain(`or ${command} answer ID --allow [--confirm-risky] | ID --allow-suggestion N`);
    expect(`${help.stdout}${wrong.stderr}`).not.toMatch(/(^|[\s(])askbridge (answer(?!:)|<command>|--help)/);
  });
});

/** The answer page's HTML from the daemon at `url`, asked for with this Host. */
function pageHtml(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
    }).on('error', reject);
  });
}
