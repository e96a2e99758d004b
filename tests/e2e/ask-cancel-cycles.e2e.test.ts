// 10,000 questions asked and withdrawn (the hook's connection closed, as Esc does) against one real
// daemon: no growth in its pending questions, descriptors or memory beyond its bounded store of
// finished questions.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPayload } from '../stack/fixtures.js';
import { parseJson, runCli } from '../stack/processes.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { hookBody, openQuestion } from '../stack/hook-client.js';

const CYCLES = 10_000;
const AT_ONCE = 16;

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon({ config: { waitSeconds: 600 } });
});
afterAll(async () => {
  await daemon?.stop();
});

/** Asks one question as the hook does and withdraws it as soon as the daemon has accepted it. */
async function askAndCancel(index: number): Promise<void> {
  const asked = openQuestion({ port: daemon.port, token: daemon.token, body: hookBody(freshPayload('01-single-select', `cycle-${index}`)) });
  await asked.accepted;
  asked.close(); // the hook goes away, as on Esc
}

async function cycles(from: number, to: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < to) await askAndCancel(next++);
    }),
  );
}

const descriptors = () => readdirSync(`/proc/${daemon.child.pid}/fd`).length;
const rssMb = () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${daemon.child.pid}/status`, 'utf8'))![1]) / 1024;
const pending = async () => parseJson<{ pending: number }>((await runCli(['status', '--json'], daemon.env)).stdout, 'status').pending;

describe(`${CYCLES} questions asked and withdrawn`, () => {
  it('leave no pending question, no descriptor and no memory growth beyond the bounded store', async () => {
    // Past the store's 2,000 kept finished questions first: from there on, nothing may grow.
    await cycles(0, 3000);
    await expect.poll(pending, { timeout: 10_000 }).toBe(0);
    const fdsBefore = descriptors();
    const rssBefore = rssMb();

    await cycles(3000, CYCLES);
    await expect.poll(pending, { timeout: 10_000 }).toBe(0);
    expect(descriptors()).toBeLessThanOrEqual(fdsBefore + 5);
    // Garbage collection is lazy: RSS moves by tens of MB either way between samples (seen: -3 to +31).
    // The bound catches a leak that matters: 10 KiB kept per question would be 70 MB here.
    expect(rssMb() - rssBefore).toBeLessThan(64);
    const history = await daemon.history();
    expect(history.length).toBe(CYCLES);
    expect(history.every((line) => line.status === 'cancelled')).toBe(true);
  }, 240_000);
});
