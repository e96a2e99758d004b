// A mistyped command or config key gets the name that was meant, not a page of usage.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { closestName } from '../../src/closest-name.js';
import { parseConfigFile } from '../../src/config.js';

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli({ argv, env: { PATH: '/nonexistent' }, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}

describe('the name that was meant', () => {
  it('is the nearest one a slip away: a letter missing, added, changed, or two swapped', () => {
    const names = ['install', 'uninstall', 'status', 'stop', 'start'];
    expect(closestName('instal', names)).toBe('install');
    expect(closestName('isntall', names)).toBe('install');
    expect(closestName('statsu', names)).toBe('status');
    expect(closestName('Stop', names)).toBe('stop');
    expect(closestName('deploy', names)).toBeUndefined();
    expect(closestName('x', names)).toBeUndefined();
  });

  it('`askbridge instal` says "did you mean install?" in one line, not the whole usage', async () => {
    const result = await run(['instal']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^askbridge: unknown command "instal": did you mean install\?/);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a config key a slip away from a real one is named with it (waitSecond: waitSeconds)', () => {
    expect(() => parseConfigFile('/c.json', JSON.stringify({ waitSecond: 5 }))).toThrow(/Unrecognized key: "waitSecond": did you mean waitSeconds\?/);
    expect(() => parseConfigFile('/c.json', JSON.stringify({ push: { fulltext: true } }))).toThrow(/push: Unrecognized key: "fulltext": did you mean fullText\?/);
    expect(() => parseConfigFile('/c.json', JSON.stringify({ colour: 'red' }))).toThrow(/Unrecognized key: "colour"$/);
  });
});
