// `askbridge install`: add askbridge's hook for AskUserQuestion to Claude Code's settings, keeping
// everything else in the file as it is. The entry names this checkout's hook by absolute path, so
// it goes only where nothing gets committed: a project's `.claude/settings.local.json` (made sure to
// be ignored by git) or the user's own settings. Running it twice changes nothing the second time.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkEditable, countInstalledHooks, readSettingsFile, settingsPath, withInstalledHook, withoutInstalledHooks, writeSettings, type SettingsFile, type SettingsScope } from './claude-settings.js';
import { CliError, type CommandIo } from './command.js';

export type Target = { projectDir: string; homeDir: string; user: boolean };

export function parseTarget(io: CommandIo, command: string): Target {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { project: { type: 'string' }, user: { type: 'boolean', default: false } } });
  if (values.user && values.project !== undefined) throw new CliError(`choose --user or --project, not both (askbridge ${command} --help)`, 2);
  return { projectDir: resolve(values.project ?? process.cwd()), homeDir: io.env.HOME || homedir(), user: values.user };
}

/** A settings file that can be edited safely, or a CliError saying why not (nothing is changed then). */
export function readEditable(scope: SettingsScope, target: Target): SettingsFile & { state: 'ok' | 'missing' } {
  const file = readSettingsFile(scope, settingsPath(scope, target.projectDir, target.homeDir));
  if (file.state === 'invalid') throw new CliError(`${file.path}: ${file.error}; fix it first, nothing was changed`);
  if (file.state === 'ok') {
    const problem = checkEditable(file);
    if (problem) throw new CliError(problem);
  }
  return file;
}

export async function run(io: CommandIo): Promise<void> {
  const target = parseTarget(io, 'install');
  const destination = readEditable(target.user ? 'user' : 'local', target);
  // An older install wrote this machine's path into the committed file: move it out of there.
  const committed = target.user ? undefined : readEditable('project', target);

  const before = destination.state === 'ok' ? destination.settings : undefined;
  mkdirSync(dirname(destination.path), { recursive: true });
  const changed = await writeSettings(destination.path, before, withInstalledHook(before ?? {}));
  io.stdout(changed ? `askbridge hook installed in ${destination.path}\n` : `askbridge hook already installed in ${destination.path}\n`);

  if (committed?.state === 'ok' && countInstalledHooks(committed.settings) > 0) {
    await writeSettings(committed.path, committed.settings, withoutInstalledHooks(committed.settings));
    io.stdout(`moved askbridge's machine-specific entry out of ${committed.path}, which is shared through git\n`);
  }
  if (!target.user) ensureIgnoredByGit(target.projectDir, destination.path, io);
  if (changed) io.stderr('Claude Code reads hooks when a session starts: restart running `claude` sessions to pick it up.\n');
}

/** settings.local.json must never be committed; in a git work tree where nothing ignores it, .git/info/exclude does. */
function ensureIgnoredByGit(projectDir: string, file: string, io: CommandIo): void {
  const git = (...args: string[]) => execFileSync('git', ['-C', projectDir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    git('rev-parse', '--is-inside-work-tree');
  } catch {
    return; // not a git work tree (or no git): nothing can commit it
  }
  const path = relative(projectDir, file);
  try {
    git('check-ignore', '-q', path);
    return; // already ignored
  } catch {
    // exit 1: not ignored
  }
  const exclude = resolve(projectDir, git('rev-parse', '--git-path', 'info/exclude').trim());
  mkdirSync(dirname(exclude), { recursive: true });
  let current = '';
  try {
    current = readFileSync(exclude, 'utf8');
  } catch {
    // a new exclude file
  }
  appendFileSync(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}/${path}\n`);
  io.stdout(`${path} is now ignored by git (in ${exclude})\n`);
}
