// @ts-check
// askbridge benchmarks: `npm run bench` (full) or `node bench/run.mjs --quick` (a smoke run).
// Real processes throughout: the daemon (`askbridge start`), the hook, headless Chromium, WebSocket
// clients. Prints the machine and ONE markdown table; every row is checked against its target, and
// a missed target is reported (✗), never an error: the exit code is 0 unless something crashed.
import { availableParallelism, cpus, loadavg, release } from 'node:os';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  CLI_BIN,
  HOOK_SCRIPT,
  REPO_ROOT,
  epochNow,
  freshPayload,
  loadFixture,
  memoryOf,
  onCleanup,
  openQuestion,
  postAsHttpHook,
  runCleanups,
  runNode,
  sleep,
  startDaemon,
  summarize,
  validFixtureNames,
} from './lib.mjs';

const QUICK = process.argv.includes('--quick');
const COUNTS = QUICK
  ? { hookPairs: 10, hookWarmup: 2, answers: 20, pageWarmup: 2, idleMs: 150, pending: 100, clients: 10, broadcasts: 10, starts: 3, loads: 1, cliPairs: 5 }
  : { hookPairs: 80, hookWarmup: 5, answers: 220, pageWarmup: 5, idleMs: 150, pending: 1000, clients: 50, broadcasts: 60, starts: 15, loads: 3, cliPairs: 30 };

/** Every question waits for a person long enough; a policy answers only unattended hooks at once. */
const DAEMON_CONFIG = { waitSeconds: 600, onTimeout: 'recommended' };
const SINGLE = '01-single-select';
const PICK = 'SQLite'; // not the recommended option: the answer must be the click, not a policy

const log = (message) => process.stderr.write(`[bench] ${message}\n`);
const results = {};
const errors = [];

// ---------------------------------------------------------------------------------------------
// 5. Daemon start → ready

async function benchStartup() {
  const toLine = [];
  const toStatus = [];
  // One cold start first (file cache, JIT of the CLI), not counted.
  for (let i = 0; i < COUNTS.starts + 1; i++) {
    const daemon = await startDaemon({ config: DAEMON_CONFIG });
    let statusAt;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await daemon.api('GET', '/api/status');
        if (response.status === 200) {
          statusAt = epochNow();
          break;
        }
      } catch (error) {
        if (attempt > 200) throw error;
      }
      await sleep(1);
    }
    if (i > 0) {
      toLine.push((daemon.urlLineAt ?? NaN) - daemon.startedAt);
      toStatus.push(statusAt - daemon.startedAt);
    }
    await daemon.stop();
  }
  results.startLine = summarize(toLine);
  results.startStatus = summarize(toStatus);
}

// ---------------------------------------------------------------------------------------------
// 1. Hook overhead: the real hook, answered at once by the policy, against `node -e 0`, interleaved

function allowedAnswer(stdout, question) {
  try {
    const output = JSON.parse(stdout).hookSpecificOutput;
    return output.permissionDecision === 'allow' ? output.updatedInput.answers[question] : undefined;
  } catch {
    return undefined;
  }
}

async function benchHookOverhead(daemon) {
  const env = daemon.clientEnv({ ASKBRIDGE_UNATTENDED: '1' });
  const question = loadFixture(SINGLE).tool_input.questions[0].question;
  const hook = [];
  const bare = [];
  const ratios = [];
  let wrong = 0;
  for (let i = 0; i < COUNTS.hookWarmup + COUNTS.hookPairs; i++) {
    const stdin = JSON.stringify(freshPayload(SINGLE));
    const times = {};
    // Alternate which goes first, so neither always runs on a just-disturbed machine.
    for (const which of i % 2 === 0 ? ['hook', 'node'] : ['node', 'hook']) {
      const result = await runNode(which === 'hook' ? [HOOK_SCRIPT] : ['-e', '0'], { env, stdin }).exited;
      if (which === 'hook' && (result.code !== 0 || !allowedAnswer(result.stdout, question))) wrong++;
      times[which] = result.ms;
    }
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
  const roundTrips = [];
  for (let i = 0; i < 30; i++) {
    const asked = openQuestion(daemon.port, daemon.token, freshPayload(SINGLE), { ASKBRIDGE_UNATTENDED: '1' });
    const { at } = await asked.settled;
    if (i >= 5) roundTrips.push(at - asked.sentAt);
  }
  results.roundTrip = summarize(roundTrips);
}

// ---------------------------------------------------------------------------------------------
// 7. The CLI's quick commands against `node -e 0`, interleaved: `--help`, and `status` of a running daemon

async function benchCli(daemon) {
  const env = daemon.clientEnv();
  const ratios = { help: [], status: [] };
  for (let i = 0; i < COUNTS.cliPairs + 2; i++) {
    for (const command of ['help', 'status']) {
      const times = {};
      for (const which of i % 2 === 0 ? [command, 'node'] : ['node', command]) {
        const args = which === 'node' ? ['-e', '0'] : [CLI_BIN, which === 'help' ? '--help' : 'status'];
        const result = await runNode(args, { env }).exited;
        if (which !== 'node' && result.code !== 0) errors.push(`askbridge ${which} exited ${result.code}`);
        times[which] = result.ms;
      }
      if (i >= 2) ratios[command].push(times[command] / times.node);
    }
  }
  results.cliHelp = summarize(ratios.help);
  results.cliStatus = summarize(ratios.status);
}

// ---------------------------------------------------------------------------------------------
// 2 + 3. One page open; per question: hook start → card in the page, then Submit click → hook exit

/** Chromium's clock minus Node's (both epoch ms), from the round trips with the least delay. */
async function clockOffset(page) {
  const samples = [];
  for (let i = 0; i < 30; i++) {
    const before = epochNow();
    const inPage = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = epochNow();
    samples.push({ rtt: after - before, offset: inPage - (before + after) / 2 });
  }
  samples.sort((a, b) => a.rtt - b.rtt);
  const best = samples.slice(0, 5).map((sample) => sample.offset).sort((a, b) => a - b);
  return { offset: best[2] ?? 0, rtt: samples[0]?.rtt ?? 0 };
}

async function openPage(browser, url, beforeNavigate) {
  // Tall enough that a whole card fits without scrolling.
  const context = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
  onCleanup(() => context.close());
  const page = await context.newPage();
  await beforeNavigate?.(page);
  await page.goto(url);
  await page.locator('#conn[data-state="live"]').waitFor({ state: 'attached', timeout: 15_000 });
  return { context, page };
}

/**
 * Cards reported by the page itself the moment they enter #pending or #finished. Waiting this way
 * costs the page nothing, where Playwright's locator polling keeps Chromium drawing frames, which
 * would compete for the two cores with the very hook being timed.
 */
function cardReports() {
  const reported = { pending: new Set(), finished: new Set() };
  const waiters = new Set();
  return {
    report(kind, id) {
      reported[kind].add(id);
      for (const waiter of waiters) waiter();
    },
    /** The first card of `kind` that `accept` takes, among those reported already or still to come. */
    wait(kind, accept, timeoutMs = 10_000) {
      return new Promise((found, fail) => {
        const check = () => {
          const id = [...reported[kind]].find(accept);
          if (id === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          found(id);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(new Error(`no ${kind} card within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

async function benchPage(browser, daemon) {
  const cards = cardReports();
  const { page } = await openPage(browser, daemon.pairingUrl, (newPage) => newPage.exposeFunction('__benchCard', cards.report));
  // Recorded inside the page, on its own clock: when each card enters the list, and each Submit click.
  await page.evaluate(() => {
    /** The page's window, with what the bench adds to it. */
    const bench = (/** @type {any} */ (window).__bench = { seen: {}, clickAt: 0 });
    const report = /** @type {(list: string, id: string) => void} */ (/** @type {any} */ (window).__benchCard);
    const finished = new Set();
    new MutationObserver(() => {
      const at = performance.timeOrigin + performance.now();
      for (const card of document.querySelectorAll('#pending > [data-question-id]')) {
        const id = /** @type {HTMLElement} */ (card).dataset.questionId ?? '';
        if (bench.seen[id] !== undefined) continue;
        bench.seen[id] = at;
        report('pending', id);
      }
    }).observe(/** @type {HTMLElement} */ (document.getElementById('pending')), { childList: true });
    new MutationObserver(() => {
      for (const card of document.querySelectorAll('#finished > [data-question-id]')) {
        const id = /** @type {HTMLElement} */ (card).dataset.questionId ?? '';
        if (finished.has(id)) continue;
        finished.add(id);
        report('finished', id);
      }
    }).observe(/** @type {HTMLElement} */ (document.getElementById('finished')), { childList: true });
    document.addEventListener('click', (event) => {
      if (/** @type {Element | null} */ (event.target)?.closest?.('button[type="submit"]')) bench.clickAt = performance.timeOrigin + performance.now();
    }, true);
  });
  const clock = await clockOffset(page);
  const toPage = (pageTime) => pageTime - (clock.offset ?? 0);

  // The daemon's log times (epoch ms, whole ms) split each figure into hook, daemon and page parts.
  const logged = new Map();
  const stopListening = daemon.onLog((entry) => {
    if (!entry.questionId) return;
    const times = logged.get(entry.questionId) ?? {};
    times[entry.msg] ??= entry.time;
    logged.set(entry.questionId, times);
  });
  onCleanup(stopListening);

  const env = daemon.clientEnv();
  const question = loadFixture(SINGLE).tool_input.questions[0].question;
  const hookKey = readFileSync(`${daemon.home}/hook-key`, 'utf8').trim();
  // Claude Code's one client keeps its connection to the daemon alive between questions.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  onCleanup(() => agent.destroy());
  /**
   * One question through a transport, until its decision is in: the command hook (a process per
   * question; done when it exits) or Claude Code's http hook (a POST; done when the body is in).
   */
  const transports = {
    command: () => {
      const hook = runNode([HOOK_SCRIPT], { env, stdin: JSON.stringify(freshPayload(SINGLE)) });
      return { startedAt: hook.startedAt, done: hook.exited.then((result) => ({ at: result.exitedAt, decision: result.stdout, answerAt: result.firstStdoutAt })) };
    },
    http: () => {
      const posted = postAsHttpHook(daemon.port, hookKey, freshPayload(SINGLE), agent);
      return { startedAt: posted.startedAt, done: posted.done.then((response) => ({ at: response.at, decision: response.body, answerAt: response.at })) };
    },
  };
  const samples = {};
  const sample = (name, value) => (samples[name] ??= []).push(value);
  const seenIds = new Set();
  let wrong = 0;

  async function askOnce(transport, counted) {
    const asked = transports[transport]();
    const id = await cards.wait('pending', (candidate) => !seenIds.has(candidate));
    seenIds.add(id);
    // Where the option's label and Submit are, in one round trip; the clicks themselves are real mouse input.
    const spots = await page.evaluate(
      ({ questionId, label }) => {
        const card = document.querySelector(`article[data-question-id="${questionId}"]`);
        if (!card) throw new Error(`no card for ${questionId}`);
        const submit = [...card.querySelectorAll('button')].find((button) => button.textContent === 'Submit');
        const option = [...card.querySelectorAll('.option-label')].find((span) => span.textContent === label);
        if (!submit || !option) throw new Error(`card ${questionId} has no Submit or no option "${label}"`);
        submit.scrollIntoView({ block: 'nearest' });
        const center = (el) => {
          const rect = el.getBoundingClientRect();
          return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
        };
        return { option: center(option), submit: center(submit) };
      },
      { questionId: id, label: PICK },
    );
    await page.mouse.click(spots.option.x, spots.option.y);
    await sleep(COUNTS.idleMs); // a person takes a moment to reach Submit

    // A click happens when the button is released: press first, then time from just before the release.
    await page.mouse.move(spots.submit.x, spots.submit.y);
    await page.mouse.down();
    const clickedAt = epochNow();
    await page.mouse.up();
    const result = await asked.done;
    if (allowedAnswer(result.decision, question) !== PICK) wrong++;
    const inPage = await page.evaluate((questionId) => {
      const bench = /** @type {any} */ (window).__bench;
      return { seenAt: bench.seen[questionId], clickAt: bench.clickAt };
    }, id);
    await cards.wait('finished', (candidate) => candidate === id);
    // Questions come seconds apart in real use: let the page finish its reaction before the next one.
    await sleep(COUNTS.idleMs);
    if (!counted) return;
    const times = logged.get(id) ?? {};
    sample(`${transport}.click`, result.at - clickedAt);
    sample(`${transport}.visible`, toPage(inPage.seenAt) - asked.startedAt);
    sample(`${transport}.startToReceived`, times['question received'] - asked.startedAt);
    sample(`${transport}.receivedToVisible`, toPage(inPage.seenAt) - times['question received']);
    sample(`${transport}.answeredToDecision`, result.answerAt - times['question answered']);
    sample('dispatch', toPage(inPage.clickAt) - clickedAt);
    sample('clickEventToAnswered', times['question answered'] - toPage(inPage.clickAt));
    if (transport === 'command') sample('command.answerToExit', result.at - result.answerAt);
  }

  // Both transports side by side: each round asks once through each, in alternating order.
  for (let i = 0; i < COUNTS.pageWarmup + COUNTS.answers; i++) {
    for (const transport of i % 2 === 0 ? ['http', 'command'] : ['command', 'http']) await askOnce(transport, i >= COUNTS.pageWarmup);
  }
  for (const [name, values] of Object.entries(samples)) results[name] = summarize(values);
  results.clock = clock;
  if (wrong > 0) errors.push(`page: ${wrong} questions did not get the clicked answer`);
}

// ---------------------------------------------------------------------------------------------
// 6. What the page loads, as transferred, and whether it asks any other host

async function benchTransfer(browser, daemon) {
  const totals = [];
  const external = [];
  let files = {};
  for (let i = 0; i < COUNTS.loads; i++) {
    const opened = await runNode([CLI_BIN, 'open', '--print'], { env: daemon.clientEnv() }).exited;
    const url = opened.stdout.trim();
    if (opened.code !== 0 || !url.includes('#pair=')) throw new Error(`askbridge open --print failed: ${opened.stderr}`);
    const context = await browser.newContext();
    const closeContext = onCleanup(() => context.close());
    const page = await context.newPage();
    const own = new URL(daemon.origin).host;
    const foreign = new Set();
    const sizes = [];
    const isForeign = (target) => {
      const parsed = new URL(target);
      return parsed.protocol !== 'data:' && parsed.protocol !== 'blob:' && parsed.host !== own;
    };
    page.on('request', (request) => isForeign(request.url()) && foreign.add(request.url()));
    page.on('websocket', (socket) => isForeign(socket.url()) && foreign.add(socket.url()));
    page.on('requestfinished', (request) =>
      sizes.push(request.sizes().then((size) => ({ path: new URL(request.url()).pathname, bytes: size.responseHeadersSize + size.responseBodySize }))),
    );
    await page.goto(url);
    await page.locator('#conn[data-state="live"]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    const loaded = await Promise.all(sizes);
    totals.push(loaded.reduce((sum, entry) => sum + entry.bytes, 0));
    external.push(foreign.size);
    files = Object.fromEntries(loaded.map((entry) => [entry.path, entry.bytes]));
    await closeContext();
  }
  results.transfer = summarize(totals);
  results.external = summarize(external);
  results.transferFiles = files;
}

// ---------------------------------------------------------------------------------------------
// 4. Many questions held open, many WebSocket clients: memory and broadcast latency

async function benchLoad() {
  const daemon = await startDaemon({ config: DAEMON_CONFIG });
  const fixtures = validFixtureNames().map(loadFixture);
  const held = [];
  onCleanup(() => {
    for (const asked of held) asked.close();
  });

  // The clients first, so every new question is broadcast to all of them.
  const arrivals = new Map(); // toolUseId -> (clientIndex) => void
  const sockets = [];
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
        const at = epochNow();
        const message = JSON.parse(data.toString());
        if (message.type === 'snapshot') ready(undefined);
        else if (message.type === 'added') arrivals.get(message.question.toolUseId)?.(c, at);
      });
    });
  }

  // Hold the questions open, a batch at a time, each on its own connection as hooks do.
  const batch = 25;
  for (let start = 0; start < COUNTS.pending; start += batch) {
    const asked = [];
    for (let i = start; i < Math.min(start + batch, COUNTS.pending); i++) asked.push(openQuestion(daemon.port, daemon.token, freshPayload(fixtures[i % fixtures.length], 'p')));
    held.push(...asked);
    await Promise.all(asked.map((one) => one.accepted));
  }
  const status = await daemon.api('GET', '/api/status');
  if (status.body?.pending !== COUNTS.pending || status.body?.watchers !== COUNTS.clients) {
    throw new Error(`expected ${COUNTS.pending} pending and ${COUNTS.clients} watchers, the daemon reports ${status.text}`);
  }
  await sleep(500); // let the burst settle before sampling memory

  const latencies = [];
  const worstPerQuestion = [];
  const rss = [];
  for (let q = 0; q < COUNTS.broadcasts; q++) {
    rss.push(memoryOf(daemon.pid).rss);
    const payload = freshPayload(fixtures[q % fixtures.length], 'l');
    const received = new Map();
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
    const asked = openQuestion(daemon.port, daemon.token, payload);
    await all;
    await asked.accepted;
    // Withdrawn once measured: the daemon holds COUNTS.pending questions throughout, under its limit.
    asked.close();
    arrivals.delete(payload.tool_use_id);
    const times = [...received.values()].map((at) => at - asked.sentAt);
    latencies.push(...times);
    worstPerQuestion.push(Math.max(...times));
  }
  const memory = memoryOf(daemon.pid);
  rss.push(memory.rss);
  results.rss = summarize(rss.map((bytes) => bytes / 1e6));
  results.hwm = memory.hwm / 1e6;
  results.broadcast = summarize(latencies);
  results.broadcastWorst = summarize(worstPerQuestion);

  for (const socket of sockets) socket.terminate();
  await daemon.stop();
  for (const asked of held) asked.close();
}

// ---------------------------------------------------------------------------------------------
// The table

const ms = (value) => `${value.toFixed(1)} ms`;
const spreadOf = (summary, unit) => (summary.n >= 20 ? `${unit(summary.p10)}–${unit(summary.p90)} (p10–p90)` : `${unit(summary.min)}–${unit(summary.max)} (min–max)`);

function rows() {
  const out = [];
  /**
   * One row; a figure with a target says whether it was met.
   * @param {string} id @param {string} figure @param {any} summary
   * @param {{ unit: (value: number) => string, p99?: boolean, target?: string, value?: (summary: any) => number, limit?: number }} options
   */
  const row = (id, figure, summary, { unit, p99 = false, target = '—', value, limit }) => {
    if (!summary) return out.push(`| ${id} | ${figure} | — | not measured | — | — | ${target} | error |`);
    const checked = value?.(summary);
    const verdict = limit === undefined || checked === undefined ? '' : checked <= limit ? '✓' : '✗';
    out.push(`| ${id} | ${figure} | ${summary.n} | ${unit(summary.p50)} | ${spreadOf(summary, unit)} | ${p99 ? unit(summary.p99) : '—'} | ${target} | ${verdict} |`);
  };
  const times = (value) => `${value.toFixed(2)}×`;
  const mb = (value) => `${value.toFixed(1)} MB`;
  const kb = (value) => `${(value / 1000).toFixed(1)} kB`;
  const count = (value) => `${Math.round(value)}`;
  row('1', 'Command hook overhead: hook wall time ÷ `node -e 0` (per interleaved pair)', results.ratio, { unit: times, target: 'median ≤ 1.10×', value: (s) => s.p50, limit: 1.1 });
  row('1a', 'Command hook process, answered at once by the policy (wall time)', results.hook, { unit: ms, p99: true });
  row('1b', '`node -e 0` (wall time)', results.bare, { unit: ms, p99: true });
  row('2', 'http hook: Submit click → decision body fully received (headless Chromium)', results['http.click'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('2c', 'command hook: Submit click → hook exit', results['command.click'], { unit: ms, p99: true, target: 'p99 ≤ 20 ms', value: (s) => s.p99, limit: 20 });
  row('3', "http hook: Claude Code's POST → question card in the open page", results['http.visible'], { unit: ms, p99: true, target: 'p99 ≤ 10 ms', value: (s) => s.p99, limit: 10 });
  row('3c', 'command hook: hook start → question card in the open page', results['command.visible'], { unit: ms, p99: true, target: 'p99 ≤ 50 ms', value: (s) => s.p99, limit: 50 });
  row('4a', `Daemon RSS, ${COUNTS.pending} pending + ${COUNTS.clients} WebSocket clients`, results.rss, { unit: mb, target: 'max ≤ 150 MB', value: (s) => s.max, limit: 150 });
  row('4b', `Broadcast: new question → \`added\` at each of ${COUNTS.clients} clients`, results.broadcast, { unit: ms, p99: true, target: 'p99 ≤ 50 ms', value: (s) => s.p99, limit: 50 });
  row('5a', 'Daemon spawn → page link printed', results.startLine, { unit: ms, p99: false, target: 'median ≤ 400 ms', value: (s) => s.p50, limit: 400 });
  row('5b', 'Daemon spawn → first 200 from `GET /api/status`', results.startStatus, { unit: ms, target: 'median ≤ 400 ms', value: (s) => s.p50, limit: 400 });
  row('6a', 'Page load, bytes transferred (headers + bodies)', results.transfer, { unit: kb, target: 'max ≤ 60 kB', value: (s) => s.max, limit: 60_000 });
  row('6b', 'Page load, requests to any other host', results.external, { unit: count, target: 'max = 0', value: (s) => s.max, limit: 0 });
  row('7a', '`askbridge --help` wall time ÷ `node -e 0` (per interleaved pair)', results.cliHelp, { unit: times });
  row('7b', '`askbridge status` (daemon running) wall time ÷ `node -e 0`', results.cliStatus, { unit: times });
  return out;
}

/** Microseconds during which some task waited for a core (Linux PSI), or undefined without PSI. */
function cpuPressureTotal() {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

function machine(browserVersion, loadAtStart) {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const version = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')).version;
  const load = (values) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `askbridge ${version} benchmarks${QUICK ? ' (--quick: small counts, a smoke run)' : ''}, ${new Date().toISOString()}`,
    '',
    `- CPU: ${model}, ${availableParallelism()} cores (Linux ${release()}); load average ${load(loadAtStart.load)} at start, ${load(loadavg())} at end`,
    ...(Number.isFinite(loadAtStart.pressure)
      ? [`- Some task was waiting for a core during ${((100 * ((cpuPressureTotal() ?? NaN) - loadAtStart.pressure)) / 1000 / (Date.now() - loadAtStart.at)).toFixed(0)}% of the run (CPU pressure, this benchmark's own processes included)`]
      : []),
    `- Node ${process.version}; Chromium ${browserVersion ?? 'not started'}`,
  ];
}

/** p50 (p99) of a summary, for the breakdown lines. */
const p50p99 = (summary) => `${ms(summary.p50)} (p99 ${ms(summary.p99)})`;

function details() {
  const lines = [];
  const r = results;
  if (r.hook && r.bare) {
    lines.push(`- 1: median hook − median \`node -e 0\` = ${ms(r.hook.p50 - r.bare.p50)}; ratio of the medians ${(r.hook.p50 / r.bare.p50).toFixed(2)}×. The same request from an already running process takes ${p50p99(r.roundTrip)}: the rest is the hook's own start.`);
  }
  if (r['http.click'] && r['command.click']) {
    lines.push(`- 2 and 2c side by side: the command hook takes ${(r['command.click'].p50 / r['http.click'].p50).toFixed(1)}× as long as the http hook at the median (${(r['command.click'].p99 / r['http.click'].p99).toFixed(1)}× at p99). In parts: mouse button release sent → click event in the page ${p50p99(r.dispatch)}; click event → daemon logs the answer ${p50p99(r.clickEventToAnswered)}; → decision body received (http) ${p50p99(r['http.answeredToDecision'])}, or on the hook's stdout (command) ${p50p99(r['command.answeredToDecision'])} and hook exit ${p50p99(r['command.answerToExit'])} later.`);
  }
  if (r['http.visible'] && r['command.visible']) {
    lines.push(`- 3 and 3c side by side: the command hook takes ${(r['command.visible'].p50 / r['http.visible'].p50).toFixed(1)}× as long as the http hook at the median (${(r['command.visible'].p99 / r['http.visible'].p99).toFixed(1)}× at p99). In parts: POST → daemon logs the question ${p50p99(r['http.startToReceived'])} (http), hook spawn → daemon logs it ${p50p99(r['command.startToReceived'])} (command; Node's own start is row 1b); → card in the page ${p50p99(r['http.receivedToVisible'])} (http), ${p50p99(r['command.receivedToVisible'])} (command). Card times come from a MutationObserver on the page's clock, corrected by the measured Chromium − Node offset ${r.clock.offset.toFixed(2)} ms (±${(r.clock.rtt / 2).toFixed(2)} ms); daemon log times are whole ms.`);
  }
  if (r.rss) lines.push(`- 4: RSS peak (VmHWM) ${r.hwm.toFixed(1)} MB; slowest of the ${COUNTS.clients} clients per question: ${p50p99(r.broadcastWorst)}.`);
  if (r.transferFiles) lines.push(`- 6: ${Object.entries(r.transferFiles).map(([path, bytes]) => `${path} ${bytes} B`).join(', ')} (headers + body; WebSocket frames not counted).`);
  for (const error of errors) lines.push(`- ERROR: ${error}`);
  return lines;
}

// ---------------------------------------------------------------------------------------------

let interrupted = false;

async function section(name, fn) {
  if (interrupted) return;
  log(`${name}…`);
  const started = Date.now();
  try {
    await fn();
  } catch (error) {
    errors.push(`${name}: ${/** @type {Error} */ (error).stack ?? /** @type {Error} */ (error).message}`);
  }
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main() {
  readFileSync(new URL('../dist/cli/main.js', import.meta.url)); // a clear error when not built
  const loadAtStart = { load: loadavg(), pressure: cpuPressureTotal(), at: Date.now() };

  // The startup timings first, on a machine with nothing else of ours running.
  await section('5 daemon start → ready', benchStartup);

  if (interrupted) return 130;
  const daemon = await startDaemon({ config: DAEMON_CONFIG });
  // Before the browser exists, so no page renders the policy's answers meanwhile.
  await section('1 hook overhead', () => benchHookOverhead(daemon));
  await section('7 CLI start', () => benchCli(daemon));

  if (interrupted) return 130;
  // Our signal handler closes the browser with everything else; Playwright's own would exit mid-cleanup.
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  onCleanup(() => browser.close());
  const browserVersion = browser.version();
  await section('6 page transfer', () => benchTransfer(browser, daemon));
  await section('2+3 page answers', () => benchPage(browser, daemon));
  await browser.close();
  await daemon.stop();

  await section('4 pending questions + clients', benchLoad);

  const table = ['| # | figure | n | median | spread | p99 | target | |', '|---|---|---:|---:|---|---:|---|:-:|', ...rows()];
  console.log([...machine(browserVersion, loadAtStart), '', ...table, '', ...details()].join('\n'));
  return errors.length === 0 ? 0 : 1;
}

let exitCode = 1;
let cleaningUp;
for (const signal of ['SIGINT', 'SIGTERM']) {
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
  if (!interrupted) process.stderr.write(`bench failed: ${/** @type {Error} */ (error).stack ?? /** @type {Error} */ (error).message}\n`);
} finally {
  // Once interrupted, only the signal handler may end the process, after its cleanup.
  if (interrupted) await cleaningUp;
  await runCleanups();
}
process.exit(exitCode);
