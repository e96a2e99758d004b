// A real terminal for the CLI: one tmux server of its own (its socket in a temporary folder), keys
// sent and the screen read back. Every wait is for what the screen shows, within a bounded time.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitUntil } from './clock.js';
import { HELD } from '../../src/cli/prompts.js';
import { CLI_BIN, REPO_ROOT } from './env.js';

const execFileAsync = promisify(execFile);
const WAIT_MS = 10_000;

export type Terminal = {
  /** tmux key names (Enter, Down, Space, Escape, C-c). */
  press(...keys: string[]): Promise<void>;
  /** Text as typed. */
  type(text: string): Promise<void>;
  screen(): Promise<string>;
  /** Waits until the screen matches; fails with the last screen. */
  waitFor(expected: RegExp | string, what?: string): Promise<string>;
  /** Waits until the screen passes `test`; fails with the last screen. */
  waitUntilScreen(test: (screen: string) => boolean, what: string): Promise<string>;
  /**
   * Waits until the prompt being answered (activePrompt) matches and takes keys: a new ask's keys
   * wait a moment, and its prompt says so until they choose (src/cli/prompts.ts).
   */
  waitForPrompt(expected: RegExp | string): Promise<string>;
  /** Waits until the command has exited, and gives its exit code. */
  exitCode(): Promise<number>;
  title(): Promise<string>;
  /** Ends the terminal and everything in it. */
  close(): Promise<void>;
};

let terminalCount = 0;

/**
 * `askbridge ARGS` in a fresh 120x40 terminal with exactly `env` (nothing of this process's own
 * environment but what is passed), in the repository's folder.
 */
export async function openTerminal(args: string[], env: Record<string, string>): Promise<Terminal> {
  const dir = await mkdtemp(join(tmpdir(), 'askbridge-tmux-'));
  const socket = join(dir, 'tmux.sock');
  const session = `askbridge-terminal-${process.pid}-${++terminalCount}`;
  const config = join(dir, 'tmux.conf');
  // remain-on-exit keeps the pane and its last screen after the command ends.
  await writeFile(config, 'set -g remain-on-exit on\nset -g history-limit 5000\n');
  const tmux = async (...tmuxArgs: string[]) => (await execFileAsync('tmux', ['-S', socket, ...tmuxArgs], { encoding: 'utf8' })).stdout;
  const fullEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TERM: 'xterm-256color', ...env };
  // A shell around the command prints its exit status: tmux 3.3 can leave an exited pane's process
  // unreaped for a long while, and its status unknown. The shell traps SIGINT only to go on
  // waiting; the command itself gets Ctrl+C as usual.
  const command = ['env', '-i', ...Object.entries(fullEnv).map(([name, value]) => `${name}=${value}`), 'sh', '-c', 'trap true INT; "$@"; echo "[exit status $?]"', 'sh', process.execPath, CLI_BIN, ...args];
  await tmux('-f', config, 'new-session', '-d', '-s', session, '-x', '120', '-y', '40', '-c', REPO_ROOT, ...command);

  // From the start of the history: tmux 3.3 scrolls the screen by a line when the command exits (remain-on-exit), and a long flow scrolls too.
  const screen = async () => (await tmux('capture-pane', '-p', '-S', '-', '-t', session)).split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();
  const waitUntilScreen = async (test: (text: string) => boolean, what: string) => {
    let last = '';
    try {
      return await waitUntil(async () => {
        last = await screen();
        return test(last) ? last : undefined;
      }, WAIT_MS, what, 50);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- screen\n${last}`);
    }
  };
  const matches = (text: string, expected: RegExp | string) => (typeof expected === 'string' ? text.includes(expected) : expected.test(text));
  return {
    async press(...keys) {
      await tmux('send-keys', '-t', session, ...keys);
    },
    async type(text) {
      await tmux('send-keys', '-t', session, '-l', '--', text);
    },
    screen,
    waitFor: (expected, what = String(expected)) => waitUntilScreen((text) => matches(text, expected), what),
    waitUntilScreen,
    waitForPrompt: (expected) =>
      waitUntilScreen((text) => {
        const prompt = activePrompt(text);
        return matches(prompt, expected) && !prompt.includes(HELD);
      }, `the prompt ${String(expected)}, taking keys`),
    async exitCode() {
      const screenText = await waitUntilScreen((text) => /\[exit status \d+\]/.test(text), 'the command to exit');
      return Number(/\[exit status (\d+)\]/.exec(screenText)![1]);
    },
    title: async () => (await tmux('display-message', '-p', '-t', session, '#{pane_title}')).trim(),
    async close() {
      await tmux('kill-server').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The prompt waiting for keys: the last block drawn (a line starting ◆, ▲, ◇, ●, ┌ or ■), when it is
 * a prompt drawn as active (◆, or ▲ with an error), to the end. A warning (▲) that a later block
 * follows is not a prompt: "▲  Note: …" above a finished reply must not pass for the next one.
 * A question's list refused for want of text (▲ "Other needs text") stays above the line that asks for it.
 */
export function activePrompt(screen: string): string {
  const lines = screen.split('\n');
  const start = lines.findLastIndex((line) => /^[◆▲◇●┌■] {2}\S/.test(line) && !line.includes('Other needs text'));
  return start < 0 || !/^[◆▲]/.test(lines[start]!) ? '' : lines.slice(start).join('\n');
}
