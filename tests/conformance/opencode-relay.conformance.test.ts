/**
 * `askbridge attach opencode` as an asker that comes back, against the real opencode server: a
 * question waits in opencode until opencode itself takes askbridge's answer, whatever fails on the
 * way. A reply opencode's side refuses once (a 502 from a small proxy in front of it: the one
 * stand-in, for the failure only) is sent again; the daemon killed outright while the question waits
 * (the keeper starts a new one) still has it; a relay killed outright is followed by another that
 * re-attaches to the same ask. The daemon killed outright between the answer and its delivery (the
 * proxy refusing every reply meanwhile) still has the decision: the relay's delivery report is
 * taken, and a relay killed too and started again delivers the person's answer, never asks again.
 * Each ends with the model reading the person's answer.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { startCli, whenExited, type RunningProcess } from '../stack/processes.js';
import { startFakeChat, type FakeChat } from './fake-chat.js';
import { startOpencode, type Opencode } from './opencode-serve.js';

let chat: FakeChat;
let opencode: Opencode;
let daemon: Daemon;
const attaches: RunningProcess[] = [];

beforeAll(async () => {
  chat = await startFakeChat();
  opencode = await startOpencode(chat.baseUrl);
  daemon = await startDaemon();
}, 90_000);

afterEach(async () => {
  for (const attach of attaches.splice(0)) {
    if (attach.child.exitCode === null && attach.child.signalCode === null) {
      attach.child.kill('SIGINT');
      await attach.result;
    }
  }
});

afterAll(async () => {
  await daemon?.stop();
  await opencode?.stop();
  await chat?.close();
}, 60_000);

function attach(url: string): RunningProcess {
  const running = startCli(['attach', 'opencode', url], daemon.env);
  attaches.push(running);
  return running;
}

async function attached(url: string): Promise<RunningProcess> {
  const running = attach(url);
  await waitUntil(() => (running.output().stdout.includes('attached to opencode') ? true : undefined), 30_000, `the attach to start (${JSON.stringify(running.output())})`);
  return running;
}

function waitForLine(running: RunningProcess, text: string): Promise<true> {
  return waitUntil(() => (running.output().stdout.includes(text) ? true : undefined), 30_000, `"${text}" from the attach (${running.output().stdout})`);
}

/** The opencode ask of that session, once it waits in askbridge. */
function waitForOpencodeAsk(sessionId: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.agent === 'opencode' && ask.sessionId === sessionId), 60_000, `an ask of opencode session ${sessionId}`);
}

/** The model asks one question, and a person answers it in askbridge with `label`. */
async function askAndAnswer(name: string): Promise<{ question: string; sessionId: string; ask: AskView }> {
  const question = `Which ${name}, ${Date.now()}?`;
  chat.play({ tool: 'question', input: { questions: [{ question, header: 'Pick', options: [{ label: 'Red', description: '' }, { label: 'Blue', description: '' }] }] } });
  const sessionId = await opencode.prompt('ask me');
  const ask = await waitForOpencodeAsk(sessionId);
  return { question, sessionId, ask };
}

/**
 * A proxy in front of opencode that answers 502 to the first reply posted to each question (with
 * `holdReplies`, to every reply until release()), and passes everything else through.
 */
async function startFlakyProxy(target: string, { holdReplies = false } = {}): Promise<{ url: string; refused: string[]; release(): void; close(): Promise<void> }> {
  const upstream = new URL(target);
  const refused: string[] = [];
  let holding = holdReplies;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://proxy').pathname;
    if (request.method === 'POST' && /^\/question\/[^/]+\/reply$/.test(path) && (holding || !refused.includes(path))) {
      refused.push(path);
      request.resume();
      response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      return;
    }
    const forwarded = httpRequest({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused,
    release() {
      holding = false;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('askbridge attach opencode, when something fails on the way', () => {
  it('an answer opencode did not take (a 502) is sent again until it does, and the model reads it', async () => {
    const proxy = await startFlakyProxy(opencode.url);
    try {
      const relay = await attached(proxy.url);
      const { question, ask } = await askAndAnswer('colour');
      expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question, selected: ['Blue'] }] })).status).toBe(200);
      const result = await chat.waitForToolResult((content) => content.includes(question));
      expect(result).toContain(`"${question}"="Blue"`);
      expect(proxy.refused).toEqual([`/question/${ask.toolUseId}/reply`]);
      await waitForLine(relay, `question ${ask.toolUseId}: answered in askbridge, delivered to opencode`);
      expect((await daemon.ask(ask.id)).delivery).toBe('delivered');
    } finally {
      await proxy.close();
    }
  });

  it('the daemon killed outright while a question waits: the restarted daemon still has it, and the answer reaches opencode', async () => {
    const relay = await attached(opencode.url);
    const { question, sessionId, ask } = await askAndAnswer('shape');
    await daemon.crash();
    const again = await waitForOpencodeAsk(sessionId);
    expect(again.id).toBe(ask.id);
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question, selected: ['Red'] }] })).status).toBe(200);
    const result = await chat.waitForToolResult((content) => content.includes(question));
    expect(result).toContain(`"${question}"="Red"`);
    await waitForLine(relay, `question ${ask.toolUseId}: answered in askbridge, delivered to opencode`);
    expect(relay.output().stdout).not.toMatch(/own prompt (asks|decides)|refused/);
  });

  it('a relay killed outright is followed by another that re-attaches to the same ask: no refusal, and the answer reaches opencode', async () => {
    const first = await attached(opencode.url);
    const { question, sessionId, ask } = await askAndAnswer('size');
    first.child.kill('SIGKILL');
    await whenExited(first.child);
    const second = await attached(opencode.url);
    await waitForLine(second, `question ${ask.toolUseId} of session ${sessionId}: relayed to askbridge`);
    expect((await daemon.ask(ask.id)).status).toBe('pending');
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question, selected: ['Blue'] }] })).status).toBe(200);
    const result = await chat.waitForToolResult((content) => content.includes(question));
    expect(result).toContain(`"${question}"="Blue"`);
    await waitForLine(second, `question ${ask.toolUseId}: answered in askbridge, delivered to opencode`);
    expect(second.output().stdout).not.toMatch(/own prompt (asks|decides)|refused/);
  });

  it('the daemon killed outright between the answer and its delivery: the relay delivers it, and the restarted daemon takes its report', async () => {
    const proxy = await startFlakyProxy(opencode.url, { holdReplies: true });
    try {
      const relay = await attached(proxy.url);
      const { question, ask } = await askAndAnswer('tone');
      expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question, selected: ['Red'] }] })).status).toBe(200);
      await waitForLine(relay, `question ${ask.toolUseId}: answered in askbridge, but opencode did not take it`);
      await daemon.crash();
      expect(await daemon.ask(ask.id)).toMatchObject({ status: 'answered', delivery: 'waiting' });
      proxy.release();
      const result = await chat.waitForToolResult((content) => content.includes(question));
      expect(result).toContain(`"${question}"="Red"`);
      // The line comes once the daemon was told.
      await waitForLine(relay, `question ${ask.toolUseId}: answered in askbridge, delivered to opencode`);
      expect((await daemon.ask(ask.id)).delivery).toBe('delivered');
      expect((await daemon.history()).filter((line) => line.id === ask.id).map((line) => line.delivery)).toEqual(['waiting', 'delivered']);
    } finally {
      await proxy.close();
    }
  });

  it('the relay and the daemon both killed outright before the answer reached opencode: the relay started again delivers the person\'s answer, and nothing is asked again', async () => {
    const proxy = await startFlakyProxy(opencode.url, { holdReplies: true });
    try {
      const first = await attached(proxy.url);
      const { question, sessionId, ask } = await askAndAnswer('mood');
      expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question, selected: ['Blue'] }] })).status).toBe(200);
      await waitForLine(first, `question ${ask.toolUseId}: answered in askbridge, but opencode did not take it`);
      first.child.kill('SIGKILL');
      await whenExited(first.child);
      await daemon.crash();

      const second = await attached(opencode.url);
      const result = await chat.waitForToolResult((content) => content.includes(question));
      expect(result).toContain(`"${question}"="Blue"`);
      await waitForLine(second, `question ${ask.toolUseId}: answered in askbridge, delivered to opencode`);
      expect(second.output().stdout).not.toMatch(/own prompt (asks|decides)|refused/);
      expect((await daemon.ask(ask.id)).delivery).toBe('delivered');
      expect((await daemon.pending()).filter((waiting) => waiting.sessionId === sessionId)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
