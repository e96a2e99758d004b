// The daemon as `npm run build` bundles it (scripts/bundle-daemon.mjs): the packages it loads when
// asked are bundles of their own, which it loads with require(); each must hand the daemon what it
// takes from the package (a bundle that exported nothing would only fail when first used).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { assertBuildIsFresh } from '../stack/env.js';

const requireFromDist = createRequire(new URL('../../dist/daemon/main.js', import.meta.url));

describe("the daemon's bundle", () => {
  it('has each package it loads when asked in a bundle that exports what the daemon uses', () => {
    assertBuildIsFresh();
    const lazy = (name: string) => requireFromDist(`./lazy/${name}.cjs`) as Record<string, unknown>;
    expect(typeof lazy('chokidar').watch).toBe('function'); // config-watch.ts
    expect(typeof lazy('web-push').generateRequestDetails).toBe('function'); // push.ts
    expect(typeof lazy('pino-roll')).toBe('function'); // logger.ts, in the background
    expect(typeof lazy('pino-pretty')).toBe('function'); // logger.ts, on a terminal
    expect(typeof lazy('fastify-swagger')).toBe('function'); // openapi.ts
    expect(typeof (lazy('pg').default as { Pool?: unknown }).Pool).toBe('function'); // store/postgres.ts, with a shared store set
  });
});
