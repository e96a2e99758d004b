// The command hook when its daemon is gone for good, with two daemons A and B on one shared store (a
// throwaway PostgreSQL cluster of this file's own) behind one TLS front (Caddy, forwarding to the
// first that answers), both naming the front as their public URL. A question or a permission asked
// through the command hook at A, A then killed outright with its keeper: a few seconds later the hook
// asks through the front, B holds a new ask for it (from this machine, by name), and what is decided
// at B is what the hook prints. A crash that A's keeper restarts never goes to the front: the hook is
// back at A first. With no public URL, or one over plain http, the hook sends nothing anywhere: it
// waits until its deadline and prints nothing.
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { denialMessage } from '../../src/daemon/decisions/claude-code-permission.js';
import type { AskView } from '../../src/protocol.js';
import { permissionPayload } from '../stack/approvals.js';
import { expectSilentPassThrough } from '../stack/assertions.js';
import { sleep, waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { postgresAvailability } from '../stack/postgres.js';
import { parseJson, runHook, type HookInput, type RunningProcess } from '../stack/processes.js';
import { startOnStore, useStoreCluster } from '../stack/shared-store.js';
import { caddyAvailability, prepareTlsFront, type TlsFront } from '../stack/tls-front.js';

/** How long the hook waits for its daemon before it asks through the front (FRONT_AFTER_MS in the hook). */
const FRONT_AFTER_MS = 5_000;

/**
 * How often each daemon checks the store here: a daemon not seen for three of them is gone, and its
 * asks leave the others. At 3 s, A's ask is still shown on B (as A's) when the hook first reaches B
 * through the front, as it is with the 15 s of a real team: B refuses the same question (409) until it
 * sees A gone, and the hook asks again until B takes it.
 */
const STORE_CHECK_MS = 3_000;

/** Each test starts a front and two daemons on a machine that runs other tests too, and waits for a daemon to be seen gone. */
const TEST_MS = 90_000;

const ANSWER = loadFixture<FixtureAnswer>('01-single-select.answer.json');
const EXPECTED_ALLOW = loadFixture<unknown>('01-single-select.expected-allow.json');

const postgres = postgresAvailability();
const caddy = caddyAvailability();
const store = useStoreCluster();
const fronts: TlsFront[] = [];

afterEach(async () => {
  await Promise.all(fronts.splice(0).map((front) => front.stop()));
});

/** A daemon on the store at `url`, checking it every STORE_CHECK_MS unless `env` says otherwise; stopped after the test. */
async function daemonOn(url: string, env: NodeJS.ProcessEnv, config: Record<string, unknown> = {}): Promise<Daemon> {
  return store.stopAfterTest(await startOnStore(store.cluster(), url, { env: { ASKBRIDGE_TEST_STORE_SEEN_MS: String(STORE_CHECK_MS), ...env }, config }));
}

/** A and B on a new database of the store, behind a new front that both name as their public URL. */
async function teamBehindFront(): Promise<{ a: Daemon; b: Daemon; front: TlsFront }> {
  const front = await prepareTlsFront();
  fronts.push(front);
  const {
    daemons: [a, b],
  } = await store.onNewDatabase(2, () => ({ env: { ASKBRIDGE_TEST_STORE_SEEN_MS: String(STORE_CHECK_MS), ASKBRIDGE_PUBLIC_URL: front.origin } }));
  await front.forwardTo(a!.port, b!.port);
  return { a: a!, b: b!, front };
}

/** The command hook at `daemon`, in an environment that trusts the front's CA (and resolves its name). */
function hookAt(daemon: Daemon, payload: HookInput, front?: TlsFront): RunningProcess {
  return runHook(payload, { ...daemon.env, ...front?.nodeEnv });
}

/** Waits until `daemon` lists an ask that `matches` other than `except` (the one mirrored from the daemon that died), and returns it. */
function newAskOn(daemon: Daemon, matches: (ask: AskView) => boolean, except: string, timeoutMs: number): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => matches(ask) && ask.id !== except), timeoutMs, 'the question to be asked again at the other daemon, through the front', 200);
}

/** The ids of the asks `daemon` lists that match, sampled every 200 ms for `ms`. */
async function idsListedFor(daemon: Daemon, matches: (ask: AskView) => boolean, ms: number): Promise<Set<string>> {
  const ids = new Set<string>();
  const until = Date.now() + ms;
  while (Date.now() < until) {
    for (const ask of await daemon.pending()) if (matches(ask)) ids.add(ask.id);
    await sleep(200);
  }
  return ids;
}

describe.skipIf(!postgres.available || !caddy.available)('the command hook when its daemon is gone for good', () => {
  it('asks through the front: the question is asked again at B, from this machine, and the answer given there is what the hook prints', async () => {
    const { a, b, front } = await teamBehindFront();
    const payload = freshPayload('01-single-select', 'front-hook');
    const hook = hookAt(a, payload, front);
    const atA = await a.waitForAsk(payload.tool_use_id);
    const isThisQuestion = (ask: AskView) => ask.toolUseId === payload.tool_use_id;
    await waitUntil(async () => (await b.pending()).find((ask) => ask.id === atA.id), 10_000, 'the question to be shown on B');

    const killedAt = Date.now();
    await a.killOutright();
    const atB = await newAskOn(b, isThisQuestion, atA.id, FRONT_AFTER_MS + 4 * STORE_CHECK_MS + 10_000);
    // Not before the hook gave A its time to come back.
    expect(atB.createdAt - killedAt).toBeGreaterThanOrEqual(FRONT_AFTER_MS);
    expect(atB).toMatchObject({ questions: atA.questions, sessionId: atA.sessionId, machine: hostname() });
    // B took the same question only once it no longer showed A's: never both.
    expect((await b.pending()).filter(isThisQuestion).map((ask) => ask.id)).toEqual([atB.id]);
    expect(hook.child.exitCode).toBeNull();

    const answered = await b.api<{ ask: AskView }>('POST', `/api/asks/${atB.id}/answer`, { responses: ANSWER.responses });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const result = await hook.result;
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual(EXPECTED_ALLOW);
  }, TEST_MS);

  it('asks a permission through the front: denied at B, the hook prints the deny', async () => {
    const { a, b, front } = await teamBehindFront();
    const sessionId = 'front-hook-permission';
    const hook = hookAt(a, permissionPayload(sessionId, 'Bash', { command: 'rm -rf build' }), front);
    const isThisPermission = (ask: AskView) => ask.sessionId === sessionId && ask.approval !== undefined;
    const atA = await waitUntil(async () => (await a.pending()).find(isThisPermission), 10_000, 'the permission to wait at A');
    await waitUntil(async () => (await b.pending()).find((ask) => ask.id === atA.id), 10_000, 'the permission to be shown on B');

    await a.killOutright();
    const atB = await newAskOn(b, isThisPermission, atA.id, FRONT_AFTER_MS + 4 * STORE_CHECK_MS + 10_000);
    expect(atB.machine).toBe(hostname());

    const denied = await b.api<{ ask: AskView }>('POST', `/api/asks/${atB.id}/decide`, { behavior: 'deny' });
    expect(denied.status, JSON.stringify(denied.body)).toBe(200);
    const result = await hook.result;
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, undefined) } },
    });
  }, TEST_MS);

  it("never goes to the front when A's keeper restarts it: the hook is back at A, and B only ever shows A's ask", async () => {
    const { a, b, front } = await teamBehindFront();
    const payload = freshPayload('01-single-select', 'front-hook-crash');
    const hook = hookAt(a, payload, front);
    const atA = await a.waitForAsk(payload.tool_use_id);
    const isThisQuestion = (ask: AskView) => ask.toolUseId === payload.tool_use_id;
    await waitUntil(async () => (await b.pending()).find((ask) => ask.id === atA.id), 10_000, 'the question to be shown on B');

    await a.crash();
    // Well past the time after which a hook still without its daemon would have gone to the front.
    expect([...(await idsListedFor(b, isThisQuestion, FRONT_AFTER_MS + 3_000))]).toEqual([atA.id]);
    expect(hook.child.exitCode).toBeNull();

    const answered = await a.api<{ ask: AskView }>('POST', `/api/asks/${atA.id}/answer`, { responses: ANSWER.responses });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const result = await hook.result;
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual(EXPECTED_ALLOW);
  }, TEST_MS);

  it('sends nothing anywhere without an https public URL (none, or http): it waits until its deadline and prints nothing', async () => {
    const { url } = await store.onNewDatabase(0);
    // The store checked often: a killed daemon's asks leave B long before its hook could look elsewhere,
    // so that anything a hook asked at B would be listed there as a new ask.
    const seen = { ASKBRIDGE_TEST_STORE_SEEN_MS: '300' };
    // B takes any key of the store's daemons, on loopback over plain http: where a hook that went to an http public URL would land.
    const b = await daemonOn(url, seen);
    // A short wait: the hook's deadline is that wait and its 10 s margin from the moment its daemon took the question.
    const config = { waitSeconds: 2 };
    const [none, plain] = await Promise.all([daemonOn(url, seen, config), daemonOn(url, { ...seen, ASKBRIDGE_PUBLIC_URL: `http://localhost:${b.port}` }, config)]);
    const asked = await Promise.all(
      [none!, plain!].map(async (daemon, index) => {
        const payload = freshPayload('01-single-select', `front-hook-none-${index}`);
        const hook = hookAt(daemon, payload);
        const view = await daemon.waitForAsk(payload.tool_use_id);
        return { daemon, payload, hook, view };
      }),
    );
    await Promise.all(asked.map(({ daemon }) => daemon.killOutright()));
    const isAsked = (ask: AskView) => asked.some(({ payload }) => ask.toolUseId === payload.tool_use_id);
    const listed = idsListedFor(b, isAsked, FRONT_AFTER_MS + 8_000);

    for (const { hook } of asked) {
      const result = await hook.result;
      expectSilentPassThrough(result);
      // The whole wait and its margin, not a refusal.
      expect(result.ms).toBeGreaterThanOrEqual(10_000);
    }
    // Only ever A's own asks, shown on B until A was seen gone: nothing asked there by the hooks.
    expect([...(await listed)].every((id) => asked.some(({ view }) => view.id === id))).toBe(true);
  }, TEST_MS);
});
