#!/usr/bin/env node
// @ts-check
// The Claude Code client that the conformance suite drives, kept out of askbridge's own dependencies:
// `npm install` never fetches it. This installs it with npm into .cache/claude-code/<version>/ in the
// repository (gitignored) and prints that folder; when the version is already there it returns at once.
//
//   node scripts/conformance-client.mjs            the pinned version: package.json "config"."claudeCodeVersion"
//   node scripts/conformance-client.mjs latest     another version, or a dist-tag (resolved to its version)
//
// Each version is installed into a staging folder and renamed into place once npm has finished, so a
// folder named after a version is always a complete install. `rm -rf .cache/claude-code` frees the space.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.cache', 'claude-code');
const PACKAGE = '@anthropic-ai/claude-code';
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** @returns {string} */
function pinnedVersion() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const pinned = pkg.config?.claudeCodeVersion;
  if (typeof pinned !== 'string' || !EXACT_VERSION.test(pinned)) {
    throw new Error(`package.json "config"."claudeCodeVersion" must be an exact version, not ${JSON.stringify(pinned)}`);
  }
  return pinned;
}

/**
 * npm, without what `npm run` says about the repository's own package (its folder, its scripts), so that
 * the install stays in the folder it is given; the person's npm settings (registry, cache) pass through.
 * @param {string[]} args
 * @param {import('node:child_process').StdioOptions} stdio
 */
function npm(args, stdio) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_package_|npm_lifecycle_|npm_config_local_prefix$)/i.test(name)));
  return execFileSync('npm', args, { encoding: 'utf8', env, stdio, maxBuffer: 16 * 1024 * 1024 });
}

/**
 * A version, or the version a dist-tag or range stands for now.
 * @param {string} spec
 */
function resolveVersion(spec) {
  if (EXACT_VERSION.test(spec)) return spec;
  const shown = JSON.parse(npm(['view', `${PACKAGE}@${spec}`, 'version', '--json'], ['ignore', 'pipe', 'inherit']) || 'null');
  const version = Array.isArray(shown) ? shown.at(-1) : shown;
  if (typeof version !== 'string' || !EXACT_VERSION.test(version)) throw new Error(`${PACKAGE}@${spec} names no version`);
  return version;
}

/**
 * Whether `dir` holds the client at `version`.
 * @param {string} dir
 * @param {string} version
 */
function holds(dir, version) {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', ...PACKAGE.split('/'), 'package.json'), 'utf8'));
    return pkg.version === version && existsSync(join(dir, 'node_modules', '.bin', 'claude'));
  } catch {
    return false;
  }
}

/** Removes staging folders left by an install that was killed (its process is gone). */
function removeAbandonedStaging() {
  for (const name of readdirSync(CACHE)) {
    const pid = /^\.staging-.+-(\d+)$/.exec(name)?.[1];
    if (!pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH') rmSync(join(CACHE, name), { recursive: true, force: true });
    }
  }
}

/**
 * The folder holding the client at `version`, installed first if needed.
 * @param {string} version
 */
function install(version) {
  const dir = join(CACHE, version);
  if (holds(dir, version)) return dir;
  mkdirSync(CACHE, { recursive: true });
  removeAbandonedStaging();
  const staging = join(CACHE, `.staging-${version}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  // Its own package.json makes the staging folder npm's project, not the repository around it.
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ private: true }, null, 2)}\n`);
  console.error(`Installing ${PACKAGE}@${version} for the conformance suite into ${relative(ROOT, dir)}/ ...`);
  try {
    // npm's output goes to stderr: stdout is the folder alone. The client's own engine warnings (it asks
    // for a newer Node than askbridge) are not askbridge's.
    npm(['install', '--prefix', staging, '--no-audit', '--no-fund', '--loglevel=error', `${PACKAGE}@${version}`], ['ignore', 2, 2]);
    if (!holds(staging, version)) throw new Error(`npm installed no ${PACKAGE}@${version} with a claude binary`);
    if (holds(dir, version)) return dir; // installed meanwhile by another run
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

try {
  const spec = process.argv[2]?.trim() || pinnedVersion();
  process.stdout.write(`${install(resolveVersion(spec))}\n`);
} catch (error) {
  console.error(`conformance-client: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
