// What a session was doing when it asked, read from its Claude Code transcript (the JSONL file a
// hook payload names in `transcript_path`): its first prompt (title), its git branch, and what
// Claude said just before the question. The path is hostile input: anyone holding the hook key can
// send any payload. So a transcript is read only when it is the asking session's own (Claude Code
// names it `<session_id>.jsonl`, and a link must not stand in for another session's), its real path
// (symlinks resolved) lies inside Claude Code's projects folder, it is a regular file owned by the
// daemon's user, and only a bounded number of bytes from its start and its end. Nothing leaves this
// module but the three extracted strings, capped; a file that does not qualify, or cannot be read
// in time, gives no context and a reason, never an error. Knows nothing of HTTP.
import { constants } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, sep } from 'node:path';
import type { SessionContext } from '../protocol.js';
import { shorten } from '../shorten.js';

export const TRANSCRIPT_LIMITS = {
  /** Read from the start of the file, for the first prompt. */
  headBytes: 64 * 1024,
  /** Read from the end of the file (again at each retry), for the branch and what was said. */
  tailBytes: 256 * 1024,
  titleChars: 200,
  branchChars: 200,
  saidChars: 4000,
} as const;

/**
 * Claude Code may write the assistant line holding the tool call after the hook has started: the
 * end of the file is read again this long after the first read, then what was said last stands in.
 */
export const RETRY_AT_MS = [250, 1000] as const;
/** However slow the disk, a read gives up after this long. */
export const READ_TIME_LIMIT_MS = 3000;

/** Where Claude Code keeps its transcripts: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function claudeProjectsDir(env: NodeJS.ProcessEnv): string {
  if (env.CLAUDE_CONFIG_DIR) return join(env.CLAUDE_CONFIG_DIR, 'projects');
  return join(env.HOME || homedir(), '.claude', 'projects');
}

/**
 * Whether `transcriptPath` names the transcript of `sessionId`: Claude Code writes each session's
 * to `<session_id>.jsonl`. Any other session's (its id is on every page and in transcripts) would
 * dress a question in that session's title, branch and words.
 */
export function transcriptNamesSession(transcriptPath: string, sessionId: string): boolean {
  return basename(transcriptPath) === `${sessionId}.jsonl`;
}

export type TranscriptReaderOptions = {
  /** Claude Code's projects folder: a transcript must really be inside it. */
  projectsDir: string;
  /** The daemon's own user id: a transcript must be owned by it. Undefined where the system has none (Windows). */
  uid: number | undefined;
  retryAtMs?: readonly number[];
  timeLimitMs?: number;
  /** How a file is opened; tests wrap it to count the bytes read. */
  openFile?: (path: string, flags: number) => Promise<FileHandle>;
};

/** The context found (and whether the tool call itself was found, or what was said last stands in), or why there is none. */
export type ContextRead = { context: SessionContext; found: 'tool-call' | 'last-said' | 'no-said' } | { none: string };

/** Refusals with their reason: no context, never an error. */
export class NoContext extends Error {}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Reads the context of the question `toolUseId` from the transcript at `transcriptPath`. Never
 * throws and never takes longer than the time limit. `stillWanted` is asked before each retry: a
 * question settled meanwhile needs no more reading.
 */
export async function readSessionContext(transcriptPath: string, toolUseId: string, options: TranscriptReaderOptions, stillWanted: () => boolean = () => true): Promise<ContextRead> {
  let handle: FileHandle | undefined;
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const work = (async (): Promise<ContextRead> => {
    try {
      handle = await openTranscript(transcriptPath, options);
      if (expired) return { none: 'took too long' };
      return await readContext(handle, toolUseId, options, () => !expired && stillWanted());
    } catch (error) {
      return { none: error instanceof NoContext ? error.message : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  })();
  const late = new Promise<ContextRead>((resolve) => {
    timer = setTimeout(() => {
      expired = true;
      resolve({ none: 'took too long' });
    }, options.timeLimitMs ?? READ_TIME_LIMIT_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    expired = true;
    // A read still in flight fails on the closed handle, and work() turns that into a reason nobody reads.
    void work.finally(() => handle?.close().catch(() => {}));
  }
}

/** The transcript opened for reading, once every check passed (a NoContext error says why not). */
export async function openTranscript(transcriptPath: string, options: TranscriptReaderOptions): Promise<FileHandle> {
  if (!isAbsolute(transcriptPath)) throw new NoContext('not an absolute path');
  if (!transcriptPath.endsWith('.jsonl')) throw new NoContext('not a .jsonl file');
  if (transcriptPath.includes('\0')) throw new NoContext('not a path');
  let root: string;
  try {
    root = await realpath(options.projectsDir);
  } catch {
    throw new NoContext("Claude Code's projects folder does not exist");
  }
  let real: string;
  try {
    real = await realpath(transcriptPath);
  } catch (error) {
    throw new NoContext(`cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) throw new NoContext("outside Claude Code's projects folder");
  if (!real.endsWith('.jsonl')) throw new NoContext('links to a file that is not .jsonl');
  // The name says whose transcript it is (transcriptNamesSession): a link to another session's is not this one's.
  if (basename(real) !== basename(transcriptPath)) throw new NoContext("links to another session's transcript");
  const linked = await lstat(real);
  if (!linked.isFile()) throw new NoContext('not a regular file');
  // O_NOFOLLOW and O_NONBLOCK: a link or a pipe swapped in meanwhile is neither followed nor waited on.
  const handle = await (options.openFile ?? open)(real, OPEN_FLAGS);
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw new NoContext('not a regular file');
    if (opened.dev !== linked.dev || opened.ino !== linked.ino) throw new NoContext('changed while it was opened');
    if (options.uid !== undefined && opened.uid !== options.uid) throw new NoContext("owned by another user than the daemon's");
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

async function readContext(handle: FileHandle, toolUseId: string, options: TranscriptReaderOptions, stillWanted: () => boolean): Promise<ContextRead> {
  const startedAt = Date.now();
  const firstSize = (await handle.stat()).size;
  // A file that fits in the tail is read once, whole.
  const head = firstSize > TRANSCRIPT_LIMITS.tailBytes ? await readLines(handle, 0, Math.min(firstSize, TRANSCRIPT_LIMITS.headBytes)) : undefined;
  let tail = await readTail(handle, firstSize);
  let said = saidBefore(tail, toolUseId);
  for (const at of options.retryAtMs ?? RETRY_AT_MS) {
    if (said !== undefined) break;
    await sleep(Math.max(0, startedAt + at - Date.now()));
    if (!stillWanted()) return { none: 'no longer waited for' };
    tail = await readTail(handle, (await handle.stat()).size);
    said = saidBefore(tail, toolUseId);
  }
  const found = said !== undefined ? 'tool-call' : 'last-said';
  const text = said ?? lastSaid(tail);
  const title = firstPrompt(head ?? tail) ?? lastPrompt(tail);
  const branch = newestBranch(tail);
  const context: SessionContext = {
    ...(title ? { title: shorten(title, TRANSCRIPT_LIMITS.titleChars, { whitespace: 'keep' }) } : {}),
    ...(branch ? { branch: shorten(branch, TRANSCRIPT_LIMITS.branchChars, { whitespace: 'keep' }) } : {}),
    ...(text ? { said: shorten(text, TRANSCRIPT_LIMITS.saidChars, { whitespace: 'keep' }) } : {}),
  };
  if (Object.keys(context).length === 0) return { none: 'nothing to show in it' };
  return { context, found: text ? found : 'no-said' };
}

function sleep(ms: number): Promise<void> {
  return new Promise((wake) => setTimeout(wake, ms));
}

async function readTail(handle: FileHandle, size: number): Promise<Entry[]> {
  const start = Math.max(0, size - TRANSCRIPT_LIMITS.tailBytes);
  return readLines(handle, start, size - start);
}

/** A JSON object from one transcript line; everything else in the file is skipped. */
export type Entry = Record<string, unknown>;

/**
 * The lines of `length` bytes from `start`, each parsed, as objects. A line cut by the start of the
 * range is dropped; one cut by its end, torn, or not JSON at all fails to parse and is skipped.
 */
async function readLines(handle: FileHandle, start: number, length: number): Promise<Entry[]> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
    if (bytesRead === 0) break; // the file shrank meanwhile
    filled += bytesRead;
  }
  let text = buffer.subarray(0, filled).toString('utf8');
  if (start > 0) text = text.slice(text.indexOf('\n') + 1 || text.length);
  const entries: Entry[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) entries.push(value);
    } catch {
      // torn, or not JSON
    }
  }
  return entries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentOf(entry: Entry): unknown {
  return isRecord(entry.message) ? entry.message.content : undefined;
}

/** The text blocks of a message's content (a list of blocks); `until` stops at the first block it matches. */
function textBlocks(content: unknown, until: (block: Record<string, unknown>) => boolean = () => false): string[] {
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (until(block)) break;
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') texts.push(block.text);
  }
  return texts;
}

/** Markup Claude Code itself puts in user lines: `<command-name>`, `<system-reminder>`, `<local-command-stdout>`... */
const isMarkup = (text: string) => text.trimStart().startsWith('<');

/**
 * What a person typed, when `entry` is a user prompt: not Claude Code's own lines (meta, a compacted
 * summary, a subagent's), not a tool result, not command or system markup.
 */
function promptOf(entry: Entry): string | undefined {
  if (entry.type !== 'user' || entry.isMeta === true || entry.isSidechain === true || entry.isCompactSummary === true) return undefined;
  const content = contentOf(entry);
  if (typeof content === 'string') return content.trim() === '' || isMarkup(content) ? undefined : content;
  if (!Array.isArray(content) || content.some((block) => isRecord(block) && block.type === 'tool_result')) return undefined;
  const texts = textBlocks(content).filter((text) => !isMarkup(text));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function firstPrompt(entries: Entry[]): string | undefined {
  for (const entry of entries) {
    const prompt = promptOf(entry);
    if (prompt !== undefined) return prompt;
  }
  return undefined;
}

/** Claude Code's own note of the latest prompt, for a transcript whose start holds none. */
function lastPrompt(entries: Entry[]): string | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    if (entry.type === 'last-prompt' && typeof entry.lastPrompt === 'string' && entry.lastPrompt.trim() !== '') return entry.lastPrompt;
  }
  return undefined;
}

/** The newest git branch: none when it is detached (`HEAD`) or empty. */
function newestBranch(entries: Entry[]): string | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const branch = entries[index]!.gitBranch;
    if (typeof branch === 'string') return branch.trim() === '' || branch === 'HEAD' ? undefined : branch;
  }
  return undefined;
}

const isToolCall = (toolUseId: string) => (block: Record<string, unknown>) => block.type === 'tool_use' && block.id === toolUseId;

/**
 * What Claude said just before the tool call `toolUseId`: the text before it in its own line, and
 * the assistant lines before that line. Undefined when the call is not in these lines (not written
 * yet); an empty string when it is, and nothing was said.
 */
function saidBefore(entries: Entry[], toolUseId: string): string | undefined {
  const at = entries.findLastIndex((entry) => entry.type === 'assistant' && hasBlock(contentOf(entry), isToolCall(toolUseId)));
  if (at < 0) return undefined;
  return [...saidUpTo(entries, at), ...textBlocks(contentOf(entries[at]!), isToolCall(toolUseId))].join('\n\n');
}

function hasBlock(content: unknown, match: (block: Record<string, unknown>) => boolean): boolean {
  return Array.isArray(content) && content.some((block) => isRecord(block) && match(block));
}

/** What Claude said last, when the tool call itself could not be found. */
function lastSaid(entries: Entry[]): string {
  return saidUpTo(entries, entries.length).join('\n\n');
}

/**
 * The text of the latest assistant reply before `end`: its lines (one per content block, as Claude
 * Code writes them) back to the tool result before it, or to the person's prompt. Lines of other
 * kinds (attachments, system notes) in between are skipped.
 */
function saidUpTo(entries: Entry[], end: number): string[] {
  const said: string[] = [];
  for (let index = end - 1; index >= 0; index--) {
    const entry = entries[index]!;
    if (entry.isSidechain === true) continue;
    if (promptOf(entry) !== undefined) break;
    if (entry.type === 'user') {
      if (said.length > 0) break; // a tool result: what came before it was an earlier reply
      continue;
    }
    if (entry.type === 'assistant') said.unshift(...textBlocks(contentOf(entry)));
  }
  return said;
}
