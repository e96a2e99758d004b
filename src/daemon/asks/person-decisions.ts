// A person's decision on an ask, whichever route or chat it came by, as one value: what the daemon
// holding the ask runs (decideHere), and what a daemon sharing the store sends to the one that holds
// it (shared-asks.ts), since only that one can hand the answer to the ask's hook. Every decision
// route, the Telegram bot and the notification buttons take() it: held here, it is decided at once;
// held by another daemon, it is sent there, and that daemon's result is the reply.
import { z } from 'zod';
import { AnswerError } from '../../answers.js';
import { ApprovalDecisionSchema, DeciderSchema, ElicitationResponseSchema, ResponseSchema, type Decider } from '../../protocol.js';
import { isRoutedTo, viewerOf } from '../../route-access.js';
import { loadElicitationForms } from '../elicitation-forms.js';
import { decideApproval, type GrantStore } from '../grants.js';
import type { AnswerResult, AskStore, ExtendResult } from './store.js';

export const PersonDecisionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('answer'), responses: z.array(ResponseSchema) }),
  z.object({ action: z.literal('decide'), decision: ApprovalDecisionSchema }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('elicitation'), response: ElicitationResponseSchema }),
  /** Hand it back to its agent's own prompt. */
  z.object({ action: z.literal('terminal') }),
  /** A reply to a turn's end (null: let it end). */
  z.object({ action: z.literal('reply'), text: z.string().nullable() }),
  /** More time for a person who is answering. */
  z.object({ action: z.literal('extend') }),
]);
export type PersonDecision = z.infer<typeof PersonDecisionSchema>;

/** What a daemon sends to the one holding an ask: the decision, and who made it (as the daemon that got it knew them). */
export const DecisionRequestSchema = z.object({ decision: PersonDecisionSchema, by: DeciderSchema });

/** It could not be decided now: the store, or the daemon holding the ask, cannot be reached. Nothing was decided by this request. */
export type Unavailable = { kind: 'unavailable'; code: 'store_unreachable' | 'holder_unreachable'; message: string };

export type DecisionResult = AnswerResult | ExtendResult | Unavailable;
/** What a decision gets: an extension's result for `extend`, an answer's for any other. */
export type ResultOf<D extends PersonDecision> = (D extends { action: 'extend' } ? ExtendResult : AnswerResult) | Unavailable;

/** Sends a decision to the daemon holding the ask, and says what it answered. */
export type Forward = (holder: string, id: string, decision: PersonDecision, by: Decider) => Promise<DecisionResult>;

export type PersonDecisions = {
  /** Decides it here when the ask is held here (or not known), else sends it to the daemon holding it. */
  take<D extends PersonDecision>(id: string, decision: D, by: Decider): Promise<ResultOf<D>>;
  /** Decides it here, as a daemon holding the ask does for one sent to it. */
  decideHere(id: string, decision: PersonDecision, by: Decider): Promise<AnswerResult | ExtendResult>;
  /** From now on, a decision for an ask another daemon holds is sent there this way. */
  forwardWith(forward: Forward): void;
};

export function createPersonDecisions(store: AskStore, grants: GrantStore | undefined): PersonDecisions {
  let forward: Forward | undefined;

  async function decideHere(id: string, decision: PersonDecision, by: Decider): Promise<AnswerResult | ExtendResult> {
    switch (decision.action) {
      case 'answer':
        return store.answer(id, decision.responses, by);
      case 'decide':
        return decideApproval(store, grants, id, decision.decision, by);
      case 'decline':
        return store.decline(id, by);
      case 'elicitation': {
        const { checkFormContent } = await loadElicitationForms();
        return store.respondToElicitation(id, decision.response, by, checkFormContent);
      }
      case 'terminal':
        return store.handToTerminal(id, by);
      case 'reply':
        return store.replyToTurn(id, decision.text, by);
      case 'extend': {
        // One routed to other people is, to them, not there at all.
        const ask = store.get(id);
        if (ask && !isRoutedTo(ask, viewerOf(by))) return { kind: 'not_found' };
        return store.extend(id);
      }
    }
  }

  return {
    take<D extends PersonDecision>(id: string, decision: D, by: Decider) {
      const holder = store.holderOf(id);
      // Each daemon decides an ask as decideHere does: the result is the one its action gets.
      return (holder === undefined || !forward ? decideHere(id, decision, by) : forward(holder, id, decision, by)) as Promise<ResultOf<D>>;
    },
    decideHere,
    forwardWith(given) {
      forward = given;
    },
  };
}

/** A result as it travels between daemons (JSON): an invalid answer's error as its code and message. */
export function resultToJson(result: DecisionResult): unknown {
  return result.kind === 'invalid' ? { kind: 'invalid', error: { code: result.error.code, message: result.error.message } } : result;
}

/** A result another daemon wrote (resultToJson): as it was made there. */
export function resultFromJson(value: unknown): DecisionResult {
  const result = value as DecisionResult | { kind: 'invalid'; error: { code: AnswerError['code']; message: string } };
  return result.kind === 'invalid' ? { kind: 'invalid', error: new AnswerError(result.error.code, result.error.message) } : result;
}
