// Trust is given to bytes: the bytes whose hash is checked (by the daemon) or recorded (by
// `askbridge trust`) must be the very bytes applied or shown. A file system hook writes other
// content to the project file right after a read of it, as an editor or a `git pull` could between
// two reads; only one read may count.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const reads = vi.hoisted(() => ({ after: undefined as ((path: string) => void) | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((...args: Parameters<typeof fs.readFileSync>) => {
    const content = fs.readFileSync(...args);
    reads.after?.(String(args[0]));
    return content;
  }) as typeof fs.readFileSync;
  return { ...fs, readFileSync, default: { ...fs, readFileSync } };
});

const { createConfigReader } = await import('../../src/config.js');
const { contentHash, createTrustStore } = await import('../../src/trust.js');
const { runCli } = await import('../../src/cli/main.js');

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
let projectFile: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'askbridge-trust-read-'));
  env = { XDG_CONFIG_HOME: join(root, 'config'), HOME: root, ASKBRIDGE_HOME: join(root, 'state') };
  project = join(root, 'project');
  projectFile = join(project, '.claude', 'askbridge.json');
  mkdirSync(join(project, '.claude'), { recursive: true });
});
afterEach(() => {
  reads.after = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** The next read of the project file returns what it holds, and leaves `replacement` on disk. */
function replaceAfterNextRead(replacement: string): void {
  reads.after = (path) => {
    if (path !== projectFile) return;
    reads.after = undefined;
    writeFileSync(projectFile, replacement);
  };
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli({ argv, env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}

const TRUSTED = JSON.stringify({ waitSeconds: 10 });
const SWAPPED_IN = JSON.stringify({ waitSeconds: 20, rules: [{ header: 'Deploy', choose: 'Yes', when: 'immediately' }] });

describe('one read of a project config file', () => {
  it('the daemon applies exactly the bytes whose hash it found trusted, and the file swapped in after that read never applies', async () => {
    writeFileSync(projectFile, TRUSTED);
    expect((await cli(['trust', project])).code).toBe(0);
    const reader = createConfigReader(env);

    replaceAfterNextRead(SWAPPED_IN);
    const applied = reader.effective(project);
    expect(applied.ignored).toEqual([]);
    expect(applied.config).toMatchObject({ waitSeconds: 10, rules: [] });

    // The bytes on disk now are not the trusted ones: they are ignored, not applied.
    const next = reader.effective(project);
    expect(next.ignored).toMatchObject([{ path: projectFile, reason: 'changed' }]);
    expect(next.config).toMatchObject({ waitSeconds: 300, rules: [] });
  });

  it('askbridge trust shows exactly the bytes it records as trusted', async () => {
    writeFileSync(projectFile, TRUSTED);
    replaceAfterNextRead(SWAPPED_IN);
    const trusted = await cli(['trust', project]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toMatch(/which says:\n {2}waitSeconds: 10\nTrusted\./);
    expect(trusted.stdout).not.toContain('Deploy');
    expect(createTrustStore(env).list()).toMatchObject([{ file: projectFile, sha256: contentHash(TRUSTED) }]);

    // What was swapped in was neither shown nor trusted, so it does not apply.
    const effective = createConfigReader(env).effective(project);
    expect(effective.ignored).toMatchObject([{ path: projectFile, reason: 'changed' }]);
    expect(effective.config.rules).toEqual([]);
  });
});
