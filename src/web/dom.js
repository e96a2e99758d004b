// @ts-check
// Building the page's DOM from data: elements with attributes and children, strings as Text nodes
// only, so that text from a model is always data, never markup. And the panels a button opens
// (Devices, History, the bell's menu), which Esc closes, the one opened last first.
import { visibleNodes } from './visible-text.js';

/**
 * The element index.html holds with this id.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element;
}

/**
 * createElement with attributes and children; strings become Text nodes, so data stays data.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...(Node | string | null | undefined | false | Array<Node | string | null | undefined | false>)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = String(value);
    else if (key === 'text') el.textContent = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

/**
 * Text the daemon wrote, where a part between backticks names a command or a rule ("run `askbridge
 * open`", "Always allow `Bash(npm test:*)`"): that part as code, as the page's own text shows one.
 * Every part as text, its invisible characters marked (a rule comes from what a model asked to run).
 * @param {unknown} text
 * @returns {Node[]}
 */
export function withCode(text) {
  return String(text)
    .split(/`([^`\n]+)`/)
    .flatMap((part, index) => (index % 2 === 1 ? [h('code', null, visibleNodes(part))] : part === '' ? [] : visibleNodes(part)));
}

/**
 * @typedef {{ button: HTMLElement; panel: HTMLElement; readonly open: boolean; show(): void; hide(): void }} Panel
 */

/** @type {Panel[]} open panels, the one opened last at the end */
const openPanels = [];

/**
 * A panel its button shows and hides: the button says which (aria-expanded), `onOpen` runs each time it opens.
 * @param {HTMLElement} button
 * @param {HTMLElement} panel
 * @param {{ onOpen?: () => void }} [how]
 * @returns {Panel}
 */
export function togglePanel(button, panel, how = {}) {
  /** @type {Panel} */
  const self = {
    button,
    panel,
    get open() {
      return !panel.hidden;
    },
    show() {
      panel.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      forgetPanel(self);
      openPanels.push(self);
      how.onOpen?.();
    },
    hide() {
      panel.hidden = true;
      button.setAttribute('aria-expanded', 'false');
      forgetPanel(self);
    },
  };
  button.addEventListener('click', () => (self.open ? self.hide() : self.show()));
  return self;
}

/**
 * A <details> menu (its <summary> is the button) as a panel that Esc closes too.
 * @param {HTMLDetailsElement} details
 * @returns {Panel}
 */
export function detailsPanel(details) {
  const summary = /** @type {HTMLElement} */ (details.querySelector('summary'));
  /** @type {Panel} */
  const self = {
    button: summary,
    panel: details,
    get open() {
      return details.open;
    },
    show() {
      details.open = true;
    },
    hide() {
      details.open = false;
    },
  };
  details.addEventListener('toggle', () => {
    forgetPanel(self);
    if (details.open) openPanels.push(self);
  });
  return self;
}

/** @param {Panel} panel */
function forgetPanel(panel) {
  const index = openPanels.indexOf(panel);
  if (index >= 0) openPanels.splice(index, 1);
}

/**
 * Esc: hides the panel opened last, if one is open, and says whether it did. Focus that was in it
 * (or nowhere) goes back to its button, so the next Tab starts where the panel was opened.
 */
export function closeLastPanel() {
  const last = openPanels.at(-1);
  if (!last) return false;
  const active = document.activeElement;
  const focusWasIn = !active || active === document.body || last.panel.contains(active) || active === last.button;
  last.hide();
  forgetPanel(last);
  if (focusWasIn) last.button.focus();
  return true;
}
