// Assertions over what the stack's processes did, for the tests (the bench reports, it does not assert).
import { expect } from 'vitest';
import type { Daemon } from './daemon.js';
import type { ProcessResult } from './processes.js';

/** The hook gave the question back to the terminal: exit 0 and nothing on stdout. */
export function expectSilentPassThrough(result: ProcessResult): void {
  expect(result.signal).toBeNull();
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('');
}

/**
 * A command hook run with ASKBRIDGE_DEBUG=1 left at once because `daemon`, on its way out, handed
 * question `askId` to the terminal and told the hook so. (A connection that merely dropped would have
 * the hook try again until its own deadline.)
 */
export async function expectHandedBackByStoppingDaemon(daemon: Daemon, askId: string, result: ProcessResult): Promise<void> {
  expectSilentPassThrough(result);
  expect(result.stderr).toBe('askbridge hook: no answer (handed-to-terminal): the terminal asks\n');
  const settled = await daemon.waitForLog((entry) => entry.msg === 'question settled' && entry.askId === askId, 10_000, `the daemon's log line that settled ${askId}`);
  expect(settled).toMatchObject({ status: 'handed-to-terminal', source: 'daemon-stopped' });
}
