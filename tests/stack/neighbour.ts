// The neighbour: a second local user on the same machine, who plays the attacker where one is local.
// It runs real Node processes under its own uid and gid, with its own home, and can do what any
// user of a shared machine can: listen on a free loopback port, create folders in the shared temp
// directory, connect to what is left open to it. Becoming it takes root (useradd, then setuid in
// spawn); where the tests do not run as root, the suites that need it say why they cannot run.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, type RunningProcess } from './processes.js';

/** The neighbour's account: a system user with no login and no home of its own. */
export const NEIGHBOUR_NAME = 'askbridge-neighbour';

export function neighbourAvailability(): { available: true } | { available: false; reason: string } {
  if (process.platform !== 'linux') return { available: false, reason: 'a second local user is made with Linux useradd' };
  if (process.getuid?.() !== 0) return { available: false, reason: 'a second local user takes root to create and to become' };
  return { available: true };
}

export type Neighbour = {
  name: string;
  uid: number;
  gid: number;
  /** A home of its own, owned by it (HOME and TMPDIR of what it runs point into it). */
  home: string;
  /**
   * Runs `source` (an ES module, Node's built-ins only: the neighbour cannot read this repository's
   * node_modules through a private parent) as the neighbour, with `env` over a bare environment.
   */
  run(source: string, env?: NodeJS.ProcessEnv): RunningProcess;
  /** Removes its home (the account stays: creating it again on every run would only cost time). */
  remove(): void;
};

/** The neighbour's account, created if missing, and a fresh home for it. */
export function becomeNeighbour(): Neighbour {
  const availability = neighbourAvailability();
  if (!availability.available) throw new Error(`no second local user: ${availability.reason}`);
  const { uid, gid } = ensureAccount();
  const home = mkdtempSync(join(tmpdir(), 'askbridge-neighbour-'));
  chownSync(home, uid, gid);
  chmodSync(home, 0o700);
  // The scripts it runs are ours, readable by it: a folder it can enter but not write.
  const scripts = mkdtempSync(join(tmpdir(), 'askbridge-neighbour-scripts-'));
  chmodSync(scripts, 0o755);
  let count = 0;
  return {
    name: NEIGHBOUR_NAME,
    uid,
    gid,
    home,
    run(source, env = {}) {
      count += 1;
      const file = join(scripts, `script-${count}.mjs`);
      writeFileSync(file, source, { mode: 0o644 });
      return startNode([file], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home, ...env }, { uid, gid, cwd: home });
    },
    remove() {
      rmSync(home, { recursive: true, force: true });
      rmSync(scripts, { recursive: true, force: true });
    },
  };
}

function ensureAccount(): { uid: number; gid: number } {
  try {
    return idOf(NEIGHBOUR_NAME);
  } catch {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', NEIGHBOUR_NAME], { stdio: 'pipe' });
    } catch (error) {
      // Two suites creating it at once: one wins, the other finds it made.
      const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
      if (!stderr.includes('already exists')) throw error;
    }
    return idOf(NEIGHBOUR_NAME);
  }
}

function idOf(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
  return { uid, gid };
}
