// @ts-check
// The inbox: every waiting question set, grouped by the agent and session that asked, oldest first. It is
// kept up to date one row at a time (a new question inserts one row, an answer removes one), so
// that it stays fast with thousands waiting; rows off screen are skipped by the browser's layout
// (content-visibility in app.css).
import { agentNameOf } from './api.js';
import { h } from './dom.js';
import { KIND_LABELS } from './approval.js';
import { projectName, shortId } from './ask-form.js';
import { approvalKind, toolSummary } from './tool-input.js';
import { elicitationHeadline } from './elicitation.js';
import { saidShort, terminalWaitHeadline, TURN_LABELS } from './turn-end.js';
import { markInvisible, visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */

/**
 * @typedef {{
 *   key: string; oldest: number; views: AskView[]; el: HTMLElement; list: HTMLElement;
 *   count: HTMLElement; age: HTMLElement; left: HTMLElement; about: HTMLElement;
 * }} Group
 */

/** Questions from the same agent's session, or the same script or MCP client, on the same machine. */
function groupKey(/** @type {AskView} */ view) {
  const who = view.asker ? `${view.asker.kind}:${view.asker.name}` : `${view.agent ?? 'claude-code'}:session:${view.sessionId}`;
  return `${view.machine ?? ''}\u0000${who}`;
}

/** Oldest first; the id breaks ties so the order is the same in every tab. */
function before(/** @type {AskView} */ a, /** @type {AskView} */ b) {
  return a.createdAt !== b.createdAt ? a.createdAt < b.createdAt : a.id < b.id;
}

/**
 * The first index at which `item` may go in the sorted `list`.
 * @template T
 * @param {T[]} list
 * @param {(other: T) => boolean} goesAfter whether the item goes after `other`
 */
function insertionIndex(list, goesAfter) {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (goesAfter(/** @type {T} */ (list[middle]))) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * @param {HTMLElement} root
 * @param {{ open(id: string): void }} handlers
 */
export function createInbox(root, handlers) {
  /** @type {Group[]} sorted by their oldest question */
  const groups = [];
  /** @type {Map<string, Group>} */
  const byKey = new Map();
  /** @type {Map<string, { view: AskView; row: HTMLElement; group: Group }>} */
  const rows = new Map();
  /** @type {string | null} */
  let current = null;

  root.addEventListener('click', (event) => {
    const button = /** @type {Element | null} */ (event.target instanceof Element ? event.target : null)?.closest('[data-ask-id]');
    if (button instanceof HTMLElement && button.dataset.askId) handlers.open(button.dataset.askId);
  });

  /** @param {AskView} view */
  function newGroup(view) {
    const count = h('span', { class: 'count' });
    const age = h('span', { class: 'group-age' });
    const left = h('span', { class: 'group-left' });
    const about = h('p', { class: 'group-about' });
    const list = h('ul', { class: 'group-list', role: 'list' });
    const headingId = `group-${rows.size}-${Math.random().toString(36).slice(2, 8)}`;
    const whoId = `${headingId}-who`;
    // An agent askbridge knows that asks through its MCP tool (Gemini CLI) is named as that agent, not by its client's name.
    const who = view.asker
      ? view.agent !== undefined
        ? [h('span', { class: 'group-asker', id: whoId, text: `${agentNameOf(view)} through MCP` })]
        : [h('span', { class: 'group-asker', text: view.asker.kind === 'mcp' ? 'MCP client ' : 'script ' }), h('code', { id: whoId }, visibleNodes(view.asker.name))]
      : [h('span', { class: 'group-agent', id: `${whoId}-agent`, text: `${agentNameOf(view)} ` }), h('code', { class: 'group-session', id: whoId, title: markInvisible(view.sessionId) }, visibleNodes(shortId(view.sessionId)))];
    // Named by the project, the agent and the session (or asker): two agents, or two sessions, of one project are two groups a screen reader tells apart.
    const el = h(
      'section',
      { class: 'group', 'aria-labelledby': view.asker ? `${headingId} ${whoId}` : `${headingId} ${whoId}-agent ${whoId}` },
      h(
        'header',
        { class: 'group-head' },
        h('h3', { class: 'group-title', id: headingId, title: view.cwd ? markInvisible(view.cwd) : null }, h('span', { class: 'group-project' }, visibleNodes(projectName(view.cwd))), count),
        h('p', { class: 'group-meta' }, who, view.machine ? [' on ', h('code', {}, visibleNodes(view.machine))] : null, h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }), age, left),
        about,
      ),
      list,
    );
    /** @type {Group} */
    const group = { key: groupKey(view), oldest: view.createdAt, views: [], el, list, count, age, left, about };
    showAbout(group, view);
    return group;
  }

  /** @param {Group} group @param {AskView} view */
  function showAbout(group, view) {
    const context = view.context ?? {};
    const parts = [
      context.branch ? h('span', { class: 'branch' }, h('span', { class: 'branch-icon', 'aria-hidden': 'true', text: '⎇ ' }), visibleNodes(context.branch)) : null,
      context.title ? h('span', { class: 'session-title', dir: 'auto' }, visibleNodes(context.title)) : null,
    ].filter((part) => part !== null);
    group.about.replaceChildren(...parts);
    group.about.hidden = parts.length === 0;
  }

  /** @param {Group} group */
  function placeGroup(group) {
    const index = insertionIndex(groups, (other) => other.oldest < group.oldest || (other.oldest === group.oldest && other.key < group.key));
    groups.splice(index, 0, group);
    root.insertBefore(group.el, groups[index + 1]?.el ?? null);
  }

  /** @param {Group} group */
  function unplaceGroup(group) {
    const index = groups.indexOf(group);
    if (index >= 0) groups.splice(index, 1);
  }

  /** @param {AskView} view */
  function rowOf(view) {
    if (view.approval) {
      // An approval reads differently at a glance: its badge, then what it asks for in one line.
      const kind = approvalKind(view.approval);
      return h(
        'li',
        { class: 'item-row' },
        h(
          'button',
          { type: 'button', class: 'item item-approval', 'data-ask-id': view.id, 'data-kind': kind },
          h('span', { class: 'item-text', dir: 'auto' }, h('span', { class: 'kind-badge', 'data-kind': kind, text: KIND_LABELS[kind] }), ' ', visibleNodes(toolSummary(view.approval))),
        ),
      );
    }
    if (view.turnEnd || view.terminalWait || view.elicitation) {
      // The end of a turn: its badge, then the start of what Claude said; a wait in the terminal: what it waits for; an MCP server's request: which server.
      const kind = view.turnEnd ? 'turn-end' : view.elicitation ? 'elicitation' : 'terminal-wait';
      const text = view.turnEnd ? saidShort(view.turnEnd.lastMessage) || 'Claude finished' : view.elicitation ? elicitationHeadline(view) : terminalWaitHeadline(view.terminalWait?.kind);
      return h(
        'li',
        { class: 'item-row' },
        h('button', { type: 'button', class: 'item item-turn', 'data-ask-id': view.id, 'data-kind': kind }, h('span', { class: 'item-text', dir: 'auto' }, h('span', { class: 'kind-badge', 'data-kind': kind, text: TURN_LABELS[kind] }), ' ', visibleNodes(text))),
      );
    }
    const first = view.questions[0];
    const headers = view.questions.map((q) => q.header).filter(Boolean);
    const button = h(
      'button',
      { type: 'button', class: 'item', 'data-ask-id': view.id },
      h('span', { class: 'item-text', dir: 'auto' }, visibleNodes(first ? first.question : '')),
      h('span', { class: 'item-meta' }, headers.length ? h('span', { class: 'item-headers' }, visibleNodes(headers.join(' · '))) : null, view.questions.length > 1 ? h('span', { class: 'item-count', text: `${view.questions.length} questions` }) : null),
    );
    return h('li', { class: 'item-row' }, button);
  }

  /** @param {Group} group */
  function refreshGroup(group) {
    group.count.textContent = String(group.views.length);
    group.count.setAttribute('aria-label', `${group.views.length} waiting`);
  }

  return {
    /** @param {AskView} view */
    add(view) {
      if (rows.has(view.id)) return;
      const key = groupKey(view);
      let group = byKey.get(key);
      if (!group) {
        group = newGroup(view);
        byKey.set(key, group);
        placeGroup(group);
      }
      const index = insertionIndex(group.views, (other) => before(other, view));
      group.views.splice(index, 0, view);
      const row = rowOf(view);
      const next = group.views[index + 1];
      group.list.insertBefore(row, next ? (rows.get(next.id)?.row ?? null) : null);
      rows.set(view.id, { view, row, group });
      if (view.id === current) row.firstElementChild?.setAttribute('aria-current', 'true');
      if (index === 0 && view.createdAt < group.oldest) {
        unplaceGroup(group);
        group.oldest = view.createdAt;
        placeGroup(group);
      }
      if (view.context) showAbout(group, view);
      refreshGroup(group);
      updateTimes(group, Date.now());
    },
    /** @param {AskView} view */
    update(view) {
      const entry = rows.get(view.id);
      if (!entry) return;
      const index = entry.group.views.indexOf(entry.view);
      if (index >= 0) entry.group.views[index] = view;
      entry.view = view;
      if (view.context) showAbout(entry.group, view);
      updateTimes(entry.group, Date.now());
    },
    /** @param {string} id */
    remove(id) {
      const entry = rows.get(id);
      if (!entry) return;
      rows.delete(id);
      entry.row.remove();
      const { group } = entry;
      const index = group.views.indexOf(entry.view);
      if (index >= 0) group.views.splice(index, 1);
      if (group.views.length === 0) {
        unplaceGroup(group);
        byKey.delete(group.key);
        group.el.remove();
        return;
      }
      if (index === 0) {
        unplaceGroup(group);
        group.oldest = /** @type {AskView} */ (group.views[0]).createdAt;
        group.el.remove();
        placeGroup(group);
      }
      refreshGroup(group);
      updateTimes(group, Date.now());
    },
    /** @param {string} id */
    has(id) {
      return rows.has(id);
    },
    /** @param {string} id */
    view(id) {
      return rows.get(id)?.view;
    },
    get size() {
      return rows.size;
    },
    /** Every waiting question set, in the order shown. */
    order() {
      return groups.flatMap((group) => group.views);
    },
    /**
     * The one `step` places away from `id` in the order shown (wrapping round), or the first.
     * @param {string | null} id
     * @param {number} step
     */
    neighbour(id, step) {
      const order = this.order();
      if (order.length === 0) return null;
      const index = id === null ? -1 : order.findIndex((view) => view.id === id);
      if (index < 0) return order[0] ?? null;
      return order[(index + step + order.length) % order.length] ?? null;
    },
    /**
     * What comes after `id` once it ends: the next of its own session (so one session is cleared
     * in one go), else the oldest waiting anywhere.
     * @param {string} id
     */
    nextAfter(id) {
      const entry = rows.get(id);
      const siblings = entry?.group.views ?? [];
      const index = entry ? siblings.indexOf(entry.view) : -1;
      const sibling = index >= 0 ? (siblings[index + 1] ?? siblings[index - 1]) : undefined;
      if (sibling) return sibling;
      return groups.flatMap((group) => group.views.slice(0, 2)).find((view) => view.id !== id) ?? null;
    },
    /** @param {string | null} id */
    setCurrent(id) {
      if (current) rows.get(current)?.row.firstElementChild?.removeAttribute('aria-current');
      current = id;
      const row = id ? rows.get(id)?.row : undefined;
      row?.firstElementChild?.setAttribute('aria-current', 'true');
      // The row of the set in focus stays in sight in the inbox's own scroll.
      row?.scrollIntoView({ block: 'nearest' });
    },
    /** @param {number} now */
    tick(now) {
      for (const group of groups) updateTimes(group, now);
    },
  };

  /**
   * The group's age (its oldest question) and time left (its soonest deadline), in whole minutes:
   * the inbox changes once a minute; the question in focus counts the seconds.
   * @param {Group} group
   * @param {number} now
   */
  function updateTimes(group, now) {
    let soonest = Number.POSITIVE_INFINITY;
    // A wait in the terminal has no deadline that matters: it lasts until the session moves on.
    for (const view of group.views) if (!view.terminalWait && Number.isFinite(view.expiresAt) && view.expiresAt < soonest) soonest = view.expiresAt;
    setText(group.age, `asked ${roughAge(now - group.oldest)}`);
    setText(group.left, Number.isFinite(soonest) ? ` · ${shortLeft(soonest - now)}` : '');
    group.left.classList.toggle('is-urgent', soonest - now < 60_000);
  }
}

/** @param {HTMLElement} el @param {string} text */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** @param {number} ms */
function shortLeft(ms) {
  if (ms <= 0) return 'time is up';
  const minutes = Math.ceil(ms / 60_000);
  if (minutes <= 1) return 'under a minute left';
  if (minutes < 120) return `${minutes} min left`;
  return `${Math.round(minutes / 60)} h left`;
}

/** @param {number} ms */
export function roughAge(ms) {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}
