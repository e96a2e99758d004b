// Telling people that an ask waits, once, as it starts waiting: every channel of the list main.ts
// wires (Telegram, the webhooks, Web Push: channels.ts). A permission or a plan is told only once it
// has waited approvalNoticeSeconds: its dialog is on the terminal too, where the person often answers
// at once. An ask settled the moment it was asked (a rule, an unattended session) waits for nobody,
// so nobody is told. The end of a turn is told at once (it waits only while someone it is for is
// away); a session waiting in its terminal only while someone it is for is away (else they are at
// that terminal). With `tell: "away"`, a channel is quiet while its person is here: a chat or a
// device paired for a person while that person is not away and one of their pages is in view; one of
// nobody's (a webhook, a chat or a device paired for nobody) while the daemon's own user is not away
// and any paired page is in view. What was held is told once they leave (away on, or no such page in
// view), if it still waits.
// This runs after the store has moved on and never throws into it: no notice can hold up an answer.
import type { Config } from '../config.js';
import type { AskStore } from './asks/store.js';
import type { AwaySwitch } from './away.js';
import type { Channel, Tells } from './channels.js';

export type NotifierOptions = {
  store: AskStore;
  /** The channels that tell people, in the order they are told. */
  channels: readonly Channel[];
  /** How long a permission waits before anyone is told (it reloads with the config file). */
  config: (cwd: string) => Pick<Config, 'approvalNoticeSeconds' | 'tell'>;
  /** Who said they are away. */
  away: Pick<AwaySwitch, 'isAway' | 'awayFor'>;
  /** Whether a paired page is in view now: any, or one of this person's. */
  pageVisible: (person?: string) => boolean;
  /** The names of the people askbridge knows (none: one person, "you"). */
  people: () => readonly string[];
  log: Record<'info' | 'error', (fields: Record<string, unknown>, message: string) => void>;
};

export function createNotifier(options: NotifierOptions) {
  // Approvals told later, by id: a settled one is told nothing, and closing forgets them all.
  const delayed = new Map<string, NodeJS.Timeout>();
  // Asks not told to everyone because some were here (`tell: "away"`): whose channels were left
  // out (undefined: those of nobody's), told once they leave.
  const heldWhileHere = new Map<string, Set<string | undefined>>();
  const isHere = (person: string | undefined) => !options.away.isAway(person) && options.pageVisible(person);
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type === 'resolved') {
      clearTimeout(delayed.get(event.ask.id));
      delayed.delete(event.ask.id);
      heldWhileHere.delete(event.ask.id);
      return;
    }
    // Another daemon's ask: that daemon tells its person's channels.
    if (event.type !== 'added' || event.elsewhere) return;
    const { id } = event.ask;
    if (event.ask.terminalWait && !options.away.awayFor(event.ask)) return;
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

  /**
   * Tells every channel that this ask waits (if it still does), but not those of people here when
   * `tell` is "away"; told again, it tells those of the people held who have left since. One channel
   * that fails does not keep the others from being told.
   */
  function tell(id: string): void {
    const ask = options.store.get(id);
    if (ask?.status !== 'pending') return;
    let tells: Tells = () => true;
    if (options.config(ask.cwd).tell === 'away') {
      const held = heldWhileHere.get(id);
      if (held) {
        const left = [...held].filter((person) => !isHere(person));
        if (left.length === 0) return;
        for (const person of left) held.delete(person);
        if (held.size === 0) heldWhileHere.delete(id);
        tells = (person) => left.includes(person);
      } else {
        const here = [undefined, ...options.people()].filter(isHere);
        if (here.length > 0) {
          heldWhileHere.set(id, new Set(here));
          options.log.info({ askId: id, here: here.map((person) => person ?? 'you') }, 'not told while the person is here (tell: away)');
        }
        tells = (person) => !here.includes(person);
      }
    }
    for (const channel of options.channels) {
      try {
        channel.tell(ask, tells);
      } catch (error) {
        options.log.error({ askId: id, channel: channel.client, error: (error as Error).message }, 'could not tell anyone about a waiting question');
      }
    }
  }
  return {
    /** Someone may have left (away on, a page out of view): what was held while they were here is told to them now. */
    personMayHaveLeft(): void {
      for (const id of [...heldWhileHere.keys()]) tell(id);
    },
    close(): void {
      unsubscribe();
      heldWhileHere.clear();
      for (const timer of delayed.values()) clearTimeout(timer);
      delayed.clear();
    },
  };
}
