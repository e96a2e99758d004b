// History and the audit trail shared through the store (a throwaway PostgreSQL cluster of this
// file's own), with two real daemons, A and B: a question the hook asks at A and A answers is in
// `askbridge history` and GET /api/history at B, naming A; a page paired there for a person reads
// only what is routed to them or to everyone. Lines written while the database is
// stopped reach the store once it is back, and a daemon restarted catches up without a line twice.
// `askbridge audit export` at B holds A's and B's decisions; `audit verify` is 0 on a good store and
// names the line of a row changed in the database. With the store stopped, `askbridge history`
// says why and that --local reads the daemon's own file, which works; the page says it shows only
// its daemon's history.
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLine } from '../../src/audit-file.js';
import type { HistoryLine, HistoryReply } from '../../src/history-file.js';
import type { AskView, PeopleReply, StatusReply } from '../../src/protocol.js';
import { permissionPayload } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { parseCsv } from '../stack/csv.js';
import type { Daemon } from '../stack/daemon.js';
import { freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { postgresAvailability } from '../stack/postgres.js';
import { parseJson, runCli, runHook } from '../stack/processes.js';
import { useStoreCluster } from '../stack/shared-store.js';

/** How long a line may take to reach the store and be read at the other daemon, on a busy machine. */
const SHARED_WITHIN_MS = 10_000;
/** How often each daemon checks the store here (as in store-asks.e2e.test.ts). */
const STORE_CHECK_MS = 500;
const TEST_MS = 90_000;

const ANSWER = loadFixture<FixtureAnswer>('01-single-select.answer.json');

const postgres = postgresAvailability();
const chromiumState = chromiumAvailability();
const store = useStoreCluster();
let browser: Browser;

beforeAll(async () => {
  if (chromiumState.available) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** `count` daemons on a new database of the store, started together; and that database's name. */
async function onNewStore(count: number, config: Record<string, unknown> = {}): Promise<{ daemons: Daemon[]; database: string }> {
  const { daemons, name } = await store.onNewDatabase(count, () => ({ config, env: { ASKBRIDGE_TEST_STORE_SEEN_MS: String(STORE_CHECK_MS) } }));
  return { daemons, database: name };
}

const idOf = (daemon: Daemon) => `${hostname()}:${daemon.port}`;

/** A command's environment on `daemon`'s machine, as its user has it: the user config that sets the store, and the password. */
const cliEnv = (daemon: Daemon): NodeJS.ProcessEnv => ({ ...daemon.env, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config'), PGPASSWORD: store.cluster().password });

/** The fixture's question asked through the command hook at `daemon`, answered there by the CLI token; the ask as settled. */
async function answeredAt(daemon: Daemon, tag: string): Promise<AskView> {
  const payload = freshPayload('01-single-select', tag);
  const hook = runHook(payload, daemon.env);
  const view = await daemon.waitForAsk(payload.tool_use_id);
  const answered = await daemon.api<{ ask: AskView }>('POST', `/api/asks/${view.id}/answer`, { responses: ANSWER.responses });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  expect((await hook.result).code).toBe(0);
  return answered.body.ask;
}

/** `askbridge history --json` run with `daemon`'s environment: its lines. */
async function historyCli(daemon: Daemon, ...args: string[]): Promise<HistoryLine[]> {
  const result = await runCli(['history', '--json', '--limit', '100', ...args], cliEnv(daemon));
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => parseJson<HistoryLine>(line, 'askbridge history --json'));
}

/** Waits until `askbridge history` at `daemon` lists every one of `ids`; its lines then. */
function historyHolds(daemon: Daemon, ids: string[]): Promise<HistoryLine[]> {
  return waitUntil(
    async () => {
      const lines = await historyCli(daemon);
      return ids.every((id) => lines.some((line) => line.id === id)) ? lines : undefined;
    },
    SHARED_WITHIN_MS,
    `askbridge history to list ${ids.join(', ')}`,
    200,
  );
}

async function storeReachable(daemon: Daemon, reachable: boolean): Promise<void> {
  await waitUntil(
    async () => {
      const status = parseJson<StatusReply>((await runCli(['status', '--json'], daemon.env)).stdout, 'status');
      return status.store?.reachable === reachable ? true : undefined;
    },
    SHARED_WITHIN_MS,
    `the daemon to say the store ${reachable ? 'answers' : 'cannot be reached'}`,
    100,
  );
}

const fileLines = (daemon: Daemon, name: string) => readFileSync(join(daemon.home, name), 'utf8').split('\n').filter(Boolean);

/** alice (and any other `names`), added at `at`, known at every daemon: from then on every decision has an audit line. */
async function addAlice(at: Daemon, others: Daemon[], names: string[] = ['alice']): Promise<void> {
  for (const name of names) expect((await at.api('POST', '/api/people', { name })).status).toBe(200);
  for (const daemon of others) {
    await waitUntil(async () => ((await daemon.api<PeopleReply>('GET', '/api/people')).body.people.length === names.length ? true : undefined), SHARED_WITHIN_MS, 'every daemon to know them');
  }
}

describe.skipIf(!postgres.available || !chromiumState.available)('history and the audit trail shared through the store', () => {
  it("a question answered at A is in B's history, from the CLI and GET /api/history, naming A", async () => {
    const { daemons: [a, b] } = await onNewStore(2);
    const ask = await answeredAt(a!, 'records-history');

    const lines = await historyHolds(b!, [ask.id]);
    expect(lines.find((line) => line.id === ask.id)).toMatchObject({ id: ask.id, status: 'answered', source: 'person', daemon: idOf(a!), answers: ask.answers });
    const reply = await b!.api<HistoryReply>('GET', '/api/history');
    expect(reply.status).toBe(200);
    expect(reply.body.localOnly).toBeUndefined();
    expect(reply.body.entries.find((line) => line.id === ask.id)).toMatchObject({ daemon: idOf(a!), status: 'answered' });
    // B's own file knows nothing of it: B read it from the store.
    expect((await b!.history()).map((line) => line.id)).not.toContain(ask.id);

    // Text: the daemon is named once lines of more than one are shown.
    const atB = await answeredAt(b!, 'records-history-b');
    await historyHolds(a!, [atB.id]);
    const text = await runCli(['history'], cliEnv(a!));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`on daemon ${idOf(a!)}`);
    expect(text.stdout).toContain(`on daemon ${idOf(b!)}`);
  }, TEST_MS);

  it("a page paired for alice on B reads from the store only the lines routed to her or to everyone; B's CLI reads all", async () => {
    const { daemons: [a, b], database } = await onNewStore(2, { route: [{ name: 'permissions to bob', kind: ['permission'], to: ['bob'] }] });
    await addAlice(a!, [b!], ['alice', 'bob']);
    const question = await answeredAt(a!, 'records-routed-question');
    const sessionId = `records-routed-${database}`;
    const hook = runHook(permissionPayload(sessionId, 'Bash', { command: 'npm test' }), a!.env);
    const permission = await waitUntil(async () => (await a!.pending()).find((ask) => ask.sessionId === sessionId), SHARED_WITHIN_MS, 'the permission to wait at A');
    expect(permission.route).toMatchObject({ people: ['bob'] });
    expect((await a!.api('POST', `/api/asks/${permission.id}/decide`, { behavior: 'allow' })).status).toBe(200);
    expect((await hook.result).code).toBe(0);
    await historyHolds(b!, [question.id, permission.id]);

    const pairing = await b!.api<{ links: { local: string } }>('POST', '/api/pairings', { person: 'alice' });
    expect(pairing.status).toBe(200);
    const { page } = await openPairedPage(browser, b!, { pairingUrl: pairing.body.links.local });
    const alices = await page.evaluate(async () => {
      const response = await fetch('/api/history', { headers: { 'x-askbridge-key': localStorage.getItem('askbridge.pageKey') ?? '' } });
      return { status: response.status, body: (await response.json()) as HistoryReply };
    });
    expect(alices.status).toBe(200);
    const seen = alices.body.entries.map((line) => line.id);
    expect(seen).toContain(question.id);
    expect(seen).not.toContain(permission.id);
    expect((await b!.api<HistoryReply>('GET', '/api/history')).body.entries.map((line) => line.id)).toEqual(expect.arrayContaining([question.id, permission.id]));
  }, TEST_MS);

  it('lines written while the database is stopped reach the store once it is back, each once, also after A restarts', async () => {
    const { daemons: [a, b], database } = await onNewStore(2);
    await addAlice(a!, [b!]);
    const first = await answeredAt(a!, 'records-before');
    await historyHolds(b!, [first.id]);

    await store.cluster().stop();
    await storeReachable(a!, false);
    const away = [await answeredAt(a!, 'records-away-1'), await answeredAt(a!, 'records-away-2')];
    await store.cluster().start();
    await historyHolds(b!, away.map((ask) => ask.id));

    // A restarted (its process killed; its keeper starts another on the same port, the same daemon):
    // it catches up from its files, and the store has each line once.
    await a!.crash();
    await storeReachable(a!, true);
    const after = await answeredAt(a!, 'records-after-restart');
    await historyHolds(b!, [after.id]);
    const rows = async (table: 'history' | 'audit') =>
      Number((await store.cluster().query<{ count: string }>(`SELECT count(*) FROM askbridge.${table} WHERE daemon = '${idOf(a!)}'`, database))[0]!.count);
    expect(await rows('history')).toBe(fileLines(a!, 'history.jsonl').length);
    await waitUntil(async () => ((await rows('audit')) === fileLines(a!, 'audit.jsonl').length ? true : undefined), SHARED_WITHIN_MS, "the store to hold each of A's audit lines");
    expect(fileLines(a!, 'history.jsonl')).toHaveLength(4);
    expect(fileLines(a!, 'audit.jsonl')).toHaveLength(4);
    const ids = (await historyCli(b!)).map((line) => line.id);
    expect(ids.filter((id) => [first, ...away, after].some((ask) => ask.id === id))).toHaveLength(4);
    expect(new Set(ids).size).toBe(ids.length);
  }, TEST_MS);

  it("audit export at B holds A's and B's decisions; verify is 0 on a good store and names the line of a row changed in it", async () => {
    const { daemons: [a, b], database } = await onNewStore(2);
    await addAlice(a!, [b!]);
    const decided = [await answeredAt(a!, 'records-audit-a1'), await answeredAt(a!, 'records-audit-a2'), await answeredAt(b!, 'records-audit-b')];

    const exported = await waitUntil(
      async () => {
        const result = await runCli(['audit', 'export'], cliEnv(b!));
        expect(result.code, result.stderr).toBe(0);
        const lines = result.stdout.split('\n').filter(Boolean);
        return lines.length === 3 ? lines : undefined;
      },
      SHARED_WITHIN_MS,
      'audit export at B to hold three lines',
      200,
    );
    expect(exported.map((line) => (JSON.parse(line) as AuditLine).ask).sort()).toEqual(decided.map((ask) => ask.id).sort());
    // Each exactly as in its daemon's trail.
    expect(exported).toEqual(expect.arrayContaining([...fileLines(a!, 'audit.jsonl'), ...fileLines(b!, 'audit.jsonl')]));
    const csv = parseCsv((await runCli(['audit', 'export', '--format', 'csv'], cliEnv(b!))).stdout);
    expect(csv[0]!.at(-1)).toBe('daemon');
    expect(csv.slice(1).map((row) => row.at(-1)).sort()).toEqual([idOf(a!), idOf(a!), idOf(b!)].sort());

    for (const daemon of [a!, b!]) {
      const verified = await runCli(['audit', 'verify'], cliEnv(daemon!));
      expect(verified.code, verified.stdout).toBe(0);
      expect(verified.stdout).toMatch(/^ok: \d lines?, from .*\nstore: trail [0-9a-f]{12} of daemon .*: ok: .*\nstore: trail [0-9a-f]{12} of daemon .*: ok: /);
    }
    expect((await runCli(['audit', 'verify'], cliEnv(a!))).stdout).toContain(`of daemon ${idOf(a!)} (this machine's): ok: 2 lines`);

    // A's second line changed in the store: A has its key, and names it (its MAC, and the file differs).
    const change = (seq: number, from: string, to: string) =>
      store.cluster().query(`UPDATE askbridge.audit SET line = replace(line, '${from}', '${to}') WHERE daemon = '${idOf(a!)}' AND seq = ${seq}`, database);
    await change(2, '"status":"answered"', '"status":"declined"');
    const atA = await runCli(['audit', 'verify'], cliEnv(a!));
    expect(atA.code).toBe(1);
    expect(atA.stdout).toContain(`of daemon ${idOf(a!)} (this machine's): line 2: edited (its MAC does not match`);
    await change(2, '"status":"declined"', '"status":"answered"');
    expect((await runCli(['audit', 'verify'], cliEnv(a!))).code).toBe(0);

    // Its first line changed: B, without A's key, names it too (the trail is named by its first line).
    await change(1, '"status":"answered"', '"status":"declined"');
    const atB = await runCli(['audit', 'verify'], cliEnv(b!));
    expect(atB.code).toBe(1);
    expect(atB.stdout).toContain(`of daemon ${idOf(a!)}: line 1: not the line the trail is named by`);
    // B's own trail in the store is still whole, and said so.
    expect(atB.stdout).toContain(`of daemon ${idOf(b!)} (this machine's): ok: 1 lines`);
  }, TEST_MS);

  it('with the store stopped, askbridge history says why and that --local reads the own file, which works; the page says it shows only this daemon\'s history', async () => {
    const { daemons: [a] } = await onNewStore(1);
    const { page } = await openPairedPage(browser, a!);
    const ask = await answeredAt(a!, 'records-unreachable');
    await historyHolds(a!, [ask.id]);

    await store.cluster().stop();
    await storeReachable(a!, false);
    const failed = await runCli(['history'], cliEnv(a!));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(new RegExp(`the shared store cannot be read: cannot reach the store at 127\\.0\\.0\\.1:${store.cluster().port}`));
    expect(failed.stderr).toContain('history --local` reads this daemon\'s own history');
    expect((await historyCli(a!, '--local')).map((line) => line.id)).toContain(ask.id);
    const exported = await runCli(['audit', 'export'], cliEnv(a!));
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain('audit export --local');

    const reply = await a!.api<HistoryReply>('GET', '/api/history');
    expect(reply.status).toBe(200);
    expect(reply.body.localOnly?.reason).toMatch(/cannot reach the store|shutting down/);
    expect(reply.body.entries.map((line) => line.id)).toContain(ask.id);
    await page.locator('#history-toggle').click();
    await page.locator('#history-status', { hasText: "Only this daemon's history: the shared store cannot be reached" }).waitFor({ timeout: SHARED_WITHIN_MS });
    await page.locator('#history-list li').first().waitFor();
  }, TEST_MS);
});
