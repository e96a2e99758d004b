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
const clustersOf = (text: string) => Array.from((graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text), ({ segment }) => segment);

/** One line: every run of whitespace one space, the ends trimmed. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** How many grapheme clusters before the first difference a text shortened from there keeps, at most. */
const LEAD_CLUSTERS = 12;

/**
 * `text` in at most `maxLength` UTF-16 units (`.length`; `maxLength` at least 1). When it has to be
 * cut, it keeps as many whole grapheme clusters as fit before a final "…", trailing whitespace
 * dropped; a single cluster longer than the room left is dropped whole.
 */
export function shorten(text: string, maxLength: number, options: ShortenOptions = {}): string {
  if (!(maxLength >= 1)) throw new RangeError(`shorten: maxLength must be at least 1, not ${maxLength}`);
  const line = options.whitespace === 'keep' ? text : oneLine(text);
  if (line.length <= maxLength) return line;
  const room = maxLength - ELLIPSIS.length;
  let end = 0;
  for (const segment of clustersOf(line)) {
    if (end + segment.length > room) break;
    end += segment.length;
  }
  return `${line.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

/**
 * Each text on one line in at most `maxLength` UTF-16 units, so that no two read the same (buttons
 * that answer differently must look different): cut as shorten() cuts it where that tells it from
 * the others; else kept from the start of a word a little before where it first differs from the
 * text most like it, after a "…", and cut as shorten() cuts. Undefined when two would still read
 * the same (texts alike but for their whitespace, or where the first cluster that differs does not
 * fit): the caller offers no such buttons.
 */
export function shortenApart(texts: readonly string[], maxLength: number): string[] | undefined {
  const heads = texts.map((text) => shorten(text, maxLength));
  const apart = (shown: string[]) => (new Set(shown).size === shown.length ? shown : undefined);
  if (apart(heads) || maxLength <= ELLIPSIS.length) return apart(heads);
  const clusters = texts.map((text) => clustersOf(oneLine(text)));
  const shown = heads.map((head, index) => {
    if (heads.indexOf(head) === heads.lastIndexOf(head)) return head;
    const own = clusters[index]!;
    const alike = Math.max(...clusters.map((other, at) => (at === index ? 0 : commonStart(own, other))));
    const from = wordStart(own, Math.max(0, alike - LEAD_CLUSTERS), alike);
    return from === 0 ? head : `${ELLIPSIS}${shorten(own.slice(from).join(''), maxLength - ELLIPSIS.length)}`;
  });
  return apart(shown);
}

/** How many grapheme clusters two texts start with alike. */
function commonStart(a: readonly string[], b: readonly string[]): number {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return at;
}

/** The first cluster from `from` to `to` that starts a word (follows a space); `from` when none does. */
function wordStart(clusters: readonly string[], from: number, to: number): number {
  for (let at = from; at <= to; at++) if (at === 0 || clusters[at - 1] === ' ') return at;
  return from;
}
