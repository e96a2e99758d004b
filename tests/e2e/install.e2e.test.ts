// `askbridge install` and `uninstall` on real settings files, run as the real command: what lands
// where, what is kept (other hooks, mode, owner), and that uninstall takes back exactly what
// install added.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, HOOK_SCRIPT, REPO_ROOT, runCli } from './harness.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const OTHER_HOOKS = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo bash-guard' }] }],
    PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'echo after' }] }],
  },
};
const HAND_WRITTEN = { type: 'command', command: 'node "$CLAUDE_PROJECT_DIR"/hooks/askbridge-hook.mjs', timeout: 3600 };
const installedEntry = { matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 3600, statusMessage: 'Waiting for an answer in askbridge' }] };

function project(options: { git?: boolean } = {}): { dir: string; home: string; committed: string; local: string } {
  const root = mkdtempSync(join(tmpdir(), 'askbridge-install-'));
  made.push(root);
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(join(dir, '.claude'), { recursive: true });
  mkdirSync(home);
  if (options.git) execFileSync('git', ['init', '-q', dir]);
  return { dir, home, committed: join(dir, '.claude', 'settings.json'), local: join(dir, '.claude', 'settings.local.json') };
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const mode = (path: string) => statSync(path).mode & 0o777;
const cli = (args: string[], home: string) => runCli(args, baseEnv({ HOME: home }));

describe('askbridge install --project', () => {
  it('writes the entry to settings.local.json, leaves the committed file byte for byte, and keeps the local file out of git', async () => {
    const p = project({ git: true });
    const committedText = `${JSON.stringify(OTHER_HOOKS, null, 4)}\n`;
    writeFileSync(p.committed, committedText);
    chmodSync(p.committed, 0o644);

    const result = await cli(['install', '--project', p.dir], p.home);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`askbridge hook installed in ${p.local}`);
    expect(readFileSync(p.committed, 'utf8')).toBe(committedText);
    expect(mode(p.committed)).toBe(0o644);
    expect(json(p.local)).toEqual({ hooks: { PreToolUse: [installedEntry] } });
    // git ignores it, so nothing machine-specific can be committed.
    execFileSync('git', ['-C', p.dir, 'check-ignore', '-q', '.claude/settings.local.json']);
    expect(execFileSync('git', ['-C', p.dir, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })).not.toContain('settings.local.json');
  });

  it('moves an older install out of the committed file, keeping its other hooks and its mode', async () => {
    const p = project();
    const before = { ...OTHER_HOOKS, hooks: { ...OTHER_HOOKS.hooks, PreToolUse: [...OTHER_HOOKS.hooks.PreToolUse, installedEntry] } };
    writeFileSync(p.committed, JSON.stringify(before));
    chmodSync(p.committed, 0o640);

    expect((await cli(['install', '--project', p.dir], p.home)).code).toBe(0);
    expect(json(p.committed)).toEqual(OTHER_HOOKS);
    expect(mode(p.committed)).toBe(0o640);
    expect(readFileSync(p.committed, 'utf8')).not.toContain(REPO_ROOT);
    expect(json(p.local)).toEqual({ hooks: { PreToolUse: [installedEntry] } });
  });

  it('keeps an existing local file’s content, mode and owner, and changes nothing when run again', async () => {
    const p = project();
    const before = { ...OTHER_HOOKS, hooks: { ...OTHER_HOOKS.hooks, PreToolUse: [{ matcher: 'AskUserQuestion', hooks: [HAND_WRITTEN] }] } };
    writeFileSync(p.local, JSON.stringify(before));
    chmodSync(p.local, 0o600);
    const canChown = process.getuid?.() === 0;
    if (canChown) chownSync(p.local, 4321, 4321);

    expect((await cli(['install', '--project', p.dir], p.home)).code).toBe(0);
    const after = json(p.local);
    expect(after).toEqual({ ...before, hooks: { ...before.hooks, PreToolUse: [...before.hooks.PreToolUse, installedEntry] } });
    expect(mode(p.local)).toBe(0o600);
    if (canChown) expect(statSync(p.local).uid).toBe(4321);

    const text = readFileSync(p.local, 'utf8');
    const inode = statSync(p.local).ino;
    const again = await cli(['install', '--project', p.dir], p.home);
    expect(again.stdout).toContain('already installed');
    expect(readFileSync(p.local, 'utf8')).toBe(text);
    expect(statSync(p.local).ino).toBe(inode);

    // uninstall takes back exactly the entry install added: the hand-written one stays.
    const removed = await cli(['uninstall', '--project', p.dir], p.home);
    expect(removed.code).toBe(0);
    expect(json(p.local)).toEqual(before);
    expect(mode(p.local)).toBe(0o600);
  });

  it('uninstall after install into a file with nothing of askbridge gives the same settings back', async () => {
    const p = project();
    writeFileSync(p.local, JSON.stringify(OTHER_HOOKS));
    await cli(['install', '--project', p.dir], p.home);
    await cli(['uninstall', '--project', p.dir], p.home);
    expect(json(p.local)).toEqual(OTHER_HOOKS);
    const none = await cli(['uninstall', '--project', p.dir], p.home);
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toContain('no askbridge hook installed');
  });

  it('refuses a settings file that is not valid JSON, in one line, and changes nothing', async () => {
    const p = project();
    writeFileSync(p.local, '{ "hooks": ');
    const result = await cli(['install', '--project', p.dir], p.home);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^askbridge install: .*settings\.local\.json: not valid JSON: .*nothing was changed\n$/);
    expect(readFileSync(p.local, 'utf8')).toBe('{ "hooks": ');
  });

  it('refuses a hooks.PreToolUse that is not a list, and changes nothing', async () => {
    const p = project();
    const text = JSON.stringify({ hooks: { PreToolUse: { matcher: 'x' } } });
    writeFileSync(p.local, text);
    const result = await cli(['install', '--project', p.dir], p.home);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('hooks.PreToolUse is not a list');
    expect(readFileSync(p.local, 'utf8')).toBe(text);
  });
});

describe('askbridge install --user', () => {
  it('adds the entry to ~/.claude/settings.json and uninstall --user takes it out again', async () => {
    const p = project();
    const userFile = join(p.home, '.claude', 'settings.json');
    expect((await cli(['install', '--user'], p.home)).code).toBe(0);
    expect(json(userFile)).toEqual({ hooks: { PreToolUse: [installedEntry] } });
    expect(existsSync(p.local)).toBe(false);
    expect((await cli(['uninstall', '--user'], p.home)).code).toBe(0);
    expect(json(userFile)).toEqual({});
  });
});
