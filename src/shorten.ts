// The one way text is shortened for people and for transports (a notification, a webhook, a terminal
// line, a session's context). The cut falls between grapheme clusters, never inside one: slicing
// UTF-16 units would leave half of a surrogate pair (an invalid string that Slack, Discord, ntfy and
// push services mangle or refuse), or split an emoji sequence, a flag or a letter from its accent.
// The bound is in UTF-16 units, as `.length` counts, so the limits that schemas and payload sizes
// are checked against hold for the result.

export type ShortenOptions = {
  /**
   * 'collapse' (the default): every run of whitespace becomes one space and the ends are trimmed,
   * for one-line places (a header, a notification, an error message). 'keep': the text as it is,
   * line breaks included, for text shown as a block.
   */
  whitespace?: 'collapse' | 'keep';
};

const ELLIPSIS = '…';

/** Made on first use, not at load: it loads ICU's segmentation data, and the daemon's start is timed. */
let graphemes: Intl.Segmenter | undefined;

/**
 * `text` in at most `maxLength` UTF-16 units (`.length`; `maxLength` at least 1). When it has to be
 * cut, it keeps as many whole grapheme clusters as fit before a final "…", trailing whitespace
 * dropped; a single cluster longer than the room left is dropped whole.
 */
export function shorten(text: string, maxLength: number, options: ShortenOptions = {}): string {
  if (!(maxLength >= 1)) throw new RangeError(`shorten: maxLength must be at least 1, not ${maxLength}`);
  const line = options.whitespace === 'keep' ? text : text.replace(/\s+/g, ' ').trim();
  if (line.length <= maxLength) return line;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const room = maxLength - ELLIPSIS.length;
  let end = 0;
  for (const { segment } of graphemes.segment(line)) {
    if (end + segment.length > room) break;
    end += segment.length;
  }
  return `${line.slice(0, end).trimEnd()}${ELLIPSIS}`;
}
