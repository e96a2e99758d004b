// Telling people that an ask waits, once, as it starts waiting: every channel of the list main.ts
// wires (Telegram, the webhooks, Web Push: channels.ts). A permission or a plan is told only once it
// has waited approvalNoticeSeconds: its dialog is on the terminal too, where the person often answers
// at once. An ask settled the moment it was asked (a rule, an unattended session) waits for nobody,
// so nobody is told. The end of a turn is told at once (it waits only while the person is away); a
// session waiting in its terminal only while the person is away (else they are at that terminal).
// With `tell: "away"`, nothing is told while the person is here (not away, and a paired page in
// view): what waits then is told once they leave (away on, or no page in view), if it still waits.
// This runs after the store has moved on and never throws into it: no notice can hold up an answer.
import type { Config } from '../config.js';
import type { AskStore } from './asks/store.js';
import type { Channel } from './channels.js';

export type NotifierOptions = {
  store: AskStore;
  /** The channels that tell people, in the order they are told. */
  channels: readonly Channel[];
  /** How long a permission waits before anyone is told (it reloads with the config file). */
  config: (cwd: string) => Pick<Config, 'approvalNoticeSeconds' | 'tell'>;
  /** Whether the person said they are away. */
  away: () => boolean;
  /** Whether a paired page is in view now. */
  pageVisible: () => boolean;
  log: Record<'info' | 'error', (fields: Record<string, unknown>, message: string) => void>;
};

export function createNotifier(options: NotifierOptions) {
  // Approvals told later, by id: a settled one is told nothing, and closing forgets them all.
  const delayed = new Map<string, NodeJS.Timeout>();
  // Asks not told because the person was here (`tell: "away"`), told once they leave.
  const heldWhileHere = new Set<string>();
  const personHere = () => !options.away() && options.pageVisible();
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type === 'resolved') {
      clearTimeout(delayed.get(event.ask.id));
      delayed.delete(event.ask.id);
      heldWhileHere.delete(event.ask.id);
      return;
    }
    if (event.type !== 'added') return;
    const { id } = event.ask;
    if (event.ask.terminalWait && !options.away()) return;
    if (event.ask.approval) {
      // A person at the terminal usually answers its dialog at once: nobody is told unless it still waits.
      const delayMs = options.config(event.ask.cwd).approvalNoticeSeconds * 1000;
      delayed.set(
        id,
        setTimeout(() => {
          delayed.delete(id);
          tell(id);
        }, delayMs),
      );
      return;
    }
    // The store tells subscribers in the middle of its work, and settles an immediate answer right after.
    setImmediate(() => tell(id));
  });

  /** Tells every channel that this ask waits (if it still does); one that fails does not keep the others from being told. */
  function tell(id: string): void {
    const ask = options.store.get(id);
    if (ask?.status !== 'pending') return;
    if (options.config(ask.cwd).tell === 'away' && personHere()) {
      if (!heldWhileHere.has(id)) options.log.info({ askId: id }, 'not told while the person is here (tell: away)');
      heldWhileHere.add(id);
      return;
    }
    heldWhileHere.delete(id);
    for (const channel of options.channels) {
      try {
        channel.tell(ask);
      } catch (error) {
        options.log.error({ askId: id, channel: channel.client, error: (error as Error).message }, 'could not tell anyone about a waiting question');
      }
    }
  }
  return {
    /** The person may have left (away on, no page in view): what was held while they were here is told now. */
    personMayHaveLeft(): void {
      for (const id of [...heldWhileHere]) tell(id);
    },
    close(): void {
      unsubscribe();
      heldWhileHere.clear();
      for (const timer of delayed.values()) clearTimeout(timer);
      delayed.clear();
    },
  };
}
