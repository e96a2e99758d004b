// `askbridge attach opencode [URL]`: relays opencode's questions and permissions to askbridge. It
// follows opencode's server (`opencode serve`, default http://127.0.0.1:4096) on GET /global/event,
// every project's events; each `question.asked` / `permission.asked` is handed to the daemon over a
// held request (POST /api/attach/opencode), and the daemon's reply, opencode's own answer, is posted
// back to opencode. When opencode settles one first (`question.replied`, `question.rejected`,
// `permission.replied`: the person answered in its TUI), the held request is closed, which
// withdraws the card at once. Without a reply (nobody to ask, askbridge not running, a request
// that does not fit), opencode's own prompt stays and decides. It reconnects with backoff when
// opencode restarts, and then picks up what still waits (GET /question, GET /permission). One
// plain line per thing relayed; opencode's ids and names are marked before they are printed.
// Ctrl+C withdraws what it holds and exits 0.
// Whoever holds opencode's port asks in its name and reads the answers, and gets its password: on
// plain http (this machine only) every connection is first checked to be held by this user
// (tcp-table.ts), before a byte is sent; where that cannot be told, the password is not sent
// over plain http. A redirect is never followed.
import { askbridgeCommand } from '../command-name.js';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import {
  AttachOpencodeReplySchema,
  LIMITS,
  OpencodePermissionRequestSchema,
  OpencodeQuestionRequestSchema,
  checkShape,
  describeZodError,
  type AttachOpencodeRequest,
  type OpencodeReply,
} from '../protocol.js';
import { peerUid, readTcpTable } from '../tcp-table.js';
import { terminalText } from '../visible-text.js';
import { askerEnvironment } from './ask.js';
import { CliError, type CommandIo } from './command.js';
import { createHolds, followAgent, isRecord, relayAsk, type Hold, type RelayIo } from './relay.js';

/** Where `opencode serve` listens unless told otherwise. */
export const OPENCODE_DEFAULT_URL = 'http://127.0.0.1:4096';
/** A call to opencode that is not the event stream. */
const OPENCODE_TIMEOUT_MS = 10_000;

export async function run(io: CommandIo): Promise<number> {
  const { positionals } = parseArgs({ args: io.argv, allowPositionals: true, strict: true, options: {} });
  if (positionals.length > 1) throw new CliError(`usage: ${askbridgeCommand(io.env)} attach opencode [URL]`, 2);
  const server = opencodeServer(positionals[0] ?? OPENCODE_DEFAULT_URL, io.env);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await attachOpencode({ server, env: io.env, print: io.stdout, warn: io.stderr, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}

/**
 * opencode's server: its base URL, its Authorization header when it has a password, and the machine
 * it runs on when that is not this one (its host): its asks are planned as that machine's, whose
 * folders this machine's project configuration does not describe.
 */
/** `command`: how to run askbridge here (askbridgeCommand), for the hints in its errors. */
export type OpencodeServer = { url: URL; authorization: string | undefined; machine: string | undefined; command: string };

/**
 * The server's address, checked: plain http only to this machine (127.0.0.0/8, ::1, localhost),
 * https anywhere; never credentials in it: the password is read from OPENCODE_SERVER_PASSWORD
 * (and the user from OPENCODE_SERVER_USERNAME, opencode's default `opencode`), as opencode reads it.
 */
export function opencodeServer(address: string, env: NodeJS.ProcessEnv): OpencodeServer {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new CliError(`${terminalText(address)} is not a URL (opencode's server is e.g. ${OPENCODE_DEFAULT_URL})`, 2);
  }
  if (url.username || url.password) throw new CliError("put no credentials in the URL: set OPENCODE_SERVER_PASSWORD (and OPENCODE_SERVER_USERNAME) as for opencode itself", 2);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${terminalText(url.protocol)} is not http: or https:`, 2);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) throw new CliError(`plain http only to this machine: use https:// for ${terminalText(url.hostname)} (questions and permissions would cross the network unencrypted)`, 2);
  url.search = '';
  url.hash = '';
  const password = env.OPENCODE_SERVER_PASSWORD;
  const user = env.OPENCODE_SERVER_USERNAME || 'opencode';
  const machine = isLoopback(url.hostname) ? undefined : url.hostname.replace(/^\[|\]$/g, '').slice(0, LIMITS.machineChars);
  return { url, authorization: password ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined, machine, command: askbridgeCommand(env) };
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

type Relay = RelayIo & { server: OpencodeServer };

type Kind = 'question' | 'permission';
/** What is relayed: opencode's request as it sent it, and the project (directory) it belongs to. */
type Pending = { kind: Kind; id: string; directory: string | undefined; request: unknown };

/** Follows opencode until `signal` aborts; every held request is withdrawn then. */
export async function attachOpencode(relay: Relay): Promise<void> {
  const { server, print, warn } = relay;
  if (server.url.protocol === 'http:' && readTcpTable() === undefined) {
    const where = terminalText(server.url.host);
    if (server.authorization) {
      throw new CliError(
        `this system does not tell which user listens on ${where}, so opencode's password is not sent there over plain http (whoever holds the port while opencode is down would receive it): reach opencode over https (a TLS proxy in front of it), or attach without OPENCODE_SERVER_PASSWORD`,
      );
    }
    warn(`note: this system does not tell which user listens on ${where}: while opencode is down, whoever holds that port could ask in opencode's name and read your answers\n`);
  }
  /** Each request being relayed, by opencode's id. */
  const holds = createHolds();
  /** Requests relayed already (or left to opencode's own prompt): never handed over twice. Forgotten once opencode settles them. */
  const seen = new Set<string>();
  /** The projects seen: what still waits is listed in each when opencode comes back. */
  const directories = new Set<string | undefined>([undefined]);

  const start = (pending: Pending) => {
    if (seen.has(pending.id) || relay.signal.aborted) return;
    seen.add(pending.id);
    holds.start(pending.id, (hold) => relayOne(relay, pending, hold));
  };
  const onEvent = (event: OpencodeEvent) => {
    const { type, properties } = event.payload;
    if (type === 'question.asked' || type === 'permission.asked') {
      const kind = type === 'question.asked' ? 'question' : 'permission';
      const id = typeof properties.id === 'string' ? properties.id : undefined;
      if (id === undefined) return warn(`opencode sent a ${type} without an id: ignored\n`);
      directories.add(event.directory);
      start({ kind, id, directory: event.directory, request: properties });
    } else if (type === 'question.replied' || type === 'question.rejected' || type === 'permission.replied') {
      if (typeof properties.requestID !== 'string') return;
      seen.delete(properties.requestID);
      holds.letGo(properties.requestID, 'settled');
    }
  };

  let connectedOnce = false;
  try {
    await followAgent(relay, {
      async follow(connected) {
        const events = await openEvents(server, relay.signal);
        try {
          print(`${connectedOnce ? 'opencode is back' : 'attached to opencode'} at ${terminalText(server.url.href)}\n`);
          connectedOnce = true;
          connected();
          // What waits already (opencode started before this, or restarted): relayed now; held ones it no longer has are withdrawn.
          const waiting = await listPending(server, directories, relay.signal);
          for (const id of holds.keys()) if (!waiting.some((pending) => pending.id === id)) holds.letGo(id, 'settled');
          for (const pending of waiting) start(pending);
          await readEvents(events, onEvent, warn);
        } finally {
          events.destroy();
        }
      },
      unreachable: (why) => `opencode at ${terminalText(server.url.href)} cannot be reached (${why}): trying again until it can\n`,
      ended: `opencode's event stream ended: connecting again\n`,
    });
  } finally {
    holds.letAllGo('stopped');
    await holds.settled();
  }
}

/** One of opencode's events, as /global/event wraps it: the project it happened in, and the event. */
type OpencodeEvent = { directory: string | undefined; payload: { type: string; properties: Record<string, unknown> } };

async function openEvents(server: OpencodeServer, signal: AbortSignal): Promise<IncomingMessage> {
  const response = await send(server, 'GET', endpoint(server, '/global/event'), { accept: 'text/event-stream' }, undefined, signal);
  if (response.statusCode === 401) throw new CliError('opencode refuses this password: set OPENCODE_SERVER_PASSWORD (and OPENCODE_SERVER_USERNAME) as opencode has them');
  if (response.statusCode !== 200) {
    response.resume();
    throw new Error(`HTTP ${response.statusCode} on its event stream`);
  }
  return response;
}

/** Server-sent events, one JSON document each; a line that is not one of opencode's events is said once and skipped. */
async function readEvents(stream: IncomingMessage, onEvent: (event: OpencodeEvent) => void, warn: (line: string) => void): Promise<void> {
  let buffer = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      const event = parseEvent(data);
      if (event) onEvent(event);
      else warn(`opencode sent an event askbridge does not read: skipped\n`);
    }
  }
}

function parseEvent(data: string): OpencodeEvent | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.payload) || typeof parsed.payload.type !== 'string') return undefined;
  const properties = isRecord(parsed.payload.properties) ? parsed.payload.properties : {};
  return { directory: typeof parsed.directory === 'string' && parsed.directory !== 'global' ? parsed.directory : undefined, payload: { type: parsed.payload.type, properties } };
}

/** Every question and permission still waiting in the projects seen (opencode's own list routes). */
async function listPending(server: OpencodeServer, directories: Set<string | undefined>, signal: AbortSignal): Promise<Pending[]> {
  const found = new Map<string, Pending>();
  for (const directory of directories) {
    for (const kind of ['question', 'permission'] as const) {
      const list = await callOpencode(server, 'GET', `/${kind}`, directory, undefined, signal);
      if (!Array.isArray(list)) continue;
      for (const request of list) if (isRecord(request) && typeof request.id === 'string') found.set(request.id, { kind, id: request.id, directory, request });
    }
  }
  return [...found.values()];
}

/** Hands one request to askbridge, and its decision to opencode (relay.ts); what does not fit stays with opencode's own prompt. */
async function relayOne(relay: Relay, pending: Pending, hold: Hold): Promise<void> {
  const { server, env, print } = relay;
  const { kind, id, directory } = pending;
  const name = `${kind} ${terminalText(id)}`;
  const checked = checkRequest(pending);
  if (!checked.ok) {
    print(`${name}: not relayed, opencode's own prompt asks (${terminalText(describeZodError(checked.error).slice(0, 3).join('; '))})\n`);
    return;
  }
  const { request, sessionID } = checked;
  const what = request.kind === 'permission' ? ` (${terminalText(request.permission.permission)})` : '';
  await relayAsk<OpencodeReply>(
    relay,
    {
      name,
      announce: `${name}${what} of session ${terminalText(sessionID)}`,
      ownPrompt: "opencode's own prompt",
      agent: 'opencode',
      key: { agent: 'opencode', sessionId: sessionID, toolUseId: id, ...(server.machine === undefined ? {} : { machine: server.machine }) },
      path: '/api/attach/opencode',
      schema: AttachOpencodeReplySchema,
      async body(signal) {
        const session = await sessionOf(server, sessionID, directory, signal);
        return {
          request,
          session: { directory: directory ?? session.directory ?? '', ...(session.title ? { title: session.title } : {}) },
          ...(server.machine === undefined ? {} : { machine: server.machine }),
          environment: askerEnvironment(env),
        } satisfies AttachOpencodeRequest;
      },
      deliver: (reply) => postReply(server, id, directory, reply, relay.signal),
      words: replyWords,
    },
    hold,
  );
}

/** opencode's request checked as askbridge reads it (bounded ids and fields), ready to hand over. */
function checkRequest(pending: Pending): { ok: true; request: AttachOpencodeRequest['request']; sessionID: string } | { ok: false; error: z.ZodError } {
  if (pending.kind === 'question') {
    const question = checkShape(OpencodeQuestionRequestSchema, pending.request);
    return question.ok ? { ok: true, request: { kind: 'question', question: question.value }, sessionID: question.value.sessionID } : question;
  }
  const permission = checkShape(OpencodePermissionRequestSchema, pending.request);
  return permission.ok ? { ok: true, request: { kind: 'permission', permission: permission.value }, sessionID: permission.value.sessionID } : permission;
}

function replyWords(reply: OpencodeReply): string {
  if (reply.route === 'question.reject') return 'dismissed';
  if (reply.route === 'question.reply') return 'answered';
  return reply.body.reply;
}

/** The session's folder and title, for the card; nothing when opencode does not say. */
async function sessionOf(server: OpencodeServer, sessionID: string, directory: string | undefined, signal: AbortSignal): Promise<{ directory?: string; title?: string }> {
  try {
    const session = await callOpencode(server, 'GET', `/session/${encodeURIComponent(sessionID)}`, directory, undefined, signal);
    if (!isRecord(session)) return {};
    return {
      ...(typeof session.directory === 'string' ? { directory: session.directory } : {}),
      ...(typeof session.title === 'string' ? { title: session.title } : {}),
    };
  } catch (error) {
    if (signal.aborted) throw error;
    return {};
  }
}

async function postReply(server: OpencodeServer, id: string, directory: string | undefined, reply: OpencodeReply, signal: AbortSignal): Promise<void> {
  const path = reply.route === 'question.reject' ? `/question/${encodeURIComponent(id)}/reject` : `/${reply.route === 'question.reply' ? 'question' : 'permission'}/${encodeURIComponent(id)}/reply`;
  await callOpencode(server, 'POST', path, directory, reply.route === 'question.reject' ? undefined : reply.body, signal);
}

/** One call to opencode's API, in the project `directory`; its JSON reply, or an error that says why. */
async function callOpencode(server: OpencodeServer, method: 'GET' | 'POST', path: string, directory: string | undefined, body: unknown, signal: AbortSignal): Promise<unknown> {
  const url = endpoint(server, path);
  if (directory !== undefined) url.searchParams.set('directory', directory);
  const timed = AbortSignal.any([signal, AbortSignal.timeout(OPENCODE_TIMEOUT_MS)]);
  const response = await send(server, method, url, { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body === undefined ? undefined : JSON.stringify(body), timed);
  let text = '';
  response.setEncoding('utf8');
  for await (const chunk of response as AsyncIterable<string>) text += chunk;
  if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode > 299) throw new Error(`opencode answered HTTP ${response.statusCode} to ${method} ${path.replace(/\/[^/]+\/(reply|reject)$/, '/…/$1')}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`opencode's reply to ${method} ${path} is not JSON`);
  }
}

function endpoint(server: OpencodeServer, path: string): URL {
  return new URL(`${server.url.origin}${server.url.pathname.replace(/\/+$/, '')}${path}`);
}

/**
 * One request to opencode's server, resolved with its response once the status and headers are in
 * (the body still to read). Over plain http the connection is opencode's only once it is this
 * user's (ownConnection); nothing, the password included, is written before. A redirect is not
 * followed, wherever it leads: it is a CliError that says so.
 */
function send(server: OpencodeServer, method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options: RequestOptions = {
      method,
      headers: { ...headers, ...(server.authorization ? { authorization: server.authorization } : {}) },
      signal,
      ...(url.protocol === 'http:' ? { createConnection: (_: unknown, done: (error: Error | null, socket: Duplex) => void) => ownConnection(url, server.command, done) } : {}),
    };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options);
    request.once('error', reject);
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status < 300 || status > 399) return resolve(response);
      response.resume();
      const location = response.headers.location;
      reject(
        new CliError(
          `opencode's server answered ${method} ${url.pathname} with a redirect (HTTP ${status}${location ? ` to ${terminalText(location)}` : ''}): askbridge never follows one, so nothing was sent there; give \`${server.command} attach opencode\` the address opencode itself serves`,
        ),
      );
    });
    request.end(body);
  });
}

/**
 * A TCP connection to a loopback port, handed over only once the socket at its other end is this
 * user's (on Linux, the listener's owner). Another user's is a CliError: it gets the connection and
 * nothing else. A socket that cannot be found (it closed meanwhile) is an error tried again.
 */
function ownConnection(url: URL, command: string, done: (error: Error | null, socket: Duplex) => void): undefined {
  const socket: Socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
  const failed = (error: Error) => done(error, socket);
  socket.once('error', failed);
  socket.once('connect', () => {
    socket.off('error', failed);
    const table = readTcpTable();
    const owner = table && peerUid(table, socket);
    const uid = process.getuid?.();
    if (table === undefined || owner === uid) return done(null, socket);
    socket.destroy();
    const where = terminalText(url.host);
    if (owner === undefined) return done(new Error(`cannot tell which user listens on ${where}: nothing was sent`), socket);
    done(
      new CliError(
        `${where} is held by another user (uid ${owner}), not by an opencode of yours (uid ${uid}): askbridge sends it nothing, neither opencode's password nor your answers; stop what holds that port (an administrator can), or give \`${command} attach opencode\` the address your opencode serves`,
      ),
      socket,
    );
  });
  return undefined;
}
