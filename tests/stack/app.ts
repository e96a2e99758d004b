// One builder for every test that drives the daemon's app in memory (app.inject(), app.injectWS()):
// the app as main.ts builds it, from a real ask store and the real policy over a config file the test
// gives, with overrides for what a test replaces, and the few requests such tests all make. It never
// listens unless a test asks it to (listen()), and it reads no configuration from the machine.
import { mergeConfig, ConfigFileSchema, type ConfigFileInput, type EffectiveConfig } from '../../src/config.js';
import { buildApp, type App } from '../../src/daemon/app.js';
import { SCRIPTED_USER } from './env.js';
import { createPolicy } from '../../src/daemon/asks/policy.js';
import { createAskStore, type AskStore, type AskStoreOptions } from '../../src/daemon/asks/store.js';
import type { AppDeps } from '../../src/daemon/routes/context.js';
import { createHookKeys } from '../../src/daemon/hook-keys.js';
import type { AskView } from '../../src/protocol.js';
import type WebSocket from 'ws';
import { askThroughInject, type HookReply } from './hook-client.js';
import { recordMessages, type RecordedMessages } from './live-feed.js';

/** The port in the page's origin; nothing listens on it (listen() takes a free one). */
export const PORT = 7433;
export const HOST = `127.0.0.1:${PORT}`;
export const ORIGIN = `http://${HOST}`;
export const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';
/** The http hook's key the app takes until a test changes it (setHookKey). */
export const HOOK_KEY = 'hook-key-abcdefghijklmnopqrstuvwxyz0123456789';
/** What a local program sends (the CLI, a script): the loopback Host and the bearer token. */
export const LOCAL = { host: HOST, authorization: `Bearer ${TOKEN}` };

export type TestAppOptions = Partial<Omit<AppDeps, 'store' | 'token' | 'acceptsHookKey' | 'port' | 'planQuestion'>> & {
  /**
   * The user's config file, as written, over `whenNobodyWatching: "wait"` (SCRIPTED_USER) unless
   * `defaults` is set: then only what it says, and every default applies.
   */
  config?: ConfigFileInput;
  defaults?: boolean;
  storeOptions?: AskStoreOptions;
};

/** A paired page: what pairing answered, and the headers it sends on every request (its cookie, its key, its exact Origin). */
export type PairedPage = {
  setCookie: string;
  cookie: string;
  key: string;
  headers: { host: string; origin: string; cookie: string; 'x-askbridge-key': string };
};

export type TestApp = {
  app: App;
  store: AskStore;
  /** From now on the policy applies this config file instead (as an edit of the user's file does). */
  setConfig(file: ConfigFileInput): void;
  /** From now on the app takes this http hook key (a rotation), or none. */
  setHookKey(key: string | undefined): void;
  /** Asks as the command hook does (hello, then a signed question): `body` is the hook's request body (hookBody()). */
  askAsHook(body: string): Promise<HookReply>;
  /** GET /api/asks as a local program. */
  pending(): Promise<AskView[]>;
  /** One ask, pending or finished, as GET /api/asks/ID returns it. */
  ask(id: string): Promise<AskView>;
  /** Resolves once at least `count` asks wait (checked now and at each change in the store), with all of them. */
  waitForPending(count?: number): Promise<[AskView, ...AskView[]]>;
  /** Pairs a page as the page does (a one-time code, then POST /api/pair), from the loopback origin unless told another. */
  pairPage(from?: { host: string; origin: string; userAgent?: string }): Promise<PairedPage>;
  /** The paired page's WebSocket as the page opens it (its key as a subprotocol), recording every message from the first. */
  openPageSocket(page: PairedPage): Promise<{ socket: WebSocket } & RecordedMessages>;
  /** Listens on a free loopback port; the app then takes that port's Host, which `local` carries. */
  listen(): Promise<{ port: number; local: { host: string; authorization: string } }>;
  close(): Promise<void>;
};

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { config: file = {}, storeOptions, defaults = false, ...overrides } = options;
  const effectiveConfig = (given: ConfigFileInput): EffectiveConfig => ({ ...mergeConfig(ConfigFileSchema.parse(defaults ? given : { ...SCRIPTED_USER, ...given }), {}), files: { user: '', project: undefined }, errors: [], ignored: [] });
  let config = effectiveConfig(file);
  let hookKey: string | undefined = HOOK_KEY;
  const store = createAskStore(storeOptions);
  const app = await buildApp({
    store,
    token: TOKEN,
    acceptsHookKey: createHookKeys({ ownKey: () => hookKey }).accepts,
    port: PORT,
    command: 'askbridge',
    version: 'test',
    pid: 1,
    logger: false,
    planQuestion: createPolicy({ configFor: () => config, log: () => {} }),
    ...overrides,
  });
  await app.ready();

  // Once the app listens, it takes the Host of the port it listens on, not PORT.
  const listeningPort = () => {
    const address = app.server.address();
    return typeof address === 'object' && address !== null ? address.port : PORT;
  };
  const local = () => ({ host: `127.0.0.1:${listeningPort()}`, authorization: LOCAL.authorization });
  async function pending(): Promise<AskView[]> {
    const response = await app.inject({ method: 'GET', url: '/api/asks', headers: local() });
    if (response.statusCode !== 200) throw new Error(`GET /api/asks answered ${response.statusCode}: ${response.body}`);
    return response.json<{ asks: AskView[] }>().asks;
  }

  return {
    app,
    store,
    setConfig: (changed) => void (config = effectiveConfig(changed)),
    setHookKey: (key) => void (hookKey = key),
    askAsHook: (body) => askThroughInject(app, { token: TOKEN, host: local().host, body }),
    pending,
    async ask(id) {
      const response = await app.inject({ method: 'GET', url: `/api/asks/${id}`, headers: local() });
      if (response.statusCode !== 200) throw new Error(`GET /api/asks/${id} answered ${response.statusCode}: ${response.body}`);
      return response.json<{ ask: AskView }>().ask;
    },
    waitForPending(count = 1) {
      return new Promise((resolve, reject) => {
        const check = () =>
          pending().then((asks) => {
            if (asks.length < count) return;
            unsubscribe();
            resolve(asks as [AskView, ...AskView[]]);
          }, reject);
        const unsubscribe = store.subscribe(() => void check());
        void check();
      });
    },
    async pairPage(from = { host: HOST, origin: ORIGIN }) {
      const code = app.askbridge.auth.createPairingCode();
      const headers = { host: from.host, origin: from.origin, ...(from.userAgent === undefined ? {} : { 'user-agent': from.userAgent }) };
      const response = await app.inject({ method: 'POST', url: '/api/pair', headers, payload: { code } });
      if (response.statusCode !== 200) throw new Error(`pairing answered ${response.statusCode}: ${response.body}`);
      const setCookie = String(response.headers['set-cookie']);
      const cookie = setCookie.split(';')[0]!;
      const { key } = response.json<{ key: string }>();
      return { setCookie, cookie, key, headers: { host: from.host, origin: from.origin, cookie, 'x-askbridge-key': key } };
    },
    async openPageSocket(page) {
      let recorded: RecordedMessages | undefined;
      const socket = await app.injectWS(
        '/ws',
        { headers: { host: page.headers.host, origin: page.headers.origin, cookie: page.cookie, 'sec-websocket-protocol': `askbridge, key.${page.key}` } },
        { onInit: (ws) => void (recorded = recordMessages(ws)) },
      );
      return { socket, ...recorded! };
    },
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      return { port: listeningPort(), local: local() };
    },
    close: () => app.close(),
  };
}
