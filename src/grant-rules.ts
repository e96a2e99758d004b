// What a grant covers, in Claude Code's own rule grammar, never wider: a shell command (exactly, or
// every single command that starts with its command and subcommand: `Bash(npm test:*)`), an edit
// inside the project's folder (`Edit(//home/me/app/**)`), a fetch of one domain
// (`WebFetch(domain:example.com)`). A command joined with `;`, `&&`, `||`, `|`, `$(…)`, backticks or
// a redirect never matches a prefix: only a grant naming that whole command covers it. Pure: no I/O.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { PLAN_TOOL } from './approvals.js';
import { INVISIBLE_CHARACTER } from './visible-text.js';
import type { Approval } from './protocol.js';
import { parseShell } from './shell-command.js';

/** The tools whose edits an `Edit(...)` rule covers, as Claude Code's own Edit rules do, and the field naming the file. */
const EDIT_TOOLS: Readonly<Record<string, string>> = { Edit: 'file_path', MultiEdit: 'file_path', Write: 'file_path', NotebookEdit: 'notebook_path' };
/** A shell tool's name: Claude Code's and Codex's `Bash`, opencode's `bash`. */
const SHELL_TOOLS = new Set(['Bash', 'bash']);

/** Subcommands that run whatever their next word names (a package's script): the grant names that too. */
const SCRIPT_RUNNERS = new Set(['run', 'run-script', 'exec', 'x', 'dlx']);

/** A command's subcommand: a plain word (`test`, `status`, `run-script`), never an option, a path or a value. */
const SUBCOMMAND = /^[a-z][a-z0-9-]*$/;

/**
 * Whether an approval may be covered by a grant at all: the one check a grant passes before it is
 * offered or made. A plan is never granted, nor a tool this module has no rule for.
 * A risky approval (risk.ts) is never granted either: the store offers no grant for one, and no
 * grant covers one (asks/open-ask.ts).
 */
export function grantable(approval: Pick<Approval, 'toolName' | 'toolInput'>, cwd: string): boolean {
  return approval.toolName !== PLAN_TOOL && ruleFor(approval, cwd) !== undefined;
}

/** The rule a grant made from this approval would be, and what it allows in words; undefined when none can be made. */
export function ruleFor(approval: Pick<Approval, 'toolName' | 'toolInput'>, cwd: string): { rule: string; words: string } | undefined {
  const { toolName, toolInput } = approval;
  // What a person reads must be what the rule says: nothing invisible (an escape sequence, an override) is ever granted.
  if (Object.values(toolInput).some((value) => typeof value === 'string' && new RegExp(INVISIBLE_CHARACTER.source, 'u').test(value))) return undefined;
  if (SHELL_TOOLS.has(toolName)) {
    const command = toolInput.command;
    if (typeof command !== 'string' || command.trim() === '' || /[\r\n]/.test(command)) return undefined;
    const prefix = prefixOf(command);
    if (prefix) return { rule: `${toolName}(${prefix}:*)`, words: `run commands that start with “${prefix}”, one at a time (none joined to another, redirected or with $(…))` };
    return { rule: `${toolName}(${command})`, words: `run exactly “${command}”` };
  }
  const field = EDIT_TOOLS[toolName];
  if (field !== undefined) {
    const file = toolInput[field];
    if (typeof file !== 'string' || !isAbsolute(cwd) || resolve(cwd) === resolve('/') || !isInside(file, cwd)) return undefined;
    return { rule: `Edit(/${resolve(cwd)}/**)`, words: `edit files inside ${resolve(cwd)}` };
  }
  if (toolName === 'WebFetch') {
    const host = hostOf(toolInput.url);
    if (host === undefined) return undefined;
    return { rule: `WebFetch(domain:${host})`, words: `fetch pages from ${host}` };
  }
  return undefined;
}

/** Whether `rule` covers this tool call; `cwd` is the folder of the session that asks. */
export function ruleCovers(rule: string, approval: Pick<Approval, 'toolName' | 'toolInput'>, cwd: string): boolean {
  const parsed = /^([A-Za-z]+)\(([\s\S]*)\)$/.exec(rule);
  if (!parsed) return false;
  const [, tool, spec] = parsed as unknown as [string, string, string];
  const { toolName, toolInput } = approval;
  if (SHELL_TOOLS.has(tool)) {
    const command = toolInput.command;
    if (toolName !== tool || typeof command !== 'string') return false;
    if (!spec.endsWith(':*')) return command === spec;
    const prefix = spec.slice(0, -2);
    return (command === prefix || command.startsWith(`${prefix} `)) && parseShell(command).simple;
  }
  if (tool === 'Edit') {
    const field = EDIT_TOOLS[toolName];
    const file = field === undefined ? undefined : toolInput[field];
    if (typeof file !== 'string' || !spec.startsWith('//') || !spec.endsWith('/**')) return false;
    const folder = spec.slice(1, -3);
    return isInside(file, folder) && isInside(file, cwd);
  }
  if (tool === 'WebFetch') return toolName === 'WebFetch' && spec.startsWith('domain:') && hostOf(toolInput.url) === spec.slice('domain:'.length);
  return false;
}

/** `npm test` of `npm test --watch`: a single simple command's name and subcommand; undefined when there is none to take. */
function prefixOf(command: string): string | undefined {
  const parsed = parseShell(command);
  const words = parsed.commands[0]?.words;
  if (!parsed.simple || !words || words.length < 2) return undefined;
  const [name, subcommand, script] = words as [string, string, string | undefined];
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || !SUBCOMMAND.test(subcommand)) return undefined;
  // `npm run build` grants its script, never every script: `npm run:*` would cover `npm run deploy`.
  if (SCRIPT_RUNNERS.has(subcommand)) return script !== undefined && /^[A-Za-z0-9_.:-]+$/.test(script) && command.startsWith(`${name} ${subcommand} ${script}`) && [undefined, ' '].includes(command[`${name} ${subcommand} ${script}`.length]) ? `${name} ${subcommand} ${script}` : undefined;
  const prefix = `${name} ${subcommand}`;
  // The words as written: a quoted or spaced-out start is not what a person reads as this prefix.
  return command === prefix || command.startsWith(`${prefix} `) ? prefix : undefined;
}

/** Whether `file` (absolute, with no way out through `..`) is inside `folder`. */
function isInside(file: string, folder: string): boolean {
  if (!isAbsolute(file) || !isAbsolute(folder)) return false;
  const path = relative(resolve(folder), resolve(file));
  return path !== '' && !path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path);
}

/** The host of an http(s) URL, lower case; undefined for anything else. */
function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}
