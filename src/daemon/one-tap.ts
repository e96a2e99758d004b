// One-tap answers from a notification that cannot carry a page's credentials (ntfy's buttons): a
// capability is a random secret that answers one ask with one of its options, once. Only its hash is
// kept; it dies when it is used, when its ask is settled or expires, and with the daemon. How many
// live is bounded as asks are (limits.ts): in all, per credential and per asker, keyed as the store
// keys asks; an ask whose asker holds its share gets none (its notice offers Open), and no
// capability ever dies to make room for another, so no asker can take another's buttons away. The
// secret itself is never logged, never put in a URL (it rides in a request's body) and never
// written anywhere.
import { createHash, randomBytes } from 'node:crypto';
import { askerKeyOf, type AskStore } from './asks/store.js';
import { MAX_CAPABILITIES, shareOf, type Scope } from './limits.js';

/** Where a capability is sent (routes/one-tap.ts). */
export const ONE_TAP_PATH = '/api/one-tap';

const hashOf = (capability: string) => createHash('sha256').update(capability).digest('hex');

/** What a live capability answers: its ask, and the option chosen (its exact label). */
export type Tap = { askId: string; label: string };

export function createOneTap(options: { store: AskStore; max?: number }) {
  const max = options.max ?? MAX_CAPABILITIES;
  // sha256(capability) -> what it answers, and the counts it is held in (everyone's, its credential's, its asker's).
  const taps = new Map<string, Tap & { counted: string[] }>();
  const held = new Map<string, number>();
  const count = (counted: readonly string[], sign: 1 | -1) => {
    for (const key of counted) {
      const now = (held.get(key) ?? 0) + sign;
      if (now === 0) held.delete(key);
      else held.set(key, now);
    }
  };
  const drop = (hash: string) => {
    const tap = taps.get(hash);
    if (!tap) return undefined;
    taps.delete(hash);
    count(tap.counted, -1);
    return { askId: tap.askId, label: tap.label };
  };
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type !== 'resolved') return;
    for (const [hash, tap] of taps) if (tap.askId === event.ask.id) drop(hash);
  });

  return {
    /**
     * A new capability for each option of this ask's one question, in order, each answering it with
     * that option; undefined when the ask does not wait, is not one single-select question, or its
     * asker (or its credential, or everyone) holds as many as it may.
     */
    issue(askId: string): string[] | undefined {
      const ask = options.store.get(askId);
      const asker = options.store.askerOf(askId);
      const question = ask?.questions.length === 1 ? ask.questions[0] : undefined;
      if (ask?.status !== 'pending' || !asker || !question || question.multiSelect) return undefined;
      const scopes: Array<[Scope, string]> = [
        ['all', 'all'],
        ['credential', `credential ${asker.credential}`],
        ['asker', `asker ${askerKeyOf(asker)}`],
      ];
      const wanted = question.options.length;
      if (scopes.some(([scope, key]) => (held.get(key) ?? 0) + wanted > shareOf(max, scope))) return undefined;
      const counted = scopes.map(([, key]) => key);
      return question.options.map((option) => {
        const capability = randomBytes(32).toString('base64url');
        taps.set(hashOf(capability), { askId, label: option.label, counted });
        count(counted, 1);
        return capability;
      });
    },

    /** Whether this capability would answer now (for the rate limit: a live capability is not a guess). */
    isLive: (capability: string | undefined) => capability !== undefined && taps.has(hashOf(capability)),

    /** Spends a capability: what it answers, or undefined for one that is used, dead, altered or never made. */
    take: (capability: string): Tap | undefined => drop(hashOf(capability)),

    close(): void {
      unsubscribe();
      taps.clear();
      held.clear();
    },
  };
}

export type OneTap = ReturnType<typeof createOneTap>;
