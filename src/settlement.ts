// How a settled ask ended, told to whoever asked it when that is not Claude Code (a script through
// `askbridge ask`, an agent through the MCP tool): who or what settled it, and why, in words that
// are true for each case. Claude Code is told through its decision instead (daemon/decisions/).
import { grantText } from './history-file.js';
import { profileOf } from './agents.js';
import type { AskView, Source } from './protocol.js';

type PolicySource = Extract<Source, { kind: 'policy' }>;

/** Why a policy acted, as a clause: "nobody answered in time", "nobody was watching when it was asked"… */
export function policyReason(trigger: PolicySource['trigger']): string {
  if (trigger === 'timeout') return 'nobody answered in time';
  if (trigger === 'nobody-watching') return 'nobody was watching when it was asked';
  if (trigger === 'nobody-reachable') return 'nobody was watching or could be told when it was asked';
  if (trigger === 'reply-limit') return 'Claude Code lets a turn go on only so many times in a row';
  return 'a rule answers it at once';
}

/** Which part of the configuration chose: a rule by name, the recommended option, or both. */
export function policyChooser(source: PolicySource): string {
  const rules = source.rule ? `${source.rule.includes(',') ? 'the rules' : 'the rule'} ${source.rule}` : '';
  if (source.action === 'rule') return rules || 'a rule';
  if (source.action === 'recommended') return rules ? `${rules} and the recommended option` : 'the recommended option';
  return rules || source.action;
}

/** One line: how the ask ended, e.g. "declined: the person chose not to answer". */
export function howItEnded(ask: Pick<AskView, 'status' | 'source' | 'error' | 'agent' | 'asker'>): string {
  const { source } = ask;
  switch (ask.status) {
    case 'pending':
      return 'still waiting';
    case 'answered':
      return source?.kind === 'policy' ? `answered by the configuration (${policyChooser(source)}), not by a person: ${policyReason(source.trigger)}` : 'answered by a person';
    case 'declined':
      return source?.kind === 'policy' ? `declined by the configuration: ${policyReason(source.trigger)}` : 'declined: the person chose not to answer';
    case 'allowed':
      return source?.kind === 'grant' ? grantText(source) : 'allowed by a person';
    case 'denied':
      return source?.kind === 'policy' ? `denied by the configuration: ${policyReason(source.trigger)}` : 'denied by a person';
    case 'handed-to-terminal':
      if (source?.kind === 'policy') return policyReason(source.trigger);
      if (source?.kind === 'daemon-stopped') return 'nobody answered: the daemon stopped';
      if (source?.kind === 'back') return 'the person came back: Claude stopped';
      return 'nobody answered: it was handed to a terminal';
    case 'cancelled':
      if (source?.kind === 'terminal') return 'answered in the terminal';
      return source?.kind === 'session-ended' ? 'withdrawn: its session ended' : `withdrawn: ${profileOf(ask).stoppedWaiting}`;
    case 'replied':
      return 'replied to by a person: Claude went on';
    case 'done':
      return source?.kind === 'policy' ? `Claude stopped: ${policyReason(source.trigger)}` : 'Claude stopped: the person said it is done';
    case 'failed':
      return `failed: ${ask.error ?? 'no reply could be made'}`;
  }
}
