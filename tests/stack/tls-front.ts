// A real TLS reverse proxy in front of the daemon, as a user puts one there to reach it from a phone:
// Debian's Caddy, with its own internal CA, on loopback ports, under a made-up name that the test's
// clients resolve to 127.0.0.1. Clients trust exactly that CA (Node) or its key (Chromium). And,
// for the daemon serving https itself (--listen), a self-signed certificate for the same name.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitUntil } from './clock.js';
import { stopProcess } from './processes.js';
import { cannotRunHere } from './unavailable.js';

export const CADDY_PATH = '/usr/bin/caddy';
/** The name the front answers to; never looked up in DNS (the clients map it to 127.0.0.1). */
export const FRONT_NAME = 'askbridge.test';

export type TlsFront = {
  /** https://askbridge.test:PORT: the daemon's public URL. */
  origin: string;
  port: number;
  /** The CA that signed the front's certificate (PEM), for Node clients. */
  ca: string;
  /** Chromium flags: resolve the name to loopback and accept exactly the front's CA (its intermediate's key). */
  chromiumArgs: string[];
  /**
   * For a Node process that reaches the front by its name (the command hook): NODE_EXTRA_CA_CERTS names
   * the front's CA, as a person with a private CA sets it, and a preloaded module resolves the name to
   * loopback (it is in no DNS). Every other name resolves as usual.
   */
  nodeEnv: NodeJS.ProcessEnv;
  /**
   * The daemon port it forwards to; set it before the first request (the daemon may start after the
   * front). With several, as a team runs daemons sharing a store behind one front: the first that
   * answers, and the next when it does not (a daemon killed).
   */
  forwardTo(...ports: number[]): Promise<void>;
  stop(): Promise<void>;
};

/** Whether the remote-access tests can run (without Caddy: skipped with a message, or an error in CI). */
export function caddyAvailability(): { available: true } | { available: false; reason: string } {
  if (existsSync(CADDY_PATH)) return { available: true };
  const reason = `Caddy not found at ${CADDY_PATH} (install the Debian "caddy" package)`;
  cannotRunHere('the remote-access tests', reason);
  return { available: false, reason };
}

/** A free loopback port (closed again at once: Caddy takes it next). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}

/**
 * Picks the front's port first (the daemon's public URL names it); `forwardTo` then starts Caddy
 * forwarding to the daemon.
 */
export async function prepareTlsFront(): Promise<TlsFront> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-caddy-'));
  const port = await freePort();
  const httpPort = await freePort();
  let caddy: ChildProcess | undefined;
  let log = '';
  const caPath = join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');
  const resolver = join(dir, 'resolve-front-name.cjs');
  await writeFile(
    resolver,
    `const dns = require('node:dns');
const lookup = dns.lookup;
dns.lookup = function (name, options, callback) {
  if (name !== ${JSON.stringify(FRONT_NAME)}) return lookup.apply(this, arguments);
  const done = typeof options === 'function' ? options : callback;
  const all = typeof options === 'object' && options !== null && options.all;
  process.nextTick(() => (all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));
};
`,
  );
  const front: TlsFront = {
    origin: `https://${FRONT_NAME}:${port}`,
    port,
    ca: '',
    chromiumArgs: [],
    nodeEnv: { NODE_EXTRA_CA_CERTS: caPath, NODE_OPTIONS: `--require ${JSON.stringify(resolver)}` },
    async forwardTo(...upstreams) {
      const caddyfile = join(dir, 'Caddyfile');
      const to = upstreams.map((upstream) => `127.0.0.1:${upstream}`).join(' ');
      // With several, each is looked at every half second (the page at /, which any daemon serves): one
      // killed is passed over from then on. Else a POST would go to it first, and Caddy, retrying at the
      // next after the refusal, sends that one no body (Debian's 2.6 does; caddyserver/caddy#7546).
      const proxy =
        upstreams.length === 1 ? `reverse_proxy ${to}` : `reverse_proxy ${to} {\n\t\tlb_policy first\n\t\tlb_try_duration 5s\n\t\tfail_duration 30s\n\t\thealth_uri /\n\t\thealth_interval 500ms\n\t}`;
      await writeFile(
        caddyfile,
        `{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\thttp_port ${httpPort}\n\thttps_port ${port}\n}\nhttps://${FRONT_NAME}:${port} {\n\tbind 127.0.0.1\n\ttls internal\n\t${proxy}\n}\n`,
      );
      caddy = spawn(CADDY_PATH, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      caddy.stdout?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
      caddy.stderr?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
      // Ready once it serves TLS with a certificate from its CA (any status: the daemon answers the rest).
      await waitUntil(
        async () => {
          if (caddy?.exitCode !== null) throw new Error(`caddy exited (${caddy?.exitCode}):\n${log.slice(-2000)}`);
          if (!existsSync(caPath)) return undefined;
          front.ca = readFileSync(caPath, 'utf8');
          const status = await httpsStatus(front, '/api/session').catch(() => undefined);
          return status === undefined ? undefined : true;
        },
        20_000,
        'Caddy to serve TLS',
        50,
      );
      // Chromium matches the keys of the certificates the server presents: Caddy sends its intermediate, not the root.
      const intermediate = readFileSync(join(dirname(caPath), 'intermediate.crt'), 'utf8');
      const spki = createHash('sha256').update(new X509Certificate(intermediate).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
      front.chromiumArgs = [`--host-resolver-rules=MAP ${FRONT_NAME} 127.0.0.1`, `--ignore-certificate-errors-spki-list=${spki}`];
    },
    async stop() {
      if (caddy) await stopProcess(caddy, 5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return front;
}

/** A request through the front, as a remote machine sends it: TLS to the name, checked against the front's CA. */
export function throughFront(front: Pick<TlsFront, 'port' | 'ca'>, options: { method: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        servername: FRONT_NAME,
        port: front.port,
        method: options.method,
        path: options.path,
        ca: front.ca,
        headers: { host: `${FRONT_NAME}:${front.port}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) }), ...options.headers },
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function httpsStatus(front: TlsFront, path: string): Promise<number> {
  return (await throughFront(front, { method: 'GET', path })).status;
}

export const OPENSSL_PATH = '/usr/bin/openssl';

/** Whether a test can make its own certificate (without openssl: skipped with a message, or an error in CI). */
export function opensslAvailability(what: string): { available: true } | { available: false; reason: string } {
  if (existsSync(OPENSSL_PATH)) return { available: true };
  const reason = `openssl not found at ${OPENSSL_PATH} (install the Debian "openssl" package)`;
  cannotRunHere(what, reason);
  return { available: false, reason };
}

/**
 * A self-signed certificate for FRONT_NAME and its key, written in `dir` as a person makes them for
 * `askbridge start --listen` with no front: the files, and the certificate's PEM for clients to trust.
 */
export function selfSignedCertificate(dir: string): { certPath: string; keyPath: string; ca: string } {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync(
    OPENSSL_PATH,
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', `/CN=${FRONT_NAME}`, '-addext', `subjectAltName=DNS:${FRONT_NAME}`],
    { stdio: 'pipe' },
  );
  return { certPath, keyPath, ca: readFileSync(certPath, 'utf8') };
}
