import { defineConfig } from 'vitest/config';

// Conformance tests drive the real Claude Code client in tmux: slow, and each
// one owns a terminal, so they run one file at a time with long timeouts.
export default defineConfig({
  test: {
    include: ['tests/conformance/**/*.conformance.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    maxConcurrency: 1,
    pool: 'forks',
  },
});
