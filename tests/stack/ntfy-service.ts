// A stand-in ntfy server: it takes ntfy's JSON publish (a POST to its root naming the topic, with
// title, message, click, tags and actions), records each message, and performs a message's action
// as the ntfy app does when its button is tapped: the action's request, to its URL, with its method,
// headers and body. An https URL is reached as a phone reaches the public URL: TLS to its name
// (which, as for every client of the tests, means this machine), trusting the front's CA.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { waitUntil } from './clock.js';
import { startReceiver } from './receiver.js';

export type NtfyAction =
  | { action: 'view'; label: string; url: string; clear?: boolean }
  | { action: 'http'; label: string; url: string; method?: string; headers?: Record<string, string>; body?: string; clear?: boolean };

export type NtfyMessage = { topic: string; title: string; message: string; click: string; tags: string[]; actions?: NtfyAction[] };

export type NtfyService = {
  /** http://127.0.0.1:PORT: an ntfy URL is this, then /TOPIC. */
  origin: string;
  /** Every message published so far, in order. */
  messages(): NtfyMessage[];
  /** When the message at this index arrived (now() clock). */
  receivedAt(index: number): number;
  /** Waits for a message that matches; returns it. */
  waitFor(match: (message: NtfyMessage) => boolean, timeoutMs?: number): Promise<NtfyMessage>;
  /** Taps a button: the action's request as the ntfy app sends it (`ca`: the CA an https URL's certificate must chain to). */
  perform(action: NtfyAction, options?: { ca?: string; body?: string }): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
};

export async function startNtfyService(): Promise<NtfyService> {
  const receiver = await startReceiver();
  receiver.answer('/', () => 200);
  const messages = () => receiver.to('/').map((request) => JSON.parse(request.body.toString('utf8')) as NtfyMessage);
  return {
    origin: receiver.origin,
    messages,
    receivedAt: (index) => receiver.to('/')[index]!.at,
    waitFor: (match, timeoutMs = 10_000) => waitUntil(() => messages().find(match), timeoutMs, 'an ntfy message'),
    perform(action, options = {}) {
      if (action.action !== 'http') throw new Error(`a ${action.action} action opens a page: there is no request to make`);
      const url = new URL(action.url);
      const body = options.body ?? action.body ?? '';
      const secure = url.protocol === 'https:';
      return new Promise((resolve, reject) => {
        const sent = (secure ? httpsRequest : httpRequest)(
          {
            host: '127.0.0.1',
            port: url.port,
            path: `${url.pathname}${url.search}`,
            method: action.method ?? 'POST',
            headers: { ...action.headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
            ...(secure ? { servername: url.hostname, ca: options.ca } : {}),
            agent: false,
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
          },
        );
        sent.on('error', reject);
        sent.end(body);
      });
    },
    close: () => receiver.close(),
  };
}
