// The daemon process: the only daemon file that touches `process` and signals. It runs as the
// keeper's child (keeper.ts), which holds the loopback port and the --listen address and hands it
// every connection over the IPC channel: it never listens itself.
import { isRoutedTo, someoneSees } from '../route-access.js';
import './v8-flags.js';
import closeWithGrace from 'close-with-grace';
import type { Socket } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { buildApp, type App } from './app.js';
import { createLogger, wantsColor } from './logger.js';
import { createConfigWatch } from './config-watch.js';
import { createHistory } from './asks/history.js';
import { readHistoryTail } from '../history-file.js';
import { createAuditTrail } from './audit.js';
import type { z } from 'zod';
import { AwayFileSchema, createAwaySwitch } from './away.js';
import { loadElicitationForms, type ElicitationForms } from './elicitation-forms.js';
import { keepHeldElicitations } from './held-elicitations.js';
import { createPolicy, type Policy } from './asks/policy.js';
import { pageSessionsIn } from './page-sessions.js';
import { fileDocuments, openSharedDocuments, type DocumentName } from './documents.js';
import { MAX_PENDING, WAITING_BYTES } from './limits.js';
import { createPendingFiles } from './asks/pending-files.js';
import { createAskStore, kindOf, type PendingRecord, type AskStore } from './asks/store.js';
import { riskField, type Asked } from './asks/open-ask.js';
import { askedFromDisk } from './decisions/relayed.js';
import { createNotifier } from './notify.js';
import { pushChannel, showsOn, telegramChannel, webhookChannel, type Channel } from './channels.js';
import { createPush, type Push } from './push.js';
import { createOneTap } from './one-tap.js';
import { DaemonStartError } from './start-error.js';
import { readListenTls, serveTls, type ListenTls, type TlsDoor } from './tls-listener.js';
import { createWebhooks } from './webhooks.js';
import { createTelegram } from './telegram/bot.js';
import { StoredChatsSchema } from './telegram/chats.js';
import { createGrantStore, GrantsSchema } from './grants.js';
import { createPeople, PeopleSchema } from './people.js';
import { createHookKeys, HookKeyDigestsSchema } from './hook-keys.js';
import { claudeProjectsDir, readSessionContext } from './transcript.js';
import { watchForTerminalAnswer } from './terminal-answers.js';
import { LOOPBACK_HOST, openStateDir, resolveStateDir, stateDirWriteError, type DaemonFailure, type PortHolder } from '../state-dir.js';
import { askbridgeCommand } from '../command-name.js';
import type { ListenAt, ToDaemon, ToKeeper } from './keeper.js';
import { ToolInputSchema, type AskView } from '../protocol.js';
import { choosePublicUrl, type PublicUrl, type PublicUrlSource } from '../public-url.js';
import { createPublicUrlSetting, pushSubject } from './public-url-setting.js';
import { ConfigFileError, readConfigFile, userConfigPath, type ConfigFile } from '../config.js';
import { renderUnicodeCompact } from 'uqr';
import { VERSION } from '../version.js';
import { profileOf } from '../agents.js';
import { readWiring, turnEndReach } from '../wiring.js';
import type { RouteView, StoreHealth, TurnEndReach } from '../protocol.js';
import { chooseStore } from '../store/setting.js';
import { openStore, StoreSchemaError, type SharedStore, type StoreLog } from '../store/postgres.js';
import { holdLeadership, LEADER_LOCKS } from '../store/leader.js';
import { shareAsks, type SharedAsks } from './shared-asks.js';
import { shareRecords, type SharedRecords } from './shared-records.js';
import { readStoreHistory } from '../store/records.js';
import type { HistoryFilter, HistoryLine } from '../history-file.js';
import { createPersonDecisions } from './asks/person-decisions.js';

export type DaemonOptions = {
  env: NodeJS.ProcessEnv;
  /** The port the keeper holds. */
  port: number;
  /** The keeper: it holds the lock and the port, and daemon.json names it as the daemon's pid. */
  keeperPid: number;
  portHeldBy: PortHolder;
  /** Whether the keeper holds [::1] too (there is no IPv6 loopback otherwise). */
  holdsIpv6: boolean;
  /** Where the one-time page URL is printed. */
  print: (line: string) => void;
  /** Log to the rotated files in the state directory instead of stdout (a daemon in the background). */
  logToFile?: boolean;
  /** --public-url: where pages and remote hooks reach the daemon besides loopback (else ASKBRIDGE_PUBLIC_URL, else the user config's publicUrl). */
  publicUrl?: string | undefined;
  /** --listen ADDR:PORT with --tls-cert and --tls-key: serve https on what the keeper accepts there, for a public URL with no front. */
  listen?: ListenAt | undefined;
  /** The keeper's count of daemons that crashed before this one, and the last: written into daemon.json for `status`. */
  crashes?: number;
  lastCrash?: DaemonFailure | undefined;
};

export type RunningDaemon = { app: App; port: number; url: string; logger: Logger; stop: () => Promise<void> };


/** How long after it starts to serve the daemon starts watching its config files (config-watch.ts). */
const WATCH_AFTER_SERVING_MS = 250;

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const dir = resolveStateDir(options.env);
  try {
    return await startIn(dir, options);
  } catch (error) {
    const diskError = stateDirWriteError(dir, error);
    if (diskError) throw new DaemonStartError(diskError);
    throw error;
  }
}

/** The public URL the daemon starts with: the flag's, else the environment's, else the user config's. */
type StartingPublicUrl = { url: PublicUrl | undefined; source: PublicUrlSource; userValue: string | undefined; userFile: string };

/** The public URL, from the flag, the environment or the user config; a bad flag or variable is a reason not to start. */
export function resolvePublicUrl(options: Pick<DaemonOptions, 'env' | 'publicUrl'>): StartingPublicUrl {
  const userFile = userConfigPath(options.env);
  let userValue: string | undefined;
  try {
    userValue = readConfigFile(userFile).publicUrl;
  } catch {
    userValue = undefined; // a broken config file is reported on every page; it opens nothing
  }
  const choice = choosePublicUrl({ flag: options.publicUrl, environment: options.env.ASKBRIDGE_PUBLIC_URL, user: userValue });
  if ('error' in choice) {
    const from = { flag: '--public-url', environment: 'ASKBRIDGE_PUBLIC_URL', user: userFile, none: '' }[choice.source];
    throw new DaemonStartError(`the public URL (${from}) cannot be used: ${choice.error}`);
  }
  return { ...choice, userValue, userFile };
}

/** The keeper holds the state directory's lock: nothing else starts a daemon in it meanwhile. */
async function startIn(dir: string, options: DaemonOptions): Promise<RunningDaemon> {
  const publicUrl = resolvePublicUrl(options);
  const tls = options.listen ? readListenTls(options.listen, publicUrl.url) : undefined;
  const stateDir = openStateDir(dir);
  stateDir.ensure();
  return startServing(options, { port: options.port, publicUrl, tls }, stateDir);
}

type Reach = { port: number; publicUrl: StartingPublicUrl; tls: ListenTls | undefined };

async function startServing(options: DaemonOptions, { port, publicUrl: startingUrl, tls }: Reach, stateDir: ReturnType<typeof openStateDir>): Promise<RunningDaemon> {
  const publicUrl = startingUrl.url;
  const terminal = process.stdout.isTTY === true;
  const logger: Logger = await createLogger({
    level: options.env.ASKBRIDGE_LOG_LEVEL,
    target: options.logToFile ? { kind: 'file', stateDir: stateDir.paths.dir } : { kind: 'stdout', terminal, color: wantsColor(options.env, terminal) },
  });
  // The keeper wrote this run's token before it took the port (keeper.ts); one removed since is made anew.
  const token = stateDir.readToken() ?? stateDir.writeNewToken();
  // For tests only: small limits, to reach them with a few questions. The defaults are in limits.ts.
  /** How to run askbridge on this machine, for every hint the daemon gives: computed once, here. */
  const command = askbridgeCommand(options.env);
  const waitingLimits = { asks: Number(options.env.ASKBRIDGE_TEST_MAX_PENDING) || MAX_PENDING, bytes: Number(options.env.ASKBRIDGE_TEST_WAITING_BYTES) || WAITING_BYTES };
  const pendingFiles = createPendingFiles(stateDir.paths.dir, (fields, message) => logger.warn(fields, message));
  let app: App | undefined;
  // One banner for every page: a broken config file, history or the audit trail that cannot be written, too many waiting.
  let configBanner: string | null = null;
  let historyBanner: string | null = null;
  let auditBanner: string | null = null;
  let overloadBanner: string | null = null;
  let storeBanner: string | null = null;
  const banner = () => [configBanner, historyBanner, auditBanner, storeBanner, overloadBanner].filter(Boolean).join(' | ') || null;
  const setOverloadBanner = (message: string | null) => {
    if (message === overloadBanner) return;
    overloadBanner = message;
    app?.askbridge.broadcast({ type: 'banner', message: banner() });
  };
  // The channels that tell people and answer besides the page and the CLI, wired once they exist (below).
  let channels: Channel[] = [];
  // Every decision, written before it is released (a person's and any allow are held while it cannot be: store.ts).
  const auditLog = logger.child({ component: 'audit' });
  const audit = createAuditTrail({
    file: stateDir.paths.audit,
    keyFile: stateDir.paths.auditKey,
    headFile: stateDir.paths.auditHead,
    command,
    log: { info: (fields, message) => auditLog.info(fields, message), error: (fields, message) => auditLog.error(fields, message) },
    onProblem: (problem) => {
      auditBanner = problem ? `The audit trail cannot be written (${problem.error}): a person's decisions wait until it can` : null;
      app?.askbridge.broadcast({ type: 'banner', message: banner() });
    },
  });
  audit.check();
  const publicUrlSetting = createPublicUrlSetting({ ...startingUrl, listening: tls !== undefined });
  const loopbackUrl = `http://${LOOPBACK_HOST}:${port}/`;
  // Stable across this daemon's restarts, so that the asks its hooks hold stay its own.
  const daemonId = `${hostname()}:${port}`;
  const storeLogger = logger.child({ component: 'store' });
  // History and the audit trail copied to the store (shared-records.ts), once it is open.
  let sharedRecords: SharedRecords | undefined;
  const storeLog = { info: (fields: Record<string, unknown>, message: string) => storeLogger.info(fields, message), warn: (fields: Record<string, unknown>, message: string) => storeLogger.warn(fields, message) };
  const sharedStore = await openSharedStore(options, {
    command,
    daemon: { id: daemonId, url: publicUrlSetting.url()?.href ?? loopbackUrl },
    log: storeLog,
    onChange: (health) => {
      if (health.reachable) sharedRecords?.reconnected();
      storeBanner = health.reachable ? null : `The shared store cannot be used (${health.reason})`;
      app?.askbridge.broadcast({ type: 'banner', message: banner() });
    },
  });
  // The people, the paired pages and chats, the grants and the away switch: files in the state
  // directory, or with a store, its documents, shared by every daemon on it.
  const sharedDocuments = sharedStore ? await openSharedDocuments({ pool: sharedStore.pool, daemon: daemonId, reachable: () => sharedStore.health().reachable, log: storeLog }) : undefined;
  const documents = sharedDocuments ?? fileDocuments;
  /** A document, and a warning when what is kept cannot be read. */
  const document = <T>(name: DocumentName, file: string, schema: z.ZodType<T>, unreadable: string) => documents.open(name, file, schema, (reason) => logger.warn({ document: name, reason }, unreadable));
  const people = createPeople({ document: document('people', stateDir.paths.people, PeopleSchema, 'could not read the people: none are known') });
  refuseTeamWithoutRoutes(options.env, people.list().length);
  // A team's trail: once people are defined, every decision is recorded, and a person's (or any
  // allow) waits for its line. With none, askbridge serves one person as before: history.jsonl is the record.
  const store = createAskStore({
    persistence: pendingFiles,
    shows: (client, view) => showsOn(channels, client, view),
    command,
    record: (event) => {
      if (people.list().length === 0) return;
      audit.record(event);
      sharedRecords?.appended();
    },
  });
  // ntfy's one-tap buttons: their capabilities live in memory only, and die with the daemon.
  const oneTap = createOneTap({ store });
  const history = createHistory(stateDir.paths.history, {
    onError: (error) => logger.error({ err: error }, 'could not write history.jsonl: the answers are still delivered, and the lines wait in memory'),
    onProblem: (problem) => {
      if (problem === null) {
        logger.info('history.jsonl is written again: it has caught up');
        sharedRecords?.appended();
      }
      historyBanner = problem ? `History cannot be written (${problem.error}): answers still reach Claude, and ${problem.waiting} line(s) wait to be recorded${problem.lost ? `, ${problem.lost} lost` : ''}` : null;
      app?.askbridge.broadcast({ type: 'banner', message: banner() });
    },
  });
  /** Its line on disk first, then copied to the store. */
  const appendHistory = (view: AskView) => {
    history.append(view);
    sharedRecords?.appended();
  };
  store.subscribe((event) => {
    // Another daemon's ask is in its own history.
    if (event.elsewhere) return;
    // A relayed decision delivered, or never deliverable: its line again, which stands for the first.
    if (event.type === 'updated' && event.ask.delivery !== undefined && event.ask.delivery !== 'waiting') appendHistory(event.ask);
    if (event.type !== 'resolved') return;
    // A wait in the terminal was never answered here: history keeps what was decided.
    if (!event.ask.terminalWait) appendHistory(event.ask);
    if (!overloadBanner) return;
    const waiting = store.waiting();
    if (waiting.asks < waitingLimits.asks && waiting.bytes < waitingLimits.bytes) setOverloadBanner(null);
  });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= shutDown());

  const notifyLog = logger.child({ component: 'notify' });
  const log = { info: (fields: Record<string, unknown>, message: string) => notifyLog.info(fields, message), warn: (fields: Record<string, unknown>, message: string) => notifyLog.warn(fields, message) };
  let push: Push | undefined;
  try {
    // ASKBRIDGE_TEST_PUSH_SERVICE, for tests only: the one origin of a local stand-in push service.
    push = createPush({ documents, paths: stateDir.paths, subject: () => pushSubject(publicUrlSetting.url(), configWatch.effective('').config.push.subject), log, testPushService: options.env.ASKBRIDGE_TEST_PUSH_SERVICE });
  } catch (error) {
    logger.warn({ error: (error as Error).message }, 'Web Push is not available: its keys could not be made');
  }
  // The user's Telegram bot: it starts once the user config is read (userConfigChanged), if it names one.
  const grantLog = logger.child({ component: 'grants' });
  const grants = createGrantStore({ document: document('grants', stateDir.paths.grants, GrantsSchema, 'could not read the grants: none hold'), log: { info: (fields, message) => grantLog.info(fields, message), warn: (fields, message) => grantLog.warn(fields, message) } });
  const { userValueNotUsed } = publicUrlSetting.status();
  if (userValueNotUsed !== undefined) logger.warn({ publicUrl: userValueNotUsed, inUse: publicUrl?.origin, source: startingUrl.source }, 'publicUrl in the user config is not used: the flag or the environment wins over it');
  const telegramLog = logger.child({ component: 'telegram' });
  const decisions = createPersonDecisions(store, grants);
  let sharedAsks: SharedAsks | undefined;
  const telegram = createTelegram({
    store,
    grants,
    decisions,
    chats: document('telegram-chats', stateDir.paths.telegramChats, StoredChatsSchema, 'the paired Telegram chats could not be read: none is paired until one pairs again'),
    isKnownPerson: (person) => people.get(person) !== undefined,
    // Only a link a phone can open: never a loopback one.
    publicLink: (askId) => {
      const reachable = publicUrlSetting.url();
      return reachable ? `${reachable.href}#question=${askId}` : undefined;
    },
    log: { info: (fields, message) => telegramLog.info(fields, message), warn: (fields, message) => telegramLog.warn(fields, message), error: (fields, message) => telegramLog.error(fields, message) },
    // Daemons sharing a store share the bot: only the one holding the store's lock polls it.
    // ASKBRIDGE_TEST_LEADER_RETRY_MS, for tests only: how soon a daemon tries to take over.
    ...(sharedStore ? { takeTurns: (onChange) => holdLeadership(sharedStore.pool, LEADER_LOCKS.telegram, { onChange, retryMs: Number(options.env.ASKBRIDGE_TEST_LEADER_RETRY_MS) || undefined }) } : {}),
  });
  /** The store as status and doctor show it: with who polls the bot, when one is set. */
  const storeHealth = () => {
    const health = sharedStore?.health();
    const polling = telegram.polling();
    return health && polling ? { ...health, telegram: polling } : health;
  };
  const startedAt = Date.now();
  const writeDaemonInfo = () => {
    const current = publicUrlSetting.url();
    stateDir.writeDaemonInfo({
      pid: options.keeperPid,
      daemonPid: process.pid,
      portHeldBy: options.portHeldBy,
      port,
      host: LOOPBACK_HOST,
      version: VERSION,
      startedAt,
      ...(current ? { publicUrl: current.href } : {}),
      ...(options.crashes ? { crashes: options.crashes } : {}),
      ...(options.lastCrash ? { lastCrash: options.lastCrash } : {}),
    });
  };
  let serving = () => {};
  let isServing = false;
  /** A new good version of the user config: its publicUrl applies at once, where nothing wins over it. */
  const userConfigChanged = (file: ConfigFile) => {
    telegram.configure(file.telegram);
    const change = publicUrlSetting.userChanged(file.publicUrl);
    if (change.kind === 'same') return;
    if (change.kind === 'not-applied') {
      logger.warn({ publicUrl: change.value ?? null, inUse: publicUrlSetting.url()?.origin ?? null, why: change.why }, 'publicUrl changed in the user config, but does not apply');
      return;
    }
    app?.askbridge.setPublicUrl(change.to);
    logger.info({ from: change.from?.origin ?? null, to: change.to?.origin ?? null }, 'public URL changed: the new one is accepted, the old one no longer');
    if (!isServing || stopping) return;
    try {
      writeDaemonInfo(); // askbridge remote-hook reads it there
    } catch (error) {
      logger.warn({ error: (error as Error).message }, 'daemon.json could not be written: askbridge remote-hook may name the old public URL');
    }
  };

  // The config files are watched from a moment after the daemon serves, so that setting up the
  // watcher does not share the CPU with the first questions of a start.
  const served = new Promise<void>((resolve) => (serving = resolve));
  const configWatch = createConfigWatch({
    watchFrom: served,
    env: options.env,
    command,
    log: { info: (fields, message) => logger.info(fields, message), warn: (fields, message) => logger.warn(fields, message) },
    onBanner: (message) => {
      configBanner = message;
      app?.askbridge.broadcast({ type: 'banner', message: banner() });
    },
    onUserConfig: userConfigChanged,
  });
  const policyLog = logger.child({ component: 'policy' });
  // Claude Code's transcripts, as this daemon's user and environment place them.
  const transcriptAccess = { projectsDir: claudeProjectsDir(options.env), uid: process.getuid?.() };
  const planQuestion = createPolicy({ configFor: (cwd) => configWatch.effective(cwd), log: (fields, message) => policyLog.info(fields, message) });
  try {
    stateDir.ensureHookKey(command);
  } catch (error) {
    // The command hook does not need it; http hooks are refused (and their terminal asks) until it exists.
    logger.warn({ error: (error as Error).message }, `the hook key could not be made: http hooks are refused until \`${command} install\` can make it`);
  }
  // With a shared store, a remote hook's key is accepted by every daemon on it (hook-keys.ts).
  const hookKeys = createHookKeys({
    ownKey: () => stateDir.readHookKey(),
    ...(sharedDocuments ? { shared: { document: document('hook-keys', stateDir.paths.hookKeys, HookKeyDigestsSchema, "could not read the other daemons' hook keys: only this daemon's is accepted"), daemon: daemonId, log: storeLog } } : {}),
  });
  const away = createAwaySwitch({ document: document('away', stateDir.paths.away, AwayFileSchema, 'the away switch cannot be read: not away'), log: logger });
  keepHeldElicitations(store, stateDir.paths.heldElicitations, logger);
  const turnEnds = createTurnEndReach(options.env, store, command);
  app = await buildApp({
    store,
    decisions,
    othersReachable: () => sharedAsks?.othersReachable() ?? false,
    token,
    acceptsHookKey: hookKeys.accepts,
    port,
    command,
    version: VERSION,
    pid: options.keeperPid,
    logger,
    planQuestion,
    tellable: (route) => ({
      pushDevices: push?.subscribedDevices(app!.askbridge.auth.devices().filter((device) => isRoutedTo({ route }, { kind: 'person', person: device.person })).map((device) => device.id)) ?? 0,
      telegramChats: telegram.pairedChats(route),
    }),
    banner,
    configFor: (cwd) => configWatch.effective(cwd),
    health: () => ({ history: history.problem(), audit: audit.problem(), store: storeHealth() }),
    history: {
      path: stateDir.paths.history,
      flushed: () => history.flushed(),
      ...(sharedStore ? { everyone: (search) => everyonesHistory(sharedStore, sharedRecords, search) } : {}),
    },
    pageSessionStore: pageSessionsIn(documents, stateDir.paths.pageSessions),
    telegram,
    push,
    oneTap,
    holdsIpv6: () => options.holdsIpv6,
    publicUrl: publicUrlSetting.url(),
    publicUrlStatus: () => publicUrlSetting.status(),
    sessionContext: (transcriptPath, toolUseId, stillWanted) => readSessionContext(transcriptPath, toolUseId, transcriptAccess, stillWanted),
    terminalAnswers: (transcriptPath, sign, answered) => watchForTerminalAnswer(transcriptPath, sign, transcriptAccess, answered, logger),
    away,
    grants,
    people,
    turnEnds,
    heartbeatMs: Number(options.env.ASKBRIDGE_TEST_HEARTBEAT_MS) || undefined, // for tests only: how fast a dead page is noticed
    waitingLimits,
    onOverload: () => setOverloadBanner('As many questions as askbridge keeps are waiting: new ones go to their terminal until some are answered'),
  });
  configWatch.effective(''); // read and start watching the user config now, so a broken one shows at once
  const pendingRecords = pendingFiles.load();
  // A relayed Codex request may be an MCP server's form: reading one needs elicitation-form.ts.
  const forms = pendingRecords.some((record) => record.door === 'relay' && record.agent === 'codex') ? await loadElicitationForms() : undefined;
  restoreWaitingQuestions(store, pendingRecords, planQuestion, logger, forms);
  recordRestoredDecisions(store, pendingRecords, history, stateDir.paths.history);
  // Once this daemon's own asks are back: they are written to the store, and the others' shown here.
  if (sharedStore) {
    sharedRecords = shareRecords({ pool: sharedStore.pool, daemon: daemonId, files: { history: stateDir.paths.history, audit: stateDir.paths.audit }, retryMs: sharedStore.seenEveryMs, log: storeLog });
    sharedAsks = shareAsks({
      pool: sharedStore.pool,
      daemon: daemonId,
      store,
      decisions,
      checkEveryMs: sharedStore.seenEveryMs,
      documents: sharedDocuments,
      log: storeLog,
      pagesInView: () => app!.askbridge.viewersInView(),
      onPagesElsewhere: () => notifier.personMayHaveLeft(),
    });
  }
  /** Whether a page is in view that shows an ask of this route (any page, for none): here, or at another daemon sharing the store. */
  const pageVisible = (route?: Pick<RouteView, 'people'>) => someoneSees([...app!.askbridge.viewersInView(), ...(sharedAsks?.pagesElsewhere() ?? [])], route);
  // From here on, each new question is told once; restored ones were told when they were first asked.
  const configNow = (cwd: string) => configWatch.effective(cwd).config;
  // ASKBRIDGE_TEST_NOTIFY_RETRY_MS, for tests only: retries without the real backoff.
  const webhooks = createWebhooks({ log, retryMs: Number(options.env.ASKBRIDGE_TEST_NOTIFY_RETRY_MS) || undefined, oneTap: { publicUrl: () => publicUrlSetting.url(), issue: oneTap.issue } });
  channels = [
    telegramChannel(telegram),
    webhookChannel({ webhooks, config: configNow, link: (askId) => `${publicUrlSetting.url()?.href ?? loopbackUrl}#question=${askId}` }),
    ...(push ? [pushChannel({ push, config: configNow, pageVisible: (view) => pageVisible(view.route), pairedDevices: () => app.askbridge.auth.devices() })] : []),
  ];
  const notifier = createNotifier({ store, channels, config: configNow, away, pageVisible: (person) => pageVisible(person === undefined ? undefined : { people: [person] }), people: () => people.list().map((person) => person.name), log: { info: (fields, message) => notifyLog.info(fields, message), error: (fields, message) => notifyLog.error(fields, message) } });
  const personLeaves = [
    away.subscribe(() => notifier.personMayHaveLeft()),
    app.askbridge.onPageVisibility(() => {
      sharedAsks?.pagesChanged();
      notifier.personMayHaveLeft();
    }),
  ];
  const closeChannels = () => {
    for (const stopListening of personLeaves) stopListening();
    notifier.close();
    webhooks.close();
    push?.close();
  };

  // Fastify closes every connection as it closes a server it made listen; this one never listens
  // (the keeper does), so it is told to, at the same point of its close.
  app.addHook('preClose', (done) => {
    app.server.closeAllConnections();
    done();
  });
  try {
    await app.ready();
  } catch (error) {
    closeChannels();
    await Promise.all([app.close(), configWatch.close(), Promise.all([telegram.close(), sharedAsks?.close()]).then(() => sharedStore?.close())]);
    throw error;
  }
  const tlsDoor = tls ? serveTls(app, tls) : undefined;
  serveKeeperConnections(app, tlsDoor);
  writeDaemonInfo();
  isServing = true;

  setTimeout(serving, WATCH_AFTER_SERVING_MS).unref();
  const url = loopbackUrl;
  logger.info({ url, stateDir: stateDir.paths.dir, version: VERSION }, 'askbridge is listening');
  options.print(`Answer page (one-time link, pairs one browser): ${url}#pair=${app.askbridge.auth.createPairingCode()}`);
  const reachable = publicUrlSetting.url();
  if (reachable) {
    const link = `${reachable.href}#pair=${app.askbridge.auth.createPairingCode()}`;
    options.print(`From a phone or another machine (one-time link, or scan it): ${link}`);
    options.print(renderUnicodeCompact(link, { border: 1 }));
    options.print(`For another browser or device later, run: ${command} pair`);
  } else {
    options.print(`For another browser on this machine later, run: ${command} open. For a phone, set publicUrl (see "From your phone" in docs/remote.md), then run: ${command} pair`);
  }

  async function shutDown(): Promise<void> {
    logger.info('stopping: waiting hooks hand their questions to the terminal');
    store.releaseAll();
    closeChannels();
    // The bot stops (and lets go of the store's lock), and the asks' last changes are written, before the store's pool ends.
    await Promise.all([app!.close(), tlsDoor?.close(), configWatch.close(), history.flushed(), Promise.all([telegram.close(), sharedAsks?.close(), sharedRecords?.close()]).then(() => sharedStore?.close())]);
    history.close();
    grants.close();
    hookKeys.close();
    stateDir.removeDaemonInfo(options.keeperPid);
  }

  return { app, port, url, logger, stop };
}

/**
 * Every daemon's history, from the shared store, with this daemon's latest lines copied there first;
 * while the store cannot be reached, why (the page then reads this daemon's own file).
 */
async function everyonesHistory(sharedStore: SharedStore, records: SharedRecords | undefined, search: { limit: number; keep: HistoryFilter }): Promise<{ lines: HistoryLine[] } | { unreachable: string }> {
  const health = sharedStore.health();
  if (!health.reachable) return { unreachable: health.reason ?? 'it does not answer' };
  await records?.flushed();
  try {
    return { lines: await readStoreHistory(sharedStore.pool, search) };
  } catch (error) {
    return { unreachable: sharedStore.describeError(error) };
  }
}

/**
 * With people defined, the user config's routes keep each person's asks to them. A user config that
 * does not read at start has no last good version to fall back on (a later broken edit keeps the last
 * good one: config-watch.ts), and running without its routes would show every ask to everyone, so the
 * daemon does not start until it reads; the agents' own dialogs ask meanwhile.
 */
function refuseTeamWithoutRoutes(env: NodeJS.ProcessEnv, people: number): void {
  if (people === 0) return;
  try {
    readConfigFile(userConfigPath(env));
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    throw new DaemonStartError(`the user config cannot be read, and with people defined askbridge does not start without its routes (each person's asks would reach everyone): ${error.message}`);
  }
}

/**
 * The shared store, when one is set (ASKBRIDGE_STORE, or the user config's `store`): a setting that
 * cannot be used, or a database whose schema this daemon cannot run on, is a reason not to start; a
 * store that does not answer is not (it is reported, and tried again).
 */
async function openSharedStore(options: DaemonOptions, wiring: { command: string; daemon: { id: string; url: string }; log: StoreLog; onChange: (health: StoreHealth) => void }): Promise<SharedStore | undefined> {
  const choice = chooseStore(options.env);
  if (choice.kind === 'none') return undefined;
  if (choice.kind === 'error') throw new DaemonStartError(`the shared store cannot be used: ${choice.message}`);
  try {
    return await openStore({
      setting: choice.setting,
      env: options.env,
      command: wiring.command,
      daemon: wiring.daemon,
      log: wiring.log,
      onChange: wiring.onChange,
      // For tests only: how fast a store that went away (or came back) is noticed.
      seenEveryMs: Number(options.env.ASKBRIDGE_TEST_STORE_SEEN_MS) || undefined,
    });
  } catch (error) {
    if (error instanceof StoreSchemaError) throw new DaemonStartError(`the shared store cannot be used: ${error.message}`);
    throw error;
  }
}

/**
 * The connections the keeper accepted on 127.0.0.1 and [::1], served as if this server had accepted
 * them: the same request and header time limits (app.ts), upgrades included; and those it accepted
 * on --listen, through TLS (tls-listener.ts). Each one is acknowledged, so the keeper can give one
 * this process never received to the next daemon.
 */
function serveKeeperConnections(app: App, tlsDoor: TlsDoor | undefined): void {
  // Node starts checking connections against the time limits when its server starts listening;
  // this one never listens, so it is told it does.
  app.server.emit('listening');
  process.on('message', (message: ToDaemon, socket: Socket | undefined) => {
    if (message.type !== 'connection' || !socket) return;
    if (message.door === 'listen') {
      if (tlsDoor) tlsDoor.accept(socket);
      else socket.destroy();
    } else {
      app.server.emit('connection', socket);
      socket.resume(); // the keeper accepted it paused, so that it read nothing
    }
    process.send?.({ type: 'received', id: message.id } satisfies ToKeeper);
  });
  // Before daemon.json and the page link: from then on, whoever sees them may take this daemon for
  // one that serves, and the keeper treats its death as a crash to recover from, not a failed start.
  process.send?.({ type: 'serving' } satisfies ToKeeper);
}

/**
 * Asks that were waiting when the previous daemon died: back at once on every page it is routed to,
 * each with its route and the allows it had, its old deadline (as far as it had been extended) and
 * its limit, and the policy that applies now, until its hook or relay re-attaches (or does not, and
 * it is withdrawn). A relay's ask is made again from
 * its request, as the relay's route makes it (relayed.ts); one settled with a decision its relay had
 * not delivered yet comes back settled, for the relay to re-attach to and report delivered.
 */
function restoreWaitingQuestions(store: AskStore, records: PendingRecord[], planQuestion: Policy, logger: Logger, forms: ElicitationForms | undefined): void {
  let restored = 0;
  let undelivered = 0;
  for (const record of records) {
    const agent = record.agent ?? 'claude-code';
    const asked = record.door === 'relay' ? askedFromDisk(agent, record.relayed, forms) : commandHookAsk(record);
    if (!asked) continue;
    const kind = kindOf(asked);
    const plan = planQuestion({
      cwd: asked.cwd,
      machine: asked.machine,
      questions: asked.questions,
      ...(asked.typedAnswers ? { typedAnswers: asked.typedAnswers } : {}),
      profile: profileOf({ agent }),
      unattended: false,
      watchers: 0,
      reachableElsewhere: false,
      ...(record.route ? { routed: true } : {}),
      ...(kind === 'question' ? {} : { kind }),
    });
    store.restore({
      agent,
      door: record.door ?? 'command-hook',
      sessionId: asked.sessionId,
      toolUseId: asked.toolUseId,
      cwd: asked.cwd,
      toolInput: asked.toolInput,
      questions: asked.questions,
      ...(asked.typedAnswers ? { typedAnswers: asked.typedAnswers } : {}),
      ...(asked.approval ? { approval: asked.approval } : {}),
      ...(asked.elicitation ? { elicitation: asked.elicitation } : {}),
      ...riskField(asked, plan.config),
      ...(asked.machine ? { machine: asked.machine } : {}),
      ...(asked.relayed ? { relayed: asked.relayed } : {}),
      // As decided when it came, not as the config and people are now: every decision on it was made under this route.
      ...(record.person === undefined ? {} : { person: record.person }),
      ...(record.route ? { route: record.route } : {}),
      waitMs: Math.max(0, record.expiresAt - Date.now()),
      timeout: plan.timeout,
      onTimeout: plan.onTimeout,
      restored: {
        id: record.id,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        ...(record.extendableUntil === undefined ? {} : { extendableUntil: record.extendableUntil }),
        ...(record.allows ? { allows: record.allows } : {}),
      },
      ...(record.settled ? { settled: record.settled } : {}),
    });
    if (record.settled) undelivered += 1;
    else restored += 1;
  }
  if (restored > 0) logger.info({ questions: restored }, 'waiting questions restored: their hooks and relays can re-attach');
  if (undelivered > 0) logger.info({ decisions: undelivered }, 'relayed decisions not delivered yet restored: their relays can re-attach and deliver them');
}

/**
 * A decision is kept on disk from the moment it is made until its hook or relay has it, and its
 * history line is written just after: a daemon killed in between comes back with the decision but
 * no line for it. Written now, once (a line for it is looked for among the newest).
 */
function recordRestoredDecisions(store: AskStore, records: PendingRecord[], history: { append(view: AskView): void }, historyPath: string): void {
  const decided = new Set(records.filter((record) => record.settled).map((record) => record.id));
  if (decided.size === 0) return;
  for (const line of readHistoryTail(historyPath, RESTORED_LINES_LOOKED_AT)) decided.delete(line.id);
  for (const id of decided) {
    const view = store.get(id);
    if (view) history.append(view);
  }
}

/** How many of history's newest lines are looked at for a restored decision's line: far more than are written in the moment a daemon dies. */
const RESTORED_LINES_LOOKED_AT = 1_000;

/** The command hook's question as it was kept: its input exactly as Claude Code sent it. */
function commandHookAsk(record: PendingRecord): Pick<Asked, 'sessionId' | 'toolUseId' | 'cwd' | 'toolInput' | 'questions' | 'typedAnswers' | 'approval' | 'elicitation' | 'machine' | 'relayed'> | undefined {
  const toolInput = ToolInputSchema.safeParse(record.toolInput);
  if (!toolInput.success) return undefined;
  return { sessionId: record.sessionId, toolUseId: record.toolUseId, cwd: record.cwd, toolInput: record.toolInput, questions: toolInput.data.questions };
}

/** How long what the wiring carries is kept before the settings files are read again. */
const WIRING_FRESH_MS = 2_000;
/** The folders of this machine's sessions that asked here, newest last: their settings are read too (Claude Code's own list may not have them yet). */
const MAX_SEEN_FOLDERS = 200;

/**
 * Where the end of a turn reaches askbridge on this machine (wiring.ts): read from Claude Code's
 * settings files when asked (the page's switch, status, away), at most every WIRING_FRESH_MS.
 */
function createTurnEndReach(env: NodeJS.ProcessEnv, store: AskStore, command: string): () => TurnEndReach {
  const seen = new Set<string>();
  store.subscribe((event) => {
    const { ask } = event;
    if (event.type !== 'added' || event.elsewhere || ask.machine !== undefined || ask.asker !== undefined || ask.cwd === '' || seen.has(ask.cwd)) return;
    seen.add(ask.cwd);
    if (seen.size > MAX_SEEN_FOLDERS) seen.delete(seen.values().next().value!);
  });
  let cached: { at: number; reach: TurnEndReach } | undefined;
  return () => {
    if (cached && Date.now() - cached.at < WIRING_FRESH_MS) return cached.reach;
    cached = { at: Date.now(), reach: turnEndReach(readWiring(env, [...seen]), command) };
    return cached.reach;
  };
}

/** How long a stop may take (closing sockets, flushing history) before the process exits anyway. */
const STOP_GRACE_MS = 5000;

/**
 * The daemon as the keeper's child: runs until the keeper says stop (or goes away), a signal,
 * `askbridge stop`, or a crash. Every way out goes through the same stop: waiting hooks fall
 * through at once, daemon.json and the token are removed. A stop exits 0 (the keeper then lets go
 * of the port); a crash exits 1 after that, and the keeper starts a new daemon on the same port.
 */
export async function runDaemonChild(options: DaemonOptions): Promise<void> {
  const send = (message: ToKeeper) => process.send?.(message);
  // A stop asked for before the daemon serves: there is nothing to hand back yet.
  const stopBeforeServing = (message: ToDaemon) => message.type === 'stop' && process.exit(0);
  process.on('message', stopBeforeServing);
  process.once('disconnect', () => process.exit(0));
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon(options);
  } catch (error) {
    send({ type: 'failed', message: error instanceof DaemonStartError ? error.message : String((error as Error).stack ?? error) });
    process.exit(1);
  }
  process.off('message', stopBeforeServing);
  process.removeAllListeners('disconnect');
  const grace = closeWithGrace({ delay: STOP_GRACE_MS, logger: false, onTimeout: () => daemon.logger.error('stop took too long: exiting anyway') }, async ({ signal, err }) => {
    if (err) {
      daemon.logger.fatal({ err }, 'daemon crashed: stopping cleanly');
      send({ type: 'failed', message: String(err) }); // the keeper says why it restarts
    } else if (signal) daemon.logger.info({ signal }, 'signal received');
    await daemon.stop();
  });
  process.on('message', (message: ToDaemon) => {
    if (message.type === 'stop') void grace.close();
  });
  // The keeper is gone (killed outright): the port went with it, so this daemon stops too.
  process.once('disconnect', () => {
    daemon.logger.warn('the keeper is gone: stopping');
    void grace.close();
  });
}
