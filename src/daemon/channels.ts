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
import { isRoutedTo } from '../route-access.js';
import type { Telegram } from './telegram/bot.js';
import type { Webhooks } from './webhooks.js';

/**
 * Which of a channel's recipients are told now, by the person each belongs to (a chat or a device
 * paired for them); undefined for one of nobody's (a webhook, a chat or a device paired for nobody).
 */
export type Tells = (person: string | undefined) => boolean;

export type Channel = {
  /** Who answers through it, as history names them. */
  client: PersonClient;
  /** How it shows this ask: a channel that cuts it short never allows it. */
  shows(view: AskView): Shown;
  /** Tells its people whom `tells` names that this ask waits (notify.ts says when and whom); never the same recipient twice. */
  tell(view: AskView, tells: Tells): void;
};

/** How `client` shows an ask: the page and the CLI show it whole; a channel of the list as it says. */
export function showsOn(channels: readonly Channel[], client: PersonClient, view: AskView): Shown {
  return channels.find((channel) => channel.client === client)?.shows(view) ?? 'whole';
}

/** Every paired Telegram chat: a message with buttons, whole where it fits (telegram/messages.ts). */
export function telegramChannel(telegram: Pick<Telegram, 'shows' | 'tell'>): Channel {
  return { client: 'telegram', shows: (view) => telegram.shows(view), tell: (view, tells) => telegram.tell(view, tells) };
}

/** The user config's webhooks (ntfy, Slack, any URL): a notice, never the whole ask, and only of an ask with no route; ntfy's buttons answer simple questions only. */
export function webhookChannel(options: { webhooks: Webhooks; config: (cwd: string) => Pick<Config, 'notify'>; link: (askId: string) => string }): Channel {
  return {
    client: 'ntfy',
    shows: () => 'cut',
    tell(view, tells) {
      // A webhook is nobody's in particular: it is told only of asks for everyone, and so no
      // one-tap capability is minted for an ask routed to people.
      if (view.route || !tells(undefined)) return;
      const { notify } = options.config(view.cwd);
      if (notify.length > 0) options.webhooks.send(notify, noticeOf(view, { fullText: false }), options.link(view.id));
    },
  };
}

/**
 * Web Push to every subscribed paired device whose person the ask is routed to (every one, for an ask
 * with no route), unless a page it is routed to is in view (whoever looks at it sees the ask already).
 */
export function pushChannel(options: {
  push: Push;
  config: (cwd: string) => Pick<Config, 'push'>;
  /** Whether a page the ask is routed to is in view. */
  pageVisible: (view: AskView) => boolean;
  pairedDevices: () => readonly { id: string; person?: string | undefined }[];
  now?: () => number;
}): Channel {
  const now = options.now ?? Date.now;
  return {
    client: 'notification',
    shows: () => 'cut',
    tell(view, tells) {
      if (options.pageVisible(view)) return;
      // A push service keeps it for an offline phone as long as the ask may still be answered.
      const devices = options.pairedDevices();
      const routed = new Set(devices.filter((device) => isRoutedTo(view, { kind: 'person', person: device.person }) && tells(device.person)).map((device) => device.id));
      options.push.send(noticeOf(view, { fullText: options.config(view.cwd).push.fullText === true }), {
        pairedDevices: devices.map((device) => device.id),
        tells: (deviceId) => routed.has(deviceId),
        ttlSeconds: (view.expiresAt - now()) / 1000,
      });
    },
  };
}
