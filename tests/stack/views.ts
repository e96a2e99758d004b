// Views of asks built by hand in tests, with the choices the store would give them (choices.ts):
// from who asked and what, so that a test that changes the agent or the kind gets that one's choices.
import { choicesOf } from '../../src/choices.js';
import { kindOf } from '../../src/daemon/asks/store.js';
import type { AskView } from '../../src/protocol.js';

export type ViewFields = Omit<AskView, 'choices'> & { choices?: AskView['choices'] };

/** A view as the store would make it of these fields (their own `choices`, when given). */
export function askView(fields: ViewFields): AskView {
  const choices = fields.choices ?? choicesOf({ kind: kindOf(fields), agent: fields.agent, asker: fields.asker, questions: fields.questions, suggestions: fields.approval?.suggestions.length ?? 0 });
  return { ...fields, choices };
}
