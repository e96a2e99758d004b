// A config file that is not JSON is reported with the line and column where it goes wrong, as an
// editor counts them, never as a character offset: in `askbridge config`, `askbridge doctor`,
// `askbridge trust`, and (through the same message) the daemon's log and the page's banner.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigReader, parseConfigFile, userConfigPath } from '../../src/config.js';

let root: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'askbridge-config-errors-'));
  env = { XDG_CONFIG_HOME: join(root, 'config'), HOME: root, ASKBRIDGE_HOME: join(root, 'state'), ASKBRIDGE_PORT: '1' };
  mkdirSync(join(root, 'config', 'askbridge'), { recursive: true });
  mkdirSync(join(root, 'project', '.claude'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A missing comma after line 2's value: line 3, column 3 is where a `,` or `}` was expected. */
const MISSING_COMMA = '{\n  "waitSeconds": 60\n  "onTimeout": "decline"\n}\n';

/** The message parseConfigFile throws for `text`. */
function errorOf(text: string): string {
  try {
    parseConfigFile('config.json', text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { runCli } = await import('../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await runCli({ argv, env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}

describe('a config file that is not JSON', () => {
  it('is reported at its line and column, with V8 reason and no offset', () => {
    expect(errorOf(MISSING_COMMA)).toBe("config.json: not valid JSON at line 3, column 3: Expected ',' or '}' after property value");
    expect(errorOf('{ "rules": [\n  { "header": "x", },\n] }')).toBe('config.json: not valid JSON at line 2, column 20: Expected double-quoted property name');
    expect(errorOf('{\r\n\t"waitSeconds": 01\r\n}')).toBe('config.json: not valid JSON at line 2, column 18: Unexpected number');
  });

  it('is reported at its line and column when V8 names no place: a bad token, with none of the file quoted, and an early end', () => {
    expect(errorOf('{\n  "waitSeconds": soon\n}')).toBe("config.json: not valid JSON at line 2, column 18: Unexpected token 's'");
    expect(errorOf('{\n  "answerMode": "updatedInput",\n  "whenNobodyWatching": nul\n}')).toBe("config.json: not valid JSON at line 3, column 28: Unexpected token '\\n'");
    // A long file: V8 quotes the text around the token, shortened; the message keeps none of it.
    const long = `{\n${'  "notify": [],\n'.repeat(40)}  "waitSeconds": ?\n}`;
    expect(errorOf(long)).toBe("config.json: not valid JSON at line 42, column 18: Unexpected token '?'");
    expect(errorOf('{\n  "onTimeout": ')).toBe('config.json: not valid JSON at line 2, column 16: Unexpected end of JSON input');
    expect(errorOf('')).toBe('config.json: not valid JSON at line 1, column 1: Unexpected end of JSON input');
  });

  it('counts columns in characters, as an editor does, not in UTF-16 units', () => {
    expect(errorOf('{ "rules": [{ "header": "🚀 déploiement" "choose": "A" }] }')).toBe("config.json: not valid JSON at line 1, column 41: Expected ',' or '}' after property value");
  });

  it('is reported by `askbridge config` and `askbridge doctor` at its line and column', async () => {
    writeFileSync(userConfigPath(env), MISSING_COMMA);
    const expected = `${userConfigPath(env)}: not valid JSON at line 3, column 3: Expected ',' or '}' after property value`;
    expect(createConfigReader(env).effective(root).errors).toEqual([{ path: userConfigPath(env), message: expected }]);

    const config = await cli(['config', '--cwd', root]);
    expect(config.code).toBe(1);
    expect(config.stderr).toContain(`error: ${expected}\n`);

    const doctor = await cli(['doctor', '--json', '--cwd', root, '--claude', join(root, 'no-claude')]);
    const findings = (JSON.parse(doctor.stdout) as { findings: Array<{ id: string; message: string }> }).findings;
    expect(findings.find((finding) => finding.id === 'askbridge-config-invalid')?.message).toBe(`askbridge's config ${expected}; its last good version, or the defaults, are in use`);
  });

  it("is reported by `askbridge trust` for a project's .claude/askbridge.json at its line and column", async () => {
    const file = join(root, 'project', '.claude', 'askbridge.json');
    writeFileSync(file, MISSING_COMMA);
    const trust = await cli(['trust', join(root, 'project')]);
    expect(trust.code).toBe(1);
    expect(trust.stderr).toBe(`askbridge trust: ${file}: not valid JSON at line 3, column 3: Expected ',' or '}' after property value: fix it before trusting it; nothing was trusted\n`);
  });
});
