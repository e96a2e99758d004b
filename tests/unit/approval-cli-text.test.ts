// Permissions and plans in the terminal's words (src/approval-text.ts), and how a settled one
// ended (src/cli/events.ts): each known tool's input laid out whole, every other field listed, an
// edit as its lines removed and added, hostile text marked (JSON escaped, and parsing back to the
// exact value), and the decision in words.
import { describe, expect, it } from 'vitest';
import { approvalLine, decidedText, decisionInWords, decisionText, prettyJson, simpleDiff, speakerOf, toolInputText } from '../../src/approval-text.js';
import { settledLineText, settledText } from '../../src/cli/events.js';
import type { HistoryLine } from '../../src/history-file.js';
import type { Approval, AskView } from '../../src/protocol.js';
import { INVISIBLE_CHARACTER } from '../../src/visible-text.js';
import { askView } from '../stack/views.js';

const HOSTILE = '\u001b[2J\u001b]0;title\u0007\u202eevil';
const HOSTILE_MARKED = '[U+001B][2J[U+001B]]0;title[U+0007][U+202E]evil';

const approval = (toolName: string, toolInput: Record<string, unknown>, more: Partial<Approval> = {}): Approval => ({ toolName, toolInput, suggestions: [], ...more });

describe('approvalLine', () => {
  it('names the tool and what it acts on, a plan by its first line', () => {
    expect(approvalLine(approval('Bash', { command: 'npm test', description: 'Run the tests' }))).toBe('Permission · Bash: npm test');
    expect(approvalLine(approval('Edit', { file_path: 'src/cart.ts', old_string: 'a', new_string: 'b' }))).toBe('Permission · Edit: src/cart.ts');
    expect(approvalLine(approval('mcp__github__create_issue', { title: 'Bug' }))).toBe('Permission · github: create_issue');
    expect(approvalLine(approval('ExitPlanMode', { plan: '\n## Refactor the parser\n\n1. Split it' }))).toBe('Plan: Refactor the parser');
  });
});

describe('toolInputText', () => {
  it('Bash: what Claude says, the command whole and exact, then every other field it sent', () => {
    const text = toolInputText(approval('Bash', { command: 'npm run migrate &&\n  npm test', description: 'Migrate, then test', timeout: 120000 }));
    expect(text).toBe(['Claude says: Migrate, then test', 'Command:', '  npm run migrate &&', '    npm test', 'Also sent:', '  {', '    "timeout": 120000', '  }'].join('\n'));
  });

  it("Bash from another agent: its model speaks by the agent's name", () => {
    expect(toolInputText(approval('Bash', { command: 'npm ci', description: 'Reinstall' }), speakerOf('codex'))).toBe(['Codex says: Reinstall', 'Command:', '  npm ci'].join('\n'));
    expect([speakerOf('claude-code'), speakerOf(undefined), speakerOf('opencode')]).toEqual(['Claude', 'Claude', 'opencode']);
  });

  it('Edit: the file and a diff, what both texts share kept, what changes removed then added', () => {
    const text = toolInputText(approval('Edit', { file_path: 'src/cart.ts', old_string: 'function total() {\n  return a;\n}', new_string: 'function total() {\n  return a * b;\n  // checked\n}', replace_all: true }));
    expect(text).toBe(['File: src/cart.ts', 'Replace: every occurrence', 'Change:', '    function total() {', '  -   return a;', '  +   return a * b;', '  +   // checked', '    }'].join('\n'));
  });

  it('Write: the file and its whole content; MultiEdit: each edit as a diff', () => {
    const content = Array.from({ length: 300 }, (_, index) => `line ${index + 1}`).join('\n');
    const lines = toolInputText(approval('Write', { file_path: 'notes.txt', content })).split('\n');
    expect(lines.slice(0, 3)).toEqual(['File: notes.txt', 'Content:', '  line 1']);
    // Nothing is cut: every line is there.
    expect(lines).toHaveLength(302);
    expect(lines.at(-1)).toBe('  line 300');

    const multi = toolInputText(approval('MultiEdit', { file_path: 'a.ts', edits: [{ old_string: 'x', new_string: 'y' }, { old_string: 'p', new_string: 'q', replace_all: true }] }));
    expect(multi).toBe(['File: a.ts', 'Change 1 of 2:', '  - x', '  + y', 'Change 2 of 2 (every occurrence):', '  - p', '  + q'].join('\n'));
    // An edit with anything else in it is not laid out: the edits are shown as they came.
    const odd = toolInputText(approval('MultiEdit', { file_path: 'a.ts', edits: [{ old_string: 'x', new_string: 'y', also: 1 }] }));
    expect(odd).toContain('Edits: 1, as sent:\n  [\n    {\n      "old_string": "x"');
  });

  it('a plan as its text; any other tool, an MCP tool, or a field of another type than expected, as JSON', () => {
    expect(toolInputText(approval('ExitPlanMode', { plan: '# Plan\n\n1. Do it' }, { plan: '# Plan\n\n1. Do it' }))).toBe('The plan:\n  # Plan\n  \n  1. Do it');
    expect(toolInputText(approval('ExitPlanMode', {}))).toBe('Claude sent no plan text.');
    expect(toolInputText(approval('mcp__github__create_issue', { title: 'Bug', labels: ['a'] }))).toBe('Arguments:\n  {\n    "title": "Bug",\n    "labels": [\n      "a"\n    ]\n  }');
    expect(toolInputText(approval('Frobnicate', { level: 3 }))).toBe('Input:\n  {\n    "level": 3\n  }');
    expect(toolInputText(approval('Frobnicate', {}))).toBe('No input.');
    expect(toolInputText(approval('Bash', { command: ['rm', '-rf', '/'] }))).toBe('Also sent:\n  {\n    "command": [\n      "rm",\n      "-rf",\n      "/"\n    ]\n  }');
  });

  it('marks every escape sequence and bidi override: as markers in text, as \\u escapes in JSON that parse back exactly', () => {
    const text = toolInputText(approval('Bash', { command: `echo ${HOSTILE}`, description: `Say${HOSTILE}`, [`flag${HOSTILE}`]: HOSTILE }));
    expect([...text.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    expect(text).toContain(`Claude says: Say${HOSTILE_MARKED}`);
    expect(text).toContain(`  echo ${HOSTILE_MARKED}`);
    const json = text.slice(text.indexOf('Also sent:\n') + 'Also sent:\n'.length);
    expect(JSON.parse(json)).toEqual({ [`flag${HOSTILE}`]: HOSTILE });
    expect(json).toContain('\\u001b[2J\\u001b]0;title\\u0007\\u202eevil');
  });
});

describe('simpleDiff and prettyJson', () => {
  it('keeps the shared start and end, removes then adds what is between; nothing is left out', () => {
    expect(simpleDiff('a\nb\nc', 'a\nB\nc')).toEqual(['  a', '- b', '+ B', '  c']);
    expect(simpleDiff('', 'new\nfile')).toEqual(['+ new', '+ file']);
    expect(simpleDiff('gone', '')).toEqual(['- gone']);
    expect(simpleDiff('same', 'same')).toEqual(['  same']);
  });

  it('indents JSON and escapes what a terminal would act on', () => {
    const value = { text: `a${HOSTILE}`, nested: { list: [1, '\u200b'] } };
    const json = prettyJson(value);
    expect(json.split('\n')).toHaveLength(9);
    expect([...json.matchAll(INVISIBLE_CHARACTER)]).toEqual([]);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('a decision in words', () => {
  const bash = approval('Bash', { command: 'npm test' }, { suggestions: [{ label: 'Always allow `Bash(npm test *)` in this project (your local settings)' }] });

  it('names a suggestion by its words, and says allow, deny, stop and a plan\'s own words', () => {
    expect(decisionInWords({ approval: bash, decision: { behavior: 'allow', suggestion: 0 } })).toEqual({ behavior: 'allow', suggestion: 'Always allow `Bash(npm test *)` in this project (your local settings)' });
    expect(decisionInWords({ approval: bash })).toBeUndefined();
    expect(decisionText('Bash', { behavior: 'allow' })).toBe('allowed once');
    expect(decisionText('Bash', { behavior: 'allow', suggestion: 'Allow all edits for this session' })).toBe('allowed (Allow all edits for this session)');
    expect(decisionText('Bash', { behavior: 'deny' })).toBe('denied');
    expect(decisionText('Bash', { behavior: 'deny', interrupt: true })).toBe('denied and stopped');
    expect(decisionText('ExitPlanMode', { behavior: 'allow' })).toBe('approved');
    expect(decisionText('ExitPlanMode', { behavior: 'deny', message: 'Keep the API' })).toBe('sent back with changes');
    expect(decisionText('ExitPlanMode', { behavior: 'deny', interrupt: true })).toBe('rejected and stopped');
    expect(decidedText('Bash', 'npm test', { behavior: 'deny', message: 'Use the test database' })).toBe('denied: Use the test database · Bash: npm test');
  });

  it('says how a settled permission ended: allowed or denied by whom, or answered in the terminal', () => {
    const view = (more: Partial<AskView>): AskView => askView({ id: 'x', sessionId: 's', toolUseId: 'permission-x', cwd: '/p', createdAt: 0, expiresAt: 1, timeout: { action: 'terminal', summary: '' }, status: 'pending', questions: [], approval: bash, ...more });
    expect(settledText(view({ status: 'allowed', source: { kind: 'person', client: 'page' }, decision: { behavior: 'allow' } }))).toBe('allowed by a person (page)');
    expect(settledText(view({ status: 'denied', source: { kind: 'person', client: 'cli' }, decision: { behavior: 'deny' } }))).toBe('denied by a person (cli)');
    expect(settledText(view({ status: 'allowed', source: { kind: 'person', client: 'page', person: 'alice', device: 'Pixel 8' }, decision: { behavior: 'allow' } }))).toBe('allowed by alice on Pixel 8 (page)');
    const alices: HistoryLine = { id: 'y', sessionId: 's', toolUseId: 'permission-y', project: '/p', askedAt: '', finishedAt: '', status: 'allowed', source: 'person', detail: 'telegram', person: 'carol', device: 'Telegram: @carol', questions: [], approval: { toolName: 'Bash', target: 'npm test' } };
    expect(settledLineText(alices)).toBe('allowed by carol from Telegram (telegram)');
    expect(settledText(view({ status: 'denied', source: { kind: 'policy', action: 'decline', trigger: 'nobody-watching' }, decision: { behavior: 'deny' } }))).toBe('denied by the configuration (nobody-watching)');
    expect(settledText(view({ status: 'cancelled', source: { kind: 'terminal' } }))).toBe('answered in the terminal');
    const line: HistoryLine = { id: 'x', sessionId: 's', toolUseId: 'permission-x', project: '/p', askedAt: '', finishedAt: '', status: 'cancelled', source: 'terminal', detail: 'answered in the terminal', questions: [], approval: { toolName: 'Bash', target: 'npm test' } };
    expect(settledLineText(line)).toBe('answered in the terminal');
  });
});
