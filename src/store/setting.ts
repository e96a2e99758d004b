// Where the shared store is: a PostgreSQL URL from ASKBRIDGE_STORE (which wins) or the user
// config's `store`. None set: askbridge keeps its state in files, as it always has. A URL in the
// config file may not carry a password: config files get copied, shared and shown; the password
// comes from PGPASSWORD or a password file (connect.ts). Pure: it reads the config, opens nothing.
import { readFileSync } from 'node:fs';
import { ConfigFileError, readConfigFile, userConfigPath } from '../config.js';
import { storeUrlProblem } from '../store-url.js';

export type StoreSetting = {
  url: string;
  /** Where it was set: the environment, or the user config file (its path). */
  source: { kind: 'environment' } | { kind: 'user'; file: string };
};

/** No store, a store, or a setting that cannot be used (its message names where it is). */
export type StoreChoice = { kind: 'none' } | { kind: 'store'; setting: StoreSetting } | { kind: 'error'; message: string };

/**
 * The store this machine's askbridge uses. The user config is read as a whole: a file broken
 * elsewhere still gives its store when the store itself is fine, and a broken file that names a store
 * is an error, never "no store" (a daemon would otherwise run on its own files beside the others).
 */
export function chooseStore(env: NodeJS.ProcessEnv): StoreChoice {
  const fromEnvironment = env.ASKBRIDGE_STORE;
  if (fromEnvironment) {
    const problem = storeUrlProblem(fromEnvironment, false);
    return problem ? { kind: 'error', message: `ASKBRIDGE_STORE: ${problem}` } : { kind: 'store', setting: { url: fromEnvironment, source: { kind: 'environment' } } };
  }
  const file = userConfigPath(env);
  try {
    const url = readConfigFile(file).store;
    return url === undefined ? { kind: 'none' } : { kind: 'store', setting: { url, source: { kind: 'user', file } } };
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    return namesStore(file) ? { kind: 'error', message: error.message } : { kind: 'none' };
  }
}

/** Whether a config file that does not parse as a whole still has a `store` key. */
function namesStore(file: string): boolean {
  try {
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof json === 'object' && json !== null && 'store' in json;
  } catch {
    return false;
  }
}

/** The store as it may be shown: user, host, port and database, never a password. */
export function describeStoreUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.password = '';
    url.searchParams.delete('password');
    return url.href;
  } catch {
    return '(not a URL)';
  }
}

/** Where the setting came from, in words. */
export function describeStoreSource(setting: StoreSetting): string {
  return setting.source.kind === 'environment' ? 'ASKBRIDGE_STORE' : setting.source.file;
}
