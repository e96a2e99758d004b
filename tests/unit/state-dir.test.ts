// The state directory: private to its user, its files 0600, daemon.json checked field by field.
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateDir, parseDaemonInfo } from '../../src/state-dir.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-state-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the state directory', () => {
  it('is made 0700, and every file in it 0600, whatever an older version left', () => {
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'history.jsonl'), '', { mode: 0o644 });
    chmodSync(join(dir, 'history.jsonl'), 0o644);
    writeFileSync(join(dir, 'page-sessions.json'), '[]', { mode: 0o600 });
    openStateDir(dir).ensure();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'history.jsonl')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'page-sessions.json')).mode & 0o777).toBe(0o600);
  });

  it('is made with the folders above it that are missing, each 0700, and fails at once where mkdir cannot make one', () => {
    const nested = join(dir, 'a', 'b', 'askbridge');
    openStateDir(nested).ensure();
    for (const folder of [join(dir, 'a'), join(dir, 'a', 'b'), nested]) expect(statSync(folder).mode & 0o777).toBe(0o700);
    // Under /proc, mkdir says ENOENT below a folder that exists (where Node 20's recursive mkdir loops for ever).
    expect(() => openStateDir('/proc/askbridge-cannot-be-here/state').ensure()).toThrow(/ENOENT/);
  });

  it('reads daemon.json only when every field is what the daemon writes', () => {
    const good = { pid: 42, port: 7433, host: '127.0.0.1', version: '0.1.0', startedAt: 1 };
    expect(parseDaemonInfo(good)).toEqual(good);
    for (const bad of [null, [], { ...good, pid: 0 }, { ...good, port: 70000 }, { ...good, port: '7433' }, { ...good, host: 1 }, { pid: 42 }]) expect(parseDaemonInfo(bad)).toBeUndefined();
  });
});
