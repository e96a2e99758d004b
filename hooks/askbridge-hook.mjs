#!/usr/bin/env node
// askbridge's PreToolUse hook for Claude Code's AskUserQuestion.
//
// Reads the hook payload on stdin, hands it to the askbridge daemon, waits for the answer, and
// prints the decision JSON on stdout. stdout is a protocol: exactly one JSON document, or nothing.
// It fails open: whatever goes wrong (no daemon, refused, bad input, killed), it prints nothing and
// exits 0, so Claude Code shows its own dialog. It never exits 2 and never invents an answer.
//
// Dependency-free and small on purpose: it starts on every question, so it loads only Node built-ins.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const MAX_STDIN_BYTES = 8 * 1024 * 1024;
/** The daemon confirms at once that it holds the question; no confirmation in time means it is not there. */
const ACCEPT_TIMEOUT_MS = 1000;
/** Environment variables that tell the daemon whether anybody is watching this session. */
const FORWARDED_ENV = ['ASKBRIDGE_UNATTENDED', 'CI', 'CLAUDE_CODE_SESSION_ATTENDED', 'CLAUDE_CODE_ENTRYPOINT'];

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

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    process.stdin.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_STDIN_BYTES) reject(new Error('hook input too large'));
      else chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
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

/** A decision Claude Code can act on; anything else (an empty answers map above all) is not printed. */
function isUsableOutput(output) {
  const decision = output?.hookSpecificOutput;
  if (decision?.hookEventName !== 'PreToolUse') return false;
  if (decision.permissionDecision === 'deny') return typeof decision.permissionDecisionReason === 'string';
  if (decision.permissionDecision !== 'allow') return false;
  const answers = decision.updatedInput?.answers;
  return typeof answers === 'object' && answers !== null && Object.keys(answers).length > 0 && Array.isArray(decision.updatedInput.questions);
}

function ask(daemon, body) {
  const req = request({
    host: '127.0.0.1',
    port: daemon.port,
    method: 'POST',
    path: '/api/hook/questions',
    agent: false,
    headers: {
      authorization: `Bearer ${daemon.token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  activeRequest = req;
  const acceptTimer = setTimeout(() => {
    req.destroy();
    passThrough('daemon did not accept the question in time');
  }, ACCEPT_TIMEOUT_MS);

  req.on('error', (error) => passThrough(`daemon unreachable: ${error.message}`));
  req.on('response', (res) => {
    if (res.statusCode !== 200) {
      clearTimeout(acceptTimer);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => passThrough(`daemon answered ${res.statusCode}: ${text.slice(0, 500)}`));
      return;
    }
    let buffered = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        onEvent(JSON.parse(line));
      }
    });
    res.on('end', () => passThrough('daemon closed the connection without an answer'));
    res.on('error', () => passThrough('connection to the daemon lost'));
  });
  req.end(body);

  function onEvent(event) {
    if (event.event === 'accepted') {
      clearTimeout(acceptTimer);
      return;
    }
    if (event.event !== 'settled') return;
    if (!event.hookOutput) passThrough(`no answer (${event.status}): the terminal asks`);
    if (!isUsableOutput(event.hookOutput)) passThrough('daemon sent an unusable decision');
    process.stdout.write(JSON.stringify(event.hookOutput), () => process.exit(0));
  }
}

async function main() {
  if (process.stdin.isTTY) passThrough('stdin is a terminal: this hook is run by Claude Code');
  const payload = JSON.parse(await readStdin());
  const questions = payload?.tool_input?.questions;
  if (payload?.tool_name !== 'AskUserQuestion' || !Array.isArray(questions) || questions.length === 0) {
    passThrough('not an AskUserQuestion call with questions');
  }
  const environment = {};
  for (const name of FORWARDED_ENV) if (process.env[name] !== undefined) environment[name] = process.env[name];
  ask(findDaemon(process.env), JSON.stringify({ payload, environment }));
}

// Esc in Claude Code, or its hook timeout, sends SIGTERM: closing the connection withdraws the
// question. Installed first, so that a signal at any moment still ends in a quiet exit 0.
let activeRequest;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    activeRequest?.destroy();
    passThrough(`${signal}: question withdrawn`);
  });
}
process.on('uncaughtException', (error) => passThrough(error.message));
main().catch((error) => passThrough(error.message));
