import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsatReply } from '../../../../src/domain/conversations/csat.js';

describe('reading a platform reply to the CSAT question', () => {
  it.each([
    ['5', 5, null],
    ['4 thanks', 4, 'thanks'],
    ['5 great', 5, 'great'],
    ['  3  ', 3, null],
    ['5 - great service', 5, 'great service'],
    ['4/5 ok', 4, 'ok'],
    ['4 / 5', 4, null],
    ['3 stars', 3, null],
    ['1 star, never again', 1, 'never again'],
    ['five', 5, null],
    ['Four, slow but fine', 4, 'slow but fine'],
    ['2. The answer was wrong', 2, 'The answer was wrong'],
    ['5!', 5, null],
    ['4\nthe bot was quick', 4, 'the bot was quick'],
  ])('reads %j as %i with comment %j', (text, rating, comment) => {
    expect(parseCsatReply(text)).toEqual({ rating, comment });
  });

  it.each(['10', '0', '6', '45', '4.5', '4,5', 'great 5', 'thanks', '', '   ', 'fiver', 'I ordered 5 shirts', 'onetwo', '5a'])('does not read %j as a rating', (text) => {
    expect(parseCsatReply(text)).toBeNull();
  });

  it('property: a digit 1–5 followed by a space and any text (not "/5" or "stars") is that rating, with the text (trimmed) as comment', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.string({ maxLength: 200 }).filter((s) => !/^\s*(\/|stars?|★|⭐)/iu.test(s)), (rating, rest) => {
        const comment = rest.replace(/^[\s,.;:!\-–—)]+/u, '').trim();
        expect(parseCsatReply(`${rating} ${rest}`)).toEqual({ rating, comment: comment === '' ? null : comment });
      }),
    );
  });

  it('property: a reply that does not start with a rating is never one', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }).filter((s) => !/^\s*([1-5]|one|two|three|four|five)/i.test(s)), (text) => {
        expect(parseCsatReply(text)).toBeNull();
      }),
    );
  });

  it('property: any rating it reads is an integer from 1 to 5, and the comment is bounded', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 1100 }), (text) => {
        const parsed = parseCsatReply(text);
        if (parsed === null) return;
        expect(Number.isInteger(parsed.rating) && parsed.rating >= 1 && parsed.rating <= 5).toBe(true);
        expect((parsed.comment ?? '').length).toBeLessThanOrEqual(1000);
      }),
    );
  });
});
