// Every command askbridge tells a user to type runs this checkout's CLI, never `npx askbridge`,
// which outside this folder fetches and runs whatever package holds that name.
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { askbridgeCommand, CLI_PATH } from '../../src/command-name.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('how to run askbridge', () => {
  it('is `askbridge` when the askbridge on PATH is this checkout', () => {
    const bin = mkdtempSync(join(tmpdir(), 'askbridge-path-'));
    dirs.push(bin);
    symlinkSync(CLI_PATH, join(bin, 'askbridge'));
    expect(askbridgeCommand({ PATH: `${bin}:/usr/bin` })).toBe('askbridge');
  });

  it("is this checkout's bin/askbridge.mjs when the first askbridge on PATH is another one, or there is none", () => {
    const other = mkdtempSync(join(tmpdir(), 'askbridge-other-'));
    dirs.push(other);
    symlinkSync('/bin/true', join(other, 'askbridge'));
    expect(askbridgeCommand({ PATH: other })).toBe(`node ${CLI_PATH}`);
    expect(askbridgeCommand({ PATH: '/nonexistent' })).toBe(`node ${CLI_PATH}`);
  });

  it('is never `npx askbridge`, in the README, in docs/ or in any message the code prints', () => {
    const texts = [join(ROOT, 'README.md'), ...['docs', 'src', 'bin', 'hooks', '.claude', '.claude-plugin'].flatMap((dir) => filesUnder(join(ROOT, dir)))];
    const offenders = texts.filter((path) => /\bnpx\s+askbridge\b/.test(readFileSync(path, 'utf8')));
    expect(offenders.map((path) => relative(ROOT, path))).toEqual([]);
  });
});
