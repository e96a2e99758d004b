// Assertions over what the stack's processes did, for the tests (the bench reports, it does not assert).
import { expect } from 'vitest';
import type { ProcessResult } from './processes.js';

/** The hook gave the question back to the terminal: exit 0 and nothing on stdout. */
export function expectSilentPassThrough(result: ProcessResult): void {
  expect(result.signal).toBeNull();
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('');
}
