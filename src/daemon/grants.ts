// The person's grants: "allow this, and the same for a while". A grant is made only from a person's
// own allow (decideApproval below, called by the routes a paired page or the CLI's token reach, and
// by a paired Telegram chat), never by a policy, a timeout, a config or an asker. It covers the same
// agent on the same machine, in one session or in every session of one project, until its end
// (at most GRANT_MAX_MINUTES), its session's end, or a revoke. Once people are defined a grant is its
// maker's: it covers only what they could decide (an ask with no route, or one routed to them; one
// made by nobody named, only asks with no route), and only their own pages and chats see and revoke
// it (the CLI sees and revokes every one). Kept as a document (documents.ts: the state directory's
// file, or the shared store, whose daemons all hold the same grants), so a daemon that restarts keeps
// them until they end; one that cannot be read or written leaves them as they are in memory (logged),
// never stops the daemon.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AnswerError } from '../answers.js';
import { ruleCovers } from '../grant-rules.js';
import { GRANT_MAX_MINUTES, GrantSchema, type Agent, type ApprovalDecision, type AskView, type Grant, type Decider, type GrantChoice, type RouteView, type Source } from '../protocol.js';
import type { Viewer } from '../route-access.js';
import type { Document } from './documents.js';
import type { AnswerResult, AskStore } from './asks/store.js';

type Log = { warn(fields: Record<string, unknown>, message: string): void; info(fields: Record<string, unknown>, message: string): void };

/** What a new approval is, for finding a grant that covers it; `route`: whose it is (absent: everyone's). */
export type Covered = { agent: Agent | undefined; machine: string | undefined; sessionId: string; cwd: string; approval: Pick<NonNullable<AskView['approval']>, 'toolName' | 'toolInput'>; route?: Pick<RouteView, 'people'> | undefined };

/** Whether a viewer sees (and may revoke) a grant: the CLI every one, a page or a chat its own person's. */
const seenBy = (grant: Grant, viewer: Viewer) => viewer.kind === 'local' || grant.person === viewer.person;

export type GrantStore = ReturnType<typeof createGrantStore>;

/** How the grants are kept. */
export const GrantsSchema = z.array(GrantSchema);

/** `document`: where they are kept (absent: memory only, for tests); `now`: the clock (tests move it). */
export function createGrantStore(options: { document?: Document<Grant[]>; now?: () => number; log?: Log } = {}) {
  const now = options.now ?? Date.now;
  let grants: Grant[] = options.document?.read() ?? [];
  const listeners = new Set<(grants: Grant[]) => void>();
  let endTimer: NodeJS.Timeout | undefined;

  const alive = (list: Grant[]) => list.filter((grant) => grant.endsAt > now());
  /** The live grants; with a viewer, those it sees. */
  const live = (viewer: Viewer = { kind: 'local' }) => alive(grants).filter((grant) => seenBy(grant, viewer));

  /**
   * Makes a change to the grants (on the store's, with a shared store: it may merge others') and
   * keeps what lives, on disk and in memory; tells every listener; wakes at the next end.
   */
  function changed(change: (current: Grant[]) => Grant[] = (current) => current): void {
    const made = (current: Grant[] | undefined) => alive(change(current ?? []));
    try {
      grants = options.document ? options.document.update(made) : made(grants);
    } catch (error) {
      options.log?.warn({ error: (error as Error).message }, 'could not keep the grants: they hold here until the daemon stops');
      grants = made(grants);
    }
    told();
  }

  function told(): void {
    for (const listener of listeners) listener(grants);
    scheduleEnd();
  }

  // Made, revoked or ended by another daemon sharing the store.
  options.document?.onChange((value) => {
    grants = value;
    told();
  });

  function scheduleEnd(): void {
    clearTimeout(endTimer);
    endTimer = undefined;
    if (grants.length === 0) return;
    const next = Math.min(...grants.map((grant) => grant.endsAt));
    // setTimeout holds at most about 24.8 days; a grant holds at most hours.
    endTimer = setTimeout(() => changed(), Math.max(0, next - now()) + 1);
    endTimer.unref();
  }
  scheduleEnd();

  return {
    /** The live grants, oldest first; with a viewer, only those it sees. */
    live,

    /** A grant made by a person from the approval they just allowed: theirs, named by where they made it. */
    make(ask: AskView, choice: GrantChoice, by: Decider): Grant | undefined {
      const offer = ask.approval?.grant;
      if (!offer || !ask.agent) return undefined;
      const madeAt = now();
      const minutes = 'minutes' in choice ? Math.min(choice.minutes, GRANT_MAX_MINUTES) : GRANT_MAX_MINUTES;
      const grant: Grant = {
        id: randomBytes(4).toString('hex'),
        rule: offer.rule,
        words: offer.words,
        agent: ask.agent,
        scope: choice.scope,
        sessionId: ask.sessionId,
        cwd: ask.cwd,
        ...(ask.machine ? { machine: ask.machine } : {}),
        madeAt,
        endsAt: madeAt + minutes * 60_000,
        ...('untilSessionEnds' in choice ? { untilSessionEnds: true } : {}),
        by: by.device ?? 'the terminal',
        ...(by.person === undefined ? {} : { person: by.person }),
      };
      changed((current) => [...current, grant]);
      options.log?.info({ grant: grant.id, rule: grant.rule, scope: grant.scope, endsAt: grant.endsAt }, 'grant made');
      return grant;
    },

    /** Ends one grant by its id, or every one (`all`), of those the viewer sees; returns those ended. */
    revoke(id: string | 'all', viewer: Viewer): Grant[] {
      const ended = live(viewer).filter((grant) => id === 'all' || grant.id === id);
      if (ended.length === 0) return [];
      const ids = new Set(ended.map((grant) => grant.id));
      changed((current) => current.filter((grant) => !ids.has(grant.id)));
      options.log?.info({ grants: ended.map((grant) => grant.id) }, 'grants revoked');
      return ended;
    },

    /** A session ended: the grants made to last until then end too. */
    endSession(sessionId: string): void {
      const ends = (grant: Grant) => grant.untilSessionEnds === true && grant.sessionId === sessionId;
      if (grants.some(ends)) changed((current) => current.filter((grant) => !ends(grant)));
    },

    /** The live grant that covers this approval, if any: one its maker could decide, same agent and machine, in its scope, matching its rule. */
    covering(request: Covered): Grant | undefined {
      return live().find(
        (grant) =>
          (!request.route || (grant.person !== undefined && request.route.people.includes(grant.person))) &&
          grant.agent === request.agent &&
          grant.machine === request.machine &&
          grant.cwd === request.cwd &&
          (grant.scope === 'project' || grant.sessionId === request.sessionId) &&
          ruleCovers(grant.rule, request.approval, request.cwd),
      );
    },

    subscribe(listener: (grants: Grant[]) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    close(): void {
      clearTimeout(endTimer);
    },
  };
}

/** How an approval a grant covers is settled: allowed at once, its source naming the grant. */
export function grantedOutcome(grant: Grant): { status: 'allowed'; source: Source; decision: ApprovalDecision } {
  return { status: 'allowed', source: { kind: 'grant', grant: grant.id, rule: grant.rule, madeAt: grant.madeAt, by: grant.by }, decision: { behavior: 'allow' } };
}

/**
 * A person decides an approval; an allow that carries a grant makes it once the allow has won
 * (the store refuses a grant where it may not be made, before anything settles, and a replayed or
 * late decision is refused with the winner: no grant). The grant's "made from" is where the person is, in words.
 */
export function decideApproval(store: AskStore, grants: GrantStore | undefined, id: string, decision: ApprovalDecision, by: Decider): AnswerResult {
  if (decision.behavior === 'allow' && decision.grant && !grants) return { kind: 'invalid', error: new AnswerError('not_grantable', 'grants are not kept here: allow it once') };
  const result = store.decide(id, decision, by);
  if (result.kind === 'answered' && decision.behavior === 'allow' && decision.grant) grants?.make(result.ask, decision.grant, by);
  return result;
}
