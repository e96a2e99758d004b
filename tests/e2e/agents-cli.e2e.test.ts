// `askbridge history` names the agent of a question another agent than Claude Code asked ("asked by
// Codex"), as safely as the rest of the line: an agent's name read back from the file is marked like
// any other text there. Claude Code's lines, and those from before agents were named, read as before.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv } from '../stack/env.js';
import { line } from '../stack/history-lines.js';
import { runCli } from '../stack/processes.js';

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

describe('askbridge history and the agent that asked', () => {
  it("says which agent asked when it was not Claude Code, and shows a name it does not know as written, marked", async () => {
    const home = await mkdtemp(join(tmpdir(), 'askbridge-history-agents-'));
    homes.push(home);
    const lines = [
      line(1, { project: '/work/legacy' }),
      line(2, { project: '/work/shop', agent: 'claude-code' }),
      line(3, { project: '/work/shop', agent: 'codex' }),
      line(4, { project: '/work/notes', agent: 'opencode' }),
      // A newer askbridge may name an agent this one does not know; the file may also have been tampered with.
      line(5, { project: '/work/odd', agent: 'gemini\u001b[2J-cli' }),
    ];
    await writeFile(join(home, 'history.jsonl'), lines.map((each) => `${JSON.stringify(each)}\n`).join(''), { mode: 0o600 });
    const result = await runCli(['history'], baseEnv({ ASKBRIDGE_HOME: home }));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const heads = result.stdout.split('\n').filter((text) => /^\d{4}-/.test(text));
    expect(heads).toEqual([
      `${lines[4]!.finishedAt}  person (page)  /work/odd  asked by gemini[U+001B][2J-cli`,
      `${lines[3]!.finishedAt}  person (page)  /work/notes  asked by opencode`,
      `${lines[2]!.finishedAt}  person (page)  /work/shop  asked by Codex`,
      `${lines[1]!.finishedAt}  person (page)  /work/shop`,
      `${lines[0]!.finishedAt}  person (page)  /work/legacy`,
    ]);
  });
});
