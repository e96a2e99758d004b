// When the person answers Claude Code's own permission dialog in the terminal first, Claude Code
// does not tell the PermissionRequest hook: after "Yes" (and after "No" with a message) its request
// stays open (protocol.md 8). The session's transcript says it: the tool call gets its result there
// (the command's output, or "The user doesn't want to proceed…"). So while an approval waits, the
// end of its session's transcript is read as it grows, and the approval leaves the inbox as answered
// in the terminal once the call it asks about has a result. A plain "No", and Esc, close the request:
// that needs no transcript. The transcript is opened with the same checks as for a session's
// context (transcript.ts), and only what is appended after its last bytes is read.
// A wait in the terminal (Claude Code's Notification: an idle prompt, a dialog askbridge has no card
// for, an MCP form) is watched the same way: once anything new is said in the session (a prompt, a
// tool's result, Claude's next message), the session has moved on. An MCP server's request askbridge
// holds is let go once the server's call has its result there: Esc interrupts it without telling
// the hook (protocol.md 9), and anything else said meanwhile (the call's own entry, written late; a
// subagent's) is no sign.
import { isDeepStrictEqual } from 'node:util';
import type { FileHandle } from 'node:fs/promises';
import { NoContext, openTranscript, TRANSCRIPT_LIMITS, type Entry, type TranscriptReaderOptions } from './transcript.js';

/** How often a waiting approval's transcript is looked at: well within the 2 s a card may linger. */
export const TRANSCRIPT_POLL_MS = 250;
/** Read at most this much of what was appended at a time; a line longer than it is skipped. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

/** The tool call an approval asks about, as Claude Code names it in the transcript: no id, its tool and exact input. */
export type AskedCall = { toolName: string; toolInput: Readonly<Record<string, unknown>> };

/**
 * A call to any tool of one MCP server, by the prefix of its tools' names (`mcp__forms__`): the call
 * whose elicitation askbridge holds. Esc ends it in the terminal without telling the hook, and its
 * result ("interrupted") is written then: at or after `since`, when the request came (ms). A result
 * stamped before it is an earlier call's, which Claude Code may write to the file after the next
 * call has begun.
 */
export type ServerCall = { toolPrefix: string; since: number };

/** What is looked for: the result of an approval's call or of an MCP server's call, or anything new said in the session (`moved-on`). */
export type TerminalSign = AskedCall | ServerCall | 'moved-on';

/** The prefix of an MCP server's tools in Claude Code (`mcp__<server>__`), its name's other characters as `_`. */
export function mcpToolPrefix(server: string): string {
  return `mcp__${server.replace(/[^A-Za-z0-9_-]/g, '_')}__`;
}

export type TerminalWatchOptions = TranscriptReaderOptions & {
  pollMs?: number;
  /** Called once the transcript as it was when the ask came has been read: what is appended after is new. */
  onWatching?: () => void;
};

type Log = { debug(fields: Record<string, unknown>, message: string): void };

/**
 * Calls `answered` once the transcript shows the call decided in the terminal (or, for `moved-on`,
 * anything new said in the session); returns what stops watching (call it when the ask is settled
 * by anyone). A transcript that cannot be opened is not watched (logged at debug): the ask then
 * leaves when its request closes, is decided, or its session's next hook says it moved on.
 */
export function watchForTerminalAnswer(transcriptPath: string, sign: TerminalSign, options: TerminalWatchOptions, answered: () => void, log: Log): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let handle: FileHandle | undefined;
  // The ids of calls to this tool with this input that have no result yet; a result for one of
  // them, once the end of the file as it was is read, is the terminal's answer.
  const unanswered = new Set<string>();
  let offset = 0;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    void handle?.close().catch(() => {});
    handle = undefined;
  };

  /** The complete lines appended since `offset`; a line still being written waits for the next look. */
  const readAppended = async (file: FileHandle): Promise<Entry[]> => {
    const size = (await file.stat()).size;
    if (size < offset) offset = 0; // rewritten from the start
    if (size === offset) return [];
    const length = Math.min(size - offset, MAX_READ_BYTES);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, offset);
    const lastNewline = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (lastNewline < 0) {
      if (bytesRead === MAX_READ_BYTES) offset += bytesRead; // one line longer than any read: skipped
      return [];
    }
    const lines = buffer.subarray(0, lastNewline).toString('utf8').split('\n');
    offset += lastNewline + 1;
    return lines.flatMap(parseLine);
  };

  /** A server call's result stamped before its request came: an earlier call's, written late. */
  const endedBefore = (entry: Entry): boolean => {
    if (typeof sign !== 'object' || !('since' in sign) || typeof entry.timestamp !== 'string') return false;
    const at = Date.parse(entry.timestamp);
    return Number.isFinite(at) && at < sign.since;
  };

  /** True once one of the entries is the result of a call this approval asks about. */
  const sawAnswer = (entries: Entry[], initial: boolean): boolean => {
    if (sign === 'moved-on') return !initial && entries.some((entry) => entry.type === 'user' || entry.type === 'assistant');
    const isCall = (name: unknown, input: unknown) => ('toolPrefix' in sign ? typeof name === 'string' && name.startsWith(sign.toolPrefix) : name === sign.toolName && isDeepStrictEqual(input, sign.toolInput));
    for (const entry of entries) {
      for (const block of blocksOf(entry)) {
        if (block.type === 'tool_use' && typeof block.id === 'string' && isCall(block.name, block.input)) unanswered.add(block.id);
        if (block.type === 'tool_result' && typeof block.tool_use_id === 'string' && unanswered.delete(block.tool_use_id) && !initial && !endedBefore(entry)) return true;
      }
    }
    return false;
  };

  const look = async () => {
    if (stopped || !handle) return;
    try {
      if (sawAnswer(await readAppended(handle), false)) {
        stop();
        answered();
        return;
      }
    } catch (error) {
      log.debug({ reason: (error as NodeJS.ErrnoException).code ?? 'error' }, 'transcript no longer read for a waiting ask');
      stop();
      return;
    }
    if (!stopped) timer = setTimeout(() => void look(), options.pollMs ?? TRANSCRIPT_POLL_MS);
  };

  void (async () => {
    try {
      const opened = await openTranscript(transcriptPath, options);
      if (stopped) return void opened.close().catch(() => {});
      handle = opened;
      // Where the call was made: the end of the file as it is now (calls already answered there are not this one).
      const size = (await opened.stat()).size;
      offset = Math.max(0, size - TRANSCRIPT_LIMITS.tailBytes);
      if (offset > 0) {
        // Skip to the first whole line of the tail.
        const probe = Buffer.alloc(Math.min(64 * 1024, size - offset));
        const { bytesRead } = await opened.read(probe, 0, probe.length, offset);
        const newline = probe.subarray(0, bytesRead).indexOf(0x0a);
        offset = newline < 0 ? size : offset + newline + 1;
      }
      sawAnswer(await readAppended(opened), true);
      options.onWatching?.();
    } catch (error) {
      log.debug({ reason: error instanceof NoContext ? error.message : ((error as NodeJS.ErrnoException).code ?? 'error') }, 'no transcript to watch for a waiting ask');
      stop();
      return;
    }
    if (!stopped) timer = setTimeout(() => void look(), options.pollMs ?? TRANSCRIPT_POLL_MS);
  })();
  return stop;
}

function parseLine(line: string): Entry[] {
  if (!line.startsWith('{')) return [];
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? [value as Entry] : [];
  } catch {
    return [];
  }
}

/** The content blocks of a transcript line's message (a tool call in an assistant line, a tool result in a user line). */
function blocksOf(entry: Entry): Array<Record<string, unknown>> {
  const message = entry.message;
  if (typeof message !== 'object' || message === null) return [];
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) ? content.filter((block): block is Record<string, unknown> => typeof block === 'object' && block !== null) : [];
}
