// Hot reload: chokidar watches the user config and every project config a question has used, and
// re-reads a file the moment it changes. A bad edit keeps the last good config and raises a banner
// (on every page, and in the log) until the file is fixed. Questions also re-check the files they
// use, so an edit counts for the very next question even before the watcher reports it.
import { watch, type FSWatcher } from 'chokidar';
import { createConfigReader, type EffectiveConfig } from '../config.js';

export type ConfigWatchLog = {
  info: (fields: Record<string, unknown>, message: string) => void;
  warn: (fields: Record<string, unknown>, message: string) => void;
};

export function createConfigWatch(options: { env: NodeJS.ProcessEnv; log: ConfigWatchLog; onBanner: (message: string | null) => void }) {
  const reader = createConfigReader(options.env);
  const errors = new Map<string, string>();
  const watched = new Set<string>();
  let banner: string | null = null;
  let watcher: FSWatcher | undefined;

  function record(path: string, error: string | undefined): void {
    const before = errors.get(path);
    if (error === before) return;
    if (error) {
      errors.set(path, error);
      options.log.warn({ path, error }, 'config file is invalid: keeping its last good version');
    } else {
      errors.delete(path);
      options.log.info({ path }, 'config file reloaded');
    }
    const next = errors.size === 0 ? null : `Configuration error, the last good configuration stays in use: ${[...errors.values()].join(' | ')}`;
    if (next !== banner) {
      banner = next;
      options.onBanner(banner);
    }
  }

  function reload(path: string): void {
    const result = reader.refresh(path);
    if (result.changed || result.error !== errors.get(path)) record(path, result.error);
  }

  function follow(path: string): void {
    if (watched.has(path)) return;
    watched.add(path);
    // An editor that saves in place truncates first and writes after: read a file only once its
    // size has held still, so a half-written file never raises a false banner.
    watcher ??= watch([], { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 120, pollInterval: 20 } })
      .on('add', reload)
      .on('change', reload)
      .on('unlink', reload);
    watcher.add(path);
  }

  return {
    /** The configuration for a question asked in cwd, newest valid version of each file. */
    effective(cwd: string): EffectiveConfig {
      const effective = reader.effective(cwd);
      for (const path of [effective.files.user, effective.files.project]) {
        if (!path) continue;
        follow(path);
        record(path, effective.errors.find((error) => error.path === path)?.message);
      }
      return effective;
    },
    banner: () => banner,
    async close(): Promise<void> {
      await watcher?.close();
    },
  };
}
