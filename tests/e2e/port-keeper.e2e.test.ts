// Nothing else can take askbridge's port while it runs, crashes or restarts. The http hook trusts
// whatever answers on 127.0.0.1:PORT: a port let go after a crash could be taken by any local
// process, which would receive the next question and the hook key and answer in the person's place.
// `askbridge start` is a keeper that holds the port (or systemd does, through socket activation) and
// runs the daemon as its child: after a kill -9 or an out-of-memory abort of the daemon, the port
// stays held, and the next question reaches the daemon the keeper starts again.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createServer as createHttpServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { baseEnv } from '../stack/env.js';
import { isProcessAlive } from '../../src/state-dir.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { answerArgs, freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { becomeNeighbour, neighbourAvailability } from '../stack/neighbour.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { daemonGate, type DaemonGate } from '../stack/daemon-gate.js';
import { FRONT_NAME, opensslAvailability, selfSignedCertificate, throughFront } from '../stack/tls-front.js';
import { MAX_HELD_CONNECTIONS, MAX_HELD_PER_PEER } from '../../src/daemon/holding-pen.js';

const daemons: Daemon[] = [];
afterEach(async () => {
  await killStrayProcesses();
  for (const daemon of daemons.splice(0)) await daemon.stop();
});

async function started(options: Parameters<typeof startDaemon>[0] = {}): Promise<Daemon> {
  const daemon = await startDaemon(options);
  daemons.push(daemon);
  return daemon;
}

/** Whether this machine has an IPv6 loopback at all (a container may have none). */
const hasIpv6Loopback = await new Promise<boolean>((answer) => {
  const probe = createServer();
  probe.once('error', () => answer(false));
  probe.listen({ host: '::1', port: 0, ipv6Only: true }, () => probe.close(() => answer(true)));
});

/** What another local process gets when it tries to listen on HOST:PORT: an error code, or 'bound' (then it lets go at once). */
function tryToBind(host: '127.0.0.1' | '::1', port: number): Promise<string> {
  return new Promise((settle) => {
    const squatter: Server = createServer();
    squatter.once('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    squatter.listen({ host, port, ipv6Only: host === '::1' }, () => squatter.close(() => settle('bound')));
  });
}

async function expectPortHeld(port: number): Promise<void> {
  expect(await tryToBind('127.0.0.1', port)).toBe('EADDRINUSE');
  if (hasIpv6Loopback) expect(await tryToBind('::1', port)).toBe('EADDRINUSE');
}

async function expectPortFree(port: number): Promise<void> {
  expect(await tryToBind('127.0.0.1', port)).toBe('bound');
  if (hasIpv6Loopback) expect(await tryToBind('::1', port)).toBe('bound');
}

/**
 * The http hook's POST, as Claude Code sends it with the hook key, answered from the CLI: the
 * answer comes back as the decision, from the daemon that runs now.
 */
async function askAndAnswer(daemon: Daemon, tag: string): Promise<void> {
  const payload = freshPayload('01-single-select', tag);
  const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
  const question = await daemon.waitForAsk(payload.tool_use_id);
  const answered = await runCli(answerArgs(question.id, payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), daemon.env);
  expect(answered.code, answered.stderr).toBe(0);
  const { statusCode, body } = await hook.response;
  expect(statusCode).toBe(200);
  expect(JSON.parse(body)).toEqual(loadFixture('01-single-select.expected-allow.json'));
}

/** The keeper's line saying the daemon `pid` ended (how) and is started again, with the port held. */
function waitForRestart(daemon: Daemon, pid: number, how: RegExp): Promise<true> {
  const line = new RegExp(`the daemon \\(pid ${pid}\\) exited \\(${how.source}\\); .*restarting it .*; the port stays held`);
  return waitUntil(() => line.test(daemon.output().stderr) || undefined, 20_000, `the keeper to restart the daemon ${pid}`);
}

describe('the port while the daemon crashes', () => {
  it('stays held after a kill -9 of the daemon, on 127.0.0.1 and [::1], and the next http hook question reaches the restarted daemon', async () => {
    const daemon = await started();
    const killed = daemon.daemonPid();
    expect(killed).not.toBe(daemon.child.pid);
    process.kill(killed, 'SIGKILL');
    // At once, before the keeper has even noticed: nobody else can listen there.
    await expectPortHeld(daemon.port);
    // Posted while the daemon is down or coming back: held by the keeper, then served.
    await askAndAnswer(daemon, 'after-kill');
    expect(daemon.output().stderr).toMatch(new RegExp(`the daemon \\(pid ${killed}\\) exited \\(SIGKILL\\); restarting it at once; the port stays held`));
    expect(daemon.daemonPid()).not.toBe(killed);
    expect(isProcessAlive(killed)).toBe(false);
    const status = await runCli(['status', '--json'], daemon.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid: daemon.child.pid, daemonPid: daemon.daemonPid(), portHeldBy: 'keeper' });
    await expectPortHeld(daemon.port);
    // A second crash in a row is restarted too, after a short wait, and the port is still held.
    const second = daemon.daemonPid();
    process.kill(second, 'SIGKILL');
    await expectPortHeld(daemon.port);
    await askAndAnswer(daemon, 'after-second-kill');
    expect(daemon.output().stderr).toMatch(new RegExp(`the daemon \\(pid ${second}\\) exited \\(SIGKILL\\); 2 crashes in a row: restarting it in \\d+ ms; the port stays held`));
  });

  it('stays held after the daemon runs out of memory, and the next http hook question reaches the restarted daemon', async () => {
    // A small heap for the daemon alone (the keeper's own is untouched), and a limit on waiting
    // bytes far above it: what is under test is a crash, which the limits otherwise prevent.
    const daemon = await started({ env: { ASKBRIDGE_TEST_DAEMON_HEAP_MB: '48', ASKBRIDGE_TEST_WAITING_BYTES: String(1024 ** 3) } });
    const before = daemon.daemonPid();
    // Questions with large previews, each close to the largest tool input accepted, until the daemon aborts.
    const preview = 'x'.repeat(90_000);
    const big = (index: number) => {
      const payload = freshPayload('01-single-select', `flood-${index}`);
      const question = payload.tool_input.questions[0]!;
      for (const option of question.options) (option as { preview?: string }).preview = `${preview}${index}`;
      return payload;
    };
    const flood: Array<ReturnType<typeof postAsHttpHook>> = [];
    let index = 0;
    await waitUntil(
      () => {
        if (!isProcessAlive(before)) return true;
        for (let i = 0; i < 4; i++) {
          const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: big(index++) });
          hook.response.catch(() => undefined); // the daemon that held it died
          flood.push(hook);
        }
        return undefined;
      },
      60_000,
      'the daemon to run out of memory',
      50,
    );
    // Those still held by the keeper would flood the next daemon too: they go, as Claude Code's would at Esc.
    for (const hook of flood) hook.abort();
    // V8 aborts the process when its heap is exhausted: no clean stop.
    await waitForRestart(daemon, before, /SIGABRT|SIGTRAP|code \d+/);
    expect(daemon.logs().some((entry) => entry.pid === before && entry.msg === 'daemon crashed: stopping cleanly')).toBe(false);
    await expectPortHeld(daemon.port);
    await askAndAnswer(daemon, 'after-oom');
    expect(daemon.daemonPid()).not.toBe(before);
  }, 90_000); // filling a heap takes a while on a loaded machine
});

/**
 * Another user's program that opens COUNT connections to 127.0.0.1:PORT at once and sends nothing
 * on them; it prints how many the other end has closed so far, one line each time.
 */
const IDLE_FLOOD = `import { connect } from 'node:net';
let closed = 0;
for (let i = 0; i < Number(process.env.COUNT); i++) {
  const socket = connect(Number(process.env.PORT), '127.0.0.1');
  socket.on('error', () => {});
  socket.on('close', () => console.log('closed', ++closed));
  socket.resume();
}
`;
/** How many of its connections the flood says were closed so far. */
const closedOf = (flood: { output(): { stdout: string } }) => Number(/closed (\d+)\n$/.exec(flood.output().stdout)?.[1] ?? 0);

describe('connections the keeper holds while the daemon restarts', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  /** A daemon whose next start after a crash waits at a gate the test opens (tests/stack/daemon-gate.ts). */
  async function gatedDaemon(): Promise<{ daemon: Daemon; gate: DaemonGate }> {
    const gate = daemonGate();
    cleanups.push(() => gate.remove());
    return { daemon: await started({ env: gate.env }), gate };
  }
  /** Posts the http hook's question while no daemon serves; `dropped` says whether the keeper closed its connection. */
  async function postWhileDown(daemon: Daemon, tag: string) {
    const payload = freshPayload('01-single-select', tag);
    const hook = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
    let dropped = false;
    hook.response.catch(() => (dropped = true));
    await hook.sent;
    return { payload, response: hook.response, dropped: () => dropped };
  }
  async function answerHeld(daemon: Daemon, hook: Awaited<ReturnType<typeof postWhileDown>>) {
    const question = await daemon.waitForAsk(hook.payload.tool_use_id);
    const answered = await runCli(answerArgs(question.id, hook.payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    const { statusCode, body } = await hook.response;
    expect(statusCode).toBe(200);
    expect(JSON.parse(body)).toEqual(loadFixture('01-single-select.expected-allow.json'));
  }

  it.skipIf(!neighbourAvailability().available)(
    "answers a hook's question posted while the daemon restarts, though another user then opens 120 idle connections: that user has at most 16 held",
    async () => {
      const neighbour = becomeNeighbour();
      cleanups.push(() => neighbour.remove());
      const { daemon, gate } = await gatedDaemon();
      gate.close();
      process.kill(daemon.daemonPid(), 'SIGKILL');
      const hook = await postWhileDown(daemon, 'held-through-a-neighbour-flood');
      const count = 120;
      const flood = neighbour.run(IDLE_FLOOD, { PORT: String(daemon.port), COUNT: String(count) });
      cleanups.push(() => flood.child.kill('SIGKILL'));
      await waitUntil(() => (hook.dropped() || closedOf(flood) >= count - MAX_HELD_PER_PEER ? true : undefined), 20_000, "the keeper to close all but 16 of the neighbour's connections");
      expect(hook.dropped()).toBe(false);
      expect(closedOf(flood)).toBe(count - MAX_HELD_PER_PEER);
      await gate.open();
      await answerHeld(daemon, hook);
    },
  );

  it("answers a hook's question posted while the daemon restarts, though 100 idle connections follow it: past 64 held, idle ones are closed first", async () => {
    const { daemon, gate } = await gatedDaemon();
    gate.close();
    process.kill(daemon.daemonPid(), 'SIGKILL');
    const hook = await postWhileDown(daemon, 'held-through-an-idle-flood');
    // This user's own (as a program the keeper cannot tell from the hook would be): bounded only by the total.
    const count = 100;
    let closed = 0;
    const flood = Array.from({ length: count }, () => {
      const socket = connect(daemon.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => closed++);
      socket.resume();
      return socket;
    });
    cleanups.push(() => {
      for (const socket of flood) socket.destroy();
    });
    // All but 64 are closed: the hook's, which carries its request, is not among them.
    await waitUntil(() => (hook.dropped() || closed >= count + 1 - MAX_HELD_CONNECTIONS ? true : undefined), 20_000, 'the keeper to close the connections past 64');
    expect(hook.dropped()).toBe(false);
    expect(closed).toBe(count + 1 - MAX_HELD_CONNECTIONS);
    await gate.open();
    await answerHeld(daemon, hook);
  });
});

/** Another user's program that tries to listen on HOST:PORT: it prints `bound` (and keeps the port) or the error's code (and exits). */
const TAKE_PORT = `import { createServer } from 'node:net';
const server = createServer((socket) => socket.destroy());
server.once('error', (error) => console.log(error.code));
server.listen(Number(process.env.PORT), process.env.HOST, () => console.log('bound'));
`;

const openssl = opensslAvailability('the --listen port tests');

describe.skipIf(!openssl.available || !neighbourAvailability().available)('the --listen port while the daemon crashes', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('stays held by the keeper: another user cannot take it while the daemon is down, and a TLS client that connects meanwhile is served by the restarted daemon', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'askbridge-listen-held-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const certificate = selfSignedCertificate(dir);
    const port = await freePort();
    const neighbour = becomeNeighbour();
    cleanups.push(() => neighbour.remove());
    const gate = daemonGate();
    cleanups.push(() => gate.remove());
    const daemon = await started({
      env: gate.env,
      args: ['--listen', `127.0.0.1:${port}`, '--tls-cert', certificate.certPath, '--tls-key', certificate.keyPath, '--public-url', `https://${FRONT_NAME}:${port}`],
    });
    const lan = { port, ca: certificate.ca };
    expect((await throughFront(lan, { method: 'GET', path: '/api/session' })).status).toBe(401);

    gate.close();
    const killed = daemon.daemonPid();
    process.kill(killed, 'SIGKILL');
    await waitUntil(() => (isProcessAlive(killed) ? undefined : true), 10_000, 'the daemon to be gone');
    // No daemon runs now, and none will until the gate opens: the neighbour tries to take the port.
    const squatter = neighbour.run(TAKE_PORT, { HOST: '127.0.0.1', PORT: String(port) });
    cleanups.push(() => squatter.child.kill('SIGKILL'));
    expect(await waitUntil(() => squatter.output().stdout.trim() || undefined, 10_000, 'the neighbour to try the port')).toBe('EADDRINUSE');

    // A TLS client meanwhile: its connection waits in the keeper, then reaches the daemon started again.
    const meanwhile = throughFront(lan, { method: 'GET', path: '/api/session' });
    await gate.open();
    expect((await meanwhile).status).toBe(401);
    await waitForRestart(daemon, killed, /SIGKILL/);
  });
});

describe('stopping', () => {
  it('`askbridge stop` stops the keeper and the daemon: exit 0, the port free, daemon.json gone', async () => {
    const daemon = await started();
    const daemonPid = daemon.daemonPid();
    daemon.expectExit();
    const stop = await runCli(['stop'], daemon.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toBe('askbridge stopped\n');
    // It returned only once the keeper and its daemon had exited.
    expect(isProcessAlive(daemon.child.pid!)).toBe(false);
    expect(isProcessAlive(daemonPid)).toBe(false);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);
    expect(existsSync(join(daemon.home, 'daemon.lock'))).toBe(false);
    await expectPortFree(daemon.port);
  });

  it('SIGTERM to the keeper stops the daemon first, then lets go of the port: exit 0', async () => {
    const daemon = await started();
    const daemonPid = daemon.daemonPid();
    daemon.expectExit();
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
    expect(isProcessAlive(daemonPid)).toBe(false);
    expect(daemon.logs().some((entry) => entry.msg === 'stopping: waiting hooks hand their questions to the terminal')).toBe(true);
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);
    await expectPortFree(daemon.port);
  });

  it('a kill -9 of the keeper ends the daemon, which stops cleanly', async () => {
    const daemon = await started();
    const daemonPid = daemon.daemonPid();
    daemon.expectExit();
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    await waitUntil(() => (isProcessAlive(daemonPid) ? undefined : true), 10_000, 'the daemon to stop once its keeper is gone');
    await daemon.waitForLog((entry) => entry.msg === 'the keeper is gone: stopping', 1_000, 'the daemon saying why it stops');
    expect(existsSync(join(daemon.home, 'daemon.json'))).toBe(false);
  });
});

const SOCKET_ACTIVATE = '/usr/bin/systemd-socket-activate';

/** A port free now, for systemd-socket-activate to hold. */
function freePort(): Promise<number> {
  return new Promise((found) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => found(port));
    });
  });
}
/** systemd-socket-activate hands its command only the variables named with -E (and PATH, HOME, TERM). */
const passEnvironment = (env: NodeJS.ProcessEnv) => Object.keys(env).flatMap((name) => ['-E', name]);

describe.skipIf(!existsSync(SOCKET_ACTIVATE) && !process.env.CI)('socket activation (systemd-socket-activate)', () => {
  it('serves on the sockets it is passed, never binding, and keeps them across a kill -9 of the daemon', async () => {
    const port = await freePort();
    let firstRequest: Promise<number> | undefined;
    const listen = ['-l', `127.0.0.1:${port}`, ...(hasIpv6Loopback ? ['-l', `[::1]:${port}`] : [])];
    const daemon = await started({
      launcher: (env) => [SOCKET_ACTIVATE, ...listen, ...passEnvironment(env)],
      onSpawn: (child) => {
        // It runs the command on the first connection: this request is held and answered once the daemon serves.
        let stderr = '';
        const listening = (chunk: Buffer) => {
          stderr += chunk.toString();
          if (!stderr.includes(`Listening on 127.0.0.1:${port}`)) return;
          child.stderr!.off('data', listening);
          firstRequest = fetch(`http://127.0.0.1:${port}/api/status`, { headers: { connection: 'close' } }).then((response) => response.status);
        };
        child.stderr!.on('data', listening);
      },
    });
    expect(daemon.port).toBe(port);
    expect(await firstRequest).toBe(401); // askbridge's refusal: it had no token
    const info = JSON.parse(readFileSync(join(daemon.home, 'daemon.json'), 'utf8')) as { pid: number; portHeldBy: string };
    expect(info).toMatchObject({ pid: daemon.child.pid, portHeldBy: 'service' });
    await askAndAnswer(daemon, 'socket-activated');

    const killed = daemon.daemonPid();
    process.kill(killed, 'SIGKILL');
    await expectPortHeld(port);
    await askAndAnswer(daemon, 'socket-activated-after-kill');
    await waitForRestart(daemon, killed, /SIGKILL/);
  });

  it('refuses a socket beyond loopback: the daemon listens beyond loopback only with --listen and TLS', async () => {
    const port = await freePort();
    const refused = startDaemon({
      launcher: (env) => [SOCKET_ACTIVATE, '-l', `0.0.0.0:${port}`, ...passEnvironment(env)],
      onSpawn: (child) => {
        let stderr = '';
        const listening = (chunk: Buffer) => {
          stderr += chunk.toString();
          if (!stderr.includes(`Listening on 0.0.0.0:${port}`)) return;
          child.stderr!.off('data', listening);
          void fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
        };
        child.stderr!.on('data', listening);
      },
    });
    await expect(refused).rejects.toThrow(/the daemon exited \(1\) before printing its page link[\s\S]*askbridge start: the service manager passed sockets on 0\.0\.0\.0:\d+: askbridge takes only 127\.0\.0\.1:PORT and \[::1\]:PORT, on one port/);
  });
});

describe('the SessionStart hook (`askbridge start --background --quiet`) when another program holds the port', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function squatter(): Promise<{ port: number; requests: string[] }> {
    const requests: string[] = [];
    const server = createHttpServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.end('not askbridge');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    cleanups.push(() => new Promise((closed) => server.close(closed)));
    return { port: (server.address() as { port: number }).port, requests };
  }

  async function sessionHome(): Promise<NodeJS.ProcessEnv> {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-session-start-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    return baseEnv({ ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: join(home, 'xdg-config') });
  }

  it('prints exactly one JSON document that warns the person and tells Claude not to ask through askbridge, and exits 0', async () => {
    const { port, requests } = await squatter();
    const env = await sessionHome();
    const start = await runCli(['start', '--background', '--quiet', '--port', String(port)], env);
    expect(start.code).toBe(0);
    expect(start.stderr).toBe('');
    expect(start.stdout.endsWith('\n')).toBe(true);
    const taken = `another program holds 127.0.0.1:${port}, where this session's askbridge hooks send their questions and the hook key: it could read them and answer in your place`;
    expect(JSON.parse(start.stdout)).toStrictEqual({
      continue: false,
      stopReason: `askbridge: ${taken}. Stop that program and run \`${askbridgeCommand(env)} start\`, then start the session again.`,
      systemMessage: `askbridge: ${taken}. Stop that program and run \`${askbridgeCommand(env)} start\`, then start the session again; until then, do not answer questions through it.`,
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: `askbridge cannot be trusted in this session: another program holds 127.0.0.1:${port}, where askbridge's hooks send the user's questions. Do not call the AskUserQuestion tool in this session: ask the user in plain text instead, and tell them once that askbridge's port is taken by another program.`,
      },
    });
    // It only looked: nothing was sent to the program on the port.
    expect(requests).toEqual([]);
  });

  it('says why in one line (exit 1, nothing on stdout) when the start fails for another reason', async () => {
    const start = await runCli(['start', '--background', '--quiet', '--port', '0', '--public-url', 'ftp://example.test'], await sessionHome());
    expect(start.code).toBe(1);
    expect(start.stdout).toBe('');
    expect(start.stderr).toMatch(/^askbridge start: the public URL \(--public-url\) cannot be used: .*\n$/);
  });

  it('without --quiet (a person), says in one line that the port is in use, and exits 1', async () => {
    const { port } = await squatter();
    const start = await runCli(['start', '--background', '--port', String(port)], await sessionHome());
    expect(start.code).toBe(1);
    expect(start.stdout).toBe('');
    expect(start.stderr).toMatch(new RegExp(`^askbridge start: port ${port} is in use: .*\n$`));
  });
});

describe('askbridge service', () => {
  const noUserManager = spawnSync('systemctl', ['--user', 'show', '--property=Version'], { encoding: 'utf8' });
  const hasUserManager = noUserManager.status === 0 && /^Version=\S/m.test(noUserManager.stdout);

  it.skipIf(hasUserManager || process.platform !== 'linux')('install says clearly that no systemd user manager runs, exits 1 and writes nothing', async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-service-'));
    try {
      const env = baseEnv({ HOME: home, ASKBRIDGE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config') });
      const install = await runCli(['service', 'install', '--port', '7433'], env);
      expect(install.code).toBe(1);
      expect(install.stdout).toBe('');
      expect(install.stderr).toMatch(/^askbridge service: no systemd user manager runs here \(systemctl --user: .*\): the keeper \(`(.*) start`\) holds the port; nothing was written\n$/);
      expect(install.stderr).toContain(`(\`${askbridgeCommand(env)} start\`)`);
      expect(existsSync(join(home, 'config', 'systemd'))).toBe(false);
      const status = await runCli(['service', 'status'], env);
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(/^not installed\n/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses a wrong action with the usage (exit 2)', async () => {
    const env = baseEnv();
    const result = await runCli(['service', 'start'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`askbridge service: usage: ${askbridgeCommand(env)} service install|uninstall|status [--port N]\n`);
  });
});
