// askbridge's model of AskUserQuestion against the official type that the pinned Claude Code ships
// in its sdk-tools.d.ts, copied verbatim into tests/official/ask-user-question-input.d.ts (the
// conformance suite checks the copy against the installed client). These checks run in the typecheck
// (`npm test` runs it first): when moving the pin brings a copy whose tool input changed, the build
// fails here, and someone looks at what askbridge must do about it.
import type { AskUserQuestionInput } from '../official/ask-user-question-input.js';
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { Answered } from '../../src/answers.js';
import type { Annotation } from '../../src/daemon/decisions/claude-code.js';
import type { OptionSchema, QuestionSchema, ToolInputSchema } from '../../src/protocol.js';

type OfficialQuestion = AskUserQuestionInput['questions'][number];
type OfficialOption = OfficialQuestion['options'][number];
type OfficialAnnotation = NonNullable<AskUserQuestionInput['annotations']>[string];

/** The fields a schema names (its shape), without the index signature a loose object adds. */
type Named<Schema extends { shape: object }> = keyof Schema['shape'];
/**
 * Compiles only when every From is a To: the same check as passing one for the other. (expectTypeOf's
 * own toExtend, and a conditional type, read the index signature of a loose object too strictly.)
 */
const assignable = <From, To>(convert: (value: From) => To) => convert;

describe('askbridge models AskUserQuestion as the pinned Claude Code defines it', () => {
  it('accepts every input the official type allows', () => {
    // Pick: the same fields as an object type, since an interface never fits an index signature.
    expectTypeOf(assignable<Pick<AskUserQuestionInput, keyof AskUserQuestionInput>, z.input<typeof ToolInputSchema>>((input) => input)).toBeFunction();
    expectTypeOf(assignable<OfficialQuestion, z.input<typeof QuestionSchema>>((question) => question)).toBeFunction();
    expectTypeOf(assignable<OfficialOption, z.input<typeof OptionSchema>>((option) => option)).toBeFunction();
  });

  it('names exactly the fields of a question and an option that the official type names', () => {
    expectTypeOf<Named<typeof QuestionSchema>>().toEqualTypeOf<keyof OfficialQuestion>();
    expectTypeOf<Named<typeof OptionSchema>>().toEqualTypeOf<keyof OfficialOption>();
  });

  it('answers with the shapes the official input declares for answers and annotations', () => {
    expectTypeOf(assignable<Answered['answers'], NonNullable<AskUserQuestionInput['answers']>>((answers) => answers)).toBeFunction();
    expectTypeOf<Annotation>().toEqualTypeOf<OfficialAnnotation>();
  });

  it('knows every top-level field of the input: questions, and what an answer adds (answers, annotations) or echoes (metadata)', () => {
    expectTypeOf<keyof AskUserQuestionInput>().toEqualTypeOf<'questions' | 'answers' | 'annotations' | 'metadata'>();
  });
});
