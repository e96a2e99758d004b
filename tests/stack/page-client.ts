// A paired page's requests without a browser, for tests of what a page asks the daemon: paired with
// a fresh one-time link as the page pairs, then every request with its cookie, its key and its
// exact Origin. The WebSocket too, where the key travels as a subprotocol.
import WebSocket from 'ws';
import { newPairingUrl } from './browser.js';
import type { Daemon } from './daemon.js';

export type PageClient = {
  /** The cookie, the key and the page's Origin, as the page sends them. */
  headers: Record<string, string>;
  request<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** The page's live feed, open. */
  openSocket(): Promise<WebSocket>;
};

/** `person`: paired as that person's device (POST /api/pairings with the token, as `askbridge pair --person` does). */
export async function pairOverHttp(daemon: Daemon, options: { person?: string } = {}): Promise<PageClient> {
  const code = new URL(await pairingUrlFor(daemon, options.person)).hash.slice('#pair='.length);
  const origin = daemon.url.replace(/\/$/, '');
  const paired = await fetch(`${origin}/api/pair`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  if (paired.status !== 200) throw new Error(`pairing answered ${paired.status}: ${await paired.text()}`);
  const { key } = (await paired.json()) as { key: string };
  const cookie = (paired.headers.get('set-cookie') ?? '').split(';')[0]!;
  const headers = { origin, cookie, 'x-askbridge-key': key };
  return {
    headers,
    async request(method, path, body) {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(5000),
      });
      return { status: response.status, body: (await response.json()) as never };
    },
    openSocket() {
      const socket = new WebSocket(`ws://${new URL(origin).host}/ws`, ['askbridge', `key.${key}`], { headers: { origin, cookie } });
      return new Promise((open, fail) => {
        socket.once('open', () => open(socket));
        socket.once('error', fail);
      });
    },
  };
}

/** A one-time pairing link: for `person`'s device when one is named. */
export async function pairingUrlFor(daemon: Daemon, person?: string): Promise<string> {
  if (person === undefined) return newPairingUrl(daemon);
  const made = await daemon.api<{ links: { local: string } }>('POST', '/api/pairings', { person });
  if (made.status !== 200) throw new Error(`POST /api/pairings for ${person} answered ${made.status}: ${JSON.stringify(made.body)}`);
  return made.body.links.local;
}
