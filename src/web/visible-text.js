// @ts-check
// The page's copy of the rule in src/visible-text.ts (the page is static and cannot import from
// src/; one test table checks both): every invisible or control character in model text is shown
// as a visible `[U+XXXX]` marker. Only the display changes, never the text that is sent back.

export const INVISIBLE_CHARACTER = /(?![\t\n])[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u2800]/gu;

/** `[U+202E]` for U+202E. */
export function markerOf(character) {
  return `[U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** The text with every such character replaced by its marker (for attributes and announcements). */
export function markInvisible(text) {
  return String(text).replace(INVISIBLE_CHARACTER, markerOf);
}

/** The text cut into plain runs (strings) and markers (`{ marker: '[U+202E]' }`), in order. */
export function visibleParts(text) {
  const source = String(text);
  const parts = [];
  let last = 0;
  for (const match of source.matchAll(INVISIBLE_CHARACTER)) {
    if (match.index > last) parts.push(source.slice(last, match.index));
    parts.push({ marker: markerOf(match[0]) });
    last = match.index + match[0].length;
  }
  if (last < source.length) parts.push(source.slice(last));
  return parts;
}

/**
 * Model text as DOM nodes: Text nodes, with each invisible character (a bidi override, a zero-width
 * space, a control character) as a marked `[U+XXXX]` token, so that what is shown is what is meant.
 * @param {unknown} text
 * @returns {Node[]}
 */
export function visibleNodes(text) {
  return visibleParts(text).map((part) => {
    if (typeof part === 'string') return document.createTextNode(part);
    const marker = document.createElement('span');
    marker.className = 'invisible-char';
    marker.title = 'invisible character';
    marker.textContent = part.marker;
    return marker;
  });
}
