// @ts-check
// An MCP server's request for input, answered on the page: a form drawn from the fields the daemon
// read (elicitation-form.ts), or a link to open. The server's name is always shown, so the person
// knows who asks; its message, titles, descriptions, choices and link are the server's text, shown
// as text with their invisible characters marked. Values are checked before they are sent by the
// daemon's own checks (the same module, loaded as form-checks.js once a form is on screen: its
// pattern engine is too big for every first load), and the daemon checks them again.
// Accept, Decline and Cancel mean what MCP says: send these values, refuse, or dismiss without
// choosing. "Answer in the terminal" lets go, and Claude Code shows its own dialog at once (Codex
// shows its own all along: the card hands it back to that). A link
// is never opened by itself: only the person's own click on it does.
import { agentNameOf } from './api.js';
import { cardHead, contextNodes, handBackLabel, uid } from './ask-form.js';
import { h } from './dom.js';
import { visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {import('../elicitation-form.js').FormField} FormField */
/** @typedef {import('../elicitation-form.js').FormSpec} FormSpec */
/** @typedef {import('../elicitation-form.js').FormContent} FormContent */
/** @typedef {import('../protocol.js').ElicitationResponse} ElicitationResponse */

/**
 * @typedef {{
 *   respond(response: ElicitationResponse): void;
 *   settle(action: 'terminal'): void;
 *   activity(): void;
 * }} ElicitationHandlers
 */

/** A choice of this many or fewer is a list of radio buttons; more is a drop-down. */
const RADIOS_UP_TO = 7;

/** @param {AskView} view @returns {string} what an MCP server's request is, in one line (the server's words: show as text) */
export function elicitationHeadline(view) {
  return `MCP server “${String(view.elicitation?.server ?? '')}” ${view.elicitation?.mode === 'url' ? 'asks you to open a link' : 'asks for input'}`;
}

/** The checks the daemon runs, for this page: loaded once, when the first form is drawn. */
let formChecks = /** @type {Promise<typeof import('./form-checks.js')> | null} */ (null);
function loadFormChecks() {
  formChecks ??= import('./form-checks.js');
  return formChecks;
}

/**
 * A date-time's value as a datetime-local input shows it, in this device's time zone.
 * @param {string} value RFC 3339
 */
function localDateTime(value) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A datetime-local input's value as RFC 3339 in UTC ("2026-12-31T17:30:00Z").
 * @param {string} value
 */
function utcDateTime(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().replace(/\.000Z$/, 'Z');
}

/** The input type that fits a text field's format. */
const TEXT_INPUT_TYPES = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/**
 * One field of the form: its label, description and input, and how to read its value.
 * @typedef {{ field: FormField; root: HTMLElement; error: HTMLElement; focusTarget: HTMLElement; inputs: HTMLElement[]; read(): { value?: unknown; problem?: string } }} FieldControl
 */

/**
 * @param {FormField} field
 * @returns {FieldControl}
 */
function fieldControl(field) {
  const labelId = uid('field-label');
  const descId = uid('field-desc');
  const errorId = uid('field-error');
  const label = field.title ?? field.name;
  const describedBy = [field.description ? descId : '', errorId].filter(Boolean).join(' ');
  const heading = [h('span', { class: 'field-title', dir: 'auto' }, visibleNodes(label)), field.required ? h('span', { class: 'field-required', text: ' required' }) : h('span', { class: 'field-optional', text: ' optional' })];
  const description = field.description ? h('p', { class: 'field-desc', id: descId, dir: 'auto' }, visibleNodes(field.description)) : null;
  const error = h('p', { class: 'q-error', id: errorId, hidden: true });

  if (field.kind === 'boolean') {
    const input = h('input', { type: 'checkbox', class: 'choice', 'aria-describedby': describedBy });
    input.checked = field.default === true;
    const root = h('div', { class: 'elicit-field', 'data-field': field.name, 'data-kind': field.kind }, h('label', { class: 'option' }, h('span', { class: 'option-main' }, input, h('span', { class: 'option-text' }, h('span', { class: 'option-label', id: labelId }, heading)))), description, error);
    return { field, root, error, focusTarget: input, inputs: [input], read: () => ({ value: input.checked }) };
  }

  if (field.kind === 'choice' || field.kind === 'choices') {
    const multi = field.kind === 'choices';
    const picked = new Set(multi ? (field.default ?? []) : field.default === undefined ? [] : [field.default]);
    if (!multi && field.choices.length > RADIOS_UP_TO) {
      const select = h('select', { class: 'text-input', 'aria-labelledby': labelId, 'aria-describedby': describedBy }, h('option', { value: '', text: field.required ? 'Choose one' : 'None' }), field.choices.map((choice) => h('option', { value: choice.value }, visibleNodes(choice.label))));
      select.value = field.default ?? '';
      const root = h('div', { class: 'elicit-field', 'data-field': field.name, 'data-kind': field.kind }, h('p', { class: 'field-label', id: labelId }, heading), description, error, select);
      return { field, root, error, focusTarget: select, inputs: [select], read: () => (select.value === '' ? {} : { value: select.value }) };
    }
    const name = uid('field');
    const options = field.choices.map((choice) => {
      const input = h('input', { type: multi ? 'checkbox' : 'radio', name, class: 'choice', value: choice.value });
      input.checked = picked.has(choice.value);
      return { choice, input, row: h('label', { class: 'option' }, h('span', { class: 'option-main' }, input, h('span', { class: 'option-text' }, h('span', { class: 'option-label', dir: 'auto' }, visibleNodes(choice.label))))) };
    });
    const bounds = multi ? countHint(field.minItems, field.maxItems) : '';
    const fieldset = h(
      'fieldset',
      { class: 'elicit-field q', 'data-field': field.name, 'data-kind': field.kind, 'aria-describedby': describedBy },
      h('legend', { class: 'field-label', id: labelId }, heading),
      description,
      h('p', { class: 'q-hint', text: multi ? `Select all that apply${bounds}` : 'Select one' }),
      error,
      h('div', { class: 'options' }, options.map(({ row }) => row)),
    );
    const read = () => {
      const chosen = options.filter(({ input }) => input.checked).map(({ choice }) => choice.value);
      if (multi) return chosen.length === 0 && !field.required ? {} : { value: chosen };
      return chosen.length === 0 ? {} : { value: chosen[0] };
    };
    return { field, root: fieldset, error, focusTarget: options.find(({ input }) => input.checked)?.input ?? options[0]?.input ?? fieldset, inputs: options.map(({ input }) => input), read };
  }

  /** @type {HTMLInputElement} */
  let input;
  if (field.kind === 'number') {
    input = h('input', { type: 'number', class: 'text-input', inputmode: field.integer ? 'numeric' : 'decimal', step: field.integer ? '1' : 'any', min: field.minimum, max: field.maximum, 'aria-labelledby': labelId, 'aria-describedby': describedBy, autocomplete: 'off' });
    if (field.default !== undefined) input.value = String(field.default);
  } else {
    const type = field.format ? TEXT_INPUT_TYPES[field.format] : 'text';
    input = h('input', { type, class: 'text-input', step: field.format === 'date-time' ? '1' : null, maxlength: field.maxLength, 'aria-labelledby': labelId, 'aria-describedby': describedBy, autocomplete: 'off', spellcheck: field.format ? 'false' : null });
    if (field.default !== undefined) input.value = field.format === 'date-time' ? localDateTime(field.default) : field.default;
  }
  const hint = field.kind === 'number' ? rangeHint(field.minimum, field.maximum, field.integer) : textHint(field);
  const root = h('div', { class: 'elicit-field', 'data-field': field.name, 'data-kind': field.kind }, h('label', { class: 'field-label', id: labelId }, heading), description, hint ? h('p', { class: 'q-hint', text: hint }) : null, error, input);
  const read = () => {
    // A number the browser cannot read leaves the value empty: say so, rather than send nothing.
    if (input.validity.badInput) return { problem: `${label}: ${field.kind === 'number' ? 'must be a number' : 'is not complete'}` };
    if (input.value === '') return {};
    if (field.kind === 'number') return { value: Number(input.value) };
    return { value: field.kind === 'text' && field.format === 'date-time' ? utcDateTime(input.value) : input.value };
  };
  return { field, root, error, focusTarget: input, inputs: [input], read };
}

/** "between 1 and 10" and the like, for a number field. */
function rangeHint(/** @type {number | undefined} */ minimum, /** @type {number | undefined} */ maximum, /** @type {boolean} */ integer) {
  const what = integer ? 'A whole number' : 'A number';
  if (minimum !== undefined && maximum !== undefined) return `${what} from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `${what}, at least ${minimum}`;
  if (maximum !== undefined) return `${what}, at most ${maximum}`;
  return integer ? what : '';
}

/** What a text field expects, when it says more than "text". */
function textHint(/** @type {Extract<FormField, { kind: 'text' }>} */ field) {
  const format = { email: 'An email address', uri: 'A web address (https://…)', date: 'A date', 'date-time': 'A date and time (sent in UTC)' }[field.format ?? ''] ?? '';
  const length = field.minLength !== undefined && field.maxLength !== undefined ? `${field.minLength} to ${field.maxLength} characters` : field.minLength !== undefined ? `at least ${field.minLength} characters` : '';
  return [format, length].filter(Boolean).join(', ');
}

/** ", at least 1", ", 1 to 3"… for several choices. */
function countHint(/** @type {number | undefined} */ min, /** @type {number | undefined} */ max) {
  if (min !== undefined && max !== undefined) return min === max ? ` (${min})` : ` (${min} to ${max})`;
  if (min !== undefined) return ` (at least ${min})`;
  if (max !== undefined) return ` (at most ${max})`;
  return '';
}

/**
 * The card of an MCP server's request: who asks and what for, then its form or its link, and what
 * the person can do with it.
 * @param {AskView} view its `elicitation` is set
 * @param {ElicitationHandlers} handlers
 */
export function buildElicitationCard(view, handlers) {
  const elicitation = /** @type {NonNullable<AskView['elicitation']>} */ (view.elicitation);
  const titleId = uid('ask-title');
  const askId = uid('elicit-ask');
  const root = h('article', { class: 'card elicitation', 'data-kind': 'elicitation', 'data-mode': elicitation.mode, 'data-question-id': view.id, 'data-status': 'pending', 'aria-labelledby': `${askId} ${titleId}` });
  const { head, age, countdown, countdownTime, saysWhat } = cardHead(view, titleId);
  const context = h('div', { class: 'context' });
  const ask = h('p', { class: 'elicit-ask', id: askId, tabindex: '-1' }, 'MCP server ', h('strong', { class: 'elicit-server', dir: 'auto' }, visibleNodes(elicitation.server)), elicitation.mode === 'url' ? ' asks you to open a link' : ' asks for input');
  const message = elicitation.message.trim() === '' ? null : h('figure', { class: 'said elicit-message' }, h('figcaption', { class: 'said-caption', text: 'The server says' }), h('p', { class: 'said-text', dir: 'auto' }, visibleNodes(elicitation.message)));

  const form = h('form', { class: 'card-form', novalidate: true });
  /** @type {FieldControl[]} */
  const controls = elicitation.mode === 'form' ? /** @type {FormSpec} */ (elicitation.form).fields.map(fieldControl) : [];
  if (elicitation.mode === 'url') {
    form.append(
      h('p', { class: 'elicit-host' }, 'The link goes to ', h('strong', { dir: 'ltr' }, visibleNodes(elicitation.host))),
      h('p', { class: 'elicit-url' }, h('code', { dir: 'ltr' }, visibleNodes(elicitation.url))),
      h('p', { class: 'elicit-open' }, h('a', { class: 'btn btn-secondary', href: elicitation.url, target: '_blank', rel: 'noopener noreferrer', text: `Open ${elicitation.host}` })),
      h('p', { class: 'wait-note', text: 'Nothing opens by itself. Once you have finished there, press Done.' }),
    );
  } else {
    for (const control of controls) form.append(control.root);
    void loadFormChecks().catch(() => {});
  }

  const error = h('p', { class: 'card-error', role: 'alert', tabindex: '-1', hidden: true });
  const accept = h('button', { type: 'submit', class: 'btn btn-primary', text: elicitation.mode === 'url' ? 'Done' : 'Accept' });
  const handBack = view.choices.handBack ?? 'the terminal';
  const terminal = h('button', { type: 'button', class: 'btn btn-secondary', text: handBack === 'the terminal' ? 'Answer in the terminal' : handBackLabel(handBack) });
  const decline = h('button', { type: 'button', class: 'btn btn-quiet', text: 'Decline' });
  const cancel = h('button', { type: 'button', class: 'btn btn-quiet', text: 'Cancel' });
  const buttons = [accept, terminal, decline, cancel];
  form.append(
    error,
    h('div', { class: 'actions' }, accept, h('span', { class: 'actions-gap' }), terminal, decline, cancel),
    h('p', { class: 'wait-note elicit-means', text: `${elicitation.mode === 'url' ? 'Done tells the server you finished at the link' : 'Accept sends these values to the server'}; Decline refuses; Cancel dismisses it without an answer. ${handBack === 'the terminal' ? 'Claude Code shows no dialog while this waits here.' : `${agentNameOf(view)} shows its own dialog meanwhile: the first answer counts.`}` }),
  );

  form.addEventListener('input', () => handlers.activity());
  form.addEventListener('change', () => handlers.activity());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (elicitation.mode === 'url') {
      handlers.respond({ action: 'accept' });
      return;
    }
    void acceptForm();
  });
  terminal.addEventListener('click', () => handlers.settle('terminal'));
  decline.addEventListener('click', () => handlers.respond({ action: 'decline' }));
  cancel.addEventListener('click', () => handlers.respond({ action: 'cancel' }));

  /** Reads every field, checks the values as the daemon will, and sends them only when they fit. */
  async function acceptForm() {
    hideError();
    /** @type {Record<string, unknown>} */
    const content = {};
    /** @type {Array<{ field: string; message: string }>} */
    const problems = [];
    for (const control of controls) {
      const { value, problem } = control.read();
      if (problem !== undefined) problems.push({ field: control.field.name, message: problem });
      // defineProperty: a field may be named __proto__, and must stay a field.
      else if (value !== undefined) Object.defineProperty(content, control.field.name, { value, enumerable: true, writable: true, configurable: true });
    }
    if (problems.length === 0) {
      // Without the checks (they could not load), the daemon's own check answers instead.
      const checks = await loadFormChecks().catch(() => null);
      const checked = checks?.checkFormContent(/** @type {FormSpec} */ (elicitation.mode === 'form' ? elicitation.form : { fields: [] }), content);
      if (checked && !checked.ok) problems.push(...checked.errors);
    }
    if (problems.length > 0) {
      showProblems(problems);
      return;
    }
    handlers.respond({ action: 'accept', content });
  }

  /** @param {Array<{ field: string; message: string }>} problems */
  function showProblems(problems) {
    /** @type {HTMLElement | null} */
    let first = null;
    for (const control of controls) {
      const problem = problems.find((candidate) => candidate.field === control.field.name);
      control.error.replaceChildren(...(problem ? visibleNodes(problem.message) : []));
      control.error.hidden = !problem;
      for (const input of control.inputs) input.toggleAttribute('aria-invalid', Boolean(problem));
      if (problem) first ??= control.focusTarget;
    }
    const general = problems.filter((problem) => !controls.some((control) => control.field.name === problem.field));
    if (general.length > 0) card.showError(general.map((problem) => problem.message).join(' '));
    (first ?? error).focus?.();
  }

  function hideError() {
    error.hidden = true;
    error.textContent = '';
    for (const control of controls) {
      control.error.hidden = true;
      for (const input of control.inputs) input.removeAttribute('aria-invalid');
    }
  }

  root.replaceChildren(head, context, h('section', { class: 'elicit-body', 'aria-labelledby': askId }, ask, message, form));
  const card = {
    id: view.id,
    root,
    titleId,
    age,
    countdown,
    countdownTime,
    saysWhat,
    form,
    buttons,
    /** @param {AskView} next */
    showContext(next) {
      context.replaceChildren(...contextNodes(next));
      context.hidden = context.childElementCount === 0;
    },
    /** @param {string} text */
    showError(text) {
      error.replaceChildren(...visibleNodes(text));
      error.hidden = false;
    },
    hideError,
    /** @param {boolean} busy */
    setBusy(busy) {
      form.setAttribute('aria-busy', busy ? 'true' : 'false');
      for (const button of buttons) button.disabled = busy;
    },
    focusFirst() {
      (controls[0]?.focusTarget ?? accept).focus({ preventScroll: false });
    },
    pick() {},
  };
  card.showContext(view);
  return card;
}
