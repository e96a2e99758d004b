// Whether writing a settings file would go through a symbolic link, and where it would land: what
// install and uninstall check before they edit a file a repository may hold (a link it commits can
// lead into the person's own settings, or anywhere else). It only looks; it changes nothing.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The settings file, or the folder holding it, when it is a symbolic link, and where it leads. */
export function symbolicLinkOnTheWay(file: string): { path: string; to: string } | undefined {
  for (const path of [dirname(file), file]) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      continue; // not there yet: a write makes it, as a folder or a file of its own
    }
    if (!isLink) continue;
    let to: string;
    try {
      to = realpathSync(path);
    } catch {
      to = resolve(dirname(path), readlinkSync(path)); // a link to nothing yet: writing through it would make its target
    }
    return { path, to };
  }
  return undefined;
}
