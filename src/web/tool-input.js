// @ts-check
// What Claude Code asks permission for, shown exactly: the tool and its input as it will run if
// allowed. A person decides on this, so nothing in it is cut without saying so, every field the
// tool sent is shown (a field this page does not know, such as a flag that turns a sandbox off, is
// listed too), and all of it is model text: it reaches the DOM only as text (visibleNodes), a plan
// only through markdown.js, and an address is never a link.
import { h } from './dom.js';
import { diffLines, splitLines } from './line-diff.js';
import { renderMarkdown } from './markdown.js';
import { visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').Approval} Approval */
/** @typedef {Record<string, unknown>} Input */

/** The tool Claude Code calls to leave plan mode: approving it approves the plan. */
export const PLAN_TOOL = 'ExitPlanMode';

/** A long file's content is shown up to this many lines (or characters) until "Show all". */
const COLLAPSED_LINES = 40;
const COLLAPSED_CHARS = 4000;
/** A one-line summary (inbox, history, notifications) is cut to this many characters, with "…". */
const SUMMARY_CHARS = 300;

/** What a person calls each tool's action, after "Claude wants to" in the card's headline. */
const ACTIONS = {
  Bash: 'run a command',
  Edit: 'edit a file',
  MultiEdit: 'edit a file',
  Write: 'write a file',
  Read: 'read a file',
  Glob: 'find files',
  Grep: 'search in files',
  WebFetch: 'fetch a web page',
  WebSearch: 'search the web',
  NotebookEdit: 'edit a notebook',
  [PLAN_TOOL]: 'approve the plan',
};

/**
 * A plan to approve, or a permission for a tool.
 * @param {Approval} approval
 * @returns {'plan' | 'permission'}
 */
export function approvalKind(approval) {
  return approval.toolName === PLAN_TOOL ? 'plan' : 'permission';
}

/**
 * `mcp__github__create_issue` is the tool `create_issue` of the MCP server `github`.
 * @param {string} toolName
 */
export function mcpParts(toolName) {
  const match = /^mcp__(.+?)__(.+)$/s.exec(toolName);
  return match ? { server: /** @type {string} */ (match[1]), tool: /** @type {string} */ (match[2]) } : null;
}

/**
 * What Claude wants to do, in words: the end of the card's headline.
 * @param {Approval} approval
 */
export function toolAction(approval) {
  if (Object.hasOwn(ACTIONS, approval.toolName)) return ACTIONS[/** @type {keyof typeof ACTIONS} */ (approval.toolName)];
  return mcpParts(approval.toolName) ? 'use an MCP tool' : 'use a tool';
}

/** The plan: Claude Code sends it in the tool's input; the daemon gives it as `plan`. */
export function planOf(/** @type {Approval} */ approval) {
  if (typeof approval.plan === 'string') return approval.plan;
  const plan = approval.toolInput?.plan;
  return typeof plan === 'string' ? plan : '';
}

/**
 * One line saying what is asked (the inbox, History, a notification): `Bash: npm test`, a plan's
 * first line. Invisible characters stay as they are (the caller marks them); a long one ends in "…".
 * @param {Approval} approval
 */
export function toolSummary(approval) {
  const input = approval.toolInput ?? {};
  const str = (/** @type {string} */ key) => (typeof input[key] === 'string' ? /** @type {string} */ (input[key]) : undefined);
  let detail;
  if (approval.toolName === PLAN_TOOL) {
    // Its first lines, until they say something: a heading alone ("Plan") says little.
    const lines = planOf(approval)
      .split('\n')
      .map((line) =>
        line
          .replace(/^\s*(?:#+|[-*+]|\d+[.)])\s+/, '')
          .replace(/\*\*|__|`/g, '')
          .trim(),
      )
      .filter((line) => line !== '');
    let summary = '';
    for (const line of lines) {
      summary = summary ? `${summary} · ${line}` : line;
      if (summary.length >= 40) break;
    }
    return oneLine(summary || 'A plan to approve');
  }
  const mcp = mcpParts(approval.toolName);
  if (mcp) return oneLine(`MCP ${mcp.server} · ${mcp.tool}`);
  else {
    switch (approval.toolName) {
      case 'Bash':
        detail = str('command');
        break;
      case 'Edit':
      case 'MultiEdit':
      case 'Write':
      case 'Read':
        detail = str('file_path');
        break;
      case 'NotebookEdit':
        detail = str('notebook_path');
        break;
      case 'Glob':
      case 'Grep':
        detail = str('pattern') === undefined ? undefined : `${str('pattern')}${str('path') ? ` in ${str('path')}` : ''}`;
        break;
      case 'WebFetch':
        detail = str('url');
        break;
      case 'WebSearch':
        detail = str('query');
        break;
    }
  }
  detail ??= Object.keys(input).length > 0 ? safeJson(input, 0) : '';
  return oneLine(detail ? `${approval.toolName}: ${detail}` : approval.toolName);
}

/** @param {string} text */
function oneLine(text) {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= SUMMARY_CHARS ? line : `${line.slice(0, SUMMARY_CHARS).trimEnd()}…`;
}

/**
 * The tool's input, as the card shows it: the fields each tool is known by, laid out for it, then
 * every other field it sent.
 * @param {Approval} approval
 * @param {string} actor who asks, in the words of a description's label: 'Claude', 'Codex', 'opencode'
 * @returns {Node[]}
 */
export function toolInputNodes(approval, actor) {
  const input = /** @type {Input} */ (approval.toolInput && typeof approval.toolInput === 'object' ? approval.toolInput : {});
  const shown = new Set();
  /** The field, when it has the type the layout expects; else it is listed with the rest, as sent. */
  const take = (/** @type {string} */ key, /** @type {'string' | 'number' | 'boolean' | 'array'} */ type) => {
    const value = input[key];
    const fits = type === 'array' ? Array.isArray(value) : typeof value === type;
    if (!Object.hasOwn(input, key) || !fits) return undefined;
    shown.add(key);
    return value;
  };
  const str = (/** @type {string} */ key) => /** @type {string | undefined} */ (take(key, 'string'));
  /** @type {Node[]} */
  const nodes = [];
  const fields = h('dl', { class: 'tool-fields' });
  /** @param {string} label @param {...(Node | string | null)} value */
  const field = (label, ...value) => fields.append(h('div', { class: 'tool-field' }, h('dt', { text: label }), h('dd', {}, value)));

  const mcp = mcpParts(approval.toolName);
  switch (mcp ? 'mcp' : approval.toolName) {
    case PLAN_TOOL: {
      const plan = planOf(approval);
      if (typeof input.plan === 'string' && input.plan === plan) shown.add('plan');
      nodes.push(
        h(
          'figure',
          { class: 'tool-figure' },
          h('figcaption', { class: 'tool-caption', text: 'The plan' }),
          plan.trim() === '' ? h('p', { class: 'tool-none', text: 'Claude sent no plan text.' }) : h('div', { class: 'plan-body md', dir: 'auto' }, renderMarkdown(plan)),
        ),
      );
      break;
    }
    case 'Bash': {
      const description = str('description');
      const command = str('command');
      if (description !== undefined) nodes.push(h('p', { class: 'tool-description', dir: 'auto' }, h('span', { class: 'tool-description-label', text: `${actor} says: ` }), visibleNodes(description)));
      if (command !== undefined) nodes.push(codeFigure('Command', command));
      const timeout = take('timeout', 'number');
      if (timeout !== undefined) field('Timeout', `${timeout} ms${Number(timeout) >= 1000 ? ` (${durationText(Number(timeout))})` : ''}`);
      const background = take('run_in_background', 'boolean');
      if (background !== undefined) field('Runs in the background', background ? 'yes' : 'no');
      break;
    }
    case 'Edit': {
      pathField(field, 'File', str('file_path'));
      const replaceAll = take('replace_all', 'boolean');
      if (replaceAll !== undefined) field('Replace', replaceAll ? 'every occurrence' : 'the first occurrence only');
      const before = str('old_string');
      const after = str('new_string');
      if (before !== undefined && after !== undefined) nodes.push(diffFigure('Change', before, after));
      else {
        // Half an edit: each half as it came.
        if (before !== undefined) nodes.push(codeFigure('Old text', before));
        if (after !== undefined) nodes.push(codeFigure('New text', after));
      }
      break;
    }
    case 'MultiEdit': {
      pathField(field, 'File', str('file_path'));
      const edits = /** @type {unknown[] | undefined} */ (take('edits', 'array'));
      if (edits) nodes.push(...edits.map((edit, index) => multiEditFigure(edit, index, edits.length)));
      break;
    }
    case 'Write': {
      pathField(field, 'File', str('file_path'));
      const content = str('content');
      if (content !== undefined) nodes.push(collapsibleFigure('Content', content));
      break;
    }
    case 'Read': {
      pathField(field, 'File', str('file_path'));
      const offset = take('offset', 'number');
      const limit = take('limit', 'number');
      if (offset !== undefined) field('From line', String(offset));
      if (limit !== undefined) field('Lines', String(limit));
      break;
    }
    case 'Glob':
    case 'Grep': {
      const pattern = str('pattern');
      if (pattern !== undefined) field('Pattern', h('code', { class: 'tool-value' }, visibleNodes(pattern)));
      pathField(field, 'In', str('path'));
      break;
    }
    case 'WebFetch': {
      const url = str('url');
      if (url !== undefined) field('Address', ...addressNodes(url));
      const prompt = str('prompt');
      if (prompt !== undefined) field('What to look for', h('span', { class: 'tool-prose', dir: 'auto' }, visibleNodes(prompt)));
      break;
    }
    case 'WebSearch': {
      const query = str('query');
      if (query !== undefined) field('Query', h('span', { class: 'tool-prose', dir: 'auto' }, visibleNodes(query)));
      for (const [key, label] of /** @type {const} */ ([
        ['allowed_domains', 'Only these sites'],
        ['blocked_domains', 'Never these sites'],
      ])) {
        const domains = /** @type {unknown[] | undefined} */ (take(key, 'array'));
        if (domains?.every((domain) => typeof domain === 'string')) field(label, ...domains.flatMap((domain, index) => [index > 0 ? ', ' : '', h('code', { class: 'tool-value' }, visibleNodes(domain))]));
        // A list of anything else is listed with the rest, as it came.
        else if (domains) shown.delete(key);
      }
      break;
    }
    case 'NotebookEdit': {
      pathField(field, 'Notebook', str('notebook_path'));
      for (const [key, label] of [
        ['cell_id', 'Cell'],
        ['cell_type', 'Cell type'],
        ['edit_mode', 'Edit mode'],
      ]) {
        const value = str(/** @type {string} */ (key));
        if (value !== undefined) field(/** @type {string} */ (label), h('code', { class: 'tool-value' }, visibleNodes(value)));
      }
      const source = str('new_source');
      if (source !== undefined) nodes.push(collapsibleFigure('New source', source));
      break;
    }
    case 'mcp': {
      const parts = /** @type {{ server: string; tool: string }} */ (mcp);
      field('Server', h('code', { class: 'tool-value' }, visibleNodes(parts.server)));
      field('Tool', h('code', { class: 'tool-value' }, visibleNodes(parts.tool)));
      for (const key of Object.keys(input)) shown.add(key);
      nodes.push(Object.keys(input).length === 0 ? h('p', { class: 'tool-none', text: 'No arguments.' }) : codeFigure('Arguments', safeJson(input, 2)));
      break;
    }
    default: {
      for (const key of Object.keys(input)) shown.add(key);
      nodes.push(Object.keys(input).length === 0 ? h('p', { class: 'tool-none', text: 'No input.' }) : codeFigure('Input', safeJson(input, 2)));
    }
  }

  // Everything else the tool sent, so that no part of what will run is out of sight.
  const rest = Object.keys(input).filter((key) => !shown.has(key));
  const fieldNodes = fields.childElementCount > 0 ? [fields] : [];
  // A command reads first, then how it runs; a file's path reads before its change.
  const main = approval.toolName === 'Bash' ? [...nodes, ...fieldNodes] : [...fieldNodes, ...nodes];
  if (rest.length === 0) return main;
  const others = h('dl', { class: 'tool-fields tool-others' });
  for (const key of rest) others.append(h('div', { class: 'tool-field' }, h('dt', {}, h('code', {}, visibleNodes(key))), h('dd', {}, valueNodes(input[key]))));
  return [...main, h('p', { class: 'tool-others-title', text: rest.length === 1 ? 'Also sent:' : `Also sent (${rest.length} fields):` }), others];
}

/**
 * @param {(label: string, ...value: Array<Node | string | null>) => void} field
 * @param {string} label
 * @param {string | undefined} path
 */
function pathField(field, label, path) {
  if (path !== undefined) field(label, h('code', { class: 'tool-path' }, pathNodes(path)));
}

/**
 * A path that wraps after its slashes where it can, not in the middle of a name.
 * @param {string} path
 * @returns {Node[]}
 */
function pathNodes(path) {
  const parts = path.split('/');
  return parts.flatMap((part, index) => [...visibleNodes(index < parts.length - 1 ? `${part}/` : part), ...(index < parts.length - 1 ? [h('wbr')] : [])]);
}

/**
 * An address as text, never a link, and the site it goes to as the browser reads it (a look-alike
 * name in another script shows as the `xn--` name it is).
 * @param {string} url
 * @returns {Array<Node | string>}
 */
function addressNodes(url) {
  const nodes = /** @type {Array<Node | string>} */ ([h('code', { class: 'tool-url' }, visibleNodes(url))]);
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // not an address a browser reads: shown as it is
  }
  if (host) nodes.push(h('span', { class: 'tool-host' }, 'site: ', h('code', {}, visibleNodes(host))));
  return nodes;
}

/**
 * A value of a field this page has no layout for: short text inline, long text, numbers and
 * anything nested as it came (nested values as JSON).
 * @param {unknown} value
 * @returns {Node[]}
 */
function valueNodes(value) {
  if (typeof value === 'string') {
    if (value.length <= 120 && !value.includes('\n')) return [h('code', { class: 'tool-value' }, visibleNodes(value))];
    return [codeBlock(value)];
  }
  if (value === null || typeof value !== 'object') return [h('code', { class: 'tool-value' }, visibleNodes(safeJson(value, 0)))];
  return [codeBlock(safeJson(value, 2))];
}

/**
 * @param {unknown} value
 * @param {number} indent
 */
function safeJson(value, indent) {
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

/** @param {number} ms */
function durationText(ms) {
  const seconds = ms / 1000;
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const minutes = seconds / 60;
  return `${Math.round(minutes * 10) / 10} min`;
}

/**
 * Text in monospace, whole, wrapped, in a block that scrolls when it is long (focusable, so the
 * keyboard scrolls it too).
 * @param {string} text
 */
function codeBlock(text) {
  return h('pre', { class: 'tool-code', tabindex: '0', dir: 'ltr' }, visibleNodes(text));
}

/**
 * A file's text with its line numbers beside it (drawn by CSS, so that what is selected and copied
 * is the text alone): a long line that wraps still reads as one line.
 * @param {string} text
 */
function numberedBlock(text) {
  return h('pre', { class: 'tool-code tool-numbered', tabindex: '0', dir: 'ltr' }, numberedLines(text));
}

/** @param {string} text */
function numberedLines(text) {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start one more.
  const shown = lines.at(-1) === '' && lines.length > 1 ? lines.length - 1 : lines.length;
  return lines.slice(0, shown).map((line, index) => h('span', { class: 'code-line' }, visibleNodes(index < lines.length - 1 ? `${line}\n` : line)));
}

/**
 * @param {string} caption
 * @param {string} text
 */
function codeFigure(caption, text) {
  return h('figure', { class: 'tool-figure' }, h('figcaption', { class: 'tool-caption', text: caption }), text === '' ? h('p', { class: 'tool-none', text: '(empty)' }) : codeBlock(text));
}

/**
 * A file's content: the first lines, and a button that shows the rest, which says how much it hides.
 * @param {string} caption
 * @param {string} text
 */
function collapsibleFigure(caption, text) {
  const lines = splitLines(text);
  const captionNode = h('figcaption', { class: 'tool-caption' }, caption, h('span', { class: 'tool-count', text: ` · ${countText(lines.length, 'line')}, ${countText(text.length, 'character')}` }));
  if (text === '') return h('figure', { class: 'tool-figure' }, captionNode, h('p', { class: 'tool-none', text: '(empty)' }));
  const short = shortStart(text);
  const block = numberedBlock(short ?? text);
  const figure = h('figure', { class: 'tool-figure' }, captionNode, block);
  if (short === null) return figure;
  const shownLines = splitLines(short).length;
  const hiddenLines = lines.length - shownLines;
  const hiddenNote = hiddenLines > 0 ? `${countText(hiddenLines, 'more line')} not shown` : `${countText(text.length - short.length, 'more character')} not shown`;
  const note = h('p', { class: 'tool-hidden', text: `… ${hiddenNote}.` });
  const toggle = h('button', { type: 'button', class: 'btn-link tool-toggle', 'aria-expanded': 'false', text: `Show all ${countText(lines.length, 'line')}` });
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Show less' : `Show all ${countText(lines.length, 'line')}`;
    block.replaceChildren(...numberedLines(open ? text : short));
    note.hidden = open;
  });
  figure.append(note, toggle);
  return figure;
}

/**
 * The start of a long text (whole lines where it can), or null when it is short enough to show whole.
 * @param {string} text
 */
function shortStart(text) {
  let end = 0;
  for (let line = 0; line < COLLAPSED_LINES && end < text.length; line++) {
    const newline = text.indexOf('\n', end);
    end = newline < 0 ? text.length : newline + 1;
  }
  if (end >= text.length && text.length <= COLLAPSED_CHARS) return null;
  if (end > COLLAPSED_CHARS) {
    end = COLLAPSED_CHARS;
    // Never half a character: a surrogate pair stays whole.
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
  }
  return text.slice(0, end).replace(/\n$/, '');
}

/**
 * @param {number} count
 * @param {string} noun
 */
function countText(count, noun) {
  return `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Old text to new, line by line: removed lines red with −, added green with +.
 * @param {string} caption
 * @param {string} before
 * @param {string} after
 */
function diffFigure(caption, before, after) {
  const { lines, exact } = diffLines(before, after);
  const removed = lines.filter((line) => line.kind === 'removed').length;
  const added = lines.filter((line) => line.kind === 'added').length;
  const body = h(
    'div',
    { class: 'diff', tabindex: '0', dir: 'ltr' },
    lines.map((line) => {
      const sign = h('span', { class: 'diff-sign', 'aria-hidden': 'true', text: line.kind === 'removed' ? '−' : line.kind === 'added' ? '+' : ' ' });
      const text = h('span', { class: 'diff-text' }, visibleNodes(line.text));
      if (line.kind === 'removed') return h('del', { class: 'diff-line diff-removed' }, sign, text);
      if (line.kind === 'added') return h('ins', { class: 'diff-line diff-added' }, sign, text);
      return h('span', { class: 'diff-line diff-same' }, sign, text);
    }),
  );
  return h(
    'figure',
    { class: 'tool-figure' },
    h('figcaption', { class: 'tool-caption' }, caption, h('span', { class: 'tool-count', text: ` · ${countText(removed, 'line')} removed, ${countText(added, 'line')} added` })),
    lines.length === 0 ? h('p', { class: 'tool-none', text: 'Both texts are empty.' }) : body,
    exact ? null : h('p', { class: 'tool-hidden', text: 'Too different to compare line by line: every old line is shown removed, then every new line added.' }),
  );
}

/**
 * One edit of a MultiEdit: its diff, and whether it replaces every occurrence.
 * @param {unknown} edit
 * @param {number} index
 * @param {number} count
 */
function multiEditFigure(edit, index, count) {
  const caption = `Edit ${index + 1} of ${count}`;
  const fields = /** @type {Input} */ (edit && typeof edit === 'object' && !Array.isArray(edit) ? edit : {});
  const { old_string: before, new_string: after, replace_all: replaceAll, ...rest } = fields;
  if (typeof before !== 'string' || typeof after !== 'string' || (replaceAll !== undefined && typeof replaceAll !== 'boolean') || Object.keys(rest).length > 0) {
    // Not the shape an edit has: shown as it came.
    return codeFigure(caption, safeJson(edit, 2));
  }
  const figure = diffFigure(replaceAll ? `${caption}, every occurrence` : caption, before, after);
  return figure;
}
