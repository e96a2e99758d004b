// Codex's hooks.json and the trust in its config.toml, as install --codex edits them: the trust hash
// Codex itself computes (the vectors are what Codex 0.169.0's own `hooks/list` reported for these
// entries), askbridge's entry added, kept in place and taken out without moving the person's own,
// and config.toml changed by exactly the trust's table, or not at all when it holds the trust in a
// form askbridge does not edit.
import { describe, expect, it } from 'vitest';
import {
  checkCodex,
  codexHandler,
  codexHookCommand,
  codexTrustHash,
  codexTrustKey,
  findCodexHooks,
  hookStateAfterRemoval,
  isCodexHook,
  tomlString,
  trustedHashIn,
  withCodexHook,
  withoutCodexHook,
  withTrust,
} from '../../src/cli/codex-hooks.js';
import { isTomlBasicString } from '../stack/toml.js';

const HASH = `sha256:${'a'.repeat(64)}`;
const HOOKS = '/home/alice/.codex/hooks.json';
const KEY = `${HOOKS}:permission_request:0:0`;
/** A hooks.json holding askbridge's entry alone, at KEY's place. */
const ONLY_ASKBRIDGE = withCodexHook({}, codexHandler('Waiting'));
/** The text once askbridge's entries are taken out of `hooks`, at HOOKS. */
function afterRemoval(text: string, hooks: Record<string, unknown> = ONLY_ASKBRIDGE): string {
  const state = hookStateAfterRemoval(text, HOOKS, hooks);
  if (state === 'unsupported') throw new Error('unsupported');
  return state.text;
}

describe("Codex's trust hash", () => {
  it('is the hash Codex 0.169.0 computes for an entry with a timeout and a status message', () => {
    const hook = { type: 'command', command: "node '/x/askbridge-hook.cjs' --agent codex", timeout: 86400, statusMessage: 'Waiting for an answer in askbridge' };
    expect(codexTrustHash({ matcher: undefined, hook })).toBe('sha256:1d8b1b82977edd6e4cbf9042f3d4cfd8a2ff20ef571492e4dfe114321b7eb52e');
  });

  it("is the hash Codex computes for the person's own entry with a matcher and Codex's default timeout", () => {
    expect(codexTrustHash({ matcher: 'Bash', hook: { type: 'command', command: 'echo mine' } })).toBe('sha256:303a5b279aeeef6c1b5f73cb14ab09cf8443547ea54566e199177895ea89e233');
  });

  it('changes with anything Codex hashes: a review is asked again after any edit', () => {
    const hook = codexHandler('Waiting');
    expect(codexTrustHash({ matcher: undefined, hook: { ...hook, statusMessage: 'Waiting!' } })).not.toBe(codexTrustHash({ matcher: undefined, hook }));
    expect(codexTrustHash({ matcher: 'Bash', hook })).not.toBe(codexTrustHash({ matcher: undefined, hook }));
  });
});

describe("askbridge's entry in a hooks.json", () => {
  const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
  const stop = [{ hooks: [{ type: 'command', command: 'echo stop' }] }];

  it('is added as a group of its own after the person’s, whose places (and trust keys) stay', () => {
    const after = withCodexHook({ hooks: { PermissionRequest: [mine], Stop: stop } }, codexHandler('Waiting'));
    expect(after).toEqual({ hooks: { PermissionRequest: [mine, { hooks: [codexHandler('Waiting')] }], Stop: stop } });
    expect(findCodexHooks(after).map(({ group, handler }) => codexTrustKey('/p/hooks.json', { group, handler }))).toEqual(['/p/hooks.json:permission_request:1:0']);
  });

  it('is updated where it stands, once, and taken out again leaving the file as it was', () => {
    const once = withCodexHook({ hooks: { PermissionRequest: [mine] } }, codexHandler('old'));
    const twice = withCodexHook(once, codexHandler('new'));
    expect(findCodexHooks(twice)).toHaveLength(1);
    expect(findCodexHooks(twice)[0]?.hook.statusMessage).toBe('new');
    expect(withoutCodexHook(twice)).toEqual({ hooks: { PermissionRequest: [mine] } });
    expect(withoutCodexHook(withCodexHook({}, codexHandler('x')))).toEqual({});
  });

  it('is only an entry running the hook file by absolute path for Codex, never a command of the person’s', () => {
    expect(isCodexHook({ type: 'command', command: codexHookCommand("/opt/it's/hooks/askbridge-hook.cjs") })).toBe(true);
    expect(isCodexHook({ type: 'command', command: "node '/opt/hooks/askbridge-hook.cjs'" })).toBe(false);
    expect(isCodexHook({ type: 'command', command: "node '/opt/hooks/askbridge-hook.cjs' --agent codex; rm -rf ~" })).toBe(false);
    expect(isCodexHook({ type: 'command', command: 'node hooks/askbridge-hook.cjs --agent codex' })).toBe(false);
  });
});

describe('the trust in config.toml', () => {
  const config = 'model = "gpt"\n\n[projects."/home/alice/shop"]\ntrust_level = "trusted"\n';

  it('is a table of its own at the end, every other byte kept, and goes again exactly', () => {
    const trusted = withTrust(config, KEY, HASH);
    expect(trusted).toBe(`${config}\n[hooks.state."${KEY}"]\ntrusted_hash = "${HASH}"\n`);
    expect(trustedHashIn(trusted as string, KEY)).toBe(HASH);
    expect(afterRemoval(trusted as string)).toBe(config);
    expect(afterRemoval(withTrust('', KEY, HASH) as string)).toBe('');
    expect(withTrust('model = "gpt"', KEY, HASH)).toBe(`model = "gpt"\n\n[hooks.state."${KEY}"]\ntrusted_hash = "${HASH}"\n`);
  });

  it('replaces the hash in the table Codex wrote, keeping what else it holds; on uninstall the whole table goes, as the place is no longer askbridge’s', () => {
    const written = `${config}\n[hooks.state."${KEY}"]\nenabled = true\ntrusted_hash = "sha256:old"\n\n[tui]\nx = 1\n`;
    const trusted = withTrust(written, KEY, HASH) as string;
    expect(trusted).toBe(written.replace('sha256:old', HASH));
    expect(afterRemoval(trusted)).toBe(`${config}\n[tui]\nx = 1\n`);
  });

  describe("on uninstall, the state of the person's entries after askbridge's moves up with them (Codex keys it by place)", () => {
    const mine = (name: string) => ({ type: 'command', command: `echo ${name}` });
    const askbridge = codexHandler('Waiting');
    const table = (place: string, body: string) => `[hooks.state."${HOOKS}:permission_request:${place}"]\n${body}\n`;

    it('as Codex wrote it: askbridge’s group between two of the person’s, the later one trusted and switched off', () => {
      const hooks = { hooks: { PermissionRequest: [{ hooks: [mine('a')] }, { hooks: [askbridge] }, { matcher: 'Bash', hooks: [mine('b')] }] } };
      const written = `[hooks.state]\n\n${table('0:0', 'trusted_hash = "sha256:a"')}\n${table('1:0', 'trusted_hash = "sha256:ab"')}\n${table('2:0', 'trusted_hash = "sha256:b"\nenabled = false')}`;
      expect(hookStateAfterRemoval(written, HOOKS, hooks)).toEqual({ text: `[hooks.state]\n\n${table('0:0', 'trusted_hash = "sha256:a"')}\n${table('1:0', 'trusted_hash = "sha256:b"\nenabled = false')}`, removed: 1, moved: 1 });
    });

    it('handlers after askbridge’s in the same group, and the groups after, each to its new place', () => {
      const hooks = { hooks: { PermissionRequest: [{ hooks: [askbridge] }, { hooks: [mine('a'), askbridge, mine('b')] }, { hooks: [mine('c')] }] } };
      expect(withoutCodexHook(hooks)).toEqual({ hooks: { PermissionRequest: [{ hooks: [mine('a'), mine('b')] }, { hooks: [mine('c')] }] } });
      const written = `${table('0:0', 'trusted_hash = "sha256:ab"')}\n${table('1:0', 'trusted_hash = "sha256:a"')}\n${table('1:1', 'trusted_hash = "sha256:ab"')}\n${table('1:2', 'trusted_hash = "sha256:b"')}\n${table('2:0', 'trusted_hash = "sha256:c"')}`;
      expect(hookStateAfterRemoval(written, HOOKS, hooks)).toEqual({ text: `${table('0:0', 'trusted_hash = "sha256:a"')}\n${table('0:1', 'trusted_hash = "sha256:b"')}\n${table('1:0', 'trusted_hash = "sha256:c"')}`, removed: 2, moved: 3 });
    });

    it('an entry never trusted stays so: what was kept for the place it moves to (stale, or askbridge’s) goes', () => {
      const hooks = { hooks: { PermissionRequest: [{ hooks: [askbridge] }, { hooks: [mine('a'), mine('b')] }] } };
      const written = `model = "gpt"\n\n${table('0:1', 'enabled = false')}\n${table('1:0', 'trusted_hash = "sha256:a"')}`;
      expect(hookStateAfterRemoval(written, HOOKS, hooks)).toEqual({ text: `model = "gpt"\n\n${table('0:0', 'trusted_hash = "sha256:a"')}`, removed: 0, moved: 1 });
    });

    it('leaves config.toml alone, saying so, when it holds the state in a form this does not edit', () => {
      const hooks = { hooks: { PermissionRequest: [{ hooks: [askbridge] }, { hooks: [mine('a')] }] } };
      expect(hookStateAfterRemoval(`[hooks.state]\n"${HOOKS}:permission_request:1:0" = { trusted_hash = "sha256:a" }\n`, HOOKS, hooks)).toBe('unsupported');
    });
  });

  it.each([
    ['an inline table under [hooks.state]', `[hooks.state]\n"${KEY}" = { trusted_hash = "sha256:x" }\n`],
    ['a literal-string key', `[hooks.state.'${KEY}']\ntrusted_hash = "sha256:x"\n`],
    ['state inside [hooks]', '[hooks]\nstate = {}\n'],
    ['a dotted hooks key at the top', 'hooks.state = {}\n'],
    ['an inline hooks table', 'hooks = { PreToolUse = [] }\n'],
  ])('is not written into a file holding the hooks’ state in another form: %s', (_, text) => {
    expect(withTrust(text, KEY, HASH)).toBe('unsupported');
  });

  it('escapes a key as a TOML basic string', () => {
    const key = '/home/al"ice\\x/hooks.json:permission_request:0:0';
    expect(withTrust('', key, HASH)).toBe(`[hooks.state."/home/al\\"ice\\\\x/hooks.json:permission_request:0:0"]\ntrusted_hash = "${HASH}"\n`);
  });

  it('escapes every control character, DEL included, as TOML requires and as Codex writes a key itself', () => {
    const controls = [...Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)), '\u007f'];
    for (const char of controls) {
      const written = tomlString(`a${char}b`);
      expect(isTomlBasicString(written), JSON.stringify(written)).toBe(true);
      // TOML's escapes are JSON's too (with \U, which is never written): JSON reads the key back.
      expect(JSON.parse(written)).toBe(`a${char}b`);
    }
    // What Codex 0.169.0 itself wrote for such a key (config/value/write).
    expect(tomlString('/p\u0001\b\t\n\u000b\f\r\u001b\u007f"\\q')).toBe('"/p\\u0001\\b\\t\\n\\u000B\\f\\r\\u001B\\u007F\\"\\\\q"');
  });

  it('finds the table an older install wrote with other escapes (lowercase, as JSON has them), and replaces its hash there', () => {
    const key = '/p\u001bq/.codex/hooks.json:permission_request:0:0';
    const older = `${config}\n[hooks.state."/p\\u001bq/.codex/hooks.json:permission_request:0:0"]\ntrusted_hash = "sha256:old"\n`;
    expect(trustedHashIn(older, key)).toBe('sha256:old');
    expect(withTrust(older, key, HASH)).toBe(older.replace('sha256:old', HASH));
    const hooksPath = key.slice(0, -':permission_request:0:0'.length);
    expect(hookStateAfterRemoval(older, hooksPath, ONLY_ASKBRIDGE)).toEqual({ text: config, removed: 1, moved: 0 });
  });
});

describe("doctor's Codex checks", () => {
  const files = [
    { path: '/home/alice/.codex/hooks.json', state: 'ok' as const, file: {} },
    { path: '/home/alice/shop/.codex/hooks.json', state: 'missing' as const },
  ];
  const probe = (entries: Array<{ trusted: boolean; hookExists: boolean }>) => ({
    files,
    configPath: '/home/alice/.codex/config.toml',
    projectDir: '/home/alice/shop',
    entries: entries.map((entry) => ({ path: '/home/alice/.codex/hooks.json', key: KEY, hookPath: '/opt/askbridge/hooks/askbridge-hook.cjs', ...entry })),
  });
  const check = (entries: Array<{ trusted: boolean; hookExists: boolean }>) => {
    const { findings, passed } = checkCodex(probe(entries), 'askbridge');
    return { findings: findings.map(({ id, level, fix }) => ({ id, level, fix })), passed };
  };

  it('says, as information only, how to install when no entry is there', () => {
    expect(check([]).findings).toEqual([{ id: 'codex-hook-missing', level: 'info', fix: 'askbridge install --codex --user' }]);
  });

  it('warns that Codex will not run an entry it does not trust as it is, and says how to record the trust', () => {
    expect(check([{ trusted: false, hookExists: true }]).findings).toEqual([
      { id: 'codex-hook-untrusted', level: 'warning', fix: 'askbridge install --codex --user (it records the trust), or choose "Review hooks" when Codex starts' },
    ]);
  });

  it('fails an entry whose hook file is gone, and passes one installed and trusted', () => {
    expect(check([{ trusted: true, hookExists: false }]).findings).toEqual([{ id: 'codex-hook-path-missing', level: 'error', fix: 'askbridge install --codex --user' }]);
    expect(check([{ trusted: true, hookExists: true }])).toEqual({ findings: [], passed: ["askbridge's hook for Codex is installed in /home/alice/.codex/hooks.json and trusted in /home/alice/.codex/config.toml"] });
  });
});
