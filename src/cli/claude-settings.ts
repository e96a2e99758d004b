// Claude Code's settings files as askbridge reads and edits them: where they are, how to read one
// without trusting it, what askbridge's own hook entry looks like, and how to write a file back
// without damaging it (same mode and owner, atomic, everything else kept as it was).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import writeFileAtomic from 'write-file-atomic';

export const HOOK_PATH = fileURLToPath(new URL('../../hooks/askbridge-hook.mjs', import.meta.url));
export const HOOK_TIMEOUT_SECONDS = 3600;
export const HOOK_STATUS_MESSAGE = 'Waiting for an answer in askbridge';

/** user: ~/.claude/settings.json; project: the committed .claude/settings.json; local: .claude/settings.local.json (git-ignored). */
export type SettingsScope = 'user' | 'project' | 'local';
export type SettingsFile = { scope: SettingsScope; path: string } & (
  | { state: 'missing' }
  | { state: 'invalid'; error: string }
  | { state: 'ok'; settings: Record<string, unknown> }
);

export function settingsPath(scope: SettingsScope, projectDir: string, homeDir: string): string {
  if (scope === 'user') return join(homeDir, '.claude', 'settings.json');
  return join(projectDir, '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Read one settings file; a missing file is normal, anything else unreadable is reported, never thrown. */
export function readSettingsFile(scope: SettingsScope, path: string): SettingsFile {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { scope, path, state: 'missing' };
    return { scope, path, state: 'invalid', error: (error as Error).message };
  }
  let settings: unknown;
  try {
    settings = JSON.parse(raw);
  } catch (error) {
    return { scope, path, state: 'invalid', error: `not valid JSON: ${(error as Error).message}` };
  }
  if (!isRecord(settings)) return { scope, path, state: 'invalid', error: 'it does not hold a JSON object' };
  return { scope, path, state: 'ok', settings };
}

export function shellQuote(path: string): string {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

/** The command `install` writes: this checkout's hook, by absolute path (so only into files that stay on this machine). */
export function installedHookCommand(hookPath: string = HOOK_PATH): string {
  return `node ${shellQuote(hookPath)}`;
}

/**
 * An entry `install` wrote: `node '<absolute path>/askbridge-hook.mjs'`, from this checkout or another.
 * Entries written by hand (`$CLAUDE_PROJECT_DIR/...`, `${CLAUDE_PLUGIN_ROOT}/...`) are the user's: never touched.
 */
export function isInstalledHook(hook: unknown): boolean {
  return isRecord(hook) && hook.type === 'command' && typeof hook.command === 'string' && /^node '\/(?:[^']|'\\'')*\/askbridge-hook\.mjs'$/.test(hook.command);
}

type MatcherEntry = Record<string, unknown> & { hooks?: unknown[] };

/** Refuses a hooks.PreToolUse that is not a list of `{ matcher, hooks: [...] }`: editing it could lose something. */
export function checkEditable(file: SettingsFile & { state: 'ok' }): string | undefined {
  const hooks = file.settings.hooks;
  if (hooks === undefined) return undefined;
  if (!isRecord(hooks)) return `${file.path}: "hooks" is not an object; fix it first, nothing was changed`;
  const entries = hooks.PreToolUse;
  if (entries === undefined) return undefined;
  if (!Array.isArray(entries) || entries.some((entry) => !isRecord(entry) || (entry.hooks !== undefined && !Array.isArray(entry.hooks)))) {
    return `${file.path}: hooks.PreToolUse is not a list of { matcher, hooks: [...] } entries; fix it first, nothing was changed`;
  }
  return undefined;
}

function preToolUse(settings: Record<string, unknown>): MatcherEntry[] {
  const hooks = settings.hooks;
  return isRecord(hooks) && Array.isArray(hooks.PreToolUse) ? (hooks.PreToolUse as MatcherEntry[]) : [];
}

/** How many entries `install` wrote are in these settings. */
export function countInstalledHooks(settings: Record<string, unknown>): number {
  return preToolUse(settings).reduce((count, entry) => count + (entry.hooks ?? []).filter(isInstalledHook).length, 0);
}

/**
 * The settings without any entry `install` wrote. A matcher group left empty goes too, then an
 * empty PreToolUse list and an empty hooks object, so that install followed by uninstall gives back
 * the file as it was. Everything else, order included, stays as it is.
 */
export function withoutInstalledHooks(settings: Record<string, unknown>): Record<string, unknown> {
  if (countInstalledHooks(settings) === 0) return settings;
  const entries = preToolUse(settings).flatMap((entry) => {
    if (!(entry.hooks ?? []).some(isInstalledHook)) return [entry];
    const hooks = (entry.hooks ?? []).filter((hook) => !isInstalledHook(hook));
    return hooks.length === 0 ? [] : [{ ...entry, hooks }];
  });
  const hooks = replaceKey(settings.hooks as Record<string, unknown>, 'PreToolUse', entries.length > 0 ? entries : undefined);
  return replaceKey(settings, 'hooks', Object.keys(hooks).length > 0 ? hooks : undefined);
}

/** A copy with one key's value replaced where it stands (undefined: removed), so key order is kept. */
function replaceKey(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, current] of Object.entries(object)) {
    if (name !== key) copy[name] = current;
    else if (value !== undefined) copy[name] = value;
  }
  if (!(key in object) && value !== undefined) copy[key] = value;
  return copy;
}

/** The settings with exactly one askbridge entry for AskUserQuestion, this checkout's. */
export function withInstalledHook(settings: Record<string, unknown>, hookPath: string = HOOK_PATH): Record<string, unknown> {
  const hook = { type: 'command', command: installedHookCommand(hookPath), timeout: HOOK_TIMEOUT_SECONDS, statusMessage: HOOK_STATUS_MESSAGE };
  const entries = [...preToolUse(withoutInstalledHooks(settings)), { matcher: 'AskUserQuestion', hooks: [hook] }];
  // Only PreToolUse changes, in place, so a second install writes nothing.
  const hooks = replaceKey(isRecord(settings.hooks) ? settings.hooks : {}, 'PreToolUse', entries);
  return replaceKey(settings, 'hooks', hooks);
}

/**
 * Write settings back: atomically, with the file's own mode and owner kept (a committed 0644 file
 * stays 0644), and not at all when nothing changed. A new file gets the usual 0644 under the umask.
 */
export async function writeSettings(path: string, before: Record<string, unknown> | undefined, after: Record<string, unknown>): Promise<boolean> {
  if (before !== undefined && JSON.stringify(before) === JSON.stringify(after)) return false;
  await writeFileAtomic(path, `${JSON.stringify(after, null, 2)}\n`);
  return true;
}
