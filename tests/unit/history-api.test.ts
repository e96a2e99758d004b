// GET /api/history through the real app, with the daemon's own history writer behind it: newest
// first, searched, as JSON or a CSV file; bad queries refused with their reason; token or paired page only.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import { createHistory } from '../../src/daemon/asks/history.js';
import { HISTORY_CSV_COLUMNS } from '../../src/history-csv.js';
import type { HistoryLine } from '../../src/history-file.js';
import { parseCsv } from '../stack/csv.js';
import { buildTestApp, HOST, LOCAL, ORIGIN, type TestApp } from '../stack/app.js';
import { hookBody } from '../stack/hook-client.js';
import { line } from '../stack/history-lines.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'askbridge-history-api-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('GET /api/history', () => {
  let daemon: TestApp;
  let app: App;
  let history: ReturnType<typeof createHistory>;
  let path: string;

  beforeEach(async () => {
    path = join(dir, 'history.jsonl');
    history = createHistory(path);
    daemon = await buildTestApp({ history: { path, flushed: () => history.flushed() } });
    app = daemon.app;
    // As main.ts wires them: the store's settled questions are appended, off the answer's path.
    daemon.store.subscribe((event) => {
      if (event.type === 'resolved') history.append(event.ask);
    });
  });
  afterEach(async () => {
    await daemon.close();
    history.close();
  });

  const get = (query: string, headers: Record<string, string> = LOCAL) => app.inject({ method: 'GET', url: `/api/history${query}`, headers });

  it('gives the finished questions newest first, 200 unless told otherwise, and as many as asked up to 5,000', async () => {
    appendFileSync(path, Array.from({ length: 5_050 }, (_, index) => `${JSON.stringify(line(index))}\n`).join(''));
    const plain = await get('');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    const { entries } = plain.json<{ entries: HistoryLine[] }>();
    expect(entries).toHaveLength(200);
    expect(entries[0]).toEqual(line(5_049));
    expect(entries.at(-1)?.id).toBe('4850');
    expect((await get('?limit=3')).json<{ entries: HistoryLine[] }>().entries.map((entry) => entry.id)).toEqual(['5049', '5048', '5047']);
    expect((await get('?limit=5000')).json<{ entries: HistoryLine[] }>().entries).toHaveLength(5_000);
  });

  it('has a question answered a moment ago, before its line was written', async () => {
    const payload = {
      session_id: 's1',
      tool_use_id: 't1',
      cwd: '/home/alice/shop',
      hook_event_name: 'PreToolUse',
      tool_name: 'AskUserQuestion',
      tool_input: { questions: [{ question: 'Which cache?', header: 'Cache', multiSelect: false, options: [{ label: 'Redis', description: '' }, { label: 'None', description: '' }] }] },
    };
    const hook = daemon.askAsHook(hookBody(payload));
    const [{ id }] = await daemon.waitForPending();
    const answered = await app.inject({ method: 'POST', url: `/api/asks/${id}/answer`, headers: LOCAL, payload: { responses: [{ question: 'Which cache?', selected: ['Redis'], notes: 'the one we run' }] } });
    expect(answered.statusCode).toBe(200);
    const { entries } = (await get('?q=redis')).json<{ entries: HistoryLine[] }>();
    expect(entries).toMatchObject([{ id, status: 'answered', source: 'person', detail: 'cli', answers: { 'Which cache?': 'Redis' }, notes: { 'Which cache?': 'the one we run' } }]);
    await hook;
  });

  it('searches with q, and exports CSV as a file to download', async () => {
    appendFileSync(path, [line(1), line(2, { machine: 'Build-Box' }), line(3, { answers: { 'Which database, take 3?': '=1+1' } })].map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    expect((await get('?q=build-BOX')).json<{ entries: HistoryLine[] }>().entries.map((entry) => entry.id)).toEqual(['2']);
    expect((await get('?q=nowhere')).json()).toEqual({ entries: [] });
    const csv = await get('?format=csv&q=take');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="askbridge-history.csv"');
    const rows = parseCsv(csv.body);
    expect(rows.map((row) => row[HISTORY_CSV_COLUMNS.indexOf('question')])).toEqual(['question', 'Which database, take 3?', 'Which database, take 2?', 'Which database, take 1?']);
    expect(rows[1]![HISTORY_CSV_COLUMNS.indexOf('answer')]).toBe("'=1+1");
  });

  it('gives an empty list before the first question finishes', async () => {
    expect((await get('')).json()).toEqual({ entries: [] });
    expect(parseCsv((await get('?format=csv')).body)).toEqual([[...HISTORY_CSV_COLUMNS]]);
  });

  it('refuses a bad query with a 400 that names it', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=5001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=2.5', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?format=xlsx', 'format'],
      ['?q=a&q=b', 'q'],
      [`?q=${'x'.repeat(1001)}`, 'q'],
      ['?page=2', 'page'],
    ]) {
      const response = await get(query!);
      expect(response.statusCode, query).toBe(400);
      expect(response.json<{ error: { code: string; message: string } }>().error, query).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(field!) });
    }
  });

  it('is for the token and paired pages only', async () => {
    expect((await get('', { host: HOST })).statusCode).toBe(401);
    expect((await get('', { ...LOCAL, origin: 'http://evil.example' })).statusCode).toBe(403);
    const page = await daemon.pairPage();
    expect((await get('', page.headers)).statusCode).toBe(200);
    expect((await get('', { host: HOST, origin: ORIGIN, cookie: page.cookie })).statusCode).toBe(401);
  });
});
