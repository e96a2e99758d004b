// The daemon process: the only daemon file that touches `process`, signals and listen().
import './v8-flags.js';
import closeWithGrace from 'close-with-grace';
import { createServer } from 'node:http';
import type { Logger } from 'pino';
import { buildApp, type App } from './app.js';
import { createLogger, wantsColor } from './logger.js';
import { createConfigWatch } from './config-watch.js';
import { createHistory } from './asks/history.js';
import { createPolicy, type Policy } from './asks/policy.js';
import { createPageSessionFile } from './page-sessions.js';
import { MAX_PENDING } from './limits.js';
import { createPendingFiles } from './asks/pending-files.js';
import { createAskStore, type PendingRecord, type AskStore } from './asks/store.js';
import { createNotifier } from './notify.js';
import { createPush, type Push } from './push.js';
import { createWebhooks } from './webhooks.js';
import { claudeProjectsDir, readSessionContext } from './transcript.js';
import { configuredPort, LOOPBACK_HOST, openStateDir, resolveStateDir } from '../state-dir.js';
import { askbridgeCommand } from '../command-name.js';
import { acquireDaemonLock, describeRunning, type DaemonLock } from './lock.js';
import { ToolInputSchema } from '../protocol.js';
import { parsePublicUrl, type PublicUrl } from '../public-url.js';
import { readConfigFile, userConfigPath } from '../config.js';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { renderUnicodeCompact } from 'uqr';
import { VERSION } from '../version.js';

export type DaemonOptions = {
  env: NodeJS.ProcessEnv;
  port?: number;
  /** Where the one-time page URL is printed. */
  print: (line: string) => void;
  /** Log to the rotated files in the state directory instead of stdout (a daemon in the background). */
  logToFile?: boolean;
  /** --public-url: where pages and remote hooks reach the daemon besides loopback (else ASKBRIDGE_PUBLIC_URL, else the user config's publicUrl). */
  publicUrl?: string | undefined;
  /** --listen ADDR:PORT with --tls-cert and --tls-key: serve https there too, for a public URL with no front. */
  listen?: { address: string; tlsCert?: string | undefined; tlsKey?: string | undefined } | undefined;
};

export type RunningDaemon = { app: App; port: number; url: string; logger: Logger; stop: () => Promise<void> };

export class DaemonStartError extends Error {}
/** Another live daemon holds this state directory: not a failure, there is just nothing to start. */
export class DaemonAlreadyRunning extends Error {}

export function resolvePort(env: NodeJS.ProcessEnv, flag?: number): number {
  const raw = configuredPort(env, flag);
  if (!Number.isInteger(raw) || raw < 0 || raw > 65535) throw new DaemonStartError(`invalid port "${raw}": use 1-65535, or 0 for any free port`);
  return raw;
}

/** How long after it starts to serve the daemon starts watching its config files (config-watch.ts). */
const WATCH_AFTER_SERVING_MS = 250;

/** A disk that refuses the state directory's files is a one-line reason not to start. */
const DISK_ERRORS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const dir = resolveStateDir(options.env);
  try {
    return await startIn(dir, options);
  } catch (error) {
    const reason = DISK_ERRORS[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason) throw new DaemonStartError(`cannot write the state directory ${dir}: ${reason} (${(error as NodeJS.ErrnoException).code}); free it up, or point ASKBRIDGE_HOME elsewhere`);
    throw error;
  }
}

/** The public URL, from the flag, the environment or the user config; a bad one is a reason not to start. */
export function resolvePublicUrl(options: Pick<DaemonOptions, 'env' | 'publicUrl'>): PublicUrl | undefined {
  let raw = options.publicUrl ?? options.env.ASKBRIDGE_PUBLIC_URL;
  let from = options.publicUrl !== undefined ? '--public-url' : 'ASKBRIDGE_PUBLIC_URL';
  if (raw === undefined) {
    from = userConfigPath(options.env);
    try {
      raw = readConfigFile(from).publicUrl;
    } catch {
      raw = undefined; // a broken config file is reported on every page; it opens nothing
    }
  }
  if (raw === undefined || raw === '') return undefined;
  const parsed = parsePublicUrl(raw);
  if ('error' in parsed) throw new DaemonStartError(`the public URL (${from}) cannot be used: ${parsed.error}`);
  return parsed;
}

async function startIn(dir: string, options: DaemonOptions): Promise<RunningDaemon> {
  const port = resolvePort(options.env, options.port);
  const publicUrl = resolvePublicUrl(options);
  const tls = options.listen ? readListenTls(options.listen, publicUrl) : undefined;
  const stateDir = openStateDir(dir);
  stateDir.ensure();
  // Taken before anything is written, so a second start changes nothing of the running daemon's.
  const attempt = await acquireDaemonLock(stateDir.paths.dir);
  if (!attempt.acquired) throw new DaemonAlreadyRunning(describeRunning(attempt.holder, stateDir.readDaemonInfo()));
  try {
    return await startLocked(options, { port, publicUrl, tls }, stateDir, attempt.lock);
  } catch (error) {
    attempt.lock.release();
    throw error;
  }
}

type Reach = { port: number; publicUrl: PublicUrl | undefined; tls: ListenTls | undefined };

async function startLocked(options: DaemonOptions, { port, publicUrl, tls }: Reach, stateDir: ReturnType<typeof openStateDir>, lock: DaemonLock): Promise<RunningDaemon> {
  const terminal = process.stdout.isTTY === true;
  const logger: Logger = await createLogger({
    level: options.env.ASKBRIDGE_LOG_LEVEL,
    target: options.logToFile ? { kind: 'file', stateDir: stateDir.paths.dir } : { kind: 'stdout', terminal, color: wantsColor(options.env, terminal) },
  });
  const token = stateDir.writeNewToken();
  // For tests only: a small limit, to reach it with a few questions. The default is MAX_PENDING.
  const maxPending = Number(options.env.ASKBRIDGE_TEST_MAX_PENDING) || MAX_PENDING;
  const pendingFiles = createPendingFiles(stateDir.paths.dir, (fields, message) => logger.warn(fields, message));
  const store = createAskStore({ persistence: pendingFiles });
  let app: App | undefined;
  // One banner for every page: a broken config file, history that cannot be written, or both.
  let configBanner: string | null = null;
  let historyBanner: string | null = null;
  let overloadBanner: string | null = null;
  const banner = () => [configBanner, historyBanner, overloadBanner].filter(Boolean).join(' | ') || null;
  const setOverloadBanner = (message: string | null) => {
    if (message === overloadBanner) return;
    overloadBanner = message;
    app?.askbridge.broadcast({ type: 'banner', message: banner() });
  };
  const history = createHistory(stateDir.paths.history, {
    onError: (error) => logger.error({ err: error }, 'could not write history.jsonl: the answers are still delivered, and the lines wait in memory'),
    onProblem: (problem) => {
      if (problem === null) logger.info('history.jsonl is written again: it has caught up');
      historyBanner = problem ? `History cannot be written (${problem.error}): answers still reach Claude, and ${problem.waiting} line(s) wait to be recorded${problem.lost ? `, ${problem.lost} lost` : ''}` : null;
      app?.askbridge.broadcast({ type: 'banner', message: banner() });
    },
  });
  store.subscribe((event) => {
    if (event.type !== 'resolved') return;
    history.append(event.ask);
    if (overloadBanner && store.pendingCount() < maxPending) setOverloadBanner(null);
  });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= shutDown());

  let holdsIpv6 = false;
  // The config files are watched from a moment after the daemon serves, so that setting up the
  // watcher does not share the CPU with the first questions of a start.
  let serving = () => {};
  const served = new Promise<void>((resolve) => (serving = resolve));
  const configWatch = createConfigWatch({
    watchFrom: served,
    env: options.env,
    log: { info: (fields, message) => logger.info(fields, message), warn: (fields, message) => logger.warn(fields, message) },
    onBanner: (message) => {
      configBanner = message;
      app?.askbridge.broadcast({ type: 'banner', message: banner() });
    },
  });
  const policyLog = logger.child({ component: 'policy' });
  const planQuestion = createPolicy({ configFor: (cwd) => configWatch.effective(cwd), log: (fields, message) => policyLog.info(fields, message) });
  try {
    stateDir.ensureHookKey();
  } catch (error) {
    // The command hook does not need it; http hooks are refused (and their terminal asks) until it exists.
    logger.warn({ error: (error as Error).message }, 'the hook key could not be made: http hooks are refused until `askbridge install` can make it');
  }
  const notifyLog = logger.child({ component: 'notify' });
  const log = { info: (fields: Record<string, unknown>, message: string) => notifyLog.info(fields, message), warn: (fields: Record<string, unknown>, message: string) => notifyLog.warn(fields, message) };
  let push: Push | undefined;
  try {
    push = createPush({ paths: stateDir.paths, subject: vapidSubject(publicUrl), log });
  } catch (error) {
    logger.warn({ error: (error as Error).message }, 'Web Push is not available: its keys could not be made');
  }
  app = await buildApp({
    store,
    token,
    hookKey: () => stateDir.readHookKey(),
    port,
    version: VERSION,
    pid: process.pid,
    logger,
    planQuestion,
    banner,
    configFor: (cwd) => configWatch.effective(cwd),
    health: () => ({ history: history.problem() }),
    history: { path: stateDir.paths.history, flushed: () => history.flushed() },
    pageSessionStore: createPageSessionFile(stateDir.paths.pageSessions),
    push,
    holdsIpv6: () => holdsIpv6,
    publicUrl,
    // Claude Code's transcripts, as this daemon's user and environment place them.
    sessionContext: (transcriptPath, toolUseId, stillWanted) => readSessionContext(transcriptPath, toolUseId, { projectsDir: claudeProjectsDir(options.env), uid: process.getuid?.() }, stillWanted),
    heartbeatMs: Number(options.env.ASKBRIDGE_TEST_HEARTBEAT_MS) || undefined, // for tests only: how fast a dead page is noticed
    maxPending,
    onOverload: () => setOverloadBanner(`${maxPending} questions are waiting: new ones go to their terminal until some are answered`),
    onShutdownRequest: () => void stop().then(() => process.exit(0)),
  });
  configWatch.effective(''); // read and start watching the user config now, so a broken one shows at once
  restoreWaitingQuestions(store, pendingFiles.load(), planQuestion, logger);
  // From here on, each new question is told once; restored ones were told when they were first asked.
  let pageUrl = publicUrl?.href;
  const notifier = createNotifier({
    store,
    config: (cwd) => configWatch.effective(cwd).config,
    link: (askId) => `${pageUrl}#question=${askId}`,
    // ASKBRIDGE_TEST_NOTIFY_RETRY_MS, for tests only: retries without the real backoff.
    webhooks: createWebhooks({ log, retryMs: Number(options.env.ASKBRIDGE_TEST_NOTIFY_RETRY_MS) || undefined }),
    push,
    pageVisible: () => app.askbridge.pageVisible(),
    pairedDevices: () => app.askbridge.auth.devices().map((device) => device.id),
    log: (fields, message) => notifyLog.error(fields, message),
  });

  let listeningPort: number;
  let closeIpv6: () => Promise<void>;
  try {
    ({ port: listeningPort, close: closeIpv6 } = await listenOnLoopback(app, port, (held) => (holdsIpv6 = held)));
    if (tls) {
      const closeTls = await listenWithTls(app, tls);
      const closeLoopback = closeIpv6;
      closeIpv6 = async () => {
        await Promise.all([closeLoopback(), closeTls()]);
      };
    }
  } catch (error) {
    notifier.close();
    await Promise.all([app.close(), configWatch.close()]);
    if (error instanceof DaemonStartError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new DaemonStartError(`port ${port} is in use: stop what uses it, or start with ASKBRIDGE_PORT=<another port>`);
    }
    throw error;
  }
  stateDir.writeDaemonInfo({ pid: process.pid, port: listeningPort, host: LOOPBACK_HOST, version: VERSION, startedAt: Date.now(), ...(publicUrl ? { publicUrl: publicUrl.href } : {}) });

  setTimeout(serving, WATCH_AFTER_SERVING_MS).unref();
  const url = `http://${LOOPBACK_HOST}:${listeningPort}/`;
  pageUrl ??= url;
  logger.info({ url, stateDir: stateDir.paths.dir, version: VERSION }, 'askbridge is listening');
  options.print(`Answer page (one-time link, pairs one browser): ${url}#pair=${app.askbridge.auth.createPairingCode()}`);
  if (publicUrl) {
    const link = `${publicUrl.href}#pair=${app.askbridge.auth.createPairingCode()}`;
    options.print(`From a phone or another machine (one-time link, or scan it): ${link}`);
    options.print(renderUnicodeCompact(link, { border: 1 }));
  }
  options.print(`For another browser or device later, run: ${askbridgeCommand(options.env)} ${publicUrl ? 'pair' : 'open'}`);

  async function shutDown(): Promise<void> {
    logger.info('stopping: waiting hooks hand their questions to the terminal');
    store.releaseAll();
    notifier.close();
    await Promise.all([app!.close(), closeIpv6(), configWatch.close(), history.flushed()]);
    history.close();
    stateDir.removeDaemonInfo(process.pid);
    lock.release();
  }

  return { app, port: listeningPort, url, logger, stop };
}

/**
 * Listen on every loopback address a browser may use for `localhost`: 127.0.0.1 and, where the
 * system has it, [::1], on the same port. Browsers try [::1] for localhost: a port the daemon left
 * free there could be taken by any process, which would then be served as http://localhost:PORT.
 * So [::1] held by someone else is a refusal to start, not a warning. Returns the port.
 */
async function listenOnLoopback(app: App, port: number, setHoldsIpv6: (held: boolean) => void): Promise<{ port: number; close: () => Promise<void> }> {
  await app.listen({ host: LOOPBACK_HOST, port });
  const address = app.server.address();
  const listeningPort = typeof address === 'object' && address !== null ? address.port : port;
  // The same limits as the main server's (app.ts), which hands it every request and upgrade.
  const ipv6 = createServer({ requestTimeout: app.server.requestTimeout, headersTimeout: app.server.headersTimeout, keepAliveTimeout: app.server.keepAliveTimeout, connectionsCheckingInterval: 1_000 });
  ipv6.on('request', (request, response) => app.server.emit('request', request, response));
  ipv6.on('upgrade', (request, socket, head) => app.server.emit('upgrade', request, socket, head));
  try {
    await new Promise<void>((listening, failed) => {
      ipv6.once('error', failed);
      ipv6.listen({ host: '::1', port: listeningPort, ipv6Only: true }, listening);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') {
      setHoldsIpv6(false); // no IPv6 loopback here: nobody can take [::1] either
      return { port: listeningPort, close: async () => {} };
    }
    if (code === 'EADDRINUSE') {
      throw new DaemonStartError(`another program holds [::1]:${listeningPort}, so a browser opening http://localhost:${listeningPort}/ could reach it instead of askbridge: stop it, or start with ASKBRIDGE_PORT=<another port>`);
    }
    throw error;
  }
  setHoldsIpv6(true);
  return {
    port: listeningPort,
    close: async () => {
      ipv6.closeAllConnections();
      await new Promise((closed) => ipv6.close(closed));
    },
  };
}

/**
 * Who sends the pushes, in every VAPID JWT: the public URL, which some push services require to be a
 * real address (Apple's refuses localhost); a placeholder otherwise, for a daemon only this machine reaches.
 */
function vapidSubject(publicUrl: PublicUrl | undefined): string {
  return publicUrl?.secure && new URL(publicUrl.href).hostname !== 'localhost' ? publicUrl.href : 'mailto:push@askbridge.invalid';
}

type ListenTls = { host: string; port: number; cert: Buffer; key: Buffer };

/** --listen: serving beyond loopback needs TLS, and a public URL naming it (so Host and Origin are checked). */
function readListenTls(listen: NonNullable<DaemonOptions['listen']>, publicUrl: PublicUrl | undefined): ListenTls {
  const match = /^(.+):(\d{1,5})$/.exec(listen.address);
  if (!match) throw new DaemonStartError(`--listen ${listen.address}: expected ADDRESS:PORT, for example 0.0.0.0:8443`);
  if (!listen.tlsCert || !listen.tlsKey) {
    throw new DaemonStartError(`--listen ${listen.address} serves beyond loopback, which askbridge does only over TLS: give --tls-cert FILE and --tls-key FILE (or keep it on loopback behind Tailscale Serve, Caddy or an SSH tunnel)`);
  }
  if (!publicUrl?.secure) throw new DaemonStartError(`--listen ${listen.address} needs the https public URL its certificate names (--public-url https://NAME:${match[2]}), so that only that Host and Origin are accepted`);
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new DaemonStartError(`cannot read the TLS ${what} ${path}: ${(error as Error).message}`);
    }
  };
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]), cert: read(listen.tlsCert, 'certificate'), key: read(listen.tlsKey, 'key') };
}

/** An https server on --listen that hands every request and upgrade to the app, as the [::1] one does. */
async function listenWithTls(app: App, tls: ListenTls): Promise<() => Promise<void>> {
  const server = createHttpsServer({ cert: tls.cert, key: tls.key, requestTimeout: app.server.requestTimeout, headersTimeout: app.server.headersTimeout, keepAliveTimeout: app.server.keepAliveTimeout });
  server.on('request', (request, response) => app.server.emit('request', request, response));
  server.on('upgrade', (request, socket, head) => app.server.emit('upgrade', request, socket, head));
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) => failed(error.code === 'EADDRINUSE' ? new DaemonStartError(`${tls.host}:${tls.port} is in use: choose another --listen port`) : error));
    server.listen({ host: tls.host, port: tls.port }, listening);
  });
  return async () => {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  };
}

/**
 * Questions that were waiting when the previous daemon died: back on every page at once, each with its
 * old deadline (as far as it had been extended) and its limit, and the policy that applies now, until
 * its hook re-attaches (or does not, and it is withdrawn).
 */
function restoreWaitingQuestions(store: AskStore, records: PendingRecord[], planQuestion: Policy, logger: Logger): void {
  for (const record of records) {
    const toolInput = ToolInputSchema.safeParse(record.toolInput);
    if (!toolInput.success) continue;
    const plan = planQuestion({ cwd: record.cwd, questions: toolInput.data.questions, unattended: false, watchers: 0 });
    store.restore({
      sessionId: record.sessionId,
      toolUseId: record.toolUseId,
      cwd: record.cwd,
      toolInput: record.toolInput,
      questions: toolInput.data.questions,
      waitMs: Math.max(0, record.expiresAt - Date.now()),
      timeout: plan.timeout,
      onTimeout: plan.onTimeout,
      restored: { id: record.id, createdAt: record.createdAt, expiresAt: record.expiresAt, ...(record.extendableUntil === undefined ? {} : { extendableUntil: record.extendableUntil }) },
    });
  }
  if (records.length > 0) logger.info({ questions: records.length }, 'waiting questions restored: their hooks can re-attach');
}


/** How long a stop may take (closing sockets, flushing history) before the process exits anyway. */
const STOP_GRACE_MS = 5000;

/**
 * `askbridge start`: run until a signal (SIGINT, SIGTERM, SIGHUP...), `askbridge stop`, or a crash.
 * Every way out goes through the same stop: waiting hooks fall through at once, daemon.json, the
 * token and the lock are removed. A crash exits 1 after that; a second signal exits at once.
 */
export async function runDaemonInForeground(options: DaemonOptions): Promise<void> {
  const daemon = await startDaemon(options);
  closeWithGrace({ delay: STOP_GRACE_MS, logger: false, onTimeout: () => daemon.logger.error('stop took too long: exiting anyway') }, async ({ signal, err }) => {
    if (err) daemon.logger.fatal({ err }, 'daemon crashed: stopping cleanly');
    else if (signal) daemon.logger.info({ signal }, 'signal received');
    await daemon.stop();
  });
}
