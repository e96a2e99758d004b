// Asking the daemon the way a hook does, for tests that talk to the hook endpoints directly: as the
// command hook (hello, signed question, signed lines back), in memory through inject() or over a
// real socket; and as Claude Code's own http hook, over a real socket.
import { Agent, request } from 'node:http';
import type { App } from '../../src/daemon/app.js';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH } from '../../src/http-hook.js';
import { checkHello, newNonce, openLine, signQuestion, type HookCredentials } from '../../src/daemon/hook-identity.js';

export type HookLine = Record<string, unknown> & { event: string };
export type HookReply = { statusCode: number; body: string; lines: HookLine[]; credentials: HookCredentials | undefined; json<T = unknown>(): T };

/** The lines of a hook response, each checked against its signature (a bad one throws). */
export function readLines(token: string, credentials: HookCredentials, body: string): HookLine[] {
  return body
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => {
      const line = openLine(token, credentials, text);
      if (!line) throw new Error(`a hook line that is not signed for this request: ${text.slice(0, 200)}`);
      return { event: line.event, ...(line.body as Record<string, unknown>) };
    });
}

type Send = (path: string, headers: Record<string, string>, body: string) => Promise<{ statusCode: number; body: string }>;

async function ask(send: Send, token: string, requestBody: string, extraHeaders: Record<string, string>): Promise<HookReply> {
  const hookNonce = newNonce();
  const hello = await send('/api/hook/hello', extraHeaders, JSON.stringify({ nonce: hookNonce }));
  const json = <T>(text: string) => () => JSON.parse(text) as T;
  if (hello.statusCode !== 200) return { ...hello, lines: [], credentials: undefined, json: json(hello.body) };
  const reply = JSON.parse(hello.body) as { nonce?: unknown; proof?: unknown };
  if (!checkHello(token, hookNonce, reply)) throw new Error('the daemon could not prove it holds the token');
  const credentials = { daemonNonce: reply.nonce, hookNonce };
  const response = await send('/api/hook/questions', { ...extraHeaders, authorization: signQuestion(token, credentials, requestBody) }, requestBody);
  return { ...response, credentials, lines: response.statusCode === 200 ? readLines(token, credentials, response.body) : [], json: json(response.body) };
}

/** The hook's request body: the payload as Claude Code sent it, and the hook's environment. */
export function hookBody(payload: unknown, environment: Record<string, string> = {}): string {
  return JSON.stringify({ payload, environment });
}

export function askThroughInject(app: App, options: { token: string; host: string; body: string; headers?: Record<string, string> }): Promise<HookReply> {
  const send: Send = async (url, headers, payload) => {
    const response = await app.inject({ method: 'POST', url, headers: { host: options.host, 'content-type': 'application/json', ...headers }, payload });
    return { statusCode: response.statusCode, body: response.body };
  };
  return ask(send, options.token, options.body, options.headers ?? {});
}

export function askOverHttp(options: { port: number; token: string; body: string; headers?: Record<string, string> }): Promise<HookReply> {
  const send: Send = async (path, headers, payload) => {
    const response = await fetch(`http://127.0.0.1:${options.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
    return { statusCode: response.status, body: await response.text() };
  };
  return ask(send, options.token, options.body, options.headers ?? {});
}

/**
 * A POST as Claude Code's http hook sends it (protocol.md 5a): the payload as the body, the hook
 * key and the forwarded variables in headers, keep-alive, no Origin. `abort()` closes the socket
 * as Esc or the entry's timeout does.
 */
export function postAsHttpHook(options: { port: number; key: string; payload: unknown; headers?: Record<string, string>; agent?: Agent }): {
  response: Promise<{ statusCode: number; body: string }>;
  abort(): void;
} {
  const text = JSON.stringify(options.payload);
  const req = request({
    host: '127.0.0.1',
    port: options.port,
    method: 'POST',
    path: HTTP_HOOK_PATH,
    agent: options.agent ?? new Agent({ keepAlive: true }),
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'user-agent': 'axios/1.13.2',
      connection: 'keep-alive',
      [HOOK_KEY_HEADER]: options.key,
      ...options.headers,
    },
  });
  const response = new Promise<{ statusCode: number; body: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
  });
  req.end(text);
  return { response, abort: () => req.destroy() };
}
