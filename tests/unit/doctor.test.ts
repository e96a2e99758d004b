// `askbridge doctor`: the checks on the settings fixtures (tests/fixtures/settings), the matcher and
// command parsing they rely on, and the real command through runCli.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  diagnose,
  gatherInputs,
  hookScriptPath,
  matcherMatches,
  type DaemonProbe,
  type DoctorInputs,
  type Finding,
} from '../../src/cli/doctor.js';
import { askbridgeCommand } from '../../src/command-name.js';
import { parseClaudeVersion, probeClaude, type ClaudeProbe } from '../../src/cli/claude-version.js';
import type { SocketUnitProbe } from '../../src/cli/service-hold.js';
import { runCli } from '../../src/cli/main.js';
import { createHookIdentity } from '../../src/daemon/hook-identity.js';
import { contentHash, createTrustStore } from '../../src/trust.js';
import { mergeConfig } from '../../src/config.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/settings/', import.meta.url));
const home = (name: string) => join(FIXTURES, name, 'home');
const project = (name: string) => join(FIXTURES, name, 'project');
const CLAUDE_NEW = join(FIXTURES, 'bin', 'claude-2.1.330');
const CLAUDE_OLD = join(FIXTURES, 'bin', 'claude-2.1.80');
/** How the fixtures' doctor (no PATH) and the doctor run as a CLI (this PATH) name askbridge in a fix. */
const FROM_FIXTURE = askbridgeCommand({});
const FROM_CLI = askbridgeCommand({ PATH: process.env.PATH });

/** askbridge.socket active on 127.0.0.1:7433 and [::1]:7433, both listening as this user (uid 1000). */
const SERVICE_HOLDS_7433: SocketUnitProbe = {
  state: 'active',
  listens: [
    { entry: '127.0.0.1:7433 (Stream)', listenerUid: 1000 },
    { entry: '[::1]:7433 (Stream)', listenerUid: 1000 },
  ],
  uid: 1000,
};
const NO_SERVICE: SocketUnitProbe = { state: 'inactive', listens: [], uid: 1000 };
const RUNNING: DaemonProbe = { running: true, url: 'http://127.0.0.1:7433/', version: 'test' };
const newClaude: ClaudeProbe = { bin: 'claude', state: 'found', output: '2.1.330 (Claude Code)\n' };

/** A state directory for trust decisions, so that no fixture folder is ever written to. */
const trustHome = mkdtempSync(join(tmpdir(), 'askbridge-doctor-trust-'));
afterAll(() => rmSync(trustHome, { recursive: true, force: true }));

/** Trusts a fixture project's askbridge.json, as `askbridge trust` does. */
function trustFixture(name: string): void {
  const file = join(project(name), '.claude', 'askbridge.json');
  createTrustStore({ ASKBRIDGE_HOME: trustHome }).trust(file, contentHash(readFileSync(file)));
}

/** A fixture read the way the command reads it, with `claude` and the daemon faked. */
async function fixtureInputs(name: string, probes: { claude?: ClaudeProbe; daemon?: DaemonProbe } = {}, env: NodeJS.ProcessEnv = {}): Promise<DoctorInputs> {
  return gatherInputs(
    project(name),
    { HOME: home(name), ASKBRIDGE_HOME: trustHome, ...env },
    { claude: async () => probes.claude ?? newClaude, daemon: async () => probes.daemon ?? RUNNING, service: async () => SERVICE_HOLDS_7433 },
    'claude',
  );
}

const ids = (findings: Finding[]) => findings.map((finding) => finding.id);

/** Inputs built in memory: one project settings file holding `settings`. */
function memoryInputs(settings: Record<string, unknown>, config: { waitSeconds?: number; answerMode?: 'updatedInput' | 'deny-reason' } = {}): DoctorInputs {
  return {
    projectDir: '/p',
    homeDir: '/home/alice',
    command: 'askbridge',
    settings: [
      { scope: 'user', path: '/home/alice/.claude/settings.json', state: 'missing' },
      { scope: 'project', path: '/p/.claude/settings.json', state: 'ok', settings },
      { scope: 'local', path: '/p/.claude/settings.local.json', state: 'missing' },
    ],
    config: { ...mergeConfig(config, {}), files: { user: '/home/alice/.config/askbridge/config.json', project: undefined }, errors: [], ignored: [] },
    claude: newClaude,
    daemon: RUNNING,
    hookKey: HOOK_KEY,
    service: SERVICE_HOLDS_7433,
    fileExists: () => true,
  };
}
const HOOK_KEY = 'current-hook-key-0123456789abcdefghijklmnopq';
/** http entries as `install` writes them (AskUserQuestion, PermissionRequest, SessionEnd, and the turn-end ones), with what a test changes. */
const httpHook = (options: { key?: string; url?: string } = {}) => {
  const url = options.url ?? 'http://127.0.0.1:7433/api/hook/ask';
  const headers = { 'x-askbridge-hook-key': options.key ?? HOOK_KEY };
  return {
    hooks: {
      PreToolUse: [{ matcher: 'AskUserQuestion', hooks: [{ type: 'http', url, headers, timeout: 3600 }] }],
      PermissionRequest: [{ hooks: [{ type: 'http', url: new URL('/api/hook/permission', url).href, headers, timeout: 3600 }] }],
      SessionEnd: [{ hooks: [{ type: 'http', url: new URL('/api/hook/session-end', url).href, headers }] }],
      Stop: [{ hooks: [{ type: 'http', url: new URL('/api/hook/stop', url).href, headers: { ...headers, 'x-askbridge-stop-block-cap': '$CLAUDE_CODE_STOP_HOOK_BLOCK_CAP' }, allowedEnvVars: ['CLAUDE_CODE_STOP_HOOK_BLOCK_CAP'], timeout: 3600 }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'http', url: new URL('/api/hook/prompt', url).href, headers, timeout: 10 }] }],
      Notification: [{ hooks: [{ type: 'http', url: new URL('/api/hook/notification', url).href, headers, timeout: 10 }] }],
      Elicitation: [{ hooks: [{ type: 'http', url: new URL('/api/hook/elicitation', url).href, headers, timeout: 3600 }] }],
    },
  };
};
/** The command hook as `install` writes it (AskUserQuestion, PermissionRequest, SessionEnd, the turn-end ones and Elicitation), with what a test adds to the first. */
const askbridgeHook = (extra: Record<string, unknown> = {}) => ({
  hooks: {
    PreToolUse: [{ matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", ...extra }] }],
    PermissionRequest: [{ hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", timeout: 3600 }] }],
    SessionEnd: [{ hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'" }] }],
    Stop: [{ hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", timeout: 3600 }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", timeout: 10 }] }],
    Notification: [{ hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", timeout: 10 }] }],
    Elicitation: [{ hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", timeout: 3600 }] }],
  },
});

describe('diagnose on the settings fixtures', () => {
  it('finds nothing wrong in a clean setup, where look-alike matchers and rules do not count', async () => {
    const diagnosis = diagnose(await fixtureInputs('clean'));
    expect(diagnosis.findings).toEqual([]);
    expect(diagnosis.ok).toBe(true);
    expect(diagnosis.passed).toContain(`askbridge hook installed in ${join(project('clean'), '.claude', 'settings.json')}`);
    expect(diagnosis.passed).toContain(`hook script ${join(project('clean'), 'hooks', 'askbridge-hook.cjs')} exists`);
  });

  it('reports a missing hook with both install commands, even when no user settings file exists', async () => {
    const diagnosis = diagnose(await fixtureInputs('missing-hook'));
    expect(ids(diagnosis.findings)).toEqual(['hook-missing']);
    const [finding] = diagnosis.findings;
    expect(finding?.level).toBe('error');
    expect(finding?.fix).toContain(`${FROM_FIXTURE} install --project '${project('missing-hook')}'`);
    expect(finding?.fix).toContain(`${FROM_FIXTURE} install --user`);
    expect(diagnosis.ok).toBe(false);
  });

  it('reports a hook whose absolute script path does not exist, with the install command for the file holding it', async () => {
    const diagnosis = diagnose(await fixtureInputs('hook-path-missing'));
    expect(ids(diagnosis.findings)).toEqual(['hook-path-missing']);
    const [finding] = diagnosis.findings;
    expect(finding?.file).toBe(join(project('hook-path-missing'), '.claude', 'settings.local.json'));
    expect(finding?.message).toContain('/nonexistent/askbridge/hooks/askbridge-hook.cjs');
    expect(finding?.fix).toContain(`${FROM_FIXTURE} install --project '${project('hook-path-missing')}'`);
  });

  it("reports a project's askbridge config that is not trusted, with the command that trusts it", async () => {
    const diagnosis = diagnose(await fixtureInputs('short-timeout', {}, { ASKBRIDGE_HOME: join(trustHome, 'nothing-trusted') }));
    const finding = diagnosis.findings.find((candidate) => candidate.id === 'project-config-untrusted');
    expect(finding).toMatchObject({ level: 'warning', file: join(project('short-timeout'), '.claude', 'askbridge.json') });
    expect(finding?.fix).toContain(`${FROM_FIXTURE} trust '${project('short-timeout')}'`);
    // Ignored, so its waitSeconds 900 is not in use: no timeout finding.
    expect(diagnosis.findings.map((candidate) => candidate.id)).not.toContain('hook-timeout-short');
  });

  it("reports Claude Code's default 600 s timeout as too short for the project's waitSeconds 900", async () => {
    trustFixture('short-timeout');
    const diagnosis = diagnose(await fixtureInputs('short-timeout'));
    expect(ids(diagnosis.findings)).toEqual(['hook-timeout-short']);
    const [finding] = diagnosis.findings;
    expect(finding?.level).toBe('error');
    expect(finding?.message).toMatch(/default, 600 s.*waits 900 s.*930 s/);
    expect(finding?.fix).toContain('"timeout": 3600');
    expect(finding?.fix).toContain(join(project('short-timeout'), '.claude', 'askbridge.json'));
  });

  it('reports every other hook that runs on AskUserQuestion: a "*" catch-all, a regex and an alternation', async () => {
    const diagnosis = diagnose(await fixtureInputs('conflicting-hook'));
    expect(ids(diagnosis.findings)).toEqual(['hook-conflict', 'hook-conflict', 'hook-conflict']);
    expect(diagnosis.findings.every((finding) => finding.level === 'warning')).toBe(true);
    const local = join(project('conflicting-hook'), '.claude', 'settings.local.json');
    expect(diagnosis.findings.map((finding) => [finding.file, finding.message.match(/matcher ("[^"]*")/)?.[1]])).toEqual([
      [join(home('conflicting-hook'), '.claude', 'settings.json'), '"*"'],
      [local, '"Ask.*"'],
      [local, '"Bash|AskUserQuestion"'],
    ]);
    expect(diagnosis.findings[0]?.message).toContain('~/bin/catch-all.sh');
    expect(diagnosis.ok).toBe(false);
  });

  it('reports a permissions.deny rule naming AskUserQuestion as an error in the file that holds it', async () => {
    const diagnosis = diagnose(await fixtureInputs('deny-rule'));
    expect(diagnosis.findings).toEqual([
      expect.objectContaining({ id: 'permission-deny', level: 'error', file: join(project('deny-rule'), '.claude', 'settings.json') }),
    ]);
    expect(diagnosis.findings[0]?.fix).toContain('remove "AskUserQuestion" from permissions.deny');
  });

  it('reports a permissions.ask rule with a pattern, AskUserQuestion(*), as an error', async () => {
    const diagnosis = diagnose(await fixtureInputs('ask-rule'));
    expect(diagnosis.findings).toEqual([
      expect.objectContaining({ id: 'permission-ask', level: 'error', file: join(home('ask-rule'), '.claude', 'settings.json') }),
    ]);
    expect(diagnosis.findings[0]?.message).toContain('"AskUserQuestion(*)"');
  });

  it('reports an unparsable settings file with its parse error, and still finds the hook in the other files', async () => {
    const diagnosis = diagnose(await fixtureInputs('unparsable'));
    expect(ids(diagnosis.findings)).toEqual(['settings-unparsable']);
    expect(diagnosis.findings[0]?.file).toBe(join(project('unparsable'), '.claude', 'settings.json'));
    expect(diagnosis.findings[0]?.message).toMatch(/not valid JSON: .+/);
  });

  it('suggests answerMode "deny-reason" for Claude Code 2.1.80, read from a fake claude', async () => {
    const claude = await probeClaude(CLAUDE_OLD, process.env);
    expect(claude).toEqual({ bin: CLAUDE_OLD, state: 'found', output: '2.1.80 (Claude Code)\n' });
    const diagnosis = diagnose(await fixtureInputs('clean', { claude }));
    expect(diagnosis.findings).toEqual([
      expect.objectContaining({ id: 'claude-version-old', level: 'warning', fix: expect.stringContaining('"answerMode": "deny-reason"') }),
    ]);
  });

  it('does not suggest answerMode "deny-reason" for an old Claude Code when it is already set', () => {
    const inputs = { ...memoryInputs(askbridgeHook({ timeout: 3600 }), { answerMode: 'deny-reason' }), claude: { bin: 'claude', state: 'found', output: '2.1.84 (Claude Code)' } as const };
    expect(diagnose(inputs).findings).toEqual([]);
  });

  it('reports a missing claude binary as info only, which leaves the result ok', async () => {
    const claude = await probeClaude(join(FIXTURES, 'bin', 'no-such-claude'), process.env);
    expect(claude.state).toBe('missing');
    const diagnosis = diagnose(await fixtureInputs('clean', { claude }));
    expect(diagnosis.findings).toEqual([expect.objectContaining({ id: 'claude-not-found', level: 'info' })]);
    expect(diagnosis.ok).toBe(true);
  });

  it('reports a daemon that is not running, with `askbridge start` as the fix', async () => {
    const diagnosis = diagnose(await fixtureInputs('clean', { daemon: { running: false, reason: 'no daemon.json' } }));
    expect(diagnosis.findings).toEqual([{ id: 'daemon-not-running', level: 'error', message: expect.stringContaining('no daemon.json'), fix: `${FROM_FIXTURE} start` }]);
    expect(diagnosis.ok).toBe(false);
  });
});

describe('diagnose on settings built in memory', () => {
  it('warns when the timeout is above waitSeconds but within the 30 s margin, and passes at the margin', () => {
    expect(diagnose(memoryInputs(askbridgeHook({ timeout: 320 }), { waitSeconds: 300 })).findings).toEqual([
      expect.objectContaining({ id: 'hook-timeout-short', level: 'warning', fix: expect.stringContaining('"waitSeconds" to at most 290') }),
    ]);
    expect(diagnose(memoryInputs(askbridgeHook({ timeout: 330 }), { waitSeconds: 300 })).findings).toEqual([]);
  });

  it('finds a hook under a missing or empty matcher as conflicting', () => {
    const settings = {
      hooks: {
        PreToolUse: [
          ...askbridgeHook({ timeout: 3600 }).hooks.PreToolUse,
          { hooks: [{ type: 'command', command: 'no-matcher.sh' }] },
          { matcher: '', hooks: [{ type: 'command', command: 'empty-matcher.sh' }] },
        ],
        PermissionRequest: askbridgeHook().hooks.PermissionRequest,
        SessionEnd: askbridgeHook().hooks.SessionEnd,
        Stop: askbridgeHook().hooks.Stop,
        UserPromptSubmit: askbridgeHook().hooks.UserPromptSubmit,
        Notification: askbridgeHook().hooks.Notification,
        Elicitation: askbridgeHook().hooks.Elicitation,
      },
    };
    expect(ids(diagnose(memoryInputs(settings)).findings)).toEqual(['hook-conflict', 'hook-conflict']);
  });

  it('says where an askbridge hook sits under a matcher that misses AskUserQuestion', () => {
    const settings = { hooks: { PreToolUse: [{ matcher: 'AskUserQuestions', hooks: [{ type: 'command', command: 'node /x/askbridge-hook.cjs' }] }] } };
    const [finding] = diagnose(memoryInputs(settings)).findings;
    expect(finding?.id).toBe('hook-missing');
    expect(finding?.message).toContain('under matcher "AskUserQuestions"');
  });

  it('checks the installed hook path with the injected file test', () => {
    const inputs = { ...memoryInputs(askbridgeHook({ timeout: 3600 })), fileExists: (path: string) => path !== '/opt/askbridge/hooks/askbridge-hook.cjs' };
    expect(ids(diagnose(inputs).findings)).toEqual(['hook-path-missing']);
  });

  it('says where askbridge is wired twice, that each wait still shows once, and how to keep one, without failing', () => {
    const inUserFile = (command: string): DoctorInputs => {
      const inputs = memoryInputs(askbridgeHook({ timeout: 3600 }));
      const entry = (event: string) => [{ ...(event === 'PreToolUse' ? { matcher: 'AskUserQuestion' } : {}), hooks: [{ type: 'command', command, timeout: 3600 }] }];
      const user = { hooks: Object.fromEntries(['PreToolUse', 'PermissionRequest', 'SessionEnd', 'Stop', 'UserPromptSubmit', 'Notification'].map((event) => [event, entry(event)])) };
      return { ...inputs, settings: [{ scope: 'user', path: '/home/alice/.claude/settings.json', state: 'ok', settings: user }, ...inputs.settings.slice(1)] };
    };
    for (const command of ['node /old/askbridge/hooks/askbridge-hook.cjs', "node '/opt/askbridge/hooks/askbridge-hook.cjs'"]) {
      const diagnosis = diagnose(inUserFile(command));
      expect(diagnosis.findings).toEqual([
        {
          id: 'hook-duplicate',
          level: 'info',
          message: 'askbridge is wired 2 times (/home/alice/.claude/settings.json, /p/.claude/settings.json): Claude Code runs every entry and each gets the decision, and each wait still shows once, but every event is handed over twice',
          fix: "keep one: `askbridge uninstall --user` (/home/alice/.claude/settings.json), or `askbridge uninstall --project '/p'` (/p/.claude/settings.json)",
        },
      ]);
      expect(diagnosis.ok).toBe(true);
    }
  });

  it('notes answerMode "deny-reason" as unneeded on a Claude Code that takes updatedInput, without failing', () => {
    const diagnosis = diagnose(memoryInputs(askbridgeHook({ timeout: 3600 }), { answerMode: 'deny-reason' }));
    expect(diagnosis.findings).toEqual([expect.objectContaining({ id: 'answer-mode-deny-reason', level: 'info' })]);
    expect(diagnosis.ok).toBe(true);
  });

  it('recognises an http hook as installed, and passes one with the current key on the daemon\'s port', () => {
    const diagnosis = diagnose(memoryInputs(httpHook()));
    expect(diagnosis.findings).toEqual([]);
    expect(diagnosis.passed).toContain('the http hook in /p/.claude/settings.json carries the current hook key');
  });

  it('reports an http hook whose key is not the current one, or when no key exists, as an error with the install command', () => {
    expect(diagnose(memoryInputs(httpHook({ key: 'rotated-away' }))).findings).toEqual([
      expect.objectContaining({ id: 'hook-key-stale', level: 'error', message: expect.stringContaining('not the current one'), fix: expect.stringContaining("askbridge install --project '/p'") }),
    ]);
    expect(ids(diagnose({ ...memoryInputs(httpHook()), hookKey: undefined }).findings)).toEqual(['hook-key-stale']);
  });

  it('reports an http hook that posts to another port than the daemon listens on', () => {
    // The service holds 7433, not 7500: that is said too.
    const service = { ...SERVICE_HOLDS_7433, listens: [{ entry: '127.0.0.1:7500 (Stream)', listenerUid: 1000 }] };
    const [finding, ...rest] = diagnose({ ...memoryInputs(httpHook({ url: 'http://127.0.0.1:7500/api/hook/ask' })), service }).findings;
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ id: 'hook-port-mismatch', level: 'error', message: expect.stringContaining('posts to port 7500, but the daemon listens on 7433') });
    // No daemon running: nothing to compare with (the daemon check says it is not running).
    expect(ids(diagnose({ ...memoryInputs(httpHook({ url: 'http://127.0.0.1:7500/api/hook/ask' })), service, daemon: { running: false, reason: 'x' } }).findings)).toEqual(['daemon-not-running']);
  });

  it('checks no key, port or local daemon for a hook that asks a daemon on another machine (install --url)', () => {
    const remote = httpHook({ key: 'the-other-machines-key-0123456789abcdef', url: 'https://box.tailnet.ts.net/api/hook/ask' });
    (remote.hooks.PreToolUse[0]!.hooks[0]!.headers as Record<string, string>)['x-askbridge-machine'] = 'ci-runner';
    const report = diagnose({ ...memoryInputs(remote), daemon: { running: false, reason: 'x' }, hookKey: undefined });
    expect(report.findings).toEqual([]);
    expect(report.passed).toEqual(expect.arrayContaining([expect.stringContaining('asks askbridge on another machine (https://box.tailnet.ts.net/api/hook/ask)'), expect.stringContaining('no daemon needs to run here')]));
  });

  it('warns about an http hook whose port no service holds, with `askbridge service install` and the command hook as fixes', () => {
    const findings = diagnose({ ...memoryInputs(httpHook()), service: NO_SERVICE }).findings;
    expect(findings).toEqual([
      {
        id: 'http-hook-port-unheld',
        level: 'warning',
        file: '/p/.claude/settings.json',
        message: 'the http hook in /p/.claude/settings.json posts to port 7433, which no service holds (askbridge.socket is not active): while askbridge is not running there, any program on this machine can listen on it, receive every question with the hook key, and answer it in your name',
        fix: "`askbridge service install` (systemd holds the port), or `askbridge install --project '/p' --hook command` (the command hook proves the daemon before it sends anything)",
      },
    ]);
    // The command hook proves the daemon itself; a hook to another machine goes through that machine's front.
    expect(diagnose({ ...memoryInputs(askbridgeHook({ timeout: 3600 })), service: NO_SERVICE }).findings).toEqual([]);
    const remote = httpHook({ key: 'the-other-machines-key-0123456789abcdef', url: 'https://box.tailnet.ts.net/api/hook/ask' });
    (remote.hooks.PreToolUse[0]!.hooks[0]!.headers as Record<string, string>)['x-askbridge-machine'] = 'ci-runner';
    expect(diagnose({ ...memoryInputs(remote), service: NO_SERVICE, hookKey: undefined }).findings).toEqual([]);
  });

  it('warns about an http hook whose port the active socket unit does not hold exactly, or where another user listens', () => {
    const whyFor = (service: SocketUnitProbe, url = 'http://127.0.0.1:7433/api/hook/ask') => {
      const findings = diagnose({ ...memoryInputs(httpHook({ url })), daemon: { running: false, reason: 'x' }, service }).findings.filter((finding) => finding.id === 'http-hook-port-unheld');
      return findings.map((finding) => /which no service holds \((.*)\): while/.exec(finding.message)?.[1]);
    };
    // The unit holds 7433; the hook posts to another port (a daemon its keeper ran there when install chose).
    expect(whyFor(SERVICE_HOLDS_7433, 'http://127.0.0.1:41234/api/hook/ask')).toEqual(['askbridge.socket listens on 127.0.0.1:7433 (Stream), [::1]:7433 (Stream), not on 127.0.0.1:41234']);
    expect(whyFor({ ...SERVICE_HOLDS_7433, listens: [...SERVICE_HOLDS_7433.listens, { entry: '0.0.0.0:8443 (Stream)', listenerUid: 1000 }] })).toEqual([
      'askbridge.socket listens on 0.0.0.0:8443 (Stream) too, and askbridge takes only 127.0.0.1:7433 and [::1]:7433',
    ]);
    expect(whyFor({ ...SERVICE_HOLDS_7433, listens: [{ entry: '127.0.0.1:7433 (Stream)', listenerUid: 999 }] })).toEqual(['another user (uid 999) listens on 127.0.0.1:7433, not askbridge.socket']);
    expect(whyFor({ ...SERVICE_HOLDS_7433, listens: [{ entry: '127.0.0.1:7433 (Stream)', listenerUid: null }] })).toEqual(['nothing listens on 127.0.0.1:7433, though askbridge.socket is active']);
    expect(whyFor({ state: 'unknown', listens: [], uid: 1000 })).toEqual(['no systemd user manager answers `systemctl --user`']);
    expect(whyFor(SERVICE_HOLDS_7433)).toEqual([]);
  });

  it('reports an http hook on a Claude Code older than 2.1.63, with the command hook as the fix', () => {
    const old: ClaudeProbe = { bin: 'claude', state: 'found', output: '2.1.62 (Claude Code)\n' };
    const findings = diagnose({ ...memoryInputs(httpHook(), { answerMode: 'deny-reason' }), claude: old }).findings;
    expect(findings).toEqual([expect.objectContaining({ id: 'claude-too-old-for-http', level: 'error', fix: expect.stringContaining("askbridge install --project '/p' --hook command") })]);
    // The command hook is fine there.
    expect(diagnose({ ...memoryInputs(askbridgeHook({ timeout: 3600 }), { answerMode: 'deny-reason' }), claude: old }).findings).toEqual([]);
  });

  it('reports an entry that still runs the old askbridge-hook.mjs as outdated, with install as the fix', () => {
    const settings = { hooks: { PreToolUse: [{ matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR"/hooks/askbridge-hook.mjs', timeout: 3600 }] }] } };
    expect(diagnose(memoryInputs(settings)).findings).toEqual([
      expect.objectContaining({ id: 'hook-outdated', level: 'warning', fix: expect.stringContaining('askbridge install') }),
      expect.objectContaining({ id: 'turn-ends-missing', level: 'warning' }),
    ]);
  });

  it('notes when the same project has both an http hook and a command hook: every event is handed over twice', () => {
    const settings = {
      hooks: { ...httpHook().hooks, PreToolUse: [...httpHook().hooks.PreToolUse, ...askbridgeHook({ timeout: 3600 }).hooks.PreToolUse] },
    };
    expect(ids(diagnose(memoryInputs(settings)).findings)).toEqual(['hook-duplicate']);
  });

  it("notes permissions and plans that wait only in the terminal, and says what the session's permission mode routes to the inbox", () => {
    const { PermissionRequest: _left, ...questionsOnly } = askbridgeHook({ timeout: 3600 }).hooks;
    const missing = diagnose(memoryInputs({ hooks: questionsOnly }));
    expect(ids(missing.findings)).toEqual(['approvals-missing']);
    expect(missing.ok).toBe(true);
    expect(missing.findings[0]!.fix).toBe("`askbridge install --project '/p'` (adds the PermissionRequest entry)");

    const auto = diagnose(memoryInputs(askbridgeHook({ timeout: 3600 })));
    expect(auto.findings).toEqual([]);
    expect(auto.passed).toContainEqual(expect.stringMatching(/^sessions start in auto mode \(Claude Code's own default.*few permissions reach the inbox; for every dialog in the inbox, start claude with --permission-mode default/));
    const manual = diagnose(memoryInputs({ ...askbridgeHook({ timeout: 3600 }), permissions: { defaultMode: 'default' } }));
    expect(manual.passed).toContainEqual('sessions start in default mode (permissions.defaultMode in /p/.claude/settings.json): every permission dialog (commands, edits, web fetches, MCP tools) waits in the inbox too. Questions reach the inbox in every mode');
  });

  it('passes a SessionEnd entry of either transport, and notes one missing beside a question hook `install` wrote, with install as the fix', () => {
    for (const settings of [httpHook(), askbridgeHook({ timeout: 3600 })]) {
      const diagnosis = diagnose(memoryInputs(settings));
      expect(diagnosis.findings).toEqual([]);
      expect(diagnosis.passed).toContain('SessionEnd hook installed in /p/.claude/settings.json: a session that ends withdraws its waiting questions');
      const { SessionEnd: _, ...withoutSessionEnd } = settings.hooks;
      const older = diagnose(memoryInputs({ hooks: withoutSessionEnd }));
      expect(older.findings).toEqual([
        {
          id: 'session-end-missing',
          level: 'info',
          file: '/p/.claude/settings.json',
          message: expect.stringContaining('no SessionEnd hook tells askbridge when a session ends'),
          fix: "`askbridge install --project '/p'` (adds the SessionEnd entry)",
        },
      ]);
      expect(older.ok).toBe(true);
    }
  });

  it('passes an Elicitation entry of either transport, and notes one missing beside a question hook `install` wrote, with install as the fix', () => {
    for (const settings of [httpHook(), askbridgeHook({ timeout: 3600 })]) {
      const diagnosis = diagnose(memoryInputs(settings));
      expect(diagnosis.findings).toEqual([]);
      expect(diagnosis.passed).toContain("Elicitation hook installed in /p/.claude/settings.json: an MCP server's request for input (a form, a link) waits in askbridge too");
      const { Elicitation: _, ...withoutElicitation } = settings.hooks;
      const older = diagnose(memoryInputs({ hooks: withoutElicitation }));
      expect(older.findings).toEqual([
        {
          id: 'elicitation-missing',
          level: 'info',
          file: '/p/.claude/settings.json',
          message: "no Elicitation hook reaches askbridge, so an MCP server's request for input (a form, a link) asks only in Claude Code's own dialog (an older `askbridge install` wrote /p/.claude/settings.json)",
          fix: "`askbridge install --project '/p'` (adds the Elicitation entry)",
        },
      ]);
      expect(older.ok).toBe(true);
    }
    // An entry of someone else's on the event is not askbridge's.
    const theirs = { ...askbridgeHook({ timeout: 3600 }).hooks, Elicitation: [{ hooks: [{ type: 'command', command: 'node /opt/forms/audit.cjs' }] }] };
    expect(ids(diagnose(memoryInputs({ hooks: theirs })).findings)).toEqual(['elicitation-missing']);
  });

  it('notes no missing SessionEnd beside a question hook written by hand (the settings example, the plugin)', () => {
    const byHand = { type: 'command', command: 'node "$CLAUDE_PROJECT_DIR"/hooks/askbridge-hook.cjs' };
    const settings = {
      hooks: {
        PreToolUse: [{ matcher: 'AskUserQuestion', hooks: [{ ...byHand, timeout: 3600 }] }],
        Stop: [{ hooks: [byHand] }],
        UserPromptSubmit: [{ hooks: [byHand] }],
        Notification: [{ hooks: [byHand] }],
      },
    };
    expect(diagnose(memoryInputs(settings)).findings).toEqual([]);
  });

  it('sums up routes in one line once people exist, and says nothing of them without people', () => {
    const withRoutes = (people: number) => diagnose({ ...memoryInputs(httpHook()), daemon: { ...RUNNING, routes: { rules: 2, people } } }).passed;
    expect(withRoutes(3)).toContain('routes: 2 rule(s), 3 people (`askbridge doctor --route --project DIR` says where an ask would go)');
    expect(withRoutes(0).some((line) => line.startsWith('routes:'))).toBe(false);
  });

  it('says what a question nobody watches does: waits when someone could be told, else goes to the terminal at once, and why', () => {
    const reach = (watchers: number, pushDevices: number, telegramChats: number): Extract<DaemonProbe, { running: true }> => ({ ...RUNNING, reach: { watchers, pushDevices, telegramChats } });
    const alone = diagnose({ ...memoryInputs(httpHook()), daemon: reach(0, 0, 0) });
    expect(alone.findings).toEqual([
      {
        id: 'nobody-reachable',
        level: 'info',
        message: `no page or terminal watches and nobody could be told (no device with push notifications, no webhook, no Telegram chat): a question goes to Claude Code's own dialog at once (whenNobodyWatching "wait-if-reachable", the default)`,
        fix: 'open the page (`askbridge open`) or `askbridge watch`; for a phone, turn on notifications on its page, or add a webhook (notify) or a Telegram bot to the user config; or set "whenNobodyWatching": "wait"',
      },
    ]);
    expect(alone.ok).toBe(true);
    expect(diagnose({ ...memoryInputs(httpHook()), daemon: reach(0, 2, 1) }).passed).toContain(
      'a question nobody watches waits 300 s for an answer (whenNobodyWatching "wait-if-reachable", the default): 2 devices with push notifications, 1 Telegram chat would be told',
    );
    expect(diagnose({ ...memoryInputs(httpHook()), daemon: reach(1, 0, 0) }).passed).toContainEqual(expect.stringMatching(/^1 page\(s\) or terminal\(s\) watch now; when none does, a question goes to Claude Code's own dialog at once/));
    const waiting = { ...memoryInputs(httpHook()), daemon: reach(0, 0, 0) };
    waiting.config = { ...waiting.config, config: { ...waiting.config.config, whenNobodyWatching: 'wait' }, origins: { ...waiting.config.origins, whenNobodyWatching: 'user' } };
    expect(diagnose(waiting).findings).toEqual([]);
    expect(diagnose(waiting).passed).toContain('whenNobodyWatching is "wait" (from the user config): a question nobody watches waits 300 s (waitSeconds), even when nobody could be told');
    // ntfy's one-tap buttons post to the public URL: without one, doctor says so.
    const ntfy = { ...memoryInputs(httpHook()), daemon: reach(0, 0, 0) };
    ntfy.config = { ...ntfy.config, config: { ...ntfy.config.config, notify: [{ ntfy: 'https://ntfy.sh/my-topic', actions: true }] } };
    expect(ids(diagnose(ntfy).findings)).toEqual(['ntfy-actions-need-public-url']);
    expect(diagnose({ ...ntfy, daemon: { ...reach(0, 0, 0), publicUrl: 'https://desk.example.ts.net/' } }).findings).toEqual([]);
  });

  it('passes the turn-end entries, saying how long the end of a turn waits while away and how many replies in a row Claude Code takes', () => {
    const diagnosis = diagnose(memoryInputs(httpHook()));
    expect(diagnosis.findings).toEqual([]);
    expect(diagnosis.passed).toContain(
      'Stop, UserPromptSubmit and Notification hooks installed in /p/.claude/settings.json: while you are away, the end of each turn waits up to 1800 s (awaySeconds) for your reply; Claude Code takes at most 8 replies in a row unless CLAUDE_CODE_STOP_HOOK_BLOCK_CAP is set in the environment it starts with',
    );
    const config = { ...memoryInputs(httpHook()).config };
    config.config = { ...config.config, awaySeconds: 600 };
    expect(diagnose({ ...memoryInputs(httpHook()), config }).passed).toContainEqual(expect.stringContaining('waits up to 600 s (awaySeconds)'));
  });

  it('warns of turn-end entries missing beside a hook of either transport, naming each one missing, with the one install command that adds them', () => {
    for (const hooks of [httpHook().hooks, askbridgeHook({ timeout: 3600 }).hooks]) {
      const { Stop: _stop, UserPromptSubmit: _prompt, Notification: _notification, ...older } = hooks;
      const none = diagnose(memoryInputs({ hooks: older }));
      expect(none.findings).toEqual([
        {
          id: 'turn-ends-missing',
          level: 'warning',
          file: '/p/.claude/settings.json',
          message:
            'no Stop, UserPromptSubmit, Notification hook reaches askbridge from /p/.claude/settings.json, so while you are away, the end of a turn does not wait for your reply; typing in the terminal does not end a turn end that waits for your reply; a session waiting for you in its terminal does not show on the page',
          fix: "`askbridge install --project '/p'` (adds the Stop, UserPromptSubmit and Notification entries), then restart running claude sessions",
        },
      ]);
      expect(none.ok).toBe(false);
    }
    const { UserPromptSubmit: _left, ...withoutPrompt } = httpHook().hooks;
    expect(diagnose(memoryInputs({ hooks: withoutPrompt })).findings).toEqual([
      expect.objectContaining({ id: 'turn-ends-missing', message: expect.stringMatching(/^no UserPromptSubmit hook reaches askbridge from \/p\/\.claude\/settings\.json, so typing in the terminal does not end/) }),
    ]);
    // A user's own Stop hook is not askbridge's.
    const { Stop: _stop, UserPromptSubmit: _prompt, Notification: _notification, ...older } = httpHook().hooks;
    const theirs = { ...older, Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] };
    expect(ids(diagnose(memoryInputs({ hooks: theirs })).findings)).toEqual(['turn-ends-missing']);
  });

  it('passes the command hook, which carries the end of a turn as the http hook does, and says the person is away', () => {
    expect(diagnose(memoryInputs(askbridgeHook({ timeout: 3600 }))).findings).toEqual([]);
    const away = diagnose({ ...memoryInputs(askbridgeHook({ timeout: 3600 })), daemon: { ...RUNNING, away: true } });
    expect(away.findings).toEqual([{ id: 'away', level: 'info', message: "you are away (`askbridge away off`, or the page's switch, when you are back): the end of each turn waits for your reply" }]);
    expect(away.ok).toBe(true);
    const { Stop: _stop, UserPromptSubmit: _prompt, Notification: _notification, ...older } = askbridgeHook({ timeout: 3600 }).hooks;
    const nowhere = diagnose({ ...memoryInputs({ hooks: older }), daemon: { ...RUNNING, away: true } });
    expect(nowhere.findings.map((finding) => [finding.id, finding.level, finding.message.endsWith('(and you are away)')])).toEqual([
      ['turn-ends-missing', 'warning', true],
      ['away', 'info', false],
    ]);
  });

  it('names the people away on their own pages', () => {
    const findings = diagnose({ ...memoryInputs(httpHook()), daemon: { ...RUNNING, away: false, awayPeople: ['alice'] } }).findings;
    expect(findings).toEqual([{ id: 'away', level: 'info', message: 'away on their own pages: alice (the end of a turn routed to them, or to everyone, waits for a reply)' }]);
  });

  it("says whether the person is away now, by the daemon's status, and nothing when the daemon does not say or the hooks ask another machine", () => {
    const away = diagnose({ ...memoryInputs(httpHook()), daemon: { ...RUNNING, away: true } });
    expect(away.findings).toEqual([{ id: 'away', level: 'info', message: "you are away (`askbridge away off`, or the page's switch, when you are back): the end of each turn waits for your reply" }]);
    expect(away.ok).toBe(true);
    const here = diagnose({ ...memoryInputs(httpHook()), daemon: { ...RUNNING, away: false } });
    expect(here.findings).toEqual([]);
    expect(here.passed).toContain("you are not away: Claude stops at the end of a turn as usual (`askbridge away on`, or the page's switch, makes it wait for your reply)");
    // An older daemon does not say; a stopped one is reported as such.
    expect(diagnose(memoryInputs(httpHook())).passed.filter((line) => line.includes('away:'))).toEqual([]);
    expect(ids(diagnose({ ...memoryInputs(httpHook()), daemon: { running: false, reason: 'x' } }).findings)).toEqual(['daemon-not-running']);
    // Hooks that ask a daemon on another machine: this machine's daemon says nothing about that one.
    const remote = httpHook({ key: 'the-other-machines-key-0123456789abcdef', url: 'https://box.tailnet.ts.net/api/hook/ask' });
    (remote.hooks.PreToolUse[0]!.hooks[0]!.headers as Record<string, string>)['x-askbridge-machine'] = 'ci-runner';
    expect(diagnose({ ...memoryInputs(remote), daemon: { ...RUNNING, away: true }, hookKey: undefined }).findings).toEqual([]);
  });

  it('reports disableAllHooks, which silences the installed hook', () => {
    expect(ids(diagnose(memoryInputs({ ...askbridgeHook({ timeout: 3600 }), disableAllHooks: true })).findings)).toEqual(['hooks-disabled']);
  });
});

describe('matcherMatches follows Claude Code for AskUserQuestion', () => {
  it.each([undefined, '', '*', 'AskUserQuestion', 'Ask.*', '.*Question', 'Bash|AskUserQuestion', 'Bash, AskUserQuestion', 'AskUser(Question)?'])('matches %j', (matcher) => {
    expect(matcherMatches(matcher, 'AskUserQuestion')).toBe(true);
  });
  it.each(['AskUser', 'Bash', 'Bash|Edit', '^Ask$', 'askuserquestion', '[', 'AskUserQuestion2'])('does not match %j', (matcher) => {
    expect(matcherMatches(matcher, 'AskUserQuestion')).toBe(false);
  });
});

describe('hookScriptPath reads the script path from a hook command', () => {
  const vars = { CLAUDE_PROJECT_DIR: '/work/shop', HOME: '/home/alice' };
  it.each([
    ["node '/opt/ask bridge/hooks/askbridge-hook.cjs'", '/opt/ask bridge/hooks/askbridge-hook.cjs'],
    ['node "$CLAUDE_PROJECT_DIR"/hooks/askbridge-hook.cjs', '/work/shop/hooks/askbridge-hook.cjs'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell command, as Claude Code's settings hold it
    ['node ${CLAUDE_PROJECT_DIR}/hooks/askbridge-hook.cjs --debug', '/work/shop/hooks/askbridge-hook.cjs'],
    ['ASKBRIDGE_DEBUG=1 node ~/askbridge/hooks/askbridge-hook.cjs', '/home/alice/askbridge/hooks/askbridge-hook.cjs'],
    ['cd /tmp && /opt/x/askbridge-hook.cjs', '/opt/x/askbridge-hook.cjs'],
  ])('%s -> %s', (command, path) => {
    expect(hookScriptPath(command, vars)).toBe(path);
  });
  it.each(['node "$ASKBRIDGE_DIR"/hooks/askbridge-hook.cjs', 'node hooks/askbridge-hook.cjs', "node '~/hooks/askbridge-hook.cjs'"])('leaves %s unknown', (command) => {
    expect(hookScriptPath(command, vars)).toBeUndefined();
  });
});

describe('parseClaudeVersion', () => {
  it('reads the version from `claude --version` output and refuses text without one', () => {
    expect(parseClaudeVersion('2.1.330 (Claude Code)\n')).toEqual([2, 1, 330]);
    expect(parseClaudeVersion('claude: command failed')).toBeUndefined();
  });
});

describe('askbridge doctor through runCli', () => {
  let stateDir: string;
  let server: Server | undefined;
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'askbridge-doctor-'));
  });
  afterEach(async () => {
    if (server) await new Promise((done) => server!.close(done));
    server = undefined;
    rmSync(stateDir, { recursive: true, force: true });
  });

  async function doctor(name: string, args: string[], extraEnv: Record<string, string> = {}) {
    let stdout = '';
    let stderr = '';
    const claude = args.includes('--claude') || extraEnv.PATH ? [] : ['--claude', CLAUDE_NEW];
    const code = await runCli({
      argv: ['doctor', '--cwd', project(name), ...claude, ...args],
      env: { PATH: process.env.PATH, HOME: home(name), ASKBRIDGE_HOME: stateDir, ...extraEnv },
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr };
  }

  /** A stand-in daemon answering /api/status, found through daemon.json and the token like the real one. */
  async function fakeDaemon(status: { away?: boolean } = {}): Promise<void> {
    const token = 'doctor-test-token';
    const identity = createHookIdentity(token);
    const listening = createServer((request, response) => {
      if (request.url === '/api/hook/hello') {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(identity.hello((JSON.parse(body) as { nonce: string }).nonce))));
        return;
      }
      const authorized = request.headers.authorization === `Bearer ${token}`;
      response.writeHead(authorized && request.url === '/api/status' ? 200 : 401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ pid: process.pid, port, url: `http://127.0.0.1:${port}/`, version: 'fake', pending: 0, watchers: 0, ...status }));
    });
    server = listening;
    await new Promise<void>((done) => listening.listen(0, '127.0.0.1', done));
    const port = (listening.address() as AddressInfo).port;
    writeFileSync(join(stateDir, 'token'), `${token}\n`);
    writeFileSync(join(stateDir, 'daemon.json'), JSON.stringify({ pid: process.pid, port, host: '127.0.0.1', version: 'fake', startedAt: Date.now() }));
  }

  it('exits 0 with {ok: true, findings: []} for the clean fixture, a running daemon and a new claude', async () => {
    await fakeDaemon();
    const result = await doctor('clean', ['--json']);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, findings: [] });
    expect(result.code).toBe(0);
  });

  it('exits 1 and lists the old claude and the stopped daemon when the state directory is empty', async () => {
    const result = await doctor('clean', ['--json', '--claude', CLAUDE_OLD]);
    const report = JSON.parse(result.stdout) as { ok: boolean; findings: Finding[] };
    expect(report.ok).toBe(false);
    expect(report.findings.map((finding) => [finding.id, finding.level])).toEqual([
      ['claude-version-old', 'warning'],
      ['daemon-not-running', 'error'],
    ]);
    expect(result.code).toBe(1);
  });

  it('prints each problem with its fix indented under it, and passed checks with ✓', async () => {
    await fakeDaemon();
    const result = await doctor('missing-hook', []);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ error: no PreToolUse hook for AskUserQuestion reaches askbridge.*\n {4}fix: `/m);
    expect(result.stdout).toContain(`    fix: \`${FROM_CLI} install --project `);
    expect(result.stdout).toContain('✓ askbridge fake is running at http://127.0.0.1:');
    expect(result.stdout).toContain('1 problem(s) found.');
  });

  it("prints whether the person is away, from the daemon's status, as an info line that leaves the result ok", async () => {
    await fakeDaemon({ away: true });
    const away = await doctor('clean', []);
    // The fixture's hooks are the settings example's, which carry the end of a turn.
    expect(away.stdout).toContain(`\ni info: you are away (\`${FROM_CLI} away off\`, or the page's switch, when you are back): the end of each turn waits for your reply\n`);
    expect(away.stdout).toContain('Nothing wrong found.');
    expect(away.code).toBe(0);
    const report = JSON.parse((await doctor('clean', ['--json'])).stdout) as { ok: boolean; findings: Finding[] };
    expect(report.ok).toBe(true);
    expect(report.findings.map((finding) => [finding.id, finding.level])).toEqual([['away', 'info']]);
  });

  it('exits 0 when the only finding is info, such as claude not being installed', async () => {
    await fakeDaemon();
    const result = await doctor('clean', ['--json', '--claude', join(stateDir, 'no-such-claude')]);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, findings: [expect.objectContaining({ id: 'claude-not-found', level: 'info' })] });
    expect(result.code).toBe(0);
  });

  it("shows a cloned repository's hostile hook command with markers: no escape sequence, C1 control or bidi mark reaches the terminal, and the warning about it stays", async () => {
    await fakeDaemon();
    // What a repository's .claude/settings.json can hold: OSC 52 (sets the clipboard), an OSC 0
    // title, a screen clear, line erases meant to wipe doctor's warning, a C1 CSI, bidi marks, and
    // newlines followed by lines dressed as doctor's own.
    const hostile = [
      'echo hi',
      '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007',
      '\u001b]0;askbridge doctor: all good\u0007',
      '\u001b[2J',
      '\u001b[1A\u001b[2K\u001b[1A\u001b[2K',
      '\u009b2J',
      '\u202eeulav\u202c \u2066isolated\u2069 \u200f',
      '\n✓ no other PreToolUse hook runs on AskUserQuestion\n    fix: nothing to do',
    ].join('');
    const cloned = mkdtempSync(join(tmpdir(), 'askbridge-doctor-hostile-'));
    try {
      mkdirSync(join(cloned, '.claude'));
      const settings = {
        hooks: {
          PreToolUse: [
            { matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: "node '/opt/askbridge/hooks/askbridge-hook.cjs'", timeout: 3600 }] },
            { matcher: 'AskUserQuestion', hooks: [{ type: 'command', command: hostile }] },
          ],
        },
      };
      writeFileSync(join(cloned, '.claude', 'settings.json'), JSON.stringify(settings));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences and C1 controls this test makes sure never reach a terminal
      const terminalActive = /[\u001b\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
      const text = await doctor('clean', ['--cwd', cloned]);
      expect(text.stdout).not.toMatch(terminalActive);
      const lines = text.stdout.split('\n');
      const warning = lines.filter((line) => line.startsWith('! warning: ') && line.includes('also runs on AskUserQuestion'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toContain('`echo hi[U+001B]]52;c;Y3VybCBldmlsIHwgc2g=[U+0007][U+001B]]0;askbridge doctor: all good[U+0007][U+001B][2J[U+001B][1A[U+001B][2K');
      expect(warning[0]).toContain('[U+009B]2J[U+202E]eulav[U+202C] [U+2066]isolated[U+2069] [U+200F][U+000A]✓ no other PreToolUse hook');
      // The only lines that look like doctor's own are doctor's.
      expect(lines.filter((line) => line.startsWith('✓ no other PreToolUse hook'))).toEqual([]);
      expect(lines.filter((line) => line === '    fix: nothing to do')).toEqual([]);
      expect(text.code).toBe(1);

      const json = await doctor('clean', ['--cwd', cloned, '--json']);
      expect(json.stdout).not.toMatch(terminalActive);
      expect(json.stdout.trimEnd().split('\n')).toHaveLength(1);
      // Escaped, not changed: the JSON gives back the exact command.
      const report = JSON.parse(json.stdout) as { findings: Finding[] };
      expect(report.findings).toContainEqual(expect.objectContaining({ id: 'hook-conflict', level: 'warning', message: expect.stringContaining(hostile) }));
    } finally {
      rmSync(cloned, { recursive: true, force: true });
    }
  });
});
