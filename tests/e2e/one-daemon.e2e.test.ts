// One daemon per state directory: concurrent starts end with exactly one daemon, a stale lock from a
// dead daemon is reclaimed, and a live daemon's lock is never taken. Real `askbridge start` processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../src/daemon/lock.js';
import { assertBuildIsFresh, baseEnv, CLI_BIN, REPO_ROOT } from '../stack/env.js';
import { parseJson, runCli } from '../stack/processes.js';

const PAGE_LINK = /^Answer page \(one-time link, pairs one browser\): http:\/\/127\.0\.0\.1:(\d+)\//m;

type Start = { child: ChildProcess; outcome: Promise<{ kind: 'serving'; port: number } | { kind: 'exited'; code: number | null; stderr: string }> };

const homes: string[] = [];
const children = new Set<ChildProcess>();
afterEach(async () => {
  await Promise.all([...children].map((child) => stopChild(child, 'SIGKILL')));
});
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  assertBuildIsFresh();
  const home = mkdtempSync(join(tmpdir(), 'askbridge-one-'));
  homes.push(home);
  mkdirSync(join(home, 'xdg-config'));
  return home;
}

// HOME too: no Claude Code there, so a start says nothing about wiring it (cli/first-start.ts).
const envFor = (home: string) => baseEnv({ HOME: home, ASKBRIDGE_HOME: home, ASKBRIDGE_PORT: '0', XDG_CONFIG_HOME: join(home, 'xdg-config') });

/** `askbridge start`, settled once it serves (prints its page link) or exits. */
function start(home: string): Start {
  const child = spawn(process.execPath, [CLI_BIN, 'start'], { cwd: REPO_ROOT, env: envFor(home), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stdout = '';
  let stderr = '';
  const outcome = new Promise<Awaited<Start['outcome']>>((resolve) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const link = PAGE_LINK.exec(stdout);
      if (link) resolve({ kind: 'serving', port: Number(link[1]) });
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('close', (code) => resolve({ kind: 'exited', code, stderr }));
  });
  return { child, outcome };
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill(signal);
  });
}

async function statusOf(home: string): Promise<{ running: boolean; pid?: number; port?: number }> {
  return parseJson((await runCli(['status', '--json'], baseEnv({ ASKBRIDGE_HOME: home }))).stdout, 'status --json');
}

describe('one daemon per state directory', () => {
  it('ten `askbridge start` at once end with exactly one daemon, and the others exit 0 saying so (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const home = newHome();
      const starts = Array.from({ length: 10 }, () => start(home));
      const outcomes = await Promise.all(starts.map((s) => s.outcome));
      const serving = outcomes.flatMap((outcome, index) => (outcome.kind === 'serving' ? [{ ...outcome, child: starts[index]!.child }] : []));
      expect(serving, `round ${round}: ${JSON.stringify(outcomes)}`).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.kind === 'exited') {
          expect(outcome.code, outcome.stderr).toBe(0);
          expect(outcome.stderr).toMatch(/^askbridge is already (running|starting)/);
        }
      }
      // daemon.json and the token belong to the one that serves: the CLI reaches it.
      const winner = serving[0]!;
      expect(await statusOf(home)).toMatchObject({ running: true, pid: winner.child.pid, port: winner.port });
      await stopChild(winner.child);
      expect(existsSync(join(home, 'daemon.lock'))).toBe(false);
    }
  }, 240_000);

  it('reclaims the lock of a daemon that was killed with SIGKILL, even with ten starts racing for it', async () => {
    const home = newHome();
    const first = start(home);
    expect((await first.outcome).kind).toBe('serving');
    await stopChild(first.child, 'SIGKILL');
    expect(existsSync(join(home, 'daemon.lock'))).toBe(true);

    const starts = Array.from({ length: 10 }, () => start(home));
    const outcomes = await Promise.all(starts.map((s) => s.outcome));
    expect(outcomes.filter((outcome) => outcome.kind === 'serving')).toHaveLength(1);
    const winner = starts[outcomes.findIndex((outcome) => outcome.kind === 'serving')]!;
    expect(await statusOf(home)).toMatchObject({ running: true, pid: winner.child.pid });
  });

  it('never takes the lock of a live process, and takes one whose pid now belongs to another process', async () => {
    const home = newHome();
    const lock = join(home, 'daemon.lock');
    const live = JSON.stringify({ pid: process.pid, startTime: processStartTime(process.pid) });
    writeFileSync(lock, live, { mode: 0o600 });
    const refused = await start(home).outcome;
    expect(refused).toMatchObject({ kind: 'exited', code: 0 });
    expect(readFileSync(lock, 'utf8')).toBe(live);

    // The same pid with another start time: that process is gone and its pid was reused.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, startTime: '1' }), { mode: 0o600 });
    const reclaimed = start(home);
    expect((await reclaimed.outcome).kind).toBe('serving');
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: reclaimed.child.pid });
  });
});
