import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigReader, findProjectConfig, readConfigFile, userConfigPath } from '../../src/config.js';
import { trustFilePath } from '../../src/trust.js';

let root: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'askbridge-config-'));
  env = { XDG_CONFIG_HOME: join(root, 'config'), HOME: root };
  mkdirSync(join(root, 'config', 'askbridge'), { recursive: true });
  mkdirSync(join(root, 'project', '.claude'), { recursive: true });
  mkdirSync(join(root, 'project', 'src', 'deep'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const writeUser = (value: unknown) => writeFileSync(userConfigPath(env), typeof value === 'string' ? value : JSON.stringify(value));
let tick = 0;
const writeProject = (value: unknown) => {
  const path = join(root, 'project', '.claude', 'askbridge.json');
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  // Two edits in one millisecond look the same on disk; step the clock like a person would.
  const time = new Date(Date.now() + ++tick * 1000);
  utimesSync(path, time, time);
};

/** The real command, in this process. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { runCli } = await import('../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await runCli({ argv, env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}

/** `askbridge trust` for the test project, as the user runs it after reading the file. */
async function trustProject() {
  const result = await cli(['trust', join(root, 'project')]);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe('config files', () => {
  it('names the bad field in a clear error', () => {
    writeUser({ waitSeconds: -1, rules: [{ header: 'x', choose: 'A', when: 'later' }] });
    expect(() => readConfigFile(userConfigPath(env))).toThrow(/waitSeconds: .*>=0.*rules\.0\.when/s);
  });

  it('refuses unknown keys, which are usually typos', () => {
    writeUser({ waitSecond: 10 });
    expect(() => readConfigFile(userConfigPath(env))).toThrow(/waitSecond/);
  });

  it('refuses an invalid regular expression and a rule without an answer', () => {
    writeUser({ rules: [{ question: { regex: '([' }, choose: 'A' }, { header: 'x' }] });
    expect(() => readConfigFile(userConfigPath(env))).toThrow(/rules\.0\.question\.regex: not a regular expression askbridge can match in linear time.*rules\.1: a rule gives exactly one/s);
  });

  it('refuses patterns that need backtracking (backreferences, lookaround), naming the field', () => {
    writeUser({ rules: [{ question: { regex: '(deploy)\\1' }, choose: 'A' }, { header: { regex: 'prod(?=uction)' }, choose: 'A' }] });
    expect(() => readConfigFile(userConfigPath(env))).toThrow(/rules\.0\.question\.regex: not a regular expression .*invalid escape sequence.*rules\.1\.header\.regex: not a regular expression .*Perl syntax/s);
  });

  it('finds the project file from any directory inside the project', () => {
    writeProject({ waitSeconds: 5 });
    expect(findProjectConfig(join(root, 'project', 'src', 'deep'))).toBe(join(root, 'project', '.claude', 'askbridge.json'));
    expect(findProjectConfig(join(root, 'config'))).toBeUndefined();
  });

  it('lets a trusted project override the user file and says where each value came from', async () => {
    writeUser({ waitSeconds: 60, onTimeout: 'decline', rules: [{ header: 'user', choose: 'A' }] });
    writeProject({ waitSeconds: 120, rules: [{ header: 'project', choose: 'A' }] });
    await trustProject();
    const effective = createConfigReader(env).effective(join(root, 'project', 'src'));
    expect(effective.config).toMatchObject({ waitSeconds: 120, onTimeout: 'decline', whenNobodyWatching: 'wait-if-reachable' });
    expect(effective.config.rules.map((rule) => rule.header)).toEqual(['project', 'user']);
    expect(effective.origins).toMatchObject({ waitSeconds: 'project', onTimeout: 'user', whenNobodyWatching: 'default', rules: 'user+project' });
  });

  it("ignores a project's file until the user trusts it, and the user's own config still applies", async () => {
    writeUser({ onTimeout: 'decline' });
    writeProject({ waitSeconds: 5, rules: [{ header: 'Deploy', choose: 'Yes', when: 'immediately' }] });
    const reader = createConfigReader(env);
    const cwd = join(root, 'project', 'src');
    const fresh = reader.effective(cwd);
    expect(fresh.config).toMatchObject({ waitSeconds: 300, onTimeout: 'decline', rules: [] });
    expect(fresh.ignored).toEqual([{ path: join(root, 'project', '.claude', 'askbridge.json'), projectDir: join(root, 'project'), reason: 'untrusted' }]);

    const trusted = await trustProject();
    expect(trusted.stdout).toMatch(/Trusting .*askbridge\.json, which says:\n {2}waitSeconds: 5\n {2}rule #1: when the header contains "Deploy", chooses "Yes" AT ONCE, without asking anyone\nTrusted\./);
    expect(reader.effective(cwd).config).toMatchObject({ waitSeconds: 5, rules: [{ header: 'Deploy' }] });
    expect(statSync(trustFilePath(env)).mode & 0o777).toBe(0o600);

    await cli(['trust', '--revoke', join(root, 'project')]);
    expect(reader.effective(cwd).ignored).toMatchObject([{ reason: 'untrusted' }]);
  });

  it("applies the user's own edits once trusted again: a changed file is ignored until then, and a broken one cannot be trusted", async () => {
    const reader = createConfigReader(env);
    const cwd = join(root, 'project');
    writeProject({ waitSeconds: 10 });
    await trustProject();
    expect(reader.effective(cwd).config.waitSeconds).toBe(10);
    writeProject({ waitSeconds: 20 });
    const changed = reader.effective(cwd);
    expect(changed.config.waitSeconds).toBe(300);
    expect(changed.ignored).toMatchObject([{ reason: 'changed' }]);
    await trustProject();
    expect(reader.effective(cwd).config.waitSeconds).toBe(20);
    writeProject('{ "waitSeconds": 30, ');
    const refused = await cli(['trust', cwd]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not valid JSON.*fix it before trusting it; nothing was trusted/);
    expect(reader.effective(cwd).ignored).toMatchObject([{ reason: 'changed' }]);
    writeProject({ waitSeconds: 40 });
    await trustProject();
    const fixed = reader.effective(cwd);
    expect(fixed.config.waitSeconds).toBe(40);
    expect(fixed.errors).toEqual([]);
  });

  it('takes webhooks and push options from the user file, naming each bad field', () => {
    writeUser({ notify: [{ ntfy: 'https://ntfy.sh/askbridge-questions' }, { slack: 'https://hooks.slack.test/services/T0/B0/x' }, { url: 'http://127.0.0.1:9000/hook' }], push: { fullText: true } });
    const effective = createConfigReader(env).effective(root);
    expect(effective.config.notify).toHaveLength(3);
    expect(effective.config.push).toEqual({ fullText: true });
    expect(effective.origins).toMatchObject({ notify: 'user', push: 'user' });

    const refusals: Array<[unknown, RegExp]> = [
      [{ notify: [{ url: 'http://hooks.example.test/x' }] }, /notify\.0\.url: http:\/\/hooks\.example\.test would carry the notice in the clear/],
      [{ notify: [{ slack: 'https://a.test/x', discord: 'https://b.test/y' }] }, /notify\.0: a notify entry names exactly one of ntfy, slack, discord, url \(here: slack, discord\)/],
      [{ notify: [{}] }, /notify\.0: a notify entry names exactly one of .* \(here: none\)/],
      [{ notify: [{ ntfy: 'https://ntfy.sh/' }] }, /notify\.0\.ntfy: an ntfy URL ends with its topic/],
      [{ notify: [{ url: 'https://user:secret@hooks.example.test/x' }] }, /notify\.0\.url: a URL with a user name or password cannot be used/],
      [{ notify: [{ email: 'me@example.test' }] }, /notify\.0: Unrecognized key: "email"/],
      [{ push: { fullText: 'yes' } }, /push\.fullText: .*boolean/],
    ];
    for (const [file, message] of refusals) {
      writeUser(file);
      expect(() => readConfigFile(userConfigPath(env)), JSON.stringify(file)).toThrow(message);
    }
  });

  it("ignores a trusted project's notify, push and publicUrl with a warning naming them, and applies the rest of the file", async () => {
    writeUser({ notify: [{ url: 'https://mine.example.test/hook' }] });
    writeProject({ waitSeconds: 7, rules: [{ header: 'Deploy', choose: 'No' }], notify: [{ url: 'https://theirs.example.test/hook' }], push: { fullText: true }, publicUrl: 'https://theirs.example.test' });
    expect((await trustProject()).stdout).toContain('  publicUrl, notify, push: ignored here (only your user config sets them)\n');
    const effective = createConfigReader(env).effective(join(root, 'project'));
    expect(effective.config).toMatchObject({ waitSeconds: 7, rules: [{ header: 'Deploy', choose: 'No' }], notify: [{ url: 'https://mine.example.test/hook' }], push: { fullText: false } });
    expect(effective.origins).toMatchObject({ waitSeconds: 'project', rules: 'project', notify: 'user', push: 'default' });
    expect(effective.errors).toEqual([]);
    expect(effective.warnings).toEqual([
      {
        path: join(root, 'project', '.claude', 'askbridge.json'),
        message: `${join(root, 'project', '.claude', 'askbridge.json')}: publicUrl, notify, push are read from the user config only (${userConfigPath(env)}); here they are ignored, and the rest of the file applies`,
      },
    ]);

    const shown = await cli(['config', '--cwd', join(root, 'project')]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/waitSeconds\s+7\s+\(project\)/);
    expect(shown.stderr).toBe(`warning: ${effective.warnings?.[0]?.message}\n`);

    const doctor = await cli(['doctor', '--json', '--cwd', join(root, 'project'), '--claude', join(root, 'no-claude')]);
    const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ id: string; level: string; message: string }> }).findings;
    expect(findings.filter((finding) => finding.id.includes('config'))).toEqual([{ id: 'project-config-user-only', level: 'warning', file: effective.warnings?.[0]?.path, message: `askbridge's config ${effective.warnings?.[0]?.message}`, fix: expect.stringContaining('trust it again') }]);
  });

  it('keeps the last good version of the user file when an edit is invalid', () => {
    const reader = createConfigReader(env);
    writeUser({ waitSeconds: 20 });
    expect(reader.effective(root).config.waitSeconds).toBe(20);
    writeUser('{ "waitSeconds": 30, ');
    const broken = reader.effective(root);
    expect(broken.config.waitSeconds).toBe(20);
    expect(broken.errors[0]?.message).toMatch(/not valid JSON/);
  });
});

describe('askbridge config', () => {
  it('prints the effective values and where each came from, and fails on a broken file', async () => {
    const { runCli } = await import('../../src/cli/main.js');
    writeUser({ onTimeout: 'decline' });
    writeProject({ waitSeconds: 42 });
    await trustProject();
    let out = '';
    let err = '';
    const io = { env, stdout: (text: string) => void (out += text), stderr: (text: string) => void (err += text) };
    expect(await runCli({ ...io, argv: ['config', '--cwd', join(root, 'project', 'src'), '--json'] })).toBe(0);
    const shown = JSON.parse(out) as { config: { waitSeconds: number; onTimeout: string }; origins: Record<string, string> };
    expect(shown.config).toMatchObject({ waitSeconds: 42, onTimeout: 'decline' });
    expect(shown.origins).toMatchObject({ waitSeconds: 'project', onTimeout: 'user', answerMode: 'default' });

    out = '';
    writeProject({ waitSeconds: 43 });
    expect(await runCli({ ...io, argv: ['config', '--cwd', join(root, 'project')] })).toBe(0);
    expect(out).toMatch(/waitSeconds\s+300\s+\(default\)/);
    expect(out).toMatch(/ignored: .*askbridge\.json: it changed since it was trusted; read it, then run `.*askbridge(\.mjs)? trust /);

    out = '';
    writeUser({ notify: [{ discord: 'https://discord.test/api/webhooks/1/secret-key' }] });
    expect(await runCli({ ...io, argv: ['config', '--cwd', root] })).toBe(0);
    expect(out).toMatch(/notify\s+1 webhook\(s\)\s+\(user\)\n {4}discord https:\/\/discord\.test\/…\n/);
    expect(out).not.toContain('secret-key');

    out = '';
    writeUser('{ "onTimeout": ');
    expect(await runCli({ ...io, argv: ['config', '--cwd', join(root, 'project')] })).toBe(1);
    expect(err).toMatch(/config\.json: not valid JSON/);
  });
});
