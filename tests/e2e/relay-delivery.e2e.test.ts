// A relayed decision on its way to its agent, against the real daemon, in a real Chromium: a relay
// stand-in speaks askbridge's own attach API (POST /api/attach/opencode, then /api/asks/ID/delivery),
// as `askbridge attach opencode` does once opencode confirms or can no longer take the decision.
// Until the relay says it was delivered, the page keeps the answered question as "Answered, not yet
// delivered to opencode", and history (the file's readers, `askbridge history`, the page's History,
// the CSV) says "answered, not yet delivered"; delivered, the page shows it answered; never
// deliverable, both say "not delivered" and why, never "answered". history.jsonl stays append-only:
// the later line for an id stands for the earlier one. The daemon killed outright between the
// answer and the delivery (its keeper starts a new one) still has the decision: pages and
// `askbridge pending` still say "not yet delivered", a relay that comes back gets the decision, and
// the relay's report is taken.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history-file.js';
import type { AskView } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { parseCsv } from '../stack/csv.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

const QUESTION = { question: 'Which branch should the release come from?', header: 'Branch', options: [{ label: 'main', description: 'as usual' }, { label: 'next', description: 'the new one' }] };

/** opencode's pending question as the relay sends it on. */
const relayed = (id: string) => ({ request: { kind: 'question', question: { id, sessionID: `ses_${id}`, questions: [QUESTION] } }, session: { directory: '/home/alice/projects/release' }, environment: {} });

const finishedCard = (page: Page, id: string) => page.locator(`#finished article[data-question-id="${id}"]`);

describe.skipIf(!chromiumState.available)('a relayed decision not delivered yet', () => {
  let daemon: Daemon;
  let browser: Browser;
  let main: PairedPage;
  /** The relay's held requests: each comes back once its ask is settled. */
  const held: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    daemon = await startDaemon({ defaults: true });
    browser = await launchBrowser();
    main = await openPairedPage(browser, daemon);
  });

  afterAll(async () => {
    await Promise.allSettled(held);
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  /** The relay stand-in relays opencode's question `id`, and holds its request until it is settled. */
  async function relay(id: string): Promise<AskView> {
    held.push(attach(id));
    return daemon.waitForAsk(id);
  }

  /** The relay's held request for opencode's question `id`: the ask and opencode's answer, once it is settled. */
  const attach = (id: string) => daemon.api<{ ask: AskView; reply: unknown }>('POST', '/api/attach/opencode', relayed(id), { held: true });

  const report = (ask: AskView, body: unknown) => daemon.api<{ ask: AskView }>('POST', `/api/asks/${ask.id}/delivery`, body);
  const historyOut = async () => {
    const result = await runCli(['history'], daemon.env);
    expect(result.code).toBe(0);
    return result.stdout;
  };

  it('answered on the page: "not yet delivered" until the relay says opencode took it, then answered; history says each', async () => {
    const ask = await relay('que_release');
    const card = await openAsk(main.page, ask.id);
    await card.getByRole('radio', { name: 'main', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    const shown = finishedCard(main.page, ask.id);
    await expect.poll(() => shown.getAttribute('data-status')).toBe('undelivered');
    expect(await shown.locator('.status-title').textContent()).toBe('Answered, not yet delivered to opencode');
    expect((await daemon.history()).find((line) => line.id === ask.id)?.delivery).toBe('waiting');
    expect(await historyOut()).toContain('answered, not yet delivered');

    // A page opened now learns it from its snapshot.
    const other = await openPairedPage(browser, daemon);
    await expect.poll(() => finishedCard(other.page, ask.id).getAttribute('data-status')).toBe('undelivered');
    await other.context.close();

    expect((await report(ask, { delivered: true })).status).toBe(200);
    await expect.poll(() => shown.getAttribute('data-status')).toBe('answered');
    expect(await shown.locator('.status-title').textContent()).not.toContain('delivered');
    const lines = (await daemon.history()).filter((line) => line.id === ask.id);
    expect(lines.map((line) => line.delivery)).toEqual(['waiting', 'delivered']);
    // Readers take the later line for the earlier one.
    expect(readHistory(daemon.historyFile).filter((line) => line.id === ask.id).map((line) => line.delivery)).toEqual(['delivered']);
    expect(await historyOut()).not.toContain('not yet delivered');
  });

  it('never deliverable: "Not delivered" and why, on the page, in `askbridge history`, the page\'s History and the CSV; never "answered"', async () => {
    const ask = await relay('que_gone');
    const answered = await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: QUESTION.question, selected: ['next'] }] });
    expect(answered.status).toBe(200);
    const shown = finishedCard(main.page, ask.id);
    await expect.poll(() => shown.getAttribute('data-status')).toBe('undelivered');

    const why = 'opencode no longer has this question';
    expect((await report(ask, { undeliverable: why })).status).toBe(200);
    await expect.poll(() => shown.getAttribute('data-status')).toBe('undeliverable');
    expect(await shown.locator('.status-title').textContent()).toBe(`Not delivered: ${why}`);

    const out = await historyOut();
    expect(out).toContain(`not delivered: ${why}`);
    expect(out).not.toContain('not yet delivered');

    await main.page.locator('#history-toggle').click();
    const entry = main.page.locator('#history .history-delivery').first();
    await expect.poll(() => entry.textContent()).toBe(`Not delivered: ${why}`);

    const response = await fetch(`${daemon.url}api/history?format=csv`, { headers: { authorization: `Bearer ${daemon.token}` } });
    const csv = parseCsv(await response.text());
    const header = csv[0]!;
    const row = csv.find((cells) => cells[header.indexOf('question')] === QUESTION.question && cells[header.indexOf('delivery')]?.startsWith('not delivered'));
    expect(row?.[header.indexOf('delivery')]).toBe(`not delivered: ${why}`);
    // The file keeps both lines, in order: nothing written is rewritten.
    expect(readFileSync(daemon.historyFile, 'utf8').split('\n').filter((line) => line.includes(ask.id))).toHaveLength(2);
  });

  // A daemon killed and started again by its keeper, and a page opened after it: about 12 s on an idle
  // machine, and more than the default 30 s on a loaded one (as the other tests of a crash, it has 60).
  it('the daemon killed outright between the answer and the delivery: still "not yet delivered"; the relay that comes back gets the decision, and its report is taken', async () => {
    const decided = attach('que_crash');
    held.push(decided);
    const ask = await daemon.waitForAsk('que_crash');
    expect((await daemon.api('POST', `/api/asks/${ask.id}/answer`, { responses: [{ question: QUESTION.question, selected: ['next'] }] })).status).toBe(200);
    const first = await decided;
    expect(first.status).toBe(200);
    expect(first.body.reply).not.toBeNull();

    await daemon.crash();
    // `askbridge pending`, and a page opened now, learn it from the new daemon.
    const pending = await runCli(['pending'], daemon.env);
    expect(pending.stdout).toContain(`${ask.id}  /home/alice/projects/release`);
    expect(pending.stdout).toContain('(answered, not yet delivered)');
    const other = await openPairedPage(browser, daemon);
    await expect.poll(() => finishedCard(other.page, ask.id).getAttribute('data-status')).toBe('undelivered');

    // The relay, restarted too, relays the same question again: the same ask, settled, and opencode's same answer; no new card.
    const again = await attach('que_crash');
    expect(again.status).toBe(200);
    expect(again.body.ask).toMatchObject({ id: ask.id, status: 'answered', delivery: 'waiting' });
    expect(again.body.reply).toEqual(first.body.reply);
    expect(await daemon.pending()).toEqual([]);

    expect((await report(ask, { delivered: true })).status).toBe(200);
    await expect.poll(() => finishedCard(other.page, ask.id).getAttribute('data-status')).toBe('answered');
    expect((await daemon.history()).filter((line) => line.id === ask.id).map((line) => line.delivery)).toEqual(['waiting', 'delivered']);
    expect((await runCli(['pending'], daemon.env)).stdout).not.toContain(ask.id);
    await other.context.close();
  }, 60_000);
});
