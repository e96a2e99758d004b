// A full disk under the state directory (a real, tiny tmpfs): answers still reach Claude, the
// daemon says it is degraded, and history catches up in order once there is room again.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerArgs, freshPayload, loadFixture, type FixtureAnswer } from '../stack/fixtures.js';
import { killStrayProcesses, parseJson, runCli, runHook } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { mountSmallDisk } from '../stack/small-disk.js';

const disk = mountSmallDisk('2m', 'history-disk-full');
const suite = disk.path ? describe : describe.skip;

suite('history.jsonl on a full disk', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    const home = join(disk.path!, 'state');
    mkdirSync(home, { mode: 0o700 });
    daemon = await startDaemon({ home });
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
    disk.unmount();
  });

  async function askAndAnswer(tag: string) {
    const payload = freshPayload('01-single-select', tag);
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    const answered = await runCli(answerArgs(question.id, payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), daemon.env);
    expect(answered.code).toBe(0);
    return { question, result: await hook.result };
  }
  const status = async () => parseJson<{ history: { error: string; waiting: number } | null }>((await runCli(['status', '--json'], daemon.env)).stdout, 'status');

  it('delivers the answer, reports itself degraded (status and page), and writes the waiting line once there is room', async () => {
    // A page's view: the banner messages on the event stream.
    const banners: Array<string | null> = [];
    const page = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${daemon.token}` } });
    page.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; message?: string | null };
      if (message.type === 'banner') banners.push(message.message ?? null);
    });
    await new Promise((open) => page.once('open', open));
    const filler = disk.fillUp();
    const first = await askAndAnswer('disk-full-1');
    expect(first.result.code).toBe(0);
    expect(JSON.parse(first.result.stdout)).toEqual(loadFixture('01-single-select.expected-allow.json'));
    await daemon.waitForLog((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('could not write history.jsonl'));
    expect(await status()).toMatchObject({ history: { error: 'ENOSPC', waiting: 1 } });
    expect((await runCli(['status'], daemon.env)).stdout).toMatch(/degraded: history\.jsonl cannot be written \(ENOSPC\)/);
    await expect.poll(() => banners.at(-1)).toMatch(/^History cannot be written \(ENOSPC\): answers still reach Claude, and 1 line\(s\) wait to be recorded/);

    rmSync(filler);
    const second = await askAndAnswer('disk-full-2');
    expect(second.result.code).toBe(0);
    await daemon.waitForLog((entry) => entry.msg === 'history.jsonl is written again: it has caught up');
    expect((await daemon.history()).map((line) => line.id)).toEqual([first.question.id, second.question.id]);
    expect((await status()).history).toBeNull();
    expect(statSync(daemon.historyFile).mode & 0o777).toBe(0o600);
    await expect.poll(() => banners.at(-1)).toBeNull();
    page.close();
  });
});
