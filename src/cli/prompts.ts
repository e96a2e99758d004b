// The prompts of the interactive answer. The lists are built on @clack/core: @clack/prompts' own
// select and multiselect take no number keys and show a description only beside the option under
// the cursor, where here every option shows its description, a number key picks (or ticks) it, and
// a few letter keys the caller names (decline, hand back, show the context) end the list at once.
// Raw mode, keys, redrawing, Esc and Ctrl+C stay the library's. Each prompt ends at once when `stop`
// (or `refresh`) aborts; it says how it ended without a choice: Esc, Ctrl+C, stopped or refreshed.
// A list refreshed gives its place on screen, its title with it, to what the refresh brings (the
// abort's reason), so that nothing the person has read is printed twice.
// `onKey` hears that a key was pressed while it runs (a person is answering: flow.ts asks for more time).
import { styleText } from 'node:util';
import { MultiSelectPrompt, SelectPrompt, TextPrompt, type State } from '@clack/core';
import { limitOptions, S_BAR, S_BAR_END, S_CHECKBOX_ACTIVE, S_CHECKBOX_INACTIVE, S_CHECKBOX_SELECTED, S_RADIO_ACTIVE, S_RADIO_INACTIVE, symbol } from '@clack/prompts';

/** One line of a list; the caller has already made model text visible (markers for invisible characters). */
export type ListItem = { label: string; description?: string };

/**
 * How a prompt ended without a choice: `escape` and `ctrl-c` (the person left; what that means is
 * the caller's), `stopped` (`stop` aborted: the flow ends), `refreshed` (`refresh` aborted: the
 * caller shows something new and asks the same again).
 */
export type PromptEnd = { ended: 'escape' | 'ctrl-c' | 'stopped' | 'refreshed' };

/** A letter key that ends a list at once: its hint in the footer ("d declines"; empty when the caller says it in `how`), and what the list shows once it was pressed. */
export type LetterKey = { key: string; hint: string; pressed: string };

/** A letter key was pressed: which (where the list was, `onMove` has heard). */
export type Pressed = { pressed: string };

/**
 * The keys of a new ask's prompts that choose nothing yet: keys meant for the ask before may still
 * come (a second press, a key held down). Until nothing that would choose was pressed for HOLD_MS
 * since it was shown, its lists take no number, letter, Space or Enter, and a line of text takes no
 * Enter; the prompt says so until the hold is over. Each such key meanwhile starts the wait again, so
 * a key held down never chooses. The page holds its buttons the same way (approval.js). Shared by
 * every prompt of one ask: `until` moves later.
 */
export type KeyHold = { until: number };

/** How long a new ask's keys wait, as the page's buttons do. */
export const HOLD_MS = 700;

/** The hold of an ask shown now. */
export function newKeyHold(now = Date.now()): KeyHold {
  return { until: now + HOLD_MS };
}

/**
 * What every prompt is given: the signals that end it, who hears its keys, and the hold of its ask's
 * keys. `refresh` is aborted with the text that takes a list's place on screen (its reason, a
 * string): the caller then asks the list again below it.
 */
export type Run = { stop: AbortSignal; refresh?: AbortSignal | undefined; onKey?: (() => void) | undefined; hold?: KeyHold | undefined };

/** What a prompt says while its keys are held. */
export const HELD = 'Just shown: keys wait a moment, so that none meant for the one before chooses here';

type ListOptions = {
  /** What the list asks, drawn above it with the side bar (already wrapped): it goes with the list when a refresh takes its place. */
  title?: string | undefined;
  message: string;
  items: ListItem[];
  /** The first line of the footer: how to choose. */
  how: string;
  /** The second line: what Esc does (and Ctrl+C). */
  leave: string;
  letters?: LetterKey[];
  /** Hears where the list is at each redraw (its cursor, the items ticked), to ask the same again after a refresh. */
  onMove?: ((cursor: number, ticked: number[]) => void) | undefined;
};

/** Pick one item: arrows and Enter, or its number at once. Resolves with its index. */
export function pickOne(options: ListOptions & Run & { initial?: number | undefined }): Promise<{ chosen: number } | Pressed | PromptEnd> {
  return whileRunning(options, (signal) => runPickOne(options, signal));
}

async function runPickOne(options: ListOptions & Pick<Run, 'hold' | 'refresh'> & { initial?: number | undefined }, signal: AbortSignal): Promise<{ chosen: number } | Pressed | undefined> {
  const { items } = options;
  const letters = options.letters ?? [];
  let pressed: LetterKey | undefined;
  const held = holding(options.hold);
  const prompt = new SelectPrompt<{ value: number }>({
    options: items.map((_, index) => ({ value: index })),
    initialValue: options.initial ?? 0,
    signal,
    validate: () => held.enter(),
    render() {
      options.onMove?.(this.cursor, []);
      const marker = (_index: number, active: boolean) => (active ? styleText('green', S_RADIO_ACTIVE) : styleText('dim', S_RADIO_INACTIVE));
      return frame(this, options, marker, footer(options, letters, held.active()), pressed?.pressed ?? labelsOf(items, [this.cursor]));
    },
  });
  drawnOverOnRefresh(prompt, options.refresh, signal);
  prompt.on('key', (key, info) => {
    if (held.swallows(prompt, key, info)) return;
    const letter = letterKey(key, letters);
    if (letter) {
      pressed = letter;
      prompt.state = 'submit';
      return;
    }
    const index = numberKey(key, items.length);
    if (index === undefined) return;
    prompt.cursor = index;
    prompt.value = index;
    prompt.state = 'submit';
  });
  const chosen = await held.around(prompt);
  if (pressed) return { pressed: pressed.key };
  return typeof chosen === 'number' ? { chosen } : undefined;
}

/** Tick any number of items: Space or a number ticks the item, Enter confirms. Resolves with the ticked indices in list order. */
export function pickSome(options: ListOptions & Run & { initial: number[]; cursor?: number | undefined; validate: (ticked: number[]) => string | undefined }): Promise<{ chosen: number[] } | Pressed | PromptEnd> {
  return whileRunning(options, (signal) => runPickSome(options, signal));
}

async function runPickSome(
  options: ListOptions & Pick<Run, 'hold' | 'refresh'> & { initial: number[]; cursor?: number | undefined; validate: (ticked: number[]) => string | undefined },
  signal: AbortSignal,
): Promise<{ chosen: number[] } | Pressed | undefined> {
  const { items } = options;
  const letters = options.letters ?? [];
  let pressed: LetterKey | undefined;
  const held = holding(options.hold);
  // The ticks on screen: a held key that the library acts on before it is heard here (Space, its own
  // `a` and `i`) is undone.
  let shownTicks: number[] = options.initial;
  const prompt = new MultiSelectPrompt<{ value: number }>({
    options: items.map((_, index) => ({ value: index })),
    initialValues: options.initial,
    cursorAt: options.cursor ?? options.initial[0] ?? 0,
    signal,
    validate: (ticked) => held.enter() ?? options.validate(ticked ?? []),
    render() {
      const ticked = this.value ?? [];
      shownTicks = ticked;
      options.onMove?.(this.cursor, [...ticked].sort((a, b) => a - b));
      const box = (index: number, active: boolean) => (ticked.includes(index) ? styleText('green', S_CHECKBOX_SELECTED) : active ? styleText('cyan', S_CHECKBOX_ACTIVE) : styleText('dim', S_CHECKBOX_INACTIVE));
      return frame(this, options, box, footer(options, letters, held.active()), pressed?.pressed ?? labelsOf(items, ticked));
    },
  });
  drawnOverOnRefresh(prompt, options.refresh, signal);
  prompt.on('key', (key, info) => {
    if (held.swallows(prompt, key, info)) {
      prompt.value = shownTicks;
      return;
    }
    const letter = letterKey(key, letters);
    if (letter) {
      pressed = letter;
      prompt.state = 'submit';
      return;
    }
    const index = numberKey(key, items.length);
    if (index === undefined) return;
    prompt.cursor = index;
    const ticked = prompt.value ?? [];
    prompt.value = ticked.includes(index) ? ticked.filter((other) => other !== index) : [...ticked, index];
  });
  const ticked = await held.around(prompt);
  if (pressed) return { pressed: pressed.key };
  return Array.isArray(ticked) ? { chosen: [...ticked].sort((a, b) => a - b) } : undefined;
}

/**
 * A line of text, drawn as @clack/prompts draws its own; `validate` returns the reason it cannot be
 * taken. What is typed shows as it is typed; only Enter, which sends, waits out a hold.
 */
export function askText(options: Run & { message: string; placeholder?: string; initial: string; validate: (value: string) => string | undefined }): Promise<{ typed: string } | PromptEnd> {
  return whileRunning(options, async (signal) => {
    const held = holding(options.hold);
    const { message, placeholder } = options;
    const prompt = new TextPrompt({
      initialValue: options.initial,
      signal,
      validate: (value) => held.enter() ?? options.validate(value ?? ''),
      render() {
        return textFrame(this, message, placeholder, held.active());
      },
    });
    const typed = await held.around<string>(prompt);
    return typeof typed === 'string' ? { typed } : undefined;
  });
}

/** A line of text as @clack/prompts' `text` draws it, with the hold's note under it while keys wait. */
function textFrame(prompt: { state: State; error: string; value: string | undefined; userInput: string; userInputWithCursor: string }, message: string, placeholder: string | undefined, held: boolean): string {
  const title = `${styleText('gray', S_BAR)}\n${symbol(prompt.state)}  ${message}\n`;
  const value = prompt.value ?? '';
  if (prompt.state === 'submit') return `${title}${styleText('gray', S_BAR)}${value ? `  ${dim(value)}` : ''}`;
  if (prompt.state === 'cancel') return `${title}${styleText('gray', S_BAR)}${value ? `  ${styleText(['strikethrough', 'dim'], value)}` : ''}${value.trim() ? `\n${styleText('gray', S_BAR)}` : ''}`;
  const shown = prompt.userInput ? prompt.userInputWithCursor : placeholder ? `${styleText('inverse', placeholder.slice(0, 1))}${dim(placeholder.slice(1))}` : styleText(['inverse', 'hidden'], '_');
  if (prompt.state === 'error') return `${title.trimEnd()}\n${styleText('yellow', S_BAR)}  ${shown}\n${styleText('yellow', S_BAR_END)}  ${styleText('yellow', prompt.error)}\n`;
  return `${title}${styleText('cyan', S_BAR)}  ${shown}\n${styleText('cyan', S_BAR_END)}${held ? `  ${styleText('yellow', HELD)}` : ''}\n`;
}

/**
 * Drops whatever was typed before the question was on screen (a second Enter after the command,
 * keys pressed while `watch` waited), so that no key meant for something else chooses an answer.
 * Keys already typed are read at the event loop's next poll for input: a short wait, then a turn
 * that comes after such a poll (setImmediate), covers it.
 */
export async function dropTypeAhead(): Promise<void> {
  const input = process.stdin;
  if (!input.isTTY) return;
  const drop = () => {};
  input.setRawMode(true);
  input.on('data', drop);
  await new Promise((resolve) => setTimeout(resolve, TYPE_AHEAD_MS));
  await new Promise((resolve) => setImmediate(resolve));
  input.off('data', drop);
  input.setRawMode(false);
  input.pause();
}

const TYPE_AHEAD_MS = 30;

/** A key as Node's readline reads it from a terminal. */
type KeyPress = { name?: string; ctrl?: boolean };

/**
 * Runs one prompt with a signal that follows `stop` and `refresh` only while the prompt runs. The
 * library never removes its abort listener, and a prompt that has ended writes to the terminal again
 * when it hears an abort later. `onKey` hears the prompt's keys only while it runs, too. A prompt
 * that ends without a choice says why: the abort that ended it, or the last key (Esc or Ctrl+C,
 * which the library both takes as "cancel").
 */
async function whileRunning<T>({ stop, refresh, onKey }: Run, prompt: (signal: AbortSignal) => Promise<T | undefined>): Promise<T | PromptEnd> {
  const own = new AbortController();
  const follow = () => own.abort();
  const signals = refresh ? [stop, refresh] : [stop];
  for (const signal of signals) {
    if (signal.aborted) own.abort();
    else signal.addEventListener('abort', follow, { once: true });
  }
  let interrupted = false;
  const hear = (_text: string | undefined, key: KeyPress | undefined) => {
    interrupted = key?.ctrl === true && key.name === 'c';
    onKey?.();
  };
  try {
    const answered = prompt(own.signal);
    // The prompt has set stdin up (readline) as it started: each key is a `keypress` event on it now.
    process.stdin.on('keypress', hear);
    const result = await answered;
    if (result !== undefined) return result;
    if (stop.aborted) return { ended: 'stopped' };
    if (refresh?.aborted) return { ended: 'refreshed' };
    return { ended: interrupted ? 'ctrl-c' : 'escape' };
  } finally {
    process.stdin.off('keypress', hear);
    for (const signal of signals) signal.removeEventListener('abort', follow);
  }
}

/**
 * A list's last frame when `refresh` ends it: the refresh's text in its place. The library draws no
 * frame when its signal aborts (it only ends the prompt), so this draws it first: `signal` follows
 * `refresh` (whileRunning), and a listener added before the prompt starts hears the abort first.
 */
function drawnOverOnRefresh(prompt: SelectPrompt<{ value: number }> | MultiSelectPrompt<{ value: number }>, refresh: AbortSignal | undefined, signal: AbortSignal): void {
  signal.addEventListener(
    'abort',
    () => {
      if (!refresh?.aborted) return;
      prompt.state = 'cancel';
      redraw(prompt);
    },
    { once: true },
  );
}

/** What takes a refreshed list's place: the text its refresh was aborted with. */
function refreshText(refresh: AbortSignal | undefined): string | undefined {
  if (!refresh?.aborted) return undefined;
  return typeof refresh.reason === 'string' ? refresh.reason : '';
}

/** The index a number key names ("1" is the first item), if it names one. */
function numberKey(key: string | undefined, count: number): number | undefined {
  if (key === undefined || !/^[1-9]$/.test(key)) return undefined;
  const index = Number(key) - 1;
  return index < count ? index : undefined;
}

function letterKey(key: string | undefined, letters: LetterKey[]): LetterKey | undefined {
  return key === undefined ? undefined : letters.find((letter) => letter.key === key);
}

function labelsOf(items: ListItem[], indices: number[]): string {
  return [...indices].sort((a, b) => a - b).map((index) => items[index]?.label ?? '').join(', ');
}

/** The keys, on two lines: how to choose (or, while keys are held, that they wait), then the letter keys and what Esc does. */
function footer(options: ListOptions, letters: LetterKey[], held: boolean): string {
  return `${held ? HELD : options.how}\n${[...letters.map((letter) => letter.hint), options.leave].filter(Boolean).join(' · ')}`;
}

/** The keys besides Enter that would choose or tick: a number, a letter, Space. Arrows only move, and Esc and Ctrl+C only leave. */
function chooses(key: string | undefined, info: KeyPress | undefined): boolean {
  return info?.name === 'space' || (key !== undefined && /^[\p{L}\p{N}]$/u.test(key));
}

/**
 * A prompt's side of its ask's key hold. Each key that would choose, pressed while held, starts the
 * wait again and is refused on screen (the library shows the refusal until the next key): Enter
 * through the prompt's validation, `enter()`, and every other key through `swallows`. `around` runs
 * the prompt and draws it again once the hold is over, so that it no longer says keys wait.
 */
function holding(hold: KeyHold | undefined) {
  const active = (): boolean => hold !== undefined && Date.now() < hold.until;
  /** Whether keys are held now; if so, the wait starts again (a key was pressed). */
  const holds = (): boolean => {
    if (hold === undefined || !active()) return false;
    hold.until = Date.now() + HOLD_MS;
    return true;
  };
  return {
    active,
    /** Enter: what the prompt says instead of taking it while held. */
    enter(): string | undefined {
      return holds() ? HELD : undefined;
    },
    /** Any other key: whether it is swallowed (the prompt then shows why). */
    swallows(prompt: { state: State; error: string }, key: string | undefined, info: KeyPress | undefined): boolean {
      if (!chooses(key, info) || !holds()) return false;
      prompt.state = 'error';
      prompt.error = HELD;
      return true;
    },
    async around<T>(prompt: SelectPrompt<{ value: number }> | MultiSelectPrompt<{ value: number }> | TextPrompt): Promise<T | symbol | undefined> {
      let timer: NodeJS.Timeout | undefined;
      const whenOver = () => {
        const left = hold === undefined ? 0 : hold.until - Date.now();
        if (left > 0) {
          timer = setTimeout(whenOver, left);
          return;
        }
        if (prompt.state === 'error' && prompt.error === HELD) prompt.state = 'active';
        redraw(prompt);
      };
      if (active()) whenOver();
      try {
        return (await prompt.prompt()) as T | symbol | undefined;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Draws a running prompt again. @clack/core draws only after a key or a resize, and keeps its
 * drawing to itself; a hold that ends with neither must still show that keys choose again.
 */
function redraw(prompt: object): void {
  (prompt as { render?: () => void }).render?.();
}

/**
 * A list as @clack/prompts draws its own, under its title: the message, the items (windowed to the
 * terminal's height), and a footer with the keys or the error. Once refreshed, the refresh's text.
 */
function frame(prompt: { state: State; cursor: number; error: string }, options: ListOptions & Pick<Run, 'refresh'>, marker: (index: number, active: boolean) => string, keys: string, chosen: string): string {
  const { items, message } = options;
  const replacement = prompt.state === 'cancel' ? refreshText(options.refresh) : undefined;
  if (replacement !== undefined) return replacement;
  const title = `${options.title === undefined ? '' : `${options.title}\n`}${styleText('gray', S_BAR)}\n${symbol(prompt.state)}  ${message}\n`;
  if (prompt.state === 'submit') return `${title}${styleText('gray', S_BAR)}  ${dim(indent(chosen))}`;
  if (prompt.state === 'cancel') return `${title}${styleText('gray', S_BAR)}  ${indent(chosen).split('\n').map((line) => styleText(['strikethrough', 'dim'], line)).join('\n')}\n${styleText('gray', S_BAR)}`;
  const color = prompt.state === 'error' ? 'yellow' : 'cyan';
  const bar = `${styleText(color, S_BAR)}  `;
  const [how, more] = keys.split('\n');
  const footerLines = prompt.state === 'error' ? `${styleText(color, S_BAR_END)}  ${styleText('yellow', prompt.error)}` : `${bar}${styleText('dim', how ?? '')}\n${styleText(color, S_BAR_END)}  ${styleText('dim', more ?? '')}`;
  const lines = limitOptions({
    options: items.map((_, index) => index),
    cursor: prompt.cursor,
    columnPadding: 3,
    rowPadding: title.split('\n').length + 2,
    style: (index, active) => {
      const item = items[index]!;
      const label = `${index + 1}. ${item.label}`;
      const description = item.description ? `\n${dim(item.description)}` : '';
      return `${marker(index, active)} ${indent(active ? label : dim(label))}${indent(description)}`;
    },
  });
  return `${title}${bar}${lines.join(`\n${bar}`)}\n${footerLines}\n`;
}

/** Dim line by line, so that the bar drawn before each line keeps its own colour. */
function dim(text: string): string {
  return text.split('\n').map((line) => styleText('dim', line)).join('\n');
}

/** Lines after the first start under the label, past the marker and the number. */
function indent(text: string): string {
  return text.replace(/\n/g, '\n     ');
}
