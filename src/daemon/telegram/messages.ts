// What a Telegram chat is sent for an ask: its text, the entities that style it, and its buttons,
// each button an action the bot keeps behind an opaque id (bot.ts). Pure: no I/O, no Telegram call.
// Every text from the model is plain text (no parse_mode: styling is entities with offsets, so model
// text can never become markup), its invisible characters marked, and cut with a mark when too
// long. What a chat may decide is the channel contract (choices.ts), from what its message shows: a
// permission's input or a plan cut to fit is never allowed or approved from here (the message says
// so), typed text is offered only where the asker takes it. A grant is chosen in the message
// itself (its time, then where), its rule in words above the buttons before it is made; the list of
// live grants (/grants) is drawn here too. An MCP server's form of one choice or yes/no, shown whole,
// is answered with a tap; any other form, and a link to open, only on the page (a link's address is
// shown as code, never as something to follow).
import { onChannel, type Shown } from '../../choices.js';
import { noticeOf, noticeSubject, noticeTitle, terminalWaitSubject } from '../notice.js';
import { PLAN_TOOL, toolTitle } from '../../approvals.js';
import { speakerOf, toolInputText } from '../../approval-text.js';
import { twoPeopleLine } from '../../two-people.js';
import { GRANT_DURATIONS, grantScopeText, grantTimeLeft } from '../../grant-text.js';
import type { FormField, FormSpec } from '../../elicitation-form.js';
import type { AskView, Decider, Elicitation, Grant, GrantChoice, PersonClient } from '../../protocol.js';
import { deciderWords } from '../../history-file.js';
import { howItEnded } from '../../settlement.js';
import { shorten, shortenApart } from '../../shorten.js';
import { markInvisible } from '../../visible-text.js';
import { kindOf } from '../asks/store.js';

/** What a button does, as the bot keeps it (never sent to Telegram: a button carries a random id). */
export type Action =
  | { kind: 'pick'; question: number; option: number }
  | { kind: 'other'; question: number }
  | { kind: 'heading'; question: number }
  | { kind: 'send' }
  | { kind: 'allow'; suggestion?: number; grant?: GrantChoice }
  /** "Allow, and the same for a while…": how long is chosen next (also Back from where). */
  | { kind: 'grant' }
  /** The grant's time was chosen (an index of GRANT_DURATIONS): where is chosen next. */
  | { kind: 'grant-where'; duration: number }
  /** Back from the grant's choices to the approval's own buttons. */
  | { kind: 'approval' }
  /** A risky approval: allowed only by typing the confirmation in reply (CONFIRM_RISKY). */
  | { kind: 'allow-risky' }
  | { kind: 'deny' }
  | { kind: 'deny-message' }
  | { kind: 'feedback' }
  | { kind: 'reply' }
  | { kind: 'done' }
  /** An MCP server's one-field form, accepted with this value for its field (a choice's value, or yes/no). */
  | { kind: 'accept'; value: string | boolean }
  /** An MCP server's request refused (decline), or dismissed without a choice (cancel). */
  | { kind: 'decline' }
  | { kind: 'cancel' };

export type Button = { text: string; action: Action } | { text: string; url: string };
export type Entity = { type: 'bold' | 'italic' | 'pre' | 'code'; offset: number; length: number };
/** A message: its text and buttons, and whether it shows the ask whole (what may be decided from it follows). */
export type Draft = { text: string; entities: Entity[]; keyboard: Button[][]; shown: Shown };

/** A person's choices so far for one question of an ask with several, or a multi-select one. */
export type Selection = { selected: Set<number>; other: string | null };

/** Telegram takes 4096 characters a message; the rest is room for the line that says how it ended. */
export const MESSAGE_CHARS = 4096;
export const BODY_CHARS = 3800;
/** Telegram shows about this much of a button; the message text holds the whole label. */
const BUTTON_CHARS = 60;
const PROMPT_CHARS = 60;

export type DraftOptions = {
  /** Only the project and the headers leave the machine (telegram.headersOnly). */
  headersOnly: boolean;
  /** The page at the public URL, opened on this ask; undefined without a public URL (a loopback link is never sent). */
  link: string | undefined;
  /** The choices made so far, per question (questions only). */
  selections?: Selection[];
  /** The person's grants are kept: an approval may offer one. */
  grants?: boolean;
};

/** Text in parts, some styled: the entities follow the text's UTF-16 offsets, as Telegram counts them. */
type Part = string | { text: string; type: Entity['type'] };

function compose(parts: Part[]): { text: string; entities: Entity[] } {
  let text = '';
  const entities: Entity[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    if (part.text.length > 0) entities.push({ type: part.type, offset: text.length, length: part.text.length });
    text += part.text;
  }
  return { text, entities };
}

/** Model text for a message: marked first, then cut, so the bound holds whatever it hides. `cut` learns whether it was. */
function model(text: string, max: number, cut: { any: boolean }, whitespace: 'collapse' | 'keep' = 'collapse'): string {
  const marked = markInvisible(whitespace === 'keep' ? text.trim() : text);
  const shortened = shorten(marked, Math.max(1, max), { whitespace });
  if (shortened !== (whitespace === 'keep' ? marked : marked.replace(/\s+/g, ' ').trim())) cut.any = true;
  return shortened;
}

const buttonText = (text: string) => shorten(markInvisible(text), BUTTON_CHARS);

/** Who acts on an approval, in the message's words: Claude, in Claude Code; another agent by its name. */

/**
 * The parts a builder makes at a scale (1, then less): the first that fits in BODY_CHARS is sent.
 * Whatever a scale cut says so in a last line.
 */
function fitted(build: (scale: number, cut: { any: boolean }) => Part[], cutNote: string): { text: string; entities: Entity[]; shown: Shown } {
  for (const scale of [1, 0.5, 0.25, 0.1, 0.04]) {
    const cut = { any: false };
    const parts = build(scale, cut);
    if (cut.any) parts.push(`\n\n${cutNote}`);
    const composed = compose(parts);
    if (composed.text.length <= BODY_CHARS) return { ...composed, shown: cut.any ? 'cut' : 'whole' };
  }
  // Ten questions of four options each, at their longest: only the project and the headers are left.
  return { text: `${shorten(compose(build(0.01, { any: true })).text, BODY_CHARS - cutNote.length - 2, { whitespace: 'keep' })}\n\n${cutNote}`, entities: [], shown: 'cut' };
}

const scaled = (chars: number, scale: number) => Math.max(20, Math.floor(chars * scale));

/** The message for an ask, as it is first sent (and redrawn, with the choices made so far). */
export function askDraft(view: AskView, options: DraftOptions): Draft {
  const openRow: Button[][] = options.link ? [[{ text: 'Open the page', url: options.link }]] : [];
  const cutNote = options.link ? 'Some text was cut to fit: the page shows it whole.' : 'Some text was cut to fit: open askbridge to read it whole.';
  const notice = noticeOf(view, { fullText: false });
  const title: Part = { text: noticeTitle(notice), type: 'bold' };
  if (options.headersOnly) {
    const kind = kindOf(view);
    const text = compose([title, '\n', noticeSubject(notice), ...(options.link || kind === 'terminal-wait' ? [] : ['\nOpen askbridge to answer.'])]);
    return { ...text, keyboard: kind === 'terminal-wait' ? [] : openRow, shown: 'cut' };
  }
  const session = (scale: number, cut: { any: boolean }): Part[] => (view.context?.title ? ['\n', { text: model(view.context.title, scaled(200, scale), cut), type: 'italic' }] : []);
  switch (kindOf(view)) {
    case 'question':
      return { ...fitted((scale, cut) => [title, ...session(scale, cut), ...questionParts(view, scale, cut)], cutNote), keyboard: [...questionKeyboard(view, options.selections), ...openRow] };
    case 'approval':
      return view.approval!.toolName === PLAN_TOOL ? planDraft(view, title, session, cutNote, openRow) : approvalDraft(view, title, session(1, { any: false }), openRow, options.grants === true);
    case 'turn-end': {
      const turnEnd = view.turnEnd!;
      const text = fitted((scale, cut) => {
        const said = model(turnEnd.lastMessage, scaled(3000, scale), cut, 'keep');
        if (turnEnd.truncated) cut.any = true;
        return [title, ...session(scale, cut), '\n\n', said || 'Claude said nothing.', '\n\nReply… (or reply to this message) and Claude goes on with your words; Done lets it stop.'];
      }, cutNote);
      return { ...text, keyboard: [[{ text: 'Reply…', action: { kind: 'reply' } }, { text: 'Done', action: { kind: 'done' } }], ...openRow] };
    }
    case 'elicitation':
      return elicitationDraft(view.elicitation!, title, session, options.link, cutNote, openRow);
    case 'terminal-wait': {
      const wait = view.terminalWait!;
      const text = fitted((scale, cut) => [title, ...session(scale, cut), '\n', terminalWaitSubject(wait.kind), ...(wait.message.trim() ? ['\n\n', model(wait.message, scaled(1000, scale), cut, 'keep')] : [])], cutNote);
      return { ...text, keyboard: [] };
    }
  }
}

function questionParts(view: AskView, scale: number, cut: { any: boolean }): Part[] {
  const several = view.questions.length > 1;
  const parts: Part[] = [];
  view.questions.forEach((question, index) => {
    const header = model(question.header, scaled(100, scale), cut);
    const heading = several ? `${index + 1}. ${header || 'Question'}` : header;
    parts.push('\n\n');
    if (heading) parts.push({ text: heading, type: 'bold' }, question.multiSelect ? ' (choose any)' : '', '\n');
    else if (question.multiSelect) parts.push('(choose any)\n');
    parts.push(model(question.question, scaled(1500, scale), cut, 'keep'));
    for (const option of question.options) {
      const description = option.description.trim() ? `: ${model(option.description, scaled(300, scale), cut)}` : '';
      parts.push('\n• ', model(option.label, scaled(200, scale), cut), description);
    }
  });
  const quick = !several && view.questions[0]?.multiSelect === false;
  const typed = view.choices.typedAnswers.some(Boolean);
  parts.push(quick ? `\n\nTap an answer${typed ? ', or Other… to type one' : ''}.` : `\n\nChoose ${several ? 'for each question' : 'any'}, then Send.${typed ? ' Other… lets you type an answer.' : ''}`);
  return parts;
}

/** Whether one tap answers: a single question that takes one answer. */
export function answersAtOnce(view: Pick<AskView, 'questions'>): boolean {
  return view.questions.length === 1 && view.questions[0]?.multiSelect === false;
}

/** Each question's options (✓ on the chosen ones), its Other…, and Send when more than one tap is needed. */
export function questionKeyboard(view: AskView, selections: Selection[] | undefined): Button[][] {
  const several = view.questions.length > 1;
  const quick = answersAtOnce(view);
  const rows: Button[][] = [];
  view.questions.forEach((question, index) => {
    const selection = selections?.[index];
    if (several) rows.push([{ text: `${index + 1}. ${buttonText(question.header || 'Question')}`, action: { kind: 'heading', question: index } }]);
    question.options.forEach((option, optionIndex) => {
      const mark = !quick && selection?.selected.has(optionIndex) ? '✓ ' : '';
      rows.push([{ text: `${mark}${buttonText(option.label)}`, action: { kind: 'pick', question: index, option: optionIndex } }]);
    });
    // Typed text only where the asker takes it for this question (the channel contract).
    if (view.choices.typedAnswers[index] === false) return;
    const other = selection?.other;
    rows.push([{ text: other == null ? 'Other…' : `✓ Other: ${shorten(markInvisible(other), 30)}`, action: { kind: 'other', question: index } }]);
  });
  if (!quick) rows.push([{ text: 'Send', action: { kind: 'send' } }]);
  return rows;
}

/** The most choices a one-field form may offer to be answered with a tap: a longer list is chosen on the page. */
const TAP_CHOICES = 20;

/** One button of a form answered with a tap: its text, and the value its field is accepted with. */
export type FormTap = { text: string; value: string | boolean };

/**
 * The field of an MCP server's form that one tap answers, with a button for each of its values: a
 * form of exactly one field, a single choice (at most TAP_CHOICES, whose labels read apart on a
 * button) or yes/no. Undefined for any other form, and for a link to open.
 */
export function oneTapField(elicitation: Elicitation): { field: FormField; taps: FormTap[] } | undefined {
  if (elicitation.mode !== 'form') return undefined;
  // The view's form is the FormSpec readFormSchema made when the ask opened.
  const { fields } = elicitation.form as FormSpec;
  const [field] = fields;
  if (fields.length !== 1 || !field) return undefined;
  if (field.kind === 'boolean') return { field, taps: [{ text: 'Yes', value: true }, { text: 'No', value: false }] };
  if (field.kind !== 'choice' || field.choices.length > TAP_CHOICES) return undefined;
  const texts = shortenApart(field.choices.map((choice) => markInvisible(choice.label)), BUTTON_CHARS);
  return texts && { field, taps: field.choices.map((choice, index) => ({ text: texts[index]!, value: choice.value })) };
}

/** A form's field as its message shows it: its title (or name), its description, and its choices by label. */
function fieldParts(field: FormField, cut: { any: boolean }): Part[] {
  const parts: Part[] = [{ text: model(field.title ?? field.name, 200, cut), type: 'bold' }, field.kind === 'boolean' ? ' (yes or no)' : ''];
  if (field.description?.trim()) parts.push('\n', model(field.description, 2000, cut, 'keep'));
  if (field.kind === 'choice') for (const choice of field.choices) parts.push('\n• ', model(choice.label, 200, cut));
  return parts;
}

/**
 * An MCP server's request for input: who asks (the server, always whole) and its message. A form of
 * one choice or yes/no, shown whole, is answered with a tap (the field takes exactly that value);
 * any other form, one that does not fit, and a link to open are answered on the page: the message
 * lists the form's fields, or the link's exact host with the link as code (never a button or a link
 * to follow). Decline and Cancel are offered in each.
 */
function elicitationDraft(elicitation: Elicitation, title: Part, session: (scale: number, cut: { any: boolean }) => Part[], link: string | undefined, cutNote: string, openRow: Button[][]): Draft {
  const refuse: Button[][] = [[{ text: 'Decline', action: { kind: 'decline' } }, { text: 'Cancel', action: { kind: 'cancel' } }]];
  // A long session title cut to fit (it says so with its ellipsis) hides nothing of the request: it never stops a tap.
  const head = (scale: number, cut: { any: boolean }, sessionCut = cut): Part[] => {
    const message = elicitation.message.trim() ? [':\n\n', model(elicitation.message, scaled(2500, scale), cut, 'keep')] : [' for input.'];
    return [title, ...session(scale, sessionCut), '\n\nThe MCP server ', { text: model(elicitation.server, 200, cut), type: 'bold' }, ' asks', ...message];
  };
  const refuseWords = 'Decline refuses it; Cancel dismisses it without an answer.';
  const tap = oneTapField(elicitation);
  if (tap) {
    const cut = { any: false };
    const whole = compose([...head(1, cut, { any: false }), '\n\n', ...fieldParts(tap.field, cut), `\n\nTap an answer to send it. ${refuseWords}`]);
    if (!cut.any && whole.text.length <= BODY_CHARS) {
      return { ...whole, keyboard: [...tap.taps.map((each): Button[] => [{ text: each.text, action: { kind: 'accept', value: each.value } }]), ...refuse, ...openRow], shown: 'whole' };
    }
  }
  const answerThere = link ? 'Answer it on the page (Open the page).' : 'Open askbridge to answer it.';
  const text = fitted((scale, cut) => {
    const what: Part[] =
      elicitation.mode === 'url'
        ? ['It asks you to open a link on ', { text: markInvisible(elicitation.host), type: 'bold' }, ':\n', { text: model(elicitation.url, scaled(1000, scale), cut), type: 'code' }]
        : [`Its form asks for: ${(elicitation.form as FormSpec).fields.map((field) => model(field.title ?? field.name, scaled(100, scale), cut)).join(', ')}`];
    return [...head(scale, cut), '\n\n', ...what, `\n\n${answerThere} ${refuseWords}`];
  }, cutNote);
  return { ...text, keyboard: [...refuse, ...openRow], shown: 'cut' };
}

/** What a person types, in reply to the prompt of "Allow…", to allow a risky approval from a chat. */
export const CONFIRM_RISKY = 'allow';

/** A risky approval's reasons, as its message says them before anything else. */
function riskParts(view: AskView): Part[] {
  if (!view.risk) return [];
  return ['\n\n', { text: '⚠ Risky', type: 'bold' }, `: ${view.risk.reasons.map((reason) => markInvisible(reason)).join('; ')}`];
}

/** Where an approval two people must allow stands ("Needs two people", "1 of 2: allowed by alice at 14:02"). */
function twoPeopleParts(view: AskView): Part[] {
  const line = twoPeopleLine(view);
  return line === undefined ? [] : ['\n\n', { text: line, type: 'bold' }];
}

/**
 * A permission: the tool and its whole input, as the terminal shows it, in a monospace block. When
 * it does not fit, it is cut, the message says so, and only Deny (and the page) is offered. A risky
 * one says why first, and has no one-tap allow: "Allow…" asks for a typed confirmation.
 */
function approvalDraft(view: AskView, title: Part, session: Part[], openRow: Button[][], grants: boolean): Draft {
  const approval = view.approval!;
  const suggestions = approval.suggestions.map((suggestion) => markInvisible(suggestion.label));
  const head: Part[] = [title, ...session, ...twoPeopleParts(view), ...riskParts(view), `\n\n${speakerOf(view.agent)} wants to use `, { text: markInvisible(toolTitle(approval.toolName)), type: 'bold' }, ':\n'];
  const input = toolInputText(approval, speakerOf(view.agent));
  const choices = suggestions.length > 0 && view.choices.remember ? `\n\nOr allow, and also:\n${suggestions.map((label, index) => `${index + 1}. ${label}`).join('\n')}` : '';
  const whole = compose([...head, { text: input, type: 'pre' }, choices]);
  if (whole.text.length <= BODY_CHARS) {
    const may = onChannel(view.choices, 'whole');
    if (view.risk) {
      return {
        ...whole,
        keyboard: [
          ...(may.allow ? [[{ text: 'Allow… (type to confirm)', action: { kind: 'allow-risky' } } satisfies Button]] : []),
          [{ text: 'Deny', action: { kind: 'deny' } }, { text: 'Deny with a message…', action: { kind: 'deny-message' } }],
          ...openRow,
        ],
        shown: 'whole',
      };
    }
    // A grant only where its choices fit in the message with the request (the longest step is the last).
    const grant = grants && may.grant && grantStep(view, whole, { kind: 'grant-where', duration: GRANT_DURATIONS.length - 1 }) !== undefined;
    return {
      ...whole,
      keyboard: [
        ...(may.allow ? [[{ text: 'Allow once', action: { kind: 'allow' } } satisfies Button]] : []),
        ...(may.remember ? suggestions.map((label, index): Button[] => [{ text: `${index + 1}. ${shorten(label, BUTTON_CHARS - 3)}`, action: { kind: 'allow', suggestion: index } }]) : []),
        ...(grant ? [[{ text: GRANT_BUTTON, action: { kind: 'grant' } } satisfies Button]] : []),
        [{ text: 'Deny', action: { kind: 'deny' } }, { text: 'Deny with a message…', action: { kind: 'deny-message' } }],
        ...openRow,
      ],
      shown: 'whole',
    };
  }
  const note = `\n\nThe input is ${input.length} characters, too long for one Telegram message: it is cut here, so it cannot be allowed from Telegram. ${openRow.length > 0 ? 'Read it whole on the page to allow it.' : 'Open askbridge to read it whole and allow it.'}`;
  const room = BODY_CHARS - compose(head).text.length - note.length;
  const cutInput = shorten(input, Math.max(1, room), { whitespace: 'keep' });
  return { ...compose([...head, { text: cutInput, type: 'pre' }, note]), keyboard: [[{ text: 'Deny', action: { kind: 'deny' } }, { text: 'Deny with a message…', action: { kind: 'deny-message' } }], ...openRow], shown: 'cut' };
}

/**
 * A plan: its text and the page's choices: approve (with Claude Code's suggestions), or keep
 * planning with feedback. A plan cut to fit is never approved from here: the message says so, and
 * offers only feedback.
 */
function planDraft(view: AskView, title: Part, session: (scale: number, cut: { any: boolean }) => Part[], cutNote: string, openRow: Button[][]): Draft {
  const approval = view.approval!;
  const plan = typeof approval.toolInput.plan === 'string' ? approval.toolInput.plan : (approval.plan ?? '');
  const planCutNote = `The plan is too long for one Telegram message: it is cut here, so it cannot be approved from Telegram. ${openRow.length > 0 ? 'Read it whole on the page to approve it.' : 'Open askbridge to read it whole and approve it.'}`;
  // Whether the plan itself was cut at the scale the message was made at (a long session title does not count).
  let planShown = 'whole' as Shown;
  const text = fitted((scale, cut) => {
    const planCut = { any: false };
    const said = plan.trim() ? model(plan, scaled(3400, scale), planCut, 'keep') : 'Claude sent no plan text.';
    planShown = planCut.any ? 'cut' : 'whole';
    if (planCut.any) cut.any = true;
    return [title, ...session(scale, cut), ...twoPeopleParts(view), '\n\nClaude finished planning and asks you to approve the plan:\n\n', said, ...(planCut.any ? [`\n\n${planCutNote}`] : [])];
  }, cutNote);
  const shown = text.shown === 'cut' && planShown === 'cut' ? 'cut' : 'whole';
  const may = onChannel(view.choices, shown);
  return {
    ...text,
    shown,
    keyboard: [
      ...(may.allow ? [[{ text: 'Approve, I’ll approve edits manually', action: { kind: 'allow' } } satisfies Button]] : []),
      ...(may.remember ? approval.suggestions.map((suggestion, index): Button[] => [{ text: buttonText(suggestion.label), action: { kind: 'allow', suggestion: index } }]) : []),
      [{ text: 'Keep planning…', action: { kind: 'feedback' } }],
      ...openRow,
    ],
  };
}

/** The button of an approval that starts choosing a grant. */
export const GRANT_BUTTON = 'Allow, and the same for a while…';

/** Whether this message of an approval offers a grant (its button is there): the grant's steps are pressed only then. */
export function offersGrant(draft: Pick<Draft, 'keyboard'>): boolean {
  return draft.keyboard.some((row) => row.some((button) => 'action' in button && button.action.kind === 'grant'));
}

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/**
 * An approval's message while a grant is chosen: the request as it was sent (`base`), what the grant
 * would allow in words and as its rule, and the step's buttons: how long, then where, each with Back.
 * Undefined when the approval offers no grant, or when it would not fit in one message.
 */
export function grantStep(view: AskView, base: { text: string; entities: Entity[] }, step: Extract<Action, { kind: 'grant' | 'grant-where' }>): Pick<Draft, 'text' | 'entities' | 'keyboard'> | undefined {
  const offer = view.approval?.grant;
  const duration = step.kind === 'grant-where' ? GRANT_DURATIONS[step.duration] : undefined;
  if (!offer || (step.kind === 'grant-where' && !duration)) return undefined;
  const speaker = speakerOf(view.agent);
  const question = duration
    ? [`For ${duration.label}. Where: in this session only, or in every session of ${speaker} in `, { text: markInvisible(view.cwd), type: 'code' } satisfies Part, '?']
    : ['For how long?'];
  const added = compose(['\n\n', { text: 'Allow this, and the same for a while', type: 'bold' }, `\nWithout asking you, ${speaker} may ${markInvisible(offer.words)}. Its rule: `, { text: markInvisible(offer.rule), type: 'code' }, '\n\n', ...question]);
  const text = `${base.text}${added.text}`;
  if (text.length > MESSAGE_CHARS) return undefined;
  const entities = [...base.entities, ...added.entities.map((entity) => ({ ...entity, offset: entity.offset + base.text.length }))];
  const back: Button[] = [{ text: 'Back', action: duration ? { kind: 'grant' } : { kind: 'approval' } }];
  if (!duration) {
    const [quarter, hour, session] = GRANT_DURATIONS.map((each, index): Button => ({ text: capitalised(each.label), action: { kind: 'grant-where', duration: index } }));
    return { text, entities, keyboard: [[quarter!, hour!], [session!], back] };
  }
  const allow = (scope: GrantChoice['scope']): Action => ({ kind: 'allow', grant: { ...duration.choice, scope } });
  return { text, entities, keyboard: [[{ text: 'This session only', action: allow('session') }], [{ text: 'Every session of this project', action: allow('project') }], back] };
}

/** The most grants /grants lists with their buttons (Telegram takes about a hundred buttons a message). */
const LISTED_GRANTS = 20;

/** The live grants, as /grants lists them: each in words, with its rule, where, time left and where it was made; a Revoke for each, and for all. */
export function grantsDraft(grants: readonly Grant[], now = Date.now()): { text: string; entities: Entity[]; keyboard: Array<Array<{ text: string; revoke: string }>> } {
  if (grants.length === 0) return { text: 'No live grants: every permission waits for a person.', entities: [], keyboard: [] };
  const parts: Part[] = [{ text: grants.length === 1 ? 'One live grant' : `${grants.length} live grants`, type: 'bold' }, ': what is allowed without asking you.'];
  const listed: Grant[] = [];
  for (const grant of grants) {
    const entry: Part[] = [
      `\n\n${listed.length + 1}. ${capitalised(shorten(markInvisible(grant.words), 300))}\n`,
      { text: shorten(markInvisible(grant.rule), 300), type: 'code' },
      `\n${capitalised(grantScopeText(grant, (text) => shorten(markInvisible(text), 200)))} · ${grantTimeLeft(grant, now)} · made from ${shorten(markInvisible(grant.by), 60)}`,
    ];
    if (listed.length >= LISTED_GRANTS || compose([...parts, ...entry]).text.length > BODY_CHARS) break;
    parts.push(...entry);
    listed.push(grant);
  }
  if (listed.length < grants.length) parts.push(`\n\nAnd ${grants.length - listed.length} more: askbridge grants lists them all.`);
  const keyboard = listed.map((grant, index) => [{ text: `Revoke ${index + 1}: ${shorten(markInvisible(grant.rule), BUTTON_CHARS - 12)}`, revoke: grant.id }]);
  return { ...compose(parts), keyboard: [...keyboard, [{ text: 'Revoke all', revoke: 'all' }]] };
}

/** What a ForceReply prompt asks for; undefined for an action that needs no typing. */
export function promptFor(view: AskView, action: Action): string | undefined {
  switch (action.kind) {
    case 'other': {
      const question = view.questions[action.question];
      return question ? `Type your answer to ${shorten(markInvisible(question.header || question.question), PROMPT_CHARS)}` : undefined;
    }
    case 'allow-risky':
      return `This is risky: ${shorten(markInvisible(view.risk?.reasons.join('; ') ?? ''), 300)}. Type ${CONFIRM_RISKY} to allow it; anything else allows nothing.`;
    case 'deny-message':
      return `Type your message for ${speakerOf(view.agent)}: the permission is denied with it.`;
    case 'feedback':
      return 'Type what Claude should change in the plan: it keeps planning with it.';
    case 'reply':
      return 'Type your reply: Claude goes on with it.';
    default:
      return undefined;
  }
}

const WHERE: Record<PersonClient, string> = { telegram: 'from Telegram', page: 'on the page', cli: 'from the CLI', ntfy: 'from an ntfy notification', notification: 'from a notification' };

/** Where, or once people are defined who and where: "on the page", "by alice on Pixel 8", "by carol from Telegram" (a device's name marked). */
function whereDecided(source: Decider): string {
  const who = deciderWords(source);
  return who === undefined ? WHERE[source.client] : `by ${markInvisible(who)}`;
}

/**
 * How a settled ask ended, in one line: "Answered from Telegram", "Denied on the page" ("Denied by
 * alice on Pixel 8" once people are defined), "Answered in the terminal", "Accepted from Telegram: {…}"… No model text but the values an MCP server's form
 * was accepted with (which may be its own choices), marked.
 */
export function settledLine(ask: Pick<AskView, 'status' | 'source' | 'error' | 'approval' | 'elicitationResult'>): string {
  const { source, elicitationResult: result } = ask;
  if (source?.kind === 'person' && result) {
    const where = whereDecided(source);
    if (result.action === 'decline') return `Declined ${where}`;
    if (result.action === 'cancel') return `Cancelled ${where}`;
    return `Accepted ${where}${result.content ? `: ${shorten(markInvisible(JSON.stringify(result.content)), 300)}` : ''}`;
  }
  if (source?.kind === 'person') {
    const plan = ask.approval?.toolName === PLAN_TOOL;
    const verb = {
      answered: 'Answered',
      declined: 'Declined',
      allowed: plan ? 'Approved' : 'Allowed',
      denied: plan ? 'Sent back' : 'Denied',
      replied: 'Replied to',
      done: 'Let stop',
      'handed-to-terminal': 'Handed to the terminal',
      cancelled: 'Withdrawn',
      failed: 'Failed',
      pending: 'Waiting',
    }[ask.status];
    return `${verb} ${whereDecided(source)}`;
  }
  if (source?.kind === 'policy' && ask.status === 'handed-to-terminal') return `Handed to the terminal by the policy: ${howItEnded(ask)}`;
  const words = howItEnded(ask);
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}
