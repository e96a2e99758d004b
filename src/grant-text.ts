// A grant in words, as the terminal flow, `askbridge grants` and Telegram say it: how long one may
// hold (the choices a person picks from), where a live one holds and how long it has left. `shown`
// makes outside text (a folder, a machine's name) safe where it is printed: the terminal's escaping,
// or a chat's marking of invisible characters. Pure: no I/O.
import { agentName } from './agents.js';
import type { Grant } from './protocol.js';

/** How long a grant may hold, as the page offers it: the daemon holds any to at most eight hours. */
export const GRANT_DURATIONS: ReadonlyArray<{ label: string; choice: { minutes: number } | { untilSessionEnds: true } }> = [
  { label: '15 minutes', choice: { minutes: 15 } },
  { label: '1 hour', choice: { minutes: 60 } },
  { label: 'until this session ends (at most 8 hours)', choice: { untilSessionEnds: true } },
];

/** "this session of Claude Code in /home/me/app", "every session of Claude Code in /home/me/app". */
export function grantScopeText(grant: Pick<Grant, 'agent' | 'machine' | 'cwd' | 'scope'>, shown: (text: string) => string): string {
  const where = `${agentName(grant.agent)}${grant.machine ? ` on ${shown(grant.machine)}` : ''} in ${shown(grant.cwd)}`;
  return grant.scope === 'session' ? `this session of ${where}` : `every session of ${where}`;
}

/** "14 min left", "1 h 5 min left", "until the session ends (at most 7 h 59 min left)". */
export function grantTimeLeft(grant: Pick<Grant, 'endsAt' | 'untilSessionEnds'>, now = Date.now()): string {
  const minutes = Math.max(0, Math.ceil((grant.endsAt - now) / 60_000));
  const left = minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return grant.untilSessionEnds ? `until the session ends (at most ${left} left)` : `${left} left`;
}
