// What this machine's wiring hands askbridge: which of Claude Code's hook events reach it, from which
// settings file (the user's, each project's, the askbridge plugin), and where the end of a turn does
// not, with the one command that adds it. The page's Away switch, `askbridge status` and `doctor`
// say this, so that nothing is offered that the wiring cannot deliver. Reads files only: Claude
// Code's settings, and its own list of projects (~/.claude.json), both as untrusted JSON.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isRecord, readSettingsFile, settingsPath, shellQuote, type SettingsFile, type SettingsScope } from './claude-settings.js';
import { ELICITATION_HOOK_PATH, HTTP_HOOK_PATH, NOTIFICATION_HOOK_PATH, PERMISSION_HOOK_PATH, PROMPT_HOOK_PATH, SESSION_END_PATH, STOP_HOOK_PATH } from './http-hook.js';
import type { TurnEndReach } from './protocol.js';

/** The hook events askbridge takes, and where an http entry posts each. */
export const WIRED_EVENTS = {
  PreToolUse: HTTP_HOOK_PATH,
  PermissionRequest: PERMISSION_HOOK_PATH,
  Stop: STOP_HOOK_PATH,
  UserPromptSubmit: PROMPT_HOOK_PATH,
  Notification: NOTIFICATION_HOOK_PATH,
  Elicitation: ELICITATION_HOOK_PATH,
  SessionEnd: SESSION_END_PATH,
} as const;
export type WiredEvent = keyof typeof WIRED_EVENTS;

/** What carries the end of a turn: it is held while the person is away (Stop), let go when they type (UserPromptSubmit), and a session waiting in its terminal shows (Notification). */
export const TURN_END_EVENTS = ['Stop', 'UserPromptSubmit', 'Notification'] as const satisfies readonly WiredEvent[];

/** The command hook's file, as any entry that runs it names it (install's absolute path, the plugin's, the example's). */
const HOOK_SCRIPTS = ['askbridge-hook.cjs', 'askbridge-hook.mjs'];

/** Whether a hook entry hands `event` to askbridge: an http entry posting to its path for the event, or a command running its hook. */
export function handsToAskbridge(event: WiredEvent, hook: unknown): boolean {
  if (!isRecord(hook)) return false;
  if (hook.type === 'command') return typeof hook.command === 'string' && HOOK_SCRIPTS.some((script) => (hook.command as string).includes(script));
  if (hook.type !== 'http' || typeof hook.url !== 'string') return false;
  try {
    return new URL(hook.url).pathname === WIRED_EVENTS[event];
  } catch {
    return false;
  }
}

/** A place askbridge is wired, and the events it hands over there. */
export type WiredPlace = { path: string; scope: SettingsScope | 'plugin'; projectDir: string | undefined; events: WiredEvent[] };

/** The events a settings file hands to askbridge (none: askbridge is not wired there). */
export function eventsIn(file: SettingsFile & { state: 'ok' }): WiredEvent[] {
  const hooks = file.settings.hooks;
  if (!isRecord(hooks)) return [];
  return (Object.keys(WIRED_EVENTS) as WiredEvent[]).filter((event) => {
    const entries = hooks[event];
    return Array.isArray(entries) && entries.some((entry) => isRecord(entry) && Array.isArray(entry.hooks) && entry.hooks.some((hook) => handsToAskbridge(event, hook)));
  });
}

/** Whether a settings file enables the askbridge plugin (its hooks/hooks.json hands over every event). */
function enablesPlugin(file: SettingsFile & { state: 'ok' }): boolean {
  const plugins = file.settings.enabledPlugins;
  return isRecord(plugins) && Object.entries(plugins).some(([name, enabled]) => enabled === true && /^askbridge(@|$)/.test(name));
}

/** The places askbridge is wired among these settings files: each file that hands it an event, and the plugin where one enables it. */
export function placesIn(files: readonly SettingsFile[], projectDirOf: (file: SettingsFile) => string | undefined): WiredPlace[] {
  const places: WiredPlace[] = [];
  for (const file of files) {
    if (file.state !== 'ok') continue;
    const events = eventsIn(file);
    if (events.length > 0) places.push({ path: file.path, scope: file.scope, projectDir: projectDirOf(file), events });
    if (enablesPlugin(file)) places.push({ path: `the askbridge plugin (enabled in ${file.path})`, scope: 'plugin', projectDir: projectDirOf(file), events: Object.keys(WIRED_EVENTS) as WiredEvent[] });
  }
  return places;
}

/**
 * Where the end of a turn reaches askbridge (TurnEndReachSchema): everywhere when the user's own
 * settings or the plugin hand it over, for every session. Each gap names its place and the one
 * command that adds what is missing.
 */
export function turnEndReach(places: readonly WiredPlace[], command: string): TurnEndReach {
  const carries = (place: WiredPlace) => TURN_END_EVENTS.every((event) => place.events.includes(event));
  const userWide = places.filter((place) => place.scope === 'user' || (place.scope === 'plugin' && place.projectDir === undefined));
  if (userWide.some(carries)) return { reach: 'everywhere', gaps: [] };
  const installFor = (place: WiredPlace) => (place.scope === 'user' || place.projectDir === undefined ? `${command} install --user` : `${command} install --project ${shellQuote(place.projectDir)}`);
  const gaps = places.filter((place) => !carries(place)).map((place) => ({ path: place.path, missing: TURN_END_EVENTS.filter((event) => !place.events.includes(event)), fix: installFor(place) }));
  // Every place that wires askbridge carries it: it reaches wherever askbridge is wired.
  if (places.length > 0 && gaps.length === 0) return { reach: 'everywhere', gaps };
  if (places.some(carries)) return { reach: 'partly', gaps };
  return { reach: 'nowhere', gaps, fix: `${command} install --user` };
}

/** Claude Code's own file of the projects it has run in (`projects`, keyed by folder). */
function claudeStateFile(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : join(env.HOME || homedir(), '.claude.json');
}

/** At most this many projects are looked at: a machine with more has its newest first in that file, and its user settings decide anyway. */
const MAX_PROJECTS = 500;

/** The folders Claude Code has run in, as it lists them; nothing when the file is missing or not what it should be. */
function knownProjects(env: NodeJS.ProcessEnv): string[] {
  try {
    const state: unknown = JSON.parse(readFileSync(claudeStateFile(env), 'utf8'));
    const projects = isRecord(state) ? state.projects : undefined;
    return isRecord(projects) ? Object.keys(projects).slice(0, MAX_PROJECTS) : [];
  } catch {
    return [];
  }
}

/**
 * Every place askbridge is wired on this machine: the user's settings, and the project and local
 * settings of each project Claude Code knows and of `seen` (folders of sessions that asked here).
 */
export function readWiring(env: NodeJS.ProcessEnv, seen: readonly string[] = []): WiredPlace[] {
  const home = env.HOME || homedir();
  const files: Array<{ file: SettingsFile; projectDir: string | undefined }> = [{ file: readSettingsFile('user', settingsPath('user', '', home)), projectDir: undefined }];
  const projects = new Set([...knownProjects(env), ...seen].filter((dir) => dir !== '').map((dir) => resolve(dir)));
  for (const projectDir of projects) {
    if (!isFolder(projectDir) || projectDir === resolve(home)) continue;
    for (const scope of ['project', 'local'] as const) {
      const path = settingsPath(scope, projectDir, home);
      if (existsSync(path)) files.push({ file: readSettingsFile(scope, path), projectDir });
    }
  }
  const projectOf = new Map(files.map(({ file, projectDir }) => [file.path, projectDir]));
  return placesIn(
    files.map(({ file }) => file),
    (file) => projectOf.get(file.path),
  );
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
