// A full disk under the state directory (a real, tiny tmpfs): answers still reach Claude, the
// daemon says it is degraded, and history catches up in order once there is room again.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerArgs, freshPayload, killStrayProcesses, loadFixture, parseJson, runCli, runHook, startDaemon, type Daemon, type FixtureAnswer } from './harness.js';

const mountPoint = mkdtempSync(join(tmpdir(), 'askbridge-tmpfs-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.warn('[history-disk-full] cannot mount a tmpfs here (needs root): skipped');
}
const suite = mounted ? describe : describe.skip;

/** Writes until the file system refuses: ENOSPC from here on. */
function fillUp(dir: string): string {
  const filler = join(dir, 'filler');
  for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1]) {
    try {
      for (;;) writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    }
  }
  return filler;
}

suite('history.jsonl on a full disk', () => {
  let daemon: Daemon;
  beforeAll(async () => {
    const home = join(mountPoint, 'state');
    mkdirSync(home, { mode: 0o700 });
    daemon = await startDaemon({ home });
  });
  afterAll(async () => {
    await killStrayProcesses();
    await daemon?.stop();
    if (mounted) execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  async function askAndAnswer(tag: string) {
    const payload = freshPayload('01-single-select', tag);
    const hook = runHook(payload, daemon.env);
    const question = await daemon.waitForQuestion(payload.tool_use_id);
    const answered = await runCli(answerArgs(question.id, payload, loadFixture<FixtureAnswer>('01-single-select.answer.json')), daemon.env);
    expect(answered.code).toBe(0);
    return { question, result: await hook.result };
  }
  const status = async () => parseJson<{ history: { error: string; waiting: number } | null }>((await runCli(['status', '--json'], daemon.env)).stdout, 'status');

  it('delivers the answer, reports itself degraded (status and page), and writes the waiting line once there is room', async () => {
    // A page's view: the banner messages on the event stream.
    const banners: Array<string | null> = [];
    const page = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${readFileSync(join(daemon.home, 'token'), 'utf8').trim()}` } });
    page.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; message?: string | null };
      if (message.type === 'banner') banners.push(message.message ?? null);
    });
    await new Promise((open) => page.once('open', open));
    const filler = fillUp(mountPoint);
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
    await expect.poll(() => banners.at(-1)).toBeNull();
    page.close();
  });
});
