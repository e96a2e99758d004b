// @ts-check
// A decision a relay (askbridge attach opencode, attach codex) still has to hand to its agent: the
// page shows it as answered, not yet delivered, until the relay says the agent took it (then it is
// finished like any other), or as not delivered, and why, when it never can be. Nothing to do here:
// the relay delivers it. The reason is the relay's words, shown as text.
import { agentNameOf } from './api.js';
import { projectName } from './ask-form.js';
import { h } from './dom.js';
import { markInvisible, visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */

/**
 * What became of a relayed decision, in words: "Answered, not yet delivered to Codex", "Not
 * delivered: WHY"; null for any other ask (and for one delivered).
 * @param {{ delivery?: string; error?: string; agent?: string; asker?: unknown }} view
 */
export function deliveryTitle(view) {
  if (view.delivery === 'waiting') return `Answered, not yet delivered to ${agentNameOf(view) || 'its agent'}`;
  if (view.delivery === 'undeliverable') return `Not delivered: ${view.error ?? 'the agent no longer waits'}`;
  return null;
}

/**
 * The compact card of a relayed decision not delivered (yet), or null when there is none to show.
 * Its status is `undelivered` while a relay may still deliver it, `undeliverable` once it never can.
 * @param {AskView} view
 */
export function deliveryCard(view) {
  const title = deliveryTitle(view);
  if (title === null) return null;
  const status = view.delivery === 'waiting' ? 'undelivered' : 'undeliverable';
  const statusId = `status-${view.id}`;
  const projectId = `project-${view.id}`;
  const age = h('time', { class: 'age' });
  const root = h(
    'article',
    { class: 'card is-finished is-undelivered', 'data-question-id': view.id, 'data-status': status, 'aria-labelledby': `${statusId} ${projectId}` },
    h(
      'header',
      { class: 'finished-head' },
      h('span', { class: 'status-dot', 'aria-hidden': 'true' }),
      h('h3', { class: 'status-title', id: statusId, tabindex: '-1' }, visibleNodes(title)),
      h('p', { class: 'finished-meta' }, h('span', { class: 'project-small', id: projectId, title: view.cwd ? markInvisible(view.cwd) : null }, visibleNodes(projectName(view.cwd))), h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }), age),
    ),
  );
  return { root, age, title, status };
}
