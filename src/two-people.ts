// Where an approval two distinct people must allow stands, in words: "Needs two people", then
// "1 of 2: allowed by alice at 14:02". The page, Telegram and the terminal say it alike, from this
// one module: it runs in the page too, so it imports nothing (its shape is AskView's, structurally).

/** What the line is made of: an AskView's approval, route and allows. */
type TwoPeopleAsk = { approval?: unknown; route?: { approvals: number } | undefined; allows?: ReadonlyArray<{ person: string; at: number }> | undefined };

/** Why the CLI (the daemon's own user, nobody's device) cannot allow such an ask: the daemon says it, and the CLI before asking. */
export const CLI_MAY_ONLY_DENY = 'two people must allow this from their own paired devices; the CLI may deny it';

/** Whether two distinct people must allow this ask (route.approvals 2 counts for approvals only). */
export function needsTwoPeople(view: TwoPeopleAsk): boolean {
  return view.approval !== undefined && view.route?.approvals === 2;
}

/** The line for an approval two people must allow (times in local hh:mm); undefined for any other ask. */
export function twoPeopleLine(view: TwoPeopleAsk): string | undefined {
  if (!needsTwoPeople(view)) return undefined;
  const allows = view.allows ?? [];
  if (allows.length === 0) return 'Needs two people';
  return `${allows.length} of 2: allowed by ${allows.map((allow) => `${allow.person} at ${clockTime(allow.at)}`).join(' and ')}`;
}

/** A time of day as the person's clock shows it: 14:02. */
function clockTime(at: number): string {
  const time = new Date(at);
  return `${String(time.getHours()).padStart(2, '0')}:${String(time.getMinutes()).padStart(2, '0')}`;
}
