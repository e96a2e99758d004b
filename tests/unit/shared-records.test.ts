// The pure parts of copying history and the audit trail to the shared store, and of reading them
// back: lines read backwards with the byte each starts at (where a catch-up starts copying), a
// history line as jsonb takes it, a trail checked line by line without its key, and the CSV of
// lines read from a store. Copying itself runs against PostgreSQL: tests/e2e/store-records.e2e.test.ts.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_CSV_COLUMNS, auditCsv } from '../../src/audit-csv.js';
import { AUDIT_GENESIS, createTrailCheck, readAuditLine, sealLine, sha256Hex, trailIdOf, type AuditLine } from '../../src/audit-file.js';
import { jsonbSafe } from '../../src/daemon/shared-records.js';
import { rawChunksBackwards } from '../../src/history-file.js';
import { parseCsv } from '../stack/csv.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-records-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('lines read backwards', () => {
  it('gives each complete line with the byte it starts at, across chunks and multi-byte text', () => {
    const lines = ['{"a":"é"}', 'x'.repeat(70_000), '', '{"b":"日本"}'];
    const text = `${lines.join('\n')}\n`;
    const file = join(dir, 'history.jsonl');
    writeFileSync(file, text);
    const fd = openSync(file, 'r');
    try {
      const read = [...rawChunksBackwards(fd)].flatMap((chunk) => chunk.lines);
      expect(read.map((line) => line.text)).toEqual([...lines].reverse());
      const bytes = Buffer.from(text);
      for (const line of read) expect(bytes.subarray(line.start, line.start + Buffer.byteLength(line.text)).toString('utf8')).toBe(line.text);
    } finally {
      closeSync(fd);
    }
  });
});

describe('a history line as jsonb takes it', () => {
  it('keeps the NUL character as U+FFFD, and a backslash followed by the letters u0000 as they are', () => {
    const line = JSON.stringify({ answers: { 'a\u0000b': 'c\u0000\u0000', literal: '\\u0000' } });
    const safe = jsonbSafe(line);
    expect(JSON.parse(safe)).toEqual({ answers: { 'a\ufffdb': 'c\ufffd\ufffd', literal: '\\u0000' } });
    expect(jsonbSafe('{"a":"b"}')).toBe('{"a":"b"}');
  });
});

describe("a trail's copy checked without its key", () => {
  const key = randomBytes(32);
  const trail = (count: number): string[] => {
    const texts: string[] = [];
    let prev = AUDIT_GENESIS;
    for (let seq = 1; seq <= count; seq++) {
      const at = new Date(Date.UTC(2026, 11, 1, 9, seq)).toISOString();
      const text = sealLine({ v: 1, seq, at, atMs: Date.parse(at), event: 'settled', ask: `ask-${seq}`, kind: 'question', session: 's', toolUseId: `t${seq}`, project: '/p', input: {}, decision: { status: 'answered' }, by: { kind: 'person', client: 'cli' }, prev }, key);
      texts.push(text);
      prev = sha256Hex(text);
    }
    return texts;
  };
  const firstBroken = (texts: string[], withKey?: Buffer) => {
    const check = createTrailCheck(withKey);
    for (const text of texts) {
      const broken = check.next(text);
      if (broken) return broken;
    }
    return check.state();
  };

  it('holds when numbered from 1 and chained, and names its trail by its first line', () => {
    const texts = trail(3);
    expect(firstBroken(texts)).toMatchObject({ lines: 3, hash: sha256Hex(texts[2]!) });
    expect(trailIdOf(texts[0]!)).toBe(sha256Hex(Buffer.from(texts[0]!)));
  });

  it('names a line whose previous line was changed, a gap, and (with the key) an edited line', () => {
    const texts = trail(3);
    const changed = [texts[0]!, texts[1]!.replace('"answered"', '"declined"'), texts[2]!];
    expect(firstBroken(changed)).toMatchObject({ ok: false, line: 3, problem: expect.stringContaining('the hash it names does not match') });
    expect(firstBroken(changed, key)).toMatchObject({ ok: false, line: 2, problem: expect.stringContaining('edited') });
    expect(firstBroken([texts[0]!, texts[2]!])).toMatchObject({ ok: false, line: 2, problem: 'removed or reordered (sequence 1 is followed by 3)' });
  });

  it('writes the CSV of lines read from a store with a last column naming the daemon', () => {
    const lines = trail(2).map((text) => (readAuditLine(text) as { ok: true; line: AuditLine }).line);
    const rows = parseCsv(auditCsv([{ line: lines[0]!, daemon: 'a:1' }, { line: lines[1]!, daemon: 'b:2' }], true));
    expect(rows[0]).toEqual([...AUDIT_CSV_COLUMNS, 'daemon']);
    expect(rows.slice(1).map((row) => row.at(-1))).toEqual(['a:1', 'b:2']);
    expect(parseCsv(auditCsv([{ line: lines[0]! }]))[0]).toEqual([...AUDIT_CSV_COLUMNS]);
  });
});
