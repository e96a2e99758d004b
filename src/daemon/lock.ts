// One daemon per state directory. `daemon.lock` names the process that holds the directory; it is
// created atomically (link(2) of a complete temporary file, so it is never seen half-written) before
// the daemon writes anything else, and removed when that process exits. A lock whose process is gone
// (kill -9, a crash, a reboot) is stale and reclaimed by the next start; a live daemon's lock is
// never taken. Reclaiming is serialised by a short-lived second lock, so two starts that find the
// same stale lock cannot both remove it and both win. Knows nothing of HTTP.
import { randomBytes } from 'node:crypto';
import { linkSync, openSync, closeSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive, LOOPBACK_HOST, type DaemonInfo, type GaveUp } from '../state-dir.js';

export type LockHolder = {
  pid: number;
  /** The process's start time (Linux: /proc/PID/stat field 22), so that a reused pid is not taken for the holder. */
  startTime?: string;
};

export type DaemonLock = { holder: LockHolder; release(): void };
export type LockAttempt = { acquired: true; lock: DaemonLock } | { acquired: false; holder: LockHolder };

/** A reclaimer holds the second lock for a few file operations; one this old belongs to a process that died mid-way. */
const RECLAIM_LOCK_STALE_MS = 5_000;
const RETRY_MS = 10;
const MAX_ATTEMPTS = 500;

export function lockPaths(dir: string) {
  return { lock: join(dir, 'daemon.lock'), reclaim: join(dir, 'daemon.lock.reclaim') };
}

/** This process's start time as the kernel reports it, or undefined where there is no /proc. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function isHolderAlive(holder: LockHolder): boolean {
  if (!isProcessAlive(holder.pid)) return false;
  if (holder.startTime === undefined) return true;
  const now = processStartTime(holder.pid);
  return now === undefined || now === holder.startTime;
}

/** The holder named in the lock file; undefined when there is none, or it cannot be read as one. */
export function readLockHolder(path: string): LockHolder | undefined | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unreadable';
  }
  try {
    const parsed = JSON.parse(text) as { pid?: unknown; startTime?: unknown };
    if (!Number.isInteger(parsed.pid) || (parsed.pid as number) <= 0) return 'unreadable';
    return { pid: parsed.pid as number, ...(typeof parsed.startTime === 'string' ? { startTime: parsed.startTime } : {}) };
  } catch {
    return 'unreadable';
  }
}

const sameHolder = (a: LockHolder | undefined | 'unreadable', b: LockHolder | 'unreadable') =>
  a === b || (typeof a === 'object' && typeof b === 'object' && a.pid === b.pid && a.startTime === b.startTime);

/** Take the state directory for this process, or learn which live process holds it. */
export async function acquireDaemonLock(dir: string, pid = process.pid): Promise<LockAttempt> {
  const paths = lockPaths(dir);
  const startTime = processStartTime(pid);
  const holder: LockHolder = { pid, ...(startTime === undefined ? {} : { startTime }) };
  const temporary = `${paths.lock}.${pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        linkSync(temporary, paths.lock);
        return { acquired: true, lock: { holder, release: () => releaseDaemonLock(dir, holder) } };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readLockHolder(paths.lock);
      if (current === undefined) continue; // removed meanwhile: try again at once
      if (current !== 'unreadable' && isHolderAlive(current)) return { acquired: false, holder: current };
      if (!reclaim(paths, current)) await sleep(RETRY_MS);
    }
    throw new Error(`could not take ${paths.lock}: it keeps changing hands`);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Remove a stale lock, under the reclaim lock, only if it is still the stale one. False: someone else is reclaiming. */
function reclaim(paths: ReturnType<typeof lockPaths>, stale: LockHolder | 'unreadable'): boolean {
  let fd: number;
  try {
    fd = openSync(paths.reclaim, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(paths.reclaim).mtimeMs > RECLAIM_LOCK_STALE_MS) unlinkSync(paths.reclaim);
    } catch {
      // gone already
    }
    return false;
  }
  try {
    if (sameHolder(readLockHolder(paths.lock), stale)) rmSync(paths.lock, { force: true });
  } finally {
    closeSync(fd);
    rmSync(paths.reclaim, { force: true });
  }
  return true;
}

/** Remove the lock, but only while it still names this holder. */
export function releaseDaemonLock(dir: string, holder: LockHolder): void {
  const { lock } = lockPaths(dir);
  if (sameHolder(readLockHolder(lock), holder)) rmSync(lock, { force: true });
}

/** The live keeper of this state directory (the lock's holder), and daemon.json when it names that keeper. */
export function findKeeper(dir: string, info: DaemonInfo | undefined): { holder: LockHolder; info: DaemonInfo | undefined } | undefined {
  const holder = readLockHolder(lockPaths(dir).lock);
  if (typeof holder !== 'object' || !isHolderAlive(holder)) return undefined;
  return { holder, info: info?.pid === holder.pid ? info : undefined };
}

/** A daemon the keeper starts within this is waited for (connections are held); past it, nobody waits for it (the keeper answers 503). */
export const RESTART_IMMINENT_MS = 1_000;

/** Whether daemon.json says a daemon serves: the keeper writes `restartAt` while none does. */
export const isServing = (info: DaemonInfo) => info.restartAt === undefined;

/** What a second start says about the daemon holding the lock: where it runs, that it is still starting, or that none serves and why; `command` runs askbridge here (askbridgeCommand). */
export function describeRunning(holder: LockHolder, info: DaemonInfo | undefined, command: string, now = Date.now()): string {
  if (info?.pid !== holder.pid) return `askbridge is already starting for this state directory (pid ${holder.pid})`;
  if (!isServing(info)) return describeNotServing(info, command, now);
  return `askbridge is already running (pid ${holder.pid}, http://${LOOPBACK_HOST}:${info.port}/): use \`${command} open\` for a page link, or \`${command} stop\``;
}

/** A keeper whose daemon keeps failing: what `status`, `start` and every command say, in one line. */
export function describeNotServing(info: DaemonInfo, command: string, now = Date.now()): string {
  const next = info.restartAt === undefined || info.restartAt <= now ? 'it is starting the next now' : `it starts the next in ${Math.ceil((info.restartAt - now) / 1000)} s`;
  return `askbridge's keeper (pid ${info.pid}) holds http://${LOOPBACK_HOST}:${info.port}/ but no daemon serves: ${describeCrashes(info)}; ${next}, or \`${command} stop\` ends it`;
}

/** `3 crashes since it started, the last at ISO: reason`. */
export function describeCrashes(info: DaemonInfo): string {
  const count = info.crashes ?? 0;
  const last = info.lastCrash ? `, the last at ${new Date(info.lastCrash.at).toISOString()}: ${info.lastCrash.reason}` : '';
  return `${count} crash${count === 1 ? '' : 'es'} since it started${last}`;
}

/** Why the last keeper stopped: said by `status` until the next start, which says it once. */
export function describeGaveUp(gaveUp: GaveUp): string {
  return `askbridge gave up at ${new Date(gaveUp.at).toISOString()} after ${gaveUp.crashes} failures in ${gaveUp.withinMs / 60_000} minutes, the last: ${gaveUp.reason}`;
}
