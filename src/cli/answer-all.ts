// `askbridge answer --all` on a terminal: every waiting permission in one go, as the page's Review
// all. Each is shown whole first (the tool and its input, as the one-at-a-time flow shows it:
// flow.ts), then one list ticks the ones to allow, a second the ones to deny among the rest (the
// others keep waiting), then one message goes to each one denied. Each decision is the same request
// as `answer ID --allow` (POST /api/asks/:id/decide), one per permission, so the first answer still
// wins: one settled elsewhere meanwhile (the live feed says so, or the daemon refuses it as too
// late) is left out and named. Plans are not in it: each is approved or sent back on its own. One
// that needs its own confirmation, or two people (onlyDenied), may be denied here, never allowed. `watch`
// opens the same review (reviewAll) from its own live feed, and goes on once it ends.
import { cancel, intro, log, outro } from '@clack/prompts';
import { askbridgeCommand } from '../command-name.js';
import { CLI_MAY_ONLY_DENY, needsTwoPeople, twoPeopleLine } from '../two-people.js';
import { approvalTarget, PLAN_TOOL } from '../approvals.js';
import { decidedText, decisionInWords, toolLine } from '../approval-text.js';
import { AskReplySchema, ErrorReplySchema, LIMITS, type ApprovalDecision, type AskView } from '../protocol.js';
import { terminalText } from '../visible-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { openFeed, settledText } from './events.js';
import { INFO, say, showApproval, shown } from './flow.js';
import { askText, dropTypeAhead, pickSome, type Pressed, type PromptEnd } from './prompts.js';
import { readReply } from './replies.js';

/** A waiting permission a bulk decision may take: not a plan, and shown whole here (its choices allow it). */
export function reviewable(call: AskView): boolean {
  return call.status === 'pending' && call.approval !== undefined && call.approval.toolName !== PLAN_TOOL && call.choices.allow;
}

/**
 * Why this permission may only be denied here, in words, or undefined: one two people must allow is
 * allowed only from their own paired devices; a risky one on its own (`answer ID`), with its own confirmation.
 */
function onlyDenied(call: AskView, command: string): string | undefined {
  if (needsTwoPeople(call)) return `${twoPeopleLine(call)}: ${CLI_MAY_ONLY_DENY}. It may be denied here.`;
  if (call.risk) return `Allow it on its own (\`${command} answer ${call.id}\`): ${shown(call.risk.reasons.join('; '))}. It may be denied here.`;
  return undefined;
}

const LEAVE = 'Esc leaves, nothing is sent';

/** A permission in one line, as the lists name it: "Bash: npm test" (every one is a permission). Not marked. */
function lineOf(call: AskView): string {
  const { toolName, toolInput } = call.approval!;
  return toolLine(toolName, approvalTarget(toolName, toolInput));
}

/**
 * Exit 0 once the decisions are sent (those settled elsewhere named); 130 when left with nothing
 * sent; 1 when none waits; 6 when the daemon went away before anything was sent.
 */
export async function answerAllOnTerminal(io: CommandIo): Promise<number> {
  const command = askbridgeCommand(io.env);
  const daemon = connectToDaemon(io.env);
  const stop = new AbortController();
  /** How each one settled elsewhere while the lists were on screen, by id. */
  const settledElsewhere = new Map<string, AskView>();
  const feed = await openFeed(daemon, (event) => {
    if (event.type === 'resolved') settledElsewhere.set(event.ask.id, event.ask);
  });
  let lost: CliError | undefined;
  void feed.ended.then((why) => {
    lost = why;
    stop.abort();
  });
  try {
    const calls = feed.waiting.filter(reviewable);
    if (calls.length === 0) throw new CliError(`no permission is waiting (\`${command} pending\` shows what waits; a plan is decided on its own with \`${command} answer ID\`)`);
    const end = await reviewAll(daemon, calls, { settledElsewhere, stop: stop.signal, command });
    if (end.kind === 'left') return 130;
    if (end.kind === 'stopped') {
      cancel(`Stopped: ${terminalText(lost?.message ?? 'the live connection ended', '    ')}. Nothing was sent.`);
      return lost?.exitCode ?? 1;
    }
    return 0;
  } finally {
    feed.close();
  }
}

/**
 * How a review ended: its decisions sent (or none ticked; `settled`: the ids of those it decided or
 * found settled), left with nothing sent (Esc or Ctrl+C: said on screen), or `stop` ended it (the
 * caller says why).
 */
export type ReviewEnd = { kind: 'done'; settled: string[] } | { kind: 'left'; by: 'escape' | 'ctrl-c' } | { kind: 'stopped' };

/** What the caller's live feed tells a review while it runs: how each one settled elsewhere meanwhile (by id), and that the feed ended (`stop`). */
export type ReviewLive = { settledElsewhere: ReadonlyMap<string, AskView>; stop: AbortSignal; command: string };

/**
 * The review itself, for `answer --all` and `watch`: `calls` (reviewable, oldest first) shown whole,
 * the two lists, the message, then one request per decision.
 */
export async function reviewAll(daemon: DaemonClient, calls: AskView[], { settledElsewhere, stop, command }: ReviewLive): Promise<ReviewEnd> {
  intro(`Review all: ${calls.length === 1 ? 'one permission waits' : `${calls.length} permissions wait`}`);
  for (const [index, call] of calls.entries()) {
    say(INFO, `${index + 1} of ${calls.length} · Project ${shown(call.cwd)} · Session ${shown(call.sessionId)}`);
    showApproval(call.approval!, call, false);
    const why = onlyDenied(call, command);
    if (why !== undefined) log.warn(why);
  }
  await dropTypeAhead();
  const run = { stop, leave: LEAVE };
  const item = (call: AskView) => ({ label: shown(lineOf(call)), description: `${calls.indexOf(call) + 1} of ${calls.length} · ${shown(call.cwd)}` });
  /** Those of `list` still waiting: one settled elsewhere since it was shown is said once, and left out. */
  const said = new Set<string>();
  const stillWaiting = (list: AskView[]) =>
    list.filter((call) => {
      const elsewhere = settledElsewhere.get(call.id);
      if (elsewhere && !said.has(call.id)) {
        said.add(call.id);
        log.warn(`No longer waiting, left out: ${shown(lineOf(call))} (${settledText(elsewhere)})`);
      }
      return elsewhere === undefined;
    });

  const allowable = stillWaiting(calls).filter((call) => onlyDenied(call, command) === undefined);
  let allow: AskView[] = [];
  if (allowable.length > 0) {
    const picked = await pickSome({ ...run, message: 'Allow which? The ones left unticked come next', items: allowable.map(item), initial: [], how: `↑/↓, Space or a number (1-${allowable.length}) ticks · Enter confirms (none ticked allows none)`, validate: () => undefined });
    if (!('chosen' in picked)) return left(picked);
    allow = picked.chosen.map((at) => allowable[at]!);
  }
  const rest = stillWaiting(calls.filter((call) => !allow.includes(call)));
  let deny: AskView[] = [];
  if (rest.length > 0) {
    const picked = await pickSome({ ...run, message: 'Deny which? The ones left unticked keep waiting', items: rest.map(item), initial: [], how: `↑/↓, Space or a number (1-${rest.length}) ticks · Enter confirms (none ticked denies none)`, validate: () => undefined });
    if (!('chosen' in picked)) return left(picked);
    deny = picked.chosen.map((at) => rest[at]!);
  }
  let message: string | undefined;
  if (deny.length > 0) {
    const typed = await askText({ stop, message: `A message for ${deny.length === 1 ? 'the one denied' : `each of the ${deny.length} denied`} (optional): Enter denies`, placeholder: 'what to do instead', initial: '', validate: (value) => (value.length > LIMITS.otherChars ? `At most ${LIMITS.otherChars} characters, this is ${value.length}: shorten it` : undefined) });
    if ('ended' in typed) return left(typed);
    message = typed.typed.trim() === '' ? undefined : typed.typed;
  }
  if (allow.length === 0 && deny.length === 0) {
    outro('Nothing ticked: nothing was sent, every permission still waits.');
    return { kind: 'done', settled: [...said] };
  }

  // One request per permission, as `answer ID` sends it: the daemon checks each as it checks one.
  const sent = { allowed: 0, denied: 0 };
  const settledIds = [...said];
  const before: string[] = [];
  const decisions: Array<[AskView, ApprovalDecision]> = [...allow.map((call): [AskView, ApprovalDecision] => [call, { behavior: 'allow' }]), ...deny.map((call): [AskView, ApprovalDecision] => [call, { behavior: 'deny', ...(message === undefined ? {} : { message }) }])];
  for (const [call, decision] of decisions) {
    const elsewhere = settledElsewhere.get(call.id);
    if (elsewhere) {
      before.push(`${shown(lineOf(call))} (${settledText(elsewhere)})`);
      settledIds.push(call.id);
      continue;
    }
    const response = await daemon.request('POST', `/api/asks/${call.id}/decide`, decision);
    if (response.status === 200 || response.status === 409) settledIds.push(call.id);
    if (response.status === 200) {
      const decided = readReply(AskReplySchema, response.body, 'decision reply').ask;
      const words = decisionInWords(decided);
      if (words && decided.approval) log.success(terminalText(decidedText(decided.approval.toolName, approvalTarget(decided.approval.toolName, decided.approval.toolInput), words), '    '));
      sent[decision.behavior === 'allow' ? 'allowed' : 'denied']++;
    } else if (response.status === 409) {
      before.push(`${shown(lineOf(call))} (${settledText(readReply(AskReplySchema, response.body, 'reply to a late decision').ask)})`);
    } else {
      log.error(`${shown(lineOf(call))}: not sent: ${terminalText(readReply(ErrorReplySchema, response.body, 'refusal').error.message, '    ')}`);
    }
  }
  for (const line of before) log.warn(`Already settled, left out: ${line}`);
  const waiting = rest.length - deny.length;
  const settled = said.size + before.length;
  outro(`${sent.allowed} allowed, ${sent.denied} denied${settled > 0 ? `, ${settled} already settled elsewhere` : ''}${waiting > 0 ? `; ${waiting} still waiting` : ''}.`);
  return { kind: 'done', settled: settledIds };
}

/** A list left without a choice (these lists have no letter keys: `Pressed` does not come): nothing was sent; Esc and Ctrl+C say so here. */
function left(end: PromptEnd | Pressed): ReviewEnd {
  if ('ended' in end && end.ended === 'stopped') return { kind: 'stopped' };
  cancel('Left: nothing was sent, every permission still waits.');
  return { kind: 'left', by: 'ended' in end && end.ended === 'ctrl-c' ? 'ctrl-c' : 'escape' };
}
