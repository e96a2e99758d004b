// `askbridge install` and `uninstall` on real settings files, run as the real command: what lands
// where (the http hook or the command hook, by the Claude Code found and whether systemd holds the
// port, the SessionEnd hook by the same transport, and the SessionStart hook), what is kept (other
// hooks, mode, owner), that the hook key never goes where git commits it or where a symbolic link
// leads, and that uninstall takes back exactly what install added.
import { execFileSync } from 'node:child_process';
import { shellQuote } from '../../src/claude-settings.js';
import { askbridgeCommand } from '../../src/command-name.js';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { startDaemon } from '../stack/daemon.js';
import { baseEnv, HOOK_SCRIPT, REPO_ROOT } from '../stack/env.js';
import { post, readResponse } from '../stack/hook-client.js';
import { becomeNeighbour, neighbourAvailability } from '../stack/neighbour.js';
import { runCli } from '../stack/processes.js';
import { isTomlBasicString } from '../stack/toml.js';
import { setAway, stopPayload } from '../stack/turn-ends.js';

const made: string[] = [];
const stops: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const OTHER_HOOKS = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo bash-guard' }] }],
    PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'echo after' }] }],
  },
};
const HAND_WRITTEN = { type: 'command', command: 'node "$CLAUDE_PROJECT_DIR"/hooks/askbridge-hook.cjs', timeout: 3600 };
const CLI = join(REPO_ROOT, 'bin', 'askbridge.mjs');
/** What the terminal shows while a question waits: this machine's page on that port, and the command (as a PATH without askbridge names it). */
/** How a hint names askbridge here: a PATH without askbridge. */
const HERE = askbridgeCommand({ PATH: '/usr/bin:/bin' });
const waiting = (port = 7433) => `Waiting for an answer in askbridge: http://127.0.0.1:${port}/ or \`${askbridgeCommand({ PATH: '/usr/bin:/bin' })} answer\``;
const commandEntry = { matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 3600, statusMessage: waiting() }] };
const httpEntry = (key: string, port = 7433) => ({
  matcher: 'AskUserQuestion',
  hooks: [
    {
      type: 'http',
      url: `http://127.0.0.1:${port}/api/hook/ask`,
      headers: { 'x-askbridge-hook-key': key, 'x-askbridge-env-ci': '$CI', 'x-askbridge-env-askbridge-unattended': '$ASKBRIDGE_UNATTENDED' },
      allowedEnvVars: ['CI', 'ASKBRIDGE_UNATTENDED'],
      timeout: 3600,
      statusMessage: waiting(port),
    },
  ],
});
const sessionStartEntry = (port?: number) => ({ hooks: [{ type: 'command', command: `node '${CLI}' start --background --quiet${port ? ` --port ${port}` : ''}`, timeout: 30 }] });
const commandSessionEnd = { hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'` }] };
const commandPermission = { hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 3600 }] };
const httpPermission = (key: string, port = 7433) => ({ hooks: [{ ...httpEntry(key, port).hooks[0], url: `http://127.0.0.1:${port}/api/hook/permission`, statusMessage: undefined }] });
const httpSessionEnd = (key: string, port = 7433) => ({ hooks: [{ type: 'http', url: `http://127.0.0.1:${port}/api/hook/session-end`, headers: { 'x-askbridge-hook-key': key } }] });
/** The turn-end entries of the command hook: the same hook, which reads whether the person is away before it asks anything. */
const commandTurnEnds = {
  Stop: [{ hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 3600, statusMessage: 'Waiting for your reply in askbridge, if you are away' }] }],
  UserPromptSubmit: [{ hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 10 }] }],
  Notification: [{ hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 10 }] }],
};
/** The Elicitation entry: an MCP server's form or link, by the same transport and with the same timeout as a question. */
const commandElicitation = { hooks: [{ type: 'command', command: `node '${HOOK_SCRIPT}'`, timeout: 3600, statusMessage: waiting() }] };
const httpElicitation = (key: string, port = 7433) => ({ hooks: [{ ...httpEntry(key, port).hooks[0], url: `http://127.0.0.1:${port}/api/hook/elicitation` }] });
const commandHooks = { PreToolUse: [commandEntry], Elicitation: [commandElicitation], PermissionRequest: [commandPermission], SessionStart: [sessionStartEntry()], SessionEnd: [commandSessionEnd], ...commandTurnEnds };
/** The headers every http entry but SessionEnd sends: the key, and the environment it forwards. */
const forwarded = (key: string) => ({ 'x-askbridge-hook-key': key, 'x-askbridge-env-ci': '$CI', 'x-askbridge-env-askbridge-unattended': '$ASKBRIDGE_UNATTENDED' });
/** The turn-end entries of the http hook: Stop, held while the person is away, forwards Claude Code's limit on replies in a row. */
const httpTurnEnds = (key: string, port = 7433) => ({
  Stop: [
    {
      hooks: [
        {
          type: 'http',
          url: `http://127.0.0.1:${port}/api/hook/stop`,
          headers: { ...forwarded(key), 'x-askbridge-stop-block-cap': '$CLAUDE_CODE_STOP_HOOK_BLOCK_CAP' },
          allowedEnvVars: ['CI', 'ASKBRIDGE_UNATTENDED', 'CLAUDE_CODE_STOP_HOOK_BLOCK_CAP'],
          timeout: 3600,
          statusMessage: 'Waiting for your reply in askbridge, if you are away',
        },
      ],
    },
  ],
  UserPromptSubmit: [{ hooks: [{ type: 'http', url: `http://127.0.0.1:${port}/api/hook/prompt`, headers: forwarded(key), allowedEnvVars: ['CI', 'ASKBRIDGE_UNATTENDED'], timeout: 10 }] }],
  Notification: [{ hooks: [{ type: 'http', url: `http://127.0.0.1:${port}/api/hook/notification`, headers: forwarded(key), allowedEnvVars: ['CI', 'ASKBRIDGE_UNATTENDED'], timeout: 10 }] }],
});
/** What install writes for the http hook on this port. */
const httpHooks = (key: string, port = 7433) => ({
  PreToolUse: [httpEntry(key, port)],
  Elicitation: [httpElicitation(key, port)],
  PermissionRequest: [httpPermission(key, port)],
  SessionStart: [sessionStartEntry(port)],
  SessionEnd: [httpSessionEnd(key, port)],
  ...httpTurnEnds(key, port),
});

type Project = { dir: string; home: string; state: string; bin: string; committed: string; local: string; port?: number };

/** git in `dir`, with the same home as the command under test, so no developer's global ignore file takes part. */
const git = (p: Project, dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=askbridge tests', '-c', 'user.email=tests@askbridge.invalid', ...args], { encoding: 'utf8', env: baseEnv({ HOME: p.home }) });
/** What `git status` would offer to commit, every untracked file listed on its own. */
const uncommitted = (p: Project, dir: string) => git(p, dir, 'status', '--porcelain', '--untracked-files=all');

/**
 * A project, a home, a state directory, and a folder for a fake `claude` (on PATH only when a test
 * puts one there). With `git`, a git repository whose top level is the project, or the folder above
 * it (the project is then its sub-folder `pkg`).
 */
function project(options: { git?: 'at-project' | 'above-project' } = {}): Project {
  const root = mkdtempSync(join(tmpdir(), 'askbridge-install-'));
  made.push(root);
  const top = join(root, 'project');
  const dir = options.git === 'above-project' ? join(top, 'pkg') : top;
  const home = join(root, 'home');
  mkdirSync(join(dir, '.claude'), { recursive: true });
  mkdirSync(home);
  mkdirSync(join(root, 'bin'));
  const p = { dir, home, state: join(root, 'state'), bin: join(root, 'bin'), committed: join(dir, '.claude', 'settings.json'), local: join(dir, '.claude', 'settings.local.json') };
  if (options.git) git(p, top, 'init', '-q');
  fakeSystemctl(p, 'inactive');
  return p;
}

/**
 * A `systemctl` on the project's PATH that answers what install and doctor ask systemd about
 * askbridge.socket as systemd does: `show --property=ActiveState --property=Listen` prints the
 * unit's state and one `Listen=ADDRESS (Stream)` line per address it listens on, `is-active --quiet`
 * exits 0 when it is active and 3 when not, anything else exits 1. The real systemd user manager
 * cannot run in a test's container; every project gets one, so that no test depends on the
 * machine's own units. What listens on those addresses is real (holdPortAsService).
 */
function fakeSystemctl(p: Project, socket: 'inactive' | { listens: string[] }): void {
  const active = socket !== 'inactive';
  const shown = [`ActiveState=${active ? 'active' : 'inactive'}`, ...(active ? socket.listens.map((address) => `Listen=${address} (Stream)`) : [])];
  const script = [
    '#!/bin/sh',
    'case "$*" in',
    `  "--user show askbridge.socket --property=ActiveState --property=Listen") printf '%s\\n' ${shown.map((line) => `'${line}'`).join(' ')} ;;`,
    `  "--user is-active --quiet askbridge.socket") exit ${active ? 0 : 3} ;;`,
    '  *) exit 1 ;;',
    'esac',
    '',
  ].join('\n');
  writeFileSync(join(p.bin, 'systemctl'), script, { mode: 0o755 });
}

/**
 * askbridge.socket holding the project's port, as `askbridge service install` makes it: a socket of
 * this user's (systemd's user manager runs as the user) listening on 127.0.0.1:PORT, a free port
 * for each project, and systemctl saying the unit is active there. The project's commands take that
 * port (ASKBRIDGE_PORT).
 */
async function holdPortAsService(p: Project): Promise<number> {
  const socket = createServer();
  await new Promise<void>((listening) => socket.listen(0, '127.0.0.1', listening));
  stops.push(() => new Promise((closed) => socket.close(closed)));
  p.port = (socket.address() as AddressInfo).port;
  fakeSystemctl(p, { listens: [`127.0.0.1:${p.port}`] });
  return p.port;
}

/** A `claude` on the project's PATH that prints this version, as the real one does. */
function fakeClaude(p: Project, version: string): void {
  writeFileSync(join(p.bin, 'claude'), `#!/bin/sh\necho '${version} (Claude Code)'\n`, { mode: 0o755 });
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const mode = (path: string) => statSync(path).mode & 0o777;
const hookKey = (p: Project) => readFileSync(join(p.state, 'hook-key'), 'utf8').trim();
const cli = (args: string[], p: Project) => runCli(args, baseEnv({ HOME: p.home, ASKBRIDGE_HOME: p.state, PATH: `${p.bin}:/usr/bin:/bin`, ...(p.port ? { ASKBRIDGE_PORT: String(p.port) } : {}) }));
/** The command hook, chosen explicitly: the entry names this checkout's hook file. */
const installCommand = (p: Project, ...args: string[]) => cli(['install', '--hook', 'command', ...args], p);

describe('askbridge install --project', () => {
  it('writes the entry to settings.local.json, leaves the committed file byte for byte, and keeps the local file out of git', async () => {
    const p = project({ git: 'at-project' });
    const committedText = `${JSON.stringify(OTHER_HOOKS, null, 4)}\n`;
    writeFileSync(p.committed, committedText);
    chmodSync(p.committed, 0o644);

    const result = await installCommand(p, '--project', p.dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`askbridge hook (command) installed in ${p.local}`);
    expect(readFileSync(p.committed, 'utf8')).toBe(committedText);
    expect(mode(p.committed)).toBe(0o644);
    expect(json(p.local)).toEqual({ hooks: commandHooks });
    // git ignores it, so nothing machine-specific can be committed.
    git(p, p.dir, 'check-ignore', '-q', '.claude/settings.local.json');
    expect(uncommitted(p, p.dir)).not.toContain('settings.local.json');
  });

  it('keeps the local file, and the hook key in it, out of git when the project is a sub-folder of the repository', async () => {
    const p = project({ git: 'above-project' });
    const result = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(p.local, 'utf8')).toContain(hookKey(p));
    const top = dirname(p.dir);
    git(p, top, 'check-ignore', '-q', 'pkg/.claude/settings.local.json');
    expect(uncommitted(p, top)).not.toContain('settings.local.json');
    // Only that one file: the project's other files stay visible to git.
    writeFileSync(join(p.dir, '.claude', 'notes.md'), 'shared\n');
    expect(uncommitted(p, top)).toContain('pkg/.claude/notes.md');
  });

  it('keeps the local file out of git in a sub-folder of a linked worktree, through the repository’s own exclude file', async () => {
    const p = project({ git: 'at-project' });
    git(p, p.dir, 'commit', '-q', '--allow-empty', '-m', 'start');
    const worktree = join(dirname(p.dir), 'worktree');
    git(p, p.dir, 'worktree', 'add', '-q', worktree);
    const sub = join(worktree, 'pkg');
    mkdirSync(sub);
    const result = await cli(['install', '--hook', 'http', '--project', sub], p);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(sub, '.claude', 'settings.local.json'), 'utf8')).toContain(hookKey(p));
    git(p, worktree, 'check-ignore', '-q', 'pkg/.claude/settings.local.json');
    expect(uncommitted(p, worktree)).not.toContain('settings.local.json');
  });

  it('refuses to write the hook key into a file git would commit (tracked, or brought back by a .gitignore), in one line, and writes nothing', async () => {
    const tracked = project({ git: 'above-project' });
    writeFileSync(tracked.local, '{}\n');
    git(tracked, dirname(tracked.dir), 'add', 'pkg/.claude/settings.local.json');
    git(tracked, dirname(tracked.dir), 'commit', '-q', '-m', 'settings');
    const reincluded = project({ git: 'above-project' });
    writeFileSync(join(dirname(reincluded.dir), '.gitignore'), '!pkg/.claude/settings.local.json\n');
    for (const [p, why] of [
      [tracked, 'git tracks it'],
      [reincluded, 'a .gitignore brings it back'],
    ] as const) {
      const before = existsSync(p.local) ? readFileSync(p.local, 'utf8') : undefined;
      const result = await cli(['install', '--hook', 'http', '--project', p.dir], p);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^askbridge install: .*pkg/\\.claude/settings\\.local\\.json.*${why}.*the hook key.*nothing was written.*\\n$`));
      expect(existsSync(p.local) ? readFileSync(p.local, 'utf8') : undefined).toBe(before);
    }
  });

  it('warns loudly, and still installs, when git would commit the command hook’s entries, which hold no key', async () => {
    const p = project({ git: 'above-project' });
    writeFileSync(join(dirname(p.dir), '.gitignore'), '!pkg/.claude/settings.local.json\n');
    const result = await installCommand(p, '--project', p.dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: .*pkg\/\.claude\/settings\.local\.json.*a \.gitignore brings it back/);
    expect(json(p.local)).toEqual({ hooks: commandHooks });
    // Run again, the exclude file still holds its line once.
    expect((await installCommand(p, '--project', p.dir)).code).toBe(0);
    const exclude = readFileSync(join(dirname(p.dir), '.git', 'info', 'exclude'), 'utf8');
    expect(exclude.split('\n').filter((line) => line === '/pkg/.claude/settings.local.json')).toHaveLength(1);
  });

  it('refuses to write the hook key through a settings.local.json that links to a committed file, naming where it leads, and --force writes it there', async () => {
    const p = project({ git: 'at-project' });
    const shared = join(p.dir, 'shared-settings.json');
    writeFileSync(shared, '{ "permissions": { "allow": ["Bash(npm test)"] } }\n');
    symlinkSync('../shared-settings.json', p.local);
    git(p, p.dir, 'add', 'shared-settings.json');
    git(p, p.dir, 'commit', '-q', '-m', 'shared settings');

    const refused = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `askbridge install: ${p.local}: ${p.local} is a symbolic link to ${shared}, so the hook key would be written there (replace the link with a file or folder of its own); install would write the hook key there, so nothing was written to it (--force writes it all the same)\n`,
    );
    expect(readFileSync(shared, 'utf8')).toBe('{ "permissions": { "allow": ["Bash(npm test)"] } }\n');
    expect(readlinkSync(p.local)).toBe('../shared-settings.json');
    expect(git(p, p.dir, 'diff', '--stat')).toBe('');
    expect(existsSync(join(p.state, 'hook-key'))).toBe(false);

    const forced = await cli(['install', '--hook', 'http', '--force', '--project', p.dir], p);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`warning: ${p.local}: ${p.local} is a symbolic link to ${shared}`);
    expect(forced.stderr).toContain('writing the hook key there all the same (--force)');
    expect(readFileSync(shared, 'utf8')).toContain(hookKey(p));
    expect(lstatSync(p.local).isSymbolicLink()).toBe(true);
  });

  it('refuses to write the hook key into a .claude folder that is a symbolic link, inside the repository or out of it, and --force writes it', async () => {
    const inside = project({ git: 'at-project' });
    const committedFolder = join(inside.dir, 'config', 'claude');
    mkdirSync(committedFolder, { recursive: true });
    writeFileSync(join(committedFolder, 'settings.json'), '{}\n');
    git(inside, inside.dir, 'add', 'config');
    git(inside, inside.dir, 'commit', '-q', '-m', 'claude settings');
    const outside = project({ git: 'above-project' });
    const elsewhere = join(outside.home, 'claude-settings');
    mkdirSync(elsewhere);
    for (const [p, target] of [
      [inside, committedFolder],
      [outside, elsewhere],
    ] as const) {
      rmSync(join(p.dir, '.claude'), { recursive: true });
      symlinkSync(target, join(p.dir, '.claude'));
      const refused = await cli(['install', '--hook', 'http', '--project', p.dir], p);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^askbridge install: .*: ${join(p.dir, '.claude')} is a symbolic link to ${target}, so the hook key would be written there .*nothing was written.*\\n$`));
      expect(existsSync(join(target, 'settings.local.json'))).toBe(false);

      const forced = await cli(['install', '--hook', 'http', '--force', '--project', p.dir], p);
      expect(forced.code, forced.stderr).toBe(0);
      expect(readFileSync(join(target, 'settings.local.json'), 'utf8')).toContain(hookKey(p));
    }
    // Forced in the repository, the file is still kept out of git where it really is.
    git(inside, inside.dir, 'check-ignore', '-q', 'config/claude/settings.local.json');
    expect(uncommitted(inside, inside.dir)).not.toContain('settings.local.json');
  });

  it('writes the hook key into a tracked settings.local.json only with --force, and says git tracks it', async () => {
    const p = project({ git: 'at-project' });
    writeFileSync(p.local, '{}\n');
    git(p, p.dir, 'add', '.claude/settings.local.json');
    git(p, p.dir, 'commit', '-q', '-m', 'settings');
    // Listed in .git/info/exclude too: an exclude never untracks a file.
    writeFileSync(join(p.dir, '.git', 'info', 'exclude'), '/.claude/settings.local.json\n');

    const refused = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `askbridge install: ${p.local}: git would commit it: git tracks it (\`git rm --cached\` on it stops that); install would write the hook key there, so nothing was written to it (--force writes it all the same)\n`,
    );
    expect(readFileSync(p.local, 'utf8')).toBe('{}\n');

    const forced = await cli(['install', '--hook', 'http', '--force', '--project', p.dir], p);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`warning: ${p.local}: git would commit it: git tracks it`);
    expect(readFileSync(p.local, 'utf8')).toContain(hookKey(p));
  });

  it('checks again once the key is written, and when git would commit the file now, puts it back as it was and fails', async () => {
    // Something changes the repository while install writes (here: a `git` on PATH that, once the
    // settings file holds a hook key, adds a .gitignore line bringing it back before it lets the
    // real git answer, as another program could do at that moment). The check before writing saw
    // nothing wrong; the check after must see it.
    for (const existing of [undefined, '{"permissions":{"allow":["Bash(npm test)"]}}']) {
      const p = project({ git: 'at-project' });
      await holdPortAsService(p);
      if (existing !== undefined) {
        writeFileSync(p.local, existing);
        chmodSync(p.local, 0o640);
      }
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      writeFileSync(
        join(p.bin, 'git'),
        `#!/bin/sh\nif grep -qs x-askbridge-hook-key '${p.local}'; then echo '!/.claude/settings.local.json' > '${join(p.dir, '.gitignore')}'; fi\nexec '${realGit}' "$@"\n`,
        { mode: 0o755 },
      );
      const result = await cli(['install', '--hook', 'http', '--project', p.dir], p);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `askbridge install: git would commit ${p.local} once written: nothing ignores it (\`git check-ignore -v\` on it names any line that brings it back); it is back as it was, without the hook key\n`,
      );
      if (existing === undefined) {
        expect(existsSync(p.local)).toBe(false);
      } else {
        expect(readFileSync(p.local, 'utf8')).toBe(existing);
        expect(mode(p.local)).toBe(0o640);
      }
    }
  });

  it('checks git about the user settings too: refuses a ~/.claude/settings.json that a repository at home tracks', async () => {
    const p = project();
    const userFile = join(p.home, '.claude', 'settings.json');
    mkdirSync(dirname(userFile));
    writeFileSync(userFile, '{}\n');
    git(p, p.home, 'init', '-q');
    git(p, p.home, 'add', '.claude/settings.json');
    git(p, p.home, 'commit', '-q', '-m', 'dotfiles');
    await holdPortAsService(p);
    const result = await cli(['install', '--user', '--hook', 'http'], p);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^askbridge install: ${userFile}: git would commit it: git tracks it .*nothing was written`));
    expect(readFileSync(userFile, 'utf8')).toBe('{}\n');
  });

  it('refuses a --project folder that does not exist, naming it, and creates nothing', async () => {
    const p = project();
    const typo = join(p.dir, 'no-such-folder');
    for (const args of [['--hook', 'command'], ['--url', 'https://desk.example.ts.net', '--key', 'k'.repeat(43)]]) {
      const result = await cli(['install', ...args, '--project', typo], p);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`askbridge install: --project ${typo}: no such folder; nothing was created\n`);
      expect(existsSync(typo)).toBe(false);
      expect(existsSync(p.state)).toBe(false);
    }
  });

  it('moves an older install out of the committed file, keeping its other hooks and its mode', async () => {
    const p = project();
    // What an older askbridge wrote: its ES-module hook, by absolute path, into the committed file.
    const older = { matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: `node '${REPO_ROOT}/hooks/askbridge-hook.mjs'`, timeout: 3600 }] };
    const before = { ...OTHER_HOOKS, hooks: { ...OTHER_HOOKS.hooks, PreToolUse: [...OTHER_HOOKS.hooks.PreToolUse, older] } };
    writeFileSync(p.committed, JSON.stringify(before));
    chmodSync(p.committed, 0o640);

    expect((await installCommand(p, '--project', p.dir)).code).toBe(0);
    expect(json(p.committed)).toEqual(OTHER_HOOKS);
    expect(mode(p.committed)).toBe(0o640);
    expect(readFileSync(p.committed, 'utf8')).not.toContain(REPO_ROOT);
    expect(json(p.local)).toEqual({ hooks: commandHooks });
  });

  it('keeps an existing local file’s content, mode and owner, and changes nothing when run again', async () => {
    const p = project();
    const before = { ...OTHER_HOOKS, hooks: { ...OTHER_HOOKS.hooks, PreToolUse: [{ matcher: 'AskUserQuestion', hooks: [HAND_WRITTEN] }] } };
    writeFileSync(p.local, JSON.stringify(before));
    chmodSync(p.local, 0o600);
    const canChown = process.getuid?.() === 0;
    if (canChown) chownSync(p.local, 4321, 4321);

    expect((await installCommand(p, '--project', p.dir)).code).toBe(0);
    const after = json(p.local);
    expect(after).toEqual({
      ...before,
      hooks: { ...before.hooks, PreToolUse: [...before.hooks.PreToolUse, commandEntry], Elicitation: [commandElicitation], PermissionRequest: [commandPermission], SessionStart: [sessionStartEntry()], SessionEnd: [commandSessionEnd], ...commandTurnEnds },
    });
    expect(mode(p.local)).toBe(0o600);
    if (canChown) expect(statSync(p.local).uid).toBe(4321);

    const text = readFileSync(p.local, 'utf8');
    const inode = statSync(p.local).ino;
    const again = await installCommand(p, '--project', p.dir);
    expect(again.stdout).toContain('already installed');
    expect(readFileSync(p.local, 'utf8')).toBe(text);
    expect(statSync(p.local).ino).toBe(inode);

    // uninstall takes back exactly the entry install added: the hand-written one stays.
    const removed = await cli(['uninstall', '--project', p.dir], p);
    expect(removed.code).toBe(0);
    expect(json(p.local)).toEqual(before);
    expect(mode(p.local)).toBe(0o600);
  });

  it('uninstall after install into a file with nothing of askbridge gives the same settings back', async () => {
    const p = project();
    writeFileSync(p.local, JSON.stringify(OTHER_HOOKS));
    for (const transport of ['http', 'command']) {
      expect((await cli(['install', '--hook', transport, '--project', p.dir], p)).code).toBe(0);
      expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
      expect(json(p.local)).toEqual(OTHER_HOOKS);
    }
    const none = await cli(['uninstall', '--project', p.dir], p);
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toContain('no askbridge hook installed');
  });

  it('refuses a settings file that is not valid JSON, in one line, and changes nothing', async () => {
    const p = project();
    writeFileSync(p.local, '{ "hooks": ');
    const result = await installCommand(p, '--project', p.dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^askbridge install: .*settings\.local\.json: not valid JSON: .*nothing was changed\n$/);
    expect(readFileSync(p.local, 'utf8')).toBe('{ "hooks": ');
  });

  it('refuses a hooks.PreToolUse, Elicitation, SessionStart, SessionEnd, Stop, UserPromptSubmit or Notification that is not a list, and changes nothing', async () => {
    for (const event of ['PreToolUse', 'Elicitation', 'SessionStart', 'SessionEnd', 'Stop', 'UserPromptSubmit', 'Notification']) {
      const p = project();
      const text = JSON.stringify({ hooks: { [event]: { matcher: 'x' } } });
      writeFileSync(p.local, text);
      const result = await installCommand(p, '--project', p.dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`hooks.${event} is not a list`);
      expect(readFileSync(p.local, 'utf8')).toBe(text);
    }
  });

  it('refuses a transport it does not know, with usage exit code 2, and changes nothing', async () => {
    const p = project();
    const result = await cli(['install', '--hook', 'socket', '--project', p.dir], p);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--hook must be http or command, not "socket"');
    expect(existsSync(p.local)).toBe(false);
  });
});

describe('askbridge install picks the transport by the Claude Code it finds and by whether systemd holds the port', () => {
  it('wires the http hook for Claude Code 2.1.63 and later when systemd holds the port: the hook key from the state directory, the port, the forwarded variables', async () => {
    const p = project();
    fakeClaude(p, '2.1.63');
    const port = await holdPortAsService(p);
    const result = await cli(['install', '--project', p.dir], p);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`askbridge hook (http, http://127.0.0.1:${port}/api/hook/ask) installed in ${p.local}`);
    expect(result.stderr).not.toContain('warning');
    const key = hookKey(p);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mode(join(p.state, 'hook-key'))).toBe(0o600);
    expect(json(p.local)).toEqual({ hooks: httpHooks(key, port) });
    // The file holds a key: made new, only its owner reads it.
    expect(mode(p.local)).toBe(0o600);
    // The same key on a second install, and nothing written.
    const text = readFileSync(p.local, 'utf8');
    expect((await cli(['install', '--project', p.dir], p)).stdout).toContain('already installed');
    expect(readFileSync(p.local, 'utf8')).toBe(text);
  });

  it('wires the command hook when no service holds the port (the socket unit inactive, or no systemctl at all), in one line saying why', async () => {
    const inactive = project();
    fakeClaude(inactive, '2.1.330');
    const noSystemctl = project();
    fakeClaude(noSystemctl, '2.1.330');
    rmSync(join(noSystemctl.bin, 'systemctl'));
    const runs = [
      await cli(['install', '--project', inactive.dir], inactive),
      // Only the project's bin on PATH: no systemctl to ask (and no git, which a folder outside a repository does not need).
      await runCli(['install', '--project', noSystemctl.dir], baseEnv({ HOME: noSystemctl.home, ASKBRIDGE_HOME: noSystemctl.state, PATH: noSystemctl.bin })),
    ];
    const whys = ['askbridge.socket is not active', 'no systemd user manager answers `systemctl --user`'];
    for (const [index, p] of [inactive, noSystemctl].entries()) {
      const result = runs[index]!;
      expect(result.code, result.stderr).toBe(0);
      // Its first line: one line that says why.
      expect(result.stderr.split('\n')[0]).toBe(
        `installing the command hook, not the http hook: no service holds port 7433 (${whys[index]}), so while askbridge is down another program could take it and the http hook would hand it your questions; \`${HERE} service install\` lets systemd hold the port, and the http hook be used safely`,
      );
      expect(json(p.local)).toEqual({ hooks: commandHooks });
      expect(existsSync(join(p.state, 'hook-key'))).toBe(false);
    }
  });

  it('wires the command hook when askbridge.socket is active on another port than the running daemon’s, which only its keeper holds, and doctor reports an http hook there', async () => {
    const p = project();
    fakeClaude(p, '2.1.330');
    // systemd says it holds 7433; the daemon runs on a port of its own, which its keeper holds only while it runs.
    fakeSystemctl(p, { listens: ['127.0.0.1:7433', '[::1]:7433'] });
    const daemon = await startDaemon({ home: p.state });
    stops.push(() => daemon.stop());
    const why = `askbridge.socket listens on 127.0.0.1:7433 (Stream), [::1]:7433 (Stream), not on 127.0.0.1:${daemon.port}`;
    const chosen = await cli(['install', '--project', p.dir], p);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.stderr.split('\n')[0]).toBe(
      `installing the command hook, not the http hook: no service holds port ${daemon.port} (${why}), so while askbridge is down another program could take it and the http hook would hand it your questions; \`${HERE} service install\` lets systemd hold the port, and the http hook be used safely`,
    );
    expect(json(p.local)).toMatchObject({ hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } });
    expect(readFileSync(p.local, 'utf8')).not.toContain(hookKey(p));

    // Asked for by name, the http hook is written with the warning, and doctor says the same.
    const forced = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`warning: no service holds port ${daemon.port} (${why}): while askbridge is not running there`);
    const doctor = await cli(['doctor', '--json', '--cwd', p.dir], p);
    const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ id: string; message: string }> }).findings.filter((finding) => finding.id === 'http-hook-port-unheld');
    expect(findings.map((finding) => finding.message)).toEqual([
      `the http hook in ${p.local} posts to port ${daemon.port}, which no service holds (${why}): while askbridge is not running there, any program on this machine can listen on it, receive every question with the hook key, and answer it in your name`,
    ]);
  });

  it.skipIf(!neighbourAvailability().available)('wires the command hook when another user listens where askbridge.socket is said to listen, and doctor reports an http hook there', async () => {
    const neighbour = becomeNeighbour();
    const squatter = neighbour.run("import { createServer } from 'node:net';\nconst server = createServer((socket) => socket.destroy()).listen(0, '127.0.0.1', () => console.log(server.address().port));\n");
    stops.push(async () => {
      squatter.child.kill('SIGKILL');
      await squatter.result;
      neighbour.remove();
    });
    const port = Number(await waitUntil(() => /^(\d+)\n/.exec(squatter.output().stdout)?.[1], 10_000, 'the neighbour to listen'));
    const p = project();
    fakeClaude(p, '2.1.330');
    p.port = port;
    // systemctl says askbridge.socket is active there (as the unit may have been, before it stopped); the socket listening there is the neighbour's.
    fakeSystemctl(p, { listens: [`127.0.0.1:${port}`] });
    const why = `another user (uid ${neighbour.uid}) listens on 127.0.0.1:${port}, not askbridge.socket`;
    const chosen = await cli(['install', '--project', p.dir], p);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.stderr.split('\n')[0]).toBe(
      `installing the command hook, not the http hook: no service holds port ${port} (${why}), so while askbridge is down another program could take it and the http hook would hand it your questions; \`${HERE} service install\` lets systemd hold the port, and the http hook be used safely`,
    );
    expect(json(p.local)).toMatchObject({ hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } });

    expect((await cli(['install', '--hook', 'http', '--project', p.dir], p)).stderr).toContain(`warning: no service holds port ${port} (${why}): while askbridge is not running there`);
    const doctor = await cli(['doctor', '--json', '--cwd', p.dir], p);
    const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ id: string; message: string }> }).findings.filter((finding) => finding.id === 'http-hook-port-unheld');
    expect(findings.map((finding) => finding.message)).toEqual([expect.stringContaining(`posts to port ${port}, which no service holds (${why})`)]);
  });

  it('wires the command hook for Claude Code older than 2.1.63, and says why, even when systemd holds the port', async () => {
    const p = project();
    fakeClaude(p, '2.1.62');
    fakeSystemctl(p, { listens: ['127.0.0.1:7433'] });
    const result = await cli(['install', '--project', p.dir], p);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Claude Code 2.1.62 is older than 2.1.63');
    expect(result.stderr).not.toContain('no service holds');
    expect(json(p.local)).toEqual({ hooks: commandHooks });
    expect(existsSync(join(p.state, 'hook-key'))).toBe(false);
  });

  it('wires the http hook when systemd holds the port and no claude can be asked, and says how to get the command hook', async () => {
    const p = project();
    const port = await holdPortAsService(p);
    const result = await cli(['install', '--project', p.dir], p);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${HERE} install --hook command`);
    expect(json(p.local)).toMatchObject({ hooks: { PreToolUse: [httpEntry(hookKey(p), port)] } });
  });

  it('installs an explicit --hook http without the service, with a warning that says what it risks, and none when systemd holds the port', async () => {
    const p = project();
    fakeClaude(p, '2.1.330');
    const risky = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(risky.code, risky.stderr).toBe(0);
    expect(json(p.local)).toEqual({ hooks: httpHooks(hookKey(p)) });
    expect(risky.stderr).toContain(
      `warning: no service holds port 7433 (askbridge.socket is not active): while askbridge is not running there (stopped, crashed, or whatever keeps its port killed), any program on this machine can listen on it, and this http hook would send that program every question with the hook key and the project's path, and Claude Code would take its reply as your answer; \`${HERE} service install\` lets systemd hold the port (or \`${HERE} install --hook command\`, which proves the daemon before it sends anything)\n`,
    );
    await holdPortAsService(p);
    const held = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(held.code, held.stderr).toBe(0);
    expect(held.stderr).not.toContain('no service holds');
  });

  it('switches an existing install from one transport to the other, leaving one entry', async () => {
    const p = project();
    expect((await cli(['install', '--hook', 'command', '--project', p.dir], p)).code).toBe(0);
    expect((await cli(['install', '--hook', 'http', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual({ hooks: httpHooks(hookKey(p)) });
    expect((await cli(['install', '--hook', 'command', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual({ hooks: commandHooks });
  });

  it('takes the port of ASKBRIDGE_PORT, and refuses port 0 (an http hook needs a fixed one)', async () => {
    const p = project();
    const env = (port: string) => baseEnv({ HOME: p.home, ASKBRIDGE_HOME: p.state, PATH: `${p.bin}:/usr/bin:/bin`, ASKBRIDGE_PORT: port });
    expect((await runCli(['install', '--hook', 'http', '--project', p.dir], env('7999'))).code).toBe(0);
    expect(json(p.local)).toEqual({ hooks: httpHooks(hookKey(p), 7999) });
    const zero = await runCli(['install', '--hook', 'http', '--project', p.dir], env('0'));
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('an http hook needs a fixed port');
  });

  it('names where to answer in the status message the terminal shows while a question waits: the public URL when set, the command on this machine', async () => {
    const p = project();
    const statusOf = () => ((json(p.local).hooks as { PreToolUse: Array<{ hooks: Array<{ statusMessage: string }> }> }).PreToolUse[0]!.hooks[0]!.statusMessage);
    const env = (extra: NodeJS.ProcessEnv) => baseEnv({ HOME: p.home, ASKBRIDGE_HOME: p.state, PATH: `${p.bin}:/usr/bin:/bin`, XDG_CONFIG_HOME: join(p.home, 'config'), ...extra });
    expect((await runCli(['install', '--hook', 'command', '--project', p.dir], env({ ASKBRIDGE_PORT: '7999' }))).code).toBe(0);
    expect(statusOf()).toBe(waiting(7999));
    // The public URL from the user config: a phone reaches the page there.
    mkdirSync(join(p.home, 'config', 'askbridge'), { recursive: true });
    writeFileSync(join(p.home, 'config', 'askbridge', 'config.json'), JSON.stringify({ publicUrl: 'https://desk.example.ts.net' }));
    expect((await runCli(['install', '--hook', 'command', '--project', p.dir], env({}))).code).toBe(0);
    expect(statusOf()).toBe(`Waiting for an answer in askbridge: https://desk.example.ts.net/ or \`${askbridgeCommand({ PATH: '/usr/bin:/bin' })} answer\``);
    // ASKBRIDGE_PUBLIC_URL wins over the file, as it does when the daemon starts.
    expect((await runCli(['install', '--hook', 'command', '--project', p.dir], env({ ASKBRIDGE_PUBLIC_URL: 'https://other.example.ts.net' }))).code).toBe(0);
    expect(statusOf()).toContain('https://other.example.ts.net/ or');
    // A daemon on another machine: its page, and no command (askbridge answer runs there).
    const key = 'k'.repeat(43);
    expect((await runCli(['install', '--url', 'https://far.example.ts.net', '--key', key, '--project', p.dir], env({}))).code).toBe(0);
    expect(statusOf()).toBe('Waiting for an answer in askbridge: https://far.example.ts.net/');
  });

  it('rotates the key with --rotate-key, writes the new one, and warns that other files hold the old one', async () => {
    const p = project();
    expect((await cli(['install', '--hook', 'http', '--project', p.dir], p)).code).toBe(0);
    const old = hookKey(p);
    const rotated = await cli(['install', '--hook', 'http', '--rotate-key', '--project', p.dir], p);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain('hook key rotated');
    expect(hookKey(p)).not.toBe(old);
    expect(json(p.local)).toEqual({ hooks: httpHooks(hookKey(p)) });
    expect(readFileSync(p.local, 'utf8')).not.toContain(old);
  });

  it('keeps the mode of an existing settings file that others can read, and says the key in it can only ask', async () => {
    const p = project();
    writeFileSync(p.local, '{}\n');
    chmodSync(p.local, 0o644);
    const result = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(result.code).toBe(0);
    expect(mode(p.local)).toBe(0o644);
    expect(result.stderr).toContain('can only ask questions, never answer them');
  });
});

describe('askbridge install --user', () => {
  it('adds the entry to ~/.claude/settings.json and uninstall --user takes it out again', async () => {
    const p = project();
    const userFile = join(p.home, '.claude', 'settings.json');
    fakeClaude(p, '2.1.330');
    const port = await holdPortAsService(p);
    expect((await cli(['install', '--user'], p)).code).toBe(0);
    expect(json(userFile)).toEqual({ hooks: httpHooks(hookKey(p), port) });
    expect(existsSync(p.local)).toBe(false);
    expect((await cli(['uninstall', '--user'], p)).code).toBe(0);
    expect(json(userFile)).toEqual({});
  });
});

describe('the PermissionRequest entry', () => {
  it('routes permissions and plans by the same transport unless --no-approvals, which a later install without it undoes', async () => {
    for (const transport of ['http', 'command'] as const) {
      const p = project();
      const questionsOnly = await cli(['install', '--hook', transport, '--no-approvals', '--project', p.dir], p);
      expect(questionsOnly.code, questionsOnly.stderr).toBe(0);
      expect(questionsOnly.stdout).toContain(": questions, MCP servers' requests for input, the ends of turns while you are away, and sessions waiting in the terminal (--no-approvals)\n");
      expect(Object.keys((json(p.local) as { hooks: object }).hooks)).not.toContain('PermissionRequest');

      const both = await cli(['install', '--hook', transport, '--project', p.dir], p);
      expect(both.stdout).toContain(": questions, MCP servers' requests for input, Claude Code's permissions and plans, the ends of turns while you are away, and sessions waiting in the terminal\n");
      const { hooks } = json(p.local) as { hooks: Record<string, unknown> };
      expect(hooks.PermissionRequest).toEqual([transport === 'http' ? httpPermission(hookKey(p)) : commandPermission]);
      expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
      expect(json(p.local)).toEqual({});
    }
  });
});

describe('the Elicitation entry', () => {
  it('doctor passes it after install, for either transport, and names it missing, with install as the fix, once it is taken out', async () => {
    for (const transport of ['http', 'command'] as const) {
      const p = project();
      fakeClaude(p, '2.1.330');
      expect((await cli(['install', '--hook', transport, '--project', p.dir], p)).code).toBe(0);
      const wired = await cli(['doctor', '--cwd', p.dir], p);
      expect(wired.stdout).toContain(`✓ Elicitation hook installed in ${p.local}: an MCP server's request for input (a form, a link) waits in askbridge too\n`);
      expect(wired.stdout).not.toContain('no Elicitation hook');

      const { Elicitation: _left, ...hooks } = (json(p.local) as { hooks: Record<string, unknown> }).hooks;
      writeFileSync(p.local, `${JSON.stringify({ ...json(p.local), hooks }, null, 2)}\n`);
      const doctor = await cli(['doctor', '--json', '--cwd', p.dir], p);
      const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ id: string }> }).findings.filter((finding) => finding.id === 'elicitation-missing');
      expect(findings, transport).toEqual([
        {
          id: 'elicitation-missing',
          level: 'info',
          file: p.local,
          message: `no Elicitation hook reaches askbridge, so an MCP server's request for input (a form, a link) asks only in Claude Code's own dialog (an older \`${HERE} install\` wrote ${p.local})`,
          fix: `\`${HERE} install --project ${shellQuote(p.dir)}\` (adds the Elicitation entry)`,
        },
      ]);
      // install puts it back.
      expect((await cli(['install', '--hook', transport, '--project', p.dir], p)).code).toBe(0);
      expect((await cli(['doctor', '--cwd', p.dir], p)).stdout).toContain(`✓ Elicitation hook installed in ${p.local}`);
    }
  });
});

describe('the SessionEnd entry', () => {
  it('is added by install to an install made before it had one, once, and uninstall takes every entry back', async () => {
    for (const transport of ['http', 'command'] as const) {
      const p = project();
      expect((await cli(['install', '--hook', transport, '--project', p.dir], p)).code).toBe(0);
      const { PreToolUse, SessionStart, ...added } = (json(p.local) as { hooks: { PreToolUse: unknown[]; SessionStart: unknown[] } & Record<string, unknown[]> }).hooks;
      // What an older askbridge wrote beside other hooks: the same entries, but no Elicitation, SessionEnd, PermissionRequest nor turn-end ones.
      const older = { ...OTHER_HOOKS.hooks, PreToolUse: [...OTHER_HOOKS.hooks.PreToolUse, ...PreToolUse], SessionStart };
      writeFileSync(p.local, `${JSON.stringify({ ...OTHER_HOOKS, hooks: older }, null, 2)}\n`);

      const upgraded = await cli(['install', '--hook', transport, '--project', p.dir], p);
      expect(upgraded.code, upgraded.stderr).toBe(0);
      expect(upgraded.stdout).not.toContain('already installed');
      expect(Object.keys(added).sort()).toEqual(['Elicitation', 'Notification', 'PermissionRequest', 'SessionEnd', 'Stop', 'UserPromptSubmit']);
      expect(json(p.local)).toEqual({ ...OTHER_HOOKS, hooks: { ...older, ...added } });
      const text = readFileSync(p.local, 'utf8');
      expect((await cli(['install', '--hook', transport, '--project', p.dir], p)).stdout).toContain('already installed');
      expect(readFileSync(p.local, 'utf8')).toBe(text);

      expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
      expect(json(p.local)).toEqual(OTHER_HOOKS);
    }
  });

  it("keeps another tool's SessionEnd hook through install and uninstall", async () => {
    const p = project();
    const theirs = { hooks: [{ type: 'command', command: 'echo session over >> ~/sessions.log' }] };
    const before = { hooks: { SessionEnd: [theirs] } };
    writeFileSync(p.local, JSON.stringify(before));
    expect((await installCommand(p, '--project', p.dir)).code).toBe(0);
    expect((json(p.local) as { hooks: { SessionEnd: unknown[] } }).hooks.SessionEnd).toEqual([theirs, commandSessionEnd]);
    expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual(before);
  });

  it('is written for a daemon on another machine too (install --url), to the same address with the same key and machine', async () => {
    const p = project();
    const key = 'k'.repeat(43);
    const result = await cli(['install', '--url', 'https://desk.example.ts.net', '--key', key, '--machine', 'ci-runner', '--project', p.dir], p);
    expect(result.code, result.stderr).toBe(0);
    const { hooks } = json(p.local) as { hooks: Record<string, Array<{ hooks: Array<Record<string, unknown>> }>> };
    expect(Object.keys(hooks).sort()).toEqual(['Elicitation', 'Notification', 'PermissionRequest', 'PreToolUse', 'SessionEnd', 'Stop', 'UserPromptSubmit']);
    for (const [event, path] of [['Stop', 'stop'], ['UserPromptSubmit', 'prompt'], ['Notification', 'notification'], ['Elicitation', 'elicitation']] as const) {
      expect(hooks[event]![0]!.hooks[0]).toMatchObject({ type: 'http', url: `https://desk.example.ts.net/api/hook/${path}`, headers: { 'x-askbridge-hook-key': key, 'x-askbridge-machine': 'ci-runner' } });
    }
    expect(hooks.PermissionRequest![0]!.hooks[0]).toMatchObject({ type: 'http', url: 'https://desk.example.ts.net/api/hook/permission', headers: { 'x-askbridge-hook-key': key, 'x-askbridge-machine': 'ci-runner' } });
    expect(hooks.PreToolUse![0]!.hooks[0]).toMatchObject({ type: 'http', url: 'https://desk.example.ts.net/api/hook/ask', headers: { 'x-askbridge-hook-key': key, 'x-askbridge-machine': 'ci-runner' } });
    expect(hooks.SessionEnd).toEqual([{ hooks: [{ type: 'http', url: 'https://desk.example.ts.net/api/hook/session-end', headers: { 'x-askbridge-hook-key': key, 'x-askbridge-machine': 'ci-runner' } }] }]);
    expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual({});
  });
});

type HttpEntry = { type: 'http'; url: string; headers: Record<string, string>; allowedEnvVars: string[]; timeout: number; statusMessage?: string };

/** askbridge's entry under hooks.EVENT in a settings file: the last matcher group's hook, as install appends it. */
const entryOf = (file: string, event: string) => (json(file) as { hooks: Record<string, Array<{ hooks: HttpEntry[] }>> }).hooks[event]!.at(-1)!.hooks[0]!;

/**
 * POSTs a payload as Claude Code does for an http entry (protocol.md 5a): `$VAR` and `${VAR}` in a
 * header filled from Claude Code's own environment, only for names in allowedEnvVars (others, and
 * unset ones, empty). The request stays open until the daemon answers.
 */
function postAsEntry(entry: HttpEntry, payload: Record<string, unknown>, environment: Record<string, string> = {}) {
  const fill = (value: string) =>
    value.replace(/\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)/g, (_match, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!;
      return entry.allowedEnvVars.includes(name) ? (environment[name] ?? '') : '';
    });
  const url = new URL(entry.url);
  const req = post(Number(url.port), url.pathname, Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, fill(value)])), JSON.stringify(payload));
  const response = readResponse(req);
  response.catch(() => undefined);
  return { response, abort: () => req.destroy() };
}

describe('the turn-end entries (Stop, UserPromptSubmit, Notification)', () => {
  it('are written with the http hook, once however often install runs, and their URLs hold only the address and the path (Claude Code shows a Stop hook’s URL to the model)', async () => {
    const p = project();
    const first = await cli(['install', '--hook', 'http', '--project', p.dir], p);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('note: the end of a turn');
    const key = hookKey(p);
    const { hooks } = json(p.local) as { hooks: Record<string, unknown> };
    expect({ Stop: hooks.Stop, UserPromptSubmit: hooks.UserPromptSubmit, Notification: hooks.Notification }).toEqual(httpTurnEnds(key));
    for (const event of ['Stop', 'UserPromptSubmit', 'Notification']) {
      const url = new URL(entryOf(p.local, event).url);
      expect([url.username, url.password, url.search, url.hash]).toEqual(['', '', '', '']);
      expect(url.href).not.toContain(key);
    }
    const text = readFileSync(p.local, 'utf8');
    for (let run = 0; run < 2; run += 1) {
      const again = await cli(['install', '--hook', 'http', '--project', p.dir], p);
      expect(again.stdout).toContain('already installed');
      expect(readFileSync(p.local, 'utf8')).toBe(text);
    }
  });

  it('--no-turn-ends leaves them out and says so, a later install without it adds them, and uninstall gives the file back either way', async () => {
    const p = project();
    writeFileSync(p.local, JSON.stringify(OTHER_HOOKS));
    const without = await cli(['install', '--hook', 'http', '--no-turn-ends', '--project', p.dir], p);
    expect(without.code, without.stderr).toBe(0);
    expect(without.stdout).toContain(": questions, MCP servers' requests for input, and Claude Code's permissions and plans (--no-turn-ends)\n");
    const { hooks } = json(p.local) as { hooks: Record<string, unknown> };
    expect(Object.keys(hooks).sort()).toEqual(['Elicitation', 'PermissionRequest', 'PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart']);
    const both = await cli(['install', '--hook', 'http', '--no-turn-ends', '--no-approvals', '--project', p.dir], p);
    expect(both.stdout).toContain(": questions, and MCP servers' requests for input (--no-approvals, --no-turn-ends)\n");

    expect((await cli(['install', '--hook', 'http', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual({ ...OTHER_HOOKS, hooks: { ...OTHER_HOOKS.hooks, ...httpHooks(hookKey(p)), PreToolUse: [...OTHER_HOOKS.hooks.PreToolUse, httpEntry(hookKey(p))] } });
    expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual(OTHER_HOOKS);
  });

  it('are written with the command hook too, which carries every wait the http hook does, and nothing is said to be missing', async () => {
    const p = project();
    const result = await installCommand(p, '--project', p.dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(": questions, MCP servers' requests for input, Claude Code's permissions and plans, the ends of turns while you are away, and sessions waiting in the terminal\n");
    expect(result.stderr).not.toContain('note: the end of a turn');
    expect(json(p.local)).toEqual({ hooks: commandHooks });
    const { Stop: _stop, UserPromptSubmit: _prompt, Notification: _notification, ...withoutTurnEnds } = commandHooks;
    expect((await installCommand(p, '--no-turn-ends', '--project', p.dir)).code).toBe(0);
    expect(json(p.local)).toEqual({ hooks: withoutTurnEnds });
  });

  it("keeps the user's own Stop, UserPromptSubmit and Notification hooks through install and uninstall, an http one to the same path without askbridge's key included", async () => {
    const p = project();
    const before = {
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'notify-send "Claude finished"' }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:9999/api/hook/prompt', headers: { authorization: 'Bearer theirs' } }] }],
        Notification: [{ matcher: 'idle_prompt', hooks: [{ type: 'command', command: 'say waiting' }] }],
      },
    };
    writeFileSync(p.local, JSON.stringify(before));
    expect((await cli(['install', '--hook', 'http', '--project', p.dir], p)).code).toBe(0);
    const ours = httpTurnEnds(hookKey(p));
    const { hooks } = json(p.local) as { hooks: Record<string, unknown> };
    expect(hooks.Stop).toEqual([...before.hooks.Stop, ...ours.Stop]);
    expect(hooks.UserPromptSubmit).toEqual([...before.hooks.UserPromptSubmit, ...ours.UserPromptSubmit]);
    expect(hooks.Notification).toEqual([...before.hooks.Notification, ...ours.Notification]);
    // Installed again: still one of askbridge's each.
    expect((await cli(['install', '--hook', 'http', '--project', p.dir], p)).stdout).toContain('already installed');
    expect((await cli(['uninstall', '--project', p.dir], p)).code).toBe(0);
    expect(json(p.local)).toEqual(before);
  });

  it('reach the daemon as Claude Code sends them: the Stop entry forwards CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, a prompt typed in the terminal ends its wait, and a notification shows', async () => {
    const daemon = await startDaemon();
    stops.push(() => daemon.stop());
    const p = project();
    const installed = await runCli(['install', '--hook', 'http', '--project', p.dir], baseEnv({ ...daemon.env, HOME: p.home, PATH: `${p.bin}:/usr/bin:/bin` }));
    expect(installed.code, installed.stderr).toBe(0);
    expect(entryOf(p.local, 'Stop').url).toBe(`http://127.0.0.1:${daemon.port}/api/hook/stop`);
    await setAway(daemon, true);

    const sessionId = 'install-turn-end-session';
    const stop = postAsEntry(entryOf(p.local, 'Stop'), stopPayload(sessionId, 'Done: the tests pass.'), { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '3', CI: '' });
    const turnEnd = await Promise.race([
      waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === sessionId && ask.turnEnd !== undefined), 10_000, 'the turn end to be pending'),
      stop.response.then((early) => {
        throw new Error(`the Stop entry was answered before it waited: ${early.statusCode} ${early.body}`);
      }),
    ]);
    expect(turnEnd.turnEnd).toMatchObject({ lastMessage: 'Done: the tests pass.', repliesInARow: 0, replyLimit: 3 });

    const prompt = await postAsEntry(entryOf(p.local, 'UserPromptSubmit'), { session_id: sessionId, cwd: '/home/alice/projects/shop', hook_event_name: 'UserPromptSubmit', prompt: 'typed here', prompt_id: 'p-1' }).response;
    expect(prompt).toMatchObject({ statusCode: 200, body: '' });
    // No decision: the prompt typed in the terminal goes to Claude as the person's own.
    expect(await stop.response).toMatchObject({ statusCode: 200, body: '' });
    expect(await daemon.ask(turnEnd.id)).toMatchObject({ status: 'cancelled', source: { kind: 'terminal' } });

    const notified = await postAsEntry(entryOf(p.local, 'Notification'), { session_id: sessionId, cwd: '/home/alice/projects/shop', hook_event_name: 'Notification', message: 'Claude is waiting for your input', notification_type: 'idle_prompt' }).response;
    expect(notified).toMatchObject({ statusCode: 200, body: '' });
    const wait = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === sessionId && ask.terminalWait !== undefined), 10_000, 'the wait in the terminal to show');
    expect(wait.terminalWait).toEqual({ kind: 'idle_prompt', message: 'Claude is waiting for your input' });
  });
});

describe('askbridge install --codex', () => {
  const codexHome = (p: Project) => join(p.home, '.codex');
  const codexCommand = `node '${HOOK_SCRIPT}' --agent codex`;
  const codexEntry = { type: 'command', command: codexCommand, timeout: 3600, statusMessage: waiting() };
  const mineCodex = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
  const codexConfig = 'model = "gpt"\n\n[projects."/home/alice/shop"]\ntrust_level = "trusted"\n';
  const trustTable = (key: string) => new RegExp(`^\\n\\[hooks\\.state\\."${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\]\\ntrusted_hash = "sha256:[0-9a-f]{64}"\\n$`);

  it("adds Codex's PermissionRequest entry to ~/.codex/hooks.json after the person's own, trusts it in config.toml, keeps both files' other content and modes, and changes nothing the second time", async () => {
    const p = project();
    mkdirSync(codexHome(p));
    const hooksFile = join(codexHome(p), 'hooks.json');
    const configFile = join(codexHome(p), 'config.toml');
    writeFileSync(hooksFile, JSON.stringify({ hooks: { PermissionRequest: [mineCodex], Stop: [{ hooks: [{ type: 'command', command: 'echo stop' }] }] } }), { mode: 0o600 });
    writeFileSync(configFile, codexConfig, { mode: 0o640 });
    const installed = await cli(['install', '--codex', '--user'], p);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`installed in ${hooksFile}`);
    expect(installed.stdout).toContain(`trusted in ${configFile}, as you ran install`);
    expect(json(hooksFile)).toEqual({ hooks: { PermissionRequest: [mineCodex, { hooks: [codexEntry] }], Stop: [{ hooks: [{ type: 'command', command: 'echo stop' }] }] } });
    const config = readFileSync(configFile, 'utf8');
    // Every byte the person wrote, then one table: the trust of the entry at its place (group 1, handler 0).
    expect(config.startsWith(codexConfig)).toBe(true);
    expect(config.slice(codexConfig.length)).toMatch(trustTable(`${hooksFile}:permission_request:1:0`));
    expect([mode(hooksFile), mode(configFile)]).toEqual([0o600, 0o640]);
    // Nothing of Claude Code's is touched.
    expect(existsSync(p.local)).toBe(false);

    const hooksBytes = readFileSync(hooksFile, 'utf8');
    const again = await cli(['install', '--codex', '--user'], p);
    expect(again.stdout).toContain('already installed');
    expect(again.stdout).toContain('already trusted');
    expect([readFileSync(hooksFile, 'utf8'), readFileSync(configFile, 'utf8')]).toEqual([hooksBytes, config]);

    const removed = await cli(['uninstall', '--codex', '--user'], p);
    expect(removed.code).toBe(0);
    expect(json(hooksFile)).toEqual({ hooks: { PermissionRequest: [mineCodex], Stop: [{ hooks: [{ type: 'command', command: 'echo stop' }] }] } });
    expect(readFileSync(configFile, 'utf8')).toBe(codexConfig);
    expect([mode(hooksFile), mode(configFile)]).toEqual([0o600, 0o640]);
    expect((await cli(['uninstall', '--codex', '--user'], p)).stdout).toContain('no askbridge hook for Codex installed');
  });

  it("goes to CODEX_HOME when set, and to a project's .codex/hooks.json with --project, kept out of git and trusted in the user's config.toml", async () => {
    const p = project({ git: 'at-project' });
    const home = join(p.home, 'elsewhere');
    const env = baseEnv({ HOME: p.home, ASKBRIDGE_HOME: p.state, PATH: `${p.bin}:/usr/bin:/bin`, CODEX_HOME: home });
    expect((await runCli(['install', '--codex', '--user'], env)).code).toBe(0);
    expect(json(join(home, 'hooks.json'))).toEqual({ hooks: { PermissionRequest: [{ hooks: [codexEntry] }] } });
    expect(mode(join(home, 'config.toml'))).toBe(0o600);

    const installed = await runCli(['install', '--codex', '--project', p.dir], env);
    expect(installed.code).toBe(0);
    const projectHooks = join(p.dir, '.codex', 'hooks.json');
    expect(json(projectHooks)).toEqual({ hooks: { PermissionRequest: [{ hooks: [codexEntry] }] } });
    expect(installed.stderr).toContain('only in a project it trusts');
    expect(uncommitted(p, p.dir)).not.toContain('.codex');
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toContain(`[hooks.state."${projectHooks}:permission_request:0:0"]`);
  });

  it("refuses to write through a .codex folder or a hooks.json that the project's repository links elsewhere (into ~/.codex, into ~/.claude/settings.json), writes nothing anywhere, and --force writes it", async () => {
    const userSettings = '{ "permissions": { "allow": ["Bash(npm test)"] } }\n';
    const cases = [
      {
        name: 'the .codex folder, a link to ~/.codex',
        plant: (p: Project) => {
          mkdirSync(codexHome(p));
          symlinkSync(codexHome(p), join(p.dir, '.codex'));
          return { link: join(p.dir, '.codex'), to: codexHome(p), landing: join(codexHome(p), 'hooks.json') };
        },
      },
      {
        name: 'its hooks.json, a link to ~/.claude/settings.json',
        plant: (p: Project) => {
          mkdirSync(join(p.home, '.claude'));
          writeFileSync(join(p.home, '.claude', 'settings.json'), userSettings);
          mkdirSync(join(p.dir, '.codex'));
          symlinkSync(join(p.home, '.claude', 'settings.json'), join(p.dir, '.codex', 'hooks.json'));
          return { link: join(p.dir, '.codex', 'hooks.json'), to: join(p.home, '.claude', 'settings.json'), landing: join(p.home, '.claude', 'settings.json') };
        },
      },
    ];
    for (const { name, plant } of cases) {
      const p = project({ git: 'at-project' });
      const { link, to, landing } = plant(p);
      // The repository commits the link.
      git(p, p.dir, 'add', '.codex');
      git(p, p.dir, 'commit', '-q', '-m', 'codex settings');
      const before = existsSync(landing) ? readFileSync(landing, 'utf8') : undefined;

      const refused = await cli(['install', '--codex', '--project', p.dir], p);
      expect(refused.code, name).toBe(1);
      expect(refused.stderr, name).toBe(
        `askbridge install: ${join(p.dir, '.codex', 'hooks.json')}: ${link} is a symbolic link to ${to}, so this machine's paths would be written there (replace the link with a file or folder of its own); install would write this machine's paths there, so nothing was written to it (--force writes it all the same)\n`,
      );
      expect(existsSync(landing) ? readFileSync(landing, 'utf8') : undefined, name).toBe(before);
      // Nothing trusted either, and git's own files untouched.
      expect(existsSync(join(codexHome(p), 'config.toml')), name).toBe(false);
      expect(readFileSync(join(p.dir, '.git', 'info', 'exclude'), 'utf8'), name).not.toContain('.codex');
      expect(uncommitted(p, p.dir), name).toBe('');

      const forced = await cli(['install', '--codex', '--force', '--project', p.dir], p);
      expect(forced.code, `${name}: ${forced.stderr}`).toBe(0);
      expect(forced.stderr, name).toContain(`warning: ${join(p.dir, '.codex', 'hooks.json')}: ${link} is a symbolic link to ${to}, so this machine's paths would be written there`);
      expect(forced.stderr, name).toContain("writing this machine's paths there all the same (--force)");
      expect(readFileSync(landing, 'utf8'), name).toContain(codexCommand);
    }
  });

  it("uninstall --project refuses to edit through a .claude folder that the project's repository links to ~/.claude: the person's own settings stay as they were", async () => {
    const p = project({ git: 'at-project' });
    const userFile = join(p.home, '.claude', 'settings.json');
    expect((await cli(['install', '--user'], p)).code).toBe(0);
    const before = readFileSync(userFile, 'utf8');
    expect(before).toContain('askbridge');
    rmSync(join(p.dir, '.claude'), { recursive: true });
    symlinkSync(join(p.home, '.claude'), join(p.dir, '.claude'));

    const refused = await cli(['uninstall', '--project', p.dir], p);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `askbridge uninstall: ${join(p.dir, '.claude', 'settings.json')}: ${join(p.dir, '.claude')} is a symbolic link to ${join(p.home, '.claude')}, so uninstall would edit the file there; nothing was changed (take askbridge's entries out of ${join(p.dir, '.claude', 'settings.json')} by hand if they are yours)\n`,
    );
    expect(readFileSync(userFile, 'utf8')).toBe(before);
  });

  it("uninstall --codex --project refuses to edit through a .codex folder that the project's repository links to ~/.codex: the person's own Codex hooks and trust stay as they were", async () => {
    const p = project({ git: 'at-project' });
    mkdirSync(codexHome(p));
    const hooksFile = join(codexHome(p), 'hooks.json');
    const configFile = join(codexHome(p), 'config.toml');
    writeFileSync(hooksFile, JSON.stringify({ hooks: { PermissionRequest: [mineCodex] } }));
    expect((await cli(['install', '--codex', '--user'], p)).code).toBe(0);
    const [hooksBefore, configBefore] = [readFileSync(hooksFile, 'utf8'), readFileSync(configFile, 'utf8')];
    symlinkSync(codexHome(p), join(p.dir, '.codex'));
    git(p, p.dir, 'add', '.codex');
    git(p, p.dir, 'commit', '-q', '-m', 'codex settings');

    const refused = await cli(['uninstall', '--codex', '--project', p.dir], p);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `askbridge uninstall: ${join(p.dir, '.codex', 'hooks.json')}: ${join(p.dir, '.codex')} is a symbolic link to ${codexHome(p)}, so uninstall would edit the file there; nothing was changed (take askbridge's entry out of ${join(p.dir, '.codex', 'hooks.json')} by hand if it is yours)\n`,
    );
    expect([readFileSync(hooksFile, 'utf8'), readFileSync(configFile, 'utf8')]).toEqual([hooksBefore, configBefore]);
    expect(uncommitted(p, p.dir)).toBe('');
  });

  it('trusts a project whose folder name holds every control character, DEL included: config.toml stays TOML, keeps every byte it had, and doctor reads the trust back', async () => {
    const p = project();
    const controls = [...Array.from({ length: 31 }, (_, index) => String.fromCharCode(index + 1)), '\u007f'].join('');
    // A file name holds anything but NUL and the slash.
    const dir = join(dirname(p.dir), `shop${controls}end`);
    mkdirSync(dir);
    mkdirSync(codexHome(p));
    const configFile = join(codexHome(p), 'config.toml');
    writeFileSync(configFile, codexConfig);
    const installed = await cli(['install', '--codex', '--project', dir], p);
    expect(installed.code, installed.stderr).toBe(0);

    const config = readFileSync(configFile, 'utf8');
    expect(config.startsWith(codexConfig)).toBe(true);
    const added = config.slice(codexConfig.length);
    // No character TOML forbids raw: the only control character is the newline that ends a line.
    expect([...added].filter((char) => char !== '\n' && (char < ' ' || char === '\u007f'))).toEqual([]);
    const table = /^\n\[hooks\.state\.(".*")\]\ntrusted_hash = "sha256:[0-9a-f]{64}"\n$/.exec(added);
    expect(table, added).not.toBeNull();
    expect(isTomlBasicString(table![1]!)).toBe(true);
    expect(JSON.parse(table![1]!)).toBe(`${join(dir, '.codex', 'hooks.json')}:permission_request:0:0`);

    writeFileSync(join(p.bin, 'codex'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const doctor = await cli(['doctor', '--json', '--cwd', dir], p);
    const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ id: string }> }).findings.map((finding) => finding.id);
    expect(findings.filter((id) => id.startsWith('codex-'))).toEqual([]);
    // Run again, the trust is found where it is: nothing changes.
    expect((await cli(['install', '--codex', '--project', dir], p)).stdout).toContain('already trusted');
    expect(readFileSync(configFile, 'utf8')).toBe(config);
  });

  it("installs but writes no trust into a config.toml that holds hooks' state in a form it does not edit, and says what Codex will ask", async () => {
    const p = project();
    mkdirSync(codexHome(p));
    const configFile = join(codexHome(p), 'config.toml');
    const inline = '[hooks]\nstate = { }\n';
    writeFileSync(configFile, inline);
    const installed = await cli(['install', '--codex', '--user'], p);
    expect(installed.code).toBe(0);
    expect(readFileSync(configFile, 'utf8')).toBe(inline);
    expect(installed.stderr).toContain('"Hooks need review"');
    expect(json(join(codexHome(p), 'hooks.json'))).toEqual({ hooks: { PermissionRequest: [{ hooks: [codexEntry] }] } });
  });

  it('doctor, with codex on PATH, finds the entry trusted after install, and untrusted once the entry is edited', async () => {
    const p = project();
    writeFileSync(join(p.bin, 'codex'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const codexFindings = async () => {
      const doctor = await cli(['doctor', '--json', '--cwd', p.dir], p);
      return (JSON.parse(doctor.stdout) as { findings: Array<{ id: string }> }).findings.map((finding) => finding.id).filter((id) => id.startsWith('codex-'));
    };
    expect(await codexFindings()).toEqual(['codex-hook-missing']);
    expect((await cli(['install', '--codex', '--user'], p)).code).toBe(0);
    expect(await codexFindings()).toEqual([]);
    const hooksFile = join(codexHome(p), 'hooks.json');
    writeFileSync(hooksFile, readFileSync(hooksFile, 'utf8').replace('Waiting for an answer', 'Waiting for answers'));
    expect(await codexFindings()).toEqual(['codex-hook-untrusted']);
  });

  it('refuses a hooks.json that is not JSON, or Claude Code options with --codex, and changes nothing', async () => {
    const p = project();
    mkdirSync(codexHome(p));
    writeFileSync(join(codexHome(p), 'hooks.json'), '{ not json');
    const broken = await cli(['install', '--codex', '--user'], p);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/hooks\.json: not valid JSON.*nothing was changed/);
    expect(readFileSync(join(codexHome(p), 'hooks.json'), 'utf8')).toBe('{ not json');
    expect(existsSync(join(codexHome(p), 'config.toml'))).toBe(false);
    const mixed = await cli(['install', '--codex', '--hook', 'http'], p);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--hook does not apply');
  });
});
