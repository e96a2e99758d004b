// Which Claude Code the user runs, and what it can do: `install` picks the hook transport by it and
// `doctor` checks it.
import { execFile } from 'node:child_process';
import { shorten } from '../shorten.js';

export type ClaudeProbe = { bin: string } & ({ state: 'found'; output: string } | { state: 'missing' } | { state: 'failed'; error: string });
export type Version = readonly [number, number, number];

/** The first Claude Code that accepts answers through `updatedInput` (protocol.md section 2). */
export const MIN_UPDATED_INPUT_VERSION: Version = [2, 1, 85];
/** The first Claude Code with `"type": "http"` hooks (protocol.md 5a). */
export const MIN_HTTP_HOOK_VERSION: Version = [2, 1, 63];

export function parseClaudeVersion(output: string): [number, number, number] | undefined {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(output);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The version a probe found, or undefined when it found none it could read. */
export function probedVersion(probe: ClaudeProbe): [number, number, number] | undefined {
  return probe.state === 'found' ? parseClaudeVersion(probe.output) : undefined;
}

/** Runs `<bin> --version`; a binary that is not there is reported apart from one that fails. */
export function probeClaude(bin: string, env: NodeJS.ProcessEnv): Promise<ClaudeProbe> {
  return new Promise((done) => {
    execFile(bin, ['--version'], { env, timeout: 15_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') done({ bin, state: 'missing' });
      else if (error) done({ bin, state: 'failed', error: shorten(stderr.trim() || error.message, 500, { whitespace: 'keep' }) });
      else done({ bin, state: 'found', output: stdout });
    });
  });
}

