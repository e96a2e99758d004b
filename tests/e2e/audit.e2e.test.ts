// The audit trail with the real daemon, hook, CLI and a page in Chromium: a page paired for a person
// allows a permission and the CLI answers a question; `askbridge audit verify` says the trail is
// whole and its lines name who decided and what they were shown; a line edited with sed is named;
// the export gives the rows. With a directory where the trail should be (unwritable, even for root),
// a person's answer is refused with 503 `not_recorded` and its ask still waits, while a policy's
// timeout still settles its ask, and status and the page say the trail cannot be written; once the
// trail is back, the answer goes through.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLine } from '../../src/audit-file.js';
import type { AskView } from '../../src/protocol.js';
import { decisionOf, permissionPayload, requestPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { parseCsv } from '../stack/csv.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { answerArgs, freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';

const chromiumState = chromiumAvailability();
const trailLines = (daemon: Daemon): AuditLine[] =>
  readFileSync(join(daemon.home, 'audit.jsonl'), 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as AuditLine);

describe.skipIf(!chromiumState.available)('the audit trail', () => {
  let daemon: Daemon;
  let browser: Browser;
  let paired: PairedPage;
  beforeAll(async () => {
    // askbridge knows one person, alice; the page is paired for her.
    const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-audit-'));
    writeFileSync(join(home, 'people.json'), `${JSON.stringify([{ name: 'alice', groups: [], addedAt: Date.now() }])}\n`, { mode: 0o600 });
    daemon = await startDaemon({ home });
    browser = await launchBrowser();
    const { status, body } = await daemon.api<{ links: { local: string } }>('POST', '/api/pairings', { person: 'alice' });
    expect(status).toBe(200);
    paired = await openPairedPage(browser, daemon, { pairingUrl: body.links.local });
  });
  afterAll(async () => {
    await killStrayProcesses();
    await browser?.close();
    await daemon?.stop();
  });

  let allowed: AskView;
  let answered: AskView;

  it('holds a line for each decision, with who decided and the exact input; verify says it is whole', async () => {
    const held = await requestPermission(daemon, permissionPayload('session-audit', 'Bash', { command: 'npm test', description: 'Run the tests' }));
    await (await openAsk(paired.page, held.view.id)).getByRole('button', { name: 'Allow once', exact: true }).click();
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    allowed = await daemon.ask(held.view.id);

    const payload = freshPayload('01-single-select', 'audit');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const cli = await runCli(answerArgs(question.id, payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), daemon.env);
    expect(cli.code, cli.stderr).toBe(0);
    expect((await hook.result).code).toBe(0);
    answered = await daemon.ask(question.id);

    const verified = await runCli(['audit', 'verify'], daemon.env);
    expect(verified.code, verified.stderr).toBe(0);
    const [first, second] = trailLines(daemon);
    expect(verified.stdout).toBe(`ok: 2 lines, from ${first!.at} to ${second!.at}\n`);
    // The page's person and device come from its pairing.
    expect(allowed.source).toMatchObject({ kind: 'person', client: 'page', person: 'alice', device: expect.any(String) });
    expect(first).toMatchObject({
      seq: 1,
      event: 'settled',
      ask: allowed.id,
      kind: 'approval',
      session: 'session-audit',
      project: '/home/alice/projects/shop',
      input: { approval: { toolName: 'Bash', toolInput: { command: 'npm test', description: 'Run the tests' } } },
      decision: { status: 'allowed', decision: { behavior: 'allow' } },
      by: allowed.source,
    });
    expect(second).toMatchObject({
      seq: 2,
      ask: question.id,
      kind: 'question',
      session: payload.session_id,
      input: { questions: question.questions },
      decision: { status: 'answered', answers: answered.answers },
      by: { kind: 'person', client: 'cli' },
    });
  });

  it('names the line edited with sed (a copy, checked with --file against the same key and head)', async () => {
    const copy = join(daemon.home, 'audit-copy.jsonl');
    copyFileSync(join(daemon.home, 'audit.jsonl'), copy);
    const sed = spawnSync('sed', ['-i', '2s/"session":"/&x/', copy]);
    expect(sed.status).toBe(0);
    expect(readFileSync(copy, 'utf8')).not.toBe(readFileSync(join(daemon.home, 'audit.jsonl'), 'utf8'));
    const verified = await runCli(['audit', 'verify', '--file', copy], daemon.env);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toBe('line 2: edited (its MAC does not match: changed, or written without the key)\n');
    const missing = await runCli(['audit', 'verify', '--file', join(daemon.home, 'none.jsonl')], daemon.env);
    expect(missing.code).toBe(2);
  });

  it('exports the lines as CSV, one row each, and as JSON lines exactly as in the trail', async () => {
    const csv = await runCli(['audit', 'export', '--format', 'csv'], daemon.env);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = parseCsv(csv.stdout);
    expect(header).toEqual(['time', 'kind', 'ask', 'agent', 'machine', 'project', 'person', 'device', 'client', 'status', 'decision', 'input']);
    const [first, second] = trailLines(daemon);
    expect(rows).toEqual([
      [first!.at, 'settled', allowed.id, 'claude-code', '', '/home/alice/projects/shop', 'alice', String((allowed.source as { device?: string }).device), 'page', 'allowed', '{"decision":{"behavior":"allow"}}', JSON.stringify(first!.input)],
      [second!.at, 'settled', answered.id, 'claude-code', '', answered.cwd, '', '', 'cli', 'answered', JSON.stringify({ answers: answered.answers }), JSON.stringify(second!.input)],
    ]);
    const json = await runCli(['audit', 'export', '--since', first!.at, '--until', second!.at], daemon.env);
    expect(json.stdout).toBe(`${readFileSync(join(daemon.home, 'audit.jsonl'), 'utf8').split('\n')[0]}\n`);
    const bad = await runCli(['audit', 'export', '--since', 'yesterday-ish'], daemon.env);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--since takes a date or a time') });
  });

  it('refuses a person\'s answer with 503 not_recorded while the trail cannot be written, the ask still waiting; a policy\'s timeout still settles; once it can, the answer goes through', async () => {
    const trail = join(daemon.home, 'audit.jsonl');
    // A directory where the file was: no write reaches it, whoever the daemon runs as.
    renameSync(trail, `${trail}.kept`);
    mkdirSync(trail);
    const payload = freshPayload('01-single-select', 'audit-unwritable');
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const responses = loadFixture<FixtureAnswer>('01-single-select.answer.json').responses;
    const refused = await daemon.api<{ error: { code: string; message: string } }>('POST', `/api/asks/${question.id}/answer`, { responses });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('not_recorded');
    expect(refused.body.error.message).toMatch(/^nothing was sent: the decision's audit record could not be written \(EISDIR.*\)\. It still waits\.$/);
    expect((await daemon.ask(question.id)).status).toBe('pending');
    await daemon.waitForLog((entry) => entry.msg === 'audit record not written: the decision is not released, the ask still waits' && entry.askId === question.id);
    // Said as other problems of the daemon are: status, and the page's banner.
    const status = await runCli(['status', '--json'], daemon.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ audit: { error: expect.stringContaining('EISDIR') } });
    expect((await runCli(['status'], daemon.env)).stdout).toMatch(/^degraded: the audit trail cannot be written \(EISDIR.*\) since .*; a person's decisions wait until it can$/m);
    await expect.poll(() => paired.page.locator('#banner-text').textContent()).toMatch(/^The audit trail cannot be written \(EISDIR.*\): a person's decisions wait until it can$/);

    // A script's question nobody answers: its timeout settles it all the same, logged as not recorded.
    const script = await runCli(['ask', '--question', 'Deploy now?', '--option', 'Yes: go', '--option', 'No: wait', '--timeout', '1'], daemon.env);
    expect(script.code, script.stderr).toBe(5);
    await daemon.waitForLog((entry) => entry.msg === 'audit record not written: released without it');

    rmdirSync(trail);
    renameSync(`${trail}.kept`, trail);
    const accepted = await daemon.api('POST', `/api/asks/${question.id}/answer`, { responses });
    expect(accepted.status).toBe(200);
    expect((await hook.result).code).toBe(0);
    const verified = await runCli(['audit', 'verify'], daemon.env);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/^ok: 3 lines, /);
    expect(JSON.parse((await runCli(['status', '--json'], daemon.env)).stdout)).toMatchObject({ audit: null });
    await paired.page.locator('#banner').waitFor({ state: 'hidden' });
    expect(trailLines(daemon)[2]).toMatchObject({ ask: question.id, decision: { status: 'answered' }, by: { kind: 'person', client: 'cli' } });
  });
});
