// Shared documents (daemon/documents.ts) against a real PostgreSQL (a throwaway cluster of this
// file's own), each "daemon" a pool and a state directory of its own: two changing one document at
// the same moment both keep their change (the second write is refused by the row's version and its
// change made again on the first's value), and a document the store does not have yet is the first
// daemon's, which the second then takes and is told.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fileDocuments, openSharedDocuments, type SharedDocuments } from '../../src/daemon/documents.js';
import { writeJsonFile } from '../../src/daemon/json-file.js';
import { clientConfig } from '../../src/store/connect.js';
import { migrationsDir } from '../../src/store/schema.js';
import { postgresAvailability, startPostgres, type PostgresCluster } from '../stack/postgres.js';

const postgres = postgresAvailability();
let cluster: PostgresCluster;
const pools: pg.Pool[] = [];
const folders: string[] = [];
const ListSchema = z.array(z.string());

beforeAll(async () => {
  if (!postgres.available) return;
  cluster = await startPostgres();
  // The documents table as the first migration makes it.
  const firstSchema = readFileSync(join(migrationsDir(), '0001_first-schema.sql'), 'utf8').split('-- Down Migration')[0]!;
  await cluster.query(`CREATE SCHEMA askbridge; ${firstSchema}`);
}, 60_000);
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  if (postgres.available) await cluster.query('DELETE FROM askbridge.documents');
});
afterAll(async () => {
  await cluster?.remove();
});

type Daemon = { documents: SharedDocuments; file: string; conflicts: () => number };

/** A daemon's side: a pool and a state directory of its own, the documents opened as main.ts opens them; `own`: its file's value before it starts. */
async function daemon(name: string, own?: string[]): Promise<Daemon> {
  const pool = new pg.Pool(clientConfig(cluster.url, { PGPASSWORD: cluster.password }));
  pools.push(pool);
  const folder = mkdtempSync(join(tmpdir(), `askbridge-documents-${name}-`));
  folders.push(folder);
  const file = join(folder, 'people.json');
  if (own) writeJsonFile(file, own);
  let conflicts = 0;
  const log = { info: (_fields: Record<string, unknown>, message: string) => void (message.startsWith('another daemon changed this document first') && (conflicts += 1)), warn: () => {} };
  const documents = await openSharedDocuments({ pool, daemon: name, reachable: () => true, log });
  return { documents, file, conflicts: () => conflicts };
}

const stored = async () => (await cluster.query<{ body: string[] }>("SELECT body FROM askbridge.documents WHERE name = 'people'"))[0]?.body;

describe.skipIf(!postgres.available)('a document two daemons share', () => {
  it('keeps every change when two daemons change it at the same moment, again and again', async () => {
    const [first, second] = await Promise.all([daemon('first'), daemon('second')]);
    const one = first.documents.open('people', first.file, ListSchema);
    const other = second.documents.open('people', second.file, ListSchema);
    const told: string[][] = [];
    other.onChange((value) => told.push(value));
    const ROUNDS = 20;
    for (let round = 0; round < ROUNDS; round++) {
      // Both change it before either has written: both writes race for the same version.
      one.update((current) => [...(current ?? []), `first ${round}`]);
      other.update((current) => [...(current ?? []), `second ${round}`]);
      await Promise.all([first.documents.flushed(), second.documents.flushed()]);
    }
    const body = await stored();
    expect(body).toHaveLength(2 * ROUNDS);
    for (let round = 0; round < ROUNDS; round++) expect(body).toEqual(expect.arrayContaining([`first ${round}`, `second ${round}`]));
    // The races were real: writes were refused by the version and made again.
    expect(first.conflicts() + second.conflicts()).toBeGreaterThanOrEqual(ROUNDS);
    // Each daemon ends with the store's value once it reads the last change (as NOTIFY has it do), on disk too.
    await Promise.all([first.documents.changed('people'), second.documents.changed('people')]);
    expect(one.read()).toEqual(body);
    expect(other.read()).toEqual(body);
    expect(JSON.parse(readFileSync(second.file, 'utf8'))).toEqual(body);
    expect(told.at(-1)).toEqual(body);
  });

  it('makes a change again on a value it had not read: a daemon that missed the other\'s writes loses none of them', async () => {
    const [first, second] = await Promise.all([daemon('first'), daemon('second')]);
    const one = first.documents.open('people', first.file, ListSchema);
    const other = second.documents.open('people', second.file, ListSchema);
    for (const name of ['ann', 'bob', 'cy']) one.update((current) => [...(current ?? []), name]);
    await first.documents.flushed();
    // The second never read those: its change is refused by the version, then made on them.
    const told: string[][] = [];
    other.onChange((value) => told.push(value));
    expect(other.update((current) => (current ?? []).filter((name) => name !== 'bob').concat('dee'))).toEqual(['dee']);
    await second.documents.flushed();
    expect(await stored()).toEqual(['ann', 'cy', 'dee']);
    expect(other.read()).toEqual(['ann', 'cy', 'dee']);
    expect(told).toEqual([['ann', 'cy', 'dee']]);
  });

  it('is the first daemon\'s where the store has none yet: the second takes it, and is told', async () => {
    const [first, second] = await Promise.all([daemon('first', ['ann']), daemon('second', ['bob'])]);
    const one = first.documents.open('people', first.file, ListSchema);
    const other = second.documents.open('people', second.file, ListSchema);
    const told: string[][] = [];
    other.onChange((value) => told.push(value));
    await first.documents.resync();
    await first.documents.flushed();
    await second.documents.resync();
    await second.documents.flushed();
    expect(await stored()).toEqual(['ann']);
    expect(one.read()).toEqual(['ann']);
    expect(other.read()).toEqual(['ann']);
    expect(told).toEqual([['ann']]);
  });
});

describe('a document without a store', () => {
  it('is its file: a change is made on what the file holds', () => {
    const folder = mkdtempSync(join(tmpdir(), 'askbridge-documents-'));
    folders.push(folder);
    const file = join(folder, 'people.json');
    const document = fileDocuments.open('people', file, ListSchema);
    expect(document.update((current) => [...(current ?? []), 'ann'])).toEqual(['ann']);
    writeJsonFile(file, ['ann', 'bob']);
    expect(document.update((current) => [...(current ?? []), 'cy'])).toEqual(['ann', 'bob', 'cy']);
    expect(document.read()).toEqual(['ann', 'bob', 'cy']);
  });
});
