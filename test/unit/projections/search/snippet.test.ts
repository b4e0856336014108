import { describe, expect, it } from 'vitest';
import { HIGHLIGHT_WINDOW, matchRanges, matchesAll, queryTerms } from '../../../../src/infrastructure/readStore/fullText.js';
import { snippetOf } from '../../../../src/projections/search/snippet.js';

describe('search words and snippets', () => {
  it('query words: letters and digits only, folded, distinct, at most 16; syntax characters are dropped', () => {
    expect(queryTerms('Ship "NORWAY"* AND (café:crème) ship')).toEqual(['ship', 'norway', 'and', 'cafe', 'creme']);
    expect(queryTerms('" * ( ) : ^ - {}')).toEqual([]);
    expect(queryTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(16);
  });

  it('marks every word that equals (or begins with) a query word, with offsets into the original text', () => {
    const text = 'Crème brûlée? CREME! shipping ship';
    expect(matchRanges(text, ['creme', 'ship'], false).map((r) => text.slice(r.start, r.end))).toEqual(['Crème', 'CREME', 'ship']);
    expect(matchRanges(text, ['ship'], true).map((r) => text.slice(r.start, r.end))).toEqual(['shipping', 'ship']);
  });

  it('a short text is the whole snippet; a long one is a window around the first match, cut on a word, without splitting an emoji', () => {
    expect(snippetOf('hello there', [{ start: 6, end: 11 }])).toEqual({ text: 'hello there', highlights: [{ start: 6, end: 11 }], truncatedStart: false, truncatedEnd: false });
    const long = `${'lorem ipsum '.repeat(30)}the refund arrived ${'dolor sit '.repeat(30)}`;
    const at = long.indexOf('refund');
    const s = snippetOf(long, [{ start: at, end: at + 6 }], 80);
    expect(s.truncatedStart && s.truncatedEnd).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(80);
    expect(s.text.slice(s.highlights[0]!.start, s.highlights[0]!.end)).toBe('refund');
    expect(s.text[0]).not.toBe(' ');
    const emoji = `${'😀'.repeat(100)}refund`;
    const e = snippetOf(emoji, [{ start: 200, end: 206 }], 50);
    expect(e.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    expect(e.text.slice(e.highlights[0]!.start, e.highlights[0]!.end)).toBe('refund');
  });

  it('in a long text, highlights are found near the first match without a pass over the whole text', () => {
    const text = `${'lorem ipsum '.repeat(3000)}the refund arrived, refund done`;
    const ranges = matchRanges(text, ['refund'], false);
    expect(ranges.map((r) => text.slice(r.start, r.end))).toEqual(['refund', 'refund']);
    expect(ranges[0]!.start).toBe(text.indexOf('refund'));
    // A word the window cuts at its edge is not reported half.
    const cut = `${'refundable '.repeat(HIGHLIGHT_WINDOW)}`;
    for (const r of matchRanges(cut, ['refundable'], false)) expect(cut.slice(r.start, r.end)).toBe('refundable');
  });

  it('every word must match; accents and case do not matter; a prefix matches only where asked', () => {
    expect(matchesAll(['Crème brûlée', 'Dessert'], ['creme', 'dessert'], false)).toBe(true);
    expect(matchesAll(['Crème brûlée'], ['creme', 'tart'], false)).toBe(false);
    expect(matchesAll(['nonrefundable'], ['refund'], true)).toBe(false);
    expect(matchesAll(['refundable'], ['refund'], true)).toBe(true);
    expect(matchesAll(['refundable'], ['refund'], false)).toBe(false);
  });
});
