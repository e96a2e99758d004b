// askbridge benchmarks: `npm run bench` (full), `npx tsx bench/run.ts --quick` (a smoke run), or
// `npm run bench -- --startup` (section 5 alone, at its full count: the daemon's start), or
// `npm run bench -- --shared-store` (section 11 alone: three daemons sharing one PostgreSQL store).
// Real processes throughout, started by the tests' own harness (tests/stack): the daemon
// (`askbridge start`), the hook, headless Chromium, WebSocket clients. Prints the machine and ONE
// markdown table; every row is checked against its target, and a missed target is reported (✗),
// never an error: the exit code is 0 unless something crashed or could not be measured.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism, cpus, loadavg, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { now, sleep, waitUntil, wakeableWaits } from '../tests/stack/clock.js';
import { assertBuildIsFresh, baseEnv, HOOK_SCRIPT, REPO_ROOT } from '../tests/stack/env.js';
import { fixtureNames, freshPayload, loadFixture, type HookPayload } from '../tests/stack/fixtures.js';
import { killStrayProcesses, runBareNode, runCli, runHook, stopProcess, whenExited } from '../tests/stack/processes.js';
import { startDaemon, type Daemon } from '../tests/stack/daemon.js';
import { WAITING_BYTES } from '../src/daemon/limits.js';
import { hookBody, openQuestion, post, postAsHttpHook, readResponse, type OpenQuestion } from '../tests/stack/hook-client.js';
import { ELICITATION_HOOK_PATH, PERMISSION_HOOK_PATH, STOP_HOOK_PATH } from '../src/http-hook.js';
import { launchBrowser, openPairedPage } from '../tests/stack/browser.js';
import { startNtfyService } from '../tests/stack/ntfy-service.js';
import { startTelegramApi } from '../tests/stack/telegram-api.js';
import { interruptions } from './interruptions.js';
import { benchSharedStore } from './shared-store.js';
import { summarize, type Summary } from './stats.js';
import { workday } from './workday.js';

const QUICK = process.argv.includes('--quick');
/** Section 5 alone: what a change to how the daemon starts is measured with, in a few minutes instead of fifteen. */
const STARTUP_ONLY = process.argv.includes('--startup');
/** Section 11 alone: what a change to how daemons share a store is measured with. */
const SHARED_STORE_ONLY = process.argv.includes('--shared-store');
const COUNTS = QUICK
  ? { channels: 10, channelWarmup: 2, hookPairs: 10, hookWarmup: 2, answers: 20, pageWarmup: 2, idleMs: 150, pending: 100, clients: 10, broadcasts: 10, starts: 3, npmStarts: 2, loads: 1, cliPairs: 5, inbox: 200, inboxChanges: 10, stops: 50, stopWarmup: 5 }
  : { channels: 120, channelWarmup: 5, hookPairs: 80, hookWarmup: 5, answers: 220, pageWarmup: 5, idleMs: 150, pending: 1000, clients: 50, broadcasts: 60, starts: 15, npmStarts: 8, loads: 3, cliPairs: 30, inbox: 2000, inboxChanges: 60, stops: 500, stopWarmup: 20 };

/** Section 11: decisions of each kind, listeners per daemon, asks left waiting across three daemons, decisions timed while they wait. */
const SHARED_STORE_COUNTS = QUICK ? { decisions: 20, warmup: 2, listeners: 2, waiting: 600, loadDecisions: 4 } : { decisions: 200, warmup: 10, listeners: 3, waiting: 10_000, loadDecisions: 10 };

/** Every question waits for a person long enough; a policy answers only unattended hooks at once. */
const DAEMON_CONFIG = { waitSeconds: 600, onTimeout: 'recommended' };
const SINGLE = '01-single-select';
const PICK = 'SQLite'; // not the recommended option: the answer must be the click, not a policy

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
/** Every figure measured, by name; a section that failed leaves its figures out. */
const results: Record<string, Summary> = {};
/** What the notes under the table add to the figures. */
const extras: { clock?: { offset: number; rtt: number }; hwmMb?: number; transferFiles?: Record<string, number>; sharedStore?: string[] } = {};
const errors: string[] = [];

// ---------------------------------------------------------------------------------------------
// Cleanup: last in, first out; each step runs once, whatever ends the run (an error, Ctrl-C), so
// that no daemon, hook or browser outlives it.

const cleanups: Array<{ run: () => unknown; done: boolean }> = [];

/** Adds a cleanup step; returns a function that runs it now (once). */
function onCleanup(run: () => unknown): () => Promise<void> {
  const entry = { run, done: false };
  cleanups.push(entry);
  return async () => {
    if (entry.done) return;
    entry.done = true;
    await run();
  };
}

async function runCleanups(): Promise<void> {
  for (let entry = cleanups.pop(); entry; entry = cleanups.pop()) {
    if (entry.done) continue;
    entry.done = true;
    try {
      await entry.run();
    } catch (error) {
      process.stderr.write(`cleanup: ${(error as Error).message}\n`);
    }
  }
}

onCleanup(killStrayProcesses);

/** A daemon with the bench's config (and `config` over it), stopped by the cleanup even if the run ends while it starts. */
function startBenchDaemon(env: NodeJS.ProcessEnv = {}, config: Record<string, unknown> = {}): Promise<Daemon> {
  return startDaemon({
    config: { ...DAEMON_CONFIG, ...config },
    env,
    onSpawn: (child, home) =>
      onCleanup(async () => {
        await stopProcess(child, 5000);
        rmSync(home, { recursive: true, force: true });
      }),
  });
}

let toolCalls = 0;
/** A fixture as a new tool call: the same tool_use_id would attach to the question asked before. */
const newToolCall = (fixture: string): HookPayload => freshPayload(fixture, `bench${++toolCalls}`);

/** An MCP server's form of every field kind (tests/fixtures/elicitation), and an answer that fits it. */
const EVERY_KIND_FORM = loadFixture<Record<string, unknown>>('elicitation/every-kind.json');
const EVERY_KIND_ANSWER = { branch: 'release/2.0', rowLimit: 250, dryRun: false, environment: 'prod', checks: ['lint', 'unit'] };
const singleQuestion = (): string => loadFixture<HookPayload>(`${SINGLE}.input.json`).tool_input.questions[0]!.question;

/** A field of a /proc file that the kernel reports in KiB, in bytes. */
const kibField = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]) * 1024;

/**
 * VmRSS (and VmHWM, the peak) of a process, in bytes, and its PSS: RSS counts every page the
 * process maps, the node binary's shared ones too, so two Node processes count those twice; PSS
 * divides each shared page among the processes that map it (any other Node process running on the
 * machine included, so PSS varies with what else runs).
 */
function memoryOf(pid: number): { rss: number; hwm: number; pss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: kibField(status, 'VmRSS'), hwm: kibField(status, 'VmHWM'), pss: kibField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss') };
}

// ---------------------------------------------------------------------------------------------
// 5. Daemon start → ready

/**
 * The floor: a plain node:http server that answers its first request, as small as a daemon can be
 * in Node. Spawn → first 200, and its resident memory once idle, measured like the daemon's.
 */
async function startFloorServer(): Promise<{ ready: number; rss: number; pss: number }> {
  const source = "require('node:http').createServer((q, s) => s.end('{}')).listen(0, '127.0.0.1', function () { console.log(this.address().port) })";
  const startedAt = now();
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = onCleanup(() => stopProcess(child, 5000));
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))));
  const response = await fetch(`http://127.0.0.1:${port}/`);
  await response.text();
  const ready = now() - startedAt;
  await sleep(IDLE_SETTLE_MS);
  const { rss, pss } = memoryOf(child.pid!);
  await stop();
  return { ready, rss, pss };
}

/**
 * After start, the daemon is left alone this long before its memory is read: what it holds idle.
 * Long enough for V8's memory reducer, which compacts an idle heap some 8 s after a start's
 * allocations end (in the keeper and the daemon alike); read before it, memory is the start's.
 */
const IDLE_SETTLE_MS = 10_000;

async function benchStartup(): Promise<void> {
  const toLine: number[] = [];
  const toStatus: number[] = [];
  const floor: number[] = [];
  const ratios: number[] = [];
  const idleRss: number[] = [];
  const keeperRss: number[] = [];
  const floorRss: number[] = [];
  const allRss: number[] = [];
  const allRssRatios: number[] = [];
  const allPss: number[] = [];
  const floorPss: number[] = [];
  // One cold start first (file cache, JIT of the CLI), not counted. The floor runs beside each
  // start, in alternating order, so that both meet the same machine.
  for (let i = 0; i < COUNTS.starts + 1; i++) {
    const floorFirst = i % 2 === 0;
    const floorRun = floorFirst ? await startFloorServer() : undefined;
    const daemon = await startBenchDaemon();
    let statusAt = Number.NaN;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await daemon.api('GET', '/api/status');
        if (response.status === 200) {
          statusAt = now();
          break;
        }
      } catch (error) {
        if (attempt > 200) throw error;
      }
      await sleep(1);
    }
    await sleep(IDLE_SETTLE_MS);
    const { rss, pss } = memoryOf(daemon.daemonPid());
    const keeper = memoryOf(daemon.child.pid!);
    await daemon.stop();
    const floorAfter = floorRun ?? (await startFloorServer());
    if (i > 0) {
      toLine.push(daemon.linkPrintedAt - daemon.startedAt);
      toStatus.push(statusAt - daemon.startedAt);
      floor.push(floorAfter.ready);
      ratios.push((statusAt - daemon.startedAt) / floorAfter.ready);
      idleRss.push(rss / 1e6);
      keeperRss.push(keeper.rss / 1e6);
      floorRss.push(floorAfter.rss / 1e6);
      allRss.push((keeper.rss + rss) / 1e6);
      allRssRatios.push((keeper.rss + rss) / floorAfter.rss);
      allPss.push((keeper.pss + pss) / 1e6);
      floorPss.push(floorAfter.pss / 1e6);
    }
  }
  await benchFirstQuestion();
  await benchNpmStart();
  results.startLine = summarize(toLine);
  results.startStatus = summarize(toStatus);
  results.startFloor = summarize(floor);
  results.startRatio = summarize(ratios);
  results.idleRss = summarize(idleRss);
  results.keeperRss = summarize(keeperRss);
  results.floorRss = summarize(floorRss);
  results.allRss = summarize(allRss);
  results.allRssRatio = summarize(allRssRatios);
  results.allPss = summarize(allPss);
  results.floorPss = summarize(floorPss);
}

/**
 * What a person waits for after `npm start` when the build is up to date (`scripts/build.mjs
 * --if-stale` finds nothing changed): npm itself, the check of the build, then the same start as
 * `askbridge start`. Both are run in turn, each to its page link on stdout, and stopped with Ctrl+C
 * (SIGINT to the process group), so the ratio compares starts that met the same machine.
 */
async function benchNpmStart(): Promise<void> {
  const viaNpm: number[] = [];
  const ratios: number[] = [];
  const toLink = async (command: string[]): Promise<number> => {
    const home = mkdtempSync(join(tmpdir(), 'askbridge-bench-start-'));
    const env = baseEnv({ HOME: home, ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'config') });
    const startedAt = now();
    const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const stop = onCleanup(async () => {
      const exited = whenExited(child);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
      await exited;
      rmSync(home, { recursive: true, force: true });
    });
    let output = '';
    await new Promise<void>((linked, fail) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('Answer page (one-time link')) linked();
      });
      child.once('exit', (code) => fail(new Error(`${command.join(' ')} exited (${code}) before it printed the page link:\n${output}`)));
    });
    const elapsed = now() - startedAt;
    await stop();
    return elapsed;
  };
  for (let i = 0; i < COUNTS.npmStarts + 1; i++) {
    const npmFirst = i % 2 === 0;
    const npm = npmFirst ? await toLink(['npm', 'start', '--silent']) : undefined;
    const direct = await toLink([process.execPath, join(REPO_ROOT, 'bin', 'askbridge.mjs'), 'start']);
    const npmAfter = npm ?? (await toLink(['npm', 'start', '--silent']));
    // The first pair warms the file cache, and is not counted.
    if (i > 0) {
      viaNpm.push(npmAfter);
      ratios.push(npmAfter / direct);
    }
  }
  results.npmStart = summarize(viaNpm);
  results.npmStartRatio = summarize(ratios);
}

/**
 * The first question a fresh daemon is asked, sent the moment it answers its first request (as a
 * hook that started it would), and a second one after it on the same daemon: what is left to load
 * after listen must not make the first wait. Hook hello → `settled`, answered at once by the policy.
 */
async function benchFirstQuestion(): Promise<void> {
  const first: number[] = [];
  const second: number[] = [];
  const ask = async (daemon: Daemon) => {
    const startedAt = now();
    const { at } = await openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(newToolCall(SINGLE), { ASKBRIDGE_UNATTENDED: '1' }) }).settled;
    return at - startedAt;
  };
  for (let i = 0; i < COUNTS.starts + 1; i++) {
    const daemon = await startBenchDaemon();
    const firstMs = await ask(daemon);
    const secondMs = await ask(daemon);
    await daemon.stop();
    if (i === 0) continue; // the cold start of the file cache, as above
    first.push(firstMs);
    second.push(secondMs);
  }
  results.firstQuestion = summarize(first);
  results.secondQuestion = summarize(second);
}

// ---------------------------------------------------------------------------------------------
// 1. Hook overhead: the real hook, answered at once by the policy, against `node -e 0`, interleaved

/** Whether a PermissionRequest's decision is exactly "allow once". */
/** What the bench types as its reply to the end of a turn. */
const REPLY = 'Yes, backfill the last 30 days';

/** A Stop hook's block that continues the turn with exactly the bench's reply. */
function isReply(body: string): boolean {
  try {
    const decision = JSON.parse(body) as { decision?: unknown; reason?: unknown };
    return decision.decision === 'block' && typeof decision.reason === 'string' && decision.reason.endsWith(`\n\n${REPLY}`);
  } catch {
    return false;
  }
}

function isAllowOnce(body: string): boolean {
  try {
    return JSON.stringify(JSON.parse(body)) === JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  } catch {
    return false;
  }
}

function allowedAnswer(stdout: string, question: string): unknown {
  try {
    const output = JSON.parse(stdout).hookSpecificOutput;
    return output.permissionDecision === 'allow' ? output.updatedInput.answers[question] : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the two in turn, in the order given, and returns the wall time of each. */
async function timeInTurn<T extends string>(order: T[], run: (which: T) => Promise<number>): Promise<Record<T, number>> {
  const times = {} as Record<T, number>;
  for (const which of order) times[which] = await run(which);
  return times;
}

async function benchHookOverhead(daemon: Daemon): Promise<void> {
  const env = { ...daemon.env, ASKBRIDGE_UNATTENDED: '1' };
  const question = singleQuestion();
  const hook: number[] = [];
  const bare: number[] = [];
  const ratios: number[] = [];
  let wrong = 0;
  for (let i = 0; i < COUNTS.hookWarmup + COUNTS.hookPairs; i++) {
    const payload = newToolCall(SINGLE);
    // Alternate which goes first, so neither always runs on a just-disturbed machine.
    const times = await timeInTurn(i % 2 === 0 ? ['hook', 'node'] : ['node', 'hook'], async (which) => {
      if (which === 'node') return (await runBareNode()).ms;
      const result = await runHook(payload, env).result;
      if (result.code !== 0 || !allowedAnswer(result.stdout, question)) wrong++;
      return result.ms;
    });
    if (i < COUNTS.hookWarmup) continue;
    hook.push(times.hook);
    bare.push(times.node);
    ratios.push(times.hook / times.node);
  }
  results.hook = summarize(hook);
  results.bare = summarize(bare);
  results.ratio = summarize(ratios);
  if (wrong > 0) errors.push(`hook overhead: ${wrong} hook runs printed no policy answer`);

  // What the daemon adds: the same request from an already running process (no Node start).
  const roundTrips: number[] = [];
  for (let i = 0; i < 30; i++) {
    const asked = openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(newToolCall(SINGLE), { ASKBRIDGE_UNATTENDED: '1' }) });
    const { at } = await asked.settled;
    if (i >= 5) roundTrips.push(at - asked.sentAt);
  }
  results.roundTrip = summarize(roundTrips);
}

// ---------------------------------------------------------------------------------------------
// 1s. The Stop hook while the person is not away, per transport: Claude Code's POST at the end of
// every turn, which must cost nothing. Without a hook, Claude Code sends nothing; the floor is the
// least any http hook costs, a plain node:http server that answers an empty 200 at once. Both through
// one kept-alive connection each (as Claude Code's client keeps its own), interleaved in turning
// order. Then the command hook on the same Stop, beside `node -e 0` (rows 1v, 1w).

async function benchStopHook(daemon: Daemon): Promise<void> {
  const source = "require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => s.end()) }).listen(0, '127.0.0.1', function () { console.log(this.address().port) })";
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = onCleanup(() => stopProcess(child, 5000));
  const floorPort = await new Promise<number>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))));
  const agents = { stop: new Agent({ keepAlive: true, maxSockets: 1 }), floor: new Agent({ keepAlive: true, maxSockets: 1 }) };
  onCleanup(() => {
    for (const agent of Object.values(agents)) agent.destroy();
  });
  const hookKey = daemon.hookKey();
  const times: Record<'stop' | 'floor', number[]> = { stop: [], floor: [] };
  let held = 0;
  for (let i = 0; i < COUNTS.stopWarmup + COUNTS.stops; i++) {
    const payload = {
      session_id: 'bench-stop',
      transcript_path: '/home/alice/.claude/projects/shop/bench-stop.jsonl',
      cwd: '/home/alice/projects/shop',
      prompt_id: `prompt-${i}`,
      permission_mode: 'default',
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: `Done: step ${i} written, tests pass. ${'Shall I go on? '.repeat(40)}`,
    };
    const measured = await timeInTurn(i % 2 === 0 ? ['stop', 'floor'] : ['floor', 'stop'], async (which) => {
      const posted = postAsHttpHook({ port: which === 'stop' ? daemon.port : floorPort, key: hookKey, payload, agent: agents[which], path: STOP_HOOK_PATH });
      const response = await posted.response;
      if (which === 'stop' && (response.statusCode !== 200 || response.body !== '')) held++;
      return response.at - posted.startedAt;
    });
    if (i < COUNTS.stopWarmup) continue;
    times.stop.push(measured.stop);
    times.floor.push(measured.floor);
  }
  await stop();
  results.stopHook = summarize(times.stop);
  results.stopFloor = summarize(times.floor);
  results.stopAdded = summarize(times.stop.map((time, index) => time - times.floor[index]!));
  if (held > 0) errors.push(`Stop hook: ${held} turns were not answered at once with no decision while nobody is away`);

  // The command hook carries the Stop as well: a process per turn, which reads that nobody is away
  // and leaves. Beside `node -e 0`, interleaved, since that start is all it may cost.
  const command: number[] = [];
  const bare: number[] = [];
  let printed = 0;
  for (let i = 0; i < COUNTS.hookWarmup + COUNTS.hookPairs; i++) {
    const payload = { session_id: 'bench-stop-command', cwd: '/home/alice/projects/shop', prompt_id: `prompt-${i}`, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' };
    const measured = await timeInTurn(i % 2 === 0 ? ['command', 'node'] : ['node', 'command'], async (which) => {
      if (which === 'node') return (await runBareNode()).ms;
      const result = await runHook(payload, daemon.env).result;
      if (result.code !== 0 || result.stdout !== '') printed++;
      return result.ms;
    });
    if (i < COUNTS.hookWarmup) continue;
    command.push(measured.command);
    bare.push(measured.node);
  }
  results.stopCommand = summarize(command);
  results.stopCommandRatio = summarize(command.map((time, index) => time / bare[index]!));
  if (printed > 0) errors.push(`command Stop hook: ${printed} runs printed something or failed while nobody is away`);
}

// ---------------------------------------------------------------------------------------------
// 9. The channels that answer from a locked phone: a question from Claude Code's http hook → the
// Telegram bot's sendMessage at a stand-in Bot API server, and → the ntfy publish (with its one-tap
// buttons: a public URL is set) at a stand-in ntfy server, both told as the question starts waiting.
// Each question is declined once both have it, so one waits at a time.

async function benchChannels(): Promise<void> {
  const token = `123456789:${'B'.repeat(35)}`;
  const telegram = await startTelegramApi([token]);
  onCleanup(() => telegram.close());
  const ntfy = await startNtfyService();
  onCleanup(() => ntfy.close());
  const daemon = await startDaemon({
    config: { ...DAEMON_CONFIG, telegram: { token, apiRoot: telegram.root }, notify: [{ ntfy: `${ntfy.origin}/bench`, actions: true }] },
    // Never served: the one-tap buttons need a public URL to name, and the bench taps none.
    env: { ASKBRIDGE_PUBLIC_URL: 'http://localhost:9' },
    onSpawn: (child, home) =>
      onCleanup(async () => {
        await stopProcess(child, 5000);
        rmSync(home, { recursive: true, force: true });
      }),
  });
  await telegram.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  const paired = await runCli(['pair', '--telegram'], daemon.env);
  const code = /\/start (\S+)/.exec(paired.stdout)?.[1];
  if (!code) throw new Error(`no Telegram pairing code: ${paired.stderr}`);
  const chat = telegram.privateChat(4242, 'bench');
  telegram.sendText(chat, `/start ${code}`);
  await telegram.waitForMessage((message) => message.text === 'Paired: askbridge will ask here.', 'the chat to pair');

  const times: Record<'telegram' | 'ntfy', number[]> = { telegram: [], ntfy: [] };
  let oneTap = 0;
  for (let i = 0; i < COUNTS.channelWarmup + COUNTS.channels; i++) {
    const payload = newToolCall(SINGLE);
    const question = `${payload.tool_input.questions[0]!.question} (${i})`;
    payload.tool_input.questions[0]!.question = question;
    const published = ntfy.messages().length;
    const asked = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
    const sent = await telegram.waitForCall((call) => call.method === 'sendMessage' && String(call.body.text).includes(question), 'the question in the chat');
    const told = await waitUntil(() => ntfy.messages()[published], 10_000, 'the question at ntfy');
    const publishedAt = ntfy.receivedAt(published);
    const id = /#question=([0-9a-f-]{36})$/.exec(told.click)?.[1];
    if (told.actions?.every((action) => action.action === 'http')) oneTap++;
    const declined = await daemon.api('POST', `/api/asks/${id}/decline`);
    if (declined.status !== 200) throw new Error(`the question could not be declined: ${declined.status}`);
    await asked.response;
    if (i < COUNTS.channelWarmup) continue;
    times.telegram.push(sent.at - asked.startedAt);
    times.ntfy.push(publishedAt - asked.startedAt);
  }
  await daemon.stop();
  results.telegramSend = summarize(times.telegram);
  results.ntfyPublish = summarize(times.ntfy);
  if (oneTap < COUNTS.channelWarmup + COUNTS.channels) errors.push(`channels: ${COUNTS.channelWarmup + COUNTS.channels - oneTap} ntfy messages had no one-tap buttons`);
}

// ---------------------------------------------------------------------------------------------
// 7. The CLI's quick commands against `node -e 0`, interleaved: `--help`, and `status` of a running daemon

async function benchCli(daemon: Daemon): Promise<void> {
  const ratios: Record<'help' | 'status', number[]> = { help: [], status: [] };
  for (let i = 0; i < COUNTS.cliPairs + 2; i++) {
    for (const command of ['help', 'status'] as const) {
      const times = await timeInTurn(i % 2 === 0 ? ['cli', 'node'] : ['node', 'cli'], async (which) => {
        if (which === 'node') return (await runBareNode()).ms;
        const result = await runCli([command === 'help' ? '--help' : 'status'], daemon.env);
        if (result.code !== 0) errors.push(`askbridge ${command} exited ${result.code}`);
        return result.ms;
      });
      if (i >= 2) ratios[command].push(times.cli / times.node);
    }
  }
  results.cliHelp = summarize(ratios.help);
  results.cliStatus = summarize(ratios.status);
}

// ---------------------------------------------------------------------------------------------
// 2 + 3. One page open; per question: hook start → card in the page, then Submit click → hook exit
// (Codex's and opencode's asks, in the same rounds: request → card in the page only)
//
// The functions the page runs (page.evaluate) define no named function inside: tsx keeps names
// with a helper (__name) that exists in this process, not in the page.

/** Chromium's clock minus ours (both epoch ms), from the round trips with the least delay. */
async function clockOffset(page: Page): Promise<{ offset: number; rtt: number }> {
  const samples: Array<{ rtt: number; offset: number }> = [];
  for (let i = 0; i < 30; i++) {
    const before = now();
    const inPage = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = now();
    samples.push({ rtt: after - before, offset: inPage - (before + after) / 2 });
  }
  samples.sort((a, b) => a.rtt - b.rtt);
  const best = samples
    .slice(0, 5)
    .map((sample) => sample.offset)
    .sort((a, b) => a - b);
  return { offset: best[2] ?? 0, rtt: samples[0]?.rtt ?? 0 };
}

type CardList = 'pending' | 'finished';

/**
 * Cards reported by the page itself the moment they come into focus (#focus) or enter #finished. Waiting this way
 * costs the page nothing, where Playwright's locator polling keeps Chromium drawing frames, which
 * would compete for the two cores with the very hook being timed.
 */
function cardReports() {
  const reported: Record<CardList, Set<string>> = { pending: new Set(), finished: new Set() };
  const waits = wakeableWaits();
  return {
    report(kind: CardList, id: string): void {
      reported[kind].add(id);
      waits.wake();
    },
    /** The first card of `kind` that `accept` takes, among those reported already or still to come. */
    wait(kind: CardList, accept: (id: string) => boolean, timeoutMs = 10_000): Promise<string> {
      return waits.until(() => [...reported[kind]].find(accept), timeoutMs, () => new Error(`no ${kind} card within ${timeoutMs} ms`));
    },
  };
}

/**
 * What the bench adds to the page's window: when each card came into focus and when Submit was
 * clicked, on the page's fine clock (for the rows) and on the system clock, Date.now() (for the breakdown).
 */
type BenchWindow = Window & {
  __bench: { seen: Record<string, { at: number; wallAt: number }>; click: { at: number; wallAt: number } };
  __benchCard: (list: CardList, id: string) => void;
};

/** A question through either hook, or a permission through Claude Code's PermissionRequest http hook (allowed once with a click). */
type Transport = 'command' | 'http' | 'approval' | 'turnEnd';
/** Codex's approval through the command hook, and Codex's and opencode's questions through their relays' POSTs: timed to the card only. */
type Relay = 'codexApproval' | 'codexQuestion' | 'opencodeQuestion' | 'elicitation';

async function benchPage(browser: Browser, daemon: Daemon): Promise<void> {
  const cards = cardReports();
  const { context, page } = await openPairedPage(browser, daemon, {
    pairingUrl: daemon.pairingUrl,
    // Tall enough that a whole card fits without scrolling.
    viewport: { width: 1280, height: 1400 },
    liveTimeoutMs: 15_000,
    beforeNavigate: async (newPage) => {
      await newPage.exposeFunction('__benchCard', cards.report);
    },
  });
  onCleanup(() => context.close());
  // Recorded inside the page: when each card enters the list, and each Submit click.
  await page.evaluate(() => {
    const benchWindow = window as unknown as BenchWindow;
    const bench: BenchWindow['__bench'] = { seen: {}, click: { at: 0, wallAt: 0 } };
    benchWindow.__bench = bench;
    const report = benchWindow.__benchCard;
    const finished = new Set<string>();
    new MutationObserver(() => {
      const at = { at: performance.timeOrigin + performance.now(), wallAt: Date.now() };
      for (const card of document.querySelectorAll<HTMLElement>('#focus > [data-question-id]')) {
        const id = card.dataset.questionId ?? '';
        if (bench.seen[id] !== undefined) continue;
        bench.seen[id] = at;
        report('pending', id);
      }
    }).observe(document.getElementById('focus')!, { childList: true });
    new MutationObserver(() => {
      for (const card of document.querySelectorAll<HTMLElement>('#finished > [data-question-id]')) {
        const id = card.dataset.questionId ?? '';
        if (finished.has(id)) continue;
        finished.add(id);
        report('finished', id);
      }
    }).observe(document.getElementById('finished')!, { childList: true });
    document.addEventListener(
      'click',
      (event) => {
        // A question's Submit, an approval's first button (Allow once), or a turn end's Send reply.
        if ((event.target as Element | null)?.closest?.('button[type="submit"], article.approval .btn-primary, article.turn-end .btn-primary')) bench.click = { at: performance.timeOrigin + performance.now(), wallAt: Date.now() };
      },
      true,
    );
  });
  // The rows: the bench's clock (now()), and the page's performance clock moved onto it by the offset
  // measured between the two.
  const clock = await clockOffset(page);
  const toPage = (pageTime: number) => pageTime - clock.offset;
  // The breakdown of each row into hook, daemon and page parts compares times taken in three
  // processes, so it takes them all on the one clock the three share: the system's, Date.now(), in
  // whole ms. (now() and a page's performance clock each count from their own process's start, and
  // drift from the system clock and from each other over a run; the daemon has only Date.now().) The
  // daemon's parts are the ask's createdAt and resolvedAt, taken before it tells any page or hook,
  // not its log lines, which it writes after. So each stage ends at a moment that follows the one
  // before, and no part can be negative.

  const question = singleQuestion();
  const hookKey = daemon.hookKey();
  // Claude Code's one client keeps its connection to the daemon alive between questions.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  onCleanup(() => agent.destroy());
  /**
   * One question through a transport, until its decision is in: the command hook (a process per
   * question; done when it exits) or Claude Code's http hook (a POST; done when the body is in).
   * `startedAt` and `at` are on the bench's clock (the rows); `wall` on the system clock (the
   * breakdown): started, decision received (stdout's first bytes, or the body), and for the hook,
   * gone (exited, its output read to the end: never before its first bytes, as its exit may be).
   */
  type Asked = { startedAt: number; done: Promise<{ at: number; decision: string; wall: { startedAt: number; decisionAt: number; goneAt?: number } }> };
  const transports: Record<Transport, () => Asked> = {
    command: () => {
      const wallStartedAt = Date.now();
      const hook = runHook(newToolCall(SINGLE), daemon.env);
      let decisionAt = Number.NaN;
      hook.child.stdout?.once('data', () => (decisionAt = Date.now()));
      return {
        startedAt: hook.startedAt,
        done: hook.result.then((result) => ({ at: result.endedAt, decision: result.stdout, wall: { startedAt: wallStartedAt, decisionAt, goneAt: Date.now() } })),
      };
    },
    http: () => {
      const wallStartedAt = Date.now();
      const posted = postAsHttpHook({ port: daemon.port, key: hookKey, payload: newToolCall(SINGLE), agent });
      return {
        startedAt: posted.startedAt,
        done: posted.response.then((response) => ({ at: response.at, decision: response.body, wall: { startedAt: wallStartedAt, decisionAt: Date.now() } })),
      };
    },
    turnEnd: () => {
      const wallStartedAt = Date.now();
      const payload = { session_id: 'bench-turn-ends', hook_event_name: 'Stop', cwd: '/home/alice/projects/shop', prompt_id: `prompt-${++toolCalls}`, stop_hook_active: false, last_assistant_message: 'Done: **migration** written, tests pass. Shall I also backfill?' };
      const posted = postAsHttpHook({ port: daemon.port, key: hookKey, payload, agent, path: STOP_HOOK_PATH });
      return {
        startedAt: posted.startedAt,
        done: posted.response.then((response) => ({ at: response.at, decision: response.body, wall: { startedAt: wallStartedAt, decisionAt: Date.now() } })),
      };
    },
    approval: () => {
      const wallStartedAt = Date.now();
      const payload = { session_id: 'bench-approvals', hook_event_name: 'PermissionRequest', cwd: '/home/alice/projects/shop', tool_name: 'Bash', tool_input: { command: `npm test -- --run ${++toolCalls}`, description: 'Run the tests' }, permission_suggestions: [] };
      const posted = postAsHttpHook({ port: daemon.port, key: hookKey, payload, agent, path: PERMISSION_HOOK_PATH });
      return {
        startedAt: posted.startedAt,
        done: posted.response.then((response) => ({ at: response.at, decision: response.body, wall: { startedAt: wallStartedAt, decisionAt: Date.now() } })),
      };
    },
  };
  const samples: Record<string, number[]> = {};
  const sample = (name: string, value: number) => (samples[name] ??= []).push(value);
  const seenIds = new Set<string>();
  let wrong = 0;

  async function askOnce(transport: Transport, counted: boolean): Promise<void> {
    const asked = transports[transport]();
    const id = await cards.wait('pending', (candidate) => !seenIds.has(candidate));
    seenIds.add(id);
    // Where the option's label and Submit are (an approval: Allow once), in one round trip; the clicks themselves are real mouse input.
    const spots = await page.evaluate(
      ({ askId, label }) => {
        const card = document.querySelector(`article[data-question-id="${askId}"]`);
        if (!card) throw new Error(`no card for ${askId}`);
        // No function is declared in here: the bench's compiler would wrap it in a helper the page lacks.
        if (card.classList.contains('turn-end')) {
          const send = [...card.querySelectorAll('button')].find((button) => button.textContent === 'Send reply');
          const box = card.querySelector('textarea');
          if (!send || !box) throw new Error(`turn end ${askId} has no reply box or no Send reply`);
          send.scrollIntoView({ block: 'nearest' });
          const [boxAt, sendAt] = [box.getBoundingClientRect(), send.getBoundingClientRect()];
          return { option: { x: boxAt.x + boxAt.width / 2, y: boxAt.y + boxAt.height / 2 }, submit: { x: sendAt.x + sendAt.width / 2, y: sendAt.y + sendAt.height / 2 }, reply: true };
        }
        if (card.classList.contains('approval')) {
          const allow = [...card.querySelectorAll('button')].find((button) => button.textContent === 'Allow once');
          if (!allow) throw new Error(`approval ${askId} has no Allow once`);
          allow.scrollIntoView({ block: 'nearest' });
          const box = allow.getBoundingClientRect();
          return { option: undefined, submit: { x: box.x + box.width / 2, y: box.y + box.height / 2 } };
        }
        const submit = [...card.querySelectorAll('button')].find((button) => button.textContent === 'Submit');
        const option = [...card.querySelectorAll('.option-label')].find((span) => span.textContent === label);
        if (!submit || !option) throw new Error(`card ${askId} has no Submit or no option "${label}"`);
        submit.scrollIntoView({ block: 'nearest' });
        const [optionBox, submitBox] = [option.getBoundingClientRect(), submit.getBoundingClientRect()];
        return {
          option: { x: optionBox.x + optionBox.width / 2, y: optionBox.y + optionBox.height / 2 },
          submit: { x: submitBox.x + submitBox.width / 2, y: submitBox.y + submitBox.height / 2 },
        };
      },
      { askId: id, label: PICK },
    );
    if (spots.option) await page.mouse.click(spots.option.x, spots.option.y);
    if ('reply' in spots) await page.keyboard.type(REPLY);
    await sleep(COUNTS.idleMs); // a person takes a moment to reach Submit

    // A click happens when the button is released: press first, then time from just before the release.
    await page.mouse.move(spots.submit.x, spots.submit.y);
    await page.mouse.down();
    const clickedAt = now();
    const clickSentAt = Date.now();
    await page.mouse.up();
    const result = await asked.done;
    if (transport === 'approval' ? !isAllowOnce(result.decision) : transport === 'turnEnd' ? !isReply(result.decision) : allowedAnswer(result.decision, question) !== PICK) wrong++;
    const inPage = await page.evaluate((askId) => {
      const bench = (window as unknown as BenchWindow).__bench;
      return { seen: bench.seen[askId] ?? { at: Number.NaN, wallAt: Number.NaN }, click: bench.click };
    }, id);
    await cards.wait('finished', (candidate) => candidate === id);
    // Questions come seconds apart in real use: let the page finish its reaction before the next one.
    await sleep(COUNTS.idleMs);
    if (!counted) return;
    sample(`${transport}.click`, result.at - clickedAt);
    sample(`${transport}.visible`, toPage(inPage.seen.at) - asked.startedAt);
    // The breakdown, in the order things happen, every time on the system clock (see above).
    const { createdAt, resolvedAt } = await daemon.ask(id);
    const { wall } = result;
    sample(`${transport}.startToCreated`, createdAt - wall.startedAt);
    sample(`${transport}.createdToVisible`, inPage.seen.wallAt - createdAt);
    sample('dispatch', inPage.click.wallAt - clickSentAt);
    sample('clickEventToSettled', (resolvedAt ?? Number.NaN) - inPage.click.wallAt);
    sample(`${transport}.settledToDecision`, wall.decisionAt - (resolvedAt ?? Number.NaN));
    if (wall.goneAt !== undefined) sample('command.decisionToGone', wall.goneAt - wall.decisionAt);
  }

  // Codex and opencode: askbridge's own path from their relay's request to the card. Their binaries
  // are not run here: the command hook gets Codex's PermissionRequest payload on stdin as Codex would
  // write it (protocol.md 7), and the POSTs are the ones `askbridge attach codex|opencode` sends (the
  // local token, a connection of their own). The question is row 3's, in each agent's own format.
  // Each ask is settled through the API once its card is seen: only the card's arrival is timed.
  const fixtureQuestion = loadFixture<HookPayload>(`${SINGLE}.input.json`).tool_input.questions[0]!;
  const liveHooks = new Set<ChildProcess>();
  onCleanup(async () => {
    for (const child of liveHooks) child.kill('SIGKILL');
    await Promise.all([...liveHooks].map(whenExited));
  });
  /** A relay's POST, held until the ask is settled; resolves with the response's body. */
  const relay = (path: string, body: unknown) => {
    const startedAt = now();
    const response = readResponse(post(daemon.port, path, { authorization: `Bearer ${daemon.token}` }, JSON.stringify(body)));
    return { startedAt, done: response.then((received) => received.body) };
  };
  const answerPick = (id: string) => daemon.api('POST', `/api/asks/${encodeURIComponent(id)}/answer`, { responses: [{ question, selected: [PICK] }] });
  const replyOf = (body: string): unknown => {
    try {
      return (JSON.parse(body) as { reply?: unknown }).reply;
    } catch {
      return undefined;
    }
  };
  /** Each relay: its request, how the bench settles the ask once seen, and the decision that settling must bring back. */
  const relays: Record<Relay, () => { startedAt: number; done: Promise<string>; settle: (id: string) => Promise<{ status: number }>; isRight: (body: string) => boolean }> = {
    codexApproval: () => {
      const n = ++toolCalls;
      const payload = {
        session_id: 'bench-codex',
        turn_id: `turn-${n}`,
        transcript_path: '/home/alice/.codex/sessions/rollout-bench.jsonl',
        cwd: '/home/alice/projects/shop',
        hook_event_name: 'PermissionRequest',
        model: 'gpt-test',
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: `npm test -- --run ${n}`, description: 'Run the tests' },
      };
      const startedAt = now();
      const child = spawn(process.execPath, [HOOK_SCRIPT, '--agent', 'codex'], { cwd: REPO_ROOT, env: daemon.env, stdio: ['pipe', 'pipe', 'ignore'] });
      liveHooks.add(child);
      child.once('exit', () => liveHooks.delete(child));
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stdin.on('error', () => {});
      child.stdin.end(JSON.stringify(payload));
      const done = new Promise<string>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', () => resolve(stdout));
      });
      return { startedAt, done, settle: (id) => daemon.api('POST', `/api/asks/${encodeURIComponent(id)}/decide`, { behavior: 'allow' }), isRight: isAllowOnce };
    },
    codexQuestion: () => {
      const n = ++toolCalls;
      const { question: text, header, options } = fixtureQuestion;
      const body = {
        request: { threadId: 'bench-codex-thread', turnId: `turn-${n}`, itemId: `call_bench${n}`, questions: [{ id: 'q1', header, question: text, isOther: true, isSecret: false, options }] },
        thread: { cwd: '/home/alice/projects/shop', title: 'pick a database' },
        environment: {},
      };
      const expected = JSON.stringify({ answers: { q1: { answers: [PICK] } } });
      return { ...relay('/api/attach/codex', body), settle: answerPick, isRight: (received) => JSON.stringify(replyOf(received)) === expected };
    },
    opencodeQuestion: () => {
      const n = ++toolCalls;
      const { question: text, header, options } = fixtureQuestion;
      const body = {
        request: { kind: 'question', question: { id: `que_bench${n}`, sessionID: 'ses_bench', questions: [{ question: text, header, options, multiple: false, custom: true }] } },
        session: { directory: '/home/alice/projects/shop', title: 'pick a database' },
        environment: {},
      };
      const expected = JSON.stringify({ route: 'question.reply', body: { answers: [[PICK]] } });
      return { ...relay('/api/attach/opencode', body), settle: answerPick, isRight: (received) => JSON.stringify(replyOf(received)) === expected };
    },
    // An MCP server's form through Claude Code's http Elicitation hook: every field kind, as the page draws it.
    elicitation: () => {
      const n = ++toolCalls;
      const payload = { session_id: 'bench-elicitation', transcript_path: '/home/alice/.claude/projects/shop/bench-elicitation.jsonl', cwd: '/home/alice/projects/shop', prompt_id: `prompt-${n}`, hook_event_name: 'Elicitation', mcp_server_name: 'deploy', message: `Where should release ${n} go?`, mode: 'form', requested_schema: EVERY_KIND_FORM };
      const startedAt = now();
      const posted = postAsHttpHook({ port: daemon.port, key: hookKey, payload, agent, path: ELICITATION_HOOK_PATH });
      const expected = JSON.stringify({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: EVERY_KIND_ANSWER } });
      return {
        startedAt,
        done: posted.response.then((response) => response.body),
        settle: (id) => daemon.api('POST', `/api/asks/${encodeURIComponent(id)}/elicitation`, { action: 'accept', content: EVERY_KIND_ANSWER }),
        isRight: (body) => body === expected,
      };
    },
  };

  async function relayOnce(which: Relay, counted: boolean): Promise<void> {
    const asked = relays[which]();
    const id = await cards.wait('pending', (candidate) => !seenIds.has(candidate));
    seenIds.add(id);
    const seen = await page.evaluate((askId) => (window as unknown as BenchWindow).__bench.seen[askId] ?? { at: Number.NaN, wallAt: Number.NaN }, id);
    const settled = await asked.settle(id);
    if (settled.status !== 200) throw new Error(`${which}: settling ${id} answered ${settled.status}`);
    if (!asked.isRight(await asked.done)) wrong++;
    await cards.wait('finished', (candidate) => candidate === id);
    await sleep(COUNTS.idleMs);
    if (counted) sample(`${which}.visible`, toPage(seen.at) - asked.startedAt);
  }

  // Every transport side by side: each round asks once through each, in turning order.
  const order: Array<Transport | Relay> = ['http', 'command', 'approval', 'turnEnd', 'codexApproval', 'codexQuestion', 'opencodeQuestion', 'elicitation'];
  // The end of a turn waits only while the person is away.
  await daemon.api('PUT', '/api/away', { away: true });
  for (let i = 0; i < COUNTS.pageWarmup + COUNTS.answers; i++) {
    for (const which of [...order.slice(i % order.length), ...order.slice(0, i % order.length)]) {
      const counted = i >= COUNTS.pageWarmup;
      if (which in relays) await relayOnce(which as Relay, counted);
      else await askOnce(which as Transport, counted);
    }
  }
  await daemon.api('PUT', '/api/away', { away: false });
  for (const [name, values] of Object.entries(samples)) results[name] = summarize(values);
  extras.clock = clock;
  if (wrong > 0) errors.push(`page: ${wrong} questions did not get the clicked answer`);
}

// ---------------------------------------------------------------------------------------------
// 6. What the page loads, as transferred, in how many requests, and whether it asks any other host

async function benchTransfer(browser: Browser, daemon: Daemon): Promise<void> {
  const totals: number[] = [];
  const requests: number[] = [];
  /** Fetches of a file the same load had fetched already. */
  const repeats: number[] = [];
  const external: number[] = [];
  let files: Record<string, number> = {};
  const own = new URL(daemon.url).host;
  const isForeign = (target: string) => {
    const parsed = new URL(target);
    return parsed.protocol !== 'data:' && parsed.protocol !== 'blob:' && parsed.host !== own;
  };
  for (let i = 0; i < COUNTS.loads; i++) {
    const foreign = new Set<string>();
    const sizes: Array<Promise<{ path: string; bytes: number }>> = [];
    // A fresh one-time link from `askbridge open --print` each time, as a person opens the page.
    const { context, page } = await openPairedPage(browser, daemon, {
      liveTimeoutMs: 15_000,
      beforeNavigate: async (newPage) => {
        newPage.on('request', (request) => isForeign(request.url()) && foreign.add(request.url()));
        newPage.on('websocket', (socket) => isForeign(socket.url()) && foreign.add(socket.url()));
        newPage.on('requestfinished', (request) =>
          sizes.push(request.sizes().then((size) => ({ path: new URL(request.url()).pathname, bytes: size.responseHeadersSize + size.responseBodySize }))),
        );
      },
    });
    const closeContext = onCleanup(() => context.close());
    await page.waitForLoadState('networkidle');
    const loaded = await Promise.all(sizes);
    totals.push(loaded.reduce((sum, entry) => sum + entry.bytes, 0));
    requests.push(loaded.length);
    repeats.push(loaded.length - new Set(loaded.map((entry) => entry.path)).size);
    external.push(foreign.size);
    files = Object.fromEntries(loaded.map((entry) => [entry.path, entry.bytes]));
    await closeContext();
  }
  results.transfer = summarize(totals);
  results.transferRequests = summarize(requests);
  results.transferRepeats = summarize(repeats);
  results.external = summarize(external);
  extras.transferFiles = files;
}

// ---------------------------------------------------------------------------------------------
// 4. Many questions held open, many WebSocket clients: memory and broadcast latency

async function benchLoad(): Promise<void> {
  const daemon = await startBenchDaemon();
  const pid = daemon.daemonPid();
  // The payloads Claude Code really sends (the malformed 9x ones are for the tests only).
  const fixtures = fixtureNames('.input.json').filter((name) => !name.startsWith('9'));
  const held: OpenQuestion[] = [];
  onCleanup(() => {
    for (const asked of held) asked.close();
  });

  // The clients first, so every new question is broadcast to all of them.
  const arrivals = new Map<string, (client: number, at: number) => void>(); // by toolUseId
  const sockets: WebSocket[] = [];
  onCleanup(() => {
    for (const socket of sockets) socket.terminate();
  });
  for (let c = 0; c < COUNTS.clients; c++) {
    const socket = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${daemon.token}` } });
    sockets.push(socket);
    await new Promise((ready, fail) => {
      socket.once('error', fail);
      socket.on('error', () => {}); // after the snapshot, a dropped client shows up as a missing arrival
      socket.on('message', (data) => {
        const at = now();
        const message = JSON.parse(data.toString()) as { type: string; ask?: { toolUseId: string } };
        if (message.type === 'snapshot') ready(undefined);
        else if (message.type === 'added' && message.ask) arrivals.get(message.ask.toolUseId)?.(c, at);
      });
    });
  }

  const ask = (payload: HookPayload) => openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(payload) });
  // Hold the questions open, a batch at a time, each on its own connection as hooks do.
  const batch = 25;
  for (let start = 0; start < COUNTS.pending; start += batch) {
    const asked: OpenQuestion[] = [];
    for (let i = start; i < Math.min(start + batch, COUNTS.pending); i++) asked.push(ask(newToolCall(fixtures[i % fixtures.length]!)));
    held.push(...asked);
    await Promise.all(asked.map((one) => one.accepted));
  }
  const status = await daemon.api<{ pending?: number; watchers?: number }>('GET', '/api/status');
  if (status.body.pending !== COUNTS.pending || status.body.watchers !== COUNTS.clients) {
    throw new Error(`expected ${COUNTS.pending} pending and ${COUNTS.clients} watchers, the daemon reports ${JSON.stringify(status.body)}`);
  }
  await sleep(500); // let the burst settle before sampling memory

  const latencies: number[] = [];
  const worstPerQuestion: number[] = [];
  const rss: number[] = [];
  for (let q = 0; q < COUNTS.broadcasts; q++) {
    rss.push(memoryOf(pid).rss);
    const payload = newToolCall(fixtures[q % fixtures.length]!);
    const received = new Map<number, number>();
    const all = new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`only ${received.size} of ${COUNTS.clients} clients got question ${q}`)), 10_000);
      arrivals.set(payload.tool_use_id, (client, at) => {
        if (!received.has(client)) received.set(client, at);
        if (received.size === COUNTS.clients) {
          clearTimeout(timer);
          done(undefined);
        }
      });
    });
    const asked = ask(payload);
    await all;
    await asked.accepted;
    // Withdrawn once measured: the daemon holds COUNTS.pending questions throughout, under its limit.
    asked.close();
    arrivals.delete(payload.tool_use_id);
    const times = [...received.values()].map((at) => at - asked.sentAt);
    latencies.push(...times);
    worstPerQuestion.push(Math.max(...times));
  }
  const memory = memoryOf(pid);
  rss.push(memory.rss);
  results.rss = summarize(rss.map((bytes) => bytes / 1e6));
  extras.hwmMb = memory.hwm / 1e6;
  results.broadcast = summarize(latencies);
  results.broadcastWorst = summarize(worstPerQuestion);

  for (const socket of sockets) socket.terminate();
  await daemon.stop();
  for (const asked of held) asked.close();
}

// ---------------------------------------------------------------------------------------------
// 11. Three daemons sharing one store (bench/shared-store.ts)

async function benchShared(): Promise<void> {
  extras.sharedStore = [];
  await benchSharedStore({
    counts: SHARED_STORE_COUNTS,
    startDaemon: (config, env) => startBenchDaemon(env, config),
    onCleanup,
    rssOf: (pid) => memoryOf(pid).rss,
    record: (figure, summary) => (results[`shared.${figure}`] = summary),
    note: (line) => extras.sharedStore?.push(line),
    error: (line) => errors.push(line),
    log: (line) => log(`11: ${line}`),
  });
}

// ---------------------------------------------------------------------------------------------
// 8. The page with thousands waiting: a new question, and an answer, each change one row

/** What the bench adds to the page's window for section 8: when each row appeared, and when it left, on the page's clock. */
type InboxWindow = Window & { __inbox: { added: Record<string, number>; removed: Record<string, number> } };

async function benchInbox(browser: Browser): Promise<void> {
  // Every question here comes from one asker (the command hook on this machine), which may hold a
  // quarter of the daemon's limits: they are raised so that one asker can hold them all.
  const daemon = await startBenchDaemon({ ASKBRIDGE_TEST_MAX_PENDING: String(4 * (COUNTS.inbox + COUNTS.inboxChanges)), ASKBRIDGE_TEST_WAITING_BYTES: String(4 * WAITING_BYTES) });
  onCleanup(() => daemon.stop());
  const held: OpenQuestion[] = [];
  onCleanup(() => {
    for (const asked of held) asked.close();
  });
  const fixtures = fixtureNames('.input.json').filter((name) => !name.startsWith('9'));
  // A hundred sessions, as many people's agents would be: the inbox groups them.
  const sessionOf = (index: number) => ({ session_id: `8e0c4000-0000-4000-8000-${String(index % 100).padStart(12, '0')}`, cwd: `/home/bench/project-${index % 100}` });
  const ask = (index: number): OpenQuestion => openQuestion({ port: daemon.port, token: daemon.token, body: hookBody({ ...newToolCall(fixtures[index % fixtures.length]!), ...sessionOf(index) }) });
  const batch = 25;
  for (let start = 0; start < COUNTS.inbox; start += batch) {
    const asked = Array.from({ length: Math.min(batch, COUNTS.inbox - start) }, (_, offset) => ask(start + offset));
    held.push(...asked);
    await Promise.all(asked.map((one) => one.accepted));
  }
  const { page, context } = await openPairedPage(browser, daemon, { viewport: { width: 1280, height: 900 }, liveTimeoutMs: 60_000 });
  onCleanup(() => context.close());
  await page.waitForFunction((count) => document.querySelectorAll('[data-ask-id]').length >= count, COUNTS.inbox, { timeout: 120_000, polling: 500 });
  await page.evaluate(() => {
    const record: InboxWindow['__inbox'] = { added: {}, removed: {} };
    (window as unknown as InboxWindow).__inbox = record;
    new MutationObserver((mutations) => {
      const added: string[] = [];
      const removed: string[] = [];
      for (const mutation of mutations) {
        for (const [list, nodes] of [
          [added, mutation.addedNodes],
          [removed, mutation.removedNodes],
        ] as const) {
          for (const node of nodes) {
            if (!(node instanceof HTMLElement)) continue;
            if (node.matches('[data-ask-id]')) list.push(node.dataset.askId ?? '');
            for (const row of node.querySelectorAll<HTMLElement>('[data-ask-id]')) list.push(row.dataset.askId ?? '');
          }
        }
      }
      // Timed at the next frame: when the change is on screen, not merely in the DOM.
      requestAnimationFrame(() => {
        const at = performance.timeOrigin + performance.now();
        for (const id of added) record.added[id] ??= at;
        for (const id of removed) if (!document.querySelector(`[data-ask-id="${id}"]`)) record.removed[id] ??= at;
      });
    }).observe(document.getElementById('inbox-list')!, { childList: true, subtree: true });
  });
  const clock = await clockOffset(page);
  const toPage = (pageTime: number) => pageTime - clock.offset;
  const waitInPage = (kind: 'added' | 'removed', id: string) =>
    page.waitForFunction(({ which, askId }) => (window as unknown as InboxWindow).__inbox[which][askId], { which: kind, askId: id }, { timeout: 10_000, polling: 'raf' }).then((handle) => handle.jsonValue() as Promise<number>);

  const appeared: number[] = [];
  const left: number[] = [];
  const waiting = (await daemon.pending()).map((view) => view.id);
  for (let change = 0; change < COUNTS.inboxChanges; change++) {
    const asked = ask(COUNTS.inbox + change);
    held.push(asked);
    const { id } = await asked.accepted;
    appeared.push(toPage(await waitInPage('added', id)) - asked.sentAt);
    await sleep(COUNTS.idleMs);

    // Someone answers one of the thousands elsewhere (the CLI here): its row leaves this page.
    const answered = waiting.pop()!;
    const sentAt = now();
    const reply = await daemon.api('POST', `/api/asks/${answered}/terminal`, {});
    if (reply.status !== 200) throw new Error(`answering ${answered}: HTTP ${reply.status}`);
    left.push(toPage(await waitInPage('removed', answered)) - sentAt);
    await sleep(COUNTS.idleMs);
  }
  results.inboxAdded = summarize(appeared);
  results.inboxRemoved = summarize(left);
  await context.close();
  await daemon.stop();
}

// ---------------------------------------------------------------------------------------------
// The table

type Unit = (value: number) => string;
const ms: Unit = (value) => `${value.toFixed(1)} ms`;
const spreadOf = (summary: Summary, unit: Unit) => (summary.n >= 20 ? `${unit(summary.p10)}–${unit(summary.p90)} (p10–p90)` : `${unit(summary.min)}–${unit(summary.max)} (min–max)`);

function rows(): string[] {
  const out: string[] = [];
  /** One row; a figure with a target says whether it was met. */
  const row = (id: string, figure: string, summary: Summary | undefined, options: { unit: Unit; p99?: boolean; target?: string; value?: (summary: Summary) => number; limit?: number }) => {
    const { unit, p99 = false, target = '—', value, limit } = options;
    if (!summary) return out.push(`| ${id} | ${figure} | — | not measured | — | — | ${target} | error |`);
    const checked = value?.(summary);
    const verdict = limit === undefined || checked === undefined ? '' : checked <= limit ? '✓' : '✗';
    out.push(`| ${id} | ${figure} | ${summary.n} | ${unit(summary.p50)} | ${spreadOf(summary, unit)} | ${p99 ? unit(summary.p99) : '—'} | ${target} | ${verdict} |`);
  };
  const times: Unit = (value) => `${value.toFixed(2)}×`;
  const mb: Unit = (value) => `${value.toFixed(1)} MB`;
  const kb: Unit = (value) => `${(value / 1000).toFixed(1)} kB`;
  const count: Unit = (value) => `${Math.round(value)}`;
  const tenths: Unit = (value) => value.toFixed(1);
  row('1', 'Command hook overhead: hook wall time ÷ `node -e 0` (per interleaved pair)', results.ratio, { unit: times, target: 'median ≤ 1.10×', value: (s) => s.p50, limit: 1.1 });
  row('1a', 'Command hook process, answered at once by the policy (wall time)', results.hook, { unit: ms, p99: true });
  row('1b', '`node -e 0` (wall time)', results.bare, { unit: ms, p99: true });
  row('1s', "Stop hook while nobody is away: Claude Code's POST → empty 200, all it adds over no hook (kept-alive connection)", results.stopHook, { unit: ms, p99: true, target: 'p99 ≤ 5 ms', value: (s) => s.p99, limit: 5 });
  row('1t', 'Floor: a plain `node:http` server answering the same POST with an empty 200', results.stopFloor, { unit: ms, p99: true });
  row('1u', 'Stop hook − floor (per interleaved pair)', results.stopAdded, { unit: ms, p99: true });
  row('1v', 'Command hook on Stop while nobody is away (wall time)', results.stopCommand, { unit: ms, p99: true });
  row('1w', 'Command hook on Stop ÷ `node -e 0`, while nobody is away (per interleaved pair)', results.stopCommandRatio, { unit: times, target: 'median ≤ 1.10×', value: (s) => s.p50, limit: 1.1 });
  row('2', 'http hook: Submit click → decision body fully received (headless Chromium)', results['http.click'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('2c', 'command hook: Submit click → hook exit', results['command.click'], { unit: ms, p99: true, target: 'p99 ≤ 20 ms', value: (s) => s.p99, limit: 20 });
  row('3', "http hook: Claude Code's POST → question card in the open page", results['http.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3e', "http Elicitation, an MCP server's form of every field kind: Claude Code's POST → form card in the open page (beside row 3)", results['elicitation.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3x', "Codex's approval (its PermissionRequest payload; Codex itself not run): command hook `--agent codex` spawned → approval card in the open page", results['codexApproval.visible'], { unit: ms, p99: true });
  row('3q', "Codex's question (its requestUserInput as `askbridge attach codex` relays it; Codex not run): POST /api/attach/codex → question card in the open page", results['codexQuestion.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3o', "opencode's question (as `askbridge attach opencode` relays it; opencode not run): POST /api/attach/opencode → question card in the open page", results['opencodeQuestion.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('2p', 'http PermissionRequest: Allow once click → decision body fully received (headless Chromium)', results['approval.click'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3p', "http PermissionRequest: Claude Code's POST → approval card in the open page", results['approval.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('2t', 'http Stop, away: Send reply click → block with the reply fully received (headless Chromium)', results['turnEnd.click'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3t', "http Stop, away: Claude Code's POST → 'Claude finished' card in the open page", results['turnEnd.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3c', 'command hook: hook start → question card in the open page', results['command.visible'], { unit: ms, p99: true, target: 'p99 ≤ 50 ms', value: (s) => s.p99, limit: 50 });
  row('4a', `Daemon RSS, ${COUNTS.pending} pending + ${COUNTS.clients} WebSocket clients`, results.rss, { unit: mb, target: 'max ≤ 150 MB', value: (s) => s.max, limit: 150 });
  row('4b', `Broadcast: new question → \`added\` at each of ${COUNTS.clients} clients`, results.broadcast, { unit: ms, p99: true, target: 'p99 ≤ 50 ms', value: (s) => s.p99, limit: 50 });
  row('5a', 'Daemon spawn → page link printed', results.startLine, { unit: ms, p99: false, target: 'median ≤ 400 ms', value: (s) => s.p50, limit: 400 });
  row('5b', 'Daemon spawn → first 200 from `GET /api/status`', results.startStatus, { unit: ms, target: 'median ≤ 200 ms', value: (s) => s.p50, limit: 200 });
  row('5c', 'Floor: plain `node:http` server spawn → first 200', results.startFloor, { unit: ms });
  row('5d', 'Daemon start ÷ the floor: 5b ÷ 5c (per interleaved pair)', results.startRatio, { unit: times, target: 'median ≤ 1.5×', value: (s) => s.p50, limit: 1.5 });
  row('5e', `Daemon idle RSS (${IDLE_SETTLE_MS / 1000} s after its first 200, nothing asked)`, results.idleRss, { unit: mb, target: 'median ≤ 60 MB', value: (s) => s.p50, limit: 60 });
  row('5f', 'Floor: plain `node:http` server idle RSS', results.floorRss, { unit: mb });
  row('5g', "A fresh daemon's first question, sent once it serves: hook hello → settled (policy)", results.firstQuestion, { unit: ms });
  row('5h', 'The same daemon, its second question', results.secondQuestion, { unit: ms });
  row('5i', 'The keeper beside the daemon of 5e (holds the port, restarts the daemon), idle RSS', results.keeperRss, { unit: mb });
  row('5l', "All of askbridge's processes, idle RSS: keeper + daemon (5i + 5e; the node binary's shared pages counted in each)", results.allRss, { unit: mb });
  row('5m', "All of askbridge's processes ÷ the floor, idle RSS: 5l ÷ 5f (per interleaved pair)", results.allRssRatio, { unit: times, target: 'median ≤ 1.15×', value: (s) => s.p50, limit: 1.15 });
  row('5n', "All of askbridge's processes, idle PSS: keeper + daemon (each shared page divided among the processes that map it)", results.allPss, { unit: mb });
  row('5o', 'Floor: plain `node:http` server idle PSS', results.floorPss, { unit: mb });
  row('5j', '`npm start` with an up-to-date build → page link printed', results.npmStart, { unit: ms, p99: false, target: 'median ≤ 2000 ms', value: (s) => s.p50, limit: 2000 });
  row('5k', '`npm start` ÷ `askbridge start`, to the page link (per interleaved pair)', results.npmStartRatio, { unit: times });
  row('6a', 'Page load, bytes transferred (headers + bodies)', results.transfer, { unit: kb, target: 'max ≤ 100 kB', value: (s) => s.max, limit: 100_000 });
  row('6b', 'Page load, requests to any other host', results.external, { unit: count, target: 'max = 0', value: (s) => s.max, limit: 0 });
  row('6c', 'Page load, requests (the API calls of pairing included)', results.transferRequests, { unit: count });
  row('6d', 'Page load, fetches of a file already fetched in the same load', results.transferRepeats, { unit: count, target: 'max = 0', value: (s) => s.max, limit: 0 });
  row('8a', `Page with ${COUNTS.inbox} waiting: new question → its row in the inbox (next frame)`, results.inboxAdded, { unit: ms, p99: true, target: 'p99 ≤ 50 ms', value: (s) => s.p99, limit: 50 });
  row('8b', `Page with ${COUNTS.inbox} waiting: one answered elsewhere → its row gone (next frame)`, results.inboxRemoved, { unit: ms, p99: true, target: 'p99 ≤ 50 ms', value: (s) => s.p99, limit: 50 });
  row('9a', "http hook: Claude Code's POST → the Telegram bot's sendMessage at the Bot API (a stand-in on loopback)", results.telegramSend, { unit: ms, p99: true, target: 'p99 ≤ 100 ms', value: (s) => s.p99, limit: 100 });
  row('9b', "http hook: Claude Code's POST → the ntfy publish with its one-tap buttons (a stand-in on loopback)", results.ntfyPublish, { unit: ms, p99: true, target: 'p99 ≤ 100 ms', value: (s) => s.p99, limit: 100 });
  row('10a', 'Interruptions per 100 permission requests over a working day (200 requests, four sessions, bench/workday.ts): one card at a time', results['interruptions.oneByOne'], { unit: tenths });
  row('10b', 'The same day, the person granting each card a 1-hour grant for every session of its project (a risky one never)', results['interruptions.withGrants'], { unit: tenths });
  row('10c', 'The same day with Review all: everything waiting when the person looks is one action (a risky one in it, one more)', results['interruptions.reviewAll'], { unit: tenths });
  row('10d', 'The same day with both grants and Review all', results['interruptions.grantsAndReviewAll'], { unit: tenths });
  const shared = SHARED_STORE_COUNTS;
  const everyListener = `the last of ${3 * shared.listeners} WebSocket listeners on 3 daemons`;
  row('11a', `Shared store: the CLI's answer sent to daemon 2, forwarded to daemon 1 holding the ask → \`resolved\` at ${everyListener}`, results['shared.forwarded'], { unit: ms, p99: true, target: 'p99 ≤ 100 ms', value: (s) => s.p99, limit: 100 });
  row('11b', `Shared store: the same answer sent to daemon 1 itself (in turn with 11a) → \`resolved\` at ${everyListener}`, results['shared.local'], { unit: ms, p99: true, target: 'p99 ≤ 100 ms', value: (s) => s.p99, limit: 100 });
  row('11c', 'Shared store: 11a ÷ 11b (per interleaved pair)', results['shared.forwardedRatio'], { unit: times });
  row('11d', 'Shared store: POST /api/asks at daemon 1 → `added` at the last listener of daemons 2 and 3', results['shared.addedElsewhere'], { unit: ms, p99: true });
  row('11e', 'Shared store: the same POST → `added` at the last listener of daemon 1', results['shared.addedHere'], { unit: ms, p99: true });
  row('11f', `Shared store, ${shared.waiting} asks held open across 3 daemons: first POST → every daemon lists them all (\`GET /api/status\` pending)`, results['shared.listedAll'], { unit: ms });
  row('11g', 'The same: the last of them opened at its daemon → every daemon lists them all', results['shared.listedAfterLast'], { unit: ms });
  row('11h', `The same: asks missing from the daemon listing fewest (\`GET /api/asks\`)`, results['shared.missing'], { unit: count, target: 'max = 0', value: (s) => s.max, limit: 0 });
  row('11i', `The same: each daemon's RSS with ${shared.waiting} waiting`, results['shared.rssMb'], { unit: mb });
  row('11j', `The same: each daemon's CPU while nothing happens, over one of the store's check intervals (% of one core)`, results['shared.cpuShare'], { unit: (value) => `${value.toFixed(1)}%` });
  row('11k', `The same: an answer sent to daemon 2 for an ask daemon 1 holds → \`resolved\` at ${everyListener}`, results['shared.loadForwarded'], { unit: ms, p99: true, target: 'p99 ≤ 100 ms', value: (s) => s.p99, limit: 100 });
  row('11l', `The same: an answer sent to daemon 1 itself (in turn with 11k) → \`resolved\` at ${everyListener}`, results['shared.loadLocal'], { unit: ms, p99: true, target: 'p99 ≤ 100 ms', value: (s) => s.p99, limit: 100 });
  row('7a', '`askbridge --help` wall time ÷ `node -e 0` (per interleaved pair)', results.cliHelp, { unit: times });
  row('7b', '`askbridge status` (daemon running) wall time ÷ `node -e 0`', results.cliStatus, { unit: times });
  return out;
}

/** Microseconds during which some task waited for a core (Linux PSI), or undefined without PSI. */
function cpuPressureTotal(): number | undefined {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

type LoadAtStart = { load: number[]; pressure: number | undefined; at: number };

function machine(browserVersion: string | undefined, loadAtStart: LoadAtStart): string[] {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `askbridge ${version} benchmarks${QUICK ? ' (--quick: small counts, a smoke run)' : ''}, ${new Date().toISOString()}`,
    '',
    `- CPU: ${model}, ${availableParallelism()} cores (Linux ${release()}); load average ${load(loadAtStart.load)} at start, ${load(loadavg())} at end`,
    ...(loadAtStart.pressure !== undefined && Number.isFinite(loadAtStart.pressure)
      ? [`- Some task was waiting for a core during ${((100 * ((cpuPressureTotal() ?? Number.NaN) - loadAtStart.pressure)) / 1000 / (Date.now() - loadAtStart.at)).toFixed(0)}% of the run (CPU pressure, this benchmark's own processes included)`]
      : []),
    `- Node ${process.version}; Chromium ${browserVersion ?? 'not started'}`,
  ];
}

/** p50 (p99) of a summary, for the breakdown lines. */
const p50p99 = (summary: Summary | undefined) => (summary ? `${ms(summary.p50)} (p99 ${ms(summary.p99)})` : 'not measured');

function details(): string[] {
  const lines: string[] = [];
  const r = results;
  if (r.hook && r.bare) {
    lines.push(`- 1: median hook − median \`node -e 0\` = ${ms(r.hook.p50 - r.bare.p50)}; ratio of the medians ${(r.hook.p50 / r.bare.p50).toFixed(2)}×. The same request from an already running process takes ${p50p99(r.roundTrip)}: the rest is the hook's own start.`);
  }
  const httpClick = r['http.click'];
  const commandClick = r['command.click'];
  if (httpClick && commandClick) {
    lines.push(`- 2 and 2c side by side: the command hook takes ${(commandClick.p50 / httpClick.p50).toFixed(1)}× as long as the http hook at the median (${(commandClick.p99 / httpClick.p99).toFixed(1)}× at p99). In parts: mouse button release sent → click event in the page ${p50p99(r.dispatch)}; click event → the daemon settles the question ${p50p99(r.clickEventToSettled)}; → decision body received (http) ${p50p99(r['http.settledToDecision'])}, or on the hook's stdout (command) ${p50p99(r['command.settledToDecision'])}, and the hook gone ${p50p99(r['command.decisionToGone'])} later.`);
  }
  const httpVisible = r['http.visible'];
  const commandVisible = r['command.visible'];
  if (httpVisible && commandVisible && extras.clock) {
    lines.push(`- 3 and 3c side by side: the command hook takes ${(commandVisible.p50 / httpVisible.p50).toFixed(1)}× as long as the http hook at the median (${(commandVisible.p99 / httpVisible.p99).toFixed(1)}× at p99). In parts: POST → the daemon opens the question ${p50p99(r['http.startToCreated'])} (http), hook spawn → the daemon opens it ${p50p99(r['command.startToCreated'])} (command; Node's own start is row 1b); → card in the page ${p50p99(r['http.createdToVisible'])} (http), ${p50p99(r['command.createdToVisible'])} (command). Rows 3 and 3c take card times from the page's performance clock, corrected by the measured Chromium − Node offset ${extras.clock.offset.toFixed(2)} ms (±${(extras.clock.rtt / 2).toFixed(2)} ms); the parts of rows 2 and 3 are on the system clock that the bench, Chromium and the daemon share, in whole ms, so they need not add up to their row exactly.`);
  }
  const relayed = (['codexApproval', 'codexQuestion', 'opencodeQuestion'] as const).filter((name) => r[`${name}.visible`]);
  if (httpVisible && commandVisible && relayed.length > 0) {
    const against = { codexApproval: ['3x', '3c', commandVisible], codexQuestion: ['3q', '3', httpVisible], opencodeQuestion: ['3o', '3', httpVisible] } as const;
    const ratios = relayed.map((name) => {
      const [row, base, summary] = against[name];
      const mine = r[`${name}.visible`]!;
      return `${row} takes ${(mine.p50 / summary.p50).toFixed(1)}× row ${base} at the median (${(mine.p99 / summary.p99).toFixed(1)}× at p99)`;
    });
    lines.push(`- Codex and opencode, asked in the same rounds as 3 and 3c: ${ratios.join('; ')}.`);
  }
  if (r.rss && extras.hwmMb !== undefined) lines.push(`- 4: RSS peak (VmHWM) ${extras.hwmMb.toFixed(1)} MB; slowest of the ${COUNTS.clients} clients per question: ${p50p99(r.broadcastWorst)}.`);
  if (extras.transferFiles) lines.push(`- 6: ${Object.entries(extras.transferFiles).map(([path, bytes]) => `${path} ${bytes} B`).join(', ')} (headers + body; WebSocket frames not counted).`);
  if (r['shared.forwarded'] && r['shared.local']) lines.push(`- 11a and 11b side by side: forwarded through the store takes ${(r['shared.forwarded'].p50 / r['shared.local'].p50).toFixed(1)}× as long as sent to the holder at the median (${(r['shared.forwarded'].p99 / r['shared.local'].p99).toFixed(1)}× at p99).`);
  lines.push(...(extras.sharedStore ?? []));
  for (const error of errors) lines.push(`- ERROR: ${error}`);
  return lines;
}

// ---------------------------------------------------------------------------------------------

let interrupted = false;

/** 10: how often a person is interrupted over a working day of permissions (bench/interruptions.ts). */
async function benchInterruptions(): Promise<void> {
  const day = workday();
  for (const [key, way] of [['oneByOne', 'one by one'], ['withGrants', 'grants'], ['reviewAll', 'review all'], ['grantsAndReviewAll', 'grants and review all']] as const) {
    results[`interruptions.${key}`] = summarize([interruptions(day, way).per100]);
  }
}

async function section(name: string, fn: () => Promise<void>): Promise<void> {
  if (interrupted) return;
  log(`${name}…`);
  const started = Date.now();
  try {
    await fn();
  } catch (error) {
    errors.push(`${name}: ${(error as Error).stack ?? (error as Error).message}`);
  }
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main(): Promise<number> {
  assertBuildIsFresh(); // one clear error, before any section, when dist/ is missing or stale
  const loadAtStart: LoadAtStart = { load: loadavg(), pressure: cpuPressureTotal(), at: Date.now() };
  const header = ['| # | figure | n | median | spread | p99 | target | |', '|---|---|---:|---:|---|---:|---|:-:|'];
  if (SHARED_STORE_ONLY) {
    await section('11 daemons sharing a store', benchShared);
    console.log([...machine(undefined, loadAtStart), '', ...header, ...rows().filter((line) => line.startsWith('| 11')), '', ...details()].join('\n'));
    return errors.length === 0 ? 0 : 1;
  }

  // The startup timings first, on a machine with nothing else of ours running.
  await section('10 interruptions over a working day', benchInterruptions);
  await section('5 daemon start → ready', benchStartup);
  if (STARTUP_ONLY) {
    const table = [...header, ...rows().filter((line) => line.startsWith('| 5'))];
    console.log([...machine(undefined, loadAtStart), '', ...table, '', ...details()].join('\n'));
    return errors.length === 0 ? 0 : 1;
  }

  if (interrupted) return 130;
  const daemon = await startBenchDaemon();
  // Before the browser exists, so no page renders the policy's answers meanwhile.
  await section('1 hook overhead', () => benchHookOverhead(daemon));
  await section('7 CLI start', () => benchCli(daemon));
  await section('1s Stop hook, not away', () => benchStopHook(daemon));
  await section('9 Telegram and ntfy', benchChannels);

  if (interrupted) return 130;
  // Our signal handler closes the browser with everything else; Playwright's own would exit mid-cleanup.
  const browser = await launchBrowser({ handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  onCleanup(() => browser.close());
  const browserVersion = browser.version();
  await section('6 page transfer', () => benchTransfer(browser, daemon));
  await section('2+3 page answers', () => benchPage(browser, daemon));
  await daemon.stop();
  await section('8 the page with thousands waiting', () => benchInbox(browser));
  await browser.close();

  await section('4 pending questions + clients', benchLoad);
  await section('11 daemons sharing a store', benchShared);

  const table = [...header, ...rows()];
  console.log([...machine(browserVersion, loadAtStart), '', ...table, '', ...details()].join('\n'));
  return errors.length === 0 ? 0 : 1;
}

let exitCode = 1;
let cleaningUp: Promise<void> | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: cleaning up`);
    // Twice: whatever the main flow started while the first pass ran is stopped by the second.
    cleaningUp = runCleanups()
      .then(() => sleep(200))
      .then(runCleanups)
      .finally(() => process.exit(130));
  });
}
try {
  exitCode = await main();
} catch (error) {
  if (!interrupted) process.stderr.write(`bench failed: ${(error as Error).stack ?? (error as Error).message}\n`);
} finally {
  // Once interrupted, only the signal handler may end the process, after its cleanup.
  if (interrupted) await cleaningUp;
  await runCleanups();
}
process.exit(exitCode);
