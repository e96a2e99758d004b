// What a store URL may be (the shared store, docs/shared-store.md): a PostgreSQL URL, and in a
// config file never one that carries a password. A module of its own because two check with it:
// config.ts (the config file's `store`) and store/setting.ts (ASKBRIDGE_STORE), which imports config.ts.
import { z } from 'zod';

const PROTOCOLS = ['postgres:', 'postgresql:'];

/** Why a store URL cannot be used, or undefined when it can; `fromFile`: a password is refused there. */
export function storeUrlProblem(raw: string, fromFile: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL: a store is a PostgreSQL URL, for example postgres://askbridge@db.example:5432/askbridge';
  }
  if (!PROTOCOLS.includes(url.protocol)) return `a store is a PostgreSQL URL (postgres://user@host:port/database), not ${url.protocol}`;
  if (fromFile && (url.password !== '' || url.searchParams.has('password'))) {
    return 'a store URL in a config file must not carry a password (config files get copied and shown): leave it out, and give the password in PGPASSWORD or a password file (~/.pgpass, or the file PGPASSFILE names)';
  }
  return undefined;
}

/** The config file's `store` (config.ts): a PostgreSQL URL with no password. */
export const StoreUrlSchema = z
  .string()
  .max(2048)
  .superRefine((raw, ctx) => {
    const problem = storeUrlProblem(raw, true);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
