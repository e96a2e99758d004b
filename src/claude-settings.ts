// Claude Code's settings files as askbridge reads and edits them: where they are, how to read one
// without trusting it, what askbridge's own hook entry looks like, and how to write a file back
// without damaging it (same mode and owner, atomic, everything else kept as it was).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import writeFileAtomic from 'write-file-atomic';
import { CLI_PATH } from './command-name.js';
import { ownFolders } from './package-root.js';
import {
  ELICITATION_HOOK_PATH,
  HOOK_KEY_HEADER,
  HTTP_HOOK_ENV,
  HTTP_HOOK_PATH,
  MACHINE_HEADER,
  PERSON_HEADER,
  NOTIFICATION_HOOK_PATH,
  PERMISSION_HOOK_PATH,
  PROMPT_HOOK_PATH,
  SESSION_END_PATH,
  STOP_CAP_ENV,
  STOP_CAP_HEADER,
  STOP_HOOK_PATH,
  envHeader,
} from './http-hook.js';
import { HOOK_TIMEOUT_SECONDS } from './hook-timeout.js';

export const HOOK_PATH = fileURLToPath(new URL('hooks/askbridge-hook.cjs', ownFolders(import.meta.url).packageRoot));
/**
 * What Claude Code shows while a question waits: where to answer it, the page's address (the public
 * URL when there is one) and, on the daemon's own machine, the command.
 */
export function waitingMessage(where: { page?: string | undefined; command?: string | undefined }): string {
  const places = [where.page, where.command === undefined ? undefined : `\`${where.command} answer\``].filter((place) => place !== undefined);
  return places.length === 0 ? 'Waiting for an answer in askbridge' : `Waiting for an answer in askbridge: ${places.join(' or ')}`;
}
/** What Claude Code shows while its Stop hook runs: at the end of every turn for a moment, and while the person is away until they reply. */
export const STOP_STATUS_MESSAGE = 'Waiting for your reply in askbridge, if you are away';
/** The SessionStart hook only looks for the daemon, or starts it: seconds at most. */
const SESSION_START_TIMEOUT_SECONDS = 30;
/** The UserPromptSubmit and Notification hooks are answered at once: a stalled request must not hold up a prompt. */
const QUICK_HOOK_TIMEOUT_SECONDS = 10;

/** How Claude Code hands askbridge a question: a POST of its own (2.1.63 and later), or the command hook. */
export const HOOK_TRANSPORTS = ['http', 'command'] as const;
export type HookTransport = (typeof HOOK_TRANSPORTS)[number];

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

/** The command hook's command: this checkout's hook, by absolute path (so only into files that stay on this machine). */
export function installedHookCommand(hookPath: string = HOOK_PATH): string {
  return `node ${shellQuote(hookPath)}`;
}

/** The AskUserQuestion hook `install` writes: Claude Code's own POST with the hook key, or the command hook. */
export type AskHook =
  | {
      transport: 'http';
      url: string;
      key: string;
      /** Names this machine to a daemon elsewhere. */
      machine?: string;
      /** Names whose sessions these are (remote-hook --person), for the daemon's routes. */
      person?: string;
    }
  | { transport: 'command'; hookPath?: string };

type HttpAskHook = Extract<AskHook, { transport: 'http' }>;

export function askHookEntry(hook: AskHook, statusMessage: string): Record<string, unknown> {
  const common = { timeout: HOOK_TIMEOUT_SECONDS, statusMessage };
  if (hook.transport === 'command') return { type: 'command', command: installedHookCommand(hook.hookPath), ...common };
  return httpEntry(hook, hook.url, common);
}

/**
 * An http entry posting to `url` on the AskUserQuestion hook's daemon, with its hook key (and
 * machine) and the environment every hook forwards, each in a header that Claude Code fills from
 * its own environment. The URL is the daemon's address and a path, nothing more: Claude Code shows
 * the model a Stop hook's URL (protocol.md 8), so nothing secret may go in it.
 */
function httpEntry(hook: HttpAskHook, url: string, options: { timeout: number; statusMessage?: string }): Record<string, unknown> & { headers: Record<string, string>; allowedEnvVars: string[] } {
  const forwarded = Object.fromEntries(HTTP_HOOK_ENV.map((name) => [envHeader(name), `$${name}`]));
  return { type: 'http', url, headers: { [HOOK_KEY_HEADER]: hook.key, ...namingHeaders(hook), ...forwarded }, allowedEnvVars: [...HTTP_HOOK_ENV], ...options };
}

/**
 * The PermissionRequest entry for the same transport as the AskUserQuestion hook: an http POST to
 * the daemon's permission path with the same key (and machine) and the same timeout, or the same
 * command hook. Claude Code's own dialog is on screen while it waits, so no status message.
 */
export function permissionEntry(hook: AskHook): Record<string, unknown> {
  const entry = askHookEntry(hook, '');
  delete entry.statusMessage;
  return hook.transport === 'command' ? entry : { ...entry, url: new URL(PERMISSION_HOOK_PATH, hook.url).href };
}

/**
 * The SessionEnd entry for the same transport as the AskUserQuestion hook: an http POST to the same
 * daemon with the same key (and machine), or the same command hook, which tells the daemon itself.
 * Either way the daemon withdraws the session's waiting questions.
 */
export function sessionEndEntry(hook: AskHook): Record<string, unknown> {
  if (hook.transport === 'command') return { type: 'command', command: installedHookCommand(hook.hookPath) };
  return { type: 'http', url: new URL(SESSION_END_PATH, hook.url).href, headers: { [HOOK_KEY_HEADER]: hook.key, ...namingHeaders(hook) } };
}

/** The headers that name the machine and whose sessions they are, as the remote hook was installed. */
function namingHeaders(hook: HttpAskHook): Record<string, string> {
  return { ...(hook.machine ? { [MACHINE_HEADER]: hook.machine } : {}), ...(hook.person ? { [PERSON_HEADER]: hook.person } : {}) };
}

/**
 * The Stop entry, by the same transport as the question hook: the daemon answers it at once unless
 * the person is away (the command hook reads that itself and leaves without asking), then the end
 * of the turn waits for their reply. Its timeout is the question hook's, which the daemon never
 * holds past (awaySeconds is bounded below it); the http entry forwards Claude Code's limit on
 * replies in a row (empty when unset), which the command hook reads from its own environment.
 */
export function stopEntry(hook: AskHook): Record<string, unknown> {
  const options = { timeout: HOOK_TIMEOUT_SECONDS, statusMessage: STOP_STATUS_MESSAGE };
  if (hook.transport === 'command') return { type: 'command', command: installedHookCommand(hook.hookPath), ...options };
  const entry = httpEntry(hook, new URL(STOP_HOOK_PATH, hook.url).href, options);
  return { ...entry, headers: { ...entry.headers, [STOP_CAP_HEADER]: `$${STOP_CAP_ENV}` }, allowedEnvVars: [...entry.allowedEnvVars, STOP_CAP_ENV] };
}

/** The UserPromptSubmit entry: the person typed in the terminal, so that session's turn end waits no more. Answered at once. */
export function promptEntry(hook: AskHook): Record<string, unknown> {
  if (hook.transport === 'command') return { type: 'command', command: installedHookCommand(hook.hookPath), timeout: QUICK_HOOK_TIMEOUT_SECONDS };
  return httpEntry(hook, new URL(PROMPT_HOOK_PATH, hook.url).href, { timeout: QUICK_HOOK_TIMEOUT_SECONDS });
}

/** The Notification entry, for every kind: the session waits on the person in its terminal. Answered at once. */
export function notificationEntry(hook: AskHook): Record<string, unknown> {
  if (hook.transport === 'command') return { type: 'command', command: installedHookCommand(hook.hookPath), timeout: QUICK_HOOK_TIMEOUT_SECONDS };
  return httpEntry(hook, new URL(NOTIFICATION_HOOK_PATH, hook.url).href, { timeout: QUICK_HOOK_TIMEOUT_SECONDS });
}

/**
 * The Elicitation entry, by the same transport as the question hook and with its timeout: an MCP
 * server's form or link waits in askbridge like a question (Claude Code shows no dialog meanwhile),
 * or goes back to Claude Code's own dialog at once when nobody could answer it there.
 */
export function elicitationEntry(hook: AskHook, statusMessage: string): Record<string, unknown> {
  const entry = askHookEntry(hook, statusMessage);
  return hook.transport === 'command' ? entry : { ...entry, url: new URL(ELICITATION_HOOK_PATH, hook.url).href };
}

/** The SessionStart command: start the daemon in the background unless it runs, print nothing, never fail the session. */
export function sessionStartCommand(port: number | undefined, cliPath: string = CLI_PATH): string {
  return `node ${shellQuote(cliPath)} start --background --quiet${port === undefined ? '' : ` --port ${port}`}`;
}

const QUOTED_ABSOLUTE_PATH = String.raw`'\/(?:[^']|'\\'')*`;
const COMMAND_HOOK = new RegExp(String.raw`^node ${QUOTED_ABSOLUTE_PATH}\/askbridge-hook\.(?:mjs|cjs)'$`);
const SESSION_START = new RegExp(String.raw`^node ${QUOTED_ABSOLUTE_PATH}\/askbridge\.mjs' start --background --quiet(?: --port \d+)?$`);

/**
 * An AskUserQuestion entry `install` wrote, from this checkout or another: the command hook by
 * absolute path (`.mjs` is what older versions wrote), or an http entry that posts to
 * askbridge's path with a hook key. Entries written by hand (`$CLAUDE_PROJECT_DIR/...`,
 * `${CLAUDE_PLUGIN_ROOT}/...`) are the user's: never touched.
 */
export function isInstalledHook(hook: unknown): boolean {
  if (!isRecord(hook)) return false;
  if (hook.type === 'command') return typeof hook.command === 'string' && COMMAND_HOOK.test(hook.command);
  if (hook.type !== 'http' || typeof hook.url !== 'string' || !isRecord(hook.headers)) return false;
  return hook.url.endsWith(HTTP_HOOK_PATH) && typeof hook.headers[HOOK_KEY_HEADER] === 'string';
}

/** The events of the turn-end entries, and where an http one posts. */
export const TURN_END_HOOKS = { Stop: STOP_HOOK_PATH, UserPromptSubmit: PROMPT_HOOK_PATH, Notification: NOTIFICATION_HOOK_PATH } as const;
export type TurnEndEvent = keyof typeof TURN_END_HOOKS;

/** A PermissionRequest entry `install` wrote: the command hook by absolute path, or an http entry posting to askbridge's permission path with a hook key. */
export function isInstalledPermissionHook(hook: unknown): boolean {
  if (!isRecord(hook)) return false;
  if (hook.type === 'command') return typeof hook.command === 'string' && COMMAND_HOOK.test(hook.command);
  return hook.type === 'http' && typeof hook.url === 'string' && hook.url.endsWith(PERMISSION_HOOK_PATH) && isRecord(hook.headers) && typeof hook.headers[HOOK_KEY_HEADER] === 'string';
}

/** A SessionStart entry `install` wrote: `node '<absolute path>/askbridge.mjs' start --background --quiet`. */
function isInstalledSessionStart(hook: unknown): boolean {
  return isRecord(hook) && hook.type === 'command' && typeof hook.command === 'string' && SESSION_START.test(hook.command);
}

/** A SessionEnd entry `install` wrote: the command hook by absolute path, or an http entry posting to askbridge's session-end path with a hook key. */
export function isInstalledSessionEnd(hook: unknown): boolean {
  if (!isRecord(hook)) return false;
  if (hook.type === 'command') return typeof hook.command === 'string' && COMMAND_HOOK.test(hook.command);
  return hook.type === 'http' && typeof hook.url === 'string' && hook.url.endsWith(SESSION_END_PATH) && isRecord(hook.headers) && typeof hook.headers[HOOK_KEY_HEADER] === 'string';
}

/** A turn-end or Elicitation entry `install` wrote: the command hook by absolute path, or an http entry posting to askbridge's `path` with a hook key; a hook of the user's own on the same event is not. */
function isInstalledTurnEndHook(path: string): (hook: unknown) => boolean {
  return (hook) => {
    if (!isRecord(hook)) return false;
    if (hook.type === 'command') return typeof hook.command === 'string' && COMMAND_HOOK.test(hook.command);
    return hook.type === 'http' && typeof hook.url === 'string' && hook.url.endsWith(path) && isRecord(hook.headers) && typeof hook.headers[HOOK_KEY_HEADER] === 'string';
  };
}

/** The hook events `install` writes to, and how it knows its own entries in each. */
const INSTALLED: Record<'PreToolUse' | 'PermissionRequest' | 'Elicitation' | 'SessionStart' | 'SessionEnd' | TurnEndEvent, (hook: unknown) => boolean> = {
  PreToolUse: isInstalledHook,
  Elicitation: isInstalledTurnEndHook(ELICITATION_HOOK_PATH),
  PermissionRequest: isInstalledPermissionHook,
  SessionStart: isInstalledSessionStart,
  SessionEnd: isInstalledSessionEnd,
  Stop: isInstalledTurnEndHook(STOP_HOOK_PATH),
  UserPromptSubmit: isInstalledTurnEndHook(PROMPT_HOOK_PATH),
  Notification: isInstalledTurnEndHook(NOTIFICATION_HOOK_PATH),
};
type HookEvent = keyof typeof INSTALLED;
const EVENTS = Object.keys(INSTALLED) as HookEvent[];

type MatcherEntry = Record<string, unknown> & { hooks?: unknown[] };

/** Refuses a hooks entry of an event `install` writes to (PreToolUse, Stop, ...) that is not a list of `{ matcher, hooks: [...] }`: editing it could lose something. */
export function checkEditable(file: SettingsFile & { state: 'ok' }): string | undefined {
  const hooks = file.settings.hooks;
  if (hooks === undefined) return undefined;
  if (!isRecord(hooks)) return `${file.path}: "hooks" is not an object; fix it first, nothing was changed`;
  for (const event of EVENTS) {
    const entries = hooks[event];
    if (entries === undefined) continue;
    if (!Array.isArray(entries) || entries.some((entry) => !isRecord(entry) || (entry.hooks !== undefined && !Array.isArray(entry.hooks)))) {
      return `${file.path}: hooks.${event} is not a list of { matcher, hooks: [...] } entries; fix it first, nothing was changed`;
    }
  }
  return undefined;
}

function entriesOf(settings: Record<string, unknown>, event: HookEvent): MatcherEntry[] {
  const hooks = settings.hooks;
  return isRecord(hooks) && Array.isArray(hooks[event]) ? (hooks[event] as MatcherEntry[]) : [];
}

/** The entries `install` wrote in these settings, every event together. */
function installedHooks(settings: Record<string, unknown>): Array<{ event: HookEvent; hook: Record<string, unknown> }> {
  return EVENTS.flatMap((event) =>
    entriesOf(settings, event).flatMap((entry) => (entry.hooks ?? []).filter(INSTALLED[event]).map((hook) => ({ event, hook: hook as Record<string, unknown> }))),
  );
}

/** How many entries `install` wrote are in these settings. */
export function countInstalledHooks(settings: Record<string, unknown>): number {
  return installedHooks(settings).length;
}

/**
 * The settings without any entry `install` wrote. A matcher group left empty goes too, then an
 * empty event list and an empty hooks object, so that install followed by uninstall gives back
 * the file as it was. Everything else, order included, stays as it is.
 */
export function withoutInstalledHooks(settings: Record<string, unknown>): Record<string, unknown> {
  if (countInstalledHooks(settings) === 0) return settings;
  let hooks = settings.hooks as Record<string, unknown>;
  for (const event of EVENTS) {
    const isOurs = INSTALLED[event];
    if (!entriesOf(settings, event).some((entry) => (entry.hooks ?? []).some(isOurs))) continue;
    const entries = entriesOf(settings, event).flatMap((entry) => {
      if (!(entry.hooks ?? []).some(isOurs)) return [entry];
      const kept = (entry.hooks ?? []).filter((hook) => !isOurs(hook));
      return kept.length === 0 ? [] : [{ ...entry, hooks: kept }];
    });
    hooks = replaceKey(hooks, event, entries.length > 0 ? entries : undefined);
  }
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

/**
 * The settings with exactly one askbridge entry for AskUserQuestion, one for Elicitation (an MCP
 * server's form or link waits like a question), one for SessionEnd (which
 * withdraws the questions of a session that ended), unless `approvals` is false one for
 * PermissionRequest (every tool: Claude Code's permissions and plans wait in the inbox too),
 * unless `turnEnds` is false one each for Stop, UserPromptSubmit and Notification (while the person
 * is away the end of a turn waits for their reply; waits in the terminal show on the page), all by
 * the same transport, and, when given, one for SessionStart (which makes sure the daemon runs here;
 * a hook that asks a daemon on another machine has none), and nothing else of askbridge's.
 */
export function withInstalledHooks(
  settings: Record<string, unknown>,
  install: { ask: AskHook; approvals: boolean; turnEnds?: boolean | undefined; sessionStart?: string | undefined; statusMessage: string },
): Record<string, unknown> {
  const without = withoutInstalledHooks(settings);
  const turnEnds = install.turnEnds !== false ? install.ask : undefined;
  const added: Record<HookEvent, MatcherEntry | undefined> = {
    PreToolUse: { matcher: 'AskUserQuestion', hooks: [askHookEntry(install.ask, install.statusMessage)] },
    Elicitation: { hooks: [elicitationEntry(install.ask, install.statusMessage)] },
    PermissionRequest: install.approvals ? { hooks: [permissionEntry(install.ask)] } : undefined,
    SessionStart: install.sessionStart === undefined ? undefined : { hooks: [{ type: 'command', command: install.sessionStart, timeout: SESSION_START_TIMEOUT_SECONDS }] },
    SessionEnd: { hooks: [sessionEndEntry(install.ask)] },
    Stop: turnEnds ? { hooks: [stopEntry(turnEnds)] } : undefined,
    UserPromptSubmit: turnEnds ? { hooks: [promptEntry(turnEnds)] } : undefined,
    Notification: turnEnds ? { hooks: [notificationEntry(turnEnds)] } : undefined,
  };
  // Only these events change, in place, so a second install writes nothing.
  let hooks = isRecord(settings.hooks) ? settings.hooks : {};
  for (const event of EVENTS) {
    const entry = added[event];
    const kept = entriesOf(without, event);
    hooks = replaceKey(hooks, event, entry ? [...kept, entry] : kept.length > 0 ? kept : undefined);
  }
  return replaceKey(settings, 'hooks', hooks);
}

/**
 * Write settings back: atomically, with the file's own mode and owner kept (a committed 0644 file
 * stays 0644), and not at all when nothing changed. A new file gets newFileMode, else the usual 0644 under the umask.
 */
export async function writeSettings(path: string, before: Record<string, unknown> | undefined, after: Record<string, unknown>, options: { newFileMode?: number } = {}): Promise<boolean> {
  if (before !== undefined && JSON.stringify(before) === JSON.stringify(after)) return false;
  const mode = before === undefined ? options.newFileMode : undefined;
  await writeFileAtomic(path, `${JSON.stringify(after, null, 2)}\n`, mode === undefined ? {} : { mode });
  return true;
}
