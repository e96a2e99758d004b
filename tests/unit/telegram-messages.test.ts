// What a Telegram chat is sent for each kind of ask: model text stays plain text (entities, never
// markup), every invisible character is marked, long text is cut with a mark, and a permission whose
// input does not fit whole offers no way to allow it.
import { describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { askDraft, BODY_CHARS, promptFor, questionKeyboard, settledLine, type Button } from '../../src/daemon/telegram/messages.js';
import { askView, type ViewFields } from '../stack/views.js';

const base: ViewFields = {
  id: '00000000-0000-4000-8000-000000000001',
  sessionId: 's',
  toolUseId: 't',
  cwd: '/home/alice/projects/acme-shop',
  createdAt: 0,
  expiresAt: 1,
  timeout: { action: 'terminal', summary: 'the terminal asks' },
  status: 'pending',
  questions: [],
};

const question = (changes: Partial<AskView['questions'][number]> = {}): AskView['questions'][number] => ({
  question: 'Which database?',
  header: 'Database',
  multiSelect: false,
  options: [
    { label: 'PostgreSQL', description: 'The usual one' },
    { label: 'SQLite', description: 'No server' },
  ],
  ...changes,
});

const bash = (command: string): AskView => askView({ ...base, approval: { toolName: 'Bash', toolInput: { command, description: 'Run it' }, suggestions: [{ label: 'Always allow `Bash(npm test:*)` in this project (your local settings)' }] } });
const labels = (keyboard: Button[][]) => keyboard.flat().map((button) => button.text);
const full = { headersOnly: false, link: undefined };

describe('telegram messages', () => {
  it('shows a question with its options; one tap answers a single single-select question', () => {
    const draft = askDraft(askView({ ...base, questions: [question()] }), full);
    expect(draft.text).toBe('Question from acme-shop\n\nDatabase\nWhich database?\n• PostgreSQL: The usual one\n• SQLite: No server\n\nTap an answer, or Other… to type one.');
    expect(draft.entities).toEqual([
      { type: 'bold', offset: 0, length: 'Question from acme-shop'.length },
      { type: 'bold', offset: 'Question from acme-shop\n\n'.length, length: 'Database'.length },
    ]);
    expect(labels(draft.keyboard)).toEqual(['PostgreSQL', 'SQLite', 'Other…']);
  });

  it('keeps markup characters as text and marks invisible characters, in the text and on the buttons', () => {
    const hostile = question({ question: '<b>Pick</b> *bold* _x_ [a](https://evil.test) \u202Egnp.exe', header: 'DB\u200B', options: [{ label: '<i>Yes</i>\u2066', description: '`rm -rf`' }, { label: 'No', description: '' }] });
    const draft = askDraft(askView({ ...base, questions: [hostile] }), full);
    expect(draft.text).toContain('<b>Pick</b> *bold* _x_ [a](https://evil.test) [U+202E]gnp.exe');
    expect(draft.text).toContain('DB[U+200B]');
    expect(draft.text).toContain('• <i>Yes</i>[U+2066]: `rm -rf`');
    expect(labels(draft.keyboard)).toContain('<i>Yes</i>[U+2066]');
    expect(draft.text).not.toMatch(/[\u200B\u202E\u2066]/);
  });

  it('ticks chosen options of a multi-select question, and offers Send', () => {
    const view = askView({ ...base, questions: [question({ multiSelect: true })] });
    expect(labels(questionKeyboard(view, [{ selected: new Set([1]), other: 'Both' }]))).toEqual(['PostgreSQL', '✓ SQLite', '✓ Other: Both', 'Send']);
  });

  it('cuts a long question with a mark, and says the text was cut', () => {
    const draft = askDraft(askView({ ...base, questions: Array.from({ length: 4 }, (_, index) => question({ question: `Q${index} ${'long words '.repeat(400)}`, options: [{ label: 'A', description: 'd'.repeat(8000) }, { label: 'B', description: '' }] })) }), full);
    expect(draft.text.length).toBeLessThanOrEqual(BODY_CHARS);
    expect(draft.text).toContain('…');
    expect(draft.text.endsWith('Some text was cut to fit: open askbridge to read it whole.')).toBe(true);
  });

  it('shows a command whole in a monospace block, with Allow once, each suggestion, Deny and Deny with a message', () => {
    const draft = askDraft(bash('npm test && echo "<b>done</b>"\u001b[2J'), { headersOnly: false, link: 'https://askbridge.example.test/#question=1' });
    const pre = draft.entities.find((entity) => entity.type === 'pre')!;
    expect(draft.text.slice(pre.offset, pre.offset + pre.length)).toBe('Claude says: Run it\nCommand:\n  npm test && echo "<b>done</b>"[U+001B][2J');
    expect(labels(draft.keyboard)).toEqual(['Allow once', '1. Always allow `Bash(npm test:*)` in this project (your lo…', 'Deny', 'Deny with a message…', 'Open the page']);
    expect(draft.text).toContain('1. Always allow `Bash(npm test:*)` in this project (your local settings)');
  });

  it('offers no Allow for a 10,000-character command, and says it was cut', () => {
    const draft = askDraft(bash(`echo ${'x'.repeat(10_000)}`), full);
    expect(labels(draft.keyboard)).toEqual(['Deny', 'Deny with a message…']);
    expect(draft.shown).toBe('cut');
    expect(draft.text.length).toBeLessThanOrEqual(BODY_CHARS);
    expect(draft.text).toContain('too long for one Telegram message: it is cut here, so it cannot be allowed from Telegram. Open askbridge to read it whole and allow it.');
    expect(draft.keyboard.flat().some((button) => 'action' in button && button.action.kind === 'allow')).toBe(false);
  });

  it('says a permission two people must allow needs them, then who allowed it and when, with no "always allow" offered', () => {
    const view = bash('git push origin main');
    // As the store makes it: no suggestion is offered where two people must allow.
    const waiting: AskView = { ...view, route: { people: ['alice', 'bob'], approvals: 2 }, choices: { ...view.choices, remember: false } };
    const draft = askDraft(waiting, full);
    expect(draft.text).toContain('Needs two people');
    expect(draft.entities).toContainEqual({ type: 'bold', offset: draft.text.indexOf('Needs two people'), length: 'Needs two people'.length });
    expect(draft.text).not.toContain('Or allow, and also');
    expect(labels(draft.keyboard)).toEqual(['Allow once', 'Deny', 'Deny with a message…']);
    const at = new Date(2026, 11, 2, 14, 2).getTime();
    const once = askDraft({ ...waiting, allows: [{ person: 'alice', device: 'Pixel 8', client: 'page', at }] }, full);
    expect(once.text).toContain('1 of 2: allowed by alice at 14:02');
    expect(once.text).not.toContain('Needs two people');
  });

  it('offers a plan’s choices, and Keep planning…', () => {
    const view: AskView = askView({ ...base, approval: { toolName: 'ExitPlanMode', toolInput: { plan: '# Plan\n\n1. Do it' }, suggestions: [{ label: 'Approve, and use auto mode for this session' }] } });
    const draft = askDraft(view, full);
    expect(draft.text).toContain('# Plan\n\n1. Do it');
    expect(labels(draft.keyboard)).toEqual(['Approve, I’ll approve edits manually', 'Approve, and use auto mode for this session', 'Keep planning…']);
  });

  it('headersOnly: only the project and the headers, whatever the ask', () => {
    const asked = askDraft(askView({ ...base, questions: [question({ question: 'SECRET question' })] }), { headersOnly: true, link: 'https://askbridge.example.test/#question=1' });
    expect(asked.text).toBe('Question from acme-shop\nDatabase');
    expect(asked.keyboard).toEqual([[{ text: 'Open the page', url: 'https://askbridge.example.test/#question=1' }]]);
    const permission = askDraft(bash('SECRET command'), { headersOnly: true, link: undefined });
    expect(permission.text).toBe('Permission from acme-shop\nBash waits for permission\nOpen askbridge to answer.');
    expect(permission.keyboard).toEqual([]);
    const turn = askDraft(askView({ ...base, turnEnd: { lastMessage: 'SECRET said', repliesInARow: 0, replyLimit: 3 } }), { headersOnly: true, link: undefined });
    expect(turn.text).toBe('Claude finished in acme-shop\nReply to keep it going, or let it stop\nOpen askbridge to answer.');
  });

  it('words a turn’s end and a wait in the terminal', () => {
    const turn = askDraft(askView({ ...base, turnEnd: { lastMessage: 'Done: all tests pass.', repliesInARow: 0, replyLimit: 3 } }), full);
    expect(turn.text.startsWith('Claude finished in acme-shop\n\nDone: all tests pass.')).toBe(true);
    expect(labels(turn.keyboard)).toEqual(['Reply…', 'Done']);
    const wait = askDraft(askView({ ...base, terminalWait: { kind: 'idle_prompt', message: 'Claude is waiting' } }), full);
    expect(wait.text).toBe('Waiting for you in acme-shop\nClaude waits for your next prompt in the terminal\n\nClaude is waiting');
    expect(wait.keyboard).toEqual([]);
  });

  it("offers an MCP form's one choice as buttons though a long session title is cut, and none once the request itself is cut", () => {
    const form = { fields: [{ name: 'environment', kind: 'choice' as const, required: true, choices: [{ value: 'prod', label: 'Production' }] }] };
    const elicitation = (message: string) => ({ server: 'forms', message, mode: 'form' as const, form });
    const titled = askDraft(askView({ ...base, context: { title: `Release ${'the shop '.repeat(100)}` }, elicitation: elicitation('Where?') }), full);
    expect(labels(titled.keyboard)).toEqual(['Production', 'Decline', 'Cancel']);
    expect(titled.shown).toBe('whole');
    const long = askDraft(askView({ ...base, elicitation: elicitation('Where? '.repeat(1000)) }), full);
    expect(labels(long.keyboard)).toEqual(['Decline', 'Cancel']);
    expect(long.shown).toBe('cut');
  });

  it('asks for typed text by the question’s header, marked', () => {
    expect(promptFor(askView({ ...base, questions: [question({ header: 'DB\u202E' })] }), { kind: 'other', question: 0 })).toBe('Type your answer to DB[U+202E]');
    expect(promptFor(askView(base), { kind: 'allow' })).toBeUndefined();
  });

  it('says how an ask ended and by whom', () => {
    expect(settledLine({ status: 'answered', source: { kind: 'person', client: 'telegram' } })).toBe('Answered from Telegram');
    expect(settledLine({ status: 'denied', source: { kind: 'person', client: 'page' } })).toBe('Denied on the page');
    expect(settledLine({ status: 'cancelled', source: { kind: 'terminal' } })).toBe('Answered in the terminal');
    expect(settledLine({ status: 'answered', source: { kind: 'person', client: 'page' }, elicitationResult: { action: 'accept', content: { note: 'a\u202Eb' } } })).toBe('Accepted on the page: {"note":"a[U+202E]b"}');
    expect(settledLine({ status: 'cancelled', source: { kind: 'person', client: 'telegram' }, elicitationResult: { action: 'cancel' } })).toBe('Cancelled from Telegram');
    expect(settledLine({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } })).toBe('Handed to the terminal by the policy: nobody answered in time');
  });

  it('names the person and their device once people are defined', () => {
    expect(settledLine({ status: 'allowed', source: { kind: 'person', client: 'page', person: 'alice', device: 'Pixel 8\u202E' } })).toBe('Allowed by alice on Pixel 8[U+202E]');
    expect(settledLine({ status: 'answered', source: { kind: 'person', client: 'telegram', person: 'carol', device: 'Telegram: @carol' } })).toBe('Answered by carol from Telegram');
    expect(settledLine({ status: 'answered', source: { kind: 'person', client: 'page', device: 'Pixel 8' } })).toBe('Answered on the page');
  });
});
