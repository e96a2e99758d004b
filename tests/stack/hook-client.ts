// Asking the daemon the way a hook does, for tests and the bench that talk to the hook endpoints
// directly: as the command hook (hello, signed question, signed lines back; hello, signed session
// end), in memory through inject() or over a real socket; and as Claude Code's own http hook, over
// a real socket.
import { Agent, request, type ClientRequest } from 'node:http';
import type { App } from '../../src/daemon/app.js';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH, SESSION_END_PATH } from '../../src/http-hook.js';
import { checkHello, newNonce, openLine, signRequest, type HookCredentials } from '../../src/daemon/hook-identity.js';
import { now } from './clock.js';

export type HookLine = Record<string, unknown> & { event: string };
export type HookReply = { statusCode: number; body: string; lines: HookLine[]; credentials: HookCredentials | undefined; json<T = unknown>(): T };

type Response = { statusCode: number; body: string };
type Send = (path: string, headers: Record<string, string>, body: string) => Promise<Response>;

/** One line of a hook response if its signature holds, else undefined. */
function readLine(token: string, credentials: HookCredentials, text: string): HookLine | undefined {
  const line = openLine(token, credentials, text);
  return line && { event: line.event, ...(line.body as Record<string, unknown>) };
}

const notSigned = (text: string) => new Error(`a hook line that is not signed for this request: ${text.slice(0, 200)}`);

/** The lines of a hook response, each checked against its signature (a bad one throws). */
export function readLines(token: string, credentials: HookCredentials, body: string): HookLine[] {
  return body
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => {
      const line = readLine(token, credentials, text);
      if (!line) throw notSigned(text);
      return line;
    });
}

/** The hello's exchange: a new nonce of the hook's, and what the daemon answered to it. */
async function exchangeHello(send: Send, headers: Record<string, string>): Promise<{ hookNonce: string; hello: Response }> {
  const hookNonce = newNonce();
  return { hookNonce, hello: await send('/api/hook/hello', headers, JSON.stringify({ nonce: hookNonce })) };
}

/** The hello: the daemon proves it holds the token, and the two nonces sign the question that follows. */
async function sayHello(send: Send, token: string, headers: Record<string, string>): Promise<{ credentials: HookCredentials } | { refused: Response }> {
  const { hookNonce, hello } = await exchangeHello(send, headers);
  if (hello.statusCode !== 200) return { refused: hello };
  const reply = JSON.parse(hello.body) as { nonce?: unknown; proof?: unknown };
  if (!checkHello(token, hookNonce, reply)) throw new Error('the daemon could not prove it holds the token');
  return { credentials: { daemonNonce: reply.nonce, hookNonce } };
}

async function ask(send: Send, token: string, requestBody: string, extraHeaders: Record<string, string>): Promise<HookReply> {
  const json = <T>(text: string) => () => JSON.parse(text) as T;
  const hello = await sayHello(send, token, extraHeaders);
  if ('refused' in hello) return { ...hello.refused, lines: [], credentials: undefined, json: json(hello.refused.body) };
  const { credentials } = hello;
  const response = await send('/api/hook/questions', { ...extraHeaders, authorization: signRequest(token, credentials, requestBody) }, requestBody);
  return { ...response, credentials, lines: response.statusCode === 200 ? readLines(token, credentials, response.body) : [], json: json(response.body) };
}

/** Says a session ended as the command hook does: the hello, then the SessionEnd payload, signed. */
async function endSession(send: Send, token: string, payload: unknown): Promise<Response> {
  const hello = await sayHello(send, token, {});
  if ('refused' in hello) return hello.refused;
  const body = JSON.stringify(payload);
  return send(SESSION_END_PATH, { authorization: signRequest(token, hello.credentials, body, 'session-end') }, body);
}

/** A SessionEnd payload as Claude Code sends it. */
export function sessionEndPayload(sessionId: string, reason = 'prompt_input_exit'): Record<string, unknown> {
  return { session_id: sessionId, transcript_path: `/home/alice/.claude/projects/p/${sessionId}.jsonl`, cwd: '/home/alice/p', hook_event_name: 'SessionEnd', reason };
}

/** The hook's request body: the payload as Claude Code sent it, and the hook's environment. */
export function hookBody(payload: unknown, environment: Record<string, string> = {}): string {
  return JSON.stringify({ payload, environment });
}

const throughInject =
  (app: App, host: string): Send =>
  async (url, headers, payload) => {
    const response = await app.inject({ method: 'POST', url, headers: { host, 'content-type': 'application/json', ...headers }, payload });
    return { statusCode: response.statusCode, body: response.body };
  };

export function askThroughInject(app: App, options: { token: string; host: string; body: string; headers?: Record<string, string> }): Promise<HookReply> {
  return ask(throughInject(app, options.host), options.token, options.body, options.headers ?? {});
}

/**
 * The hello alone, in memory and unchecked, for tests of the handshake and its signatures: the hook's
 * nonce, and the daemon's nonce and proof as it answered them.
 */
export async function helloThroughInject(app: App, host: string): Promise<{ hookNonce: string; nonce: string; proof: string }> {
  const { hookNonce, hello } = await exchangeHello(throughInject(app, host), {});
  return { hookNonce, ...(JSON.parse(hello.body) as { nonce: string; proof: string }) };
}

export function endSessionThroughInject(app: App, options: { token: string; host: string; payload: unknown }): Promise<Response> {
  return endSession(throughInject(app, options.host), options.token, options.payload);
}

/** A JSON POST to the daemon on a connection of its own, as the command hook makes one per request. */
export function post(port: number, path: string, headers: Record<string, string>, body: string, agent: Agent | false = false): ClientRequest {
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path,
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
  });
  req.end(body);
  return req;
}

/** The whole response to `req`, and when its last byte had arrived (now() clock). */
export function readResponse(req: ClientRequest): Promise<Response & { at: number }> {
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body, at: now() }));
      res.on('error', reject);
    });
  });
}

const overSocket =
  (port: number): Send =>
  (path, headers, body) =>
    readResponse(post(port, path, headers, body));

export function askOverHttp(options: { port: number; token: string; body: string; headers?: Record<string, string> }): Promise<HookReply> {
  return ask(overSocket(options.port), options.token, options.body, options.headers ?? {});
}

export function endSessionOverHttp(options: { port: number; token: string; payload: unknown }): Promise<Response> {
  return endSession(overSocket(options.port), options.token, options.payload);
}

/** A SessionEnd POST as Claude Code's http hook sends it: the payload, the hook key, no Origin. */
export function postSessionEndAsHttpHook(options: { port: number; key: string; payload: unknown; headers?: Record<string, string> }): Promise<{ statusCode: number; body: string; at: number }> {
  const headers = { 'user-agent': 'axios/1.13.2', [HOOK_KEY_HEADER]: options.key, ...options.headers };
  return readResponse(post(options.port, SESSION_END_PATH, headers, JSON.stringify(options.payload)));
}

export type OpenQuestion = {
  /** When the question itself was sent, after the hello (now() clock); NaN until then. */
  sentAt: number;
  /** The daemon took the question: when its `accepted` line arrived, and the question's id. */
  accepted: Promise<{ at: number; id: string }>;
  /** The question ended: when its `settled` line arrived, and that line. */
  settled: Promise<{ at: number; line: HookLine }>;
  /** Closes the connection, as a hook that goes away (Esc) does: the daemon withdraws the question. */
  close(): void;
};

/** A promise with its resolve and reject at hand (Node 20 has no Promise.withResolvers). */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/**
 * Asks as the command hook does, over a real socket, and keeps the response open: each signed line
 * is read as it arrives. Both promises reject if the daemon refuses, a line is not signed, or the
 * connection ends first.
 */
export function openQuestion(options: { port: number; token: string; body: string }): OpenQuestion {
  const { port, token, body } = options;
  const accepted = deferred<{ at: number; id: string }>();
  const settled = deferred<{ at: number; line: HookLine }>();
  // Whoever waits on only one of them, or on neither once it closed, has no unhandled rejection.
  accepted.promise.catch(() => {});
  settled.promise.catch(() => {});
  let req: ClientRequest | undefined;
  let ended = false;
  const fail = (error: Error) => {
    ended = true;
    accepted.reject(error);
    settled.reject(error);
    req?.destroy();
  };
  const asked: OpenQuestion = {
    sentAt: Number.NaN,
    accepted: accepted.promise,
    settled: settled.promise,
    close: () => fail(new Error('closed by the asker')),
  };
  sayHello(overSocket(port), token, {})
    .then((hello) => {
      if ('refused' in hello) throw new Error(`the hello was answered ${hello.refused.statusCode}: ${hello.refused.body.slice(0, 200)}`);
      if (ended) return;
      const { credentials } = hello;
      asked.sentAt = now();
      const question = post(port, '/api/hook/questions', { authorization: signRequest(token, credentials, body) }, body);
      req = question;
      question.on('error', fail);
      question.on('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return fail(new Error(`POST /api/hook/questions answered ${res.statusCode}`));
        }
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
            const text = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            const line = readLine(token, credentials, text);
            if (!line) return fail(notSigned(text));
            if (line.event === 'accepted') accepted.resolve({ at: now(), id: String(line.id) });
            if (line.event === 'settled') settled.resolve({ at: now(), line });
          }
        });
        res.on('end', () => fail(new Error('the daemon ended the response before the question settled')));
        res.on('error', fail);
      });
    })
    .catch(fail);
  return asked;
}

/**
 * A POST as Claude Code's http hook sends it (protocol.md 5a): the payload as the body, the hook
 * key and the forwarded variables in headers, keep-alive, no Origin. `abort()` closes the socket
 * as Esc or the entry's timeout does. `startedAt` is just before the request was made and the
 * response's `at` when its body had fully arrived (now() clock).
 */
export function postAsHttpHook(options: { port: number; key: string; payload: unknown; headers?: Record<string, string>; agent?: Agent; path?: string }): {
  startedAt: number;
  response: Promise<{ statusCode: number; body: string; at: number }>;
  /** Resolves once the whole request was handed to the system (or the request ended before). */
  sent: Promise<void>;
  abort(): void;
} {
  const body = JSON.stringify(options.payload);
  const headers = { 'user-agent': 'axios/1.13.2', connection: 'keep-alive', [HOOK_KEY_HEADER]: options.key, ...options.headers };
  const startedAt = now();
  const req = post(options.port, options.path ?? HTTP_HOOK_PATH, headers, body, options.agent ?? new Agent({ keepAlive: true }));
  const sent = new Promise<void>((done) => {
    req.once('finish', done);
    req.once('close', done);
  });
  return { startedAt, response: readResponse(req), sent, abort: () => req.destroy() };
}
