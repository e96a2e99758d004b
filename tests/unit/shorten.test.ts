// shorten: the one cut for text shown to people or sent to a transport. Its bound is `.length`, and
// the cut never falls inside a character as a person sees it (a grapheme cluster).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { shorten, shortenApart } from '../../src/shorten.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FAMILY = '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}'; // 👩‍👩‍👧: three emoji joined by ZWJ, 8 UTF-16 units
const FRANCE = '\u{1F1EB}\u{1F1F7}'; // two regional indicators, 4 units
const GERMANY = '\u{1F1E9}\u{1F1EA}';
const ITALY = '\u{1F1EE}\u{1F1F9}';
const GRIN = '\u{1F600}'; // one code point, two units (a surrogate pair)

const clusters = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map(({ segment }) => segment);

describe('shorten', () => {
  it('returns text that fits as it is, up to exactly the limit', () => {
    expect(shorten('a'.repeat(10), 10)).toBe('a'.repeat(10));
    expect(shorten(`${'a'.repeat(8)}${GRIN}`, 10)).toBe(`${'a'.repeat(8)}${GRIN}`);
    expect(shorten(FAMILY, 8)).toBe(FAMILY);
  });

  it('cuts text one unit over the limit to exactly the limit, ending with "…"', () => {
    expect(shorten('a'.repeat(11), 10)).toBe(`${'a'.repeat(9)}…`);
    expect(shorten('a'.repeat(11), 10)).toHaveLength(10);
  });

  it('drops an emoji whose surrogate pair straddles the cut, and keeps one that fits', () => {
    expect(shorten(`${'a'.repeat(8)}${GRIN}bc`, 10)).toBe(`${'a'.repeat(8)}…`);
    expect(shorten(`${'a'.repeat(7)}${GRIN}bc`, 10)).toBe(`${'a'.repeat(7)}${GRIN}…`);
  });

  it('keeps a ZWJ sequence whole or drops it whole', () => {
    expect(shorten(`ab${FAMILY}cd`, 9)).toBe('ab…');
    expect(shorten(`ab${FAMILY}cd`, 11)).toBe(`ab${FAMILY}…`);
  });

  it('never leaves half a flag', () => {
    expect(shorten(`${FRANCE}${GERMANY}${ITALY}`, 7)).toBe(`${FRANCE}…`);
    expect(shorten(`${FRANCE}${GERMANY}${ITALY}`, 9)).toBe(`${FRANCE}${GERMANY}…`);
  });

  it('keeps a letter with its combining mark', () => {
    expect(shorten('cafe\u0301 au lait', 5)).toBe('caf…');
    expect(shorten('cafe\u0301 au lait', 6)).toBe('cafe\u0301…');
  });

  it('cuts CJK text by characters, each one unit', () => {
    expect(shorten('漢字かな交じり文', 5)).toBe('漢字かな…');
  });

  it('collapses whitespace to single spaces, trims, and drops a space left before "…"', () => {
    expect(shorten('  Which\n\n  database   do you want?\t', 80)).toBe('Which database do you want?');
    expect(shorten('Which database', 7)).toBe('Which…');
  });

  it('keeps line breaks and spacing when asked to, dropping only whitespace left before "…"', () => {
    expect(shorten('line one\n\n  line two', 100, { whitespace: 'keep' })).toBe('line one\n\n  line two');
    expect(shorten('line one\n\n  line two', 14, { whitespace: 'keep' })).toBe('line one\n\n  l…');
    expect(shorten('line one\n\n  line two', 11, { whitespace: 'keep' })).toBe('line one…');
  });

  it('gives only "…" when not even the first character fits before it', () => {
    expect(shorten('abc', 1)).toBe('…');
    expect(shorten(`e${'\u0301'.repeat(10)} more`, 5)).toBe('…');
  });

  it('refuses a limit that leaves no room for "…"', () => {
    expect(() => shorten('abc', 0)).toThrow(RangeError);
    expect(() => shorten('abc', Number.NaN)).toThrow(RangeError);
  });

  it('at every limit: within it, no lone surrogate, and whole clusters from the start of the text', () => {
    const text = `Pick ${FAMILY} or ${FRANCE}${GERMANY}, cafe\u0301 ${GRIN}${GRIN} 漢字 done`;
    const all = clusters(text);
    for (let max = 1; max <= text.length + 1; max++) {
      const short = shorten(text, max);
      expect(short.length, `max ${max}`).toBeLessThanOrEqual(max);
      expect(LONE_SURROGATE.test(short), `max ${max}`).toBe(false);
      const kept = short.endsWith('…') && short.length < text.length ? short.slice(0, -1) : short;
      const keptClusters = clusters(kept);
      expect(keptClusters, `max ${max}`).toEqual(all.slice(0, keptClusters.length));
    }
  });
});

describe('the grapheme segmenter', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('is made on the first cut, not when the module loads nor for text that fits, and only once', async () => {
    let made = 0;
    const Segmenter = class extends Intl.Segmenter {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        made++;
      }
    };
    vi.stubGlobal('Intl', Object.create(Intl, { Segmenter: { value: Segmenter } }));
    vi.resetModules();
    const fresh = await import('../../src/shorten.js');
    expect(made).toBe(0);
    fresh.shorten('short', 10);
    expect(made).toBe(0);
    expect(fresh.shorten('a longer text', 5)).toBe('a lo…');
    fresh.shorten('another longer text', 5);
    expect(made).toBe(1);
  });
});

describe('shortenApart', () => {
  const SHARED = 'Deploy the release to the production cluster now, ';

  it('cuts each text as shorten does when that tells them apart', () => {
    expect(shortenApart(['PostgreSQL (Recommended)', 'SQLite'], 40)).toEqual(['PostgreSQL (Recommended)', 'SQLite']);
    expect(shortenApart([`${'a'.repeat(50)}`, `b${'a'.repeat(49)}`], 10)).toEqual([`${'a'.repeat(9)}…`, `b${'a'.repeat(8)}…`]);
  });

  it('keeps texts that start alike for longer than fits from a word a little before where they differ, each within the limit', () => {
    const texts = [`${SHARED}during business hours`, `${SHARED}tonight after midnight`, 'Wait'];
    expect(texts.map((text) => shorten(text, 40))).toEqual([`${SHARED.slice(0, 39)}…`, `${SHARED.slice(0, 39)}…`, 'Wait']);
    const apart = shortenApart(texts, 40)!;
    expect(apart).toEqual(['…now, during business hours', '…now, tonight after midnight', 'Wait']);
    for (const text of apart) expect(text.length).toBeLessThanOrEqual(40);
  });

  it('cuts the part kept after "…" as shorten does, whole clusters only', () => {
    const apart = shortenApart([`${SHARED}${GRIN} during business hours, and then the next release too`, `${SHARED}${FRANCE} tonight after midnight, and then the next release too`], 30)!;
    expect(apart).toEqual([`…now, ${GRIN} during business hour…`, `…now, ${FRANCE} tonight after midn…`]);
    for (const text of apart) {
      expect(text.length).toBeLessThanOrEqual(30);
      expect(LONE_SURROGATE.test(text)).toBe(false);
    }
  });

  it('keeps texts alike at both ends from where they differ, in the middle', () => {
    const middle = (which: string) => `${'x'.repeat(60)} ${which} ${'y'.repeat(60)}`;
    expect(shortenApart([middle('1'), middle('2')], 40)).toEqual([`…1 ${'y'.repeat(36)}…`, `…2 ${'y'.repeat(36)}…`]);
  });

  it('gives undefined when no cut tells them apart: texts alike but for their whitespace, or for a cluster longer than the room', () => {
    expect(shortenApart(['Use SQLite', 'Use  SQLite ', 'Use PostgreSQL'], 40)).toBeUndefined();
    expect(shortenApart([`${'a'.repeat(20)}${FAMILY}b`, `${'a'.repeat(20)}${FAMILY}c`], 8)).toBeUndefined();
  });
});
