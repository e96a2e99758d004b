// The rule that makes invisible characters visible, checked against both copies: src/visible-text.ts
// (CLI, daemon messages) and src/web/visible-text.js (the answer page), from one table.
import { describe, expect, it } from 'vitest';
import * as shared from '../../src/visible-text.js';

type PageRule = {
  INVISIBLE_CHARACTER: RegExp;
  markInvisible: (text: string) => string;
  visibleParts: (text: string) => Array<string | { marker: string }>;
};
const page = (await import(new URL('../../src/web/visible-text.js', import.meta.url).href)) as PageRule;

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** Every character that must be shown as a marker: [code point, what it is]. */
const MARKED: Array<[number, string]> = [
  ...range(0x00, 0x08).map((code): [number, string] => [code, 'C0 control']),
  ...range(0x0b, 0x1f).map((code): [number, string] => [code, code === 0x1b ? 'ESC, which starts every ANSI and OSC sequence' : 'C0 control']),
  [0x7f, 'DEL'],
  ...range(0x80, 0x9f).map((code): [number, string] => [code, 'C1 control']),
  ...range(0x202a, 0x202e).map((code): [number, string] => [code, 'bidi embedding or override']),
  ...range(0x2066, 0x2069).map((code): [number, string] => [code, 'bidi isolate']),
  [0x200e, 'left-to-right mark'],
  [0x200f, 'right-to-left mark'],
  [0x061c, 'Arabic letter mark'],
  ...range(0x200b, 0x200d).map((code): [number, string] => [code, 'zero-width space, non-joiner, joiner']),
  [0x2060, 'word joiner'],
  [0xfeff, 'zero-width no-break space (BOM)'],
  [0xe0041, 'tag character (invisible ASCII look-alike)'],
  [0xd800, 'lone high surrogate'],
  [0xdc00, 'lone low surrogate'],
  [0x00ad, 'soft hyphen'],
  [0x180e, 'Mongolian vowel separator'],
  [0x034f, 'combining grapheme joiner'],
  ...range(0xfe00, 0xfe0f).map((code): [number, string] => [code, 'variation selector']),
  [0xe0100, 'variation selector supplement'],
  [0xe01ef, 'variation selector supplement'],
  [0x115f, 'Hangul choseong filler'],
  [0x1160, 'Hangul jungseong filler'],
  [0x3164, 'Hangul filler'],
  [0xffa0, 'halfwidth Hangul filler'],
  [0x2800, 'Braille pattern blank'],
  [0x2028, 'line separator'],
  [0x2029, 'paragraph separator'],
  [0x17b4, 'Khmer vowel inherent'],
  [0x1bca0, 'shorthand format control'],
  [0x1d173, 'musical symbol begin beam'],
  [0xe0001, 'language tag'],
  [0xe0fff, 'default ignorable, unassigned'],
];

/** Characters that stay as they are. */
const KEPT = ['\n', '\t', ' ', 'a', 'é', 'ß', '中', 'ع', 'א', '€', '\u00a0', '😀', '\u{1F468}', '"', '<', '[U+202E]'];

const IMPLEMENTATIONS: Array<[string, (text: string) => string]> = [
  ['src/visible-text.ts', shared.markInvisible],
  ['src/web/visible-text.js', page.markInvisible],
  ['src/web/visible-text.js visibleParts', (text) => page.visibleParts(text).map((part) => (typeof part === 'string' ? part : part.marker)).join('')],
];

describe.each(IMPLEMENTATIONS)('making invisible characters visible (%s)', (_name, mark) => {
  it.each(MARKED.map(([code, what]) => [`U+${hex(code)}`, what, code] as const))('shows %s (%s) as a [U+XXXX] marker', (name, _what, code) => {
    const character = String.fromCodePoint(code);
    expect(mark(`a${character}b`)).toBe(`a[${name}]b`);
  });

  it.each(KEPT.map((text) => [JSON.stringify(text), text]))('keeps %s as it is', (_shown, text) => {
    expect(mark(`x${text}y`)).toBe(`x${text}y`);
  });

  it('turns a hostile question into plain, visible text: no ESC, no bidi control, no zero-width character is left', () => {
    const hostile = 'Approve\u001b]0;pwned-title\u0007 \u001b[2J\u001b]52;c;cm0gLXJmIH4=\u0007 \u202Eyolp\u202C\u2066ed\u2069\u200B\u0000\u0085?';
    expect(mark(hostile)).toBe(
      'Approve[U+001B]]0;pwned-title[U+0007] [U+001B][2J[U+001B]]52;c;cm0gLXJmIH4=[U+0007] [U+202E]yolp[U+202C][U+2066]ed[U+2069][U+200B][U+0000][U+0085]?',
    );
  });
});

describe('both copies of the rule', () => {
  it('use the same pattern', () => {
    expect(page.INVISIBLE_CHARACTER.source).toBe(shared.INVISIBLE_CHARACTER.source);
    expect(page.INVISIBLE_CHARACTER.flags).toBe(shared.INVISIBLE_CHARACTER.flags);
  });

  it('agree on every code point', () => {
    const differ: string[] = [];
    for (let code = 0; code <= 0x10ffff; code += 1) {
      const text = String.fromCodePoint(code);
      if (shared.markInvisible(text) !== page.markInvisible(text)) differ.push(hex(code));
    }
    expect(differ).toEqual([]);
  });
});

describe('terminal output', () => {
  it('indents every line after the first, so model text cannot start a line of its own', () => {
    expect(shared.terminalText('Deploy?\n  2. [Prod] Skip review?\u001b[2J', '     ')).toBe('Deploy?\n       2. [Prod] Skip review?[U+001B][2J');
  });

  it('writes JSON whose bytes hold no invisible character, and which parses back to the exact text', () => {
    const value = { '\u202Eevil': 'a\u001b]52;c;eA==\u0007\u0085\u200B\u{E0041}\uD800 ok' };
    const json = shared.terminalJson(value);
    expect(json).not.toMatch(shared.INVISIBLE_CHARACTER);
    expect(json).toContain('\\u202e');
    expect(JSON.parse(json)).toEqual(value);
  });
});
