// What each hook event an agent sends means, whichever door it came through: Claude Code's own http
// POST or the command hook (both carry every event, so what a person gets never depends on which
// one `install` wrote). A question or a permission is an ask to hold until it is settled; the end
// of a turn is held only while someone it is for is away (away.ts); a typed prompt and a notification are answered
// at once, after what they change. An MCP server's elicitation is held like a question, once its
// form is read (or its URL checked); one askbridge will not show goes to Claude Code's own dialog at
// once, and any later event of its session lets it go (the session moved on). The same wait asked through two entries (askbridge wired in the
// user settings and in a project) is one ask: each request carries what makes it the same
// (`sameAs`), and the store has the second wait with the first. No HTTP here: the routes (hook.ts)
// write what this returns.
import { createHash, randomUUID } from 'node:crypto';
import { offeredSuggestions, planChoices, PLAN_TOOL } from '../approvals.js';
import { DEFAULT_STOP_CAP } from '../http-hook.js';
import { LAST_MESSAGE_CHARS, type Approval, type ElicitationPayload, type HookEnvironment, type HookRequest, type NotificationPayload, type PermissionPayload, type StopPayload } from '../protocol.js';
import { isUnattended, openAsk, routeOf, type AskDesk, type Asked } from './asks/open-ask.js';
import { askerKeyOf, identityOf, type AskerIdentity, type Door, type Outcome } from './asks/store.js';
import type { AwaySwitch } from './away.js';
import { claudeCodeDecision } from './decisions/claude-code.js';
import { permissionDecision } from './decisions/claude-code-permission.js';
import { stopDecision } from './decisions/claude-code-stop.js';
import { codexPermissionDecision } from './decisions/codex.js';
import { elicitationDecision } from './decisions/claude-code-elicitation.js';
import { loadElicitationForms, readElicitation } from './elicitation-forms.js';

/** The tool whose calls are questions, asked through PreToolUse. */
export const ASK_TOOL = 'AskUserQuestion';

/** How many of the sessions whose replies in a row are counted are kept: the oldest are forgotten first. */
const MAX_COUNTED_SESSIONS = 10_000;

/** One hook request, checked: its event's payload, how it came, and what its entry forwarded. */
export type HookCall = {
  payload: HookRequest['payload'];
  environment: HookEnvironment;
  door: Extract<Door, 'http-hook' | 'command-hook'>;
  /** The agent that ran it: the command hook says Codex with `--agent codex`. */
  agent: 'claude-code' | 'codex';
  /** The machine a remote http hook names. */
  machine: string | undefined;
  /** Whose session it is, as a remote http hook says (remote-hook --person): it names, never authorises. */
  person?: string | undefined;
  /** Claude Code's limit on replies in a row, as the entry forwards it (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP); unset or not a count: its default. */
  stopCap: string | undefined;
};

/** What the door does with a request: answer at once with no decision, or hold it while its ask waits. */
export type Received = { kind: 'empty' } | { kind: 'hold'; asked: Asked<object>; onSettled?: (outcome: Outcome) => void };

type Log = { info(fields: Record<string, unknown>, message: string): void; debug(fields: Record<string, unknown>, message: string): void; warn(fields: Record<string, unknown>, message: string): void };

const EMPTY: Received = { kind: 'empty' };

/** A stable fingerprint of a tool's input, as the agent sent it to each of its entries alike. */
function inputHash(toolInput: unknown): string {
  return createHash('sha256').update(JSON.stringify(toolInput)).digest('base64url');
}

/**
 * Who sent a hook request, as the store knows the asker of what it opened: what an event says of a
 * session (it moved on, the person typed there) reaches only the asks of the same door, agent and
 * machine. A session id is no secret: another machine's hook, or anyone with the hook key, may name it.
 */
function askerOf(call: HookCall): AskerIdentity {
  return identityOf({ door: call.door, agent: call.agent, machine: call.machine });
}

export function createHookEvents(deps: { desk: AskDesk; away: Pick<AwaySwitch, 'awayFor'> }) {
  const { store } = deps.desk;
  // Replies in a row per session of one asker, for the turn (prompt_id) they continue: Claude Code
  // ends a turn that was continued its limit of times, whatever the hook says. Another asker naming
  // the same session never resets or adds to the count.
  const repliesInARow = new Map<string, { promptId: string | undefined; replies: number }>();
  const countReply = (counter: string, promptId: string | undefined, replies: number) => {
    repliesInARow.delete(counter);
    repliesInARow.set(counter, { promptId, replies });
    if (repliesInARow.size > MAX_COUNTED_SESSIONS) repliesInARow.delete(repliesInARow.keys().next().value!);
  };

  /** Whether someone this ask would be for (its route's people, or anyone) is away. */
  const awayFor = (asked: Asked) => deps.away.awayFor({ route: routeOf(deps.desk, asked) });

  /** The end of a turn: held for a reply only while someone it is for is away, and never in a session nobody watches. */
  function turnEnd(call: HookCall, payload: StopPayload): Received {
    const { session_id: sessionId, prompt_id: promptId } = payload;
    if (payload.hook_event_name === 'SubagentStop') return EMPTY;
    const by = askerOf(call);
    store.movedOn(sessionId, by, { turnOver: true });
    const counter = `${askerKeyOf(by)}\0${sessionId}`;
    if (!payload.stop_hook_active) repliesInARow.delete(counter);
    if (isUnattended(call.environment)) return EMPTY;
    const counted = payload.stop_hook_active ? repliesInARow.get(counter) : undefined;
    const replies = counted && counted.promptId === promptId ? counted.replies : 0;
    const replyLimit = stopCapOf(call.stopCap);
    const message = payload.last_assistant_message ?? '';
    const truncated = message.length > LAST_MESSAGE_CHARS;
    const asked: Asked<object> = {
      agent: 'claude-code',
      sessionId,
      toolUseId: `turn-end-${randomUUID()}`,
      // Both entries of a session wired twice send the same stop at once.
      sameAs: `turn-end\0${sessionId}\0${promptId ?? ''}\0${replies}`,
      cwd: payload.cwd,
      toolInput: {},
      questions: [],
      turnEnd: { lastMessage: truncated ? message.slice(0, LAST_MESSAGE_CHARS) : message, ...(truncated ? { truncated: true } : {}), repliesInARow: replies, replyLimit },
      environment: call.environment,
      door: call.door,
      reply: () => stopDecision,
      // Claude Code would override one more block: the person sees how the turn ended, and Claude stops.
      ...(replies >= replyLimit ? { settledAtOnce: { status: 'done', source: { kind: 'policy', action: 'terminal', trigger: 'reply-limit' } } } : {}),
      ...(call.machine ? { machine: call.machine } : {}),
      ...(call.person ? { person: call.person } : {}),
      ...(payload.transcript_path ? { transcriptPath: payload.transcript_path } : {}),
    };
    if (!awayFor(asked)) return EMPTY;
    return { kind: 'hold', asked, onSettled: (outcome) => outcome.status === 'replied' && countReply(counter, promptId, replies + 1) };
  }

  /**
   * The session waits on the person in its terminal. Claude Code's idle notification (a minute
   * after every turn) says so only while someone it is for is away: otherwise they are at that terminal,
   * and it makes no card, no count and no notice. A permission dialog that has its card needs no
   * second one, and the same notification from a second entry is the one shown already.
   */
  function notification(call: HookCall, payload: NotificationPayload, log: Log): Received {
    const { session_id: sessionId } = payload;
    const kind = payload.notification_type ?? 'notification';
    const asked: Asked = {
      agent: 'claude-code',
      sessionId,
      toolUseId: `terminal-wait-${randomUUID()}`,
      cwd: payload.cwd,
      toolInput: {},
      questions: [],
      terminalWait: { kind, message: payload.message },
      environment: call.environment,
      door: call.door,
      ...(call.machine ? { machine: call.machine } : {}),
      ...(call.person ? { person: call.person } : {}),
      ...(payload.transcript_path ? { transcriptPath: payload.transcript_path } : {}),
    };
    if (kind === 'idle_prompt' && !awayFor(asked)) return EMPTY;
    const pending = store.pending().filter((ask) => ask.sessionId === sessionId);
    if (pending.some((ask) => ask.terminalWait?.kind === kind && ask.terminalWait.message === payload.message)) return EMPTY;
    // A newer wait replaces the one before.
    store.movedOn(sessionId, askerOf(call));
    if (kind === 'permission_prompt' && pending.some((ask) => ask.approval || ask.turnEnd)) return EMPTY;
    const opened = openAsk(deps.desk, asked, log);
    if (opened.kind !== 'opened') log.warn({ why: opened.kind }, 'a wait in the terminal was not shown');
    return EMPTY;
  }

  /**
   * An MCP server asks for input: held like a question, answered in Claude Code's Elicitation
   * format. A form askbridge will not show, or a URL that is not an http(s) address, is not held:
   * Claude Code's own dialog asks at once, and the log says why. Codex runs no such hook.
   */
  async function elicitation(call: HookCall, payload: ElicitationPayload, log: Log): Promise<Received> {
    if (call.agent !== 'claude-code') return EMPTY;
    const read = readElicitation(
      { server: payload.mcp_server_name, message: payload.message, mode: payload.mode, requestedSchema: payload.requested_schema, url: payload.url, elicitationId: payload.elicitation_id },
      await loadElicitationForms(),
    );
    if ('refused' in read) {
      log.warn({ reason: read.refused, mode: payload.mode }, "elicitation not held: Claude Code's own dialog asks");
      return EMPTY;
    }
    const { session_id: sessionId, cwd, transcript_path: transcriptPath } = payload;
    const asked: Asked<object> = {
      agent: 'claude-code',
      sessionId,
      toolUseId: `elicitation-${randomUUID()}`,
      // Both entries of a session wired twice send the same request at once.
      sameAs: `elicitation\0${sessionId}\0${inputHash([payload.mcp_server_name, payload.message, payload.mode, payload.requested_schema ?? null, payload.url ?? null, payload.elicitation_id ?? null])}`,
      cwd,
      toolInput: {},
      questions: [],
      elicitation: read.elicitation,
      environment: call.environment,
      door: call.door,
      reply: () => elicitationDecision,
      ...(call.machine ? { machine: call.machine } : {}),
      ...(call.person ? { person: call.person } : {}),
      ...(transcriptPath ? { transcriptPath } : {}),
    };
    return { kind: 'hold', asked };
  }

  return {
    /** What a hook request means: an ask to hold, or nothing to decide (after what it changes). */
    async receive(call: HookCall, log: Log): Promise<Received> {
      const { payload } = call;
      switch (payload.hook_event_name) {
        case 'PreToolUse':
          store.movedOn(payload.session_id, askerOf(call));
          return { kind: 'hold', asked: askedByHook(payload, call) };
        case 'PermissionRequest':
          // AskUserQuestion raises a PermissionRequest too (default mode): its questions are asked
          // through PreToolUse already, so it is never shown twice. No decision: the question's own path decides.
          if (payload.tool_name === ASK_TOOL) return EMPTY;
          store.movedOn(payload.session_id, askerOf(call));
          return { kind: 'hold', asked: approvalByHook(payload, call, log) };
        case 'Stop':
        case 'SubagentStop':
          return turnEnd(call, payload);
        case 'UserPromptSubmit': {
          const settled = store.movedOn(payload.session_id, askerOf(call), { typed: true });
          if (settled.length > 0) log.info({ askIds: settled.map((ask) => ask.id) }, 'the person typed in the terminal: the session waits here no more');
          return EMPTY;
        }
        case 'Notification':
          return notification(call, payload, log);
        case 'Elicitation':
          return elicitation(call, payload, log);
      }
      return EMPTY;
    },
  };
}

export type HookEvents = ReturnType<typeof createHookEvents>;

/** Claude Code's limit on replies in a row, as an entry forwards it; its default when unset or not a count. */
function stopCapOf(value: string | undefined): number {
  const cap = typeof value === 'string' && /^\s*\d{1,6}\s*$/.test(value) ? Number(value) : Number.NaN;
  return cap >= 1 ? cap : DEFAULT_STOP_CAP;
}

type QuestionPayload = Extract<HookCall['payload'], { hook_event_name: 'PreToolUse' }>;

/** A question's payload, as an ask to open, answered in Claude Code's decision format. */
function askedByHook(payload: QuestionPayload, call: HookCall): Asked<object> {
  const { session_id: sessionId, tool_use_id: toolUseId, cwd, tool_input: toolInput, questions, transcript_path: transcriptPath } = payload;
  return {
    agent: 'claude-code',
    sessionId,
    toolUseId,
    sameAs: `question\0${sessionId}\0${toolUseId}\0${inputHash(toolInput)}`,
    cwd,
    toolInput,
    questions,
    environment: call.environment,
    door: call.door,
    reply: (config) => (outcome) => claudeCodeDecision({ toolInput, answerMode: config.answerMode, waitSeconds: config.waitSeconds }, outcome),
    ...(call.machine ? { machine: call.machine } : {}),
    ...(call.person ? { person: call.person } : {}),
    ...(transcriptPath ? { transcriptPath } : {}),
  };
}

/**
 * A PermissionRequest, as an approval to open, answered in its agent's format: Claude Code's, with
 * each of its suggestions that can be put in true words (a plan's approve choices for ExitPlanMode); or Codex's
 * (its command hook, `--agent codex`), which takes no "always allow" back (protocol.md 7), so none
 * is offered.
 */
function approvalByHook(payload: PermissionPayload, call: HookCall, log: Log): Asked<object> {
  const { session_id: sessionId, cwd, tool_name: toolName, tool_input: toolInput, transcript_path: transcriptPath, permission_mode: permissionMode } = payload;
  const codex = call.agent === 'codex';
  const plan = !codex && toolName === PLAN_TOOL;
  const sent = codex ? [] : payload.permission_suggestions;
  const described = offeredSuggestions(sent);
  // One that cannot be put in true words is left to Claude Code's own dialog, which still offers it.
  if (described.length < sent.length) log.info({ sent: sent.length, offered: described.length }, 'suggestions not offered: askbridge cannot put them in words');
  const offered = plan ? planChoices(described) : described;
  const suggestions = offered.map((choice) => choice.suggestion);
  const approval: Approval = {
    toolName,
    toolInput,
    suggestions: offered.map((choice) => ({ label: choice.words })),
    ...(plan && typeof toolInput.plan === 'string' ? { plan: toolInput.plan } : {}),
    ...(permissionMode ? { permissionMode } : {}),
  };
  return {
    agent: call.agent,
    sessionId,
    // No agent names a tool call in a PermissionRequest: each is its own, and a duplicate is the same tool and input at once.
    toolUseId: `permission-${randomUUID()}`,
    sameAs: `approval\0${sessionId}\0${toolName}\0${inputHash(toolInput)}`,
    cwd,
    toolInput,
    questions: [],
    approval,
    environment: call.environment,
    door: call.door,
    reply: () => (outcome) => (codex ? codexPermissionDecision(toolName, outcome) : permissionDecision({ toolName, toolInput, suggestions }, outcome)),
    ...(call.machine ? { machine: call.machine } : {}),
    ...(call.person ? { person: call.person } : {}),
    ...(transcriptPath ? { transcriptPath } : {}),
  };
}
