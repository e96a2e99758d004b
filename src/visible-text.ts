// Model text made safe to show. Question text comes from a model that may be prompt-injected: a
// control character, an escape sequence (ANSI, OSC 0 title, OSC 52 clipboard), a bidi override or a
// zero-width character could make a question show one thing and mean another, or act on the
// terminal. Each such character becomes a visible `[U+XXXX]` marker wherever model text is shown.
// Only the display changes: answers stay keyed by the exact original text.
// The answer page cannot import this file, so src/web/visible-text.js holds a copy of the rule; one
// test table checks both.

/**
 * One definition, from Unicode's own classes: every control character (Cc: C0, DEL, C1) but tab and
 * newline (which the CLI indents), every format character (Cf: bidi controls, zero-width characters,
 * soft hyphen, tags), every Default_Ignorable_Code_Point (variation selectors, the combining grapheme
 * joiner, Hangul fillers, U+180E...), lone surrogates (Cs), the line and paragraph separators (a line
 * break that does not look like one), and the Braille blank (U+2800), which shows as nothing.
 */
export const INVISIBLE_CHARACTER = /(?![\t\n])[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u2800]/gu;

/** `[U+202E]` for U+202E. */
export function markerOf(character: string): string {
  return `[U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** The text with every invisible or terminal-active character replaced by its `[U+XXXX]` marker. */
export function markInvisible(text: string): string {
  return text.replace(INVISIBLE_CHARACTER, markerOf);
}

/**
 * For a terminal: markers as above, and every line after the first indented by `indent`, so that a
 * newline in model text cannot start a line that looks like one askbridge printed itself.
 */
export function terminalText(text: string, indent = ''): string {
  return markInvisible(text).replace(/\n/g, `\n${indent}`);
}

/**
 * JSON for a terminal: the same value as JSON.stringify gives, with every invisible character that
 * JSON.stringify leaves raw written as a \uXXXX escape. Parsing it gives back the exact text.
 */
export function terminalJson(value: unknown): string {
  return escapeInvisibleInJson(JSON.stringify(value) ?? 'null');
}

/** JSON text with every invisible character written as a \\uXXXX escape: the same value, and unchanged when it had none. */
export function escapeInvisibleInJson(json: string): string {
  return json.replace(INVISIBLE_CHARACTER, (character) =>
    Array.from({ length: character.length }, (_, index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`).join(''),
  );
}
