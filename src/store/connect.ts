// How askbridge connects to its store, for the daemon and the `store` command alike: the URL read by
// node-postgres' own parser, the password from the URL (ASKBRIDGE_STORE only), else PGPASSWORD, else
// the password file (PGPASSFILE or ~/.pgpass, read with pgpass: node-postgres reads it itself only
// with a deprecation warning, and pg 9 drops that), and every way a connection fails said in words.
import { parseIntoClientConfig } from 'pg-connection-string';
import pgpass from 'pgpass';
import type { Client, ClientConfig } from 'pg';

/** How long a connection may take to open before the store counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** What every pg.Client and pg.Pool of askbridge is made with. */
export function clientConfig(url: string, env: NodeJS.ProcessEnv): ClientConfig {
  const config = parseIntoClientConfig(url);
  const connection = { host: config.host, port: config.port, database: config.database, user: config.user ?? env.PGUSER };
  // undefined when none is found: pg then says the server asked for a password none was given for
  // (describeStoreError), which its types do not say a function may answer.
  const lookUp = (() => env.PGPASSWORD ?? passwordFromFile(connection)) as () => Promise<string>;
  return {
    ...config,
    password: config.password || lookUp,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'askbridge',
  };
}

function passwordFromFile(connection: { host?: string | undefined; port?: number | undefined; database?: string | undefined; user?: string | undefined }): Promise<string | undefined> {
  return new Promise((resolve) => pgpass(connection, resolve));
}

/** Where the store's server is, for messages: host and port, or the socket folder. */
function serverOf(url: string): string {
  const config = parseIntoClientConfig(url);
  const host = config.host ?? 'localhost';
  return host.startsWith('/') ? `the socket in ${host}` : `${host}:${config.port ?? 5432}`;
}

/**
 * Why a connection to the store failed, in a sentence a person can act on: the host it tried and
 * the driver's own reason when it cannot reach it; the user when the server refuses the password
 * (or needs one none was given for); the database when there is no such one.
 */
export function describeStoreError(error: unknown, url: string): string {
  const config = parseIntoClientConfig(url);
  const user = config.user ?? '(the system user)';
  const database = config.database ?? config.user ?? '';
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  const message = reasonOf(error);
  switch (code) {
    case '28P01':
      return `the store refused the password of user "${user}" (${message}): check PGPASSWORD or the password file (~/.pgpass, or PGPASSFILE)`;
    case '28000':
      return `the store refused user "${user}": ${message}`;
    case '3D000':
      return `there is no database "${database}" at ${serverOf(url)}: create it (docs/shared-store.md), or fix the URL`;
    case '57P01':
    case '57P03':
      return `the store at ${serverOf(url)} is shutting down or starting up: ${message}`;
    default:
  }
  if (/client password must be a string/.test(message)) {
    return `the store asks user "${user}" for a password and none was given: set PGPASSWORD, or add a line to the password file (~/.pgpass, or the file PGPASSFILE names)`;
  }
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return `cannot reach the store at ${serverOf(url)}: ${message}`;
  if (/timeout/i.test(message)) return `cannot reach the store at ${serverOf(url)}: no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  return `the store at ${serverOf(url)} failed: ${message}`;
}

/** The driver's reason: an AggregateError (each address of a name refused) has none of its own. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(reasonOf).join('; ');
  return error instanceof Error ? error.message : String(error);
}

/** A connection to the store that could not be made, with its reason in words (describeStoreError). */
export class StoreConnectError extends Error {}

/** One connected client, for a command run without the daemon (`store`, `history`, `audit`); throws StoreConnectError. */
export async function connectClient(url: string, env: NodeJS.ProcessEnv): Promise<Client> {
  const { default: pg } = await import('pg');
  const client = new pg.Client(clientConfig(url, env));
  // A connection that breaks after it opened: the query under way fails with the reason.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new StoreConnectError(describeStoreError(error, url));
  }
  return client;
}
