// @ts-check
// Builds dist/: the TypeScript (tsc), the page's static files, the daemon's bundle, and the record of
// what it was built from (build-inputs.mjs). `--if-stale` builds only when an input changed since
// the last build: `npm start` and `npm test` start from the existing build when it is up to date.
// Imports nothing an old Node lacks: the Node is checked before anything is built.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { requireSupportedNode } from '../bin/node-version.mjs';
import { digestInputs, RECORD_PATH, ROOT, staleInputs } from './build-inputs.mjs';

requireSupportedNode();

if (process.argv.includes('--if-stale')) {
  const stale = staleInputs();
  if (stale.length === 0) process.exit(0);
  const shown = stale.slice(0, 3).join(', ') + (stale.length > 3 ? ` and ${stale.length - 3} more` : '');
  process.stderr.write(`askbridge: building (changed since the last build: ${shown})\n`);
}

// The digests before the build: a file edited while it runs leaves the build stale, as it is.
const inputs = digestInputs();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const steps = [
  [tsc, '-p', 'tsconfig.build.json'],
  [join(ROOT, 'scripts', 'build-web.mjs')],
  [join(ROOT, 'scripts', 'bundle-daemon.mjs')],
];
for (const step of steps) {
  const result = spawnSync(process.execPath, step, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
mkdirSync(dirname(RECORD_PATH), { recursive: true });
writeFileSync(RECORD_PATH, `${JSON.stringify(inputs, null, 1)}\n`);
