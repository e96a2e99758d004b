// One clock for every time the harness takes, and waiting on real processes, which take as long as
// a loaded machine makes them take.
import { performance } from 'node:perf_hooks';

/**
 * Epoch milliseconds, to a fraction of one, and monotonic: the clock a page reads as
 * `performance.timeOrigin + performance.now()` and close to the daemon's log `time` (whole ms),
 * so times taken here, in Chromium and in the daemon's log compare.
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((wake) => setTimeout(wake, ms));
}

export async function waitUntil<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, intervalMs = 20): Promise<T> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
