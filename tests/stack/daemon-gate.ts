// A gate at the start of the daemon process, for tests of what the keeper does while its daemon is
// down: once closed, the next daemon the keeper starts (after a crash) waits, before it loads
// anything, until the test opens the gate. Without it a restarted daemon serves again within a
// moment, and whatever a test does meanwhile races it. The gate is a small module that Node preloads
// (NODE_OPTIONS --require) into the keeper and its daemon: in the daemon process, and only while the
// gate is closed, it reads a named pipe, which blocks it until the test opens the pipe and closes it.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './clock.js';

export type DaemonGate = {
  /** For startDaemon's env: the preload. */
  env: NodeJS.ProcessEnv;
  /** The next daemon to start waits at the gate. */
  close(): void;
  /** Once the waiting daemon is at the gate, lets it go on (the gate stays open after). */
  open(): Promise<void>;
  remove(): void;
};

export function daemonGate(): DaemonGate {
  const dir = mkdtempSync(join(tmpdir(), 'askbridge-gate-'));
  const pipe = join(dir, 'gate');
  const preload = join(dir, 'gate.cjs');
  writeFileSync(
    preload,
    `const { existsSync, readFileSync } = require('node:fs');\nif ((process.argv[1] ?? '').endsWith('daemon-process.js') && existsSync(${JSON.stringify(pipe)})) readFileSync(${JSON.stringify(pipe)});\n`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${preload}` },
    close() {
      execFileSync('mkfifo', ['-m', '600', pipe]);
    },
    async open() {
      // Opening the pipe to write without blocking succeeds only once a reader has it open: the daemon, at the gate.
      const fd = await waitUntil(
        () => {
          try {
            return openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
            throw error;
          }
        },
        20_000,
        'the restarted daemon to wait at the gate',
      );
      // Gone before the daemon reads its end (the next one passes), then the end of what it reads.
      unlinkSync(pipe);
      closeSync(fd);
    },
    /** Lets a daemon still waiting go on (a test that failed before it opened the gate), and removes the gate. */
    remove() {
      if (existsSync(pipe)) {
        let fd: number | undefined;
        try {
          fd = openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK);
        } catch {
          // nobody waits at it
        }
        unlinkSync(pipe);
        if (fd !== undefined) closeSync(fd);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
