// The interactive response to an MCP server's request for input (an elicitation), for `answer` and
// `watch`, with flow.ts's context, lists and keys (as its own asks have them): the server, always
// named, and its message; then a form field by field, each value checked as it is given by the very
// check the daemon makes (elicitation-form.ts's checkField), an optional field left empty with an
// empty line (or "Leave empty" in a list); then a review where any value can be changed, and one
// choice: Accept (the values go to the server), Decline, Cancel, or let Claude Code's own dialog
// ask. A link is shown whole, with its exact host, and never opened: Done (accept), Decline,
// Cancel, or the terminal. Values the daemon refuses all the same (400 invalid_content) show each
// problem and are asked again, every value kept. The server's name, message, titles, descriptions,
// choice labels and link are hostile text: marked.
import { cancel, log, outro } from '@clack/prompts';
import { checkField, type FormField, type FormSpec, type FormValue, type MultiChoiceField, type NumberField, type TextField, type TextFormat } from '../elicitation-form.js';
import { ErrorReplySchema, TooLateReplySchema, type AskView, type Elicitation } from '../protocol.js';
import { shorten } from '../shorten.js';
import { markInvisible, terminalText } from '../visible-text.js';
import type { DaemonClient } from './client.js';
import { block, endOf, type Flow, type FlowEnd, type FlowOptions, INFO, leaveHint, lettersOf, notChosen, runInteractively, runList, say, settle, showNewContext, shown, STEP, stillTitled } from './flow.js';
import { askText, type ListItem, pickOne, pickSome } from './prompts.js';
import { readReply } from './replies.js';

type FormRequest = Extract<Elicitation, { mode: 'form' }>;
type LinkRequest = Extract<Elicitation, { mode: 'url' }>;

/** The values given so far, by field name: a field left empty has none. */
type Values = Map<string, FormValue>;

/** One field's answer: its value, or undefined when it is left empty. */
type Given = { value: FormValue | undefined };

/** An MCP server's request on screen and responded to: as flow.ts's answerInteractively, for an ask with `elicitation`. */
export function respondInteractively(daemon: DaemonClient, call: AskView, stop: AbortSignal, options: FlowOptions): Promise<FlowEnd> {
  const { elicitation } = call;
  if (elicitation === undefined) throw new Error('respondInteractively takes an MCP server\'s request for input');
  return runInteractively(daemon, call, stop, options, (flow) => respondToElicitation(flow, elicitation));
}

async function respondToElicitation(flow: Flow, elicitation: Elicitation): Promise<FlowEnd> {
  const message = elicitation.message.trim() === '' ? ' for input' : `:\n${shown(elicitation.message)}`;
  say(STEP, `The MCP server ${shown(elicitation.server)} asks${message}`);
  return elicitation.mode === 'url' ? respondToLink(flow, elicitation) : fillForm(flow, elicitation);
}

/** The server's name as the flow's own sentences quote it: on one line, shortened, marked. */
function serverName(flow: Flow): string {
  return `the MCP server ${markInvisible(shorten(flow.call.elicitation?.server ?? '', 60))}`;
}

// ---------------------------------------------------------------------------------------------
// A form: each field in turn, then the review and the one response.

async function fillForm(flow: Flow, request: FormRequest): Promise<FlowEnd> {
  // The view's form is the FormSpec readFormSchema made when the ask opened.
  const form = request.form as FormSpec;
  const values: Values = new Map();
  for (const [index, field] of form.fields.entries()) {
    const given = await askField(flow, field, `Field ${index + 1} of ${form.fields.length}`, field.default);
    if ('kind' in given) return given;
    keep(values, field, given);
  }
  for (;;) {
    const choice = await review(flow, form, values);
    if (typeof choice === 'number') {
      const field = form.fields[choice]!;
      const given = await askField(flow, field, `Field ${choice + 1} of ${form.fields.length}`, values.get(field.name));
      if ('kind' in given) return given;
      keep(values, field, given);
      continue;
    }
    if (choice !== 'accept') return choice;
    const content = Object.fromEntries(form.fields.filter((field) => values.has(field.name)).map((field) => [field.name, values.get(field.name)!]));
    const end = await respond(flow, { action: 'accept', content }, `Sent: ${serverName(flow)} has your values.`);
    if (end) return end;
  }
}

function keep(values: Values, field: FormField, given: Given): void {
  if (given.value === undefined) values.delete(field.name);
  else values.set(field.name, given.value);
}

/** What checkField says of one field's value (undefined: left empty), or undefined when it fits. */
function problemOf(field: FormField, value: FormValue | undefined): string | undefined {
  // A computed key is the object's own, so a field named __proto__ stays a field.
  return checkField(field, value === undefined ? {} : { [field.name]: value });
}

/** One field, with `previous` (its default, or the value given before) filled in. */
async function askField(flow: Flow, field: FormField, place: string, previous: FormValue | undefined): Promise<Given | FlowEnd> {
  const title = block(STEP, [`${place} · ${shown(field.title ?? field.name)} (${field.required ? 'required' : 'optional'})`, field.description === undefined ? '' : shown(field.description), hintOf(field)].filter(Boolean).join('\n'));
  if (field.kind === 'text' || field.kind === 'number') return askTyped(flow, field, title, previous);
  return askListed(flow, field, title, previous);
}

const FORMAT_HINTS: Record<TextFormat, string> = {
  email: 'an email address, such as name@example.com',
  uri: 'a full address with its scheme, such as https://example.com',
  date: 'a date as YYYY-MM-DD',
  'date-time': 'a date and time with its time zone, such as 2026-12-31T18:30:00Z',
};

/** What the field takes, in a line: its kind and its bounds. */
function hintOf(field: FormField): string {
  switch (field.kind) {
    case 'text': {
      const length = field.minLength !== undefined && field.maxLength !== undefined ? `${field.minLength} to ${field.maxLength} characters` : field.minLength !== undefined ? `at least ${field.minLength} characters` : field.maxLength !== undefined ? `at most ${field.maxLength} characters` : '';
      const pattern = field.pattern === undefined ? '' : `matching ${shown(field.pattern)}`;
      return `Text${[field.format === undefined ? '' : FORMAT_HINTS[field.format], length, pattern].filter(Boolean).map((part) => `, ${part}`).join('')}`;
    }
    case 'number': {
      const kind = field.integer ? 'A whole number' : 'A number';
      const { minimum, maximum } = field;
      if (minimum !== undefined && maximum !== undefined) return `${kind} from ${minimum} to ${maximum}`;
      if (minimum !== undefined) return `${kind}, at least ${minimum}`;
      return maximum === undefined ? kind : `${kind}, at most ${maximum}`;
    }
    case 'boolean':
      return 'Yes or no';
    case 'choice':
      return 'One choice';
    case 'choices': {
      const { minItems, maxItems } = field;
      if (minItems !== undefined && maxItems !== undefined) return `Choose ${minItems} to ${maxItems}`;
      if (minItems !== undefined) return `Choose at least ${minItems}`;
      return maxItems === undefined ? 'Choose any number' : `Choose at most ${maxItems}`;
    }
  }
}

/** A decimal number as a person types it; anything else stays text, which the field's check refuses in its own words. */
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function typedValue(field: TextField | NumberField, typed: string): FormValue | undefined {
  if (field.kind === 'text') return typed === '' ? undefined : typed;
  const text = typed.trim();
  if (text === '') return undefined;
  return NUMBER.test(text) ? Number(text) : text;
}

/** A text or a number, typed on one line; a value that does not fit is refused at Enter, with the text kept. */
async function askTyped(flow: Flow, field: TextField | NumberField, title: string, previous: FormValue | undefined): Promise<Given | FlowEnd> {
  showNewContext(flow);
  process.stdout.write(`${title}\n`);
  const typed = await askText({
    message: field.kind === 'number' ? 'Type the number' : 'Type the text',
    ...(field.required ? {} : { placeholder: 'Enter with nothing typed leaves it empty' }),
    initial: previous === undefined ? '' : String(previous),
    validate: (text) => problemOf(field, typedValue(field, text)),
    stop: flow.stop,
    onKey: flow.onKey,
    hold: flow.hold,
  });
  if ('ended' in typed) return endOf(typed);
  return { value: typedValue(field, typed.typed) };
}

const LEAVE_EMPTY: ListItem = { label: 'Leave empty', description: 'the field is optional: no value is sent' };

/** Yes or no, one choice, or several, in a list: the decline, the hand-back and the context keys as for a question. */
async function askListed(flow: Flow, field: Exclude<FormField, TextField | NumberField>, fieldTitle: string, previous: FormValue | undefined): Promise<Given | FlowEnd> {
  let titled = false;
  for (;;) {
    if (showNewContext(flow)) titled = false;
    const title = titled ? undefined : fieldTitle;
    titled = true;
    const list = { title, letters: lettersOf(flow, false), leave: leaveHint(flow) };
    const chosen = field.kind === 'choices' ? await pickChoices(flow, field, list, previous) : await pickOption(flow, field, list, previous);
    if ('given' in chosen) return chosen.given;
    const after = await notChosen(flow, chosen.notChosen);
    if (after !== 'again') return after;
    titled = stillTitled(chosen.notChosen, title);
  }
}

type ListParts = { title: string | undefined; letters: ReturnType<typeof lettersOf>; leave: string };
type Listed = { given: Given } | { notChosen: Parameters<typeof notChosen>[1] };

/** Yes or no, or one choice: each a value, and Leave empty for an optional field. */
async function pickOption(flow: Flow, field: Exclude<FormField, TextField | NumberField | MultiChoiceField>, list: ListParts, previous: FormValue | undefined): Promise<Listed> {
  const options: Array<{ item: ListItem; value: FormValue | undefined }> = [
    ...(field.kind === 'boolean'
      ? [
          { item: { label: 'Yes' }, value: true },
          { item: { label: 'No' }, value: false },
        ]
      : field.choices.map((choice) => ({ item: { label: shown(choice.label) }, value: choice.value }))),
    ...(field.required ? [] : [{ item: LEAVE_EMPTY, value: undefined }]),
  ];
  const at = options.findIndex((option) => option.value === previous);
  const choice = await runList(flow, (run) =>
    pickOne({ ...run, ...list, message: field.kind === 'boolean' ? 'Yes or no?' : 'Choose one', items: options.map((option) => option.item), initial: Math.max(at, 0), how: `↑/↓ and Enter, or a number (1-${Math.min(options.length, 9)})` }),
  );
  return 'chosen' in choice ? { given: { value: options[choice.chosen]!.value } } : { notChosen: choice };
}

/** Several choices, ticked; for an optional field, none ticked leaves it empty. Enter takes them only when they fit. */
async function pickChoices(flow: Flow, field: MultiChoiceField, list: ListParts, previous: FormValue | undefined): Promise<Listed> {
  const tickedValue = (ticked: number[]): FormValue | undefined => (ticked.length === 0 && !field.required ? undefined : ticked.map((index) => field.choices[index]!.value));
  const initial = Array.isArray(previous) ? field.choices.flatMap((choice, index) => (previous.includes(choice.value) ? [index] : [])) : [];
  const choice = await runList(flow, (run) =>
    pickSome({
      ...run,
      ...list,
      message: field.required ? 'Choose' : 'Choose (none ticked leaves it empty)',
      items: field.choices.map((option) => ({ label: shown(option.label) })),
      initial,
      how: `↑/↓, Space or a number (1-${Math.min(field.choices.length, 9)}) ticks · Enter confirms`,
      validate: (ticked) => problemOf(field, tickedValue(ticked)),
    }),
  );
  return 'chosen' in choice ? { given: { value: tickedValue(choice.chosen) } } : { notChosen: choice };
}

/** How much of a typed text the review shows on its line: choosing the field shows it whole. */
const REVIEW_TEXT_CHARS = 120;

/** A value as the review shows it. */
function valueText(field: FormField, value: FormValue | undefined): string {
  if (value === undefined) return '(empty)';
  if (field.kind === 'boolean') return value ? 'yes' : 'no';
  const labelOf = (chosen: string) => shown(shorten(field.kind === 'choice' || field.kind === 'choices' ? (field.choices.find((choice) => choice.value === chosen)?.label ?? chosen) : chosen, REVIEW_TEXT_CHARS));
  return Array.isArray(value) ? (value.length === 0 ? '(none)' : value.map(labelOf).join(', ')) : labelOf(String(value));
}

type Response = 'accept' | 'decline' | 'cancel' | 'terminal';

/** Handing the request back to its agent's own dialog: Claude Code's in the terminal, Codex's where Codex runs. */
function handBackItem(back: string | undefined): Array<{ item: ListItem; response: 'terminal' }> {
  if (back === undefined) return [];
  const item = back === 'the terminal' ? { label: 'Let the terminal answer', description: "Claude Code's own dialog asks there" } : { label: `Hand it back to ${back}`, description: 'its own dialog asks there' };
  return [{ item, response: 'terminal' }];
}

/** The responses, last in a review's list or alone under a link: what `accept` means is the caller's words. */
function responses(flow: Flow, accept: ListItem): Array<{ item: ListItem; response: Response }> {
  return [
    { item: accept, response: 'accept' },
    { item: { label: 'Decline', description: `tell ${serverName(flow)} you refuse` }, response: 'decline' },
    { item: { label: 'Cancel', description: 'dismiss it without choosing' }, response: 'cancel' },
    ...handBackItem(flow.call.choices.handBack),
  ];
}

/** Every value, each one to change by its number, then the responses. Resolves with a field's index, `accept`, or how the flow ends. */
async function review(flow: Flow, form: FormSpec, values: Values): Promise<number | 'accept' | FlowEnd> {
  const fields: ListItem[] = form.fields.map((field) => ({ label: `${shown(field.title ?? field.name)}: ${valueText(field, values.get(field.name))}` }));
  const ends = responses(flow, { label: 'Accept', description: `send these values to ${serverName(flow)}` });
  const items = [...fields, ...ends.map((end) => end.item)];
  let cursor = fields.length;
  let titled = false;
  for (;;) {
    if (showNewContext(flow)) titled = false;
    const title = titled ? undefined : block(STEP, 'Review: your values, nothing is sent yet');
    titled = true;
    const choice = await runList(flow, (run) =>
      pickOne({
        ...run,
        title,
        message: 'Accept sends them; a field changes its value',
        items,
        initial: cursor,
        how: `↑/↓ and Enter, or a number (1-${Math.min(items.length, 9)})`,
        letters: lettersOf(flow, false),
        leave: leaveHint(flow),
        onMove: (at) => (cursor = at),
      }),
    );
    if (!('chosen' in choice)) {
      const after = await notChosen(flow, choice);
      if (after !== 'again') return after;
      titled = stillTitled(choice, title);
      continue;
    }
    if (choice.chosen < fields.length) return choice.chosen;
    const { response } = ends[choice.chosen - fields.length]!;
    if (response === 'accept') return 'accept';
    const end = await settle(flow, response);
    if (end) return end;
    titled = false;
  }
}

// ---------------------------------------------------------------------------------------------
// A link: shown whole with its host, never opened; Done once the page there is finished.

async function respondToLink(flow: Flow, link: LinkRequest): Promise<FlowEnd> {
  say(INFO, `Link  ${shown(link.url)}\nHost  ${shown(link.host)}\nOpen it yourself if you trust that host (askbridge never opens it), then choose Done once the page there is finished.`);
  const ends = responses(flow, { label: 'Done', description: `the page at the link is finished: ${serverName(flow)} is told so` });
  for (;;) {
    const choice = await runList(flow, (run) =>
      pickOne({ ...run, message: 'Done at the link?', items: ends.map((end) => end.item), how: `↑/↓ and Enter, or a number (1-${ends.length})`, letters: lettersOf(flow, false), leave: leaveHint(flow) }),
    );
    if (!('chosen' in choice)) {
      const after = await notChosen(flow, choice);
      if (after !== 'again') return after;
      continue;
    }
    const { response } = ends[choice.chosen]!;
    const end = response === 'accept' ? await respond(flow, { action: 'accept' }, `Done: ${serverName(flow)} is told the page at the link is finished.`) : await settle(flow, response);
    if (end) return end;
  }
}

/** Sends an accept. Resolves with how the flow ends, or undefined when the daemon refused the values (each problem said on screen). */
async function respond(flow: Flow, body: { action: 'accept'; content?: Record<string, FormValue> }, sent: string): Promise<FlowEnd | undefined> {
  const response = await flow.daemon.request('POST', `/api/asks/${flow.call.id}/elicitation`, body);
  if (response.status === 200) {
    outro(sent);
    return { kind: 'sent' };
  }
  if (response.status === 409) return { kind: 'too-late', ask: readReply(TooLateReplySchema, response.body, 'reply to a late response').ask };
  const { error } = readReply(ErrorReplySchema, response.body, 'refusal');
  // The daemon's words quote the server's titles: marked, each problem on a line of its own.
  const message = terminalText(error.message, '    ');
  if (response.status === 400) {
    const details = (error.details ?? []).map((detail) => `\n  ${terminalText(detail, '    ')}`).join('');
    log.error(`The daemon refused these values: ${message}.${details}\nChange them below, or Esc to leave.`);
    return undefined;
  }
  cancel(message);
  return { kind: 'failed' };
}
