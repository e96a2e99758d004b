// What word of a waiting question may say once it leaves the daemon (a webhook, a push to a phone):
// the project and each question's header. Headers and question text come from a model that may have
// been prompt-injected, so each is cut short and its invisible characters are marked; the question
// text itself goes only into a push, and only when the user's config asks for it (push.fullText). The
// labels of a simple question's options ride along too, for the buttons that answer it with one tap,
// each cut so that no two buttons read the same.
import { agentName } from '../agents.js';
import type { AskView } from '../protocol.js';
import { approvalTarget, toolTitle } from '../approvals.js';
import { shorten, shortenApart } from '../shorten.js';
import { markInvisible } from '../visible-text.js';

export type Notice = {
  id: string;
  /** The last part of the folder the question was asked in, as the page names it. */
  project: string;
  /** The agent that asked, by name, when it is not Claude Code (whose notices name no agent). */
  agent?: string;
  /** Each question's header, those that have one. */
  headers: string[];
  /** Each question's text: only with push.fullText. */
  questions?: string[];
  /**
   * The labels of the options, in order, when the ask is one single-select question with at most
   * ONE_TAP_OPTIONS of them: what a notification may offer as buttons that answer it. Each is cut
   * short so that no two read the same (shortenApart); when no cut does that, there are none.
   */
  options?: string[];
  /**
   * A permission Claude Code asks for: the tool's name; what it acts on (the command, the file) only
   * with push.fullText; `risky` when it is risky (risk.ts), with its reasons only with push.fullText
   * (they may name a path). A notice never allows it.
   */
  approval?: { tool: string; target?: string; risky?: string[] };
  /** Claude finished a turn while the person is away: the start of its last message only with push.fullText. */
  turnEnd?: { said?: string };
  /** The session waits for the person in its terminal: Claude Code's kind of wait; its message only with push.fullText. */
  terminalWait?: { kind: string; message?: string };
  /** An MCP server asks for input: its name (marked, cut); its message only with push.fullText. No button answers it. */
  elicitation?: { server: string; message?: string };
};

const PROJECT_CHARS = 60;
const HEADER_CHARS = 60;
const QUESTION_CHARS = 200;
/** A button's label: a few words fit on a phone's notification. */
const OPTION_CHARS = 40;

/** The most options a question may have to be answered from a notification's buttons (ntfy shows three). */
export const ONE_TAP_OPTIONS = 3;

/** At most this many questions of a call are told (a script may ask ten at once). */
const QUESTIONS = 4;

/** Marked first, then cut: the length holds whatever the text hides. */
const bounded = (text: string, max: number) => shorten(markInvisible(text), max);

export function noticeOf(view: AskView, options: { fullText: boolean }): Notice {
  const notice = noticeOfKind(view, options);
  return view.agent && view.agent !== 'claude-code' ? { ...notice, agent: agentName(view.agent) } : notice;
}

function noticeOfKind(view: AskView, options: { fullText: boolean }): Notice {
  const parts = view.cwd.split(/[\\/]+/).filter(Boolean);
  if (view.approval) {
    const { toolName, toolInput } = view.approval;
    const target = options.fullText ? approvalTarget(toolName, toolInput, QUESTION_CHARS) : '';
    return {
      id: view.id,
      project: bounded(parts.at(-1) ?? 'Unknown project', PROJECT_CHARS),
      headers: [],
      approval: {
        tool: bounded(toolTitle(toolName), HEADER_CHARS),
        ...(target ? { target: bounded(target, QUESTION_CHARS) } : {}),
        // Its reasons may name what it acts on (a path): like the target, only with push.fullText.
        ...(view.risk ? { risky: options.fullText ? view.risk.reasons.slice(0, QUESTIONS).map((reason) => bounded(reason, QUESTION_CHARS)) : [] } : {}),
      },
    };
  }
  const project = bounded(parts.at(-1) ?? 'Unknown project', PROJECT_CHARS);
  if (view.turnEnd) {
    const said = options.fullText ? view.turnEnd.lastMessage.trim() : '';
    return { id: view.id, project, headers: [], turnEnd: said ? { said: bounded(said, QUESTION_CHARS) } : {} };
  }
  if (view.terminalWait) {
    const { kind, message } = view.terminalWait;
    return { id: view.id, project, headers: [], terminalWait: { kind: bounded(kind, HEADER_CHARS), ...(options.fullText && message.trim() ? { message: bounded(message, QUESTION_CHARS) } : {}) } };
  }
  if (view.elicitation) {
    const { server, message } = view.elicitation;
    return { id: view.id, project, headers: [], elicitation: { server: bounded(server, HEADER_CHARS), ...(options.fullText && message.trim() ? { message: bounded(message, QUESTION_CHARS) } : {}) } };
  }
  const questions = view.questions.slice(0, QUESTIONS);
  const [only] = view.questions;
  const oneTap = view.questions.length === 1 && only && !only.multiSelect && only.options.length > 0 && only.options.length <= ONE_TAP_OPTIONS;
  // Buttons that answer differently never read the same: when no cut tells them apart, there are none.
  const buttons = oneTap ? shortenApart(only.options.map((option) => markInvisible(option.label)), OPTION_CHARS) : undefined;
  return {
    id: view.id,
    project: bounded(parts.at(-1) ?? 'Unknown project', PROJECT_CHARS),
    headers: questions.map((question) => question.header).filter((header) => header.trim() !== '').map((header) => bounded(header, HEADER_CHARS)),
    ...(options.fullText ? { questions: questions.map((question) => bounded(question.question, QUESTION_CHARS)) } : {}),
    ...(buttons ? { options: buttons } : {}),
  };
}

/**
 * The one line a notice is told in: its title, as the page's and the service worker's notifications
 * say it. Another agent than Claude Code is named: "Question from Codex in shop", "Codex finished in shop".
 */
export function noticeTitle(notice: Notice): string {
  const { agent, project } = notice;
  if (notice.turnEnd) return `${agent ?? 'Claude'} finished in ${project}`;
  if (notice.terminalWait) return agent ? `${agent} waits for you in ${project}` : `Waiting for you in ${project}`;
  if (notice.elicitation) return `MCP server ${notice.elicitation.server} asks for input in ${project}`;
  const from = agent ? `from ${agent} in ${project}` : `from ${project}`;
  if (notice.approval) return `${notice.approval.risky ? 'Risky permission' : notice.approval.tool === 'Plan' ? 'Plan' : 'Permission'} ${from}`;
  return `Question ${from}`;
}

/** What the question is about, without its text: the headers, or that one waits; for a permission, the tool, or why it is risky. */
export function noticeSubject(notice: Notice): string {
  if (notice.turnEnd) return 'Reply to keep it going, or let it stop';
  if (notice.terminalWait) return terminalWaitSubject(notice.terminalWait.kind);
  if (notice.elicitation) return ELICITATION_SUBJECT;
  if (notice.approval?.risky) return notice.approval.risky.length > 0 ? `Risky: ${notice.approval.risky.join('; ')}` : `Risky: ${notice.approval.tool} waits for permission; read why on the page`;
  if (notice.approval) return notice.approval.tool === 'Plan' ? 'A plan waits for approval' : `${notice.approval.tool} waits for permission`;
  return notice.headers.length > 0 ? notice.headers.join(' · ') : 'A question is waiting';
}

/** What a channel that cannot show an MCP server's form or link says of it (the page, the terminal flow and Telegram show it later). */
export const ELICITATION_SUBJECT = 'An MCP server asks for input: open askbridge to answer it';

/** What a session waits for in its terminal, by Claude Code's kind of notification, in words that hold no model text. */
export function terminalWaitSubject(kind: string): string {
  if (kind === 'idle_prompt') return 'Claude waits for your next prompt in the terminal';
  if (kind === 'permission_prompt') return 'A permission waits in the terminal';
  if (kind === 'elicitation_dialog') return 'An MCP server asks for input in the terminal';
  return 'Waiting for you in the terminal';
}
