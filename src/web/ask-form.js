// @ts-check
// The question set in focus: what the session was doing, each question with its options, "Other"
// and a note, and the three ways to settle it. Every string in it comes from a model that may have
// been prompt-injected, so it reaches the DOM only as text (visibleNodes, attributes), and a preview
// only through markdown.js. What the person picks or types is saved as a draft on every change.
import { agentNameOf, speakerOf } from './api.js';
import { h } from './dom.js';
import { loadDraft, saveDraft } from './drafts.js';
import { renderMarkdown } from './markdown.js';
import { markInvisible, visibleNodes } from './visible-text.js';

/** @typedef {import('../protocol.js').AskView} AskView */
/** @typedef {AskView['questions'][number]} Question */
/** @typedef {import('./drafts.js').QuestionDraft} QuestionDraft */
/** @typedef {import('../protocol.js').Response} QuestionResponse */
/** @typedef {import('../protocol.js').PlannedAnswer} PlannedAnswer */

/** What Claude said before asking is shortened to this many characters until expanded. */
const SAID_SHORT_CHARS = 180;
/** A label or a rule's text named in what the deadline will do is shortened to this many characters. */
const PLANNED_CHARS = 80;

let idCounter = 0;
/** @param {string} prefix */
export const uid = (prefix) => `${prefix}-${++idCounter}`;

/**
 * One question in the form.
 * @typedef {{
 *   question: Question; fieldset: HTMLFieldSetElement; options: Array<{ option: Question['options'][number]; input: HTMLInputElement }>;
 *   otherInput: HTMLInputElement; otherText: HTMLInputElement; takesOther: boolean; note: HTMLTextAreaElement; noteToggle: HTMLButtonElement;
 *   error: HTMLElement; errorId: string; hintId: string;
 * }} FormQuestion
 */

/**
 * @typedef {{
 *   submit(responses: QuestionResponse[]): void;
 *   settle(action: 'terminal' | 'decline'): void;
 *   activity(): void;
 * }} FormHandlers
 */

/** The project's folder name: what a person calls the project. */
export function projectName(cwd) {
  const parts = String(cwd ?? '').split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : cwd || 'Unknown project';
}

/** @param {unknown} id */
export function shortId(id) {
  const text = String(id ?? '');
  return text.length > 8 ? text.slice(0, 8) : text;
}

/**
 * The button that hands a question set back to its agent's own prompt.
 * @param {string} handBack where it goes, in words (the ask's choices)
 */
export function handBackLabel(handBack) {
  return handBack === 'the terminal' ? 'Let the terminal answer' : `Hand it back to ${handBack}`;
}

/**
 * Who asked, for the meta line: a script or an MCP client says who it is; an agent (Claude Code,
 * Codex, opencode) is named, with its session.
 * @param {AskView} view
 */
function askerNodes(view) {
  // An agent askbridge knows that asks through its MCP tool (Gemini CLI) is named as that agent.
  if (view.asker && view.agent !== undefined) return [h('span', { class: 'agent', text: agentNameOf(view) }), ' through MCP'];
  return [
    ...(view.asker ? [`asked by ${view.asker.kind === 'mcp' ? 'the MCP client' : 'the script'} `] : [h('span', { class: 'agent', text: agentNameOf(view) }), ' session ']),
    view.asker ? h('code', { class: 'session' }, visibleNodes(view.asker.name)) : h('code', { class: 'session', title: markInvisible(view.sessionId) }, visibleNodes(shortId(view.sessionId))),
    view.machine ? ' on ' : null,
    view.machine ? h('code', { class: 'machine' }, visibleNodes(view.machine)) : null,
  ];
}

/**
 * The form of one waiting question set, restored from its draft.
 * @param {AskView} view
 * @param {FormHandlers} handlers
 */
export function buildAskForm(view, handlers) {
  const titleId = uid('ask-title');
  const root = h('article', { class: 'card ask', 'data-question-id': view.id, 'data-status': 'pending', 'aria-labelledby': titleId });
  const { head, age, countdown, countdownTime, saysWhat } = cardHead(view, titleId);
  const context = h('div', { class: 'context' });

  const form = h('form', { class: 'card-form', novalidate: true });
  const draft = loadDraft(view);
  // With one question the countdown names its planned answer; with several, each question does.
  const planned = view.questions.length > 1 ? plannedAnswers(view) : new Map();
  // What may be typed comes from the ask's choices (the asker's profile): "Other" and a note only where it takes them.
  const { choices } = view;
  /** @type {FormQuestion[]} */
  const qs = view.questions.map((question, index) =>
    buildQuestion(question, index, draft?.questions[index], planned.get(question.question), () => advanceFrom(index), { other: choices.typedAnswers[index] !== false, note: choices.notes, speaker: speakerOf(view) }),
  );
  for (const q of qs) form.append(q.fieldset);

  const error = h('p', { class: 'card-error', id: uid('card-error'), hidden: true });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', text: 'Submit' });
  // Only an agent's own hook or relay has a prompt to hand back to: a script's or an MCP client's ask is answered or declined.
  const terminal = choices.handBack === undefined ? undefined : h('button', { type: 'button', class: 'btn btn-secondary', text: handBackLabel(choices.handBack) });
  const decline = h('button', { type: 'button', class: 'btn btn-quiet', text: 'Decline' });
  const buttons = terminal ? [submit, terminal, decline] : [submit, decline];
  form.append(error, h('div', { class: 'actions' }, submit, h('span', { class: 'actions-gap' }), ...(terminal ? [terminal] : []), decline));

  const save = () => saveDraft(view, qs.map(draftOf));
  form.addEventListener('input', () => {
    save();
    handlers.activity();
  });
  form.addEventListener('change', () => {
    save();
    handlers.activity();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const { responses, problems } = collect(qs);
    qs.forEach(clearProblem);
    hideError();
    if (problems.length > 0) {
      for (const problem of problems) showProblem(problem.q, problem.message, problem.target);
      problems[0]?.target.focus();
      return;
    }
    handlers.submit(responses);
  });
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    const target = event.target;
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      form.requestSubmit(submit);
    } else if (target instanceof HTMLInputElement && (target.type === 'checkbox' || target.type === 'radio')) {
      // Enter on an option chooses it (a checkbox toggles), as Space does; it never sends the set.
      event.preventDefault();
      target.click();
      const index = qs.findIndex((q) => q.options.some(({ input }) => input === target));
      if (index >= 0) advanceFrom(index);
    } else if (target instanceof Element && target.classList.contains('other-text') && qs.length > 1) {
      // With several questions, Enter in one answer must not send them all.
      event.preventDefault();
    }
  });
  terminal?.addEventListener('click', () => handlers.settle('terminal'));
  decline.addEventListener('click', () => handlers.settle('decline'));

  root.replaceChildren(head, context, form);

  function hideError() {
    error.hidden = true;
    error.textContent = '';
  }

  /**
   * A single-select question was just answered with one of its options (a number key, Enter, a click
   * or a tap): the next question comes into focus, so the keys go on where the eye goes. Not after
   * "Other" (the person types next), a multi-select (more may follow) or the last question.
   * @param {number} index
   */
  function advanceFrom(index) {
    const q = qs[index];
    const next = qs[index + 1];
    if (!q || !next || q.question.multiSelect || !q.options.some(({ input }) => input.checked)) return;
    focusQuestion(next);
  }

  const card = {
    id: view.id,
    root,
    titleId,
    age,
    countdown,
    countdownTime,
    /** Whether the countdown says what happens at the deadline (else it only counts). */
    saysWhat,
    form,
    qs,
    buttons,
    /** @param {AskView} next */
    showContext(next) {
      context.replaceChildren(...contextNodes(next));
      context.hidden = context.childElementCount === 0;
    },
    /** @param {string} message */
    showError(message) {
      error.replaceChildren(...visibleNodes(message));
      error.hidden = false;
    },
    hideError,
    /** @param {boolean} busy */
    setBusy(busy) {
      form.setAttribute('aria-busy', busy ? 'true' : 'false');
      const focused = document.activeElement;
      for (const button of buttons) button.disabled = busy;
      // A disabled button drops focus; give it back once the request is over.
      if (busy && focused instanceof HTMLButtonElement && buttons.includes(focused)) card.refocus = focused;
      if (!busy && card.refocus) {
        if (document.activeElement === document.body) card.refocus.focus();
        card.refocus = null;
      }
    },
    /** @type {HTMLButtonElement | null} */
    refocus: null,
    /** Focus on the first question: its chosen option, else its first. */
    focusFirst() {
      const first = qs[0];
      if (first) focusQuestion(first);
    },
    /**
     * A number key: option N of the question that has focus (the first one otherwise); one past the
     * options is "Other".
     * @param {number} n
     */
    pick(n) {
      const active = document.activeElement;
      const q = qs.find((candidate) => candidate.fieldset.contains(active)) ?? qs[0];
      if (!q) return;
      const option = q.options[n - 1];
      if (option) {
        option.input.click();
        option.input.focus();
        advanceFrom(qs.indexOf(q));
      } else if (n === q.options.length + 1 && q.takesOther) {
        if (!q.otherInput.checked) q.otherInput.click();
        q.otherText.focus();
      }
    },
  };
  card.showContext(view);
  return card;
}

/**
 * The top of a waiting card, a question set's or an approval's: the project, its folder, the age
 * and who asked; then how long is left (updated every second by app.js) and what happens at the
 * deadline (built once).
 * @param {AskView} view
 * @param {string} titleId the id of its title, which names the card
 */
export function cardHead(view, titleId) {
  const age = h('time', { class: 'age' });
  const countdownTime = h('span', { class: 'countdown-time' });
  const countdownWhat = h('span', { class: 'countdown-what' }, timeoutNodes(view));
  const countdown = h('p', { class: 'countdown', role: 'timer', 'aria-live': 'off' }, h('span', { class: 'countdown-text' }, countdownTime, countdownWhat));
  const head = h(
    'header',
    { class: 'card-head' },
    h(
      'div',
      { class: 'card-ident' },
      h('h2', { class: 'card-title', id: titleId, title: view.cwd ? markInvisible(view.cwd) : null, tabindex: '-1' }, visibleNodes(projectName(view.cwd))),
      h(
        'p',
        { class: 'meta' },
        view.cwd ? h('span', { class: 'path', title: markInvisible(view.cwd) }, visibleNodes(view.cwd)) : null,
        h('span', { class: 'meta-line' }, age, h('span', { class: 'sep', 'aria-hidden': 'true', text: '·' }), askerNodes(view)),
      ),
    ),
    countdown,
  );
  return { head, age, countdown, countdownTime, saysWhat: countdownWhat.textContent !== '' };
}

/**
 * Focus on a question as Tab into it would: its chosen option ("Other" when that is chosen), else its first.
 * @param {FormQuestion} q
 */
function focusQuestion(q) {
  const target = q.options.find(({ input }) => input.checked)?.input ?? (q.otherInput.checked ? q.otherInput : undefined) ?? q.options[0]?.input ?? q.otherInput;
  target.focus({ preventScroll: false });
}

/**
 * Text a model (or a rule) wrote, quoted, shortened, with its invisible characters marked.
 * @param {string} text
 * @returns {Array<Node | string>}
 */
function quoted(text) {
  const characters = Array.from(text);
  const short = characters.length > PLANNED_CHARS ? `${characters.slice(0, PLANNED_CHARS).join('').trimEnd()}…` : text;
  // dir=auto, as everywhere a model's text is shown: a right-to-left label keeps its order, and the sentence around it too.
  return ['“', h('span', { dir: 'auto' }, visibleNodes(short)), '”'];
}

/**
 * “A”, “B” and “C”.
 * @param {string[]} texts
 * @returns {Array<Node | string>}
 */
function quotedList(texts) {
  return texts.flatMap((text, index) => [index === 0 ? '' : index === texts.length - 1 ? ' and ' : ', ', ...quoted(text)]);
}

/**
 * What a planned answer gives: its labels, then a rule's free text.
 * @param {PlannedAnswer} answer
 */
function plannedTexts(answer) {
  return [...answer.selected, ...(typeof answer.other === 'string' ? [answer.other] : [])];
}

/**
 * Each question's planned answer, by its text (a question may be called `__proto__`: a Map).
 * @param {AskView} view
 * @returns {Map<string, PlannedAnswer>}
 */
function plannedAnswers(view) {
  const answers = Array.isArray(view.timeout?.answers) ? view.timeout.answers : [];
  return new Map(answers.map((answer) => [answer.question, answer]));
}

/**
 * What happens at the deadline, after "in 4:55": the daemon's clause, or with one question, the
 * answer a policy will give it, its labels named as the text they are.
 * @param {AskView} view
 * @returns {Array<Node | string>}
 */
function timeoutNodes(view) {
  const summary = typeof view.timeout?.summary === 'string' ? view.timeout.summary : '';
  const answers = Array.isArray(view.timeout?.answers) ? view.timeout.answers : [];
  const only = view.questions.length === 1 && answers.length === 1 ? answers[0] : undefined;
  if (!only) return answers.length > 1 ? [`${summary}, as shown under each question`] : [summary];
  const texts = plannedTexts(only);
  if (texts.length === 0) return [summary];
  if (only.rule) return [`the rule ${only.rule} will ${only.selected.length > 0 ? 'choose' : 'answer'} `, ...quotedList(texts)];
  return [`the recommended ${texts.length > 1 ? 'options' : 'option'} `, ...quotedList(texts), ' will be chosen'];
}

/**
 * Above the questions: the session's branch and title, and what Claude said just before asking
 * (on a narrow screen, behind a button).
 * @param {AskView} view
 * @returns {Node[]}
 */
export function contextNodes(view) {
  const context = view.context ?? {};
  const nodes = [];
  const about = [
    context.branch ? h('span', { class: 'branch', title: 'git branch' }, h('span', { class: 'branch-icon', 'aria-hidden': 'true', text: '⎇ ' }), h('span', { class: 'visually-hidden', text: 'branch ' }), visibleNodes(context.branch)) : null,
    context.title ? h('span', { class: 'session-title', dir: 'auto', title: markInvisible(context.title) }, visibleNodes(context.title)) : null,
  ].filter(Boolean);
  if (about.length) nodes.push(h('p', { class: 'context-about' }, about));
  if (context.said) {
    const text = context.said;
    const long = text.length > SAID_SHORT_CHARS;
    const body = h('p', { class: 'said-text', dir: 'auto' }, visibleNodes(long ? `${text.slice(0, SAID_SHORT_CHARS).trimEnd()}…` : text));
    const figure = h('figure', { class: 'said', id: uid('said') }, h('figcaption', { class: 'said-caption', text: 'Claude said' }), body);
    // On a phone it is one tap away, the options first (app.css shows the button on a narrow screen only).
    const reveal = h('button', { type: 'button', class: 'btn-link context-toggle', 'aria-expanded': 'false', 'aria-controls': figure.id, text: 'What Claude said' });
    reveal.addEventListener('click', () => reveal.setAttribute('aria-expanded', String(reveal.getAttribute('aria-expanded') !== 'true')));
    nodes.push(reveal);
    if (long) {
      const toggle = h('button', { type: 'button', class: 'btn-link said-toggle', 'aria-expanded': 'false', text: 'Show all' });
      toggle.addEventListener('click', () => {
        const open = toggle.getAttribute('aria-expanded') !== 'true';
        toggle.setAttribute('aria-expanded', String(open));
        toggle.textContent = open ? 'Show less' : 'Show all';
        body.replaceChildren(...visibleNodes(open ? text : `${text.slice(0, SAID_SHORT_CHARS).trimEnd()}…`));
      });
      figure.append(toggle);
    }
    nodes.push(figure);
  }
  return nodes;
}

/**
 * @param {Question} question
 * @param {number} index
 * @param {QuestionDraft | undefined} draft
 * @param {PlannedAnswer | undefined} planned what a policy will answer it with at the deadline, to show under it
 * @param {() => void} picked called when a person picks one of its options by a click or a tap
 * @param {{ other: boolean; note: boolean; speaker: string }} takes whether its asker takes typed text and a note, and who reads the note
 * @returns {FormQuestion}
 */
function buildQuestion(question, index, draft, planned, picked, takes) {
  const multi = question.multiSelect === true;
  const name = uid(`q${index}`);
  const type = multi ? 'checkbox' : 'radio';
  const errorId = uid('q-error');
  const hintId = uid('q-hint');
  const chosen = new Set(draft?.selected ?? []);

  // dir=auto on every text a model wrote: mixed right-to-left and left-to-right text keeps its order.
  const legend = h('legend', { class: 'q-legend' }, question.header ? h('span', { class: 'chip', dir: 'auto' }, visibleNodes(question.header)) : null, h('span', { class: 'q-text', dir: 'auto' }, visibleNodes(question.question)));
  const fieldset = h('fieldset', { class: 'q', 'data-question-index': index, 'aria-describedby': hintId });
  const count = question.options.length;
  const keys = count + (takes.other ? 1 : 0);
  fieldset.append(legend, h('p', { class: 'q-hint', id: hintId }, multi ? 'Select all that apply' : 'Select one', h('span', { class: 'q-keys', text: ` · keys 1–${keys}` })));
  const plannedTextList = planned ? plannedTexts(planned) : [];
  if (planned && plannedTextList.length > 0) fieldset.append(h('p', { class: 'q-timeout' }, 'If nobody answers in time: ', ...quotedList(plannedTextList), planned.rule ? ` (the rule ${planned.rule})` : ' (the recommended option)'));

  const list = h('div', { class: 'options' });
  // A single-select shows the preview of the option in focus (else the chosen one) beside the list,
  // as Claude Code's own dialog does; a multi-select shows each under its option.
  const hasPreviews = question.options.some((option) => typeof option.preview === 'string' && option.preview !== '');
  const sidePreview = !multi && hasPreviews ? h('figure', { class: 'preview preview-side', 'aria-live': 'polite' }) : null;
  const options = question.options.map((option, optionIndex) => {
    const labelId = uid('opt-label');
    const descId = uid('opt-desc');
    const hasDesc = typeof option.description === 'string' && option.description.trim() !== '';
    // Named by the label alone (tests and screen readers find it exactly); the description describes it.
    const input = h('input', { type, name, class: 'choice', 'aria-labelledby': labelId, 'aria-describedby': hasDesc ? descId : null });
    input.checked = chosen.has(option.label);
    const box = h(
      'div',
      { class: 'option' },
      h(
        'label',
        { class: 'option-main' },
        input,
        h('span', { class: 'option-key', 'aria-hidden': 'true', text: String(optionIndex + 1) }),
        h('span', { class: 'option-text' }, h('span', { class: 'option-label', id: labelId, dir: 'auto' }, visibleNodes(option.label)), hasDesc ? h('span', { class: 'option-desc', id: descId, dir: 'auto' }, visibleNodes(option.description)) : null),
      ),
    );
    if (!multi) {
      // A click or a tap (detail > 0; keys make clicks of detail 0) answers the question: once the
      // browser has checked the option, the next question comes into focus.
      /** @type {HTMLElement} */ (box.firstElementChild).addEventListener('click', (event) => {
        if (event.detail > 0) setTimeout(() => input.checked && picked(), 0);
      });
    }
    if (typeof option.preview === 'string' && option.preview !== '' && !sidePreview) box.append(previewOf(option.preview, () => input.checked || input.click()));
    if (sidePreview) input.addEventListener('focus', () => showSide(optionIndex));
    list.append(box);
    return { option, input };
  });

  const otherInput = h('input', { type, name, class: 'choice', 'aria-label': 'Other' });
  otherInput.checked = draft?.otherChosen === true;
  const otherText = h('input', { type: 'text', class: 'text-input other-text', 'aria-label': 'Other', placeholder: 'Type your own answer', maxlength: '10000', autocomplete: 'off', value: draft?.other ?? '' });
  otherText.value = draft?.other ?? '';
  // "Other" only where the asker takes typed text for this question: otherwise nothing to type, and it stays unchecked.
  if (takes.other) {
    list.append(
      h(
        'div',
        { class: 'option option-other' },
        h('label', { class: 'option-main' }, otherInput, h('span', { class: 'option-key', 'aria-hidden': 'true', text: String(count + 1) }), h('span', { class: 'option-text' }, h('span', { class: 'option-label', text: 'Other' }))),
        otherText,
      ),
    );
  } else {
    otherInput.checked = false;
    otherText.value = '';
  }

  const noteId = uid('note');
  const note = h('textarea', { class: 'text-input note', id: noteId, 'aria-label': 'Note', placeholder: `Note for ${takes.speaker} (optional)`, rows: '2', maxlength: '10000' });
  note.value = takes.note ? (draft?.note ?? '') : '';
  const noteOpen = takes.note && (draft?.noteOpen === true || note.value !== '');
  note.hidden = !noteOpen;
  const noteToggle = h('button', { type: 'button', class: 'btn-link note-toggle', 'aria-expanded': String(noteOpen), 'aria-controls': noteId, text: 'Add a note' });
  noteToggle.addEventListener('click', () => {
    const open = note.hidden;
    note.hidden = !open;
    noteToggle.setAttribute('aria-expanded', String(open));
    if (open) note.focus();
    fieldset.dispatchEvent(new Event('change', { bubbles: true }));
  });

  const error = h('p', { class: 'q-error', id: errorId, hidden: true });
  const body = sidePreview ? h('div', { class: 'q-body has-preview' }, list, sidePreview) : list;
  // The problem sits right under the question, where the eye is when it is pointed out.
  fieldset.append(error, body, ...(takes.note ? [h('div', { class: 'note-row' }, noteToggle), note] : []));

  /** @type {FormQuestion} */
  const q = { question, fieldset, options, otherInput, otherText, takesOther: takes.other, note, noteToggle, error, errorId, hintId };
  otherText.addEventListener('input', () => {
    // Typing is choosing: in a single-select this also unchecks the option radios (same group).
    if (otherText.value.trim() !== '') otherInput.checked = true;
    clearProblem(q);
  });
  fieldset.addEventListener('change', () => {
    clearProblem(q);
    if (sidePreview) {
      const checked = options.findIndex(({ input }) => input.checked);
      if (checked >= 0) showSide(checked);
    }
  });

  /** @param {number} optionIndex */
  function showSide(optionIndex) {
    if (!sidePreview || sidePreview.dataset.option === String(optionIndex)) return;
    const entry = options[optionIndex];
    if (!entry) return;
    sidePreview.dataset.option = String(optionIndex);
    const preview = entry.option.preview;
    if (typeof preview !== 'string' || preview === '') {
      sidePreview.replaceChildren(h('figcaption', { class: 'preview-caption' }, visibleNodes(entry.option.label)), h('p', { class: 'preview-none', text: 'No preview for this option.' }));
      return;
    }
    sidePreview.replaceChildren(...previewOf(preview, () => {}, entry.option.label).childNodes);
  }
  if (sidePreview) {
    // A click on the preview chooses the option it shows.
    sidePreview.addEventListener('click', () => {
      const shown = options[Number(sidePreview.dataset.option)];
      if (shown && !shown.input.checked) shown.input.click();
    });
    const checked = options.findIndex(({ input }) => input.checked);
    showSide(checked >= 0 ? checked : Math.max(0, options.findIndex(({ option }) => typeof option.preview === 'string' && option.preview !== '')));
  }
  return q;
}

/**
 * A preview as rendered markdown; a click on it chooses its option. Focusable, so a long one scrolls from the keyboard.
 * @param {string} markdown
 * @param {() => void} choose
 * @param {string} [label]
 */
function previewOf(markdown, choose, label) {
  const body = h('div', { class: 'preview-body md', dir: 'auto', tabindex: '0' });
  body.append(renderMarkdown(markdown));
  const figure = h('figure', { class: 'preview' }, h('figcaption', { class: 'preview-caption' }, label ? ['Preview: ', ...visibleNodes(label)] : 'Preview'), body);
  figure.addEventListener('click', choose);
  return figure;
}

/**
 * @param {FormQuestion} q
 * @returns {QuestionDraft}
 */
function draftOf(q) {
  return {
    selected: q.options.filter(({ input }) => input.checked).map(({ option }) => option.label),
    otherChosen: q.otherInput.checked,
    other: q.otherText.value,
    note: q.note.value,
    noteOpen: !q.note.hidden,
  };
}

/**
 * The request body, and the questions still missing an answer.
 * @param {FormQuestion[]} qs
 */
function collect(qs) {
  const responses = [];
  const problems = [];
  for (const q of qs) {
    const selected = q.options.filter(({ input }) => input.checked).map(({ option }) => option.label);
    const otherChosen = q.otherInput.checked;
    const other = q.otherText.value.trim();
    const notes = q.note.hidden ? '' : q.note.value.trim();
    if (otherChosen && other === '') {
      problems.push({ q, message: 'Type your answer next to “Other”, or pick an option.', target: q.otherText });
    } else if (selected.length === 0 && !otherChosen) {
      problems.push({ q, message: q.question.multiSelect ? 'Pick at least one option, or type your own answer.' : 'Pick an option, or type your own answer.', target: q.options[0]?.input ?? q.otherInput });
    }
    responses.push({ question: q.question.question, selected, other: otherChosen ? other : null, notes: notes === '' ? null : notes });
  }
  return { responses, problems };
}

/**
 * @param {FormQuestion} q
 * @param {string} message
 * @param {HTMLElement} target
 */
function showProblem(q, message, target) {
  q.error.textContent = message;
  q.error.hidden = false;
  q.fieldset.setAttribute('aria-invalid', 'true');
  q.fieldset.setAttribute('aria-describedby', `${q.errorId} ${q.hintId}`);
  if (target === q.otherText) {
    q.otherText.setAttribute('aria-invalid', 'true');
    q.otherText.setAttribute('aria-describedby', q.errorId);
  }
}

/** @param {FormQuestion} q */
function clearProblem(q) {
  if (q.error.hidden) return;
  q.error.hidden = true;
  q.error.textContent = '';
  q.fieldset.removeAttribute('aria-invalid');
  q.fieldset.setAttribute('aria-describedby', q.hintId);
  q.otherText.removeAttribute('aria-invalid');
  q.otherText.removeAttribute('aria-describedby');
}
