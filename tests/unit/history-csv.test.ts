// History as CSV: RFC 4180 quoting, read back exactly; every cell a spreadsheet would take for a
// formula defused; one row per question.
import { describe, expect, it } from 'vitest';
import { csvCell, HISTORY_CSV_COLUMNS, historyCsv } from '../../src/history-csv.js';
import { parseCsv } from '../stack/csv.js';
import { line } from '../stack/history-lines.js';

describe('history as CSV', () => {
  it.each([
    ['plain text', 'SQLite', 'SQLite'],
    ['a comma', 'a, b', '"a, b"'],
    ['quotes', 'say "yes"', '"say ""yes"""'],
    ['a line break', 'one\ntwo', '"one\ntwo"'],
    ['a formula', '=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['a plus', '+1 555', "'+1 555"],
    ['a minus', '-2+3', "'-2+3"],
    ['an at sign', '@SUM(A1)', "'@SUM(A1)"],
    ['a tab first', '\t=1', "'\t=1"],
    ['a carriage return first', '\r=1', `"'\r=1"`],
    ['a formula sign further in', 'a=b', 'a=b'],
    ['nothing', '', ''],
  ])('writes a cell with %s', (_what, value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it('has a header row and one row per question, with its answer and note; a line without questions is one row', () => {
    const two = line(1, {
      project: '-rf /',
      asker: { kind: 'mcp', name: 'Codex' },
      machine: 'laptop',
      questions: [
        { question: 'Which "database"?', header: 'DB, first' },
        { question: '=cmd|/c calc', header: '@once' },
      ],
      answers: { 'Which "database"?': 'SQLite, embedded', '=cmd|/c calc': '+ yes\r\nreally' },
      notes: { 'Which "database"?': 'keep it\nboring' },
    });
    const failed = line(2, { status: 'failed', source: 'failed', detail: 'an answer from the page could not be delivered', error: 'too deep', answers: undefined });
    const lost = line(3, { sessionId: '', project: '', status: 'cancelled', source: 'lost', detail: '4 finished question(s) could not be recorded (ENOSPC)', questions: [], answers: undefined });
    const rows = parseCsv(historyCsv([two, failed, lost]));
    expect(rows[0]).toEqual([...HISTORY_CSV_COLUMNS]);
    const noDecision = ['', '', '', '', '', '', '', '', '', ''];
    expect(rows.slice(1)).toEqual([
      [two.finishedAt, two.askedAt, "'-rf /", 'session-1', 'mcp:Codex', 'laptop', 'answered', 'person', 'page', '', '', 'DB, first', 'Which "database"?', 'SQLite, embedded', 'keep it\nboring', ...noDecision],
      [two.finishedAt, two.askedAt, "'-rf /", 'session-1', 'mcp:Codex', 'laptop', 'answered', 'person', 'page', '', '', "'@once", "'=cmd|/c calc", "'+ yes\r\nreally", '', ...noDecision],
      [failed.finishedAt, failed.askedAt, '/home/alice/shop', 'session-2', 'claude-code', '', 'failed', 'failed', 'an answer from the page could not be delivered: too deep', '', '', 'Database', 'Which database, take 2?', '', '', ...noDecision],
      [lost.finishedAt, lost.askedAt, '', '', 'claude-code', '', 'cancelled', 'lost', '4 finished question(s) could not be recorded (ENOSPC)', '', '', '', '', '', '', ...noDecision],
    ]);
  });

  it('has what was allowed (and with which suggestion), the deny message, why it was risky, and the reply to the end of a turn', () => {
    const approval = { questions: [], answers: undefined, status: 'allowed' as const, source: 'person' as const, detail: 'cli' };
    const allowedAlways = line(4, { ...approval, approval: { toolName: 'Bash', target: 'npm test' }, decision: { behavior: 'allow', suggestion: 'Always allow `Bash(npm test *)` in this project' } });
    const allowedOnce = line(5, { ...approval, approval: { toolName: 'Edit', target: 'src/a.ts', risk: ['writes to a .env file, where secrets live (~/shop/.env)', 'other'] }, decision: { behavior: 'allow' } });
    const denied = line(6, { ...approval, status: 'denied', approval: { toolName: 'Bash', target: '=rm -rf /' }, decision: { behavior: 'deny', message: 'not on main', interrupt: true } });
    const replied = line(7, { questions: [], answers: undefined, status: 'replied', turnEnd: { said: 'Done: the parser is split.' }, reply: 'now the tests, please' });
    const rows = parseCsv(historyCsv([allowedAlways, allowedOnce, denied, replied]));
    const decisionCells = (row: string[] | undefined) => Object.fromEntries(HISTORY_CSV_COLUMNS.map((column, index) => [column, row?.[index]] as const).slice(HISTORY_CSV_COLUMNS.indexOf('tool')));
    expect(rows.slice(1).map(decisionCells)).toEqual([
      { tool: 'Bash', target: 'npm test', decision: 'allow', suggestion: 'Always allow `Bash(npm test *)` in this project', message: '', interrupt: '', said: '', reply: '', delivery: '', risk: '' },
      { tool: 'Edit', target: 'src/a.ts', decision: 'allow', suggestion: '', message: '', interrupt: '', said: '', reply: '', delivery: '', risk: 'writes to a .env file, where secrets live (~/shop/.env); other' },
      { tool: 'Bash', target: "'=rm -rf /", decision: 'deny', suggestion: '', message: 'not on main', interrupt: 'yes', said: '', reply: '', delivery: '', risk: '' },
      { tool: '', target: '', decision: '', suggestion: '', message: '', interrupt: '', said: 'Done: the parser is split.', reply: 'now the tests, please', delivery: '', risk: '' },
    ]);
  });

  it('names who decided: the person and the device or chat they decided from', () => {
    const rows = parseCsv(historyCsv([line(11, { person: 'alice', device: 'Firefox on Linux' }), line(12, { person: 'carol', device: 'Telegram: @carol', detail: 'telegram' }), line(13, {})]));
    const who = (row: string[] | undefined) => [row?.[HISTORY_CSV_COLUMNS.indexOf('person')], row?.[HISTORY_CSV_COLUMNS.indexOf('device')]];
    expect(rows.slice(1).map(who)).toEqual([['alice', 'Firefox on Linux'], ['carol', 'Telegram: @carol'], ['', '']]);
  });

  it('says whether a relayed decision reached its agent', () => {
    const relayed = (id: number, change: Parameters<typeof line>[1]) => line(id, { agent: 'opencode', ...change });
    const rows = parseCsv(historyCsv([relayed(8, { delivery: 'waiting' }), relayed(9, { delivery: 'delivered' }), relayed(10, { delivery: 'undeliverable', error: 'opencode no longer has this question' })]));
    expect(rows.slice(1).map((row) => row[HISTORY_CSV_COLUMNS.indexOf('delivery')])).toEqual(['answered, not yet delivered', 'delivered', 'not delivered: opencode no longer has this question']);
  });
});
