// The audit trail: what the daemon writes for each decision (through the store's `record`), and what
// verify makes of the file as written and as tampered with, each tamper named at its first line.
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_GENESIS, readAuditLine, sealLine, sha256Hex, verifyAuditTrail, type AuditLine } from '../../src/audit-file.js';
import { createAuditTrail } from '../../src/daemon/audit.js';
import { createAskStore, type NewAsk } from '../../src/daemon/asks/store.js';
import type { Question } from '../../src/protocol.js';

const question: Question = { question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'SQLite', description: 'a file' }, { label: 'Postgres', description: 'a server' }] };
const base = (toolUseId: string): NewAsk => ({
  sessionId: 'session-1',
  toolUseId,
  cwd: '/home/alice/shop',
  toolInput: { questions: [question] },
  questions: [question],
  agent: 'claude-code',
  waitMs: 60_000,
  timeout: { action: 'terminal', summary: 'the terminal will ask' },
  onTimeout: () => ({ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }),
  door: 'command-hook',
});
const approval = (toolUseId: string): NewAsk => ({
  ...base(toolUseId),
  toolInput: { command: 'npm test' },
  questions: [],
  approval: { toolName: 'Bash', toolInput: { command: 'npm test' }, suggestions: [{ label: 'Always allow `npm test`' }] },
});
const ALICE = { client: 'page', person: 'alice', device: 'Alice’s phone' } as const;

let dir: string;
let files: { trail: string; head: string; key: string };
let errors: Array<{ fields: Record<string, unknown>; message: string }>;

function trailAt(file = files.trail) {
  return createAuditTrail({ file, keyFile: files.key, headFile: files.head, command: 'askbridge', log: { info: () => {}, error: (fields, message) => errors.push({ fields, message }) } });
}

const key = () => Buffer.from(readFileSync(files.key, 'utf8').trim(), 'hex');
const verify = () => verifyAuditTrail(files, key());
const rawLines = () => readFileSync(files.trail, 'utf8').split('\n').slice(0, -1);
const writeLines = (lines: string[]) => writeFileSync(files.trail, lines.map((line) => `${line}\n`).join(''));
const parsed = (text: string): AuditLine => {
  const read = readAuditLine(text);
  if (!read.ok) throw new Error(read.problem);
  return read.line;
};

/** Five decisions, as a store with the trail as its record makes them: the trail's lines, as written. */
function fiveDecisions(): string[] {
  const store = createAskStore({ record: trailAt().record });
  for (const [index, label] of ['SQLite', 'Postgres', 'SQLite', 'Postgres', 'SQLite'].entries()) {
    const { ask } = store.open(base(`tool-${index}`));
    expect(store.answer(ask.id, [{ question: question.question, selected: [label], other: null, notes: null }], ALICE)).toMatchObject({ kind: 'answered' });
  }
  return rawLines();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'askbridge-audit-'));
  files = { trail: join(dir, 'audit.jsonl'), head: join(dir, 'audit-head.json'), key: join(dir, 'audit-key') };
  errors = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the audit trail', () => {
  it('writes one sealed line per decision, chained to the one before, with who decided, what was shown and what was decided', () => {
    const store = createAskStore({ record: trailAt().record });
    const asked = store.open(base('tool-1'));
    store.answer(asked.ask.id, [{ question: question.question, selected: ['Postgres'], other: null, notes: 'it scales' }], ALICE);
    const permission = store.open(approval('tool-2'));
    store.decide(permission.ask.id, { behavior: 'allow', suggestion: 0 }, { client: 'cli' });
    // A policy's settlement is recorded too.
    store.open({ ...base('tool-3'), immediate: { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'immediately' } } });

    expect(verify()).toMatchObject({ ok: true, lines: 3 });
    const lines = rawLines();
    const [answered, allowed, byPolicy] = lines.map(parsed) as [AuditLine, AuditLine, AuditLine];
    expect(answered).toMatchObject({
      v: 1,
      seq: 1,
      event: 'settled',
      ask: asked.ask.id,
      kind: 'question',
      agent: 'claude-code',
      session: 'session-1',
      toolUseId: 'tool-1',
      project: '/home/alice/shop',
      input: { questions: [question] },
      decision: { status: 'answered', answers: { 'Which database?': 'Postgres' }, notes: { 'Which database?': 'it scales' } },
      by: { kind: 'person', client: 'page', person: 'alice', device: 'Alice’s phone' },
      prev: AUDIT_GENESIS,
    });
    expect(new Date(answered.at).getTime()).toBe(answered.atMs);
    expect(allowed).toMatchObject({
      seq: 2,
      kind: 'approval',
      input: { approval: { toolName: 'Bash', toolInput: { command: 'npm test' }, suggestions: ['Always allow `npm test`'] } },
      decision: { status: 'allowed', decision: { behavior: 'allow', suggestion: 0 } },
      by: { kind: 'person', client: 'cli' },
      prev: sha256Hex(lines[0]!),
    });
    expect(byPolicy).toMatchObject({ seq: 3, decision: { status: 'handed-to-terminal' }, by: { kind: 'policy', trigger: 'immediately' }, prev: sha256Hex(lines[1]!) });
    // The MAC is the line's last field; the key and every file made are the daemon user's alone.
    expect(lines[0]).toMatch(/,"mac":"[0-9a-f]{64}"}$/);
    for (const file of Object.values(files)) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(files.head, 'utf8'))).toMatchObject({ seq: 3, hash: sha256Hex(lines[2]!) });
  });

  it('records one allow of two with the allows so far and who gave it, the ask still pending', () => {
    const trail = trailAt();
    const store = createAskStore();
    const { ask } = store.open({ ...approval('tool-1'), route: { people: ['alice', 'bob'], approvals: 2 } });
    const first = { person: 'alice', device: 'Alice’s phone', client: 'page', at: 1 } as const;
    trail.record({ kind: 'allow', ask, allow: first });
    const second = { person: 'bob', device: 'laptop', client: 'telegram', at: 2 } as const;
    trail.record({ kind: 'allow', ask: { ...ask, allows: [first] }, allow: second });
    const [one, two] = rawLines().map(parsed);
    expect(one).toMatchObject({ event: 'allow', route: { people: ['alice', 'bob'], approvals: 2 }, decision: { status: 'pending', allows: [first] }, by: { kind: 'person', client: 'page', person: 'alice', device: 'Alice’s phone' } });
    expect(two).toMatchObject({ event: 'allow', decision: { status: 'pending', allows: [first, second] }, by: { kind: 'person', client: 'telegram', person: 'bob', device: 'laptop' } });
    expect(verify()).toMatchObject({ ok: true, lines: 2 });
  });

  it('records of an ask two people must allow what its card showed: no "always allow" suggestion, no grant', () => {
    const store = createAskStore({ record: trailAt().record });
    const { ask } = store.open({ ...approval('tool-1'), toolInput: { command: 'ls' }, approval: { toolName: 'Bash', toolInput: { command: 'ls' }, suggestions: [{ label: 'Always allow `ls`' }] }, route: { people: ['alice', 'bob'], approvals: 2 } });
    expect(ask.choices).toMatchObject({ remember: false, grant: false });
    expect(store.decide(ask.id, { behavior: 'allow' }, ALICE)).toMatchObject({ kind: 'allowed_once' });
    expect(store.decide(ask.id, { behavior: 'allow' }, { client: 'telegram', person: 'bob', device: 'Bob' })).toMatchObject({ kind: 'answered' });
    const lines = rawLines().map(parsed);
    expect(lines.map((line) => [line.event, line.input])).toEqual([
      ['allow', { approval: { toolName: 'Bash', toolInput: { command: 'ls' }, suggestions: [] } }],
      ['settled', { approval: { toolName: 'Bash', toolInput: { command: 'ls' }, suggestions: [] } }],
    ]);
  });

  it('records of a risky call what its card showed: it is allowed once only, so no "always allow" suggestion', () => {
    const store = createAskStore({ record: trailAt().record });
    const risk = { reasons: ['force-pushes: rewrites the remote\'s history'] };
    const { ask } = store.open({ ...approval('tool-1'), toolInput: { command: 'git push --force' }, approval: { toolName: 'Bash', toolInput: { command: 'git push --force' }, suggestions: [{ label: 'Always allow `git push`' }] }, risk });
    expect(store.decide(ask.id, { behavior: 'deny' }, { client: 'cli' })).toMatchObject({ kind: 'answered' });
    expect(rawLines().map(parsed).map((line) => line.input)).toEqual([{ approval: { toolName: 'Bash', toolInput: { command: 'git push --force' }, suggestions: [] }, risk: risk.reasons }]);
  });

  it('goes on after a restart from where the trail ends, and never changes the mode of a trail that exists', () => {
    writeFileSync(files.trail, '');
    chmodSync(files.trail, 0o640);
    fiveDecisions();
    const store = createAskStore({ record: trailAt().record });
    const { ask } = store.open(base('tool-after'));
    store.decline(ask.id, ALICE);
    expect(rawLines().map((line) => parsed(line).seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(verify()).toMatchObject({ ok: true, lines: 6 });
    expect(statSync(files.trail).mode & 0o777).toBe(0o640);
  });

  describe('verify names the first broken line', () => {
    it('a byte edited in a line', () => {
      const lines = fiveDecisions();
      lines[2] = lines[2]!.replace('"SQLite"}', '"Postgre"}');
      writeLines(lines);
      expect(verify()).toEqual({ ok: false, line: 3, problem: 'edited (its MAC does not match: changed, or written without the key)' });
    });

    it('a line removed in the middle', () => {
      const lines = fiveDecisions();
      writeLines([...lines.slice(0, 2), ...lines.slice(3)]);
      expect(verify()).toEqual({ ok: false, line: 3, problem: 'removed or reordered (sequence 2 is followed by 4)' });
    });

    it('two lines swapped', () => {
      const lines = fiveDecisions();
      writeLines([lines[0]!, lines[2]!, lines[1]!, lines[3]!, lines[4]!]);
      expect(verify()).toEqual({ ok: false, line: 2, problem: 'removed or reordered (sequence 1 is followed by 3)' });
    });

    it('a line appended by another program, its hash chain right but without the key', () => {
      const lines = fiveDecisions();
      const forged = { ...parsed(lines[4]!), seq: 6, prev: sha256Hex(lines[4]!) } as Record<string, unknown>;
      delete forged.mac;
      const json = JSON.stringify(forged);
      const mac = createHmac('sha256', randomBytes(32)).update(json).digest('hex');
      writeLines([...lines, `${json.slice(0, -1)},"mac":"${mac}"}`]);
      expect(verify()).toEqual({ ok: false, line: 6, problem: 'edited (its MAC does not match: changed, or written without the key)' });
    });

    it('the last lines removed: the head says more', () => {
      const lines = fiveDecisions();
      writeLines(lines.slice(0, 3));
      expect(verify()).toEqual({ ok: false, line: 4, problem: 'the trail ends at line 3 but its head says 5: lines were removed from its end' });
      // Nor does the daemon write after it: its next line would hide the cut. It says so as it starts.
      const trail = trailAt();
      trail.check();
      expect(trail.problem()?.error).toMatch(/^the trail ends at line 3 but its head says 5/);
      const store = createAskStore({ record: trail.record });
      const { ask } = store.open(base('tool-after'));
      expect(store.decline(ask.id, ALICE)).toMatchObject({ kind: 'not_recorded', reason: 'the trail ends at line 3 but its head says 5: lines were removed from its end: run `askbridge audit verify`, and see docs/audit.md' });
      expect(rawLines()).toHaveLength(3);
    });

    it('nothing, when the head is behind the trail (the daemon stopped between the two writes): the next line brings it up to date', () => {
      const lines = fiveDecisions();
      writeFileSync(files.head, `${sealLine({ seq: 3, hash: sha256Hex(lines[2]!) }, key())}\n`);
      expect(verify()).toMatchObject({ ok: true, lines: 5 });
      const store = createAskStore({ record: trailAt().record });
      const { ask } = store.open(base('tool-after'));
      expect(store.decline(ask.id, ALICE)).toMatchObject({ kind: 'answered' });
      expect(JSON.parse(readFileSync(files.head, 'utf8'))).toMatchObject({ seq: 6, hash: sha256Hex(rawLines()[5]!) });
      expect(verify()).toMatchObject({ ok: true, lines: 6 });
    });

    it('a line that is not JSON', () => {
      const lines = fiveDecisions();
      lines[1] = 'oops';
      writeLines(lines);
      expect(verify()).toEqual({ ok: false, line: 2, problem: 'not JSON' });
    });

    it('a head rewritten without the key', () => {
      const lines = fiveDecisions();
      writeLines(lines.slice(0, 3));
      writeFileSync(files.head, `${JSON.stringify({ seq: 3, hash: sha256Hex(lines[2]!), mac: '0'.repeat(64) })}\n`);
      expect(verify()).toMatchObject({ ok: false, line: 4, problem: expect.stringMatching(/^its head .* was changed \(its MAC does not match\)$/) });
    });

    it('says ok for the trail as the daemon wrote it, and for none at all', () => {
      expect(verifyAuditTrail(files, randomBytes(32))).toEqual({ ok: true, lines: 0 });
      fiveDecisions();
      const verdict = verify();
      expect(verdict).toMatchObject({ ok: true, lines: 5 });
    });
  });

  describe('when a line cannot be written', () => {
    it('a full disk makes record throw: a person\'s answer is not released and the ask still waits; a policy\'s settlement is released, logged as not recorded', () => {
      const store = createAskStore({ record: trailAt('/dev/full').record });
      const { ask } = store.open(base('tool-1'));
      const answer = [{ question: question.question, selected: ['SQLite'], other: null, notes: null }];
      expect(store.answer(ask.id, answer, ALICE)).toMatchObject({ kind: 'not_recorded', reason: 'the disk is full (ENOSPC)' });
      expect(store.get(ask.id)?.status).toBe('pending');
      const settledByPolicy = store.open({ ...base('tool-2'), immediate: { status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'immediately' } } });
      expect(store.get(settledByPolicy.ask.id)?.status).toBe('handed-to-terminal');
      expect(errors.map((entry) => [entry.message, entry.fields.error])).toEqual([
        ['audit record not written: the decision is not released, the ask still waits', 'the disk is full (ENOSPC)'],
        ['audit record not written: released without it', 'the disk is full (ENOSPC)'],
      ]);
    });

    it('a directory where the trail should be makes record throw, as it does for root; once it is a file again, lines are written', () => {
      mkdirSync(files.trail);
      const trail = trailAt();
      const store = createAskStore({ record: trail.record });
      const { ask } = store.open(base('tool-1'));
      const result = store.decline(ask.id, ALICE);
      expect(result).toMatchObject({ kind: 'not_recorded', reason: expect.stringContaining('EISDIR') });
      expect(trail.problem()?.error).toContain('EISDIR');
      rmSync(files.trail, { recursive: true });
      expect(store.decline(ask.id, ALICE)).toMatchObject({ kind: 'answered', ask: { status: 'declined' } });
      expect(trail.problem()).toBeNull();
      expect(verify()).toMatchObject({ ok: true, lines: 1 });
    });
  });
});
