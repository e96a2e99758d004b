// Starting on a state directory the disk refuses (read-only, full: a real tmpfs) is one clear line
// and a non-zero exit, with no stack trace and no half-written .tmp file left behind.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, runCli } from './harness.js';

const mountPoint = mkdtempSync(join(tmpdir(), 'askbridge-disk-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.warn('[disk-start] cannot mount a tmpfs here (needs root): skipped');
}
const suite = mounted ? describe : describe.skip;

afterAll(() => {
  if (mounted) {
    execFileSync('mount', ['-o', 'remount,rw', mountPoint], { stdio: 'ignore' });
    execFileSync('umount', [mountPoint]);
  }
  rmSync(mountPoint, { recursive: true, force: true });
});

const allFiles = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' });
const start = (home: string) => runCli(['start'], baseEnv({ ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'none') }));

suite('askbridge start on a disk that refuses it', () => {
  it('says in one line that the file system is read-only, exits 1, and writes nothing', async () => {
    const home = join(mountPoint, 'read-only');
    mkdirSync(home, { mode: 0o700 });
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    try {
      const result = await start(home);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^askbridge start: cannot write the state directory .*read-only: the file system is read-only \(EROFS\); free it up, or point ASKBRIDGE_HOME elsewhere\n$/);
      expect(allFiles(home)).toEqual([]);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
  });

  it('says in one line that the disk is full, exits 1, and leaves no .tmp file', async () => {
    const home = join(mountPoint, 'full');
    mkdirSync(home, { mode: 0o700 });
    const filler = join(mountPoint, 'filler');
    for (const size of [1 << 16, 1 << 12, 1 << 8, 1]) {
      try {
        for (;;) writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
    try {
      const result = await start(home);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^askbridge start: cannot write the state directory .*full: the disk is full \(ENOSPC\); free it up, or point ASKBRIDGE_HOME elsewhere\n$/);
      expect(allFiles(home).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      rmSync(filler);
    }
  });
});
