// What the daemon's app is built from (AppDeps, given by main.ts and the tests) and what each route
// plugin receives (RouteContext, the one way dependencies reach routes). In their own module, so
// that app.ts imports the routes and no route imports app.ts.
import type { FastifyBaseLogger } from 'fastify';
import type { EffectiveConfig } from '../../config.js';
import type { AuditProblem, AwayReply, HistoryProblem, StoreHealth, TurnEndReach } from '../../protocol.js';
import type { PublicUrl } from '../../public-url.js';
import type { PublicUrlStatus } from '../../public-url-status.js';
import type { Auth, AuthOptions } from './auth.js';
import type { RequestTimeouts, WaitingLimits } from '../limits.js';
import type { PolicyContext, QuestionPlan } from '../asks/policy.js';
import type { Push } from '../push.js';
import type { RouteView, Tellable } from '../../protocol.js';
import type { OneTap } from '../one-tap.js';
import type { AskStore } from '../asks/store.js';
import type { AskDesk } from '../asks/open-ask.js';
import type { ContextRead } from '../transcript.js';
import type { WebSocket } from 'ws';
import type { AwaySwitch } from '../away.js';
import type { Telegram } from '../telegram/bot.js';
import type { GrantStore } from '../grants.js';
import type { PersonDecisions } from '../asks/person-decisions.js';
import type { People } from '../people.js';
import type { Viewer } from '../../route-access.js';
import type { HistoryFilter, HistoryLine } from '../../history-file.js';

/**
 * Pages and CLI listeners connected now, over the WebSocket, which paired device (and person) each page socket
 * belongs to, the Host each came through (a public URL that changes closes those of the old one),
 * and the sockets whose page says a person can see it.
 */
export type Watchers = {
  sockets: Set<WebSocket>;
  deviceOf: WeakMap<WebSocket, string>;
  /** Whose each page socket is (its device's person); a socket with none is the local CLI's, which sees everything. */
  viewerOf: WeakMap<WebSocket, Viewer>;
  hostOf: WeakMap<WebSocket, string>;
  visible: Set<WebSocket>;
  /** Told when a page comes into view or leaves it (whose it is decides who is here: notify.ts). */
  visibilityListeners: Set<() => void>;
};

/** Marks a page's socket in view or not; tells the listeners when that changed. */
export function setVisible(watchers: Watchers, socket: WebSocket, visible: boolean): void {
  if (watchers.visible.has(socket) === visible) return;
  if (visible) watchers.visible.add(socket);
  else watchers.visible.delete(socket);
  for (const listener of watchers.visibilityListeners) listener();
}

export type AppDeps = {
  store: AskStore;
  token: string;
  /** Whether an http hook sending this key may ask (hook-keys.ts: the current key, read when it asks, so a rotated key applies at once). Without it, no http hook can ask. */
  acceptsHookKey?: (key: string) => boolean;
  /** The port in the page's origin; 0 means "whatever the server is listening on". */
  port: number;
  /** How to run askbridge on this machine (askbridgeCommand), for the hints in errors: computed once at start. */
  command: string;
  version: string;
  /** Reported by `askbridge status`. */
  pid: number;
  logger: FastifyBaseLogger | false;
  /** Who could be told of a question nobody watches, besides the config's webhooks: paired devices with a push subscription, paired Telegram chats; with a route, only its people's. */
  tellable?: (route?: RouteView) => Tellable;
  /** How a new question will be settled when nobody answers: decided per question by the policy. */
  planQuestion: (context: PolicyContext) => QuestionPlan;
  /** The one address besides loopback where pages reach the daemon, through a TLS front or a tunnel, when the app starts (app.askbridge.setPublicUrl changes it). */
  publicUrl?: PublicUrl | undefined;
  /** The public URL in use, where it comes from and what only a restart would change, for `askbridge config` and `askbridge pair`. */
  publicUrlStatus?: () => PublicUrlStatus;
  pageSessionStore?: AuthOptions['pageSessionStore'];
  /** Web Push to paired devices; without it, pages are told push is not available. */
  push?: Push;
  /** The user's Telegram bot: its pairing codes and its paired chats (devices); without it, none. */
  telegram?: Pick<Telegram, 'createPairingCode' | 'withdrawPairingCodes' | 'devices' | 'revoke'>;
  /** The capabilities behind ntfy's one-tap buttons (one-tap.ts); without it, every tap is refused as gone. */
  oneTap?: OneTap;
  /** Whether the daemon also listens on [::1] (main.ts knows once it listens); if not, that Host is refused. */
  holdsIpv6?: () => boolean;
  /** A warning for every page (a broken config file, history that cannot be written), or null. */
  banner?: () => string | null;
  /** The configuration the daemon applies in a directory, for `askbridge config`. */
  configFor?: (cwd: string) => EffectiveConfig;
  /**
   * history.jsonl, for GET /api/history: where it is, and a promise that every line of a question
   * settled so far has been written (or waits in memory while it cannot be). Without it, no history is served.
   */
  history?: {
    path: string;
    flushed: () => Promise<void>;
    /**
     * With a shared store: every daemon's history, read there (store/records.ts); or why the store
     * cannot be read now, and only the file above is.
     */
    everyone?: (search: { limit: number; keep: HistoryFilter }) => Promise<{ lines: HistoryLine[] } | { unreachable: string }>;
  };
  /**
   * The page's files: by default the folder beside the running code, dist/web (the built page) or,
   * run from src/, src/web, whose app.js loads modules this daemon does not serve.
   */
  pageFolder?: URL;
  /** What works less well than it should right now, for `askbridge status`. */
  health?: () => { history: HistoryProblem | null; audit: AuditProblem | null; store?: StoreHealth | undefined };
  /** How often pages and listeners are pinged (events.ts; tests use a short interval). */
  heartbeatMs?: number;
  /**
   * Questions (and their bytes) waiting at once from every asker together; one asker may hold a
   * quarter of it, one credential half (limits.ts). Over any, a new one is refused and its terminal asks.
   */
  waitingLimits?: WaitingLimits;
  /** Told when a question was refused because every asker's together are at a limit. */
  onOverload?: () => void;
  /**
   * What a session was doing, read from the transcript its hook names (transcript.ts); without it,
   * questions show no context. `stillWanted` says whether the question still waits.
   */
  sessionContext?: (transcriptPath: string, toolUseId: string, stillWanted: () => boolean) => Promise<ContextRead>;
  /** Watches a session's transcript for a waiting approval answered in the terminal; without it, only its request closing tells. */
  terminalAnswers?: AskDesk['terminalAnswers'];
  /** The person's grants, kept across restarts (main.ts); without them, none can be made. */
  grants?: GrantStore;
  /** How a person's decision reaches the ask (main.ts sends one for another daemon's ask there); without it, every ask is decided here. */
  decisions?: PersonDecisions;
  /** Whether another daemon sharing the store may reach someone (shared-asks.ts): an ask nobody here watches then waits. */
  othersReachable?: () => boolean;
  /** The people askbridge knows (people.ts); absent: none, one anonymous person as before. */
  people?: People;
  /** Whether the person is away, kept across restarts (main.ts); without it, a switch in memory that starts off. */
  away?: AwaySwitch;
  /** Where the end of a turn reaches askbridge on this machine's wiring (wiring.ts, read by main.ts); without it, everywhere. */
  turnEnds?: () => TurnEndReach;
  /** How long a caller may take to send its request (defaults below; tests use short ones). */
  timeouts?: Partial<RequestTimeouts>;
  now?: () => number;
};

export type RouteContext = {
  store: AskStore;
  /** Every person's decision goes through here (asks/person-decisions.ts). */
  decisions: PersonDecisions;
  /** Where asks enter (asks/open-ask.ts). */
  desk: AskDesk;
  auth: Auth;
  watchers: Watchers;
  deps: AppDeps;
  /** Who said they are away. */
  away: AwaySwitch;
  /** Whether the viewer's person (the daemon's own user, for the CLI) is away, and where a turn's end reaches askbridge: what the page's switch, `away` and `status` say. */
  awayState: (viewer: Viewer) => AwayReply;
  /** The port the daemon listens on (known only once it listens, when deps.port is 0). */
  port: () => number;
  /** The API's OpenAPI document, made from the routes' schemas when first asked for. */
  openApi: () => Promise<Record<string, unknown>>;
};
