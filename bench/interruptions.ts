// How often a person is interrupted over a working day of permission requests (workday.ts), one
// by one, with grants, with review-all, and with both. The day is replayed on a simulated clock
// through askbridge's own rules: what a grant made from an approval is and covers (grant-rules.ts),
// and what is risky (risk.ts): never granted, and in a review its own confirmation. Each session
// waits for its answer before it goes on; the person acts a fixed time after something starts
// waiting. An interruption is one thing the person must act on: a card, or one review of all that
// waits (a risky approval in it counts once more: its own confirmation).
import { ruleCovers, ruleFor } from '../src/grant-rules.js';
import { DEFAULT_CONFIG } from '../src/config.js';
import { riskOf } from '../src/risk.js';
import type { WorkdayRequest } from './workday.js';

export type Way = 'one by one' | 'grants' | 'review all' | 'grants and review all';

/** How long after something starts waiting the person acts, and how long they take per card. */
const REACTION_SECONDS = 45;
const PER_CARD_SECONDS = 10;
/** The grant the person makes from each card it can be made from: one hour, every session of the project. */
const GRANT_SECONDS = 60 * 60;

type Waiting = { request: WorkdayRequest; since: number };

/** Interruptions per 100 requests, and what they were made of. */
export function interruptions(day: readonly WorkdayRequest[], way: Way, home = '/home/alice'): { per100: number; cards: number; reviews: number; granted: number } {
  const grantsOn = way === 'grants' || way === 'grants and review all';
  const reviewOn = way === 'review all' || way === 'grants and review all';
  const risky = (request: WorkdayRequest) => riskOf(request, request.cwd, DEFAULT_CONFIG, home) !== undefined;
  const queues = new Map<string, WorkdayRequest[]>();
  for (const request of day) queues.set(request.session, [...(queues.get(request.session) ?? []), request]);
  // When each session asks next (seconds into the day), and what waits for the person.
  const nextAsk = new Map<string, number>([...queues.keys()].map((session) => [session, queues.get(session)![0]!.thinkSeconds]));
  const waiting: Waiting[] = [];
  const grants: Array<{ rule: string; cwd: string; endsAt: number }> = [];
  let personActsAt = Number.POSITIVE_INFINITY;
  let cards = 0;
  let reviews = 0;
  let granted = 0;
  let extra = 0;

  const decided = (request: WorkdayRequest, at: number) => {
    const queue = queues.get(request.session)!;
    queue.shift();
    if (queue.length > 0) nextAsk.set(request.session, at + queue[0]!.thinkSeconds);
    else nextAsk.delete(request.session);
  };

  while (nextAsk.size > 0 || waiting.length > 0) {
    const [session, asksAt] = [...nextAsk.entries()].reduce((soonest, entry) => (entry[1] < soonest[1] ? entry : soonest), ['', Number.POSITIVE_INFINITY] as [string, number]);
    if (asksAt <= personActsAt) {
      nextAsk.delete(session);
      const request = queues.get(session)![0]!;
      const covered = grantsOn && !risky(request) && grants.some((grant) => grant.endsAt > asksAt && grant.cwd === request.cwd && ruleCovers(grant.rule, request, request.cwd));
      if (covered) {
        granted += 1;
        decided(request, asksAt);
        continue;
      }
      cards += 1;
      waiting.push({ request, since: asksAt });
      if (waiting.length === 1) personActsAt = asksAt + REACTION_SECONDS;
      continue;
    }
    const now = personActsAt;
    const handled = reviewOn && waiting.length >= 2 ? waiting.splice(0) : waiting.splice(0, 1);
    reviews += 1;
    if (reviewOn && handled.length >= 2) extra += handled.filter(({ request }) => risky(request)).length;
    for (const { request } of handled) {
      const rule = grantsOn && !risky(request) ? ruleFor(request, request.cwd) : undefined;
      if (rule) grants.push({ rule: rule.rule, cwd: request.cwd, endsAt: now + GRANT_SECONDS });
      decided(request, now + PER_CARD_SECONDS);
    }
    personActsAt = waiting.length > 0 ? now + PER_CARD_SECONDS : Number.POSITIVE_INFINITY;
  }
  return { per100: ((reviews + extra) * 100) / day.length, cards, reviews: reviews + extra, granted };
}
