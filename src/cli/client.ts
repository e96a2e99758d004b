// How CLI commands reach the running daemon: its port from daemon.json (or ASKBRIDGE_PORT), and
// the local token from the state directory. Every failure is a CliError with a sentence to print.
import { LOOPBACK_HOST, openStateDir, resolveStateDir } from '../state-dir.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
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
  if (!port || !token) throw new CliError(NOT_RUNNING);
  const baseUrl = `http://${LOOPBACK_HOST}:${port}`;
  return {
    baseUrl,
    async request(method, path, body) {
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(5000),
        });
      } catch {
        throw new CliError(NOT_RUNNING);
      }
      if (response.status === 401) throw new CliError('the daemon refused the local token: is another askbridge using this state directory?');
      const text = await response.text();
      try {
        return { status: response.status, body: JSON.parse(text) as never };
      } catch {
        throw new CliError(`unexpected answer from ${baseUrl} (${response.status}): is something else listening on that port?`);
      }
    },
  };
}
