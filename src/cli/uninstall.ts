// `askbridge uninstall`: remove exactly the entries `install` wrote (from this checkout or another)
// and nothing else. Hand-written entries and every other setting stay as they are. With --codex:
// the same for Codex's hooks.json (install-codex.ts). Neither edits a project's file through a
// symbolic link its repository may commit.
import { withoutInstalledHooks, countInstalledHooks, writeSettings, type SettingsScope } from '../claude-settings.js';
import { parseTarget, readEditable } from './install.js';
import { CliError, type CommandIo } from './command.js';
import { symbolicLinkOnTheWay } from './symbolic-link.js';

export async function run(io: CommandIo): Promise<void> {
  const target = parseTarget(io, 'uninstall');
  if (target.codex) {
    const { uninstallCodex } = await import('./install-codex.js');
    return uninstallCodex(io, target);
  }
  const scopes: SettingsScope[] = target.user ? ['user'] : ['local', 'project'];
  // Read (and check) every file before changing any, so a broken file changes nothing.
  const files = scopes.map((scope) => readEditable(scope, target));
  // As install refuses it: a link a repository commits would take the edit into a file elsewhere.
  for (const file of target.user ? [] : files) {
    const link = file.state === 'ok' && countInstalledHooks(file.settings) > 0 ? symbolicLinkOnTheWay(file.path) : undefined;
    if (link) throw new CliError(`${file.path}: ${link.path} is a symbolic link to ${link.to}, so uninstall would edit the file there; nothing was changed (take askbridge's entries out of ${file.path} by hand if they are yours)`);
  }
  let removed = 0;
  for (const file of files) {
    if (file.state !== 'ok' || countInstalledHooks(file.settings) === 0) continue;
    removed += countInstalledHooks(file.settings);
    await writeSettings(file.path, file.settings, withoutInstalledHooks(file.settings));
    io.stdout(`askbridge hook removed from ${file.path}\n`);
  }
  if (removed === 0) io.stdout(`no askbridge hook installed in ${files.map((file) => file.path).join(' or ')}\n`);
}
