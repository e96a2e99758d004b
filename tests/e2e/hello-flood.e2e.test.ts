// A flood of hellos (they need nothing) through the public URL of a real daemon behind a real TLS
// front (Caddy): they are refused, so nobody elsewhere can make the daemon hold challenges, and the
// command hook still gets its question through, also when the flood comes between its hello and
// its question. (A flood from this machine is bounded by never dropping a challenge a hook may
// still sign with: tests/unit/hook-identity.test.ts shows it on a clock of its own.)
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHello, MAX_CHALLENGES, newNonce, signRequest, type HookCredentials } from '../../src/daemon/hook-identity.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { hookBody, readLines } from '../stack/hook-client.js';
import { killStrayProcesses, runHook } from '../stack/processes.js';
import { caddyAvailability, FRONT_NAME, prepareTlsFront, throughFront, type TlsFront } from '../stack/tls-front.js';

const caddy = caddyAvailability();
/** More hellos than the daemon keeps challenges for. */
const FLOOD = MAX_CHALLENGES + 200;
/** Hellos on their way at once, each client keeping its connections open. */
const AT_ONCE = 32;

type Reply = { status: number; body: string };

/** A JSON POST over loopback, as the command hook sends it (Host 127.0.0.1:PORT). */
function postLocally(port: number, path: string, body: string, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<Reply> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** `count` hellos, `AT_ONCE` at a time; how many got each status. */
async function flood(count: number, hello: () => Promise<Reply>): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let sent = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (sent < count) {
        sent++;
        const { status } = await hello();
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

describe.skipIf(!caddy.available)('a flood of hellos', () => {
  let front: TlsFront;
  let daemon: Daemon;
  beforeAll(async () => {
    front = await prepareTlsFront();
    daemon = await startDaemon({ env: { ASKBRIDGE_PUBLIC_URL: front.origin } });
    await front.forwardTo(daemon.port);
  }, 60_000);
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
    await front?.stop();
  });

  /** The command hook's first step, over loopback: the daemon proves it holds the token. */
  async function sayHello(): Promise<HookCredentials> {
    const hookNonce = newNonce();
    const reply = await postLocally(daemon.port, '/api/hook/hello', JSON.stringify({ nonce: hookNonce }));
    expect(reply.status).toBe(200);
    const hello = JSON.parse(reply.body) as { nonce: string; proof: string };
    expect(checkHello(daemon.token, hookNonce, hello)).toBe(true);
    return { daemonNonce: hello.nonce, hookNonce };
  }

  /** A person answers, as the page and the CLI do (the CLI itself says hello first). */
  async function answer(id: string): Promise<void> {
    const { responses } = loadFixture<FixtureAnswer>('01-single-select.answer.json');
    expect((await daemon.api('POST', `/api/asks/${id}/answer`, { responses })).status).toBe(200);
  }

  /** The command hook's second step, with the challenge of its hello: the question, which a person answers. */
  async function askAndAnswer(credentials: HookCredentials, tag: string) {
    const payload = freshPayload('01-single-select', tag);
    const body = hookBody(payload);
    const reply = postLocally(daemon.port, '/api/hook/questions', body, { authorization: signRequest(daemon.token, credentials, body) });
    const refusedEarly = reply.then((early) => (early.status === 200 ? new Promise<never>(() => {}) : Promise.reject(new Error(`the question was answered ${early.status}: ${early.body}`))));
    await answer((await Promise.race([daemon.waitForAsk(payload.tool_use_id), refusedEarly])).id);
    const { status, body: lines } = await reply;
    expect(status).toBe(200);
    return readLines(daemon.token, credentials, lines).at(-1);
  }

  it('through the public URL is refused, and a hook between its hello and its question, and every hook after, get their questions answered', async () => {
    const hook = await sayHello();
    const throughCaddy = await throughFront(front, { method: 'POST', path: '/api/hook/hello', body: JSON.stringify({ nonce: newNonce() }) });
    // The rest as the front hands them on (from loopback, naming the public host), without a TLS
    // handshake to pay for each: what the daemon sees is the same.
    const agent = new Agent({ keepAlive: true, maxSockets: AT_ONCE });
    let statuses: Record<number, number>;
    try {
      statuses = await flood(FLOOD, () => postLocally(daemon.port, '/api/hook/hello', JSON.stringify({ nonce: newNonce() }), { host: `${FRONT_NAME}:${front.port}` }, agent));
    } finally {
      agent.destroy();
    }
    expect(await askAndAnswer(hook, 'flooded-between')).toMatchObject({ event: 'settled', status: 'answered' });
    expect(throughCaddy.status).toBe(403);
    expect(JSON.parse(throughCaddy.body)).toMatchObject({ error: { code: 'hook_not_local' } });
    expect(statuses).toEqual({ 403: FLOOD });

    // A real command hook, started after the flood.
    const payload = freshPayload('01-single-select', 'flooded-after');
    const after = runHook(payload, daemon.env);
    await answer((await daemon.waitForAsk(payload.tool_use_id)).id);
    const result = await after.result;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(loadFixture('01-single-select.expected-allow.json'));
  }, 120_000);
});
