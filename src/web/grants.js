// @ts-check
// The strip of live grants at the top of the inbox: while any grant lives, each one in words (what
// it allows, where, and from where it was made), its time left, and Revoke. The daemon sends the
// whole list whenever it changes (a `grants` message); the time left is counted here.
import { revokeGrant, errorMessage } from './api.js';
import { h } from './dom.js';
import { visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').Grant} Grant */

/** How often the time left is counted again. */
const TICK_MS = 15_000;

/**
 * @param {{ root: HTMLElement; list: HTMLElement; error: HTMLElement; announce: (text: string) => void }} ui
 */
export function createGrantStrip(ui) {
  /** @type {Grant[]} */
  let grants = [];
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let ticker;

  function render() {
    const now = Date.now();
    const live = grants.filter((grant) => grant.endsAt > now);
    ui.root.hidden = live.length === 0;
    ui.list.replaceChildren(...live.map((grant) => row(grant, now)));
    if (live.length === 0 && ticker !== undefined) {
      clearInterval(ticker);
      ticker = undefined;
    } else if (live.length > 0 && ticker === undefined) ticker = setInterval(render, TICK_MS);
  }

  /**
   * @param {Grant} grant
   * @param {number} now
   */
  function row(grant, now) {
    const revoke = h('button', { type: 'button', class: 'btn btn-quiet btn-revoke-grant', 'aria-label': `Revoke the grant ${grant.rule}`, text: 'Revoke' });
    revoke.addEventListener('click', async () => {
      revoke.disabled = true;
      const result = await revokeGrant(grant.id);
      if (result.ok) {
        ui.error.hidden = true;
        ui.announce('Grant revoked: those requests wait for you again');
        return;
      }
      revoke.disabled = false;
      ui.error.textContent = errorMessage(result, 'The grant could not be revoked');
      ui.error.hidden = false;
    });
    return h(
      'li',
      { class: 'grant', 'data-grant': grant.id },
      h('p', { class: 'grant-words' }, visibleNodes(capitalised(grant.words))),
      h(
        'p',
        { class: 'grant-meta' },
        h('code', { class: 'grant-rule', dir: 'ltr' }, visibleNodes(grant.rule)),
        ' · ',
        grant.scope === 'session' ? 'this session' : 'every session of this project',
        ' · made from ',
        visibleNodes(grant.by),
      ),
      h('p', { class: 'grant-left', text: timeLeft(grant, now) }),
      revoke,
    );
  }

  return {
    /** @param {Grant[]} next */
    show(next) {
      grants = next;
      render();
    },
  };
}

/** @param {string} text */
const capitalised = (text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/**
 * "12 min left", "1 h 5 min left", "until the session ends (7 h 59 min left at most)".
 * @param {Grant} grant
 * @param {number} now
 */
export function timeLeft(grant, now) {
  const minutes = Math.max(1, Math.ceil((grant.endsAt - now) / 60_000));
  const left = minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h${minutes % 60 === 0 ? '' : ` ${minutes % 60} min`}`;
  return grant.untilSessionEnds ? `Until the session ends (at most ${left})` : `${left} left`;
}
