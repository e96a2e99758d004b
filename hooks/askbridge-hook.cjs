#!/usr/bin/env node
// @ts-check
// askbridge's command hook for every event Claude Code hands it, as its http hook carries them: PreToolUse
// for AskUserQuestion, PermissionRequest, Stop, UserPromptSubmit, Notification, Elicitation (an MCP
// server asks for input) and SessionEnd; with
// `--agent codex`, Codex CLI's PermissionRequest hook (the daemon answers in Codex's format).
//
// Reads the hook payload on stdin, hands it to the askbridge daemon, waits for the answer, and
// prints the decision JSON on stdout. stdout is a protocol: exactly one JSON document, or nothing.
// The end of a turn, a prompt typed and Claude Code's idle notification matter only while the person
// is away (they said so on the page or with `askbridge away on`), or, the first two, while the
// daemon holds an MCP request of that session (they say it moved on): otherwise the hook reads that in
// the state directory and leaves at once, so a turn's end costs little more than starting Node.
// While it waits it checks that Claude Code itself still runs (CLAUDE_PID): when it is gone, so is
// the session, and its questions are withdrawn. As a SessionEnd hook it tells the daemon the same.
// As Codex's hook it checks the same of the Codex TUI that asked (watchCodex).
// It fails open: whatever goes wrong (no daemon, refused, bad input, killed), it prints nothing and
// exits 0, so Claude Code shows its own dialog. It never exits 2 and never invents an answer.
//
// It trusts nothing it has not checked. Whatever listens on the daemon's port must first prove it
// holds the token (a signed reply to a fresh nonce); the token itself never leaves this process,
// every line the daemon sends back is signed, and a decision is printed only when it answers this
// very payload with its own questions. See src/daemon/hook-identity.ts.
//
// Daemons sharing a store sit behind one front (docs/shared-store.md). When the daemon that took a
// question stays unreachable for FRONT_AFTER_MS (killed with its keeper, its machine's daemon gone
// for good; a keeper's restart is back long before), the question goes to that front as Claude Code's
// http hook would send it, with the hook key, and another daemon holds it. Only over https verified
// as Node verifies it, to the publicUrl that daemon wrote, never a loopback one: the key goes nowhere else.
//
// Dependency-free and small on purpose: it starts on every question, so it loads only Node built-ins,
// as CommonJS (Node loads that measurably faster than an ES module).
'use strict';
const { connect } = require('node:net');
const { createHash, createHmac, randomBytes, timingSafeEqual } = require('node:crypto');
const { fstatSync, readdirSync, readFileSync, readlinkSync, readSync } = require('node:fs');
const { homedir, hostname } = require('node:os');
const { basename, join, resolve } = require('node:path');

const MAX_STDIN_BYTES = 8 * 1024 * 1024;
/**
 * From connecting to the signed `accepted` line. A healthy daemon answers in milliseconds, but many
 * hooks starting at once on a busy machine can keep it from running for seconds; an impostor that
 * never answers costs this much, never Claude Code's whole hook timeout.
 */
const HANDSHAKE_TIMEOUT_MS = 15_000;
/**
 * The hook's own deadline: the daemon's wait (from the `accepted` line, or a later `extended` one
 * when a person who is answering got more time) and this much more.
 */
const DEADLINE_MARGIN_MS = 10_000;
/** A daemon's response head is a few hundred bytes; anything that sends this much without one is not askbridge. */
const MAX_HEAD_BYTES = 16 * 1024;
/** After a dropped connection, how soon to look for a daemon again. */
const RETRY_MS = 250;
/** Claude Code gives a SessionEnd hook 1.5 s: the daemon is told within this, or not at all. */
const SESSION_END_BUDGET_MS = 1200;
/** How often a waiting hook checks that its agent still runs (Claude Code: CLAUDE_PID; Codex: its TUI). */
const AGENT_CHECK_MS = 2000;
/** Environment variables that tell the daemon whether anybody is watching this session: a copy of HOOK_ENV (src/http-hook.ts), pinned to it by a test. */
const FORWARDED_ENV = ['CI', 'ASKBRIDGE_UNATTENDED', 'CLAUDE_CODE_SESSION_ATTENDED', 'CLAUDE_CODE_ENTRYPOINT'];
/** The agents that run this hook: a copy of HOOK_AGENTS (src/protocol.ts), pinned to it by a test. The first is the default. */
const AGENTS = ['claude-code', 'codex'];
/** Where the daemon keeps whether the person is away, in the state directory: a copy of paths.away (src/state-dir.ts), pinned by a test. */
const AWAY_FILE = 'away.json';
/** Where the daemon lists the sessions whose MCP request this hook holds: a copy of paths.heldElicitations (src/state-dir.ts), pinned by a test. */
const HELD_ELICITATIONS_FILE = 'held-elicitations.json';
/** The events that matter only while the person is away, or while their session's MCP request is held (they say it moved on). */
const ONLY_WHILE_AWAY = ['Stop', 'UserPromptSubmit'];
/** Each event this hook hands over, and where Claude Code's http hook posts it: copies of src/http-hook.ts's paths, pinned by a test. */
const HTTP_HOOK_PATHS = {'PreToolUse': '/api/hook/ask', 'PermissionRequest': '/api/hook/permission', 'Stop': '/api/hook/stop', 'UserPromptSubmit': '/api/hook/prompt', 'Notification': '/api/hook/notification', 'Elicitation': '/api/hook/elicitation'};
/** The http hook's headers (src/http-hook.ts), pinned by a test: the hook key, this machine, Claude Code's limit on replies in a row. */
const HOOK_KEY_HEADER = 'x-askbridge-hook-key';
const MACHINE_HEADER = 'x-askbridge-machine';
const STOP_CAP_HEADER = 'x-askbridge-stop-block-cap';
/** The forwarded variables an http hook carries in headers (HTTP_HOOK_ENV and envHeader in src/http-hook.ts), pinned by a test. */
const ENV_HEADERS = {'CI': 'x-askbridge-env-ci', 'ASKBRIDGE_UNATTENDED': 'x-askbridge-env-askbridge-unattended'};
/** Where the daemon keeps the hook key, in the state directory: a copy of paths.hookKey (src/state-dir.ts), pinned by a test. */
const HOOK_KEY_FILE = 'hook-key';
/**
 * After the daemon took the question, how long it must stay unreachable before the question goes to
 * the front: a keeper restarts a crashed daemon within a second or two, and the hook must be back
 * there then (its question waits on disk), never on another daemon.
 */
const FRONT_AFTER_MS = 5000;
/** How soon to ask the front again when no daemon behind it could take the question yet. */
const FRONT_RETRY_MS = 1000;
/**
 * The front's replies that mean "not yet": no daemon behind it answers (502 to 504), or the one it
 * reached still shows the gone daemon's ask as that daemon's (409), until the store sees it gone.
 */
const FRONT_NOT_YET = [409, 502, 503, 504];
/** Connection failures on the way to the front that may pass (it restarts, the network blinks); any other, a TLS one above all, ends the hook. */
const FRONT_TRANSIENT_ERRORS = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'];

const debug = process.env.ASKBRIDGE_DEBUG === '1';

/** Give up quietly: Claude Code then asks in the terminal. */
function passThrough(reason) {
  if (debug && reason) process.stderr.write(`askbridge hook: ${reason}\n`);
  process.exit(0);
}

function stateDir(env) {
  if (env.ASKBRIDGE_HOME) return env.ASKBRIDGE_HOME;
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'askbridge');
}

/**
 * All of stdin: Claude Code writes the payload and closes it. Read straight from file descriptor 0,
 * since setting up process.stdin costs more than the read itself; a non-blocking stdin (some
 * parent made it so) is read through the stream instead.
 */
async function readStdin() {
  const chunks = [];
  const chunk = Buffer.allocUnsafe(64 * 1024);
  let size = 0;
  for (;;) {
    let read;
    try {
      read = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code;
      if (code === 'EAGAIN') return readStdinStream(chunks, size);
      if (code === 'EOF') break;
      throw error;
    }
    if (read === 0) break;
    size += read;
    if (size > MAX_STDIN_BYTES) throw new Error('hook input too large');
    chunks.push(Buffer.from(chunk.subarray(0, read)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readStdinStream(chunks, size) {
  return new Promise((resolve, reject) => {
    process.stdin.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_STDIN_BYTES) reject(new Error('hook input too large'));
      else chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

/** Whether the person said they are away, as the daemon keeps it; anything unreadable is not away. */
function isAway(env) {
  try {
    return JSON.parse(readFileSync(join(stateDir(env), AWAY_FILE), 'utf8'))?.away === true;
  } catch {
    return false;
  }
}

/** Whether the daemon holds an MCP request of this session for the command hook; anything unreadable is no. */
function holdsElicitation(env, sessionId) {
  try {
    const sessions = JSON.parse(readFileSync(join(stateDir(env), HELD_ELICITATIONS_FILE), 'utf8'))?.sessions;
    return Array.isArray(sessions) && sessions.includes(sessionId);
  } catch {
    return false;
  }
}

/** daemon.json says where the running daemon listens; ASKBRIDGE_PORT stands in when it is missing. */
function findDaemon(env) {
  const dir = stateDir(env);
  const token = readFileSync(join(dir, 'token'), 'utf8').trim();
  let port;
  try {
    port = JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')).port;
  } catch {
    port = Number(env.ASKBRIDGE_PORT);
  }
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error('no daemon.json and no usable ASKBRIDGE_PORT');
  return { port, token };
}

const mac = (token, ...parts) => createHmac('sha256', token).update(parts.join('\n')).digest('base64url');
const sameMac = (a, b) => typeof a === 'string' && Buffer.byteLength(a) === Buffer.byteLength(b) && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A request signed for `purpose` (`question`, `session-end`) with the two nonces of its hello. */
function signed(token, purpose, daemonNonce, hookNonce, body) {
  return `AskBridge-HMAC nonce=${daemonNonce}, hook=${hookNonce}, mac=${mac(token, `askbridge ${purpose}`, daemonNonce, hookNonce, createHash('sha256').update(body).digest('base64url'))}`;
}

/**
 * POST over a plain socket, as HTTP/1.0: the daemon then sends the body as it is (no chunked
 * encoding) and closes when done, so this is all the HTTP a hook needs, without node:http's cost
 * at start. `onBody` gets the body as it arrives, `onEnd` when the daemon has closed, `fail` why
 * the connection failed (a refusal other than 503 ends the hook at once).
 */
function post(daemon, path, headers, text, { onBody, onEnd, fail }) {
  const socket = connect(daemon.port, '127.0.0.1');
  socket.setEncoding('utf8');
  const lines = [`POST ${path} HTTP/1.0`, `host: 127.0.0.1:${daemon.port}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(text)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${text}`));
  socket.on('error', (error) => fail(`daemon unreachable: ${error.message}`));
  let head = '';
  let status;
  let refusal = '';
  const body = (chunk) => {
    if (status === 200) onBody(chunk);
    else refusal += chunk;
  };
  socket.on('data', (chunk) => {
    if (status !== undefined) return body(chunk);
    head += chunk;
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_HEAD_BYTES) passThrough(`no HTTP response from port ${daemon.port}: not askbridge on that port`);
      return;
    }
    status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(head)?.[1]);
    if (!Number.isInteger(status)) passThrough(`no HTTP response from port ${daemon.port}: not askbridge on that port`);
    if (status === 503) return fail(`the daemon cannot take it now (503 to ${path})`);
    body(head.slice(end + 4));
  });
  socket.on('end', () => {
    if (status === undefined) return fail('the daemon closed the connection before it answered');
    if (status === 200) return onEnd();
    if (status !== 503) passThrough(`daemon answered ${status} to ${path}: ${refusal.slice(0, 500)}`);
  });
  return socket;
}

/** The daemon proves it holds the token, for this nonce, before anything else is sent; then `proven` gets its nonce. */
function sayHello(daemon, hookNonce, fail, proven) {
  let text = '';
  return post(daemon, '/api/hook/hello', {}, JSON.stringify({ nonce: hookNonce }), {
    fail,
    onBody: (chunk) => (text += chunk),
    onEnd: () => {
      let hello;
      try {
        hello = JSON.parse(text);
      } catch {
        passThrough('the hello reply is not JSON: not askbridge on that port');
      }
      if (typeof hello?.nonce !== 'string' || !sameMac(hello.proof, mac(daemon.token, 'askbridge hello', hookNonce, hello.nonce))) {
        passThrough('whatever listens on the daemon port could not prove it is askbridge: nothing was sent to it');
      }
      proven(hello.nonce);
    },
  });
}

/**
 * Tells the daemon that a session ended (`body`: the session id, the event and why), signed after a
 * hello: every question of it still waiting is withdrawn. `done` is called once, with what happened.
 */
function endSession(body, done) {
  let daemon;
  try {
    daemon = findDaemon(process.env);
  } catch (error) {
    return done(String(/** @type {Error} */ (error).message));
  }
  const hookNonce = randomBytes(18).toString('base64url');
  const text = JSON.stringify(body);
  sayHello(daemon, hookNonce, done, (daemonNonce) => {
    post(daemon, '/api/hook/session-end', { authorization: signed(daemon.token, 'session-end', daemonNonce, hookNonce, text) }, text, {
      fail: done,
      onBody: () => {},
      onEnd: () => done('the daemon withdrew the session\'s questions'),
    });
  });
}

/** Whether the process still runs (EPERM: it does, as another user). */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
  // A zombie has exited, only its parent has not reaped it yet (a terminal multiplexer may take its
  // time): Linux says so in /proc; elsewhere a live pid is taken as alive.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true;
  }
}

/**
 * While the hook waits: Claude Code itself (CLAUDE_PID) must still run. Killed outright, it cannot
 * end its hooks or run SessionEnd, and nobody would read an answer: the daemon is told the session
 * ended, and the hook leaves quietly (closing its connection withdraws the question, if telling failed).
 */
function watchClaude(sessionId) {
  const pid = Number(process.env.CLAUDE_PID);
  if (!Number.isInteger(pid) || pid <= 1) return;
  const check = setInterval(() => {
    if (isAlive(pid)) return;
    clearInterval(check);
    const leave = (reason) => {
      activeSocket?.destroy();
      passThrough(`Claude Code (pid ${pid}) has exited: ${reason}`);
    };
    setTimeout(() => leave('the daemon did not take the session end in time'), SESSION_END_BUDGET_MS);
    endSession({ session_id: sessionId, hook_event_name: 'SessionEnd', reason: 'claude-exited' }, leave);
  }, AGENT_CHECK_MS);
  check.unref();
}

/**
 * While a Codex hook waits, the Codex TUI that asked must still run. Codex names no process: it runs
 * its hooks in its app-server. A TUI of its own (`features.daemon_auto_start = false`), or an editor's
 * over stdio, ends with its client and leaves the hook orphaned: its parent is watched. Plain `codex`
 * shares one app-server between its TUIs (`codex app-server --managed-daemon`), which outlives them:
 * a TUI that exits (its terminal closed) leaves its turn and this hook waiting, the thread stays
 * loaded, and the app-server tells neither its hooks nor its clients who left. So the hook looks for
 * the TUIs themselves (codexTuis) and waits while one of them runs. Either way, when the TUI is gone
 * nobody would read an answer: the hook leaves quietly, closing its connection withdraws the
 * question, and Codex asks in its own dialog whoever comes back to the thread.
 */
function watchCodex(cwd) {
  const parent = process.ppid;
  const tuis = isSharedAppServer(parent) ? codexTuis(cwd) : [];
  const check = setInterval(() => {
    const orphaned = process.ppid !== parent || !isAlive(parent);
    if (!orphaned && (tuis.length === 0 || tuis.some((tui) => startTime(tui.pid) === tui.start))) return;
    clearInterval(check);
    activeSocket?.destroy();
    passThrough(orphaned ? `Codex (pid ${parent}) has exited: question withdrawn` : `Codex's TUI (pid ${tuis.map((tui) => tui.pid).join(', ')}) has exited: question withdrawn`);
  }, AGENT_CHECK_MS);
  check.unref();
}

/** A process's arguments, from /proc; empty where there is none to read. */
function argumentsOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return [];
  }
}

/** Whether `pid` is Codex's shared app-server, which serves every TUI of its Codex home and outlives them. */
function isSharedAppServer(pid) {
  const args = argumentsOf(pid);
  return args.includes('app-server') && args.includes('--managed-daemon');
}

/** When a process started (field 22 of /proc/PID/stat, so that a reused pid is another process); undefined once it has exited. */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** The folder Codex uses, from an environment (CODEX_HOME, else ~/.codex); undefined without one. */
function codexHomeOf(env) {
  if (env.CODEX_HOME) return resolve(env.CODEX_HOME);
  return env.HOME ? join(env.HOME, '.codex') : undefined;
}

/**
 * The Codex TUIs that may have asked: this user's Codex processes (Linux's /proc) in a terminal, with
 * the app-server's Codex home (one shared app-server serves a home). Of those, the ones working in the
 * payload's folder (`-C`/`--cd`, else where they run), when any is; else every one. Some may not have
 * asked (two TUIs in one folder): the question then stays until both are gone, never leaves early.
 * None found (no /proc, or a TUI on another machine): only the parent is watched.
 */
function codexTuis(cwd) {
  const home = codexHomeOf(process.env);
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const tuis = [];
  for (const pid of pids) {
    try {
      if (!basename(readlinkSync(`/proc/${pid}/exe`)).startsWith('codex')) continue;
      if (!/^\/dev\/(pts\/|tty)/.test(readlinkSync(`/proc/${pid}/fd/0`))) continue;
      const env = Object.fromEntries(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
      if (home === undefined || codexHomeOf(env) !== home) continue;
      const start = startTime(pid);
      if (start !== undefined) tuis.push({ pid: Number(pid), start, root: workingRoot(pid) });
    } catch {
      // another user's, or gone meanwhile
    }
  }
  const here = tuis.filter((tui) => tui.root === cwd);
  return here.length > 0 ? here : tuis;
}

/** Where a Codex TUI works: its `-C DIR`/`--cd DIR`, from the folder it runs in. */
function workingRoot(pid) {
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  const args = argumentsOf(pid);
  for (const [at, arg] of args.entries()) {
    const next = args[at + 1];
    if ((arg === '-C' || arg === '--cd') && next !== undefined) return resolve(cwd, next);
    if (arg.startsWith('--cd=')) return resolve(cwd, arg.slice('--cd='.length));
    if (arg.startsWith('-C') && arg.length > 2) return resolve(cwd, arg.slice(2));
  }
  return cwd;
}

/**
 * What stdout may carry for Claude Code: exactly one JSON object, and one that answers this payload
 * (where it names its event, it is this payload's), and nothing else.
 */
function answersPayload(text, payload) {
  try {
    const value = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    return value.hookSpecificOutput === undefined || value.hookSpecificOutput?.hookEventName === payload.hook_event_name;
  } catch {
    return false;
  }
}

/** Whether a host name is this machine's own: the front is never one of them. */
function isLoopbackHost(name) {
  return name === 'localhost' || name.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(name) || /^\[(::1|::|::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4})\]$/i.test(name) || name === '0.0.0.0';
}

/**
 * The front the daemon named (daemon.json's publicUrl, which every daemon sharing a store names) and
 * this state directory's hook key; undefined unless the address is https and not loopback, the key
 * is there, and the agent is Claude Code (the http hook answers in its format).
 */
function findFront(env, agent) {
  if (agent !== 'claude-code') return undefined;
  try {
    const dir = stateDir(env);
    const url = new URL(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')).publicUrl);
    if (url.protocol !== 'https:' || isLoopbackHost(url.hostname)) return undefined;
    const key = readFileSync(join(dir, HOOK_KEY_FILE), 'utf8').trim();
    return key === '' ? undefined : { url, key };
  } catch {
    return undefined;
  }
}

/**
 * One question, from the hello to the printed decision. A connection that drops after the daemon
 * accepted the question (the daemon was killed, and restarts with the question kept on disk) is
 * retried until the hook's own deadline: the same question re-attaches and one answer arrives.
 * When the daemon stays away (FRONT_AFTER_MS) and names a front, the question goes there instead,
 * for good. Before the daemon accepted it, any failure means no daemon: the terminal asks at once.
 * `request`: what the daemon is handed (the payload, the forwarded environment, the agent, the stop cap).
 */
function ask(request) {
  const body = JSON.stringify(request);
  let deadlineAt;
  let deadlineTimer;
  /** Why the last connection failed, and since when, while no daemon has taken the question back since. */
  let unreachable;
  let unreachableSince;
  const handshake = setTimeout(() => passThrough('the daemon did not answer in time (an impostor on its port, or a stuck daemon)'), HANDSHAKE_TIMEOUT_MS);
  attempt();

  /**
   * The daemon said how long it waits now: the hook waits that long and its margin. The deadline only
   * ever moves later: a re-attach after a daemon restart, or a lost `extended` line, never shortens it.
   */
  function waitFor(waitMs) {
    const at = Date.now() + (Number.isFinite(waitMs) ? Math.max(0, waitMs) : 0) + DEADLINE_MARGIN_MS;
    if (deadlineAt !== undefined && at <= deadlineAt) return;
    deadlineAt = at;
    clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(() => {
      activeSocket?.destroy();
      // Whichever comes first at the deadline, this timer or the last retry's failure, says the same.
      passThrough(unreachable === undefined ? 'no answer by the deadline: question withdrawn' : `${unreachable}; no daemon came back before the deadline`);
    }, deadlineAt - Date.now());
  }

  /**
   * A connection failed: before the question was accepted the terminal asks; after, try again until
   * the deadline, through the front once the daemon has been away FRONT_AFTER_MS and names one.
   */
  function dropped(reason) {
    if (deadlineAt === undefined) passThrough(reason);
    unreachable = reason;
    unreachableSince ??= Date.now();
    if (Date.now() + RETRY_MS >= deadlineAt) passThrough(`${reason}; no daemon came back before the deadline`);
    const front = Date.now() - unreachableSince >= FRONT_AFTER_MS ? findFront(process.env, request.agent) : undefined;
    if (front) return askFront(front);
    setTimeout(attempt, RETRY_MS);
  }

  /**
   * The question, sent to the front as Claude Code's http hook sends it, and held there until a daemon
   * behind it settles it: its reply is printed when it answers this payload (an empty one: nothing).
   * Tried again while no daemon there can take it, until the deadline; never back to the local daemon.
   */
  function askFront(front) {
    const { payload, environment, stopCap } = request;
    const text = JSON.stringify(payload);
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      [HOOK_KEY_HEADER]: front.key,
      // Header values travel as bytes: the name's UTF-8, as the daemon reads it.
      [MACHINE_HEADER]: Buffer.from(hostname()).toString('latin1'),
    };
    for (const [name, header] of Object.entries(ENV_HEADERS)) if (environment[name] !== undefined) headers[header] = environment[name];
    if (stopCap !== undefined) headers[STOP_CAP_HEADER] = stopCap;
    let failed = false;
    const notYet = (reason) => {
      if (failed) return;
      failed = true;
      unreachable = reason;
      if (Date.now() + FRONT_RETRY_MS >= deadlineAt) passThrough(`${reason}; no daemon behind the front took it before the deadline`);
      if (debug) process.stderr.write(`askbridge hook: ${reason}; asking the front again\n`);
      setTimeout(() => askFront(front), FRONT_RETRY_MS);
    };
    const broken = (error) => {
      const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? '';
      if (FRONT_TRANSIENT_ERRORS.includes(code)) return notYet(`the front is unreachable: ${error.message}`);
      passThrough(`the front ${front.url.host} cannot be used: ${error.message}`);
    };
    // Loaded only here: node:https costs every other question its start.
    const sent = require('node:https').request(new URL(HTTP_HOOK_PATHS[payload.hook_event_name], front.url), { method: 'POST', headers, agent: false }, (response) => {
      let reply = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        reply += chunk;
        if (reply.length > MAX_STDIN_BYTES) passThrough('the front sent more than any decision');
      });
      response.on('error', broken);
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        if (FRONT_NOT_YET.includes(status)) return notYet(`the front answered ${status}`);
        if (status !== 200) passThrough(`the front answered ${status}: ${reply.slice(0, 500)}`);
        if (reply === '') passThrough('no answer through the front: the terminal asks');
        if (!answersPayload(reply, payload)) passThrough('the front sent a decision that does not answer this payload');
        process.stdout.write(reply, () => process.exit(0));
      });
    });
    sent.on('error', broken);
    sent.end(text);
    activeSocket = sent;
  }

  function attempt() {
    // One connection can fail in several ways at once (error, aborted, end): it counts once.
    let failed = false;
    const fail = (reason) => {
      if (failed) return;
      failed = true;
      dropped(reason);
    };
    let daemon;
    try {
      daemon = findDaemon(process.env); // read again: a restarted daemon has a new token and maybe a new port
    } catch (error) {
      return fail(String(/** @type {Error} */ (error).message));
    }
    const hookNonce = randomBytes(18).toString('base64url');

    // 1. The daemon proves it holds the token, for this nonce, before anything else is sent.
    activeSocket = sayHello(daemon, hookNonce, fail, sendQuestion);

    // 2. The question, signed; 3. signed lines back, each checked.
    function sendQuestion(daemonNonce) {
      let buffered = '';
      activeSocket = post(daemon, '/api/hook/questions', { authorization: signed(daemon.token, 'question', daemonNonce, hookNonce, body) }, body, {
        fail,
        onBody: (chunk) => {
          buffered += chunk;
          let newline;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            onLine(line, daemonNonce);
          }
        },
        onEnd: () => fail('daemon closed the connection without an answer'),
      });
    }

    function onLine(text, daemonNonce) {
      let line;
      let event;
      try {
        line = JSON.parse(text);
        if (typeof line.event !== 'string' || typeof line.body !== 'string') throw new Error('not a line');
        if (!sameMac(line.mac, mac(daemon.token, 'askbridge line', hookNonce, daemonNonce, line.event, line.body))) throw new Error('bad signature');
        event = JSON.parse(line.body);
      } catch (error) {
        passThrough(`a reply line that the daemon did not sign for this question (${/** @type {Error} */ (error).message}): ignored, the terminal asks`);
      }
      if (line.event === 'accepted' || line.event === 'extended') {
        unreachable = undefined;
        unreachableSince = undefined;
        clearTimeout(handshake);
        waitFor(event.waitMs);
        return;
      }
      if (line.event !== 'settled') return;
      // The daemon made the decision (a signed line, for this question): printed exactly as sent.
      if (typeof event.decision !== 'string' || event.decision === '') passThrough(`no answer (${event.status}): the terminal asks`);
      if (!answersPayload(event.decision, request.payload)) passThrough('the daemon sent a decision that does not answer this payload');
      process.stdout.write(event.decision, () => process.exit(0));
    }
  }
}

/** As a SessionEnd hook: tell the daemon, within Claude Code's budget, and print nothing either way. */
function sessionEnded(payload) {
  if (typeof payload.session_id !== 'string' || payload.session_id === '') passThrough('a SessionEnd payload without a session_id');
  setTimeout(() => passThrough('the daemon did not take the session end in time'), SESSION_END_BUDGET_MS);
  const reason = typeof payload.reason === 'string' ? payload.reason.slice(0, 200) : undefined;
  endSession({ session_id: payload.session_id, hook_event_name: 'SessionEnd', reason }, passThrough);
}

/** `--agent NAME` on the command line (install writes it for Codex); Claude Code without it. */
function agentArgument() {
  const at = process.argv.indexOf('--agent');
  if (at < 0) return AGENTS[0];
  const agent = process.argv[at + 1] ?? '';
  if (!AGENTS.includes(agent)) passThrough(`--agent must be one of ${AGENTS.join(', ')}`);
  return agent;
}

/**
 * What of the payload goes to the daemon: all of it, but for a typed prompt, of which the daemon
 * needs only whose session it was (the prompt itself stays here). Undefined: nothing to hand over.
 */
function handedOver(payload) {
  const event = payload?.hook_event_name;
  if (event === 'SubagentStop') return undefined; // a subagent's end is never held
  // A prompt typed or a turn's end while the session's MCP request waits says the session moved on: the daemon lets the request go.
  const movedOnFromHeld = ONLY_WHILE_AWAY.includes(event) && holdsElicitation(process.env, payload.session_id);
  if (!movedOnFromHeld && (ONLY_WHILE_AWAY.includes(event) || (event === 'Notification' && payload.notification_type === 'idle_prompt'))) {
    if (!isAway(process.env)) return undefined;
  }
  if (event === 'UserPromptSubmit') return { session_id: payload.session_id, hook_event_name: event };
  if (event === 'PreToolUse') {
    const questions = payload?.tool_input?.questions;
    if (payload?.tool_name !== 'AskUserQuestion' || !Array.isArray(questions) || questions.length === 0) return undefined;
  }
  return Object.hasOwn(HTTP_HOOK_PATHS, event) ? payload : undefined;
}

async function main() {
  const agent = agentArgument();
  if (fstatSync(0).isCharacterDevice()) passThrough('stdin is a terminal or a device: this hook is run by Claude Code, with its payload on stdin');
  const payload = JSON.parse(await readStdin());
  if (payload?.hook_event_name === 'SessionEnd') return sessionEnded(payload);
  const handed = handedOver(payload);
  if (handed === undefined) passThrough(`nothing to hand over for ${String(payload?.hook_event_name)} (not an AskUserQuestion call with questions; or not away)`);
  const environment = {};
  for (const name of FORWARDED_ENV) if (process.env[name] !== undefined) environment[name] = process.env[name];
  const stopCap = process.env.CLAUDE_CODE_STOP_HOOK_BLOCK_CAP;
  ask({ payload: handed, environment, agent, ...(stopCap === undefined ? {} : { stopCap: stopCap.slice(0, 20) }) });
  if (agent === 'claude-code') watchClaude(payload.session_id);
  else watchCodex(typeof payload.cwd === 'string' ? payload.cwd : undefined);
}

// Esc in Claude Code, or its hook timeout, sends SIGTERM: closing the connection withdraws the
// question. Installed first, so that a signal at any moment still ends in a quiet exit 0.
let activeSocket;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    activeSocket?.destroy();
    passThrough(`${signal}: question withdrawn`);
  });
}
process.on('uncaughtException', (error) => passThrough(error.message));
main().catch((error) => passThrough(error.message));
