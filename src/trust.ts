// Which project config files the user trusts. A repository's .claude/askbridge.json can answer
// questions on the user's behalf ("Deploy to production?" -> "Yes"), so a clone's file must not
// apply by itself. Trust is given to a file's CONTENT, as direnv does, not to its directory: a
// `git pull` that changes a trusted file does not apply silently, and neither does a teammate's
// edit. The user's own edit applies after the one documented command, `askbridge trust DIR`, run
// again. Kept in trusted-projects.json in the state directory (0600, written atomically); re-read
// whenever it changes, so trusting needs no restart.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { openStateDir, resolveStateDir, writeFileAtomic } from './state-dir.js';

const TrustedSchema = z.array(z.object({ file: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), trustedAt: z.string() }));
export type TrustedFile = z.infer<typeof TrustedSchema>[number];

/** trusted: applies; untrusted: never trusted here; changed: trusted once, edited since. */
export type TrustVerdict = 'trusted' | 'untrusted' | 'changed';

export function contentHash(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function trustFilePath(env: NodeJS.ProcessEnv): string {
  return join(resolveStateDir(env), 'trusted-projects.json');
}

export function createTrustStore(env: NodeJS.ProcessEnv) {
  const path = trustFilePath(env);
  let cached: { stamp: string; entries: TrustedFile[] } | undefined;

  function stampOf(): string {
    try {
      const stat = statSync(path);
      return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      return 'missing';
    }
  }

  function entries(): TrustedFile[] {
    const stamp = stampOf();
    if (cached?.stamp === stamp) return cached.entries;
    let list: TrustedFile[] = [];
    try {
      const parsed = TrustedSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (parsed.success) list = parsed.data;
    } catch {
      // missing or unreadable: nothing is trusted
    }
    cached = { stamp, entries: list };
    return list;
  }

  function save(list: TrustedFile[]): void {
    openStateDir(resolveStateDir(env)).ensure();
    writeFileAtomic(path, `${JSON.stringify(list, null, 2)}\n`);
    cached = undefined;
  }

  return {
    path,
    list: entries,
    verdict(file: string, hash: string): TrustVerdict {
      const entry = entries().find((candidate) => candidate.file === file);
      if (!entry) return 'untrusted';
      return entry.sha256 === hash ? 'trusted' : 'changed';
    },
    trust(file: string, hash: string, now = new Date()): void {
      save([...entries().filter((entry) => entry.file !== file), { file, sha256: hash, trustedAt: now.toISOString() }]);
    },
    /** False when the file was not trusted. */
    revoke(file: string): boolean {
      const list = entries();
      const kept = list.filter((entry) => entry.file !== file);
      if (kept.length === list.length) return false;
      save(kept);
      return true;
    },
  };
}

export type TrustStore = ReturnType<typeof createTrustStore>;
