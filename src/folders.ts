// Making a folder and the folders above it that are missing. Not mkdirSync's `recursive`: Node 20's
// loops for ever where mkdir says ENOENT under a folder that exists (a path under /proc, say). Here
// each missing folder is made in turn, from the top, so such a path fails at once with mkdir's error.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Makes `path` and every missing folder above it, each with `mode` (as `mkdir -p -m`); a folder already there is left as it is. */
export function makeFolders(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let folder = resolve(path); !existsSync(folder); folder = dirname(folder)) {
    missing.push(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, mode === undefined ? {} : { mode });
    } catch (error) {
      // Made meanwhile by another process: as good.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
