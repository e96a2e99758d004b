// How CLI commands reach the running daemon: its port from daemon.json (or ASKBRIDGE_PORT), and
// the local token from the state directory. Every failure is a CliError with a sentence to print.
import { isProcessAlive, LOOPBACK_HOST, openStateDir, resolveStateDir } from '../state-dir.js';
import { checkHello, newNonce } from '../daemon/hook-identity.js';
import { CliError } from './command.js';


/** Why the daemon could not be used: nothing there, an askbridge that refuses our token, or a program that is not askbridge. */
export type Unreachable = 'not-running' | 'refuses-token' | 'not-askbridge';

export class DaemonUnreachable extends CliError {
  constructor(
    readonly state: Unreachable,
    message: string,
  ) {
    super(message);
  }
}

export type DaemonClient = {
  baseUrl: string;
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }>;
};

export const NOT_RUNNING = 'askbridge is not running: start it with `askbridge start` (or `npm start` in its folder)';

export function connectToDaemon(env: NodeJS.ProcessEnv): DaemonClient {
  const stateDir = openStateDir(resolveStateDir(env));
  const info = stateDir.readDaemonInfo();
  // daemon.json says where the daemon listens now; ASKBRIDGE_PORT (0 means "any" to the daemon) stands in without it.
  const port = info?.port ?? (Number(env.ASKBRIDGE_PORT) || undefined);
  const token = stateDir.readToken();
  if (!port || !token) throw new DaemonUnreachable('not-running', NOT_RUNNING);
  const baseUrl = `http://${LOOPBACK_HOST}:${port}`;
  let proven: Promise<void> | undefined;
  return {
    baseUrl,
    async request(method, path, body) {
      // The token goes only to a daemon that first proves it holds it: never to an impostor on the port.
      await (proven ??= proveIdentity(baseUrl, port, token, info));
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(5000),
        });
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') {
          throw new DaemonUnreachable('not-askbridge', `something accepts connections on ${baseUrl} but does not answer: find it with \`ss -ltnp 'sport = :${port}'\`, stop it, then start askbridge again`);
        }
        const stale = info !== undefined && !isProcessAlive(info.pid);
        throw new DaemonUnreachable('not-running', stale ? `${NOT_RUNNING} (daemon.json is left over from pid ${info.pid}, which ended without cleaning up; the next start replaces it)` : NOT_RUNNING);
      }
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const isAskbridgeError = typeof parsed === 'object' && parsed !== null && 'error' in parsed;
      if (parsed === undefined || (!response.ok && !isAskbridgeError)) {
        throw new DaemonUnreachable('not-askbridge', `something that is not askbridge answers on ${baseUrl} (HTTP ${response.status}): find it with \`ss -ltnp 'sport = :${port}'\`, stop it, then start askbridge again`);
      }
      if (response.status === 401) {
        throw new DaemonUnreachable('refuses-token', `askbridge on ${baseUrl} refuses this state directory's token: it belongs to another state directory (check ASKBRIDGE_HOME), or was started by another user`);
      }
      return { status: response.status, body: parsed as never };
    },
  };
}

/** The hook's hello, from the CLI: whatever answers on the port must prove it holds this state directory's token. */
async function proveIdentity(baseUrl: string, port: number, token: string, info: ReturnType<ReturnType<typeof openStateDir>['readDaemonInfo']>): Promise<void> {
  const hookNonce = newNonce();
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/hook/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nonce: hookNonce }), signal: AbortSignal.timeout(5000) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw new DaemonUnreachable('not-askbridge', `something accepts connections on ${baseUrl} but does not answer: find it with \`ss -ltnp 'sport = :${port}'\`, stop it, then start askbridge again`);
    }
    const stale = info !== undefined && !isProcessAlive(info.pid);
    throw new DaemonUnreachable('not-running', stale ? `${NOT_RUNNING} (daemon.json is left over from pid ${info.pid}, which ended without cleaning up; the next start replaces it)` : NOT_RUNNING);
  }
  let reply: unknown;
  try {
    reply = await response.json();
  } catch {
    reply = undefined;
  }
  if (typeof reply === 'object' && reply !== null && checkHello(token, hookNonce, reply)) return;
  if (response.status === 404) {
    throw new DaemonUnreachable('not-askbridge', `something that is not askbridge answers on ${baseUrl} (HTTP 404 to its hello): find it with \`ss -ltnp 'sport = :${port}'\`, stop it, then start askbridge again`);
  }
  const isAskbridge = typeof reply === 'object' && reply !== null && 'nonce' in reply && 'proof' in reply;
  throw isAskbridge
    ? new DaemonUnreachable('refuses-token', `askbridge on ${baseUrl} does not hold this state directory's token: it belongs to another state directory (check ASKBRIDGE_HOME), or was started by another user`)
    : new DaemonUnreachable('not-askbridge', `something on ${baseUrl} could not prove it is askbridge (HTTP ${response.status}): nothing was sent to it; find it with \`ss -ltnp 'sport = :${port}'\`, stop it, then start askbridge again`);
}
