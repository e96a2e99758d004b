// Telling people that a question waits, once, as it starts waiting: every webhook of the user's
// config, and a Web Push to every subscribed device when no page is in view (whoever looks at a page
// sees the question already). A permission or a plan is told only once it has waited
// approvalNoticeSeconds: its dialog is on the terminal too, where the person often answers at once. A question settled the moment it was asked (a rule, an unattended
// session) waits for nobody, so nobody is told. The end of a turn is told at once (it waits only
// while the person is away); a session waiting in its terminal only while the person is away (else
// they are at that terminal). This runs after the store has moved on and never
// throws into it: no notice can hold up an answer.
import type { Config } from '../config.js';
import type { AskStore } from './asks/store.js';
import { noticeOf } from './notice.js';
import type { Push } from './push.js';
import type { Webhooks } from './webhooks.js';
import type { Telegram } from './telegram/bot.js';

export type NotifierOptions = {
  store: AskStore;
  /** The user's notify and push settings now (they reload with the config file). */
  config: (cwd: string) => Pick<Config, 'notify' | 'push' | 'approvalNoticeSeconds'>;
  /** The page, opened on this question: at the public URL when there is one. */
  link: (askId: string) => string;
  webhooks: Webhooks;
  /** Undefined when the daemon could not open Web Push. */
  push: Push | undefined;
  /** The user's Telegram bot: every paired chat is told, whether or not a page is in view. */
  telegram?: Pick<Telegram, 'tell'>;
  /** Whether a connected page says a person can see it. */
  pageVisible: () => boolean;
  /** The devices paired now: only they may still get pushes. */
  pairedDevices: () => string[];
  /** Whether the person said they are away. */
  away: () => boolean;
  now?: () => number;
  log: (fields: Record<string, unknown>, message: string) => void;
};

export function createNotifier(options: NotifierOptions) {
  const now = options.now ?? Date.now;
  // Approvals told later, by id: a settled one is told nothing, and closing forgets them all.
  const delayed = new Map<string, NodeJS.Timeout>();
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type === 'resolved') {
      clearTimeout(delayed.get(event.ask.id));
      delayed.delete(event.ask.id);
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

  /** Tells every webhook, and every paired device unless a page is in view, that this ask waits (if it still does). */
  function tell(id: string): void {
    try {
      const question = options.store.get(id);
      if (question?.status !== 'pending') return;
      options.telegram?.tell(question);
      const { notify, push } = options.config(question.cwd);
      if (notify.length > 0) options.webhooks.send(notify, noticeOf(question, { fullText: false }), options.link(id));
      if (options.push && !options.pageVisible()) {
        // A push service keeps it for an offline phone as long as the question may still be answered.
        options.push.send(noticeOf(question, { fullText: push.fullText === true }), { pairedDevices: options.pairedDevices(), ttlSeconds: (question.expiresAt - now()) / 1000 });
      }
    } catch (error) {
      options.log({ askId: id, error: (error as Error).message }, 'could not tell anyone about a waiting question');
    }
  }
  return {
    close(): void {
      unsubscribe();
      for (const timer of delayed.values()) clearTimeout(timer);
      delayed.clear();
      options.webhooks.close();
      options.push?.close();
    },
  };
}
