/**
 * The Claude Code client the conformance suite drives. It is no dependency of askbridge:
 * scripts/conformance-client.mjs installs it with npm into .cache/claude-code/<version>/ and
 * prints that folder, at once when the version is already there. The pinned version is
 * package.json's "config"."claudeCodeVersion", the one place that names it.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../stack/env.js';

const execFileAsync = promisify(execFile);

const INSTALL_SCRIPT = join(REPO_ROOT, 'scripts', 'conformance-client.mjs');

export interface InstalledClaude {
  /** The version npm installed, from the package's own package.json. */
  version: string;
  /** The folder the script installed it into (npm's prefix). */
  dir: string;
  /** Its `claude` command. */
  bin: string;
  /** The package itself (package.json, sdk-tools.d.ts). */
  packageDir: string;
}

/** The client version the suite runs unless CLAUDE_CODE_VERSION names another. */
export function pinnedClaudeVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { config?: { claudeCodeVersion?: unknown } };
  const pinned = pkg.config?.claudeCodeVersion;
  if (typeof pinned !== 'string' || pinned === '') throw new Error('package.json pins no Claude Code version ("config"."claudeCodeVersion")');
  return pinned;
}

const installs = new Map<string, Promise<InstalledClaude>>();

/** The client at `spec` (a version or a dist-tag such as `latest`), installed first if needed. */
export function installedClaude(spec: string = pinnedClaudeVersion()): Promise<InstalledClaude> {
  let install = installs.get(spec);
  if (!install) {
    install = runInstallScript(spec);
    installs.set(spec, install);
    install.catch(() => installs.delete(spec));
  }
  return install;
}

async function runInstallScript(spec: string): Promise<InstalledClaude> {
  let dir: string;
  try {
    const { stdout } = await execFileAsync(process.execPath, [INSTALL_SCRIPT, 'claude', spec], { encoding: 'utf8', timeout: 280_000, maxBuffer: 1024 * 1024 });
    dir = stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`installing Claude Code ${spec} for the conformance suite failed${stderr ? `: ${stderr}` : ''}`, { cause: error });
  }
  const packageDir = join(dir, 'node_modules', '@anthropic-ai', 'claude-code');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return { version, dir, bin: join(dir, 'node_modules', '.bin', 'claude'), packageDir };
}
