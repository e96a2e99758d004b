// `askbridge install`: add (or update) askbridge's PreToolUse hook in Claude Code settings, keeping
// everything else in the file as it is. Running it twice changes nothing the second time.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '../state-dir.js';
import { CliError } from './client.js';
import type { CommandIo } from './main.js';

export const HOOK_PATH = fileURLToPath(new URL('../../hooks/askbridge-hook.mjs', import.meta.url));
export const HOOK_TIMEOUT_SECONDS = 3600;
export const HOOK_STATUS_MESSAGE = 'Waiting for an answer in askbridge';

type HookCommand = { type: string; command?: string; [key: string]: unknown };
type MatcherEntry = { matcher?: string; hooks?: HookCommand[]; [key: string]: unknown };
type Settings = { hooks?: { PreToolUse?: MatcherEntry[]; [event: string]: unknown }; [key: string]: unknown };

export function shellQuote(path: string): string {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

/** The settings with exactly one askbridge hook entry for AskUserQuestion. */
export function withAskbridgeHook(settings: Settings, hookPath: string): Settings {
  const hook: HookCommand = { type: 'command', command: `node ${shellQuote(hookPath)}`, timeout: HOOK_TIMEOUT_SECONDS, statusMessage: HOOK_STATUS_MESSAGE };
  const isOurs = (command: HookCommand) => typeof command.command === 'string' && command.command.includes('askbridge-hook.mjs');
  const entries = (settings.hooks?.PreToolUse ?? [])
    .map((entry) => ({ ...entry, hooks: (entry.hooks ?? []).filter((command) => !isOurs(command)) }))
    .filter((entry) => entry.hooks.length > 0);
  entries.push({ matcher: 'AskUserQuestion', hooks: [hook] });
  return { ...settings, hooks: { ...settings.hooks, PreToolUse: entries } };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args: io.argv,
    strict: true,
    options: { project: { type: 'string' }, user: { type: 'boolean', default: false }, local: { type: 'boolean', default: false } },
  });
  if (values.user && values.project !== undefined) throw new CliError('choose --user or --project, not both', 2);
  const file = values.user
    ? join(io.env.HOME || homedir(), '.claude', 'settings.json')
    : join(resolve(values.project ?? process.cwd()), '.claude', values.local ? 'settings.local.json' : 'settings.json');

  let settings: Settings = {};
  if (existsSync(file)) {
    try {
      settings = JSON.parse(readFileSync(file, 'utf8')) as Settings;
    } catch (error) {
      throw new CliError(`${file} is not valid JSON (${(error as Error).message}); fix it first, nothing was changed`);
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) throw new CliError(`${file} does not hold a JSON object; nothing was changed`);
    const entries: unknown = settings.hooks?.PreToolUse;
    if (entries !== undefined && (!Array.isArray(entries) || entries.some((entry) => !isObject(entry) || (entry.hooks !== undefined && !Array.isArray(entry.hooks))))) {
      throw new CliError(`${file}: hooks.PreToolUse is not a list of { matcher, hooks: [...] } entries; fix it first, nothing was changed`);
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(withAskbridgeHook(settings, HOOK_PATH), null, 2)}\n`);
  io.stdout(`askbridge hook installed in ${file}\n`);
  io.stderr('Claude Code reads hooks when a session starts: restart running `claude` sessions to pick it up.\n');
}
