// `askbridge attach codex`: relays Codex's questions (request_user_input, Plan mode) and its MCP
// servers' forms and links (elicitation) to askbridge. Codex's TUI runs a shared app-server that
// listens on $CODEX_HOME/app-server-control/app-server-control.sock: WebSocket over a Unix socket,
// one JSON-RPC message per frame. This connects there as a client of its own, lists the threads
// loaded and resumes each (and each one Codex later says started, or changed status): Codex then
// sends it every question of those threads, the ones already waiting included, as an
// `item/tool/requestUserInput` request, and every MCP server's request as an
// `mcpServer/elicitation/request` (not Codex's own approval of an MCP tool call, which comes the
// same way: its dialog decides that). Each is handed to the daemon over a held request (POST
// /api/attach/codex), and the daemon's reply, Codex's own answer, is sent back as the request's
// result: the model (or the MCP server) reads it, and the TUI's picker or dialog goes away. When
// Codex settles a request itself (`serverRequest/resolved`: the person answered in the TUI, or the
// turn was interrupted), the held request is closed, which withdraws the card at once. Without a
// reply (nobody to ask, askbridge not running, a request that does not fit, a deadline), nothing is
// sent: Codex's own picker or dialog asks; a form is never accepted but by a person. Nothing else
// Codex asks is answered here. It reconnects with backoff when Codex restarts; Ctrl+C withdraws
// what it holds and exits 0. One plain line per request relayed, ids marked. Before each
// connection the socket is checked to be this user's (ownSocket): whoever holds it asks in Codex's
// name and reads the answers.
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { codexElicitationKey } from '../codex-elicitation-key.js';
import {
  AttachCodexReplySchema,
  CodexElicitationRequestSchema,
  CodexUserInputRequestSchema,
  checkShape,
  describeZodError,
  type AttachCodexRequest,
  type CodexElicitationResponse,
  type CodexUserInputResponse,
  type RelayWithdraw,
} from '../protocol.js';
import { VERSION } from '../version.js';
import { terminalText } from '../visible-text.js';
import { askerEnvironment } from './ask.js';
import { CliError, type CommandIo } from './command.js';
import { createHolds, followAgent, isRecord, relayAsk, type Hold, type Holds, type RelayIo } from './relay.js';

/** A call to Codex (initialize, listing and resuming threads, reading one). */
const CALL_TIMEOUT_MS = 10_000;
/** The largest message Codex's control socket takes in one frame (its x-codex-websocket-max-unfragmented-message-bytes). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Codex's request for request_user_input, for an MCP server's elicitation, and its notice that one of its requests was settled. */
const QUESTION_METHOD = 'item/tool/requestUserInput';
const ELICITATION_METHOD = 'mcpServer/elicitation/request';
const RESOLVED_METHOD = 'serverRequest/resolved';

export async function run(io: CommandIo): Promise<number> {
  parseArgs({ args: io.argv, allowPositionals: false, strict: true, options: {} });
  const socketPath = codexControlSocket(io.env);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await attachCodex({ socketPath, env: io.env, print: io.stdout, warn: io.stderr, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}

/** Where Codex's TUI and its app-server meet: under CODEX_HOME, as Codex reads it (~/.codex without it). */
export function codexControlSocket(env: NodeJS.ProcessEnv): string {
  return join(env.CODEX_HOME || join(homedir(), '.codex'), 'app-server-control', 'app-server-control.sock');
}

type Relay = RelayIo & { socketPath: string };

/** Follows Codex's app-server until `signal` aborts; every held question is withdrawn then. */
export async function attachCodex(relay: Relay): Promise<void> {
  const { socketPath, print, signal } = relay;
  const where = terminalText(socketPath);
  let connectedOnce = false;
  const holds = createHolds();
  /** Where each held question's answer goes now: its request on the connection that asked it last. */
  const asking = new Map<string, Asking>();
  const attached = (threads: number) => {
    print(`${connectedOnce ? 'Codex is back' : 'attached to Codex'} at ${where} (${threads === 1 ? '1 thread' : `${threads} threads`} loaded)\n`);
    connectedOnce = true;
  };
  try {
    await followAgent(relay, {
      async follow(connected) {
        const socket = await connect(ownSocket(socketPath), signal);
        connected();
        await follow(socket, relay, { attached, holds, asking });
        await closed(socket);
      },
      unreachable: (why) => `Codex's app-server at ${where} cannot be reached (${why}): trying again until it can (Codex starts it with its TUI)\n`,
      ended: `Codex's app-server closed the connection: connecting again\n`,
    });
  } finally {
    holds.letAllGo('stopped');
    await holds.settled();
  }
}

/** A question's request as Codex asked it last: its id on that connection, and how its answer is sent there. */
type Asking = { id: RequestId; answer: (result: unknown) => void };

/**
 * The socket to connect to, once every piece of the way to it is this user's. Codex (0.169.0) makes
 * $CODEX_HOME/app-server-control/app-server-control.sock a link to a socket in /tmp/codex-daemon-<uid>,
 * a folder of the shared temp directory that it makes 0700 (and refuses to use otherwise), the socket
 * 0600. Another user who made that folder first, or who can write in one of the folders, could listen
 * there in Codex's place: its questions would reach the inbox as Codex's, and the person's answers
 * would reach it. So the link, both folders and the socket must be this user's, and no folder
 * writable by anyone else (then nobody else can have bound the socket, nor swap it); one link is
 * followed, and the socket it names is what is connected to. A piece that is not there is Codex not
 * running, an error tried again; a piece that is another user's is a CliError, which ends the attach.
 */
function ownSocket(path: string): string {
  const uid = process.getuid?.();
  if (uid === undefined) return path; // no Unix owners on this system (Windows)
  const link = lstatSync(path);
  const socket = link.isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : path;
  const refuse = (why: string) =>
    new CliError(
      `${terminalText(why)}: another user could be listening there in Codex's place, to ask in its name and read your answers, so askbridge does not connect. Codex's own socket is yours, in a folder only you can write (Codex refuses any other folder too): remove what is not yours (an administrator can remove a folder another user made) and start Codex again`,
    );
  const mustBeOwn = (what: string, stat: Stats, checkMode: boolean) => {
    if (stat.uid !== uid) throw refuse(`${what} belongs to another user (uid ${stat.uid}), not to you (uid ${uid})`);
    if (checkMode && (stat.mode & 0o022) !== 0) throw refuse(`${what} can be written by other users (mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')})`);
  };
  if (link.isSymbolicLink()) mustBeOwn(`the link ${path}`, link, false);
  for (const folder of new Set([dirname(path), dirname(socket)])) {
    const stat = lstatSync(folder);
    if (!stat.isDirectory()) throw refuse(`${folder}, where Codex's control socket is, is not a folder`);
    mustBeOwn(`the folder ${folder}`, stat, true);
  }
  const stat = lstatSync(socket);
  if (!stat.isSocket()) throw refuse(`${socket}${socket === path ? '' : ` (where ${path} leads)`} is not a socket`);
  mustBeOwn(`the socket ${socket}`, stat, true);
  return socket;
}

/** A WebSocket to Codex's control socket, open; aborting `signal` closes it. */
function connect(socketPath: string, signal: AbortSignal): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    // The socket's own path, as it is (a ws+unix: URL would have to encode it, and cannot hold a colon).
    const socket = new WebSocket('ws://localhost/', { createConnection: () => createConnection(socketPath), maxPayload: MAX_MESSAGE_BYTES, handshakeTimeout: CALL_TIMEOUT_MS });
    const onAbort = () => socket.terminate();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('close', () => signal.removeEventListener('abort', onAbort));
    socket.once('open', () => {
      socket.off('error', reject);
      socket.on('error', () => {}); // a broken connection closes: 'close' says so
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function closed(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) resolve();
    else socket.once('close', () => resolve());
  });
}

type RequestId = string | number;
type Call = { resolve: (result: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };

/**
 * Speaks JSON-RPC with Codex on one connection: initializes, resumes the threads loaded, relays
 * every request they ask. A request is held by its ask's key (readRequest), not by the connection: when
 * the connection closes its ask stays, and Codex asks it again once it is back (a resumed thread's
 * pending requests are sent again), which is where an answer not yet confirmed goes then.
 */
async function follow(socket: WebSocket, relay: Relay, { attached, holds, asking }: { attached: (threads: number) => void; holds: Holds; asking: Map<string, Asking> }): Promise<void> {
  const { warn } = relay;
  const calls = new Map<number, Call>();
  let nextId = 1;
  /** The held question each request of this connection is, by Codex's request id. */
  const requests = new Map<string, string>();
  /**
   * Threads resumed, or being resumed (`again`: Codex said more of it meanwhile, so a refusal is tried
   * once more); and those Codex said are ephemeral (its own side work, which never asks).
   */
  const resumed = new Map<string, 'resuming' | 'again' | 'resumed'>();
  const ephemeral = new Set<string>();
  let warnedUnread = false;

  const send = (message: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const call = (method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (socket.readyState !== WebSocket.OPEN) return reject(new Error('the connection to Codex closed'));
      const id = nextId++;
      const timer = setTimeout(() => {
        calls.delete(id);
        reject(new Error(`Codex did not answer ${method} in time`));
      }, CALL_TIMEOUT_MS);
      calls.set(id, { resolve, reject, timer });
      send({ id, method, params });
    });
  const resume = (threadId: string) => {
    if (ephemeral.has(threadId)) return;
    const state = resumed.get(threadId);
    if (state === 'resuming') resumed.set(threadId, 'again');
    if (state !== undefined) return;
    resumed.set(threadId, 'resuming');
    // A thread cannot be resumed before its first prompt (nothing of it is on disk yet): it is tried
    // again when its status changes, as it does when a turn starts.
    call('thread/resume', { threadId, excludeTurns: true }).then(
      () => resumed.set(threadId, 'resumed'),
      () => {
        const again = resumed.get(threadId) === 'again';
        resumed.delete(threadId);
        if (again) resume(threadId);
      },
    );
  };

  socket.on('message', (data, isBinary) => {
    const message = isBinary ? undefined : parseMessage(String(data));
    if (!message) {
      if (!warnedUnread) warn(`Codex sent a message askbridge does not read: skipped\n`);
      warnedUnread = true;
      return;
    }
    if (message.method === undefined) {
      const waiting = typeof message.id === 'number' ? calls.get(message.id) : undefined;
      if (!waiting) return;
      calls.delete(message.id as number);
      clearTimeout(waiting.timer);
      if (message.error !== undefined) waiting.reject(new Error(`Codex refused it: ${errorMessage(message.error)}`));
      else waiting.resolve(message.result);
    } else if (message.id !== undefined) {
      // Only questions and MCP servers' requests are Codex's to ask here; everything else it asks stays with its TUI, unanswered by this client.
      const id = message.id;
      const pending = readRequest(id, message, relay.print);
      if (!pending) return;
      const key = `${pending.key.sessionId}\u0000${pending.key.toolUseId}`;
      requests.set(JSON.stringify(id), key);
      asking.set(key, {
        id,
        answer: (result) => {
          if (socket.readyState !== WebSocket.OPEN) throw new Error('the connection to Codex closed: sent again once Codex asks again');
          socket.send(JSON.stringify({ id, result }));
        },
      });
      if (!holds.start(key, (hold) => relayOne(relay, pending, { call, asking: () => asking.get(key) }, hold).finally(() => asking.delete(key)))) holds.tryAgain(key);
    } else if (message.method === RESOLVED_METHOD) {
      const requestId = isRecord(message.params) ? message.params.requestId : undefined;
      const key = typeof requestId === 'string' || typeof requestId === 'number' ? requests.get(JSON.stringify(requestId)) : undefined;
      if (key !== undefined && asking.get(key)?.id === requestId) holds.letGo(key, 'settled');
    } else if (message.method === 'thread/started') {
      const thread = isRecord(message.params) && isRecord(message.params.thread) ? message.params.thread : undefined;
      if (thread && typeof thread.id === 'string') {
        if (thread.ephemeral === true) ephemeral.add(thread.id);
        else resume(thread.id);
      }
    } else if (message.method === 'thread/status/changed' || message.method === 'thread/closed') {
      // Codex tells every client of every thread's status: a thread not followed yet is resumed then.
      const threadId = isRecord(message.params) ? message.params.threadId : undefined;
      if (typeof threadId !== 'string') return;
      const status = isRecord(message.params) && isRecord(message.params.status) ? message.params.status.type : undefined;
      if (message.method === 'thread/closed' || status === 'notLoaded') {
        resumed.delete(threadId);
        ephemeral.delete(threadId);
      } else resume(threadId);
    }
  });
  socket.once('close', () => {
    for (const waiting of calls.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error('the connection to Codex closed'));
    }
    calls.clear();
  });

  await call('initialize', { clientInfo: { name: 'askbridge', title: 'askbridge', version: VERSION }, capabilities: { experimentalApi: false, requestAttestation: false } });
  send({ method: 'initialized' });
  const threads: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await call('thread/loaded/list', cursor === null ? {} : { cursor });
    if (!isRecord(page) || !Array.isArray(page.data)) throw new Error('Codex listed its threads in a shape askbridge does not read');
    threads.push(...page.data.filter((id): id is string => typeof id === 'string'));
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : null;
  } while (cursor !== null);
  attached(threads.length);
  for (const threadId of threads) resume(threadId);
}

/** One of Codex's requests as this relay hands it to askbridge: how the lines name it, what decides without askbridge, the ask's key, and the request. */
type Pending = { name: string; ownPrompt: string; key: RelayWithdraw; request: AttachCodexRequest['request'] };

/**
 * A request of Codex's askbridge asks: a question, or an MCP server's form or link. Codex's approval
 * of an MCP tool call comes as an elicitation too (an empty form, `_meta.codex_approval_kind`): it
 * is not a form, so its own dialog decides it. One that does not read is left to Codex, with a line.
 */
function readRequest(id: RequestId, message: Message, print: (line: string) => void): Pending | undefined {
  const refused = (what: string, ownPrompt: string, error: Parameters<typeof describeZodError>[0]) => {
    print(`${what} ${terminalText(JSON.stringify(id))}: not relayed, ${ownPrompt} asks (${terminalText(describeZodError(error).slice(0, 3).join('; '))})\n`);
    return undefined;
  };
  if (message.method === QUESTION_METHOD) {
    const checked = checkShape(CodexUserInputRequestSchema, message.params);
    if (!checked.ok) return refused('question', "Codex's own picker", checked.error);
    const question = checked.value;
    return {
      name: `question ${terminalText(question.itemId)} of thread ${terminalText(question.threadId)}`,
      ownPrompt: "Codex's own picker",
      key: { agent: 'codex', sessionId: question.threadId, toolUseId: question.itemId },
      request: { kind: 'question', question },
    };
  }
  if (message.method === ELICITATION_METHOD) {
    const meta = isRecord(message.params) ? message.params._meta : undefined;
    if (isRecord(meta) && meta.codex_approval_kind !== undefined) return undefined;
    const checked = checkShape(CodexElicitationRequestSchema, message.params);
    if (!checked.ok) return refused('MCP request', "Codex's own dialog", checked.error);
    const elicitation = checked.value;
    return {
      name: `${elicitation.mode === 'url' ? 'link' : 'form'} ${terminalText(JSON.stringify(id))} of MCP server ${terminalText(elicitation.serverName)} in thread ${terminalText(elicitation.threadId)}`,
      ownPrompt: "Codex's own dialog",
      key: { agent: 'codex', sessionId: elicitation.threadId, toolUseId: codexElicitationKey(id, elicitation) },
      request: { kind: 'elicitation', requestId: id, elicitation },
    };
  }
  return undefined;
}

type Connection = { call: (method: string, params: unknown) => Promise<unknown>; asking: () => Asking | undefined };

/** Hands one request to askbridge, and its answer to Codex (relay.ts), where Codex asks it now. */
async function relayOne(relay: Relay, pending: Pending, { call, asking }: Connection, hold: Hold): Promise<void> {
  await relayAsk<CodexUserInputResponse | CodexElicitationResponse>(
    relay,
    {
      name: pending.name,
      announce: pending.name,
      ownPrompt: pending.ownPrompt,
      agent: 'Codex',
      key: pending.key,
      path: '/api/attach/codex',
      schema: AttachCodexReplySchema,
      body: async () => ({ request: pending.request, thread: await threadOf(call, pending.key.sessionId), environment: askerEnvironment(relay.env) }) satisfies AttachCodexRequest,
      deliver: async (reply) => {
        const to = asking();
        if (!to) throw new Error('Codex does not ask it now');
        to.answer(reply);
      },
      words: (reply) => ('answers' in reply ? 'answered' : reply.action),
    },
    hold,
  );
}

/** The thread's folder (its project's configuration applies) and its name or first prompt, for the card; nothing when Codex does not say. */
async function threadOf(call: Connection['call'], threadId: string): Promise<AttachCodexRequest['thread']> {
  try {
    const read = await call('thread/read', { threadId, includeTurns: false });
    const thread = isRecord(read) && isRecord(read.thread) ? read.thread : {};
    const title = [thread.name, thread.preview].find((text): text is string => typeof text === 'string' && text.trim() !== '');
    return { cwd: typeof thread.cwd === 'string' ? thread.cwd : '', ...(title ? { title } : {}) };
  } catch {
    return { cwd: '' };
  }
}

/** One JSON-RPC message as Codex frames it (no "jsonrpc" member), or undefined for anything else. */
type Message = { id?: RequestId; method?: string; params?: unknown; result?: unknown; error?: unknown };

function parseMessage(text: string): Message | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const { id, method } = parsed;
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (method !== undefined && typeof method !== 'string') return undefined;
  if (method === undefined && id === undefined) return undefined;
  return parsed as Message;
}

function errorMessage(error: unknown): string {
  return isRecord(error) && typeof error.message === 'string' ? error.message : 'no reason given';
}
