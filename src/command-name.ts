// How to run this checkout's askbridge command, for messages that tell the user what to type.
// `askbridge` when the one on PATH is this checkout's (after `npm link` or a global install from
// it); otherwise `node '/path/to/bin/askbridge.mjs'`. Never npx: outside this folder, npx fetches
// whatever package holds the name from the registry, and runs a stranger's code.
import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownFolders } from './package-root.js';

export const CLI_PATH = fileURLToPath(new URL('bin/askbridge.mjs', ownFolders(import.meta.url).packageRoot));

export function askbridgeCommand(env: NodeJS.ProcessEnv): string {
  const ours = realpathOrUndefined(CLI_PATH);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = realpathOrUndefined(join(dir, 'askbridge'));
    if (candidate === undefined) continue;
    // The first askbridge on PATH is the one the shell runs: only this checkout's will do.
    return candidate === ours ? 'askbridge' : `node ${quote(CLI_PATH)}`;
  }
  return `node ${quote(CLI_PATH)}`;
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

const quote = (path: string) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`);
