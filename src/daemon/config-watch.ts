// Hot reload: chokidar watches the user config, every project config a question has used, and the
// trust file, and re-reads a file the moment it changes. A bad edit keeps the last good config and
// raises a banner (on every page, and in the log) until the file is fixed; a project file the user
// has not trusted (trust.ts) is ignored, and the banner says so and how to trust it; a trusted one
// that sets keys only the user config may applies without them, and the banner warns. Questions also
// re-check the files they use, so an edit counts for the very next question even before the
// watcher reports it. A file whose folder does not exist yet (a new user's ~/.config/askbridge) is
// noticed when the folder and the file appear. chokidar is loaded, and watching starts, when the
// daemon says (main.ts: a moment after it serves): nothing is missed meanwhile, as chokidar reports
// every file it finds when it starts watching a path, and each is read again then. Each new good
// version of the user config is handed to the daemon (onUserConfig): what it holds beyond a
// question's configuration (publicUrl) applies from then on too.
import { existsSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { createConfigReader, projectDirOf, type ConfigFile, type EffectiveConfig } from '../config.js';
import { createTrustStore } from '../trust.js';

export type ConfigWatchLog = {
  info: (fields: Record<string, unknown>, message: string) => void;
  warn: (fields: Record<string, unknown>, message: string) => void;
};

/** How long a file's size must hold still before it is read: an editor may still be writing it. */
const WRITE_SETTLE_MS = 120;

export type ConfigWatchOptions = {
  env: NodeJS.ProcessEnv;
  /** How to run askbridge on this machine (askbridgeCommand), for the banner's hint. */
  command: string;
  log: ConfigWatchLog;
  onBanner: (message: string | null) => void;
  /** Told each new good version of the user config, the first one read included (never a broken one: the last good one stays). */
  onUserConfig?: (file: ConfigFile) => void;
  /** Watching starts once this resolves (at once without it). */
  watchFrom?: Promise<void>;
};

export function createConfigWatch(options: ConfigWatchOptions) {
  const trust = createTrustStore(options.env);
  const reader = createConfigReader(options.env, trust);
  const errors = new Map<string, string>();
  const warnings = new Map<string, string>();
  const ignored = new Map<string, string>();
  const watched = new Set<string>();
  const projectFiles = new Set<string>();
  let banner: string | null = null;
  /** The user config's version last handed to onUserConfig (the reader keeps one object per good version). */
  let userToldOf: ConfigFile | undefined;
  let watcher: FSWatcher | undefined;
  let starting = false;
  let closed = false;

  function updateBanner(): void {
    const parts = [
      ...(errors.size > 0 ? [`Configuration error, the last good configuration stays in use: ${[...errors.values()].join(' | ')}`] : []),
      ...(warnings.size > 0 ? [`Configuration warning: ${[...warnings.values()].join(' | ')}`] : []),
      ...ignored.values(),
    ];
    const next = parts.length === 0 ? null : parts.join(' | ');
    if (next !== banner) {
      banner = next;
      options.onBanner(banner);
    }
  }

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
    updateBanner();
  }

  /** Note (or clear) keys a trusted project file sets that only the user config may: the rest of it applies. */
  function recordWarning(path: string, warning: string | undefined): void {
    if (warning === warnings.get(path)) return;
    if (warning) {
      warnings.set(path, warning);
      options.log.warn({ path, warning }, 'project config file sets keys only the user config may: they are ignored, the rest applies');
    } else {
      warnings.delete(path);
    }
    updateBanner();
  }

  /** Note (or clear) a project file that does not apply because its content is not trusted. */
  function recordTrust(effective: EffectiveConfig): void {
    const path = effective.files.project;
    if (!path) return;
    const entry = effective.ignored.find((candidate) => candidate.path === path);
    const message = entry
      ? `The project config ${path} is ignored: ${entry.reason === 'changed' ? 'it changed since it was trusted' : 'it is not trusted yet'}. Read it, then run \`${options.command} trust ${entry.projectDir}\``
      : undefined;
    if (message === ignored.get(path)) return;
    if (message) {
      ignored.set(path, message);
      options.log.warn({ path, reason: entry?.reason }, 'project config file ignored: not trusted');
    } else {
      ignored.delete(path);
      options.log.info({ path }, 'project config file trusted: it applies');
    }
    updateBanner();
  }

  /** Re-read whatever a change touched: the trust file re-decides every project file. */
  function reload(path: string): void {
    // A folder watched while waiting for a file reports its other files too: those are not ours.
    if (!watched.has(path)) return;
    if (path === trust.path) {
      for (const project of projectFiles) recheckProject(project);
      return;
    }
    if (projectFiles.has(path)) {
      recheckProject(path);
      return;
    }
    const result = reader.refresh(path);
    if (result.changed || result.error !== errors.get(path)) record(path, result.error);
    tellUserConfig(result.file);
  }

  /** A new good version of the user config, from the watcher or from a question that read it first. */
  function tellUserConfig(file: ConfigFile | undefined): void {
    if (file === undefined || file === userToldOf) return;
    userToldOf = file;
    options.onUserConfig?.(file);
  }

  /** A project file that is gone no longer applies, so nothing on the banner may still be about it. */
  function recheckProject(path: string): void {
    if (check(projectDirOf(path)).files.project === path) return;
    const said = [errors, warnings, ignored].map((messages) => messages.delete(path)).includes(true);
    if (said) updateBanner();
  }

  /** The configuration that applies in `cwd`; `null`: the user configuration alone (a remote ask's). */
  function check(cwd: string | null): EffectiveConfig {
    const effective = reader.effective(cwd);
    for (const path of [effective.files.user, effective.files.project]) {
      if (!path) continue;
      follow(path);
      record(path, effective.errors.find((error) => error.path === path)?.message);
    }
    if (effective.files.project) {
      projectFiles.add(effective.files.project);
      recordWarning(effective.files.project, effective.warnings?.find((warning) => warning.path === effective.files.project)?.message);
    }
    recordTrust(effective);
    tellUserConfig(reader.refresh(effective.files.user).file);
    return effective;
  }

  /** What each followed file is watched through: itself, or the nearest folder above it that exists. */
  const watchedThrough = new Map<string, string>();

  /** Watch a followed file through the nearest thing that exists, if that changed. */
  function watchNearest(path: string): void {
    const target = nearestWatchable(path);
    if (watchedThrough.get(path) === target) return;
    watchedThrough.set(path, target);
    watcher?.add(target);
  }

  /**
   * The file itself once it exists; until then, the nearest folder above it that does (chokidar
   * reports a file appearing in a folder it watches, not one appearing at a path it was given).
   */
  function nearestWatchable(path: string): string {
    if (existsSync(path)) return path;
    let folder = dirname(path);
    while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
    return folder;
  }

  function follow(path: string): void {
    if (watched.has(path)) return;
    watched.add(path);
    if (watcher) watchNearest(path);
    else if (!starting) {
      starting = true;
      startWatching().catch((error: Error) => options.log.warn({ error: error.message }, 'config files are not watched: a change applies to the next question only'));
    }
  }

  /**
   * An editor that saves in place truncates first and writes after: read a file only once its size
   * has held still, so a half-written file never raises a false banner. depth 0: a folder watched
   * for a file still to come is watched alone, not everything below it, and only the followed files
   * and the folders on the way to them are reported. Files chokidar finds when it starts watching a
   * path are reported too (no ignoreInitial): a file that appeared before the watch was in place,
   * in a folder that was just made, is read then; reading an unchanged file changes nothing.
   */
  async function startWatching(): Promise<void> {
    await options.watchFrom;
    const { watch } = await import('chokidar');
    if (closed) return;
    const onTheWay = (path: string) => watched.has(path) || [...watched].some((file) => file.startsWith(`${path}${sep}`));
    watcher = watch([], { depth: 0, ignored: (path) => !onTheWay(path), awaitWriteFinish: { stabilityThreshold: WRITE_SETTLE_MS, pollInterval: 20 } })
      .on('add', reload)
      .on('change', reload)
      .on('unlink', reload)
      // A new folder: a followed file, or its next missing folder, may be in it. chokidar lists a
      // folder before it watches it, so a file made in between is looked for once more after that.
      .on('addDir', () => {
        for (const path of watched) watchNearest(path);
        setTimeout(() => {
          for (const path of watched) if (existsSync(path)) reload(path);
        }, WRITE_SETTLE_MS).unref();
      });
    for (const path of watched) watchNearest(path);
  }

  follow(trust.path);

  return {
    /** The configuration for a question asked in cwd, newest valid (and, for a project, trusted) version of each file. */
    effective: check,
    banner: () => banner,
    /** Stops watching; a watcher not made yet never will be. */
    async close(): Promise<void> {
      closed = true;
      await watcher?.close();
    },
  };
}
