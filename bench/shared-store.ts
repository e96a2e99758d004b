// Section 11 of the bench: three daemons sharing one store (a throwaway PostgreSQL cluster,
// tests/stack/postgres.ts), as docs/shared-store.md runs them. Asks are opened at daemon 1 the way a
// script asks (POST /api/asks, held open), and a few WebSocket listeners with the CLI's token on
// every daemon hear them: when an ask reaches the other daemons, and when a decision reaches every
// listener, sent to daemon 2 (which forwards it to the holder through the store) or to daemon 1
// itself, in turn. Then about 10,000 asks wait across the three, opened by several askers each so
// that no daemon's waiting limits refuse any (src/daemon/limits.ts): how long until every daemon
// lists them all, what each holds then, what it spends while nothing happens, and a decision's time
// to every listener meanwhile. It measures only; run.ts prints the rows.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { Agent, type ClientRequest } from 'node:http';
import WebSocket from 'ws';
import { HOOK_KEY_HEADER, MACHINE_HEADER } from '../src/http-hook.js';
import { MAX_PENDING, shareOf } from '../src/daemon/limits.js';
import { SEEN_EVERY_MS } from '../src/store/postgres.js';
import { isProcessAlive } from '../src/state-dir.js';
import { now, sleep, waitUntil, wakeableWaits } from '../tests/stack/clock.js';
import type { Daemon } from '../tests/stack/daemon.js';
import { baseEnv } from '../tests/stack/env.js';
import { loadFixture, type HookPayload } from '../tests/stack/fixtures.js';
import { post, readResponse } from '../tests/stack/hook-client.js';
import { postgresAvailability, startPostgres } from '../tests/stack/postgres.js';
import { runCli } from '../tests/stack/processes.js';
import { summarize, type Summary } from './stats.js';

export type SharedStoreCounts = {
  /** Decisions timed of each kind (forwarded, to the holder), after `warmup` pairs not counted. */
  decisions: number;
  warmup: number;
  /** WebSocket listeners on each daemon. */
  listeners: number;
  /** Asks left waiting across the three daemons. */
  waiting: number;
  /** Decisions timed while they wait, spread over one of the store's check intervals. */
  loadDecisions: number;
};

export type SharedStoreHarness = {
  counts: SharedStoreCounts;
  /** A daemon as the bench starts them, with this config and environment besides its own, stopped by its cleanup. */
  startDaemon: (config: Record<string, unknown>, env: NodeJS.ProcessEnv) => Promise<Daemon>;
  /** Adds a cleanup step to the bench's; returns a function that runs it now (once). */
  onCleanup: (run: () => unknown) => () => Promise<void>;
  /** A process's resident memory, in bytes. */
  rssOf: (pid: number) => number;
  /** Each figure as soon as it is measured: a later part that fails leaves the earlier ones. */
  record: (figure: SharedStoreFigure, summary: Summary) => void;
  /** A line for the notes under the table; an error for them. */
  note: (line: string) => void;
  error: (line: string) => void;
  /** Progress, on stderr. */
  log: (line: string) => void;
};

export type SharedStoreFigure =
  | 'forwarded'
  | 'local'
  | 'forwardedRatio'
  | 'addedElsewhere'
  | 'addedHere'
  /** First POST → every daemon lists all that wait, and the last ask opened → the same. */
  | 'listedAll'
  | 'listedAfterLast'
  /** How many of the asks that wait the daemon listing fewest lacks (GET /api/asks). */
  | 'missing'
  | 'rssMb'
  | 'cpuShare'
  | 'loadForwarded'
  | 'loadLocal';

const DAEMONS = 3;
const QUESTIONS = loadFixture<HookPayload>('01-single-select.input.json').tool_input.questions;
const QUESTION = QUESTIONS[0]!.question;
const PICK = 'SQLite';
/** How long an ask or a decision may take to reach every listener before the run says it did not. */
const HEARD_WITHIN_MS = 30_000;

/** One WebSocket listener of one daemon: when it heard each ask added and resolved, by the ask's session, and how many `updated` it heard. */
type Listener = { daemon: number; socket: WebSocket; added: Map<string, number>; resolved: Map<string, number>; updated: number };

/** Who asks, as the daemon counts its limits: the token as a script or as an MCP client, or the hook key from a named machine. */
type Asker = { kind: 'script' | 'mcp'; hookKey?: { machine: string } };
const ASKERS: Asker[] = [{ kind: 'script' }, { kind: 'mcp' }, { kind: 'script', hookKey: { machine: 'bench-a' } }, { kind: 'script', hookKey: { machine: 'bench-b' } }];

/** An ask held open: its session (the asker's name, unique per ask), and its reply once the ask is settled or refused. */
type Held = { session: string; request: ClientRequest; reply: Promise<{ statusCode: number; body: string }>; replied?: { statusCode: number; body: string } };

export async function benchSharedStore(harness: SharedStoreHarness): Promise<void> {
  const { counts, onCleanup, record, log } = harness;
  const available = postgresAvailability();
  if (!available.available) throw new Error(available.reason);

  const cluster = await startPostgres();
  const removeCluster = onCleanup(() => cluster.remove());
  const migrated = await runCli(['store', 'migrate'], baseEnv({ ASKBRIDGE_STORE: cluster.url, PGPASSWORD: cluster.password }));
  if (migrated.code !== 0) throw new Error(`askbridge store migrate failed: ${migrated.stderr}`);
  const daemons = await Promise.all(Array.from({ length: DAEMONS }, () => harness.startDaemon({ store: cluster.url }, { PGPASSWORD: cluster.password })));
  const [holder, other] = [daemons[0]!, daemons[1]!];
  // A daemon holding thousands of asks can take longer to stop than the harness gives its keeper, whose
  // SIGKILL leaves the daemon process finishing on its own: that process is waited for (and killed if
  // it lingers), and its state directory removed again once it is gone.
  const pids = daemons.map((daemon) => daemon.daemonPid());
  const stopDaemons = onCleanup(async () => {
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    await Promise.all(pids.map((pid) => untilGone(pid)));
    for (const daemon of daemons) rmSync(daemon.home, { recursive: true, force: true });
  });

  // ---- Listeners on every daemon, heard by session; every wait is woken by what they hear.
  const waits = wakeableWaits();
  const listeners: Listener[] = [];
  const idBySession = new Map<string, string>();
  const closeListeners = onCleanup(() => {
    for (const listener of listeners) listener.socket.terminate();
  });
  for (const [index, daemon] of daemons.entries()) {
    for (let l = 0; l < counts.listeners; l++) {
      const socket = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${daemon.token}` } });
      const listener: Listener = { daemon: index, socket, added: new Map(), resolved: new Map(), updated: 0 };
      listeners.push(listener);
      await new Promise((ready, fail) => {
        socket.once('error', fail);
        socket.on('error', () => {}); // after the snapshot, a dropped listener shows as something it never heard
        socket.on('message', (data) => {
          const at = now();
          const message = JSON.parse(data.toString()) as { type: string; ask?: { id: string; sessionId: string } };
          if (message.type === 'snapshot') ready(undefined);
          if (message.type === 'updated') listener.updated++;
          if (!message.ask || (message.type !== 'added' && message.type !== 'resolved')) return;
          idBySession.set(message.ask.sessionId, message.ask.id);
          if (!listener[message.type].has(message.ask.sessionId)) listener[message.type].set(message.ask.sessionId, at);
          waits.wake();
        });
      });
    }
  }
  const on = (daemon: number) => listeners.filter((listener) => listener.daemon === daemon);
  /** When the last of `of` heard `session` `what`, once all have. */
  const lastHeard = (what: 'added' | 'resolved', session: string, of: Listener[], withinMs = HEARD_WITHIN_MS) =>
    waits.until(
      () => (of.every((listener) => listener[what].has(session)) ? Math.max(...of.map((listener) => listener[what].get(session)!)) : undefined),
      withinMs,
      () => new Error(`${of.filter((listener) => !listener[what].has(session)).length} of ${of.length} listeners never heard ${session} ${what}`),
    );

  // ---- Asking and deciding.
  const held: Held[] = [];
  const closeHeld = onCleanup(() => {
    for (const ask of held) ask.request.destroy();
  });
  let asked = 0;
  /** An ask at `daemon` as a script (or an MCP client) asks, held open until it is settled. */
  const ask = (daemon: Daemon, asker: Asker = ASKERS[0]!): Held => {
    const session = `${asker.kind}:bench-shared-${++asked}`;
    const headers: Record<string, string> = asker.hookKey ? { [HOOK_KEY_HEADER]: daemon.hookKey(), [MACHINE_HEADER]: asker.hookKey.machine } : { authorization: `Bearer ${daemon.token}` };
    const request = post(daemon.port, '/api/asks', headers, JSON.stringify({ questions: QUESTIONS, asker: { kind: asker.kind, name: `bench-shared-${asked}` } }));
    const one: Held = { session, request, reply: readResponse(request) };
    one.reply.then(
      (reply) => {
        one.replied = reply;
        waits.wake();
      },
      () => {},
    );
    held.push(one);
    return one;
  };
  // A person's client keeps its connection to its daemon: the decision's time is the daemon's, not a TCP handshake's.
  const agents = daemons.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  onCleanup(() => {
    for (const agent of agents) agent.destroy();
  });
  /** The CLI's answer to the ask of `session`, sent to `daemon`: its reply. */
  const decide = (daemon: Daemon, session: string) => {
    const id = idBySession.get(session);
    const body = JSON.stringify({ responses: [{ question: QUESTION, selected: [PICK] }] });
    return readResponse(post(daemon.port, `/api/asks/${id}/answer`, { authorization: `Bearer ${daemon.token}` }, body, agents[daemons.indexOf(daemon)]));
  };
  /** Why decisions went untimed: not decided (the reply's status and error code), or not heard in time. */
  let untimed: string[] = [];
  /**
   * An answer sent to `to` for the ask of `one`, timed until the last listener of every daemon heard
   * it resolved; undefined (and why kept in `untimed`) when it was not decided, or not heard within `withinMs`.
   */
  const timeDecision = async (to: Daemon, one: Held, withinMs = HEARD_WITHIN_MS): Promise<number | undefined> => {
    const sentAt = now();
    const decided = await decide(to, one.session);
    if (decided.statusCode !== 200) {
      untimed.push(`${decided.statusCode} ${(JSON.parse(decided.body) as { error?: { code?: string } }).error?.code ?? ''}`.trim());
      return undefined;
    }
    const heardAt = await lastHeard('resolved', one.session, listeners, withinMs).catch((error: Error) => {
      untimed.push(error.message.replace(/ \S+:bench-shared-\d+/, ''));
      return undefined;
    });
    const reply = await one.reply;
    if (reply.statusCode !== 200 || (JSON.parse(reply.body) as { ask?: { status?: string } }).ask?.status !== 'answered') untimed.push(`the asker got ${reply.statusCode}`);
    return heardAt === undefined ? undefined : heardAt - sentAt;
  };
  /** What became of the decisions that went untimed, counted by reason. */
  const untimedSaid = () => {
    const byReason = new Map<string, number>();
    for (const why of untimed) byReason.set(why, (byReason.get(why) ?? 0) + 1);
    return [...byReason].map(([why, times]) => `${times} × ${why}`).join('; ');
  };

  // ---- 1 and 2: one ask at a time at daemon 1, decided at daemon 2 or at daemon 1, in turn.
  const elsewhere = listeners.filter((listener) => listener.daemon !== 0);
  const times: Record<'forwarded' | 'local', number[]> = { forwarded: [], local: [] };
  const addedElsewhere: number[] = [];
  const addedHere: number[] = [];
  for (let pair = 0; pair < counts.warmup + counts.decisions; pair++) {
    const order = pair % 2 === 0 ? (['forwarded', 'local'] as const) : (['local', 'forwarded'] as const);
    for (const kind of order) {
      const sentAt = now();
      const one = ask(holder);
      const [here, there] = await Promise.all([lastHeard('added', one.session, on(0)), lastHeard('added', one.session, elsewhere)]);
      const time = await timeDecision(kind === 'forwarded' ? other : holder, one);
      if (pair < counts.warmup || time === undefined) continue;
      times[kind].push(time);
      addedHere.push(here - sentAt);
      addedElsewhere.push(there - sentAt);
    }
  }
  if (untimed.length > 0) harness.error(`shared store: ${untimed.length} decisions went untimed: ${untimedSaid()}`);
  record('forwarded', summarize(times.forwarded));
  record('local', summarize(times.local));
  record('forwardedRatio', summarize(times.forwarded.map((time, index) => time / times.local[index]!)));
  record('addedElsewhere', summarize(addedElsewhere));
  record('addedHere', summarize(addedHere));
  log(`${2 * counts.decisions} decisions timed; opening ${counts.waiting} asks`);

  // ---- 3: many asks waiting across the daemons, opened a batch at a time, each by one of four askers per daemon.
  const perAsker = Math.ceil(counts.waiting / DAEMONS / ASKERS.length);
  if (perAsker > shareOf(MAX_PENDING, 'asker')) throw new Error(`${perAsker} asks per asker would pass an asker's share of the daemon's limit (${shareOf(MAX_PENDING, 'asker')})`);
  const waiting: Held[] = [];
  const openedAt = now();
  let lastOpenedAt = openedAt;
  const batch = 60;
  for (let start = 0; start < counts.waiting; start += batch) {
    const round: Array<{ one: Held; daemon: number }> = [];
    for (let index = start; index < Math.min(start + batch, counts.waiting); index++) {
      const daemon = index % DAEMONS;
      const one = ask(daemons[daemon]!, ASKERS[Math.floor(index / DAEMONS) % ASKERS.length]);
      round.push({ one, daemon });
      waiting.push(one);
    }
    // Each opened (its own daemon's first listener heard it), or refused (its reply came).
    await waits.until(
      () => (round.every(({ one, daemon }) => one.replied || on(daemon)[0]!.added.has(one.session)) ? true : undefined),
      HEARD_WITHIN_MS,
      () => new Error(`asks ${start}-${start + batch} were neither opened nor refused`),
    );
    const refused = round.find(({ one }) => one.replied);
    if (refused) throw new Error(`ask ${refused.one.session} was refused: ${refused.one.replied!.statusCode} ${refused.one.replied!.body}`);
    lastOpenedAt = now();
    if (Math.floor(waiting.length / 1000) > Math.floor((waiting.length - round.length) / 1000)) log(`${waiting.length} asks opened`);
  }
  // Asked as the CLI asks, but given as long as a busy daemon takes: how long it took is itself a finding.
  let slowestReplyMs = 0;
  const get = async <T>(daemon: Daemon, path: string): Promise<T> => {
    const sentAt = now();
    const response = await fetch(`http://127.0.0.1:${daemon.port}${path}`, { headers: { authorization: `Bearer ${daemon.token}` }, signal: AbortSignal.timeout(60_000) });
    const body = (await response.json()) as T;
    slowestReplyMs = Math.max(slowestReplyMs, now() - sentAt);
    return body;
  };
  await waitUntil(
    async () => ((await Promise.all(daemons.map((daemon) => get<{ pending: number }>(daemon, '/api/status')))).every(({ pending }) => pending === counts.waiting) ? true : undefined),
    180_000,
    `every daemon to list ${counts.waiting} asks`,
    250,
  );
  const listedAt = now();
  record('listedAll', summarize([listedAt - openedAt]));
  record('listedAfterLast', summarize([listedAt - lastOpenedAt]));
  log(`every daemon lists ${counts.waiting} asks`);
  const listed = await Promise.all(daemons.map(async (daemon) => (await get<{ asks: unknown[] }>(daemon, '/api/asks')).asks.length));
  record('missing', summarize([counts.waiting - Math.min(...listed)]));
  const rss = daemons.map((daemon) => harness.rssOf(daemon.daemonPid()) / 1e6);
  record('rssMb', summarize(rss));

  // What each spends while nothing happens, over one of the store's check intervals (and a little more).
  const cpuBefore = daemons.map((daemon) => cpuSecondsOf(daemon.daemonPid()));
  const updatedBefore = listeners.map((listener) => listener.updated);
  const idleFrom = now();
  await sleep(SEEN_EVERY_MS + 1_000);
  const idleSeconds = (now() - idleFrom) / 1000;
  const cpuShare = daemons.map((daemon, index) => (100 * (cpuSecondsOf(daemon.daemonPid()) - cpuBefore[index]!)) / idleSeconds);
  record('cpuShare', summarize(cpuShare));
  const updatedIdle = listeners.map((listener, index) => listener.updated - updatedBefore[index]!);

  // Decisions while they wait, spread over one check interval, each on an ask daemon 1 holds: sent
  // to daemon 2 and to daemon 1 in turn. Each is given 10 s to reach every listener, so that a run
  // where they do not stays a few minutes long.
  untimed = [];
  const loadTimes: Record<'forwarded' | 'local', number[]> = { forwarded: [], local: [] };
  const ofHolder = waiting.filter((_, index) => index % DAEMONS === 0);
  for (let d = 0; d < counts.loadDecisions; d++) {
    const kind = d % 2 === 0 ? 'forwarded' : 'local';
    const time = await timeDecision(kind === 'forwarded' ? other : holder, ofHolder[d]!, 10_000);
    if (time !== undefined) loadTimes[kind].push(time);
    await sleep(SEEN_EVERY_MS / counts.loadDecisions);
  }
  if (untimed.length > 0) harness.error(`shared store, ${counts.waiting} waiting: ${untimed.length} of ${counts.loadDecisions} decisions went untimed: ${untimedSaid()}`);
  if (loadTimes.forwarded.length > 0) record('loadForwarded', summarize(loadTimes.forwarded));
  if (loadTimes.local.length > 0) record('loadLocal', summarize(loadTimes.local));
  harness.note(
    `- 11: ${DAEMONS} daemons on one store (a PostgreSQL cluster on this machine), ${counts.listeners} WebSocket listeners (the CLI's token) on each; asks posted to daemon 1 as a script does, one at a time. ` +
      `With ${counts.waiting} waiting (${perAsker} per asker: the token as a script and as an MCP client, the hook key from two named machines, on each daemon): opened in ${((lastOpenedAt - openedAt) / 1000).toFixed(1)} s, ` +
      `GET /api/asks lists ${listed.join(', ')}; the slowest reply to \`GET /api/status\` or \`/api/asks\` meanwhile ${(slowestReplyMs / 1000).toFixed(1)} s; RSS ${rss.map((mb) => `${mb.toFixed(1)} MB`).join(', ')}; CPU while nothing happens ${cpuShare.map((share) => `${share.toFixed(1)}%`).join(', ')} of one core over ${idleSeconds.toFixed(1)} s, ` +
      `in which each listener heard ${Math.min(...updatedIdle)}-${Math.max(...updatedIdle)} \`updated\` events (nothing was asked or decided).`,
  );

  // ---- Everything ends here, not at the end of the run: the next sections meet a quiet machine.
  await closeListeners();
  await stopDaemons();
  await closeHeld();
  await removeCluster();
}

/** Resolves once process `pid` has exited, killing it if it has not within 15 s. */
async function untilGone(pid: number): Promise<void> {
  const gone = () => (isProcessAlive(pid) ? undefined : true);
  try {
    await waitUntil(gone, 15_000, `process ${pid} to exit`, 100);
  } catch {
    process.kill(pid, 'SIGKILL');
    await waitUntil(gone, 5_000, `process ${pid} to exit once killed`, 20);
  }
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User and system CPU time a process has used, in seconds (/proc/PID/stat, fields 14 and 15). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}
