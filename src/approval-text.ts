// Permissions and plans in words, for the terminal (`pending`, `history`, `listen`, `answer`, the
// interactive flow) and Telegram's messages: the tool and what it acts on in one line, how it was decided, and the tool's whole
// input, laid out for the tools a person knows (a command and what Claude says it does, an edit as
// the lines it removes and adds, a file's content, a plan's text) and every other field it sent as
// JSON, so that nothing that would run is out of sight and nothing is cut. Pure: no I/O. Everything
// here is the model's text: the one-line texts come back as they are, for the caller to mark and
// indent as it prints them (terminalText); the input's text comes back marked already, since its JSON
// has to be escaped as it is written.
import { approvalTarget, PLAN_TOOL, toolTitle } from './approvals.js';
import type { HistoryLine } from './history-file.js';
import { profileOf } from './agents.js';
import type { Agent, Approval, AskView } from './protocol.js';
import { INVISIBLE_CHARACTER, markInvisible } from './visible-text.js';

/** The tool and what it acts on, in one line: "Bash: npm test", "Plan: Refactor the parser", "github: create_issue". Not marked. */
export function toolLine(toolName: string, target: string): string {
  const title = toolTitle(toolName);
  return target === '' ? title : `${title}: ${target}`;
}

/** An approval as a list names it: "Permission · Bash: npm test", or a plan as "Plan: its first line". Not marked. */
export function approvalLine(approval: Pick<Approval, 'toolName' | 'toolInput'>): string {
  const line = toolLine(approval.toolName, approvalTarget(approval.toolName, approval.toolInput));
  return approval.toolName === PLAN_TOOL ? line : `Permission · ${line}`;
}

/** A decision as history keeps it: a suggestion by its words, not by its place in a list. */
export type DecisionInWords = NonNullable<HistoryLine['decision']>;

/** The decision of a settled approval, its suggestion by its words; undefined when nobody decided it. */
export function decisionInWords(ask: Pick<AskView, 'approval' | 'decision'>): DecisionInWords | undefined {
  const { decision } = ask;
  if (!decision) return undefined;
  if (decision.behavior === 'deny') return decision;
  if (decision.suggestion === undefined) return { behavior: 'allow' };
  return { behavior: 'allow', suggestion: ask.approval?.suggestions[decision.suggestion]?.label ?? `suggestion ${decision.suggestion + 1}` };
}

/**
 * How it was decided, as a clause: "allowed once", "allowed (Always allow `Bash(npm test *)` …)",
 * "denied", "denied and stopped"; for a plan "approved", "sent back with changes", "rejected and
 * stopped". The deny's message is the caller's to add. Not marked.
 */
export function decisionText(toolName: string, decision: DecisionInWords): string {
  const plan = toolName === PLAN_TOOL;
  if (decision.behavior === 'allow') {
    const verb = plan ? 'approved' : 'allowed';
    if (decision.suggestion !== undefined) return `${verb} (${decision.suggestion})`;
    return plan ? verb : `${verb} once`;
  }
  if (decision.interrupt) return plan ? 'rejected and stopped' : 'denied and stopped';
  return plan ? 'sent back with changes' : 'denied';
}

/** "allowed once · Bash: npm test", "denied: use the test database · Bash: npm test": the decision, the deny's message, and the call. Not marked. */
export function decidedText(toolName: string, target: string, decision: DecisionInWords): string {
  const message = decision.behavior === 'deny' && decision.message ? `: ${decision.message}` : '';
  return `${decisionText(toolName, decision)}${message} · ${toolLine(toolName, target)}`;
}

/** Each line of a block under its title is indented by this. */
const BLOCK_INDENT = '  ';

/** A field of a tool's input taken for its layout, when it has the type the layout expects. */
type Take = { text(key: string): string | undefined; flag(key: string): boolean | undefined; list(key: string): unknown[] | undefined };

/** The lines a known tool's input is shown as, from the fields it takes; what it leaves is listed after it. */
type Layout = (take: Take, approval: Pick<Approval, 'toolName' | 'toolInput' | 'plan'>, speaker: string) => string[];

/** Who speaks for an agent's model, in its approvals: Claude for Claude Code, else the agent's name. */
export function speakerOf(agent: Agent | undefined): string {
  return profileOf({ agent: agent ?? 'claude-code' }).speaker;
}

const LAYOUTS: Record<string, Layout> = {
  Bash: (take, _approval, speaker) => [...line(`${speaker} says`, take.text('description')), ...block('Command', take.text('command'))],
  Edit: (take) => [...line('File', take.text('file_path')), ...replaceLine(take.flag('replace_all')), ...editLines('Change', take.text('old_string'), take.text('new_string'))],
  MultiEdit: (take) => [...line('File', take.text('file_path')), ...multiEditLines(take)],
  Write: (take) => [...line('File', take.text('file_path')), ...block('Content', take.text('content'))],
  [PLAN_TOOL]: (take, approval) => {
    // The daemon's `plan` is the input's own `plan`, when it is text.
    const plan = take.text('plan') ?? approval.plan;
    return plan === undefined || plan.trim() === '' ? ['Claude sent no plan text.'] : block('The plan', plan);
  },
};

/**
 * The tool's whole input, as lines of text (joined with newlines): the fields a known tool is read
 * by, laid out for it, then every other field it sent, as JSON; any other tool's input as JSON.
 * Marked: each invisible character a marker, or a \uXXXX escape in JSON. Lines after the first are
 * the caller's to indent (or draw under its bar).
 */
export function toolInputText(approval: Pick<Approval, 'toolName' | 'toolInput' | 'plan'>, speaker = 'Claude'): string {
  const input = approval.toolInput;
  const layout = LAYOUTS[approval.toolName];
  if (!layout) {
    if (Object.keys(input).length === 0) return 'No input.';
    return [`${/^mcp__/.test(approval.toolName) ? 'Arguments' : 'Input'}:`, ...indented(prettyJson(input))].join('\n');
  }
  const taken = new Set<string>();
  const typed = <T>(key: string, fits: (value: unknown) => value is T): T | undefined => {
    const value = input[key];
    if (!Object.hasOwn(input, key) || !fits(value)) return undefined;
    taken.add(key);
    return value;
  };
  const take: Take = {
    text: (key) => typed(key, (value): value is string => typeof value === 'string'),
    flag: (key) => typed(key, (value): value is boolean => typeof value === 'boolean'),
    list: (key) => typed(key, Array.isArray),
  };
  const lines = layout(take, approval, speaker).map(markInvisible);
  // Everything else the tool sent, so that no part of what will run is out of sight.
  const rest = Object.fromEntries(Object.entries(input).filter(([key]) => !taken.has(key)));
  if (Object.keys(rest).length > 0) lines.push('Also sent:', ...indented(prettyJson(rest)));
  return lines.join('\n');
}

/** "File: src/app.ts", or nothing when the field was not sent. */
function line(label: string, value: string | undefined): string[] {
  return value === undefined ? [] : [`${label}: ${value}`];
}

/** A title, then the text's lines, each indented, exactly as sent; nothing when the field was not sent. */
function block(title: string, text: string | undefined): string[] {
  return text === undefined ? [] : [`${title}:`, ...indented(text)];
}

function indented(text: string): string[] {
  return text.split('\n').map((each) => `${BLOCK_INDENT}${each}`);
}

function replaceLine(replaceAll: boolean | undefined): string[] {
  if (replaceAll === undefined) return [];
  return [`Replace: ${replaceAll ? 'every occurrence' : 'the first occurrence only'}`];
}

/** An edit as a diff; half an edit as the half that came. */
function editLines(title: string, before: string | undefined, after: string | undefined): string[] {
  if (before !== undefined && after !== undefined) return [`${title}:`, ...simpleDiff(before, after).map((each) => `${BLOCK_INDENT}${each}`)];
  return [...block('Old text', before), ...block('New text', after)];
}

/** MultiEdit's edits, each as a diff, when each is the edit it should be; otherwise they are listed as JSON with the rest. */
function multiEditLines(take: Take): string[] {
  const edits = take.list('edits');
  if (edits === undefined) return [];
  const plain = edits.every((edit) => {
    if (typeof edit !== 'object' || edit === null) return false;
    const { old_string: before, new_string: after, replace_all: replaceAll, ...others } = edit as Record<string, unknown>;
    return typeof before === 'string' && typeof after === 'string' && (replaceAll === undefined || typeof replaceAll === 'boolean') && Object.keys(others).length === 0;
  });
  if (!plain) return [`Edits: ${edits.length}, as sent:`, ...indented(prettyJson(edits))];
  return (edits as Array<{ old_string: string; new_string: string; replace_all?: boolean }>).flatMap((edit, index) =>
    editLines(`Change ${index + 1} of ${edits.length}${edit.replace_all === true ? ' (every occurrence)' : ''}`, edit.old_string, edit.new_string),
  );
}

/**
 * An edit as a person reads a patch: the lines both texts start and end with kept (two spaces), the
 * ones between removed ("- "), then added ("+ "). Every line of both texts is there: nothing is cut.
 */
export function simpleDiff(before: string, after: string): string[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const as = (lines: string[], mark: string) => lines.map((each) => `${mark}${each}`);
  return [...as(a.slice(0, start), '  '), ...as(a.slice(start, endA), '- '), ...as(b.slice(start, endB), '+ '), ...as(a.slice(endA), '  ')];
}

/**
 * JSON for a terminal, over several lines: the value as JSON.stringify indents it, with every
 * invisible character it leaves raw written as a \uXXXX escape (as terminalJson does on one line).
 * Parsing it gives back the exact value.
 */
export function prettyJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? 'null';
  return json.replace(INVISIBLE_CHARACTER, (character) =>
    Array.from({ length: character.length }, (_, index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`).join(''),
  );
}
