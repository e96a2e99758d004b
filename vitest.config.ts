import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: ['tests/conformance/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end files start a daemon and a browser each; two cores run two files at once.
    maxWorkers: 2,
  },
});
