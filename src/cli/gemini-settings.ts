// Gemini CLI's user settings (~/.gemini/settings.json), as `askbridge doctor` reads them: whether
// askbridge's MCP server is registered there, so that Gemini's model can ask the person. Read only:
// Gemini's own `gemini mcp add` writes the entry (and keeps the file's comments and mode).
import { readFileSync, } from 'node:fs';
import { basename, join } from 'node:path';
import { isRecord } from '../claude-settings.js';
import { findOnPath } from './find-on-path.js';

/**
 * The registration the README gives: trusted (no confirmation before each question), and an hour to
 * answer; Gemini runs askbridge as `command` does here (askbridgeCommand).
 */
export function geminiRegisterCommand(command: string): string {
  return `gemini mcp add --scope user --trust --timeout 3600000 askbridge ${command} mcp`;
}
/** Gemini gives up on an MCP call after this long when its server sets no `timeout` (progress does not extend it). */
export const GEMINI_DEFAULT_MCP_TIMEOUT_MS = 10 * 60 * 1000;

export type GeminiFindingId = 'gemini-mcp-missing' | 'gemini-settings-unparsable' | 'gemini-mcp-timeout-short' | 'gemini-mcp-untrusted';
/** One of doctor's findings, about Gemini CLI. */
export type GeminiFinding = { id: GeminiFindingId; level: 'error' | 'warning' | 'info'; message: string; fix?: string; file?: string };

export type GeminiProbe =
  | { state: 'unreadable'; path: string; error: string }
  | { state: 'missing'; path: string }
  | { state: 'registered'; path: string; name: string; trusted: boolean; timeoutMs: number | undefined };

/** What Gemini's user settings say of askbridge, when Gemini CLI is on PATH (undefined when it is not). */
export function probeGemini(env: NodeJS.ProcessEnv, homeDir: string): GeminiProbe | undefined {
  if (findOnPath(env, 'gemini') === undefined) return undefined;
  const path = join(homeDir, '.gemini', 'settings.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing', path };
    return { state: 'unreadable', path, error: (error as Error).message };
  }
  let settings: unknown;
  try {
    settings = JSON.parse(withoutComments(text));
  } catch (error) {
    return { state: 'unreadable', path, error: (error as Error).message };
  }
  const servers = isRecord(settings) && isRecord(settings.mcpServers) ? settings.mcpServers : {};
  for (const [name, server] of Object.entries(servers)) {
    if (!isRecord(server) || !runsAskbridgeMcp(server)) continue;
    return { state: 'registered', path, name, trusted: server.trust === true, timeoutMs: typeof server.timeout === 'number' ? server.timeout : undefined };
  }
  return { state: 'missing', path };
}

/** Gemini's checks for `doctor`: a missing registration is no problem (not everyone asks from Gemini), a short timeout is. */
export function checkGemini(probe: GeminiProbe, command: string): { findings: GeminiFinding[]; passed: string[] } {
  const register = geminiRegisterCommand(command);
  const findings: GeminiFinding[] = [];
  const passed: string[] = [];
  if (probe.state === 'unreadable') {
    findings.push({ id: 'gemini-settings-unparsable', level: 'warning', file: probe.path, message: `Gemini CLI's settings ${probe.path} cannot be read (${probe.error})`, fix: `fix ${probe.path}, then \`${register}\`` });
    return { findings, passed };
  }
  if (probe.state === 'missing') {
    findings.push({ id: 'gemini-mcp-missing', level: 'info', file: probe.path, message: `Gemini CLI is installed, but askbridge is not among the MCP servers in ${probe.path}: Gemini's model cannot ask through askbridge`, fix: register });
    return { findings, passed };
  }
  passed.push(`askbridge is registered with Gemini CLI as the MCP server "${probe.name}" in ${probe.path}`);
  if ((probe.timeoutMs ?? GEMINI_DEFAULT_MCP_TIMEOUT_MS) < 60 * 60 * 1000) {
    findings.push({
      id: 'gemini-mcp-timeout-short',
      level: 'warning',
      file: probe.path,
      message: `Gemini CLI gives up on askbridge's question after ${Math.round((probe.timeoutMs ?? GEMINI_DEFAULT_MCP_TIMEOUT_MS) / 1000)} s (its "timeout" for "${probe.name}"${probe.timeoutMs === undefined ? ' is unset' : ''}), and an answer after that is lost`,
      fix: `gemini mcp remove --scope user ${probe.name}, then \`${register}\``,
    });
  }
  if (!probe.trusted) {
    findings.push({ id: 'gemini-mcp-untrusted', level: 'info', file: probe.path, message: `Gemini CLI asks in its terminal before it lets its model ask through askbridge ("${probe.name}" is not trusted), until allowed for the session`, fix: `gemini mcp remove --scope user ${probe.name}, then \`${register}\`` });
  }
  return { findings, passed };
}

/** `askbridge mcp` however it is started: `askbridge mcp`, or `node …/askbridge.mjs mcp`. */
function runsAskbridgeMcp(server: Record<string, unknown>): boolean {
  const args = Array.isArray(server.args) ? server.args.filter((arg): arg is string => typeof arg === 'string') : [];
  const words = typeof server.command === 'string' ? [server.command, ...args] : args;
  const at = words.findIndex((word) => /^askbridge(\.mjs)?$/.test(basename(word)));
  return at !== -1 && words[at + 1] === 'mcp';
}

/** JSON with comments, as Gemini CLI reads its settings: `//` and `/* *\/` outside strings become spaces. */
export function withoutComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else {
      out += char;
    }
  }
  return out;
}
