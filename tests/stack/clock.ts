// One clock for every time the harness takes, and waiting on real processes, which take as long as
// a loaded machine makes them take.
import { performance } from 'node:perf_hooks';

/**
 * Epoch milliseconds, to a fraction of one, and monotonic: for durations in this process. It counts
 * from this process's own reading of the system clock at its start, as a page's
 * `performance.timeOrigin + performance.now()` counts from the page's, and each drifts from the system
 * clock; so a page's times compare with these only through an offset measured between the two, and
 * the daemon's (`Date.now()`: its asks' times, its log `time`) only with `Date.now()` taken here.
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

/**
 * Waits woken by the code that changes what they wait on, instead of polling: each wait's probe runs
 * at once and again on every wake(), until it yields a value or its time runs out.
 */
export function wakeableWaits(): { wake(): void; until<T>(probe: () => T | undefined, timeoutMs: number, timedOut: () => Error): Promise<T> } {
  const checks = new Set<() => void>();
  return {
    wake(): void {
      for (const check of checks) check();
    },
    until<T>(probe: () => T | undefined, timeoutMs: number, timedOut: () => Error): Promise<T> {
      return new Promise<T>((found, failed) => {
        const check = () => {
          const value = probe();
          if (value === undefined) return;
          clearTimeout(timer);
          checks.delete(check);
          found(value);
        };
        const timer = setTimeout(() => {
          checks.delete(check);
          failed(timedOut());
        }, timeoutMs);
        checks.add(check);
        check();
      });
    },
  };
}
