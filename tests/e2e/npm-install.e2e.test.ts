// A newcomer's `npm ci` in a fresh clone warns of nothing: every install script that runs is
// declared (package.json's allowScripts), and `npm link --ignore-scripts`, as the README puts
// askbridge on PATH after the install built it, runs none. Needs the package registry.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../stack/env.js';
import { cannotRunHere } from '../stack/unavailable.js';

const dir = mkdtempSync(join(tmpdir(), 'askbridge-fresh-clone-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** npm as a newcomer runs it, without what `npm run` adds about this repository. */
function npm(args: string[], env: NodeJS.ProcessEnv = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|CI$)/i.test(name)));
  return spawnSync('npm', args, { cwd: join(dir, 'clone'), encoding: 'utf8', env: { ...clean, ...env }, timeout: 600_000 });
}

describe('a fresh clone', () => {
  it('`npm ci` and `npm link --ignore-scripts` print no warning', { timeout: 900_000 }, () => {
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', REPO_ROOT, join(dir, 'clone')]);
    // What is being changed, not only what was committed.
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(REPO_ROOT, file), join(dir, 'clone', file));
    const installed = npm(['ci', '--no-audit', '--no-fund']);
    if (installed.status !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT/.test(installed.stderr)) {
      cannotRunHere('the fresh-clone install test', 'the package registry cannot be reached');
      return;
    }
    expect(installed.status, installed.stderr).toBe(0);
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/\bwarn\b/i);

    const linked = npm(['link', '--ignore-scripts'], { npm_config_prefix: join(dir, 'global') });
    expect(linked.status, linked.stderr).toBe(0);
    expect(`${linked.stdout}${linked.stderr}`).not.toMatch(/\bwarn\b/i);
    expect(execFileSync(join(dir, 'global', 'bin', 'askbridge'), ['--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
