// A full disk under the state directory (a real, tiny tmpfs): answers still reach Claude, the
// daemon says it is degraded, and history catches up in order once there is room again. The disk
// fills up in the middle of an append too: the file system takes part of it, and what it took is
// left as one unreadable line, never glued to the next line nor written twice.
import { mkdirSync, readFileSync, rmSync, statfsSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryLine } from '../../src/history-file.js';
import { answerArgs, freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { line } from '../stack/history-lines.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses, parseJson, runCli, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { mountSmallDisk, type SmallDisk } from '../stack/small-disk.js';

/**
 * history.jsonl as an earlier run left it: one line, `bytes` long with its newline. The file system
 * gives a file room a page at a time, so the size says how much of an append still fits once the
 * disk is full: the rest of the file's last page.
 */
function writeEarlierHistory(path: string, bytes: number): void {
  const padding = bytes - Buffer.byteLength(`${JSON.stringify(line(0, { project: '' }))}\n`);
  writeFileSync(path, `${JSON.stringify(line(0, { project: 'x'.repeat(padding) }))}\n`, { mode: 0o600 });
}

/** Every line of history.jsonl as written, and which of them a reader can read. */
function rawHistory(path: string): Array<{ text: string; readable: HistoryLine | undefined }> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((text) => {
      try {
        return { text, readable: JSON.parse(text) as HistoryLine };
      } catch {
        return { text, readable: undefined };
      }
    });
}

/** What a reader of history sees (the page, `askbridge history`), oldest first; asked once every settled question is written or waits. */
async function readableHistory(daemon: Daemon): Promise<HistoryLine[]> {
  const { status, body } = await daemon.api<{ entries: HistoryLine[] }>('GET', '/api/history?limit=1000');
  expect(status).toBe(200);
  return body.entries.reverse();
}

const statusOf = async (daemon: Daemon) => parseJson<{ history: { error: string; waiting: number } | null }>((await runCli(['status', '--json'], daemon.env)).stdout, 'status');

function suiteOn(disk: SmallDisk) {
  return disk.path ? describe : describe.skip;
}

const fullDisk = mountSmallDisk('2m', 'history-disk-full');

suiteOn(fullDisk)('history.jsonl on a full disk', () => {
  let daemon: Daemon;
  /** How much of the first line written on the full disk still fits in history.jsonl's last page. */
  const FITS_BYTES = 40;
  beforeAll(async () => {
    const home = join(fullDisk.path!, 'state');
    mkdirSync(home, { mode: 0o700 });
    writeEarlierHistory(join(home, 'history.jsonl'), statfsSync(fullDisk.path!).bsize - FITS_BYTES);
    daemon = await startDaemon({ home });
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
    fullDisk.unmount();
  });

  async function askAndAnswer(tag: string) {
    const payload = freshPayload('01-single-select', tag);
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const answered = await runCli(answerArgs(question.id, payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), daemon.env);
    expect(answered.code, answered.stderr).toBe(0);
    return { question, result: await hook.result };
  }

  it('delivers the answer, reports itself degraded (status and page), and writes the waiting line whole on a new line once there is room', async () => {
    // A page's view: the banner messages on the event stream.
    const banners: Array<string | null> = [];
    const page = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${daemon.token}` } });
    page.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; message?: string | null };
      if (message.type === 'banner') banners.push(message.message ?? null);
    });
    await new Promise((open) => page.once('open', open));
    const filler = fullDisk.fillUp();
    const first = await askAndAnswer('disk-full-1');
    expect(first.result.code).toBe(0);
    expect(JSON.parse(first.result.stdout)).toEqual(loadFixture('01-single-select.expected-allow.json'));
    await daemon.waitForLog((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('could not write history.jsonl'));
    expect(await statusOf(daemon)).toMatchObject({ history: { error: 'ENOSPC', waiting: 1 } });
    expect((await runCli(['status'], daemon.env)).stdout).toMatch(/degraded: history\.jsonl cannot be written \(ENOSPC\)/);
    await expect.poll(() => banners.at(-1)).toMatch(/^History cannot be written \(ENOSPC\): answers still reach Claude, and 1 line\(s\) wait to be recorded/);

    rmSync(filler);
    const second = await askAndAnswer('disk-full-2');
    expect(second.result.code).toBe(0);
    await daemon.waitForLog((entry) => entry.msg === 'history.jsonl is written again: it has caught up');
    expect((await readableHistory(daemon)).map((entry) => entry.id)).toEqual(['0', first.question.id, second.question.id]);
    // The part of the first line the full disk took is a line of its own, which readers skip.
    const raw = rawHistory(daemon.historyFile);
    expect(raw.map((entry) => entry.readable?.id)).toEqual(['0', undefined, first.question.id, second.question.id]);
    expect(raw[1]!.text).toBe(raw[2]!.text.slice(0, FITS_BYTES));
    expect((await statusOf(daemon)).history).toBeNull();
    expect(statSync(daemon.historyFile).mode & 0o777).toBe(0o600);
    await expect.poll(() => banners.at(-1)).toBeNull();
    page.close();
  });
});

const tightDisk = mountSmallDisk('2m', 'history-partial-write');

suiteOn(tightDisk)('history.jsonl when the disk fills up in the middle of writing what waited', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    const home = join(tightDisk.path!, 'state');
    mkdirSync(home, { mode: 0o700 });
    // Ends on a page boundary: on a full disk not one byte of the next line fits.
    writeEarlierHistory(join(home, 'history.jsonl'), statfsSync(tightDisk.path!).bsize);
    // Each question is settled by a rule as soon as it is asked: one history line each. Asked by the
    // http hook, which keeps nothing on disk while it waits, so history alone takes the room freed.
    daemon = await startDaemon({ home, config: { rules: [{ header: 'Database', choose: 'SQLite', when: 'immediately' }] } });
  });
  afterAll(async () => {
    await daemon?.stop();
    tightDisk.unmount();
  });

  /** Asks, and returns the tool call's id once the rule has settled it. */
  async function askSettledByRule(tag: string): Promise<string> {
    const payload = freshPayload('01-single-select', tag);
    const { response } = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload });
    expect((await response).statusCode).toBe(200);
    return payload.tool_use_id;
  }
  const toolCalls = async () => (await readableHistory(daemon)).map((entry) => entry.toolUseId);

  it('writes every line once and in order, the lines written whole before the disk filled up not again', async () => {
    const filler = tightDisk.fillUp();
    const waiting: string[] = [];
    // More than a page of lines waits in memory.
    for (let index = 0; index < 12; index++) waiting.push(await askSettledByRule(`partial-${index}`));
    expect(await toolCalls()).toEqual(['tool-0']);
    expect(await statusOf(daemon)).toMatchObject({ history: { error: 'ENOSPC', waiting: 12 } });

    // Room for one more page: the next write takes what fits of the lines waiting, and fails.
    truncateSync(filler, statSync(filler).size - statfsSync(tightDisk.path!).bsize);
    waiting.push(await askSettledByRule('partial-12'));
    const written = await toolCalls();
    expect(written).toEqual(['tool-0', ...waiting.slice(0, written.length - 1)]);
    expect(written.length).toBeGreaterThan(1);
    expect((await statusOf(daemon)).history).toMatchObject({ error: 'ENOSPC', waiting: 14 - written.length });

    rmSync(filler);
    waiting.push(await askSettledByRule('partial-13'));
    await daemon.waitForLog((entry) => entry.msg === 'history.jsonl is written again: it has caught up');
    expect((await statusOf(daemon)).history).toBeNull();
    expect(await toolCalls()).toEqual(['tool-0', ...waiting]);
    const unreadable = rawHistory(daemon.historyFile).filter((entry) => entry.readable === undefined);
    expect(unreadable).toHaveLength(1);
  });
});
