#!/usr/bin/env node
// @ts-check
// The agent clients that the conformance suites drive (Claude Code, Codex CLI, opencode, Gemini CLI), and a Node
// older than askbridge supports (for the test of what askbridge says to it), kept out of askbridge's own
// dependencies: `npm install` never fetches them. This installs one with npm into
// .cache/<client>/<version>/ in the repository (gitignored) and prints that folder; when the version
// is already there it returns at once.
//
//   node scripts/conformance-client.mjs                  Claude Code at its pinned version
//   node scripts/conformance-client.mjs codex            Codex CLI at its pinned version
//   node scripts/conformance-client.mjs claude latest    another version, or a dist-tag (resolved to its version)
//   node scripts/conformance-client.mjs node             Node at oldNodeVersion (npm's node-<platform>-<arch> package)
//   node scripts/conformance-client.mjs all              every client at its pinned version (what CI runs first)
//
// The pinned versions are package.json's "config": claudeCodeVersion, codexVersion, opencodeVersion,
// geminiVersion, oldNodeVersion.
// Each version is installed into a staging folder and renamed into place once npm has finished, so a
// folder named after a version is always a complete install. `rm -rf .cache/<client>` frees the space.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Each client: its package, the command it installs, and the key of package.json's "config" that pins it. */
const CLIENTS = {
  claude: { package: '@anthropic-ai/claude-code', bin: 'claude', pin: 'claudeCodeVersion', cache: 'claude-code' },
  codex: { package: '@openai/codex', bin: 'codex', pin: 'codexVersion', cache: 'codex' },
  opencode: { package: 'opencode-ai', bin: 'opencode', pin: 'opencodeVersion', cache: 'opencode' },
  gemini: { package: '@google/gemini-cli', bin: 'gemini', pin: 'geminiVersion', cache: 'gemini' },
  // The package `node` installs for this platform, holding the binary alone.
  node: { package: `node-${process.platform}-${process.arch}`, bin: 'node', pin: 'oldNodeVersion', cache: 'node' },
};
/** @typedef {typeof CLIENTS[keyof typeof CLIENTS]} Client */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** @param {Client} client @returns {string} */
function pinnedVersion(client) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const pinned = pkg.config?.[client.pin];
  if (typeof pinned !== 'string' || !EXACT_VERSION.test(pinned)) {
    throw new Error(`package.json "config"."${client.pin}" must be an exact version, not ${JSON.stringify(pinned)}`);
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
 * @param {Client} client
 * @param {string} spec
 */
function resolveVersion(client, spec) {
  if (EXACT_VERSION.test(spec)) return spec;
  const shown = JSON.parse(npm(['view', `${client.package}@${spec}`, 'version', '--json'], ['ignore', 'pipe', 'inherit']) || 'null');
  const version = Array.isArray(shown) ? shown.at(-1) : shown;
  if (typeof version !== 'string' || !EXACT_VERSION.test(version)) throw new Error(`${client.package}@${spec} names no version`);
  return version;
}

/**
 * Whether `dir` holds the client at `version`.
 * @param {Client} client
 * @param {string} dir
 * @param {string} version
 */
function holds(client, dir, version) {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', ...client.package.split('/'), 'package.json'), 'utf8'));
    // Node's own packages write their version as the tag, "v18.20.8".
    return pkg.version.replace(/^v/, '') === version && existsSync(join(dir, 'node_modules', '.bin', client.bin));
  } catch {
    return false;
  }
}

/**
 * Removes staging folders left by an install that was killed (its process is gone).
 * @param {string} cache
 */
function removeAbandonedStaging(cache) {
  for (const name of readdirSync(cache)) {
    const pid = /^\.staging-.+-(\d+)$/.exec(name)?.[1];
    if (!pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH') rmSync(join(cache, name), { recursive: true, force: true });
    }
  }
}

/**
 * The folder holding the client at `version`, installed first if needed.
 * @param {Client} client
 * @param {string} version
 */
function install(client, version) {
  const cache = join(ROOT, '.cache', client.cache);
  const dir = join(cache, version);
  if (holds(client, dir, version)) return dir;
  mkdirSync(cache, { recursive: true });
  removeAbandonedStaging(cache);
  const staging = join(cache, `.staging-${version}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  // Its own package.json makes the staging folder npm's project, not the repository around it.
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ private: true }, null, 2)}\n`);
  console.error(`Installing ${client.package}@${version} for the conformance suite into ${relative(ROOT, dir)}/ ...`);
  try {
    // npm's output goes to stderr: stdout is the folder alone. The client's own engine warnings (it asks
    // for a newer Node than askbridge) are not askbridge's.
    npm(['install', '--prefix', staging, '--no-audit', '--no-fund', '--loglevel=error', `${client.package}@${version}`], ['ignore', 2, 2]);
    if (!holds(client, staging, version)) throw new Error(`npm installed no ${client.package}@${version} with a ${client.bin} command`);
    if (holds(client, dir, version)) return dir; // installed meanwhile by another run
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

try {
  const [name = 'claude', spec] = process.argv.slice(2).map((arg) => arg.trim());
  if (name === 'all') {
    for (const client of Object.values(CLIENTS)) process.stdout.write(`${install(client, pinnedVersion(client))}\n`);
  } else {
    const client = CLIENTS[/** @type {keyof typeof CLIENTS} */ (name)];
    if (!client) throw new Error(`no client ${JSON.stringify(name)}: name claude, codex, opencode, gemini, node or all`);
    process.stdout.write(`${install(client, resolveVersion(client, spec || pinnedVersion(client)))}\n`);
  }
} catch (error) {
  console.error(`conformance-client: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
