// Telling people that a question waits, once, as it starts waiting: every webhook of the user's
// config, and a Web Push to every subscribed device when no page is in view (whoever looks at a page
// sees the question already). A question settled the moment it was asked (a rule, an unattended
// session) waits for nobody, so nobody is told. This runs after the store has moved on and never
// throws into it: no notice can hold up an answer.
import type { Config } from '../config.js';
import type { AskStore } from './asks/store.js';
import { noticeOf } from './notice.js';
import type { Push } from './push.js';
import type { Webhooks } from './webhooks.js';

export type NotifierOptions = {
  store: AskStore;
  /** The user's notify and push settings now (they reload with the config file). */
  config: (cwd: string) => Pick<Config, 'notify' | 'push'>;
  /** The page, opened on this question: at the public URL when there is one. */
  link: (askId: string) => string;
  webhooks: Webhooks;
  /** Undefined when the daemon could not open Web Push. */
  push: Push | undefined;
  /** Whether a connected page says a person can see it. */
  pageVisible: () => boolean;
  /** The devices paired now: only they may still get pushes. */
  pairedDevices: () => string[];
  now?: () => number;
  log: (fields: Record<string, unknown>, message: string) => void;
};

export function createNotifier(options: NotifierOptions) {
  const now = options.now ?? Date.now;
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type !== 'added') return;
    const { id } = event.ask;
    // The store tells subscribers in the middle of its work, and settles an immediate answer right after.
    setImmediate(() => {
      try {
        const question = options.store.get(id);
        if (question?.status !== 'pending') return;
        const { notify, push } = options.config(question.cwd);
        if (notify.length > 0) options.webhooks.send(notify, noticeOf(question, { fullText: false }), options.link(id));
        if (options.push && !options.pageVisible()) {
          // A push service keeps it for an offline phone as long as the question may still be answered.
          options.push.send(noticeOf(question, { fullText: push.fullText === true }), { pairedDevices: options.pairedDevices(), ttlSeconds: (question.expiresAt - now()) / 1000 });
        }
      } catch (error) {
        options.log({ askId: id, error: (error as Error).message }, 'could not tell anyone about a waiting question');
      }
    });
  });
  return {
    close(): void {
      unsubscribe();
      options.webhooks.close();
      options.push?.close();
    },
  };
}
