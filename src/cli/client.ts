// How CLI commands reach the running daemon: its port from daemon.json (or ASKBRIDGE_PORT), and
// the local token from the state directory. Every failure is a CliError with a sentence to print.
import { request } from 'node:http';
import { isProcessAlive, LOOPBACK_HOST, openStateDir, resolveStateDir, type DaemonInfo, type StateDir } from '../state-dir.js';
import { checkHello, newNonce } from '../daemon/hook-identity.js';
import { askbridgeCommand } from '../command-name.js';
import { describeNotServing, findKeeper, isServing } from '../daemon/lock.js';
import { CliError } from './command.js';


/**
 * Why the daemon could not be used: nothing there, askbridge's keeper whose daemon keeps failing
 * (it answers 503 meanwhile), an askbridge that refuses our token, or a program that is not askbridge.
 */
export type Unreachable = 'not-running' | 'not-serving' | 'refuses-token' | 'not-askbridge';

export class DaemonUnreachable extends CliError {
  constructor(
    readonly state: Unreachable,
    message: string,
  ) {
    super(message);
  }

  /** No daemon serves here now: none runs, or its keeper is starting one again. Nothing else answers in its place. */
  get noDaemonServes(): boolean {
    return this.state === 'not-running' || this.state === 'not-serving';
  }
}

/** The methods the CLI uses: PUT only for the away switch, DELETE only to remove a person. */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type DaemonClient = {
  baseUrl: string;
  /** The reply's body is JSON not yet checked: read it with readReply (replies.ts). */
  request(method: Method, path: string, body?: unknown, options?: RequestOptions): Promise<{ status: number; body: unknown }>;
  /** The Authorization header for a connection of its own (the live feed), once the daemon has proven it holds the token. */
  authorization(): Promise<string>;
};

export type RequestOptions = {
  /** A reply that comes once a person answered (POST /api/asks): no time limit. */
  waitsForAPerson?: boolean;
  /** Aborting closes the connection, which withdraws a question being asked. */
  signal?: AbortSignal;
};

/** `command`: how to run askbridge here (askbridgeCommand). */
export const notRunning = (command: string) => `askbridge is not running: start it with \`${command} start\` (or \`npm start\` in its folder)`;

export function connectToDaemon(env: NodeJS.ProcessEnv): DaemonClient {
  const stateDir = openStateDir(resolveStateDir(env));
  const info = stateDir.readDaemonInfo();
  const command = askbridgeCommand(env);
  throwIfNotServing(stateDir, info, command);
  // daemon.json says where the daemon listens now; ASKBRIDGE_PORT (0 means "any" to the daemon) stands in without it.
  const port = info?.port ?? (Number(env.ASKBRIDGE_PORT) || undefined);
  const token = stateDir.readToken();
  if (!port || !token) throw new DaemonUnreachable('not-running', notRunning(command));
  const baseUrl = `http://${LOOPBACK_HOST}:${port}`;
  const send = (method: Method, path: string, headers: Record<string, string>, body?: string, options: RequestOptions = {}) => sendOrExplain(baseUrl, port, info, command, { method, path, headers, body, ...options });
  let proven: Promise<void> | undefined;
  // The token goes only to a daemon that first proves it holds it: never to an impostor on the port.
  const prove = () =>
    (proven ??= proveIdentity(send, baseUrl, port, token).catch((error: unknown) => {
      // The daemon crashed since daemon.json was read: its keeper answered, and has said why since.
      if (error instanceof DaemonUnreachable) throwIfNotServing(stateDir, stateDir.readDaemonInfo(), command);
      throw error;
    }));
  return {
    baseUrl,
    async authorization() {
      await prove();
      return `Bearer ${token}`;
    },
    async request(method, path, body, options) {
      await prove();
      const json = body === undefined ? undefined : JSON.stringify(body);
      const response = await send(method, path, { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, json, options);
      const parsed = parseJson(response.text);
      const isAskbridgeError = typeof parsed === 'object' && parsed !== null && 'error' in parsed;
      if (parsed === undefined || (response.status >= 400 && !isAskbridgeError)) {
        throw new DaemonUnreachable('not-askbridge', `something that is not askbridge answers on ${baseUrl} (HTTP ${response.status}): ${FIND_IT(port)}`);
      }
      if (response.status === 401) {
        throw new DaemonUnreachable('refuses-token', `askbridge on ${baseUrl} refuses this state directory's token: it belongs to another state directory (check ASKBRIDGE_HOME), or was started by another user`);
      }
      return { status: response.status, body: parsed };
    },
  };
}

/** daemon.json names a live keeper of this state directory whose daemon does not serve: say so, and why. */
function throwIfNotServing(stateDir: StateDir, info: DaemonInfo | undefined, command: string): void {
  if (!info || isServing(info)) return;
  const keeper = findKeeper(stateDir.paths.dir, info)?.info;
  if (keeper) throw new DaemonUnreachable('not-serving', describeNotServing(keeper, command));
}

const FIND_IT = (port: number) => `find it with \`ss -ltnp 'sport = :${port}'\`, stop it, then start askbridge again`;
const REQUEST_TIMEOUT_MS = 5000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One request over node:http (the CLI's quick commands would spend more time loading fetch than
 * running), with every way it can fail turned into the sentence that says why.
 */
function sendOrExplain(
  baseUrl: string,
  port: number,
  info: DaemonInfo | undefined,
  command: string,
  { method, path, headers, body, waitsForAPerson, signal }: { method: Method; path: string; headers: Record<string, string>; body?: string | undefined } & RequestOptions,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) },
      agent: false,
      ...(waitsForAPerson ? {} : { timeout: REQUEST_TIMEOUT_MS }),
      ...(signal ? { signal } : {}),
    });
    req.on('timeout', () => {
      req.destroy();
      reject(new DaemonUnreachable('not-askbridge', `something accepts connections on ${baseUrl} but does not answer: ${FIND_IT(port)}`));
    });
    req.on('error', (error) => {
      if (signal?.aborted) return reject(error);
      const stale = info !== undefined && !isProcessAlive(info.pid);
      reject(new DaemonUnreachable('not-running', stale ? `${notRunning(command)} (daemon.json is left over from pid ${info.pid}, which ended without cleaning up; the next start replaces it)` : notRunning(command)));
    });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', () => reject(new DaemonUnreachable('not-askbridge', `the connection to ${baseUrl} broke off mid-answer: ${FIND_IT(port)}`)));
    });
    req.end(body);
  });
}

/** The hook's hello, from the CLI: whatever answers on the port must prove it holds this state directory's token. */
async function proveIdentity(send: (method: 'POST', path: string, headers: Record<string, string>, body: string) => Promise<{ status: number; text: string }>, baseUrl: string, port: number, token: string): Promise<void> {
  const hookNonce = newNonce();
  const response = await send('POST', '/api/hook/hello', { 'content-type': 'application/json' }, JSON.stringify({ nonce: hookNonce }));
  const reply = parseJson(response.text);
  if (typeof reply === 'object' && reply !== null && checkHello(token, hookNonce, reply)) return;
  const isAskbridge = typeof reply === 'object' && reply !== null && 'nonce' in reply && 'proof' in reply;
  throw isAskbridge
    ? new DaemonUnreachable('refuses-token', `askbridge on ${baseUrl} does not hold this state directory's token: it belongs to another state directory (check ASKBRIDGE_HOME), or was started by another user`)
    : new DaemonUnreachable('not-askbridge', `something on ${baseUrl} could not prove it is askbridge (HTTP ${response.status}): nothing was sent to it; ${FIND_IT(port)}`);
}
