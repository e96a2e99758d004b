// @ts-check
// An option's preview, as markdown: code, lists, tables, emphasis. marked only parses (its lexer);
// the page builds the DOM from the tokens itself, with text nodes and a fixed set of elements, so a
// preview written by a prompt-injected model can never become markup: an HTML tag in it is shown as
// the text it is, a link is shown with its address but is not followed, an image is its alt text.
import { Lexer } from './marked.js';
import { h } from './dom.js';
import { visibleNodes } from './visible-text.js';

/** @typedef {import('./marked.js').Token} Token */
/** @typedef {import('./marked.js').Tokens.Generic} Generic */

/** Tokens nested deeper than this are shown as their raw text: a hostile preview cannot blow the stack. */
const MAX_DEPTH = 12;

/**
 * The preview's markdown as DOM nodes.
 * @param {string} markdown
 * @returns {DocumentFragment}
 */
export function renderMarkdown(markdown) {
  const fragment = document.createDocumentFragment();
  let tokens;
  try {
    tokens = new Lexer({ gfm: true }).lex(markdown);
  } catch {
    fragment.append(h('pre', { class: 'md-code' }, visibleNodes(markdown)));
    return fragment;
  }
  for (const node of blocks(tokens, 0)) fragment.append(node);
  return fragment;
}

/**
 * @param {Token[]} tokens
 * @param {number} depth
 * @returns {Node[]}
 */
function blocks(tokens, depth) {
  return tokens.flatMap((token) => block(/** @type {Generic} */ (token), depth));
}

/**
 * @param {Generic} token
 * @param {number} depth
 * @returns {Node[]}
 */
function block(token, depth) {
  if (depth > MAX_DEPTH) return [h('p', {}, visibleNodes(String(token.raw ?? '')))];
  const next = depth + 1;
  switch (token.type) {
    case 'space':
      return [];
    case 'code':
      return [codeBlock(String(token.text ?? ''), String(token.lang ?? ''))];
    case 'heading':
      // Not a real heading: the page's outline belongs to the page, not to a preview.
      return [h('p', { class: `md-heading md-h${Number(token.depth) || 1}` }, inlines(token.tokens, next))];
    case 'paragraph':
      return [h('p', {}, inlines(token.tokens, next))];
    case 'text':
      return [h('p', {}, token.tokens ? inlines(token.tokens, next) : visibleNodes(String(token.text ?? '')))];
    case 'blockquote':
      return [h('blockquote', {}, blocks(token.tokens ?? [], next))];
    case 'hr':
      return [h('hr')];
    case 'list': {
      const items = /** @type {Generic[]} */ (token.items ?? []).map((item) =>
        h('li', {}, item.task ? h('span', { class: 'md-task', 'aria-label': item.checked ? 'done' : 'not done', text: item.checked ? '☑ ' : '☐ ' }) : null, listItem(item, next)),
      );
      const start = Number(token.start);
      return [token.ordered ? h('ol', { start: Number.isInteger(start) && start !== 1 ? String(start) : null }, items) : h('ul', {}, items)];
    }
    case 'table':
      return [table(token, next)];
    case 'html':
      // Shown as written: the tag is text here, never markup.
      return [h('p', { class: 'md-raw' }, visibleNodes(String(token.raw ?? '')))];
    default:
      return [h('p', {}, visibleNodes(String(token.raw ?? token.text ?? '')))];
  }
}

/**
 * A list item's tokens: a tight item's text reads inline, not as a paragraph of its own.
 * @param {Generic} item
 * @param {number} depth
 */
function listItem(item, depth) {
  return /** @type {Generic[]} */ (item.tokens ?? []).flatMap((token) => (token.type === 'text' ? (token.tokens ? inlines(token.tokens, depth) : visibleNodes(String(token.text ?? ''))) : block(token, depth)));
}

/**
 * @param {Generic} token
 * @param {number} depth
 */
function table(token, depth) {
  /** @param {Generic} cell @param {'th' | 'td'} tag @param {number} column */
  const cell = (cell, tag, column) => {
    const align = /** @type {Array<string | null>} */ (token.align ?? [])[column];
    return h(tag, { class: align ? `md-${align}` : null, scope: tag === 'th' ? 'col' : null }, inlines(cell.tokens, depth));
  };
  const header = /** @type {Generic[]} */ (token.header ?? []);
  const rows = /** @type {Generic[][]} */ (token.rows ?? []);
  return h(
    'div',
    { class: 'md-table' },
    h('table', {}, h('thead', {}, h('tr', {}, header.map((c, i) => cell(c, 'th', i)))), h('tbody', {}, rows.map((row) => h('tr', {}, row.map((c, i) => cell(c, 'td', i)))))),
  );
}

/**
 * @param {Token[] | undefined} tokens
 * @param {number} depth
 * @returns {Node[]}
 */
function inlines(tokens, depth) {
  return (tokens ?? []).flatMap((token) => inline(/** @type {Generic} */ (token), depth));
}

/**
 * @param {Generic} token
 * @param {number} depth
 * @returns {Node[]}
 */
function inline(token, depth) {
  if (depth > MAX_DEPTH) return visibleNodes(String(token.raw ?? ''));
  const next = depth + 1;
  switch (token.type) {
    case 'strong':
      return [h('strong', {}, inlines(token.tokens, next))];
    case 'em':
      return [h('em', {}, inlines(token.tokens, next))];
    case 'del':
      return [h('del', {}, inlines(token.tokens, next))];
    case 'codespan':
      return [h('code', {}, visibleNodes(String(token.text ?? '')))];
    case 'br':
      return [h('br')];
    case 'link': {
      // The words, and where they point, as text: a preview cannot send anyone anywhere.
      const href = String(token.href ?? '');
      const words = inlines(token.tokens, next);
      return [h('span', { class: 'md-link', title: href }, words), ...(href && token.text !== href ? [h('span', { class: 'md-href' }, ' (', visibleNodes(href), ')')] : [])];
    }
    case 'image':
      return [h('span', { class: 'md-image' }, visibleNodes(`[image: ${String(token.text || token.href || '')}]`))];
    case 'text':
      return token.tokens ? inlines(token.tokens, next) : visibleNodes(decodeEntities(String(token.text ?? '')));
    case 'escape':
      return visibleNodes(String(token.text ?? ''));
    default:
      // `html` and anything newer: its source, as text.
      return visibleNodes(String(token.raw ?? token.text ?? ''));
  }
}

/** marked escapes `&`, `<`, `>`, `"` and `'` in text it expects to be HTML; here it stays text. */
const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** @param {string} text */
function decodeEntities(text) {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[/** @type {keyof typeof ENTITIES} */ (entity)]);
}

// ---------------------------------------------------------------------------------------------
// Code, highlighted: a small tokenizer that knows what most languages share (comments, strings,
// numbers, keywords). It only wraps text in spans; the code itself is never interpreted.

const KEYWORDS = new Set(
  (
    'abstract and as async await break case catch class const continue def default defer delete do elif else enum except export extends false final finally fn for from func function go if impl implements import in instanceof interface is lambda let loop match mod module mut new nil none not null or package pass private protected pub public raise return self select static struct super switch this throw throws true try type typeof undefined union unsafe use var void where while with yield ' +
    'SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE PRIMARY KEY NOT NULL REFERENCES JOIN ON AND OR ORDER BY GROUP LIMIT INTEGER TEXT'
  ).split(' '),
);

/** One pattern per kind, tried in this order at each position. */
const CODE_TOKEN = /(\/\/[^\n]*|#(?![{[])[^\n]*|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi;

/** Languages whose `#` starts a comment; elsewhere it is often an operator or a CSS colour. */
const HASH_COMMENTS = /^(?:py|python|sh|bash|shell|zsh|console|rb|ruby|yaml|yml|toml|conf|ini|r|perl|pl|make|makefile|dockerfile)$/i;
/** Languages whose `--` starts a comment. */
const DASH_COMMENTS = /^(?:sql|lua|haskell|hs|elm)$/i;

/**
 * @param {string} code
 * @param {string} lang
 */
function codeBlock(code, lang) {
  const language = lang.split(/\s/)[0] ?? '';
  const body = h('code', { class: 'md-code-body' });
  let last = 0;
  for (const match of code.matchAll(CODE_TOKEN)) {
    const [text, comment, string, number, word] = match;
    const at = match.index ?? 0;
    let kind = null;
    if (comment !== undefined) {
      if ((comment.startsWith('#') && !HASH_COMMENTS.test(language)) || (comment.startsWith('--') && !DASH_COMMENTS.test(language))) continue;
      kind = 'comment';
    } else if (string !== undefined) kind = 'string';
    else if (number !== undefined) kind = 'number';
    else if (word !== undefined && KEYWORDS.has(word)) kind = 'keyword';
    if (!kind) continue;
    if (at > last) body.append(...visibleNodes(code.slice(last, at)));
    body.append(h('span', { class: `tok-${kind}` }, visibleNodes(text)));
    last = at + text.length;
  }
  if (last < code.length) body.append(...visibleNodes(code.slice(last)));
  return h('pre', { class: 'md-code', 'data-lang': language ? language.slice(0, 20) : null, dir: 'ltr' }, body);
}
