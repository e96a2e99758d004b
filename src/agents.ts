// One profile per asker: each coding agent askbridge answers (Claude Code, Codex CLI, opencode,
// Gemini CLI), and the programs that ask through POST /api/asks (a script, an MCP client). A profile
// says what the asker can take back (an "always allow", a stop, typed text, a note), how long it can
// be held, what its connection closing means, and the words for its own prompt ("the terminal",
// "opencode's prompt"). The store, the policy, the routes, the page (through each ask's choices),
// the CLI and Telegram read it here; nothing else keeps a table of what an agent can do. Pure data.
import { MAX_WAIT_MS } from './hook-timeout.js';
import type { Agent, Asker, Source } from './protocol.js';

/** What an ask is, as a profile tells it apart: questions, a permission (or a plan), the end of a turn, a wait in the terminal, an MCP server's elicitation. */
export type AskKind = 'question' | 'approval' | 'turn-end' | 'terminal-wait' | 'elicitation';

export type AgentProfile = {
  /** How it is named to a person: "Claude Code", "opencode". */
  name: string;
  /** Who acts in its approvals and turns: "Claude" for Claude Code, else the agent's name. */
  speaker: string;
  /**
   * Where an ask handed back goes, in words, per kind: Claude Code's own dialog ("the terminal"),
   * "opencode's prompt". Absent for an asker with nothing behind it (a script, an MCP client): it is
   * told nobody answered instead.
   */
  ownPrompt: { question: string; approval: string } | undefined;
  /** Takes one of its "always allow" suggestions back with an allow. */
  remembers: boolean;
  /** Ends its turn on a denial that says stop (never with words: with words it goes on). */
  stops: boolean;
  /** Takes a note with an answer (Claude Code's annotations, Codex's user_note). */
  notes: boolean;
  /** The longest it can wait for a person, from when it asks (its hook's timeout, less a margin). */
  maxWaitMs: number;
  /** What its connection closing means, for a permission: Claude Code closes it when the person answered its own dialog. */
  closedApproval: Extract<Source['kind'], 'terminal' | 'hook-gone'>;
  /** A closed connection, in words, as a clause after "withdrawn: ". */
  stoppedWaiting: string;
};

const HOOK_CLOSED = 'the hook stopped waiting (Esc or timeout in Claude Code)';

export const AGENT_PROFILES: Readonly<Record<Agent, AgentProfile>> = {
  'claude-code': {
    name: 'Claude Code',
    speaker: 'Claude',
    ownPrompt: { question: 'the terminal', approval: 'the terminal' },
    remembers: true,
    stops: true,
    notes: true,
    maxWaitMs: MAX_WAIT_MS,
    // Observed: Claude Code closes a held PermissionRequest when the person answers No in its dialog, or Esc.
    closedApproval: 'terminal',
    stoppedWaiting: HOOK_CLOSED,
  },
  codex: {
    name: 'Codex',
    speaker: 'Codex',
    ownPrompt: { question: "Codex's picker", approval: "Codex's dialog" },
    // `updatedPermissions` and `interrupt` are unsupported there and bring back its own dialog (protocol.md 7).
    remembers: false,
    stops: false,
    notes: true,
    maxWaitMs: MAX_WAIT_MS,
    closedApproval: 'hook-gone',
    stoppedWaiting: 'Codex stopped waiting (answered or interrupted there, or it quit)',
  },
  opencode: {
    name: 'opencode',
    speaker: 'opencode',
    ownPrompt: { question: "opencode's prompt", approval: "opencode's prompt" },
    remembers: true,
    // A reject without words ends its turn (observed on 1.18.33).
    stops: true,
    // Its reply takes labels and typed text per question, nothing else.
    notes: false,
    maxWaitMs: MAX_WAIT_MS,
    closedApproval: 'hook-gone',
    stoppedWaiting: "opencode's own prompt settled it, or askbridge's relay for it stopped",
  },
  'gemini-cli': {
    name: 'Gemini CLI',
    speaker: 'Gemini',
    // It asks through askbridge's MCP tool: the tool's result is all it reads, and nothing is behind it.
    ownPrompt: undefined,
    remembers: false,
    stops: false,
    notes: true,
    maxWaitMs: MAX_WAIT_MS,
    closedApproval: 'hook-gone',
    stoppedWaiting: 'Gemini CLI stopped waiting (its tool call ended)',
  },
};

const PROGRAM_PROFILE: Omit<AgentProfile, 'name'> = {
  speaker: 'its asker',
  ownPrompt: undefined,
  remembers: false,
  stops: false,
  notes: true,
  maxWaitMs: MAX_WAIT_MS,
  closedApproval: 'hook-gone',
  stoppedWaiting: 'its asker stopped waiting',
};

/** The profile of whoever asked: its agent, else the script or MCP client (an ask from before agents were named is Claude Code's). */
export function profileOf(who: { agent?: Agent | undefined; asker?: Asker | undefined }): AgentProfile {
  if (who.agent !== undefined) return AGENT_PROFILES[who.agent];
  if (who.asker) return { ...PROGRAM_PROFILE, name: who.asker.kind === 'mcp' ? 'an MCP client' : 'a script' };
  return AGENT_PROFILES['claude-code'];
}

/** An agent's name, also for one read back from a file (history) that this askbridge does not know: then as written. */
export function agentName(agent: string): string {
  return Object.hasOwn(AGENT_PROFILES, agent) ? AGENT_PROFILES[agent as Agent].name : agent;
}

/** The names MCP clients give themselves (clientInfo.name) for agents askbridge knows, so that their cards carry the agent's name. */
const MCP_CLIENTS: Readonly<Record<string, Agent>> = { 'gemini-cli-mcp-client': 'gemini-cli' };

/** The agent an MCP client is, by the name it gives itself; undefined for one askbridge does not know. */
export function agentOfMcpClient(name: string): Agent | undefined {
  return Object.hasOwn(MCP_CLIENTS, name) ? MCP_CLIENTS[name] : undefined;
}
