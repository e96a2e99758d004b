// Which hook keys an http hook may send (daemon/hook-keys.ts): this daemon's own, read at each
// request; with a shared store, any daemon's whose SHA-256 is published there. A daemon publishes
// its own digest, never the key, at start and again soon after its key is rotated.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileDocuments } from '../../src/daemon/documents.js';
import { createHookKeys, HookKeyDigestsSchema, type HookKeys } from '../../src/daemon/hook-keys.js';
import { waitUntil } from '../stack/clock.js';

const silent = { info: () => {}, warn: () => {} };
const newKey = () => randomBytes(32).toString('base64url');
const digest = (key: string) => createHash('sha256').update(key).digest('hex');
const opened: HookKeys[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const keys of opened.splice(0)) keys.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The digests document as two daemons would share it (here one file stands for the store's row). */
function sharedDigests() {
  const folder = mkdtempSync(join(tmpdir(), 'askbridge-hook-keys-'));
  folders.push(folder);
  const file = join(folder, 'hook-keys.json');
  return { file, document: fileDocuments.open('hook-keys', file, HookKeyDigestsSchema) };
}

describe('the hook keys an http hook may send', () => {
  it("are this daemon's own alone without a store: the current one, read at each request", () => {
    let own: string | undefined = newKey();
    const keys = createHookKeys({ ownKey: () => own });
    opened.push(keys);
    const before = own!;
    expect(keys.accepts(before)).toBe(true);
    expect(keys.accepts(newKey())).toBe(false);
    own = newKey();
    expect(keys.accepts(before)).toBe(false);
    expect(keys.accepts(own)).toBe(true);
    own = undefined;
    expect(keys.accepts(before)).toBe(false);
  });

  it("are every daemon's on a store, by the digests they publish, never the keys; a rotation is published within a second", async () => {
    const { file, document } = sharedDigests();
    let firstKey = newKey();
    const secondKey = newKey();
    const first = createHookKeys({ ownKey: () => firstKey, shared: { document, daemon: 'first', log: silent } });
    const second = createHookKeys({ ownKey: () => secondKey, shared: { document, daemon: 'second', log: silent } });
    opened.push(first, second);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ first: digest(firstKey), second: digest(secondKey) });
    expect(second.accepts(firstKey)).toBe(true);
    expect(first.accepts(secondKey)).toBe(true);
    expect(second.accepts(newKey())).toBe(false);

    const old = firstKey;
    firstKey = newKey();
    await waitUntil(() => (second.accepts(old) ? undefined : true), 1_000, 'the rotated key to be refused by the other daemon');
    expect(second.accepts(firstKey)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain(firstKey);
  });
});
