// A small real file system, to fill up or make read-only: a full disk and a read-only state directory
// as the daemon meets them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cannotRunHere } from './unavailable.js';

export type SmallDisk = {
  /** Where it is mounted; undefined where mounting is not allowed (it needs root, as CI has). */
  path: string | undefined;
  /** Writes until the file system refuses (ENOSPC); returns the file to remove to free it. */
  fillUp(): string;
  remount(mode: 'ro' | 'rw'): void;
  unmount(): void;
};

/**
 * A tmpfs of `size`, mounted for the tests called `name`. Where it cannot be mounted, `path` is
 * undefined and they are skipped with a message, except in CI, where that is an error.
 */
export function mountSmallDisk(size: string, name: string): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), `askbridge-${name}-`));
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { stdio: 'pipe' });
    mounted = true;
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    const why = stderr ? stderr : (error as Error).message;
    cannotRunHere(`the ${name} tests`, `cannot mount a tmpfs here (it needs root): ${why}`);
  }
  return {
    path: mounted ? path : undefined,
    fillUp() {
      const filler = join(path, 'filler');
      for (const chunk of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1]) {
        try {
          for (;;) writeFileSync(filler, Buffer.alloc(chunk), { flag: 'a' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        }
      }
      return filler;
    },
    remount(mode) {
      execFileSync('mount', ['-o', `remount,${mode}`, path]);
    },
    unmount() {
      if (mounted) {
        execFileSync('mount', ['-o', 'remount,rw', path], { stdio: 'ignore' });
        execFileSync('umount', [path]);
      }
      rmSync(path, { recursive: true, force: true });
    },
  };
}
