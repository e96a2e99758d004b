// @ts-check
// What dist/ is built from, and whether it is up to date. A build records the digest of every input
// in dist/build-inputs.json; dist/ is up to date when each input still has its recorded digest and
// the build's outputs are there. Content, not modification times: a checkout, a copy or a clock
// that moved never makes an old build look new.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORD = join(ROOT, 'dist', 'build-inputs.json');

/** Folders whose every file is an input, and single files that are. */
const INPUT_DIRS = ['src'];
const INPUT_FILES = ['scripts/build.mjs', 'scripts/build-inputs.mjs', 'scripts/build-web.mjs', 'scripts/bundle-daemon.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
/** What a complete build leaves: the CLI, the daemon's bundle, the page. */
const OUTPUTS = ['dist/cli/main.js', 'dist/daemon/bundle.cjs', 'dist/web/index.html'];

/** @param {string} dir @returns {string[]} */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** Every input's digest, by its path from the project's root. @returns {Record<string, string>} */
export function digestInputs() {
  const paths = [...INPUT_DIRS.flatMap((dir) => filesUnder(join(ROOT, dir))), ...INPUT_FILES.map((file) => join(ROOT, file)).filter((path) => existsSync(path))];
  /** @type {Record<string, string>} */
  const digests = {};
  for (const path of paths.sort()) digests[relative(ROOT, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  return digests;
}

/**
 * Why dist/ is not up to date: the inputs that changed, appeared or went since the last build, or
 * that there is no complete build. Empty when it is up to date.
 * @returns {string[]}
 */
export function staleInputs() {
  const missing = OUTPUTS.filter((output) => !existsSync(join(ROOT, output)));
  if (missing.length > 0) return [`no complete build (${missing.join(', ')} missing)`];
  /** @type {Record<string, string>} */
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(RECORD, 'utf8'));
  } catch {
    return ['no record of what the build was made from'];
  }
  const current = digestInputs();
  const paths = new Set([...Object.keys(recorded), ...Object.keys(current)]);
  return [...paths].filter((path) => recorded[path] !== current[path]).sort();
}

export const RECORD_PATH = RECORD;
