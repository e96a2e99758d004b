import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: ['tests/conformance/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Waiting on real processes: a loaded machine can take seconds to start a few of them.
    expect: { poll: { timeout: 10_000, interval: 25 } },
    // End-to-end files start a daemon and a browser each; two cores run two files at once.
    maxWorkers: 2,
  },
});
