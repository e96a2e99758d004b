// Claude Code's permissions in words, the same everywhere they are shown (the page, the terminal,
// Telegram, history, notifications): what a tool call will do in one line, and each of Claude Code's
// suggestions (its dialog's "Yes, and ...") as what choosing it does; one that cannot be put in true
// words is not offered. Pure: no I/O. Every text taken from a tool's input is the model's, so
// whoever shows it marks what is invisible (visible-text.ts).
import { z } from 'zod';
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

/** Where Claude Code keeps what a suggestion changes (protocol.md 8, `destination`): as the scope of what it adds, and as the place it replaces in or removes from. */
const DESTINATIONS = {
  session: { scope: 'for this session', place: 'this session' },
  cliArg: { scope: 'for this session', place: 'this session' },
  localSettings: { scope: 'in this project (your local settings)', place: "this project's local settings" },
  projectSettings: { scope: 'in this project (its shared settings)', place: "this project's shared settings" },
  userSettings: { scope: 'in every project', place: 'your user settings (every project)' },
} as const;

/** The modes a `setMode` suggestion can switch to, as the choice reads. */
const MODES = {
  acceptEdits: 'Allow all edits',
  auto: 'Use auto mode',
  bypassPermissions: 'Allow everything (bypass permissions)',
  default: 'Ask each time (manual mode)',
  plan: 'Stay in plan mode',
  dontAsk: 'Never ask, deny what is not allowed',
} as const;

const Destination = z.enum(Object.keys(DESTINATIONS) as [keyof typeof DESTINATIONS, ...Array<keyof typeof DESTINATIONS>]);
const Behavior = z.enum(['allow', 'deny', 'ask']);
/** A permission rule as Claude Code sends it: a tool, and what of it (none: all of it). */
const Rule = z.strictObject({ toolName: z.string().min(1), ruleContent: z.string().optional() });
const Folders = z.array(z.string().min(1)).min(1);

/**
 * The suggestions askbridge can put in true words: each kind of Claude Code's `updatedPermissions`
 * (protocol.md 8), every field known and of the type it must be. Anything else (a kind not known
 * here, a field more, a rule of another shape) could do what its words do not say.
 */
const DescribedSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('addRules'), rules: z.array(Rule).min(1), behavior: Behavior, destination: Destination }),
  z.strictObject({ type: z.literal('replaceRules'), rules: z.array(Rule), behavior: Behavior, destination: Destination }),
  z.strictObject({ type: z.literal('removeRules'), rules: z.array(Rule).min(1), behavior: Behavior, destination: Destination }),
  z.strictObject({ type: z.literal('setMode'), mode: z.enum(Object.keys(MODES) as [keyof typeof MODES, ...Array<keyof typeof MODES>]), destination: Destination }),
  z.strictObject({ type: z.literal('addDirectories'), directories: Folders, destination: Destination }),
  z.strictObject({ type: z.literal('removeDirectories'), directories: Folders, destination: Destination }),
]);

/** A permission rule as Claude Code's settings write it: `Bash(npm test:*)`, or `Edit` for the whole tool; in backticks. */
function ruleText(rule: z.infer<typeof Rule>): string {
  return `\`${rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName}\``;
}

const listed = (items: readonly string[]) => items.map((item) => `\`${item}\``).join(', ');
const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/**
 * One of Claude Code's suggestions as what choosing it does, naming its rules, folders or mode and
 * where Claude Code keeps them: "Always allow `Bash(npm test:*)` in this project (your local
 * settings)", "Replace every deny rule in this project's local settings with `Bash(rm *)`", "Allow
 * all edits for this session". Undefined for one that cannot be put in true words (DescribedSchema):
 * it is not offered, and Claude Code's own dialog still has it.
 */
export function describeSuggestion(suggestion: Suggestion): string | undefined {
  const parsed = DescribedSchema.safeParse(suggestion);
  if (!parsed.success) return undefined;
  const described = parsed.data;
  const { scope, place } = DESTINATIONS[described.destination];
  switch (described.type) {
    case 'addRules': {
      const verb = { allow: 'Always allow', deny: 'Always deny', ask: 'Always ask about' }[described.behavior];
      return `${verb} ${described.rules.map(ruleText).join(', ')} ${scope}`;
    }
    case 'replaceRules':
      return described.rules.length === 0
        ? `Remove every ${described.behavior} rule in ${place}`
        : `Replace every ${described.behavior} rule in ${place} with ${described.rules.map(ruleText).join(', ')}`;
    case 'removeRules':
      return `Remove the ${described.behavior} ${plural(described.rules.length, 'rule', 'rules')} ${described.rules.map(ruleText).join(', ')} from ${place}`;
    case 'setMode':
      return `${MODES[described.mode]} ${scope}`;
    case 'addDirectories':
      return `Allow access to ${listed(described.directories)} ${scope}`;
    case 'removeDirectories':
      return `Remove ${listed(described.directories)} from the folders allowed in ${place}`;
  }
}

/** A suggestion that may be offered, and its words. */
export type Offered = { suggestion: Suggestion; words: string };

/** The suggestions that may be offered, in the order sent: each one describeSuggestion can put in words. */
export function offeredSuggestions(sent: readonly Suggestion[]): Offered[] {
  return sent.flatMap((suggestion) => {
    const words = describeSuggestion(suggestion);
    return words === undefined ? [] : [{ suggestion, words }];
  });
}

/**
 * The choices a plan's approval offers besides a plain approval (which leaves plan mode for manual
 * mode), each as the approval it is ("Approve, and use auto mode for this session"): the offered
 * suggestions, or auto mode when there are none.
 */
export function planChoices(offered: readonly Offered[]): Offered[] {
  const choices = offered.length > 0 ? offered : offeredSuggestions([{ ...PLAN_AUTO_MODE }]);
  return choices.map(({ suggestion, words }) => ({ suggestion, words: `Approve, and ${words.charAt(0).toLowerCase()}${words.slice(1)}` }));
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
