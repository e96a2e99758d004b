// Runs the daemon's bundle (scripts/bundle-daemon.mjs) with a V8 code cache: the bytecode V8
// compiled for it on an earlier start, so that this start does not parse and compile it again
// (about a fifth of a start). Node 20 has no compile cache of its own (module.enableCompileCache
// is Node 22's), so the bundle, one CommonJS file, is compiled here with vm.Script and its
// cachedData, the way Node compiles CommonJS modules.
//
// The cache is an optimisation and nothing else: a cache that is missing, stale, corrupt, or in a
// folder someone else could write to is not used, and the bundle is compiled as if there were none.
// - It lives in the user's cache folder ($XDG_CACHE_HOME/askbridge, else ~/.cache/askbridge), made
//   0700; a folder owned by another user, or that others may write to, is neither read nor written.
// - Its header names the build, the bundle's size and modification time, and a CRC-32 of the
//   cached bytes: a cache made for another build, a changed bundle, or a torn or damaged file is
//   not handed to V8. V8 itself refuses a cache made by another V8 version or with other flags.
// - It is written to a temporary file and renamed over the old one, once the daemon serves, and
//   only when the start had none it could use. One file per installation of askbridge and Node
//   version; one unused for a month goes when another is written.
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { makeFolders } from '../folders.js';

/** How the bundle was compiled: with the cache, without one, or with one V8 (or this module) refused. */
export type CacheUse = 'used' | 'none' | 'refused';

export type LoadedBundle = {
  /** What the bundle's module.exports holds. */
  exports: Record<string, unknown>;
  cache: CacheUse;
  /** Writes the cache now, if this start had none it could use; never throws (a cache is optional). */
  saveCache(): void;
};

type CacheHeader = { buildId: string; size: number; mtimeMs: number; crc32: number };

const MAGIC = 'askbridge code cache 1\n';
const EXTENSION = '.v8cache';
/** A cache file nobody has written for this long is removed when another is written. */
const UNUSED_MS = 30 * 24 * 3600 * 1000;

/** `$XDG_CACHE_HOME/askbridge`, else `~/.cache/askbridge`. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'askbridge');
}

/**
 * The cache file of this bundle (by its path: two installations do not take turns overwriting one
 * file) and this Node version and platform (V8's cache fits only the V8 that made it).
 */
export function codeCacheFile(dir: string, bundleFile: string): string {
  const installation = createHash('sha256').update(bundleFile).digest('base64url').slice(0, 12);
  return join(dir, `daemon-${installation}-${process.version}-${process.platform}-${process.arch}${EXTENSION}`);
}

/**
 * Compiles and runs the CommonJS bundle at `bundle` (built as `buildId`), with the code cache in
 * the cache folder `env` names when there is a good one, and returns its exports.
 */
export function loadBundle(bundle: URL, buildId: string, env: NodeJS.ProcessEnv): LoadedBundle {
  const filename = fileURLToPath(bundle);
  // As UTF-8 (the bundle is ASCII only, so one byte a character either way): Node makes that string
  // straight from the file, where any other encoding goes through a 1.2 MB Buffer, whose memory
  // brought V8's first full collection forward onto a fresh daemon's first question (+10 ms).
  const source = readFileSync(filename, 'utf8');
  const { size, mtimeMs } = statSync(filename);
  const header = { buildId, size, mtimeMs };
  const cacheFile = cacheFileFor(env, filename);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, header);
  // The function Node wraps every CommonJS module in.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, ...(cachedData ? { cachedData } : {}) });
  const cache: CacheUse = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used';
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(filename), module, filename, dirname(filename));
  return {
    exports: module.exports,
    cache,
    saveCache() {
      if (cache === 'used' || cacheFile === undefined) return;
      try {
        writeCache(cacheFile, header, script.createCachedData());
      } catch {
        // A full disk, a read-only home, a folder that is not ours: the next start compiles, as this one did.
      }
    },
  };
}

/** Where this bundle's cache is, or undefined when even that cannot be said (no home folder). */
function cacheFileFor(env: NodeJS.ProcessEnv, bundleFile: string): string | undefined {
  try {
    return codeCacheFile(codeCacheDir(env), bundleFile);
  } catch {
    return undefined;
  }
}

/** The cached bytes, if the file holds a whole cache made for exactly this bundle in a folder only we can write to. */
function readCache(file: string, expected: Omit<CacheHeader, 'crc32'>): Buffer | undefined {
  try {
    if (!isPrivateFolder(dirname(file))) return undefined;
    if (!lstatSync(file).isFile()) return undefined;
    const content = readFileSync(file);
    const newline = content.indexOf(10, MAGIC.length);
    if (newline < 0 || content.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) return undefined;
    const header = JSON.parse(content.subarray(MAGIC.length, newline).toString('utf8')) as Partial<CacheHeader>;
    const data = content.subarray(newline + 1);
    const matches = header.buildId === expected.buildId && header.size === expected.size && header.mtimeMs === expected.mtimeMs && header.crc32 === crc32(data);
    return matches ? data : undefined;
  } catch {
    return undefined; // no cache yet, or one that cannot be read: compile
  }
}

function writeCache(file: string, header: Omit<CacheHeader, 'crc32'>, data: Buffer): void {
  const dir = dirname(file);
  makeFolders(dir, 0o700);
  // A folder someone else may write to is left as it is (its mode is the user's to set), and unused.
  if (!isPrivateFolder(dir)) return;
  removeUnused(dir);
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify({ ...header, crc32: crc32(data) })}\n`), data]), { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Cache files no start has written for a month: installations removed, Node versions left behind. */
function removeUnused(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(EXTENSION)) continue;
    const path = join(dir, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > UNUSED_MS) rmSync(path, { force: true });
    } catch {
      // gone meanwhile (another start renamed over it)
    }
  }
}

/** Ours, and nobody else may write to it: what it holds becomes code that runs. */
function isPrivateFolder(dir: string): boolean {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) return false;
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return false;
  return (stat.mode & 0o022) === 0;
}
