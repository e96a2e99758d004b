// One-tap answers from a notification that cannot carry a page's credentials (ntfy's buttons): a
// capability is a random secret that answers one ask with one of its options, once. Only its hash is
// kept; it dies when it is used, when its ask is settled or expires, and with the daemon; the oldest
// go first once there are too many. The secret itself is never logged, never put in a URL (it rides in
// a request's body) and never written anywhere.
import { createHash, randomBytes } from 'node:crypto';
import type { AskStore } from './asks/store.js';

/** Where a capability is sent (routes/one-tap.ts). */
export const ONE_TAP_PATH = '/api/one-tap';

/** Capabilities kept at once; past it the oldest die (a notice to a phone that old is long gone). */
export const MAX_CAPABILITIES = 3_000;

const hashOf = (capability: string) => createHash('sha256').update(capability).digest('hex');

/** What a live capability answers: its ask, and the option chosen (its exact label). */
export type Tap = { askId: string; label: string };

export function createOneTap(options: { store: AskStore; max?: number }) {
  const max = options.max ?? MAX_CAPABILITIES;
  const taps = new Map<string, Tap>(); // sha256(capability) -> what it answers, oldest first
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type !== 'resolved') return;
    for (const [hash, tap] of taps) if (tap.askId === event.ask.id) taps.delete(hash);
  });

  return {
    /**
     * A new capability that answers this ask's one question with its option at `index`; undefined when
     * the ask does not wait, or is not one single-select question with that option.
     */
    issue(askId: string, index: number): string | undefined {
      const ask = options.store.get(askId);
      const question = ask?.questions.length === 1 ? ask.questions[0] : undefined;
      const option = question && !question.multiSelect ? question.options[index] : undefined;
      if (ask?.status !== 'pending' || !option) return undefined;
      const capability = randomBytes(32).toString('base64url');
      if (taps.size >= max) taps.delete(taps.keys().next().value!);
      taps.set(hashOf(capability), { askId, label: option.label });
      return capability;
    },

    /** Whether this capability would answer now (for the rate limit: a live capability is not a guess). */
    isLive: (capability: string | undefined) => capability !== undefined && taps.has(hashOf(capability)),

    /** Spends a capability: what it answers, or undefined for one that is used, dead, altered or never made. */
    take(capability: string): Tap | undefined {
      const hash = hashOf(capability);
      const tap = taps.get(hash);
      taps.delete(hash);
      return tap;
    },

    close(): void {
      unsubscribe();
      taps.clear();
    },
  };
}

export type OneTap = ReturnType<typeof createOneTap>;
