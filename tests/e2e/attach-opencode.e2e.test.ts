/**
 * `askbridge attach opencode` (the real CLI, the real daemon) and who it talks to: a stand-in for
 * opencode's server that asks for a deploy token. Run by the person, it gets the password, the
 * question is relayed, and the answer goes back. Run by the neighbour (a real second local user) on
 * the port the attachment is waiting for, it gets a connection and not one byte: no password, no
 * question in the inbox, no answer. And a redirect is never followed, wherever it leads. What the real opencode does with an answer is the conformance test's.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { becomeNeighbour, neighbourAvailability, type Neighbour } from '../stack/neighbour.js';
import { runCli, startCli, startNode, whenExited, type RunningProcess } from '../stack/processes.js';
import { opencodeServer } from '../../src/cli/attach-opencode.js';

const PASSWORD = 'opencode-password-of-the-person';
const QUESTION = {
  id: 'que_deploy',
  sessionID: 'ses_deploy',
  questions: [{ question: 'Paste the deploy token', header: 'Deploy', options: [{ label: 'Skip', description: 'deploy later' }, { label: 'Cancel', description: 'no deploy' }], custom: true }],
};

/**
 * A stand-in for opencode's server (Node's built-ins only, as the neighbour has no more), on
 * 127.0.0.1:PORT: its event stream announces QUESTION, its list holds it, and it prints every
 * request (`request METHOD PATH AUTHORIZATION`) and every reply posted to it (`reply PATH BODY`).
 */
const FAKE_OPENCODE = `
import { createServer } from 'node:http';
const question = ${JSON.stringify(QUESTION)};
const server = createServer((request, response) => {
  const url = new URL(request.url, 'http://opencode');
  console.log('request ' + request.method + ' ' + url.pathname + ' ' + (request.headers.authorization ?? '-'));
  if (url.pathname === '/global/event') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: ' + JSON.stringify({ directory: '/srv/deploy', payload: { type: 'question.asked', properties: question } }) + '\\n\\n');
    return;
  }
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    if (request.method === 'POST') console.log('reply ' + url.pathname + ' ' + body);
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.method === 'POST') response.end('true');
    else if (url.pathname === '/question') response.end(JSON.stringify([question]));
    else if (url.pathname.startsWith('/session/')) response.end(JSON.stringify({ directory: '/srv/deploy', title: 'deploy the service' }));
    else response.end('[]');
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

let daemon: Daemon;
let scripts: string;
const started: RunningProcess[] = [];

beforeAll(async () => {
  daemon = await startDaemon();
  scripts = mkdtempSync(join(tmpdir(), 'askbridge-opencode-'));
}, 60_000);

afterAll(async () => {
  for (const running of started) running.child.kill('SIGKILL');
  await Promise.all(started.map((running) => whenExited(running.child)));
  await daemon?.stop();
  if (scripts) rmSync(scripts, { recursive: true, force: true });
}, 30_000);

function attach(url: string): RunningProcess {
  const running = startCli(['attach', 'opencode', url], { ...daemon.env, OPENCODE_SERVER_PASSWORD: PASSWORD });
  started.push(running);
  return running;
}

/** The fake opencode run by the person themself, on a port of its choosing. */
async function ownOpencode(): Promise<{ running: RunningProcess; port: number }> {
  const file = join(scripts, 'fake-opencode.mjs');
  writeFileSync(file, FAKE_OPENCODE);
  const running = startNode([file], { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '0' }, { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, cwd: scripts });
  started.push(running);
  const port = await listeningPort(running);
  return { running, port };
}

function listeningPort(running: RunningProcess): Promise<number> {
  return waitUntil(
    () => {
      const match = /listening (\d+)/.exec(running.output().stdout);
      if (match) return Number(match[1]);
      if (running.child.exitCode !== null) throw new Error(`the fake opencode exited: ${running.output().stderr}`);
      return undefined;
    },
    20_000,
    'the fake opencode to listen',
  );
}

/** A port nobody listens on now: opencode is down. */
async function freePort(host = '127.0.0.1'): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, host, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const deployAsk = async () => (await daemon.pending()).find((ask) => ask.agent === 'opencode' && ask.sessionId === QUESTION.sessionID);

describe('askbridge attach opencode', () => {
  it("relays an opencode of the person's own: the password goes with every request, and the answer goes back", async () => {
    const opencode = await ownOpencode();
    const attached = attach(`http://127.0.0.1:${opencode.port}`);
    const ask = await waitUntil(deployAsk, 20_000, 'the question in the inbox');
    const answered = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: 'Paste the deploy token', other: 'tok-123' }] });
    expect(answered.status).toBe(200);
    await waitUntil(() => (opencode.running.output().stdout.includes('reply /question/que_deploy/reply') ? true : undefined), 20_000, 'the answer posted to opencode');
    const requests = opencode.running.output().stdout.split('\n').filter((line) => line.startsWith('request '));
    expect(requests.length).toBeGreaterThan(0);
    for (const line of requests) expect(line.endsWith(` Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}`), line).toBe(true);
    expect(opencode.running.output().stdout).toContain('reply /question/que_deploy/reply {"answers":[["tok-123"]]}');
    attached.child.kill('SIGINT');
    expect((await attached.result).code).toBe(0);
  });

  for (const redirect of [
    { name: 'its event stream, to plain http on another host', path: '/global/event', status: 302, elsewhere: (port: number) => `http://127.0.0.2:${port}/global/event` },
    { name: 'the list of what waits, to another host that takes the same method and body', path: '/question', status: 307, elsewhere: (port: number) => `http://127.0.0.2:${port}/question` },
  ]) {
    it(`never follows a redirect of ${redirect.name}: nothing reaches where it leads, and it says why`, async () => {
      const reached: IncomingMessage[] = [];
      const target = createServer((request, response) => {
        reached.push(request);
        response.end('[]');
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.2', resolve));
      const location = redirect.elsewhere((target.address() as AddressInfo).port);
      const opencode: Server = createServer((request, response) => {
        const path = new URL(request.url ?? '/', 'http://opencode').pathname;
        if (path === redirect.path) return response.writeHead(redirect.status, { location }).end();
        if (path === '/global/event') return response.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: {"payload":{"type":"server.connected","properties":{}}}\n\n');
        response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      });
      await new Promise<void>((resolve) => opencode.listen(0, '127.0.0.1', resolve));
      try {
        const attached = attach(`http://127.0.0.1:${(opencode.address() as AddressInfo).port}`);
        await waitUntil(() => (attached.child.exitCode !== null || reached.length > 0 ? true : undefined), 20_000, 'the attach to exit or follow the redirect');
        expect(reached.map((request) => `${request.method} ${request.url} ${request.headers.authorization ?? '-'}`)).toEqual([]);
        const result = await attached.result;
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`askbridge attach: opencode's server answered GET ${redirect.path} with a redirect (HTTP ${redirect.status} to ${location}): askbridge never follows one`);
      } finally {
        opencode.closeAllConnections();
        await new Promise((resolve) => opencode.close(resolve));
        await new Promise((resolve) => target.close(resolve));
      }
    });
  }
});

describe('an opencode on another machine', () => {
  it('is named by its host, and its asks are planned as that machine\'s: this machine\'s project configuration for the same folder does not apply', async () => {
    expect(opencodeServer('https://build-box.example.com:4096', {}).machine).toBe('build-box.example.com');
    expect(opencodeServer('http://127.0.0.1:4096', {}).machine).toBeUndefined();

    // A folder of this machine with a project configuration of its own, trusted.
    const project = mkdtempSync(join(tmpdir(), 'askbridge-project-'));
    try {
      mkdirSync(join(project, '.claude'));
      writeFileSync(join(project, '.claude', 'askbridge.json'), JSON.stringify({ waitSeconds: 77 }));
      expect((await runCli(['trust', project], daemon.env)).code).toBe(0);
      const relayed = (id: string, machine?: string) => ({
        request: { kind: 'question', question: { ...QUESTION, id, sessionID: `ses_${id}` } },
        session: { directory: project },
        ...(machine === undefined ? {} : { machine }),
        environment: {},
      });
      // Held requests: the reply comes once settled, which these never are (the connection drops first).
      void daemon.api('POST', '/api/attach/opencode', relayed('que_here')).catch(() => undefined);
      void daemon.api('POST', '/api/attach/opencode', relayed('que_remote', 'build-box.example.com')).catch(() => undefined);
      const here = await daemon.waitForAsk('que_here');
      const remote = await daemon.waitForAsk('que_remote');
      expect(here.expiresAt - here.createdAt).toBe(77_000);
      expect(remote.machine).toBe('build-box.example.com');
      expect(remote.expiresAt - remote.createdAt).not.toBe(77_000);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

const neighbourCheck = neighbourAvailability();

describe.skipIf(!neighbourCheck.available)(`askbridge attach opencode and a port another user holds${neighbourCheck.available ? '' : ` (${neighbourCheck.reason})`}`, () => {
  let neighbour: Neighbour;
  beforeAll(() => {
    neighbour = becomeNeighbour();
  });
  afterAll(() => neighbour?.remove());

  it('waiting while opencode is down, it sends the neighbour who takes the port nothing: no password, no question, no answer; it says who holds the port and exits 1', async () => {
    const port = await freePort();
    const attached = attach(`http://127.0.0.1:${port}`);
    await waitUntil(() => (attached.output().stderr.includes('cannot be reached') ? true : undefined), 20_000, 'the attach to wait for opencode');

    const stranger = neighbour.run(FAKE_OPENCODE, { PORT: String(port) });
    started.push(stranger);
    expect(await listeningPort(stranger)).toBe(port);
    // Either it gives up, or the neighbour hears from it.
    await waitUntil(() => (attached.child.exitCode !== null || stranger.output().stdout.includes('request ') ? true : undefined), 30_000, 'the attach to exit or reach the neighbour');
    expect(stranger.output().stdout.split('\n').filter((line) => line.startsWith('request '))).toEqual([]);
    expect(await deployAsk()).toBeUndefined();
    const result = await attached.result;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`askbridge attach: 127.0.0.1:${port} is held by another user (uid ${neighbour.uid}), not by an opencode of yours (uid ${process.getuid?.()}): askbridge sends it nothing`);
    expect(result.stdout).not.toContain('attached to opencode');
  });
});
