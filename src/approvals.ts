// Claude Code's permissions in words, the same everywhere they are shown (the page, the terminal,
// history, notifications): what a tool call will do in one line, and each of Claude Code's "always
// allow" suggestions as the choice it is in Claude Code's own dialog. Pure: no I/O. Every text taken
// from a tool's input is the model's, so whoever shows it marks what is invisible (visible-text.ts).
import { shorten } from './shorten.js';

/** One of Claude Code's "always allow" suggestions, as it sent it. */
export type Suggestion = Record<string, unknown> & { type: string };

/** The tool whose approval is a plan's (plan mode): allowing it approves the plan. */
export const PLAN_TOOL = 'ExitPlanMode';

/**
 * Claude Code's own plan dialog offers "Yes, and use auto mode" beside a plain yes, but its hook
 * is sent no suggestion for it (observed on 2.1.330: ExitPlanMode's PermissionRequest has no
 * `permission_suggestions`). Sent back with the plan's approval, this does exactly what that choice
 * does: the session leaves plan mode for auto mode.
 */
export const PLAN_AUTO_MODE = { type: 'setMode', mode: 'auto', destination: 'session' } as const;

/** The choices a plan's approval offers besides a plain approval (which leaves plan mode for manual mode). */
export function planSuggestions(sent: readonly Suggestion[]): Suggestion[] {
  return sent.length > 0 ? [...sent] : [{ ...PLAN_AUTO_MODE }];
}

/** A plan's suggestion as the approval it is: "Approve, and use auto mode for this session". */
export function planChoice(suggestion: Suggestion): string {
  const words = describeSuggestion(suggestion);
  return `Approve, and ${words.charAt(0).toLowerCase()}${words.slice(1)}`;
}

/** Where Claude Code keeps a permission it is told to remember (protocol.md 8, `destination`). */
const WHERE: Record<string, string> = {
  session: 'for this session',
  cliArg: 'for this session',
  localSettings: 'in this project (your local settings)',
  projectSettings: 'in this project (its shared settings)',
  userSettings: 'in every project',
};

/** The modes a `setMode` suggestion can switch to, as the choice reads. */
const MODES: Record<string, string> = {
  acceptEdits: 'Allow all edits',
  auto: 'Use auto mode',
  bypassPermissions: 'Allow everything (bypass permissions)',
  default: 'Ask each time (manual mode)',
  plan: 'Stay in plan mode',
  dontAsk: 'Never ask, deny what is not allowed',
};


const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** A permission rule as Claude Code's settings write it: `Bash(npm test:*)`, or `Edit` for the whole tool. */
function ruleText(rule: unknown): string | undefined {
  if (typeof rule !== 'object' || rule === null) return undefined;
  const { toolName, ruleContent } = rule as { toolName?: unknown; ruleContent?: unknown };
  if (typeof toolName !== 'string') return undefined;
  return typeof ruleContent === 'string' && ruleContent !== '' ? `${toolName}(${ruleContent})` : toolName;
}

/**
 * One of Claude Code's suggestions as the choice it offers, e.g. "Always allow `Bash(npm test:*)` in
 * this project (your local settings)" or "Allow all edits for this session". A suggestion of a kind
 * not known here is named by its type and destination, never dropped: it is still sent back exactly.
 */
export function describeSuggestion(suggestion: Suggestion): string {
  const where = typeof suggestion.destination === 'string' ? (WHERE[suggestion.destination] ?? `(${suggestion.destination})`) : '';
  const end = where ? ` ${where}` : '';
  switch (suggestion.type) {
    case 'addRules':
    case 'replaceRules': {
      const rules = Array.isArray(suggestion.rules) ? suggestion.rules.map(ruleText).filter((rule): rule is string => rule !== undefined) : [];
      const verb = suggestion.behavior === 'deny' ? 'Always deny' : suggestion.behavior === 'ask' ? 'Always ask for' : 'Always allow';
      return `${verb} ${rules.map((rule) => `\`${rule}\``).join(', ') || 'these calls'}${end}`;
    }
    case 'addDirectories': {
      const directories = strings(suggestion.directories);
      return `Allow access to ${directories.map((directory) => `\`${directory}\``).join(', ') || 'these folders'}${end}`;
    }
    case 'setMode': {
      const mode = typeof suggestion.mode === 'string' ? suggestion.mode : '';
      return `${MODES[mode] ?? `Switch to ${mode || 'another'} mode`}${end}`;
    }
    default:
      return `Apply Claude Code's "${suggestion.type}" suggestion${end}`;
  }
}

/** The field of a tool's input that says what it acts on, in order of preference. */
const TARGET_FIELDS = ['command', 'file_path', 'notebook_path', 'path', 'url', 'pattern', 'query'] as const;

/**
 * What a tool call acts on, in one line of at most `max` characters: the command, the file, the
 * address or the pattern; a plan's first line; for other tools, nothing. The model's text, shortened
 * with an ellipsis when it is longer.
 */
export function approvalTarget(toolName: string, toolInput: Readonly<Record<string, unknown>>, max = 200): string {
  if (toolName === PLAN_TOOL) {
    const plan = typeof toolInput.plan === 'string' ? toolInput.plan : '';
    const firstLine = plan.split('\n').find((line) => line.trim() !== '') ?? '';
    return shorten(firstLine.replace(/^#+\s*/, ''), max);
  }
  for (const field of TARGET_FIELDS) {
    const value = toolInput[field];
    if (typeof value === 'string' && value.trim() !== '') return shorten(value, max);
  }
  return '';
}

/** "Bash", "Plan", or an MCP tool as "server: tool". */
export function toolTitle(toolName: string): string {
  if (toolName === PLAN_TOOL) return 'Plan';
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  return mcp ? `${mcp[1]}: ${mcp[2]}` : toolName;
}
