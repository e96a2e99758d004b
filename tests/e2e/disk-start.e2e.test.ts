// Starting on a state directory the disk refuses (read-only, full: a real tmpfs) is one clear line
// and a non-zero exit, with no stack trace and no half-written .tmp file left behind.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv } from '../stack/env.js';
import { runCli } from '../stack/processes.js';
import { mountSmallDisk } from '../stack/small-disk.js';

const disk = mountSmallDisk('1m', 'disk-start');
const suite = disk.path ? describe : describe.skip;
afterAll(() => disk.unmount());

const allFiles = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' });
// HOME too: no Claude Code there, so a start says nothing about wiring it (cli/first-start.ts).
const start = (home: string) => runCli(['start'], baseEnv({ HOME: home, ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'none') }));

suite('askbridge start on a disk that refuses it', () => {
  it('says in one line that the file system is read-only, exits 1, and writes nothing', async () => {
    const home = join(disk.path!, 'read-only');
    mkdirSync(home, { mode: 0o700 });
    disk.remount('ro');
    try {
      const result = await start(home);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^askbridge start: cannot write the state directory .*read-only: the file system is read-only \(EROFS\); free it up, or point ASKBRIDGE_HOME elsewhere\n$/);
      expect(allFiles(home)).toEqual([]);
    } finally {
      disk.remount('rw');
    }
  });

  it('says in one line that the disk is full, exits 1, and leaves no .tmp file', async () => {
    const home = join(disk.path!, 'full');
    mkdirSync(home, { mode: 0o700 });
    const filler = disk.fillUp();
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
