// Codex CLI's hook configuration as askbridge reads and edits it (protocol.md 7): where its
// hooks.json files are, askbridge's PermissionRequest entry in one, and the trust Codex keeps for a
// hook in the user's config.toml. Codex runs a new or changed hook only once it is trusted: it
// stores `[hooks.state."<file>:permission_request:<group>:<handler>"] trusted_hash = "sha256:…"`,
// the hash of the entry as Codex normalises it (codex-rs/hooks discovery and config fingerprint).
// The key is a place, not a hook: when askbridge's entry goes, the state of the person's entries
// after it (their trust, whether they are on) moves up with them, or Codex would ask them to
// review their own hooks again. config.toml is edited as text, one table at a time, every other byte kept; where the trust is
// written in a form this does not recognise, nothing is changed and the caller says what to do.
// Also what `askbridge doctor` says of them, when `codex` is on PATH.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { HOOK_TIMEOUT_SECONDS } from '../hook-timeout.js';
import { HOOK_PATH, isRecord, shellQuote } from '../claude-settings.js';
import { findOnPath } from './find-on-path.js';

/** The event askbridge's entry is for, as hooks.json names it and as Codex's trust keys name it. */
const EVENT = 'PermissionRequest';
const EVENT_KEY = 'permission_request';
/** Codex's timeout when an entry sets none (seconds); it has no maximum. */
const CODEX_DEFAULT_TIMEOUT_SECONDS = 600;

/** Codex's home: CODEX_HOME, else ~/.codex; Codex names its files by the real path, links resolved. */
export function codexHome(env: NodeJS.ProcessEnv, homeDir: string): string {
  return realPathOrAsIs(env.CODEX_HOME || join(homeDir, '.codex'));
}

function realPathOrAsIs(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The hooks.json Codex reads: the user's, or a project's (in its .codex folder). */
export function codexHooksPath(where: { user: true; codexHome: string } | { user: false; projectDir: string }): string {
  return where.user ? join(where.codexHome, 'hooks.json') : join(realPathOrAsIs(where.projectDir), '.codex', 'hooks.json');
}

/** The config.toml where Codex keeps the trust of every hook, project hooks included. */
export function codexConfigPath(home: string): string {
  return join(home, 'config.toml');
}

/** The command Codex runs: this checkout's command hook, by absolute path, answering in Codex's format. */
export function codexHookCommand(hookPath: string = HOOK_PATH): string {
  return `node ${shellQuote(hookPath)} --agent codex`;
}

const CODEX_COMMAND = /^node '\/(?:[^']|'\\'')*\/askbridge-hook\.cjs' --agent codex$/;

/** An entry `install --codex` wrote, from this checkout or another. */
export function isCodexHook(hook: unknown): boolean {
  return isRecord(hook) && hook.type === 'command' && typeof hook.command === 'string' && CODEX_COMMAND.test(hook.command);
}

export type CodexHandler = { type: 'command'; command: string; timeout: number; statusMessage: string };

/** askbridge's PermissionRequest entry: long enough for the wait, saying where to answer while it runs. */
export function codexHandler(statusMessage: string, hookPath?: string): CodexHandler {
  return { type: 'command', command: codexHookCommand(hookPath), timeout: HOOK_TIMEOUT_SECONDS, statusMessage };
}

export type CodexHooksFile = { path: string } & ({ state: 'missing' } | { state: 'invalid'; error: string } | { state: 'ok'; file: Record<string, unknown> });

/** One hooks.json, read without trusting it: a missing file is normal, anything unreadable is said, never thrown. */
export function readCodexHooks(path: string): CodexHooksFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, state: 'missing' };
    return { path, state: 'invalid', error: (error as Error).message };
  }
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch (error) {
    return { path, state: 'invalid', error: `not valid JSON: ${(error as Error).message}` };
  }
  if (!isRecord(file)) return { path, state: 'invalid', error: 'it does not hold a JSON object' };
  if (file.hooks !== undefined && !isRecord(file.hooks)) return { path, state: 'invalid', error: '"hooks" is not an object' };
  const groups = isRecord(file.hooks) ? file.hooks[EVENT] : undefined;
  if (groups !== undefined && (!Array.isArray(groups) || groups.some((group) => !isRecord(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))))) {
    return { path, state: 'invalid', error: `hooks.${EVENT} is not a list of { matcher, hooks: [...] } entries` };
  }
  return { path, state: 'ok', file };
}

type Group = Record<string, unknown> & { hooks?: unknown[] };

function groupsOf(file: Record<string, unknown>): Group[] {
  return isRecord(file.hooks) && Array.isArray(file.hooks[EVENT]) ? (file.hooks[EVENT] as Group[]) : [];
}

/** Where askbridge's entry stands in a hooks.json, as Codex counts (its trust key), with the entry and its group. */
export type CodexEntry = { group: number; handler: number; matcher: string | undefined; hook: Record<string, unknown> };

/** askbridge's entries in a hooks.json, in Codex's order. */
export function findCodexHooks(file: Record<string, unknown>): CodexEntry[] {
  return groupsOf(file).flatMap((group, groupIndex) =>
    (group.hooks ?? []).flatMap((hook, handlerIndex) =>
      isCodexHook(hook) ? [{ group: groupIndex, handler: handlerIndex, matcher: typeof group.matcher === 'string' ? group.matcher : undefined, hook: hook as Record<string, unknown> }] : [],
    ),
  );
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

/**
 * The file with exactly one askbridge entry: the first one found updated where it stands (so the
 * trust keys of the person's own entries do not move), else a group of its own at the end.
 */
export function withCodexHook(file: Record<string, unknown>, handler: CodexHandler): Record<string, unknown> {
  const [first] = findCodexHooks(file);
  const groups = groupsOf(file).flatMap((group, groupIndex) => {
    if (!(group.hooks ?? []).some(isCodexHook)) return [group];
    const hooks = (group.hooks ?? []).flatMap((hook, handlerIndex) => {
      if (!isCodexHook(hook)) return [hook];
      return first && first.group === groupIndex && first.handler === handlerIndex ? [handler] : [];
    });
    return hooks.length === 0 ? [] : [{ ...group, hooks }];
  });
  const hooks = isRecord(file.hooks) ? file.hooks : {};
  return replaceKey(file, 'hooks', replaceKey(hooks, EVENT, first ? groups : [...groups, { hooks: [handler] }]));
}

/** The file without askbridge's entries; a group, the event and `hooks` left empty go too. */
export function withoutCodexHook(file: Record<string, unknown>): Record<string, unknown> {
  if (findCodexHooks(file).length === 0) return file;
  const groups = groupsOf(file).flatMap((group) => {
    if (!(group.hooks ?? []).some(isCodexHook)) return [group];
    const kept = (group.hooks ?? []).filter((hook) => !isCodexHook(hook));
    return kept.length === 0 ? [] : [{ ...group, hooks: kept }];
  });
  const hooks = replaceKey(file.hooks as Record<string, unknown>, EVENT, groups.length > 0 ? groups : undefined);
  return replaceKey(file, 'hooks', Object.keys(hooks).length > 0 ? hooks : undefined);
}

/** Codex's trust key for an entry of a hooks.json: the file, the event, the group's and the handler's places. */
export function codexTrustKey(hooksPath: string, entry: Pick<CodexEntry, 'group' | 'handler'>): string {
  return `${hooksPath}:${EVENT_KEY}:${entry.group}:${entry.handler}`;
}

/** JSON with every object's keys sorted, as Codex canonicalises before hashing. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical(value[key])]),
  );
}

/**
 * The hash Codex trusts an entry by: its normalised identity (the event, the group's matcher, and
 * the one handler with its timeout filled in; what is unset left out), keys sorted, SHA-256.
 * Checked against Codex 0.169.0's own `hooks/list`; a Codex that hashes otherwise asks again at
 * its next start, which is safe.
 */
export function codexTrustHash(entry: Pick<CodexEntry, 'matcher' | 'hook'>): string {
  const { command, timeout, statusMessage } = entry.hook;
  const handler = {
    type: 'command',
    command,
    timeout: Math.max(1, typeof timeout === 'number' ? Math.trunc(timeout) : CODEX_DEFAULT_TIMEOUT_SECONDS),
    async: entry.hook.async === true,
    ...(typeof statusMessage === 'string' ? { statusMessage } : {}),
  };
  const identity = { event_name: EVENT_KEY, ...(entry.matcher === undefined ? {} : { matcher: entry.matcher }), hooks: [handler] };
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical(identity))).digest('hex')}`;
}

/** A TOML table header for a trust key: `[hooks.state."<key>"]`, the key a basic string. */
function stateHeader(key: string): string {
  return `[hooks.state.${tomlString(key)}]`;
}

/** The escapes a TOML basic string has a short form for: each character's, and what each escape reads as. */
const TOML_SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };
const TOML_SHORT_ESCAPES_READ: Record<string, string> = Object.fromEntries(Object.entries(TOML_SHORT_ESCAPES).map(([char, escaped]) => [escaped.slice(1), char]));

/**
 * A TOML basic string: the quotation mark, the backslash and every control character escaped, DEL
 * (U+007F) included, which TOML forbids raw too (JSON does not, so JSON.stringify is not this).
 * The others as `\uXXXX` in capitals: exactly as Codex 0.169.0 writes a key into config.toml itself.
 */
export function tomlString(text: string): string {
  let escaped = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    escaped += TOML_SHORT_ESCAPES[char] ?? (code <= 0x1f || code === 0x7f ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}` : char);
  }
  return `"${escaped}"`;
}

const TABLE_HEADER = /^\s*\[/;
const TRUSTED_HASH = /^\s*trusted_hash\s*=\s*"([^"]*)"\s*(?:#.*)?$/;

const STATE_HEADER = /^\[hooks\.state\.("(?:[^"\\]|\\.)*")\]$/;

/**
 * The key a `[hooks.state."<key>"]` header names, its basic string read as TOML reads it, so that a
 * table is found whichever escapes wrote it (Codex's own, or an older install's lowercase ones).
 */
function headerKey(line: string): string | undefined {
  const quoted = STATE_HEADER.exec(line.trim())?.[1];
  if (quoted === undefined) return undefined;
  let valid = true;
  const key = quoted.slice(1, -1).replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g, (_, four?: string, eight?: string, short?: string) => {
    const code = Number.parseInt(four ?? eight ?? '', 16);
    const read = short === undefined ? (code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : undefined) : TOML_SHORT_ESCAPES_READ[short];
    if (read === undefined) valid = false; // not TOML: never taken for the key
    return read ?? '';
  });
  return valid ? key : undefined;
}

/** The lines of a trust table: from its header to the next header (or the end), or undefined when it is not there. */
function tableAt(lines: string[], key: string): { start: number; end: number } | undefined {
  const start = lines.findIndex((line) => headerKey(line) === key);
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && !TABLE_HEADER.test(lines[end] ?? '')) end += 1;
  return { start, end };
}

/**
 * Whether config.toml names this key anywhere but in its own `[hooks.state."<key>"]` header (an
 * inline table, another quoting), or holds the hooks' state in another form (`state` in `[hooks]`,
 * dotted `hooks.` keys, an inline `hooks`): a table of askbridge's own could clash with it, so
 * nothing is written.
 */
function unsupportedForm(text: string, key: string): boolean {
  let table = '';
  for (const line of text.split('\n')) {
    if (line.includes(key) && headerKey(line) !== key) return true;
    if (TABLE_HEADER.test(line)) table = line.trim();
    else if (/^\s*hooks\s*[.=]/.test(line) || (table === '[hooks]' && /^\s*state\s*[.=]/.test(line))) return true;
  }
  return false;
}

/** The trusted hash config.toml records for a key, or undefined. */
export function trustedHashIn(text: string, key: string): string | undefined {
  const lines = text.split('\n');
  const table = tableAt(lines, key);
  if (!table) return undefined;
  for (const line of lines.slice(table.start + 1, table.end)) {
    const match = TRUSTED_HASH.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/** config.toml's text, '' when there is none. */
export function readCodexConfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * The text with `trusted_hash` recorded for the key (the table's line replaced, added to an existing
 * table, or a table of its own at the end), every other byte kept; 'unsupported' when the file holds
 * the hooks' state in a form this does not edit.
 */
export function withTrust(text: string, key: string, hash: string): string | 'unsupported' {
  if (unsupportedForm(text, key)) return 'unsupported';
  const lines = text.split('\n');
  const table = tableAt(lines, key);
  const line = `trusted_hash = ${tomlString(hash)}`;
  if (!table) return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${text === '' ? '' : '\n'}${stateHeader(key)}\n${line}\n`;
  const at = lines.slice(table.start + 1, table.end).findIndex((current) => TRUSTED_HASH.test(current));
  if (at >= 0) lines[table.start + 1 + at] = line;
  else lines.splice(table.start + 1, 0, line);
  return lines.join('\n');
}

/**
 * The text without the table Codex keeps for a key (a hook's trust and whether it is on): the
 * blank lines after it go with it, or, for the last table, the blank line before it.
 */
function withoutTable(text: string, key: string): string {
  const lines = text.split('\n');
  const table = tableAt(lines, key);
  if (!table) return text;
  if (table.end < lines.length) return [...lines.slice(0, table.start), ...lines.slice(table.end)].join('\n');
  const start = table.start > 0 && lines[table.start - 1]?.trim() === '' ? table.start - 1 : table.start;
  // The final newline stays where it was.
  return [...lines.slice(0, start), ...(text.endsWith('\n') && start > 0 ? [''] : [])].join('\n');
}

/** The text with the table of `from` named `to` instead; one of `to` already there goes (nothing that is there now holds that place). */
function withTableMoved(text: string, from: string, to: string): string {
  const cleared = withoutTable(text, to);
  const lines = cleared.split('\n');
  const table = tableAt(lines, from);
  if (!table) return cleared;
  lines[table.start] = stateHeader(to);
  return lines.join('\n');
}

/** A place in a hooks.json as Codex counts it: the PermissionRequest group's index and the handler's in it. */
type Place = Pick<CodexEntry, 'group' | 'handler'>;

/** The places of the handlers `keep` picks, in Codex's order. */
function placesIn(file: Record<string, unknown>, keep: (hook: unknown) => boolean): Place[] {
  return groupsOf(file).flatMap((group, groupIndex) => (group.hooks ?? []).flatMap((hook, handlerIndex) => (keep(hook) ? [{ group: groupIndex, handler: handlerIndex }] : [])));
}

/**
 * config.toml once askbridge's entries are taken out of a hooks.json (`before`, at `hooksPath`).
 * Codex keeps a hook's state (its trust, whether it is on) under its place, so askbridge's places
 * lose theirs, and each of the person's entries that moves up takes its own along: they run as
 * before, with no review. 'unsupported' when the file holds the hooks' state in a form this does
 * not edit; `removed` counts askbridge's tables taken out, `moved` the person's entries whose state moved.
 */
export function hookStateAfterRemoval(text: string, hooksPath: string, before: Record<string, unknown>): { text: string; removed: number; moved: number } | 'unsupported' {
  const removed = findCodexHooks(before).map((entry) => codexTrustKey(hooksPath, entry));
  const from = placesIn(before, (hook) => !isCodexHook(hook));
  const to = placesIn(withoutCodexHook(before), () => true);
  const moves = from
    .map((place, index) => ({ from: codexTrustKey(hooksPath, place), to: codexTrustKey(hooksPath, to[index] ?? place) }))
    .filter((move) => move.from !== move.to);
  if ([...removed, ...moves.flatMap((move) => [move.from, move.to])].some((key) => unsupportedForm(text, key))) return 'unsupported';
  // In Codex's order: a place an entry moves to was left by askbridge's entry, or by one moved before.
  const cleared = removed.reduce(withoutTable, text);
  const has = (current: string, key: string) => tableAt(current.split('\n'), key) !== undefined;
  return {
    text: moves.reduce((current, move) => withTableMoved(current, move.from, move.to), cleared),
    removed: removed.filter((key) => has(text, key)).length,
    moved: moves.filter((move) => has(cleared, move.from)).length,
  };
}

/** Writes a text file atomically: an existing file keeps its mode and owner; a new one is only its owner's. */
export async function writeTextFile(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, existsSync(path) ? {} : { mode: 0o600 });
}

// ---------------------------------------------------------------------------------------------
// What `askbridge doctor` says of Codex, when `codex` is on PATH

export type CodexFindingId = 'codex-hook-missing' | 'codex-hooks-unreadable' | 'codex-hook-untrusted' | 'codex-hook-path-missing';
/** A finding in doctor's shape (doctor.ts imports this module, so the shape is restated here). */
export type CodexFinding = { id: CodexFindingId; level: 'error' | 'warning' | 'info'; message: string; fix?: string; file?: string };

/** One askbridge entry Codex would read: where, whether Codex trusts it as it is now, and the hook file it runs. */
export type CodexEntryProbe = { path: string; key: string; trusted: boolean; hookPath: string; hookExists: boolean };

export type CodexProbe = {
  /** The user's hooks.json and this project's, each read. */
  files: CodexHooksFile[];
  configPath: string;
  entries: CodexEntryProbe[];
  projectDir: string;
};

/** The hook file an entry runs: the path `codexHookCommand` quoted. */
function hookPathOf(command: string): string {
  return command.slice('node '.length, -' --agent codex'.length).slice(1, -1).replaceAll(`'\\''`, "'");
}

/** What Codex's hooks.json files (the user's and this project's) and its config.toml say of askbridge, when Codex is on PATH. */
export function probeCodex(env: NodeJS.ProcessEnv, homeDir: string, projectDir: string, fileExists: (path: string) => boolean): CodexProbe | undefined {
  if (findOnPath(env, 'codex') === undefined) return undefined;
  const home = codexHome(env, homeDir);
  const configPath = codexConfigPath(home);
  let config = '';
  try {
    config = readCodexConfig(configPath);
  } catch {
    config = ''; // unreadable: nothing counts as trusted
  }
  const files = [codexHooksPath({ user: true, codexHome: home }), codexHooksPath({ user: false, projectDir })].map(readCodexHooks);
  const entries = files.flatMap((file) =>
    file.state !== 'ok'
      ? []
      : findCodexHooks(file.file).map((entry) => {
          const key = codexTrustKey(file.path, entry);
          const hookPath = hookPathOf(String(entry.hook.command));
          return { path: file.path, key, trusted: trustedHashIn(config, key) === codexTrustHash(entry), hookPath, hookExists: fileExists(hookPath) };
        }),
  );
  return { files, configPath, entries, projectDir };
}

/** Codex's checks for `doctor`: no entry is no problem (not everyone uses Codex); an entry Codex will not run, or whose hook is gone, is. */
export function checkCodex(probe: CodexProbe, command: string): { findings: CodexFinding[]; passed: string[] } {
  const findings: CodexFinding[] = [];
  const passed: string[] = [];
  for (const file of probe.files) {
    if (file.state === 'invalid') findings.push({ id: 'codex-hooks-unreadable', level: 'warning', file: file.path, message: `Codex's hooks ${file.path} cannot be read (${file.error}): Codex cannot use them either`, fix: `fix ${file.path}` });
  }
  if (probe.entries.length === 0) {
    const where = probe.files.map((file) => file.path).join(' or ');
    findings.push({ id: 'codex-hook-missing', level: 'info', message: `Codex CLI is installed, but askbridge's hook is not in ${where}: Codex's permission requests are asked in its terminal only`, fix: `${command} install --codex --user` });
    return { findings, passed };
  }
  for (const entry of probe.entries) {
    const scope = entry.path === codexHooksPath({ user: false, projectDir: probe.projectDir }) ? `--project ${shellQuote(probe.projectDir)}` : '--user';
    if (!entry.hookExists) {
      findings.push({ id: 'codex-hook-path-missing', level: 'error', file: entry.path, message: `Codex's askbridge hook in ${entry.path} runs ${entry.hookPath}, which is not there`, fix: `${command} install --codex ${scope}` });
    } else if (!entry.trusted) {
      findings.push({
        id: 'codex-hook-untrusted',
        level: 'warning',
        file: entry.path,
        message: `Codex does not trust askbridge's hook in ${entry.path} as it is now (${probe.configPath} holds no matching trusted_hash for it): Codex asks you to review it at its next start, and until you trust it, it does not run`,
        fix: `${command} install --codex ${scope} (it records the trust), or choose "Review hooks" when Codex starts`,
      });
    } else {
      passed.push(`askbridge's hook for Codex is installed in ${entry.path} and trusted in ${probe.configPath}`);
    }
  }
  return { findings, passed };
}
