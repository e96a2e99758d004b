// Telling people that a question waits, once, as it starts waiting: every webhook of the user's
// config. A question settled the moment it was asked (a rule, an unattended session) waits for
// nobody, so nobody is told. This runs after the store has moved on and never throws into it: no
// notice can hold up an answer.
import type { Config } from '../config.js';
import type { QuestionStore } from './store.js';
import { noticeOf } from './notice.js';
import type { Webhooks } from './webhooks.js';

export type NotifierOptions = {
  store: QuestionStore;
  /** The user's notify and push settings now (they reload with the config file). */
  config: (cwd: string) => Pick<Config, 'notify' | 'push'>;
  /** The page, opened on this question: at the public URL when there is one. */
  link: (questionId: string) => string;
  webhooks: Webhooks;
  log: (fields: Record<string, unknown>, message: string) => void;
};

export function createNotifier(options: NotifierOptions) {
  const unsubscribe = options.store.subscribe((event) => {
    if (event.type !== 'added') return;
    const { id } = event.question;
    // The store tells subscribers in the middle of its work, and settles an immediate answer right after.
    setImmediate(() => {
      try {
        const question = options.store.get(id);
        if (question?.status !== 'pending') return;
        const { notify } = options.config(question.cwd);
        if (notify.length > 0) options.webhooks.send(notify, noticeOf(question, { fullText: false }), options.link(id));
      } catch (error) {
        options.log({ questionId: id, error: (error as Error).message }, 'could not tell anyone about a waiting question');
      }
    });
  });
  return {
    close(): void {
      unsubscribe();
      options.webhooks.close();
    },
  };
}
