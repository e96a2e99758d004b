// The state directory: how the hook and the CLI find the daemon (daemon.json) and prove they are
// local (the token). The directory is 0700 and every file in it 0600, written atomically.
// hooks/askbridge-hook.cjs resolves the same paths on its own, to stay dependency-free.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { makeFolders } from './folders.js';

export const DEFAULT_PORT = 7433;
export const LOOPBACK_HOST = '127.0.0.1';

/** `ASKBRIDGE_HOME`, else `$XDG_STATE_HOME/askbridge`, else `~/.local/state/askbridge`. */
export function resolveStateDir(env: NodeJS.ProcessEnv): string {
  if (env.ASKBRIDGE_HOME) return env.ASKBRIDGE_HOME;
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(stateHome, 'askbridge');
}

/** The port the daemon is asked to use: --port, else ASKBRIDGE_PORT, else 7433 (0: any free port). Not yet checked. */
export function configuredPort(env: NodeJS.ProcessEnv, flag?: number): number {
  return flag ?? (env.ASKBRIDGE_PORT ? Number(env.ASKBRIDGE_PORT) : DEFAULT_PORT);
}

/** The background daemon's logs (logger.ts writes them, `askbridge logs` reads them). */
export function logsDir(stateDir: string): string {
  return join(stateDir, 'logs');
}

/** Who holds the daemon's listening sockets: askbridge's keeper process, or the service manager (systemd) that passed them to it. */
export type PortHolder = 'keeper' | 'service';

/** A daemon that ended without being asked to: when, and why (one line, already safe to show). */
export type DaemonFailure = { at: number; reason: string };

/**
 * daemon.json: where the running daemon listens, written by the daemon while it serves and by the
 * keeper while none does (after a crash, until the next daemon serves). `pid` is the keeper, the
 * process that holds the state directory's lock (and the port) and that `askbridge stop` ends;
 * `daemonPid` is the daemon process it runs, which a crash replaces.
 */
export type DaemonInfo = {
  pid: number;
  port: number;
  host: string;
  version: string;
  startedAt: number;
  /** Where pages on other devices reach it (public-url.ts). */
  publicUrl?: string;
  daemonPid?: number;
  portHeldBy?: PortHolder;
  /** How many daemons ended without being asked to since the keeper started, and the last of them. */
  crashes?: number;
  lastCrash?: DaemonFailure;
  /** Only while no daemon serves: when the keeper starts the next one (past: it is starting now). */
  restartAt?: number;
};

/** gave-up.json: why the keeper stopped trying, kept until the next start says it. */
export type GaveUp = { at: number; crashes: number; withinMs: number; reason: string };

/**
 * The check of daemon.json. It is read on the CLI's fastest paths (`status`, every command that
 * talks to the daemon) where loading zod would cost more than the command itself, so this one
 * small file is checked by hand: every field, with the ranges the daemon writes.
 */
export function parseDaemonInfo(value: unknown): DaemonInfo | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const info = value as Record<string, unknown>;
  const { pid, port, host, version, startedAt, publicUrl, daemonPid, portHeldBy, crashes, lastCrash, restartAt } = info;
  if (!Number.isInteger(pid) || (pid as number) <= 0) return undefined;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) return undefined;
  if (typeof host !== 'string' || typeof version !== 'string' || typeof startedAt !== 'number') return undefined;
  if (daemonPid !== undefined && (!Number.isInteger(daemonPid) || (daemonPid as number) <= 0)) return undefined;
  if (portHeldBy !== undefined && portHeldBy !== 'keeper' && portHeldBy !== 'service') return undefined;
  if (crashes !== undefined && (!Number.isInteger(crashes) || (crashes as number) < 0)) return undefined;
  if (lastCrash !== undefined && !isFailure(lastCrash)) return undefined;
  if (restartAt !== undefined && typeof restartAt !== 'number') return undefined;
  return {
    pid: pid as number,
    port: port as number,
    host,
    version,
    startedAt,
    ...(typeof publicUrl === 'string' ? { publicUrl } : {}),
    ...(daemonPid === undefined ? {} : { daemonPid: daemonPid as number }),
    ...(portHeldBy === undefined ? {} : { portHeldBy }),
    ...(crashes === undefined ? {} : { crashes: crashes as number }),
    ...(lastCrash === undefined ? {} : { lastCrash: lastCrash as DaemonFailure }),
    ...(restartAt === undefined ? {} : { restartAt }),
  };
}

function isFailure(value: unknown): value is DaemonFailure {
  const failure = value as Partial<DaemonFailure> | null;
  return typeof failure === 'object' && failure !== null && typeof failure.at === 'number' && typeof failure.reason === 'string';
}

function parseGaveUp(value: unknown): GaveUp | undefined {
  if (!isFailure(value)) return undefined;
  const { crashes, withinMs } = value as Partial<GaveUp>;
  if (!Number.isInteger(crashes) || typeof withinMs !== 'number') return undefined;
  return { at: value.at, crashes: crashes!, withinMs, reason: value.reason };
}

export type StateDir = ReturnType<typeof openStateDir>;

export function openStateDir(dir: string) {
  const paths = {
    dir,
    daemonInfo: join(dir, 'daemon.json'),
    token: join(dir, 'token'),
    hookKey: join(dir, 'hook-key'),
    /** With a shared store, the SHA-256 of every daemon's hook key there: a copy (daemon/hook-keys.ts). */
    hookKeys: join(dir, 'hook-keys.json'),
    history: join(dir, 'history.jsonl'),
    pageSessions: join(dir, 'page-sessions.json'),
    /** The daemon's VAPID key pair for Web Push, made once. */
    vapidKeys: join(dir, 'vapid-keys.json'),
    /** Each paired device's push subscription. */
    pushSubscriptions: join(dir, 'push-subscriptions.json'),
    /** Whether the person said they are away (away.ts). */
    away: join(dir, 'away.json'),
    /** The sessions whose MCP request the command hook holds (daemon/held-elicitations.ts). */
    heldElicitations: join(dir, 'held-elicitations.json'),
    /** The person's live grants (daemon/grants.ts). */
    grants: join(dir, 'grants.json'),
    /** The people askbridge knows, and their groups (daemon/people.ts). */
    people: join(dir, 'people.json'),
    /** The audit trail of every decision, append only (daemon/audit.ts, docs/audit.md). */
    audit: join(dir, 'audit.jsonl'),
    /** The secret key of the audit trail's MACs: made once, never logged. */
    auditKey: join(dir, 'audit-key'),
    /** The audit trail's last line (its sequence number and hash), so that lines cut from its end show. */
    auditHead: join(dir, 'audit-head.json'),
    /** The Telegram chats paired with the user's bot (telegram/chats.ts). */
    telegramChats: join(dir, 'telegram-chats.json'),
    /** Why the last keeper stopped restarting its daemon (keeper.ts), until the next start. */
    gaveUp: join(dir, 'gave-up.json'),
  };

  return {
    paths,

    /**
     * Create the directory 0700, or tighten it; refuse one that another user owns. askbridge's own
     * files in it are tightened to 0600 too (an older version, or a copy, may have left one looser).
     */
    ensure(): void {
      makeFolders(dir, 0o700);
      const stat = statSync(dir);
      if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
        throw new Error(`state directory ${dir} belongs to another user`);
      }
      if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
      for (const file of readdirSync(dir, { withFileTypes: true })) {
        if (!file.isFile()) continue;
        const path = join(dir, file.name);
        try {
          if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
        } catch (error) {
          // Another start's temporary file, gone between the listing and here.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
    },

    /** A fresh random token for this daemon run: a token from an earlier run stops working. */
    writeNewToken(): string {
      const token = randomBytes(32).toString('base64url');
      writeFileAtomic(paths.token, `${token}\n`);
      return token;
    },

    readToken(): string | undefined {
      return readText(paths.token)?.trim() || undefined;
    },

    /** The hook key: what an http hook entry sends to ask questions (it can do nothing else). It outlives daemon runs. */
    readHookKey(): string | undefined {
      return readText(paths.hookKey)?.trim() || undefined;
    },

    /**
     * The hook key, made on first use. Concurrent first uses (a daemon starting while `install`
     * runs) agree on one key: each writes a candidate, and only the first link(2) to the name wins.
     */
    ensureHookKey(command: string): string {
      const existing = this.readHookKey();
      if (existing) return existing;
      writeOnce(paths.hookKey, `${newHookKey()}\n`);
      const key = this.readHookKey();
      if (!key) throw new Error(`${paths.hookKey} is empty: remove it, or run \`${command} install --rotate-key\``);
      return key;
    },

    /** A new hook key: the old one stops working at once, in every settings file that holds it. */
    rotateHookKey(): string {
      const key = newHookKey();
      writeFileAtomic(paths.hookKey, `${key}\n`);
      return key;
    },

    writeDaemonInfo(info: DaemonInfo): void {
      writeFileAtomic(paths.daemonInfo, `${JSON.stringify(info)}\n`);
    },

    readDaemonInfo(): DaemonInfo | undefined {
      return parseDaemonInfo(readJson(paths.daemonInfo));
    },

    writeGaveUp(gaveUp: GaveUp): void {
      writeFileAtomic(paths.gaveUp, `${JSON.stringify(gaveUp)}\n`);
    },

    readGaveUp(): GaveUp | undefined {
      return parseGaveUp(readJson(paths.gaveUp));
    },

    removeGaveUp(): void {
      rmSync(paths.gaveUp, { force: true });
    },

    /** Remove daemon.json and the token, but only while daemon.json still names this process. */
    removeDaemonInfo(pid: number): void {
      const info = this.readDaemonInfo();
      if (info && info.pid !== pid) return;
      rmSync(paths.daemonInfo, { force: true });
      rmSync(paths.token, { force: true });
    },
  };
}

/** A disk that refuses the state directory's files is a one-line reason not to start. */
const DISK_ERRORS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/** Why the state directory cannot be written, as the one line `askbridge start` says; undefined for an error that is not the disk's. */
export function stateDirWriteError(dir: string, error: unknown): string | undefined {
  const reason = diskErrorReason(error);
  return reason ? `cannot write the state directory ${dir}: ${reason}; free it up, or point ASKBRIDGE_HOME elsewhere` : undefined;
}

/** A disk's refusal in words, with its code ("the disk is full (ENOSPC)"); undefined for an error that is not the disk's. */
export function diskErrorReason(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = DISK_ERRORS[code];
  return reason ? `${reason} (${code})` : undefined;
}

/** Whether a process with this pid exists (EPERM: it does, but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readJson(path: string): unknown {
  const raw = readText(path);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

const newHookKey = () => randomBytes(32).toString('base64url');

/** A 0600 file beside `path` holding `content`, synced; removed again when the write fails. */
function writeTemporary(path: string, content: string): string {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // A full disk fails the write after the file exists: never leave the half-written copy behind.
    rmSync(temporary, { force: true });
    throw error;
  }
  return temporary;
}

/**
 * Make `path` holding `content` unless it exists: concurrent makers agree on one, as each writes a
 * candidate and only the first link(2) to the name wins. An existing file is left as it is.
 */
export function writeOnce(path: string, content: string): void {
  const temporary = writeTemporary(path, content);
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Write to a temporary file, fsync, then rename: readers see the old file or the new, never half. */
export function writeFileAtomic(path: string, content: string): void {
  const temporary = writeTemporary(path, content);
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
