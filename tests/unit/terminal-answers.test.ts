// The transcript watch that tells a waiting approval was answered in Claude Code's own dialog,
// against real files that grow as Claude Code writes them: a call answered earlier is not this
// one, a line written in two pieces is read once whole, and a transcript that fails the reader's
// checks is never watched.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpToolPrefix, watchForTerminalAnswer, type TerminalSign } from '../../src/daemon/terminal-answers.js';

type Line = Record<string, unknown>;
const call = (id: string, input: Record<string, unknown>, name = 'Bash'): Line => ({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
const result = (id: string, content = 'ok'): Line => ({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] } });
const jsonl = (lines: Line[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

const NPM_TEST: TerminalSign = { toolName: 'Bash', toolInput: { command: 'npm test', description: 'Run the tests' } };
const quiet = { debug: () => {} };

let root: string;
let projects: string;
let transcript: string;
const stops: Array<() => void> = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'askbridge-terminal-answers-'));
  projects = join(root, 'projects');
  mkdirSync(join(projects, '-home-alice-shop'), { recursive: true });
  transcript = join(projects, '-home-alice-shop', 'session-1.jsonl');
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  rmSync(root, { recursive: true, force: true });
});

/** Starts a watch: how many times it said "answered" so far, on demand, and when it has read the file as it was (what is appended after that is new). */
function watch(path = transcript, asked: TerminalSign = NPM_TEST) {
  let answered = 0;
  let watchingNow: () => void = () => {};
  const watching = new Promise<void>((resolve) => (watchingNow = resolve));
  const stop = watchForTerminalAnswer(path, asked, { projectsDir: projects, uid: process.getuid?.(), pollMs: 20, onWatching: watchingNow }, () => answered++, quiet);
  stops.push(stop);
  return { answered: () => answered, stop, watching };
}

/** Long enough for several looks at the file (every 20 ms here). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('watching a transcript for an approval answered in the terminal', () => {
  it('says so once the call it asks about gets its result, and not for a result of another call', async () => {
    writeFileSync(transcript, jsonl([call('toolu_a', { command: 'npm test', description: 'Run the tests' }), call('toolu_b', { command: 'rm -rf build' })]));
    const watched = watch();
    await watched.watching;
    appendFileSync(transcript, jsonl([result('toolu_b')]));
    await settle();
    expect(watched.answered()).toBe(0);
    appendFileSync(transcript, jsonl([result('toolu_a', "The user doesn't want to proceed with this tool use.")]));
    await expect.poll(() => watched.answered()).toBe(1);
    appendFileSync(transcript, jsonl([result('toolu_a')]));
    await settle();
    expect(watched.answered()).toBe(1);
  });

  it('ignores the same call answered before the approval arrived, and waits for the one after it', async () => {
    writeFileSync(transcript, jsonl([call('toolu_old', NPM_TEST.toolInput as Line), result('toolu_old')]));
    const watched = watch();
    await watched.watching;
    expect(watched.answered()).toBe(0);
    // The call itself may be written after the hook started: it is found as it comes.
    appendFileSync(transcript, jsonl([call('toolu_new', NPM_TEST.toolInput as Line)]));
    await settle();
    expect(watched.answered()).toBe(0);
    appendFileSync(transcript, jsonl([result('toolu_new')]));
    await expect.poll(() => watched.answered()).toBe(1);
  });

  it('matches the exact input only: the same command with another description is another call', async () => {
    writeFileSync(transcript, jsonl([call('toolu_x', { command: 'npm test', description: 'Something else' })]));
    const watched = watch();
    await watched.watching;
    appendFileSync(transcript, jsonl([result('toolu_x')]));
    await settle();
    expect(watched.answered()).toBe(0);
  });

  it('reads a line written in two pieces once it is whole', async () => {
    writeFileSync(transcript, jsonl([call('toolu_a', NPM_TEST.toolInput as Line)]));
    const watched = watch();
    await watched.watching;
    const line = jsonl([result('toolu_a')]);
    appendFileSync(transcript, line.slice(0, 30));
    await settle();
    expect(watched.answered()).toBe(0);
    appendFileSync(transcript, line.slice(30));
    await expect.poll(() => watched.answered()).toBe(1);
  });

  it('stops reading when told to (the approval was settled elsewhere)', async () => {
    writeFileSync(transcript, jsonl([call('toolu_a', NPM_TEST.toolInput as Line)]));
    const watched = watch();
    await watched.watching;
    watched.stop();
    appendFileSync(transcript, jsonl([result('toolu_a')]));
    await settle();
    expect(watched.answered()).toBe(0);
  });

  it("never watches a file outside Claude Code's projects folder, even through a link", async () => {
    const outside = join(root, 'session-1.jsonl');
    writeFileSync(outside, jsonl([call('toolu_a', NPM_TEST.toolInput as Line)]));
    const link = join(projects, '-home-alice-shop', 'linked.jsonl');
    symlinkSync(outside, link);
    const direct = watch(outside);
    const linked = watch(link);
    await settle();
    appendFileSync(outside, jsonl([result('toolu_a')]));
    await settle();
    expect(direct.answered()).toBe(0);
    expect(linked.answered()).toBe(0);
  });
});

describe('watching a transcript for a session that moves on', () => {
  it('says so once anything new is said in it (a prompt, a result, Claude), never for what was there, nor for other lines', async () => {
    writeFileSync(transcript, jsonl([call('toolu_a', { command: 'npm test' }), result('toolu_a')]));
    const watched = watch(transcript, 'moved-on');
    await watched.watching;
    appendFileSync(transcript, jsonl([{ type: 'file-history-snapshot', snapshot: {} }, { type: 'summary', summary: 'x' }]));
    await settle();
    expect(watched.answered()).toBe(0);
    appendFileSync(transcript, jsonl([{ type: 'user', message: { role: 'user', content: 'and now the docs' } }]));
    await expect.poll(() => watched.answered()).toBe(1);
  });
});

describe("watching a transcript for an MCP server's call whose request askbridge holds", () => {
  it("says so once a call to one of that server's tools gets its result (Esc writes it), not for another server's, nor for anything else said", async () => {
    writeFileSync(transcript, jsonl([call('toolu_old', {}, 'mcp__forms__form_one_choice'), result('toolu_old')]));
    const watched = watch(transcript, { toolPrefix: mcpToolPrefix('forms'), since: Date.now() });
    await watched.watching;
    // The call's own entry may be written after the request arrived; a prompt, Claude's words and another server's call are no sign.
    appendFileSync(transcript, jsonl([call('toolu_form', {}, 'mcp__forms__form_one_choice'), call('toolu_other', {}, 'mcp__formsx__pick'), result('toolu_other'), { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Waiting.' }] } }]));
    await settle();
    expect(watched.answered()).toBe(0);
    appendFileSync(transcript, jsonl([result('toolu_form', '[Request interrupted by user for tool use]')]));
    await expect.poll(() => watched.answered()).toBe(1);
  });

  it("is no sign when an earlier call's result, stamped before the request came, is written after it (the next call's request is held)", async () => {
    const since = Date.now();
    const stamped = (line: Line, at: number): Line => ({ ...line, timestamp: new Date(at).toISOString() });
    writeFileSync(transcript, jsonl([stamped(call('toolu_first', {}, 'mcp__forms__form_one_choice'), since - 2000)]));
    const watched = watch(transcript, { toolPrefix: mcpToolPrefix('forms'), since });
    await watched.watching;
    appendFileSync(transcript, jsonl([stamped(result('toolu_first', 'declined'), since - 1000), stamped(call('toolu_second', {}, 'mcp__forms__form_one_choice'), since - 500)]));
    await settle();
    expect(watched.answered()).toBe(0);
    appendFileSync(transcript, jsonl([stamped(result('toolu_second', '[Request interrupted by user for tool use]'), since + 3000)]));
    await expect.poll(() => watched.answered()).toBe(1);
  });

  it("names a server's tools as Claude Code does, its name's other characters as _", () => {
    expect(mcpToolPrefix('forms')).toBe('mcp__forms__');
    expect(mcpToolPrefix('my server.v2')).toBe('mcp__my_server_v2__');
  });
});
