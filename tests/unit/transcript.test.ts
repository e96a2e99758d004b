// The transcript reader against real files: Claude Code's own transcript, files that grow while it
// reads, and every file a hostile payload could name instead. Reads are counted through the
// reader's openFile, so the byte bound is measured, not inferred from how fast it was.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeProjectsDir, readSessionContext, transcriptNamesSession, TRANSCRIPT_LIMITS, type ContextRead, type TranscriptReaderOptions } from '../../src/daemon/transcript.js';

const FIXTURE = new URL('../fixtures/transcript-2.1.330.jsonl', import.meta.url);
const FIXTURE_TOOL_USE = 'toolu_mock_7689_1';
const UID = process.getuid?.();

let root: string;
let projects: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'askbridge-transcript-'));
  projects = join(root, 'claude', 'projects');
  project = join(projects, '-home-alice-shop');
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

// Transcript lines as Claude Code writes them (the fields the reader looks at, and a few it must ignore).
type Line = Record<string, unknown>;
const prompt = (content: unknown, extra: Line = {}): Line => ({ type: 'user', message: { role: 'user', content }, gitBranch: 'main', ...extra });
const says = (text: string, extra: Line = {}): Line => ({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, gitBranch: 'main', ...extra });
const calls = (id: string, before?: string): Line => ({
  type: 'assistant',
  message: { role: 'assistant', content: [...(before ? [{ type: 'text', text: before }] : []), { type: 'tool_use', id, name: 'AskUserQuestion', input: { questions: [] } }] },
  gitBranch: 'main',
});
const toolResult = (id: string): Line => ({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'done' }] }, gitBranch: 'main' });
const attachment: Line = { type: 'attachment', attachment: { type: 'environment' }, gitBranch: 'main' };
const jsonl = (lines: Line[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

function transcript(name: string, content: string | Buffer, dir = project): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** openFile for the reader that counts every byte it reads. */
function counting(): { bytes: () => number; openFile: NonNullable<TranscriptReaderOptions['openFile']> } {
  let bytes = 0;
  return {
    bytes: () => bytes,
    openFile: async (path, flags) => {
      const handle = await open(path, flags);
      const read = handle.read.bind(handle) as (buffer: Buffer, offset: number, length: number, position: number) => Promise<{ bytesRead: number; buffer: Buffer }>;
      handle.read = (async (buffer: Buffer, offset: number, length: number, position: number) => {
        const result = await read(buffer, offset, length, position);
        bytes += result.bytesRead;
        return result;
      }) as unknown as FileHandle['read'];
      return handle;
    },
  };
}

const options = (extra: Partial<TranscriptReaderOptions> = {}): TranscriptReaderOptions => ({ projectsDir: projects, uid: UID, retryAtMs: [10, 30], ...extra });
const read = (path: string, toolUseId = 'toolu_1', extra: Partial<TranscriptReaderOptions> = {}): Promise<ContextRead> => readSessionContext(path, toolUseId, options(extra));

describe("the transcript reader on Claude Code's own transcript", () => {
  it('reads the first prompt and what was said just before the tool call; a detached HEAD is no branch', async () => {
    const path = join(project, 'session.jsonl');
    copyFileSync(FIXTURE, path);
    expect(await read(path, FIXTURE_TOOL_USE)).toEqual({ context: { title: 'ask me', said: 'MOCK: asking a question.' }, found: 'tool-call' });
  });

  it("finds Claude Code's projects folder where Claude Code keeps it", () => {
    expect(claudeProjectsDir({ HOME: '/home/alice' })).toBe(join('/home/alice', '.claude', 'projects'));
    expect(claudeProjectsDir({ HOME: '/home/alice', CLAUDE_CONFIG_DIR: '/etc/claude-alice' })).toBe(join('/etc/claude-alice', 'projects'));
  });
});

describe('what the reader takes from a transcript', () => {
  it('takes the text of the whole reply before the tool call, across its lines, and not the reply before the last tool result', async () => {
    const path = transcript('s.jsonl', jsonl([
      prompt('Refactor the billing module'),
      says('I will look at the files first.'),
      calls('toolu_read'),
      toolResult('toolu_read'),
      says('There are two ways to do it.'),
      attachment,
      says('Both keep the API.'),
      calls('toolu_1', 'Which do you prefer?'),
    ]));
    expect(await read(path)).toEqual({
      context: { title: 'Refactor the billing module', branch: 'main', said: 'There are two ways to do it.\n\nBoth keep the API.\n\nWhich do you prefer?' },
      found: 'tool-call',
    });
  });

  it('goes back past a tool result when nothing was said after it, but never past the prompt', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('Earlier task'), says('Said for the earlier task.'), prompt('Fix the tests'), says('Running them.'), calls('toolu_run'), toolResult('toolu_run'), calls('toolu_1')]));
    expect(await read(path)).toMatchObject({ context: { said: 'Running them.' }, found: 'tool-call' });
    const silent = transcript('silent.jsonl', jsonl([prompt('Earlier task'), says('Said for the earlier task.'), prompt('Fix the tests'), calls('toolu_1')]));
    expect(await read(silent)).toEqual({ context: { title: 'Earlier task', branch: 'main' }, found: 'no-said' });
  });

  it('skips meta lines, tool results, compacted summaries, subagent lines and command markup for the title', async () => {
    const path = transcript('s.jsonl', jsonl([
      prompt('<command-name>/clear</command-name>'),
      prompt('Caveat: the messages below were generated by the user while running local commands.', { isMeta: true }),
      prompt([{ type: 'tool_result', tool_use_id: 'x', content: 'a result' }]),
      prompt('This session is being continued from a previous conversation.', { isCompactSummary: true }),
      prompt('A subagent task', { isSidechain: true }),
      prompt([{ type: 'text', text: '<system-reminder>hidden</system-reminder>' }, { type: 'text', text: 'Add dark mode' }, { type: 'image', source: {} }]),
      calls('toolu_1', 'Which palette?'),
    ]));
    expect(await read(path)).toMatchObject({ context: { title: 'Add dark mode', said: 'Which palette?' } });
  });

  it("falls back to Claude Code's latest-prompt line when no prompt is left to read", async () => {
    const path = transcript('s.jsonl', jsonl([prompt('<local-command-stdout>ok</local-command-stdout>'), { type: 'last-prompt', lastPrompt: 'old prompt' }, { type: 'last-prompt', lastPrompt: 'Ship the release' }, calls('toolu_1')]));
    expect(await read(path)).toMatchObject({ context: { title: 'Ship the release' } });
  });

  it('takes the newest git branch, and none when the newest is a detached HEAD or empty', async () => {
    expect(await read(transcript('a.jsonl', jsonl([prompt('p', { gitBranch: 'old' }), { ...calls('toolu_1'), gitBranch: 'feature/billing' }])))).toMatchObject({ context: { branch: 'feature/billing' } });
    expect(await read(transcript('b.jsonl', jsonl([prompt('p', { gitBranch: 'feature/billing' }), { ...calls('toolu_1'), gitBranch: 'HEAD' }])))).toEqual({ context: { title: 'p' }, found: 'no-said' });
    expect(await read(transcript('c.jsonl', jsonl([prompt('p', { gitBranch: 'feature/billing' }), { ...calls('toolu_1'), gitBranch: '' }])))).toEqual({ context: { title: 'p' }, found: 'no-said' });
  });

  it('keeps escape sequences, bidi overrides and other invisible characters as the text they are', async () => {
    const text = 'Pick one\u001b]0;owned\u0007 \u001b[2J\u202Eevil\u200B and \u0000nul';
    const path = transcript('s.jsonl', jsonl([prompt('Title \u001b[31mred\u001b[0m'), says(text), { ...calls('toolu_1'), gitBranch: 'br\u202Eanch' }]));
    expect(await read(path)).toEqual({ context: { title: 'Title \u001b[31mred\u001b[0m', branch: 'br\u202Eanch', said: text }, found: 'tool-call' });
  });

  it('caps the title at 200, the branch at 200 and what was said at 4,000 characters, saying so with "…", never splitting a character', async () => {
    const path = transcript('s.jsonl', jsonl([prompt(`${'t'.repeat(198)}😀😀`), says('s'.repeat(10_000)), { ...calls('toolu_1'), gitBranch: 'b'.repeat(500) }]));
    const result = await read(path);
    if (!('context' in result)) throw new Error(`no context: ${result.none}`);
    const { title, branch, said } = result.context;
    expect(title).toBe(`${'t'.repeat(198)}…`);
    expect(branch).toBe(`${'b'.repeat(199)}…`);
    expect(said).toHaveLength(TRANSCRIPT_LIMITS.saidChars);
    expect(said).toBe(`${'s'.repeat(3999)}…`);
    const short = transcript('short.jsonl', jsonl([prompt('t'.repeat(200)), calls('toolu_1')]));
    expect(await read(short)).toMatchObject({ context: { title: 't'.repeat(200) } });
  });

  it('skips a torn last line, binary junk between lines, and lines that are JSON but not objects', async () => {
    const content = Buffer.concat([
      Buffer.from(jsonl([prompt('Keep going')])),
      randomBytes(4096),
      Buffer.from('\n[1,2,3]\n"text"\nnull\n{"type":"assistant", "message": \n'),
      Buffer.from(jsonl([says('Before asking.'), calls('toolu_1')])),
      Buffer.from('{"type":"assistant","message":{"content":[{"type":"text","text":"torn'),
    ]);
    expect(await read(transcript('s.jsonl', content))).toEqual({ context: { title: 'Keep going', branch: 'main', said: 'Before asking.' }, found: 'tool-call' });
  });
});

describe('a tool call that is not in the transcript yet', () => {
  it('is read again a moment later, when Claude Code has written it', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('Plan the migration'), says('Reading the schema.'), calls('toolu_schema'), toolResult('toolu_schema')]));
    const reading = readSessionContext(path, 'toolu_1', options({ retryAtMs: [250, 1000] }));
    setTimeout(() => appendFileSync(path, jsonl([says('The schema has two tables.'), calls('toolu_1', 'Which one first?')])), 100);
    expect(await reading).toEqual({ context: { title: 'Plan the migration', branch: 'main', said: 'The schema has two tables.\n\nWhich one first?' }, found: 'tool-call' });
  });

  it('gives what Claude said last once the retries are spent', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('Plan the migration'), says('Reading the schema.'), calls('toolu_schema'), toolResult('toolu_schema'), says('Two tables.')]));
    const files = counting();
    expect(await read(path, 'toolu_1', { openFile: files.openFile })).toEqual({ context: { title: 'Plan the migration', branch: 'main', said: 'Two tables.' }, found: 'last-said' });
    // Read three times: at once and at each of the two retries.
    expect(files.bytes()).toBe(3 * Buffer.byteLength(jsonl([prompt('Plan the migration'), says('Reading the schema.'), calls('toolu_schema'), toolResult('toolu_schema'), says('Two tables.')])));
  });

  it('is not read again once nobody waits for it', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('p'), says('s')]));
    expect(await readSessionContext(path, 'toolu_1', options(), () => false)).toEqual({ none: 'no longer waited for' });
  });
});

describe("a session's own transcript", () => {
  it('is the one Claude Code names after the session id; any other session\'s, or any other name, is not', () => {
    const session = '62d2b5f9-8e1a-4c3b-9d07-1f2e3a4b5c6d';
    expect(transcriptNamesSession(join(project, `${session}.jsonl`), session)).toBe(true);
    expect(transcriptNamesSession(join(project, 'b7a1c0de-0000-4000-8000-000000000000.jsonl'), session)).toBe(false);
    expect(transcriptNamesSession(join(project, `${session}.jsonl.bak`), session)).toBe(false);
    expect(transcriptNamesSession(join(project, `x${session}.jsonl`), session)).toBe(false);
    // A session id is hostile text too: one holding a path names no file of its own.
    expect(transcriptNamesSession(join(project, 'victim.jsonl'), '../-home-alice-shop/victim')).toBe(false);
    expect(transcriptNamesSession(join(project, 'victim.jsonl'), 'victim')).toBe(true);
  });
});

describe('a transcript path the reader refuses, with a reason and no context', () => {
  it('refuses a missing file, a relative path, another extension, and /etc/passwd', async () => {
    expect(await read(join(project, 'missing.jsonl'))).toEqual({ none: 'cannot be resolved (ENOENT)' });
    expect(await read('-home-alice-shop/s.jsonl')).toEqual({ none: 'not an absolute path' });
    expect(await read(transcript('s.json', jsonl([prompt('p')])))).toEqual({ none: 'not a .jsonl file' });
    expect(await read('/etc/passwd')).toEqual({ none: 'not a .jsonl file' });
    expect(await read(`${project}/\0.jsonl`)).toEqual({ none: 'not a path' });
  });

  it('refuses a transcript outside the projects folder, also through ".." and through a folder beside it with the same prefix', async () => {
    const outside = transcript('outside.jsonl', jsonl([prompt('secret'), calls('toolu_1')]), root);
    expect(await read(outside)).toEqual({ none: "outside Claude Code's projects folder" });
    expect(await read(`${project}/../../../outside.jsonl`)).toEqual({ none: "outside Claude Code's projects folder" });
    mkdirSync(`${projects}-evil`);
    expect(await read(transcript('s.jsonl', jsonl([prompt('secret')]), `${projects}-evil`))).toEqual({ none: "outside Claude Code's projects folder" });
  });

  it("refuses a link inside the projects folder to a file outside it, or to another session's transcript; follows one that keeps the name", async () => {
    const outside = transcript('outside.jsonl', jsonl([prompt('secret'), calls('toolu_1')]), root);
    symlinkSync(outside, join(project, 'link.jsonl'));
    expect(await read(join(project, 'link.jsonl'))).toEqual({ none: "outside Claude Code's projects folder" });
    symlinkSync('/etc/passwd', join(project, 'passwd.jsonl'));
    expect(await read(join(project, 'passwd.jsonl'))).toEqual({ none: "outside Claude Code's projects folder" });
    // The name says whose transcript it is: a link named for one session to another's is not the first's.
    const other = transcript('other-session.jsonl', jsonl([prompt('Another session'), calls('toolu_1')]));
    symlinkSync(other, join(project, 'this-session.jsonl'));
    expect(await read(join(project, 'this-session.jsonl'))).toEqual({ none: "links to another session's transcript" });
    // A transcript kept in another folder of the projects, linked under its own name.
    mkdirSync(join(projects, 'moved'));
    const inside = transcript('alias.jsonl', jsonl([prompt('Inside'), calls('toolu_1')]), join(projects, 'moved'));
    symlinkSync(inside, join(project, 'alias.jsonl'));
    expect(await read(join(project, 'alias.jsonl'))).toMatchObject({ context: { title: 'Inside' } });
    // A link inside to a file inside that is not a transcript.
    const notes = transcript('notes.txt', jsonl([prompt('Notes')]));
    symlinkSync(notes, join(project, 'notes.jsonl'));
    expect(await read(join(project, 'notes.jsonl'))).toEqual({ none: 'links to a file that is not .jsonl' });
  });

  it('finds the projects folder through a link to it (a ~/.claude kept elsewhere)', async () => {
    const elsewhere = join(root, 'dotfiles', 'claude');
    mkdirSync(join(elsewhere, 'projects', 'p'), { recursive: true });
    symlinkSync(elsewhere, join(root, 'dot-claude'));
    const path = transcript('s.jsonl', jsonl([prompt('Linked home'), calls('toolu_1')]), join(elsewhere, 'projects', 'p'));
    expect(await read(path, 'toolu_1', { projectsDir: join(root, 'dot-claude', 'projects') })).toMatchObject({ context: { title: 'Linked home' } });
    expect(await read(join(root, 'dot-claude', 'projects', 'p', 's.jsonl'), 'toolu_1', { projectsDir: join(root, 'dot-claude', 'projects') })).toMatchObject({ context: { title: 'Linked home' } });
  });

  it('refuses a directory and a named pipe (without waiting for a writer)', async () => {
    mkdirSync(join(project, 'dir.jsonl'));
    expect(await read(join(project, 'dir.jsonl'))).toEqual({ none: 'not a regular file' });
    if (process.platform === 'win32') return;
    execFileSync('mkfifo', [join(project, 'pipe.jsonl')]);
    expect(await read(join(project, 'pipe.jsonl'))).toEqual({ none: 'not a regular file' });
  });

  it("refuses a transcript owned by another user than the daemon's", async () => {
    const path = transcript('s.jsonl', jsonl([prompt('p'), calls('toolu_1')]));
    if (UID === undefined) return; // no user ids here (Windows): nothing to compare
    // The check itself, whoever runs the test: the daemon's uid is not the file's.
    expect(await read(path, 'toolu_1', { uid: UID + 1 })).toEqual({ none: "owned by another user than the daemon's" });
  });

  it.skipIf(UID !== 0)('refuses a transcript that really belongs to another user (chown needs root: skipped otherwise)', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('p'), calls('toolu_1')]));
    chownSync(path, 65534, 65534);
    expect(await read(path)).toEqual({ none: "owned by another user than the daemon's" });
  });

  it('refuses when there is no projects folder at all', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('p')]));
    expect(await read(path, 'toolu_1', { projectsDir: join(root, 'nowhere', 'projects') })).toEqual({ none: "Claude Code's projects folder does not exist" });
  });

  it('gives up after its time limit when the file cannot be opened in time', async () => {
    const path = transcript('s.jsonl', jsonl([prompt('p'), calls('toolu_1')]));
    const started = Date.now();
    expect(await read(path, 'toolu_1', { timeLimitMs: 100, openFile: () => new Promise<FileHandle>(() => {}) })).toEqual({ none: 'took too long' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('a huge transcript', () => {
  /** About `megabytes` MB of a long turn (Claude says a line, runs a tool, reads its result), between a first prompt and `last`. */
  function bigTranscript(megabytes: number, last: Line[]): string {
    const path = join(project, 'big.jsonl');
    writeFileSync(path, jsonl([prompt('The first prompt of a long session')]));
    const chunk = jsonl(Array.from({ length: 300 }, (_, index) => [says(`step ${index} ${'x'.repeat(1000)}`), calls(`toolu_step_${index}`), toolResult(`toolu_step_${index}`)]).flat());
    for (let written = 0; written < megabytes * 1024 * 1024; written += chunk.length) appendFileSync(path, chunk);
    appendFileSync(path, jsonl(last));
    expect(statSync(path).size).toBeGreaterThanOrEqual(megabytes * 1024 * 1024);
    return path;
  }

  it('reads only its first 64 KB and last 256 KB of 50 MB', async () => {
    const path = bigTranscript(50, [says('Near the end.'), { ...calls('toolu_1'), gitBranch: 'release' }]);
    const files = counting();
    const started = Date.now();
    const result = await read(path, 'toolu_1', { openFile: files.openFile });
    console.log(`[measure] 50 MB transcript: ${files.bytes()} bytes read in ${Date.now() - started} ms`);
    expect(result).toEqual({ context: { title: 'The first prompt of a long session', branch: 'release', said: 'Near the end.' }, found: 'tool-call' });
    expect(files.bytes()).toBe(TRANSCRIPT_LIMITS.headBytes + TRANSCRIPT_LIMITS.tailBytes);
  });

  it('reads at most its first 64 KB and three times its last 256 KB when the tool call is not there', async () => {
    const path = bigTranscript(50, [says('Near the end.')]);
    const files = counting();
    expect(await read(path, 'toolu_1', { openFile: files.openFile })).toMatchObject({ context: { said: 'Near the end.' }, found: 'last-said' });
    expect(files.bytes()).toBe(TRANSCRIPT_LIMITS.headBytes + 3 * TRANSCRIPT_LIMITS.tailBytes);
  });

  it('gives no context for one huge line without a newline, and reads no more of it', async () => {
    const path = transcript('s.jsonl', `{"type":"user","message":{"content":"${'a'.repeat(5 * 1024 * 1024)}`);
    const files = counting();
    expect(await read(path, 'toolu_1', { openFile: files.openFile })).toEqual({ none: 'nothing to show in it' });
    expect(files.bytes()).toBe(TRANSCRIPT_LIMITS.headBytes + 3 * TRANSCRIPT_LIMITS.tailBytes);
  });

  it('gives no context for a megabyte of binary junk', async () => {
    const path = transcript('junk.jsonl', randomBytes(1024 * 1024));
    expect(await read(path)).toEqual({ none: 'nothing to show in it' });
  });
});
