// Asks shared between two daemons on one store (a throwaway PostgreSQL cluster of this file's own):
// the command hook asks at daemon A, and the ask shows on daemon B (its list, `askbridge pending`,
// a page paired with B in Chromium) within about a second. A decision sent to B is carried to A
// through the store and decided there as if sent to A: B's reply is A's, the hook at A prints it,
// and of two decisions sent at once to A and to B exactly one wins. An ask A settles leaves B, and a
// late decision sent to B is told who won, as A tells it. With the database stopped, a decision sent
// to B is refused as store_unreachable and the hook waits on, until the database is back, while A
// still decides the asks it holds; a daemon stopped the usual way takes its asks with it. A daemon
// killed outright decides nothing sent to it through the other, and its asks leave the other once it
// is not seen; one killed as a decision reaches it either recorded and delivered that decision, or
// recorded nothing and, started again by its keeper, has the question waiting again.
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denialMessage } from '../../src/daemon/decisions/claude-code-permission.js';
import type { AskReply, AskView, GrantsReply, PeopleReply, StatusReply, TooLateReply } from '../../src/protocol.js';
import { permissionPayload } from '../stack/approvals.js';
import { expectSilentPassThrough } from '../stack/assertions.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { postgresAvailability } from '../stack/postgres.js';
import { parseJson, runCli, runHook, type RunningProcess } from '../stack/processes.js';
import { useStoreCluster } from '../stack/shared-store.js';

/**
 * How long an ask, or its end, may take to reach the other daemon here. The store promises about a
 * second; a machine running other tests beside this one is given a few.
 */
const SHARED_WITHIN_MS = 5_000;

/**
 * How often each daemon checks the store here. A daemon not seen for three of them is gone, and its
 * asks leave the others: at 200 ms, a daemon held up 600 ms by a busy machine would lose its asks on
 * the other daemon for a moment, which is not what these tests are about.
 */
const STORE_CHECK_MS = 500;

/** Each test starts two daemons (and maybe a page) on a machine that runs other tests too: seconds each. */
const TEST_MS = 60_000;

const ANSWER = loadFixture<FixtureAnswer>('01-single-select.answer.json');
const EXPECTED_ALLOW = loadFixture<unknown>('01-single-select.expected-allow.json');

const postgres = postgresAvailability();
const chromiumState = chromiumAvailability();
const store = useStoreCluster();
let browser: Browser;
let sessions = 0;

beforeAll(async () => {
  if (chromiumState.available) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** Two daemons on a new database of the store, started together: A, where the hooks ask, and B. */
async function twoDaemons(): Promise<{ a: Daemon; b: Daemon }> {
  const { daemons } = await store.onNewDatabase(2, () => ({ env: { ASKBRIDGE_TEST_STORE_SEEN_MS: String(STORE_CHECK_MS) } }));
  return { a: daemons[0]!, b: daemons[1]! };
}

/** The question of the 01-single-select fixture, as a new tool call, asked through the command hook at `daemon`. */
async function questionAt(daemon: Daemon, tag: string): Promise<{ hook: RunningProcess; view: AskView }> {
  const payload = freshPayload('01-single-select', tag);
  const hook = runHook(payload, daemon.env);
  return { hook, view: await daemon.waitForAsk(payload.tool_use_id) };
}

/** A Bash permission asked through the command hook at `daemon` (Claude Code's PermissionRequest). */
async function permissionAt(daemon: Daemon, command: string): Promise<{ hook: RunningProcess; view: AskView }> {
  const sessionId = `store-asks-${++sessions}`;
  const hook = runHook(permissionPayload(sessionId, 'Bash', { command }), daemon.env);
  const view = await waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === sessionId && ask.approval !== undefined), 10_000, `the permission of ${sessionId} to wait at its daemon`);
  return { hook, view };
}

/** Waits until `daemon` lists the ask `id` as waiting, and returns it as that daemon shows it. */
function shownOn(daemon: Daemon, id: string): Promise<AskView> {
  return waitUntil(async () => (await daemon.pending()).find((ask) => ask.id === id), SHARED_WITHIN_MS, `ask ${id} to be listed by the other daemon`);
}

/** Waits until `daemon` no longer lists the ask `id`. */
function goneFrom(daemon: Daemon, id: string): Promise<true> {
  return waitUntil(async () => ((await daemon.pending()).some((ask) => ask.id === id) ? undefined : true), SHARED_WITHIN_MS, `ask ${id} to leave the other daemon's list`);
}

/** The page's inbox row and card of ask `id`, gone. */
async function goneFromPage(page: Page, id: string): Promise<void> {
  await page.locator(`[data-ask-id="${id}"], article[data-question-id="${id}"][data-status="pending"]`).first().waitFor({ state: 'detached', timeout: SHARED_WITHIN_MS });
}

async function statusOf(daemon: Daemon): Promise<StatusReply> {
  return parseJson<StatusReply>((await runCli(['status', '--json'], daemon.env)).stdout, 'status');
}

const hookGets = (decision: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });

type SettleReply = AskReply & Partial<TooLateReply>;

describe.skipIf(!postgres.available || !chromiumState.available)('asks shared between the daemons of one store', () => {
  it('a question asked at A is answered on a page paired with B: the hook at A prints exactly that answer', async () => {
    const { a, b } = await twoDaemons();
    const { page } = await openPairedPage(browser, b);
    const { hook, view } = await questionAt(a, 'store-page');

    const there = await shownOn(b, view.id);
    expect(there.questions).toEqual(view.questions);
    const listed = await runCli(['pending', '--json'], b.env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(parseJson<AskView[]>(listed.stdout, 'askbridge pending --json').map((ask) => ask.id)).toContain(view.id);

    // An answer that does not fit the question is refused as A refuses it, and nothing settles.
    const invalid = await b.api<{ error: { code: string } }>('POST', `/api/asks/${view.id}/answer`, { responses: [{ ...ANSWER.responses[0]!, selected: ['MongoDB'] }] });
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(400);
    expect((await a.ask(view.id)).status).toBe('pending');
    expect(hook.child.exitCode).toBeNull();

    const card = await openAsk(page, view.id);
    const response = ANSWER.responses[0]!;
    await card.getByRole('group', { name: response.question }).getByRole('radio', { name: response.selected[0]!, exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const result = await hook.result;
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual(EXPECTED_ALLOW);
    expect(await a.ask(view.id)).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'page' } });
    await goneFrom(b, view.id);
  }, TEST_MS);

  it('of an allow sent to A and a deny sent to B at the same moment, exactly one wins: the other is 409 naming it, and the hook prints it', async () => {
    const { a, b } = await twoDaemons();
    const asked = await Promise.all(Array.from({ length: 8 }, (_, index) => permissionAt(a, `echo race-${index}`)));
    for (const [index, { hook, view }] of asked.entries()) {
      await shownOn(b, view.id);
      const allow = () => a.api<SettleReply>('POST', `/api/asks/${view.id}/decide`, { behavior: 'allow' });
      const deny = () => b.api<SettleReply>('POST', `/api/asks/${view.id}/decide`, { behavior: 'deny' });
      // Which request leaves first alternates.
      const [allowed, denied] = index % 2 === 0 ? await Promise.all([allow(), deny()]) : (await Promise.all([deny(), allow()])).reverse();
      const what = `race ${index}: allow to A ${allowed!.status}, deny to B ${denied!.status}`;
      expect([allowed!.status, denied!.status].sort(), what).toEqual([200, 409]);
      const [won, lost, behavior] = allowed!.status === 200 ? [allowed!, denied!, 'allow'] : [denied!, allowed!, 'deny'];
      expect(won.body.ask.status, what).toBe(behavior === 'allow' ? 'allowed' : 'denied');
      expect(lost.body.error?.code, what).toBe('already_resolved');
      const outcome = (ask: AskView) => ({ status: ask.status, decision: ask.decision, source: ask.source, resolvedAt: ask.resolvedAt });
      expect(outcome(lost.body.ask), what).toEqual(outcome(won.body.ask));

      const result = await hook.result;
      expect(result.code, result.stderr).toBe(0);
      expect(parseJson(result.stdout, 'hook stdout'), what).toStrictEqual(
        behavior === 'allow' ? hookGets({ behavior: 'allow' }) : hookGets({ behavior: 'deny', message: denialMessage({ toolName: 'Bash' }, undefined) }),
      );
    }
  }, 2 * TEST_MS);

  it('an ask A settles leaves B: its list and its page', async () => {
    const { a, b } = await twoDaemons();
    const { page } = await openPairedPage(browser, b);
    const { hook, view } = await questionAt(a, 'store-settled-at-a');
    await shownOn(b, view.id);
    await page.locator(`[data-ask-id="${view.id}"]`).waitFor({ state: 'attached', timeout: SHARED_WITHIN_MS });

    const answered = await a.api<SettleReply>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(parseJson((await hook.result).stdout, 'hook stdout')).toStrictEqual(EXPECTED_ALLOW);

    await goneFrom(b, view.id);
    await goneFromPage(page, view.id);
  }, TEST_MS);

  it('a decision sent to B once A settled the ask is answered as A answers it: 409 naming the winner', async () => {
    const { a, b } = await twoDaemons();
    const { hook, view } = await questionAt(a, 'store-late-at-b');
    await shownOn(b, view.id);
    const answered = await a.api<SettleReply>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect((await hook.result).code).toBe(0);
    await goneFrom(b, view.id);

    const atA = await a.api<SettleReply>('POST', `/api/asks/${view.id}/decline`);
    expect(atA.status).toBe(409);
    const atB = await b.api<SettleReply>('POST', `/api/asks/${view.id}/decline`);
    expect({ status: atB.status, body: atB.body }).toEqual({ status: atA.status, body: atA.body });
    expect(atB.body.ask).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'cli' } });
  }, TEST_MS);

  it('with the database stopped a decision sent to B is refused as store_unreachable and the hook waits on; once it is back, B decides it', async () => {
    const { a, b } = await twoDaemons();
    const { hook, view } = await questionAt(a, 'store-away');
    await shownOn(b, view.id);

    await store.cluster().stop();
    const refused = await b.api<{ error: { code: string; message: string } }>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body.error.code).toBe('store_unreachable');
    expect((await a.ask(view.id)).status).toBe('pending');
    expect(hook.child.exitCode).toBeNull();

    await store.cluster().start();
    // Once both say the store answers again, they list the same waiting asks, and a decision works.
    await Promise.all([a, b].map((daemon) => waitUntil(async () => ((await statusOf(daemon)).store?.reachable ? true : undefined), SHARED_WITHIN_MS, 'the daemon to say the store answers again')));
    await shownOn(b, view.id);
    await waitUntil(
      async () => {
        const [atA, atB] = await Promise.all([a.pending(), b.pending()]);
        const ids = (asks: AskView[]) => asks.map((ask) => ask.id).sort().join(' ');
        return ids(atA) === ids(atB) ? true : undefined;
      },
      SHARED_WITHIN_MS,
      'both daemons to list the same waiting asks',
    );
    expect(hook.child.exitCode).toBeNull();
    const answered = await b.api<SettleReply>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body.ask.status).toBe('answered');
    const result = await hook.result;
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result.stdout, 'hook stdout')).toStrictEqual(EXPECTED_ALLOW);
  }, TEST_MS);

  it("with the database stopped A still decides the asks it holds, and its hook gets the answer at once; once the store is back, the ask leaves B too", async () => {
    const { a, b } = await twoDaemons();
    const { hook, view } = await questionAt(a, 'store-away-at-a');
    await shownOn(b, view.id);

    await store.cluster().stop();
    // A knows the store is gone before it is asked to decide: its own asks are its own to settle.
    await waitUntil(async () => ((await statusOf(a)).store?.reachable === false ? true : undefined), SHARED_WITHIN_MS, 'A to say the store cannot be reached');
    const answered = await a.api<SettleReply>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(parseJson((await hook.result).stdout, 'hook stdout')).toStrictEqual(EXPECTED_ALLOW);
    // B kept showing it while it could not hear otherwise.
    expect((await b.pending()).map((ask) => ask.id)).toContain(view.id);

    await store.cluster().start();
    await goneFrom(b, view.id);
  }, TEST_MS);

  it('people and grants are the same on both: a person added at A can be paired at B, and a grant made by an allow sent to B covers the next request at A', async () => {
    const { a, b } = await twoDaemons();
    expect((await a.api('POST', '/api/people', { name: 'alice' })).status).toBe(200);
    await waitUntil(async () => ((await b.api<PeopleReply>('GET', '/api/people')).body.people.some((person) => person.name === 'alice') ? true : undefined), SHARED_WITHIN_MS, 'B to know alice');
    expect((await b.api('POST', '/api/pairings', { person: 'alice' })).status).toBe(200);

    const { hook, view } = await permissionAt(a, 'npm test');
    await shownOn(b, view.id);
    const allowed = await b.api<SettleReply>('POST', `/api/asks/${view.id}/decide`, { behavior: 'allow', grant: { minutes: 60, scope: 'project' } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(parseJson((await hook.result).stdout, 'hook stdout')).toStrictEqual(hookGets({ behavior: 'allow' }));
    // Made by A, which holds the ask; listed by B too.
    const grant = await waitUntil(async () => (await b.api<GrantsReply>('GET', '/api/grants')).body.grants[0], SHARED_WITHIN_MS, 'B to list the grant');
    expect(grant).toMatchObject({ rule: 'Bash(npm test:*)', scope: 'project' });
    expect((await a.api<GrantsReply>('GET', '/api/grants')).body.grants).toEqual([grant]);

    // The same command in another session of the project, at A: allowed at once, by that grant.
    const again = runHook(permissionPayload(`store-asks-${++sessions}`, 'Bash', { command: 'npm test' }), a.env);
    expect(parseJson((await again.result).stdout, 'hook stdout')).toStrictEqual(hookGets({ behavior: 'allow' }));
  }, TEST_MS);

  it('a daemon stopped the usual way hands its waiting question back to the terminal, and it leaves the other daemon', async () => {
    const { a, b } = await twoDaemons();
    const { hook, view } = await questionAt(a, 'store-stopped');
    await shownOn(b, view.id);

    await a.stop();
    expectSilentPassThrough(await hook.result);
    await goneFrom(b, view.id);
  }, TEST_MS);

  it('a daemon killed outright: a decision sent through the other meanwhile decides nothing, and its asks leave the other once it is not seen', async () => {
    const { a, b } = await twoDaemons();
    const { hook, view } = await questionAt(a, 'store-killed');
    await shownOn(b, view.id);

    await a.killOutright();
    // Nobody takes it: B waits for A as long as it waits for any holder, then says so, and nothing is decided anywhere.
    const refused = await b.api<{ error: { code: string } }>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses }, { held: true });
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body.error.code).toBe('holder_unreachable');
    // Gone once A has not been seen for 5 s (three of its checks, at least 5 s), and a check more.
    await waitUntil(async () => ((await b.pending()).some((ask) => ask.id === view.id) ? undefined : true), 5_000 + SHARED_WITHIN_MS, `ask ${view.id} to leave B once A is gone`);
    // The hook waits for its own daemon to come back, printing nothing meanwhile.
    expect(hook.child.exitCode).toBeNull();
  }, TEST_MS);

  it('a daemon killed while a decision sent through the other reaches it: the decision is recorded and delivered, or recorded nowhere and the question answerable again once it is back', async () => {
    // The kill follows the decision by 0 to 16 ms, a forwarded decision's whole way at the median (docs/performance.md),
    // so that it lands before A has the request, while A decides it, and after. Two new daemons each time: a keeper
    // whose daemon crashes again and again waits longer each time before it starts another.
    for (const [round, killAfterMs] of [0, 4, 8, 12, 16].entries()) {
      const { a, b } = await twoDaemons();
      const { hook, view } = await questionAt(a, `store-crash-${round}`);
      await shownOn(b, view.id);
      const decision = b.api<SettleReply & { error?: { code: string } }>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses }, { held: true });
      await delay(killAfterMs);
      await a.crash();
      const sent = await decision;
      const what = `round ${round} (kill after ${killAfterMs} ms): B answered ${sent.status} ${JSON.stringify(sent.body)}`;
      // B's reply is A's result, or, A gone before it said, that nobody could say: never anything else.
      if (sent.status !== 200) expect({ status: sent.status, code: sent.body.error?.code }, what).toEqual({ status: 503, code: 'holder_unreachable' });
      const lines = async () => (await a.history()).filter((line) => line.id === view.id);
      // The new A starts from what the old one recorded: the question waits there again, or it was decided.
      if ((await a.pending()).some((ask) => ask.id === view.id)) {
        expect(sent.status, what).toBe(503);
        expect(await lines(), what).toEqual([]);
        await shownOn(b, view.id);
        expect(hook.child.exitCode, what).toBeNull();
        const again = await b.api<SettleReply>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
        expect(again.status, `${what}; again: ${JSON.stringify(again.body)}`).toBe(200);
      }
      const result = await hook.result;
      expect(result.code, `${what}\n${result.stderr}`).toBe(0);
      expect(parseJson(result.stdout, 'hook stdout'), what).toStrictEqual(EXPECTED_ALLOW);
      // Decided once, by that person's answer, whichever way it went.
      expect((await lines()).map((line) => ({ status: line.status, source: line.source, answers: line.answers })), what).toEqual([
        { status: 'answered', source: 'person', answers: { [ANSWER.responses[0]!.question]: ANSWER.responses[0]!.selected[0] } },
      ]);
      await goneFrom(b, view.id);
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 4 * TEST_MS);
});
