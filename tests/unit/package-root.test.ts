// The package's own files are found from any module, wherever the module runs from: its own file
// in src/ or dist/, or the daemon's bundle, which holds many modules in one file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ownFolders } from '../../src/package-root.js';
import { VERSION } from '../../src/version.js';

const ROOT = new URL('../../', import.meta.url);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package folder with a package.json and an empty dist/daemon/routes/. */
function fakePackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'askbridge-root-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist', 'daemon', 'routes'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"askbridge","version":"9.9.9"}\n');
  return dir;
}

describe('ownFolders', () => {
  it('finds the package root and the src/ folder from a source module', () => {
    const { packageRoot, codeRoot } = ownFolders(new URL('src/daemon/routes/page.ts', ROOT).href);
    expect(packageRoot.href).toBe(ROOT.href);
    expect(codeRoot.href).toBe(new URL('src/', ROOT).href);
  });

  it('gives the same folders to a module one folder deep, three folders deep, and in a bundle', () => {
    const dir = fakePackage();
    const root = pathToFileURL(`${dir}/`).href;
    for (const module of ['dist/version.js', 'dist/daemon/routes/page.js', 'dist/daemon/main.js']) {
      const folders = ownFolders(pathToFileURL(join(dir, module)).href);
      expect(folders.packageRoot.href, module).toBe(root);
      expect(folders.codeRoot.href, module).toBe(`${root}dist/`);
    }
  });

  it('says so when no package.json is above the module', () => {
    expect(() => ownFolders('file:///no-such-folder/dist/version.js')).toThrow(/package\.json was not found/);
  });

  it("reads the version from the package's own package.json", async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    expect(VERSION).toBe(version);
  });
});
