// Where the stack's programs are, the environment they run in, and the check that they are built.
// Nothing started through this harness may depend on the machine it runs on: not the developer's
// askbridge state or config, not a CI variable, not NODE_OPTIONS.
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleInputs } from '../../scripts/build-inputs.mjs';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI_BIN = join(REPO_ROOT, 'bin', 'askbridge.mjs');
export const HOOK_SCRIPT = join(REPO_ROOT, 'hooks', 'askbridge-hook.cjs');

/** Variables that would change how the daemon treats a question (unattended, CI, where transcripts are) or what it prints. */
const SCRUBBED_ENV = [
  'ASKBRIDGE_HOME',
  'ASKBRIDGE_PORT',
  'ASKBRIDGE_PUBLIC_URL',
  'ASKBRIDGE_DEBUG',
  'ASKBRIDGE_LOG_LEVEL',
  'ASKBRIDGE_UNATTENDED',
  'CI',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_PID',
  'CLAUDECODE',
  'XDG_STATE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'NODE_OPTIONS',
  // The shared store and how PostgreSQL's clients find a server and its password.
  'ASKBRIDGE_STORE',
  'PGHOST',
  'PGPORT',
  'PGDATABASE',
  'PGUSER',
  'PGPASSWORD',
  'PGPASSFILE',
];

/**
 * Where askbridge looks for the user's config in every run that does not give its own: a folder
 * that does not exist, so nothing started here ever reads the developer's ~/.config/askbridge/config.json.
 */
const NO_USER_CONFIG = join(tmpdir(), 'askbridge-tests-have-no-user-config');

/**
 * Where the daemons started here keep their code cache (src/daemon/code-cache.ts): one folder for
 * every run, so that a start after the first uses the cache as a user's does, and never the
 * developer's ~/.cache.
 */
const TEST_CACHE = join(tmpdir(), 'askbridge-tests-cache');

/** Where PostgreSQL's clients look for a password file: none, never the developer's ~/.pgpass. */
const NO_PASSWORD_FILE = join(tmpdir(), 'askbridge-tests-have-no-pgpass');

/** process.env without anything that would make a run depend on the machine it runs on. */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED_ENV) delete env[name];
  return { ...env, XDG_CONFIG_HOME: NO_USER_CONFIG, XDG_CACHE_HOME: TEST_CACHE, PGPASSFILE: NO_PASSWORD_FILE, ...extra };
}

/**
 * The stack runs the compiled daemon in dist/. Testing an old build gives misleading results, so
 * refuse to start when an input changed since the last build (scripts/build-inputs.mjs).
 */
export function assertBuildIsFresh(): void {
  const stale = staleInputs();
  if (stale.length > 0) {
    throw new Error(`dist/ is older than its sources (${stale.slice(0, 5).join(', ')}${stale.length > 5 ? ', ...' : ''}): run \`npm run build\` first`);
  }
}

/**
 * Most tests answer as a script does, through the API with no page open, which the default
 * (`wait-if-reachable`) would hand to the terminal at once: they run as a user who answers from
 * scripts would configure askbridge. Tests of the default itself say `defaults: true`.
 */
export const SCRIPTED_USER = { whenNobodyWatching: 'wait' } as const;
