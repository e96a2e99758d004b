// The daemon's code cache is an optimisation and nothing else: whatever state the cache is in (none,
// another build's, a changed bundle, a damaged file, a folder others may write to, a folder that
// cannot be made), the bundle runs, the same, and no start ever fails or waits because of it.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { codeCacheDir, codeCacheFile, loadBundle } from '../../src/daemon/code-cache.js';

const MAGIC = 'askbridge code cache 1\n';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A small CommonJS bundle, with functions that run at once (in the cache) and some that do not. */
const BUNDLE = `'use strict';
function add(a, b) { return a + b; }
function later() { return 'not run at load'; }
exports.sum = [1, 2, 3].reduce(add, 0);
exports.later = later;
exports.file = __filename;
exports.strict = (function () { return this === undefined; })();
exports.hasRequire = typeof require('node:path').join === 'function';
`;

function setUp(source = BUNDLE): { bundle: URL; env: NodeJS.ProcessEnv; cacheDir: string; cacheFile: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'askbridge-code-cache-'));
  dirs.push(dir);
  const file = join(dir, 'bundle.cjs');
  writeFileSync(file, source);
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const cacheDir = codeCacheDir(env);
  return { bundle: pathToFileURL(file), env, cacheDir, cacheFile: () => codeCacheFile(cacheDir, file) };
}

function expectRuns(exports: Record<string, unknown>, bundle: URL): void {
  expect(exports.sum).toBe(6);
  expect((exports.later as () => string)()).toBe('not run at load');
  expect(exports.file).toBe(bundle.pathname);
  expect(exports.strict).toBe(true);
  expect(exports.hasRequire).toBe(true);
}

describe('the code cache', () => {
  it('is made once the bundle has run, in a folder only its user may enter, and used by the next start', () => {
    const { bundle, env, cacheDir, cacheFile } = setUp();
    const first = loadBundle(bundle, 'build-1', env);
    expect(first.cache).toBe('none');
    expectRuns(first.exports, bundle);
    first.saveCache();
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(cacheFile()).mode & 0o777).toBe(0o600);

    const second = loadBundle(bundle, 'build-1', env);
    expect(second.cache).toBe('used');
    expectRuns(second.exports, bundle);
    const written = statSync(cacheFile()).mtimeMs;
    second.saveCache(); // a start that used the cache does not write it again
    expect(statSync(cacheFile()).mtimeMs).toBe(written);
  });

  it("is not used for another build, nor once the bundle's file changed", () => {
    const { bundle, env } = setUp();
    loadBundle(bundle, 'build-1', env).saveCache();
    expect(loadBundle(bundle, 'build-2', env).cache).toBe('none');
    const later = new Date(Date.now() + 60_000);
    utimesSync(bundle, later, later);
    const changed = loadBundle(bundle, 'build-1', env);
    expect(changed.cache).toBe('none');
    expectRuns(changed.exports, bundle);
    changed.saveCache();
    expect(loadBundle(bundle, 'build-1', env).cache).toBe('used');
  });

  it('is not used when damaged or cut short: the bundle is compiled as if there were none', () => {
    const { bundle, env, cacheFile } = setUp();
    loadBundle(bundle, 'build-1', env).saveCache();
    const whole = readFileSync(cacheFile());
    const damaged = Buffer.from(whole);
    damaged[damaged.length - 10] = (damaged[damaged.length - 10] ?? 0) ^ 0xff;
    for (const content of [damaged, whole.subarray(0, whole.length - 100), whole.subarray(0, 30), Buffer.from('not a cache')]) {
      writeFileSync(cacheFile(), content);
      const loaded = loadBundle(bundle, 'build-1', env);
      expect(loaded.cache).toBe('none');
      expectRuns(loaded.exports, bundle);
    }
  });

  it('is handed to V8, which refuses one made for other source, and the bundle still runs', () => {
    const { bundle, env, cacheFile } = setUp();
    loadBundle(bundle, 'build-1', env).saveCache();
    const cached = readFileSync(cacheFile());
    const payload = cached.subarray(cached.indexOf(10, MAGIC.length) + 1);
    // Another bundle in the same file, never compiled in this process (V8 would take it from memory),
    // with a header that names it: only V8's own check is left, which compares the sources' lengths.
    writeFileSync(bundle, BUNDLE.replace('reduce(add, 0)', 'reduce((a, b) => a + b, 0)'));
    const { size, mtimeMs } = statSync(bundle);
    writeFileSync(cacheFile(), Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify({ buildId: 'build-1', size, mtimeMs, crc32: crc32(payload) })}\n`), payload]));
    const loaded = loadBundle(bundle, 'build-1', env);
    expect(loaded.cache).toBe('refused');
    expectRuns(loaded.exports, bundle);
  });

  it('is neither read from nor written to a folder that others may write to, and leaves its mode as it is', () => {
    const { bundle, env, cacheDir, cacheFile } = setUp();
    loadBundle(bundle, 'build-1', env).saveCache();
    chmodSync(cacheDir, 0o777);
    rmSync(cacheFile());
    const loaded = loadBundle(bundle, 'build-1', env);
    expect(loaded.cache).toBe('none');
    loaded.saveCache();
    expect(existsSync(cacheFile())).toBe(false);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o777);
    // Once the user closes it again, the cache is kept and used.
    chmodSync(cacheDir, 0o700);
    loaded.saveCache();
    expect(loadBundle(bundle, 'build-1', env).cache).toBe('used');
  });

  it('is simply not kept where its folder cannot be made, and that never holds up the daemon', () => {
    const { bundle, cacheDir } = setUp();
    // A file where a folder above the cache would be.
    writeFileSync(dirname(cacheDir), '');
    for (const env of [{ XDG_CACHE_HOME: '/proc/askbridge-cannot-be-here' }, { XDG_CACHE_HOME: join(dirname(cacheDir), 'cache') }]) {
      const loaded = loadBundle(bundle, 'build-1', env);
      expectRuns(loaded.exports, bundle);
      loaded.saveCache(); // returns: Node's recursive mkdir would loop for ever under /proc
      expect(existsSync(codeCacheDir(env))).toBe(false);
      expect(loadBundle(bundle, 'build-1', env).cache).toBe('none');
    }
  });

  it('lives in $XDG_CACHE_HOME/askbridge, else ~/.cache/askbridge, one file per installation and Node version', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/askbridge');
    expect(codeCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/askbridge');
    const one = codeCacheFile('/c', '/a/dist/daemon/bundle.cjs');
    expect(one).toContain(process.version);
    expect(codeCacheFile('/c', '/b/dist/daemon/bundle.cjs')).not.toBe(one);
  });
});
