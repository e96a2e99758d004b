// A person's first `askbridge start` (what `npm start` runs) on a machine where Claude Code is and
// does not send its questions to askbridge yet: on a terminal it offers once to wire Claude Code for
// every project (`install --user`); without one it changes nothing and names the command.
// The real CLI in a real terminal (tmux), a fresh home for each test.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../stack/daemon.js';
import { openTerminal, type Terminal } from '../stack/terminal.js';
import { killStrayProcesses } from '../stack/processes.js';

const OFFER = 'Wire it for every project now';
const HINT = 'Claude Code does not send its questions to askbridge yet';
const LINK = 'Answer page (one-time link, pairs one browser)';

/** The terminal wraps long lines: compare without any whitespace. */
const unwrapped = (text: string) => text.replace(/\s+/g, '');

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

/** A home where Claude Code has been run (its ~/.claude folder) and askbridge never. */
async function claudeUsersHome(): Promise<{ home: string; env: Record<string, string>; settings: string }> {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-first-start-'));
  await mkdir(join(home, '.claude'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const env = { HOME: home, ASKBRIDGE_HOME: join(home, 'state'), ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'config') };
  return { home, env, settings: join(home, '.claude', 'settings.json') };
}

async function start(env: Record<string, string>): Promise<Terminal> {
  const terminal = await openTerminal(['start'], env);
  cleanups.push(() => terminal.close());
  return terminal;
}

/** Ctrl+C, as a person stops the daemon: it exits, and nothing of it is left for the next start. */
async function stop(terminal: Terminal): Promise<void> {
  await terminal.press('C-c');
  expect(await terminal.exitCode()).toBe(0);
}

describe('the first start on a terminal', () => {
  it('offers to wire Claude Code for every project; yes installs the hooks, then the page link follows, and no later start asks again', async () => {
    const { env, settings } = await claudeUsersHome();
    const first = await start(env);
    const offer = await first.waitFor(OFFER);
    expect(offer).toContain('starts the daemon itself');
    expect(existsSync(settings)).toBe(false);
    await first.press('Enter');
    await first.waitFor(LINK);
    const hooks = (JSON.parse(readFileSync(settings, 'utf8')) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command?: string }> }>> }).hooks;
    expect(hooks.PreToolUse?.[0]?.matcher).toBe('AskUserQuestion');
    expect(hooks.SessionStart?.[0]?.hooks[0]?.command).toMatch(/askbridge\.mjs' start --background --quiet$/);
    expect(await first.screen()).toContain('restart running `claude` sessions');
    await stop(first);

    const second = await start(env);
    const screen = await second.waitFor(LINK);
    expect(screen).not.toContain(OFFER);
    expect(screen).not.toContain(HINT);
    await stop(second);
  });

  it('no changes nothing, and is remembered: the next start only names the command', async () => {
    const { env, settings } = await claudeUsersHome();
    const first = await start(env);
    await first.waitFor(OFFER);
    await first.press('Right', 'Enter');
    await first.waitUntilScreen((screen) => /Notwired\.Later:node\S+install--user/.test(unwrapped(screen)), 'the offer declined');
    await first.waitFor(LINK);
    expect(existsSync(settings)).toBe(false);
    await stop(first);

    const second = await start(env);
    const screen = await second.waitFor(LINK);
    expect(screen).not.toContain(OFFER);
    expect(unwrapped(screen)).toMatch(new RegExp(unwrapped(`${HINT}: \`node \\S+ install --user\` wires it for every project`)));
    expect(existsSync(settings)).toBe(false);
    await stop(second);
  });

  it('Ctrl+C at the offer starts nothing, changes nothing, and the next start asks again', async () => {
    const { env, settings } = await claudeUsersHome();
    const first = await start(env);
    await first.waitFor(OFFER);
    await first.press('C-c');
    expect(await first.exitCode()).toBe(130);
    expect(await first.screen()).not.toContain(LINK);
    expect(existsSync(settings)).toBe(false);

    const second = await start(env);
    await second.waitFor(OFFER);
    await second.press('Right', 'Enter');
    await second.waitFor(LINK);
    await stop(second);
  });
});

describe('a start without a terminal', () => {
  it('changes nothing and names the one command to run', async () => {
    const { env, settings } = await claudeUsersHome();
    const daemon = await startDaemon({ env: { HOME: env.HOME } });
    cleanups.push(() => daemon.stop());
    expect(daemon.output().stderr).toMatch(new RegExp(`${HINT}: \`.*install --user\` wires it for every project, and then each Claude Code session starts the daemon itself`));
    expect(existsSync(settings)).toBe(false);
    expect(existsSync(join(daemon.home, 'install-offered'))).toBe(false);
  });

  it('says nothing of Claude Code where it is not installed', async () => {
    const daemon = await startDaemon();
    cleanups.push(() => daemon.stop());
    expect(daemon.output().stderr).not.toContain('Claude Code');
  });
});
