// `askbridge uninstall`: remove exactly the entries `install` wrote (from this checkout or another)
// and nothing else. Hand-written entries and every other setting stay as they are. With --codex:
// the same for Codex's hooks.json (install-codex.ts).
import { withoutInstalledHooks, countInstalledHooks, writeSettings, type SettingsScope } from '../claude-settings.js';
import { parseTarget, readEditable } from './install.js';
import type { CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<void> {
  const target = parseTarget(io, 'uninstall');
  if (target.codex) {
    const { uninstallCodex } = await import('./install-codex.js');
    return uninstallCodex(io, target);
  }
  const scopes: SettingsScope[] = target.user ? ['user'] : ['local', 'project'];
  // Read (and check) every file before changing any, so a broken file changes nothing.
  const files = scopes.map((scope) => readEditable(scope, target));
  let removed = 0;
  for (const file of files) {
    if (file.state !== 'ok' || countInstalledHooks(file.settings) === 0) continue;
    removed += countInstalledHooks(file.settings);
    await writeSettings(file.path, file.settings, withoutInstalledHooks(file.settings));
    io.stdout(`askbridge hook removed from ${file.path}\n`);
  }
  if (removed === 0) io.stdout(`no askbridge hook installed in ${files.map((file) => file.path).join(' or ')}\n`);
}
