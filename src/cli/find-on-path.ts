// The command a person runs by its name: the first executable file of that name on PATH.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable file called `name` on PATH (`claude`, `codex`, `opencode`, `gemini`), if there is one. */
export function findOnPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
