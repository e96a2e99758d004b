// The person's channels beyond the page and the CLI (which show every ask whole, over the WebSocket
// and the API): Telegram, the webhooks (ntfy's one-tap buttons among them) and Web Push. Each says
// how it shows an ask, whole or cut, which decides what may be decided from it (choices.ts: the store
// asks `shows` before it settles anything), and how it tells people that an ask waits. main.ts wires
// the list; notify.ts tells every channel in it. None of them throws into the store.
import type { Shown } from '../choices.js';
import type { Config } from '../config.js';
import type { AskView, PersonClient } from '../protocol.js';
import { noticeOf } from './notice.js';
import type { Push } from './push.js';
import type { Telegram } from './telegram/bot.js';
import type { Webhooks } from './webhooks.js';

export type Channel = {
  /** Who answers through it, as history names them. */
  client: PersonClient;
  /** How it shows this ask: a channel that cuts it short never allows it. */
  shows(view: AskView): Shown;
  /** Tells its people that this ask waits (notify.ts says when). */
  tell(view: AskView): void;
};

/** How `client` shows an ask: the page and the CLI show it whole; a channel of the list as it says. */
export function showsOn(channels: readonly Channel[], client: PersonClient, view: AskView): Shown {
  return channels.find((channel) => channel.client === client)?.shows(view) ?? 'whole';
}

/** Every paired Telegram chat: a message with buttons, whole where it fits (telegram/messages.ts). */
export function telegramChannel(telegram: Pick<Telegram, 'shows' | 'tell'>): Channel {
  return { client: 'telegram', shows: (view) => telegram.shows(view), tell: (view) => telegram.tell(view) };
}

/** The user config's webhooks (ntfy, Slack, any URL): a notice, never the whole ask; ntfy's buttons answer simple questions only. */
export function webhookChannel(options: { webhooks: Webhooks; config: (cwd: string) => Pick<Config, 'notify'>; link: (askId: string) => string }): Channel {
  return {
    client: 'ntfy',
    shows: () => 'cut',
    tell(view) {
      const { notify } = options.config(view.cwd);
      if (notify.length > 0) options.webhooks.send(notify, noticeOf(view, { fullText: false }), options.link(view.id));
    },
  };
}

/** Web Push to every subscribed paired device, unless a page is in view (whoever looks at it sees the ask already). */
export function pushChannel(options: {
  push: Push;
  config: (cwd: string) => Pick<Config, 'push'>;
  pageVisible: () => boolean;
  pairedDevices: () => string[];
  now?: () => number;
}): Channel {
  const now = options.now ?? Date.now;
  return {
    client: 'notification',
    shows: () => 'cut',
    tell(view) {
      if (options.pageVisible()) return;
      // A push service keeps it for an offline phone as long as the ask may still be answered.
      options.push.send(noticeOf(view, { fullText: options.config(view.cwd).push.fullText === true }), { pairedDevices: options.pairedDevices(), ttlSeconds: (view.expiresAt - now()) / 1000 });
    },
  };
}
