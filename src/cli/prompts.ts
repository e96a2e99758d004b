// The prompts of the interactive answer. The lists are built on @clack/core: @clack/prompts' own
// select and multiselect take no number keys and show a description only beside the option under
// the cursor, where here every option shows its description and a number key picks (or ticks) it.
// Raw mode, keys, redrawing, Esc and Ctrl+C stay the library's. Each prompt ends at once when
// `stop` aborts, and resolves with undefined then, as when the person leaves (Esc, Ctrl+C); `onKey`
// hears that a key was pressed while it runs (a person is answering: flow.ts asks for more time).
import { styleText } from 'node:util';
import { MultiSelectPrompt, SelectPrompt, type State } from '@clack/core';
import { isCancel, limitOptions, S_BAR, S_BAR_END, S_CHECKBOX_ACTIVE, S_CHECKBOX_INACTIVE, S_CHECKBOX_SELECTED, S_RADIO_ACTIVE, S_RADIO_INACTIVE, symbol, text } from '@clack/prompts';

/** One line of a list; the caller has already made model text visible (markers for invisible characters). */
export type ListItem = { label: string; description?: string };

/** Pick one item: arrows and Enter, or its number at once. Resolves with its index. */
export function pickOne(options: { message: string; items: ListItem[]; initial?: number; stop: AbortSignal; onKey?: () => void }): Promise<number | undefined> {
  return whileRunning(options, (signal) => runPickOne(options, signal));
}

async function runPickOne(options: { message: string; items: ListItem[]; initial?: number }, signal: AbortSignal): Promise<number | undefined> {
  const { message, items } = options;
  const prompt = new SelectPrompt<{ value: number }>({
    options: items.map((_, index) => ({ value: index })),
    initialValue: options.initial ?? 0,
    signal,
    render() {
      return frame(this, message, items, (_index, active) => (active ? styleText('green', S_RADIO_ACTIVE) : styleText('dim', S_RADIO_INACTIVE)), `↑/↓ and Enter, or a number (1-${items.length}) · Esc leaves, nothing is sent`, labelsOf(items, [this.cursor]));
    },
  });
  prompt.on('key', (key) => {
    const index = numberKey(key, items.length);
    if (index === undefined) return;
    prompt.cursor = index;
    prompt.value = index;
    prompt.state = 'submit';
  });
  const chosen = await prompt.prompt();
  return typeof chosen === 'number' ? chosen : undefined;
}

type PickSomeOptions = { message: string; items: ListItem[]; initial: number[]; validate: (ticked: number[]) => string | undefined };

/** Tick any number of items: Space or a number ticks the item, Enter confirms. Resolves with the ticked indices in list order. */
export function pickSome(options: PickSomeOptions & { stop: AbortSignal; onKey?: () => void }): Promise<number[] | undefined> {
  return whileRunning(options, (signal) => runPickSome(options, signal));
}

async function runPickSome(options: PickSomeOptions, signal: AbortSignal): Promise<number[] | undefined> {
  const { message, items } = options;
  const prompt = new MultiSelectPrompt<{ value: number }>({
    options: items.map((_, index) => ({ value: index })),
    initialValues: options.initial,
    cursorAt: options.initial[0] ?? 0,
    signal,
    validate: (ticked) => options.validate(ticked ?? []),
    render() {
      const ticked = this.value ?? [];
      const box = (index: number, active: boolean) => (ticked.includes(index) ? styleText('green', S_CHECKBOX_SELECTED) : active ? styleText('cyan', S_CHECKBOX_ACTIVE) : styleText('dim', S_CHECKBOX_INACTIVE));
      return frame(this, message, items, box, `↑/↓, Space or a number (1-${items.length}) ticks · Enter confirms · Esc leaves, nothing is sent`, labelsOf(items, ticked));
    },
  });
  prompt.on('key', (key) => {
    const index = numberKey(key, items.length);
    if (index === undefined) return;
    prompt.cursor = index;
    const ticked = prompt.value ?? [];
    prompt.value = ticked.includes(index) ? ticked.filter((other) => other !== index) : [...ticked, index];
  });
  const ticked = await prompt.prompt();
  return Array.isArray(ticked) ? [...ticked].sort((a, b) => a - b) : undefined;
}

/** A line of text, as @clack/prompts asks for it; `validate` returns the reason it cannot be taken. */
export function askText(options: { message: string; placeholder?: string; initial: string; validate: (value: string) => string | undefined; stop: AbortSignal; onKey?: () => void }): Promise<string | undefined> {
  return whileRunning(options, async (signal) => {
    const typed = await text({ message: options.message, placeholder: options.placeholder, initialValue: options.initial, validate: (value) => options.validate(value ?? ''), signal });
    return isCancel(typed) ? undefined : typed;
  });
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

/**
 * Runs one prompt with a signal that follows `stop` only while the prompt runs. The library never
 * removes its abort listener, and a prompt that has ended writes to the terminal again when it
 * hears an abort later. `onKey` hears the prompt's keys only while it runs, too.
 */
async function whileRunning<T>({ stop, onKey }: { stop: AbortSignal; onKey?: (() => void) | undefined }, prompt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const follow = () => own.abort();
  if (stop.aborted) own.abort();
  else stop.addEventListener('abort', follow, { once: true });
  try {
    const answered = prompt(own.signal);
    // The prompt has set stdin up (readline) as it started: each key is a `keypress` event on it now.
    if (onKey) process.stdin.on('keypress', onKey);
    return await answered;
  } finally {
    if (onKey) process.stdin.off('keypress', onKey);
    stop.removeEventListener('abort', follow);
  }
}

/** The index a number key names ("1" is the first item), if it names one. */
function numberKey(key: string | undefined, count: number): number | undefined {
  if (key === undefined || !/^[1-9]$/.test(key)) return undefined;
  const index = Number(key) - 1;
  return index < count ? index : undefined;
}

function labelsOf(items: ListItem[], indices: number[]): string {
  return [...indices].sort((a, b) => a - b).map((index) => items[index]?.label ?? '').join(', ');
}

/** A list as @clack/prompts draws its own: the message, the items (windowed to the terminal's height), and a footer with the keys or the error. */
function frame(prompt: { state: State; cursor: number; error: string }, message: string, items: ListItem[], marker: (index: number, active: boolean) => string, keys: string, chosen: string): string {
  const title = `${styleText('gray', S_BAR)}\n${symbol(prompt.state)}  ${message}\n`;
  if (prompt.state === 'submit') return `${title}${styleText('gray', S_BAR)}  ${dim(indent(chosen))}`;
  if (prompt.state === 'cancel') return `${title}${styleText('gray', S_BAR)}  ${indent(chosen).split('\n').map((line) => styleText(['strikethrough', 'dim'], line)).join('\n')}\n${styleText('gray', S_BAR)}`;
  const color = prompt.state === 'error' ? 'yellow' : 'cyan';
  const bar = `${styleText(color, S_BAR)}  `;
  const footer = `${styleText(color, S_BAR_END)}  ${prompt.state === 'error' ? styleText('yellow', prompt.error) : styleText('dim', keys)}`;
  const lines = limitOptions({
    options: items.map((_, index) => index),
    cursor: prompt.cursor,
    columnPadding: 3,
    rowPadding: title.split('\n').length + 1,
    style: (index, active) => {
      const item = items[index]!;
      const label = `${index + 1}. ${item.label}`;
      const description = item.description ? `\n${dim(item.description)}` : '';
      return `${marker(index, active)} ${indent(active ? label : dim(label))}${indent(description)}`;
    },
  });
  return `${title}${bar}${lines.join(`\n${bar}`)}\n${footer}\n`;
}

/** Dim line by line, so that the bar drawn before each line keeps its own colour. */
function dim(text: string): string {
  return text.split('\n').map((line) => styleText('dim', line)).join('\n');
}

/** Lines after the first start under the label, past the marker and the number. */
function indent(text: string): string {
  return text.replace(/\n/g, '\n     ');
}
