// Searching history: which fields, in any case; read backwards from the end of a long history and
// given up as soon as enough is found; lines longer than a read chunk kept whole.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deliveryText, historyMatching, readHistory, readHistoryTail, searchHistory, type HistoryLine } from '../../src/history-file.js';
import { line, writeLines } from '../stack/history-lines.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-history-search-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('searching history', () => {
  const asked = line(1, {
    project: '/home/alice/Projects/Shop',
    asker: { kind: 'script', name: 'deploy.sh' },
    machine: 'build-box',
    questions: [{ question: 'Ship the release now?', header: 'Déploiement' }],
    answers: { 'Ship the release now?': 'Wait for the freeze' },
    notes: { 'Ship the release now?': 'after QA signs off' },
    detail: 'cli',
  });

  it.each([
    ['the project', 'projects/shop'],
    ['a question', 'RELEASE NOW'],
    ['a header, in any case beyond ASCII', 'DÉPLOIEMENT'],
    ['an answer', 'freeze'],
    ['a note', 'qa signs'],
    ["the asker's name", 'DEPLOY.SH'],
    ['the machine', 'build-box'],
  ])('finds a line by %s', (_where, query) => {
    expect(historyMatching(query)(asked)).toBe(true);
  });

  it('looks nowhere else, and an empty query finds every line', () => {
    for (const query of ['cli', 'session-1', 'answered', '2026-01-01', 'person']) expect(historyMatching(query)(asked), query).toBe(false);
    expect(historyMatching('')(asked)).toBe(true);
    expect(historyMatching('zzz')(line(2, { questions: [], answers: undefined, source: 'lost' }))).toBe(false);
  });

  it('reads a history of 20,000 lines backwards, and stops as soon as it has the newest matches', async () => {
    const lines = Array.from({ length: 20_000 }, (_, index) => line(index, index % 1000 === 7 ? { machine: 'needle-host' } : {}));
    const path = writeLines(dir, lines);
    const size = statSync(path).size;

    // The 50 newest lines are all in the last chunk or two: the rest of the file is never read.
    const newest = await searchHistory(path, { limit: 50 });
    expect(newest.lines.map((entry) => entry.id)).toEqual(Array.from({ length: 50 }, (_, index) => String(19_999 - index)));
    expect(newest.scannedBytes).toBeLessThanOrEqual(2 * 64 * 1024);

    // Three matches are a few thousand lines back: read that far, not further.
    const three = await searchHistory(path, { limit: 3, keep: historyMatching('NEEDLE') });
    expect(three.lines.map((entry) => entry.id)).toEqual(['19007', '18007', '17007']);
    const thirdFromTheEnd = lines.slice(17_007).reduce((bytes, entry) => bytes + Buffer.byteLength(`${JSON.stringify(entry)}\n`), 0);
    expect(three.scannedBytes).toBeGreaterThanOrEqual(thirdFromTheEnd);
    expect(three.scannedBytes).toBeLessThan(thirdFromTheEnd + 64 * 1024);
    expect(three.scannedBytes).toBeLessThan(size / 5);

    // Fewer matches than asked for: the whole file is read, and every match is found, newest first.
    const all = await searchHistory(path, { limit: 5_000, keep: historyMatching('needle-host') });
    expect(all.lines.map((entry) => entry.id)).toEqual(Array.from({ length: 20 }, (_, index) => String(19_007 - index * 1000)));
    expect(all.scannedBytes).toBe(size);

    // The CLI's reader filters the same way, and gives the matches newest first too.
    expect(readHistoryTail(path, 2, historyMatching('needle')).map((entry) => entry.id)).toEqual(['19007', '18007']);
  });

  it('keeps a line longer than a chunk whole, wherever the chunks cut it', async () => {
    const long = line(2, { answers: { 'Which database, take 2?': `SQLite ${'☕'.repeat(60_000)}` } });
    const path = writeLines(dir, [line(1), long, line(3)]);
    expect(readHistory(path).map((entry) => entry.id)).toEqual(['1', '2', '3']);
    expect(readHistoryTail(path, 2).map((entry) => entry.id)).toEqual(['3', '2']);
    expect((await searchHistory(path, { limit: 10, keep: historyMatching('sqlite ☕☕') })).lines).toEqual([long]);
  });

  it('finds nothing, and fails on nothing, in a history that does not exist yet', async () => {
    expect(await searchHistory(join(dir, 'none.jsonl'), { limit: 5 })).toEqual({ lines: [], scannedBytes: 0 });
  });
});

describe('a relayed decision in history', () => {
  // Written when it was made (not yet delivered), and again once delivered or undeliverable: the later line stands for the earlier.
  const lines = [line(1), line(2, { agent: 'opencode', delivery: 'waiting' }), line(3, { agent: 'codex', delivery: 'waiting' }), line(2, { agent: 'opencode', delivery: 'undeliverable', error: 'opencode no longer has this question' }), line(4)];

  it('is read as its newest line, by every reader, in the place of that line', async () => {
    const path = writeLines(dir, lines);
    const described = (found: HistoryLine[]) => found.map((entry) => `${entry.id}${entry.delivery ? ` ${entry.delivery}` : ''}`);
    expect(described(readHistory(path))).toEqual(['1', '3 waiting', '2 undeliverable', '4']);
    expect(described(readHistoryTail(path, 3))).toEqual(['4', '2 undeliverable', '3 waiting']);
    expect(described(readHistoryTail(path, 10, historyMatching('take 2')))).toEqual(['2 undeliverable']);
    expect(described((await searchHistory(path, { limit: 10 })).lines)).toEqual(['4', '2 undeliverable', '3 waiting', '1']);
  });

  it('says in words whether it reached its agent', () => {
    expect(deliveryText({ delivery: 'waiting' })).toBe('answered, not yet delivered');
    expect(deliveryText({ delivery: 'undeliverable', error: 'opencode no longer has this question' })).toBe('not delivered: opencode no longer has this question');
    expect(deliveryText({ delivery: 'delivered' })).toBeUndefined();
    expect(deliveryText({})).toBeUndefined();
  });
});
