// Where askbridge's own files are (package.json, bin/, the page's files), found from the module that
// asks. A module's own place is not fixed: one file per module in dist/ (src/ in the tests), or the
// whole daemon bundled into one file (scripts/bundle-daemon.mjs), which moves every module it holds.
// So a path relative to a module's own file would break in the bundle; a path from the package's
// root does not.
import { existsSync } from 'node:fs';

export type OwnFolders = {
  /** The folder that holds askbridge's package.json. */
  packageRoot: URL;
  /** The folder under it that the asking module runs from: dist/ (built), or src/ (the tests). */
  codeRoot: URL;
};

/**
 * The nearest folder above `moduleUrl` that holds a package.json: the package the module belongs
 * to, as Node itself decides it (askbridge's files have no package.json of their own in between).
 */
export function ownFolders(moduleUrl: string): OwnFolders {
  let folder = new URL('./', moduleUrl);
  let below = folder;
  while (!existsSync(new URL('package.json', folder))) {
    const parent = new URL('../', folder);
    if (parent.href === folder.href) throw new Error(`askbridge's package.json was not found above ${moduleUrl}`);
    below = folder;
    folder = parent;
  }
  return { packageRoot: folder, codeRoot: below };
}
