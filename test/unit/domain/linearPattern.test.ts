import { describe, expect, it } from 'vitest';
import { compilePattern, PATTERN_LIMITS, patternProblems, type PatternOptions } from '../../../src/domain/linearPattern.js';

const exact = { caseInsensitive: false };
const loose = { caseInsensitive: true };

function compiled(source: string, options: PatternOptions = exact) {
  const result = compilePattern(source, options);
  if (!result.ok) throw new Error(`${source}: ${result.problem}`);
  return result.pattern;
}

describe('a company pattern, on a linear-time engine', () => {
  it('given nested repetition, then a long text that almost matches is decided at once, and the same way every time', () => {
    const nested = compiled('(a+)+b');
    const started = performance.now();
    const verdicts = Array.from({ length: 5 }, () => nested.testWhole(`${'a'.repeat(65_535)}c`));
    expect(verdicts).toEqual(Array(5).fill(false));
    expect(nested.testWhole(`${'a'.repeat(65_535)}b`)).toBe(true);
    // Generous for a loaded 2-core machine: a backtracking engine needs 2^65535 steps here.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('matches as the JavaScript expression did: testWhole anchors both ends, test finds it anywhere', () => {
    const digits = compiled('[0-9]{1,10}');
    expect([digits.testWhole('4411'), digits.testWhole('44a'), digits.testWhole('order 4411'), digits.test('order 4411')]).toEqual([true, false, false, true]);
    expect([compiled('^yes', loose).test('Yes, we do'), compiled('^yes', loose).test('Oh yes')]).toEqual([true, false]);
    expect([compiled('end$', loose).test('the END'), compiled('end$', loose).test('the end.')]).toEqual([true, false]);
  });

  it('case-insensitive and unicode like the "iu" flags: folded letters, astral characters as one, \\p classes', () => {
    expect(compiled('éTÉ', loose).test('Un ÉTÉ chaud')).toBe(true);
    expect(compiled('éTÉ').test('Un ÉTÉ chaud')).toBe(false);
    expect(compiled('^.$').testWhole('😀')).toBe(true);
    expect(compiled('\\p{L}+').testWhole('Ærøskøbing')).toBe(true);
    expect(compiled('k', loose).test('\u212A')).toBe(true);
  });

  it('reads the JavaScript escapes RE2 writes otherwise (\\uXXXX, \\u{…}), and leaves an escaped backslash alone', () => {
    expect(compiled('\\u00e9t\\u00E9').testWhole('été')).toBe(true);
    expect(compiled('\\u{1F600}').testWhole('😀')).toBe(true);
    expect(compiled('\\\\u0041').testWhole('\\u0041')).toBe(true);
    expect(compiled('[\\u0041-\\u005A]+').testWhole('ABC')).toBe(true);
    expect(compiled('(?<year>\\d{4})-\\d{2}').testWhole('2026-01')).toBe(true);
  });

  it('multiline: ^ and $ at every line; firstGroup gives the leftmost match\'s first group, or null', () => {
    const labelled = compiled('^\\s*wants:\\s*(.+)$', { caseInsensitive: true, multiline: true });
    expect(labelled.firstGroup('Hello\nWANTS: a refund\nwants: later')).toBe('a refund');
    expect(labelled.firstGroup('no label here')).toBeNull();
    expect(compiled('^wants: (.+)$', loose).firstGroup('Hello\nwants: x')).toBeNull();
  });

  it.each([
    ['(a)\\1', 'a backreference (\\1, \\k<name>) is not supported'],
    ['(?<n>a)\\k<n>', 'a backreference (\\1, \\k<name>) is not supported'],
    ['a(?=b)', 'lookahead and lookbehind'],
    ['a(?!b)', 'lookahead and lookbehind'],
    ['(?<=a)b', 'lookahead and lookbehind'],
    ['(?<!a)b', 'lookahead and lookbehind'],
    ['x{1001}', 'a repeat count above 1000'],
    ['(unclosed', 'not a valid regular expression'],
    ['[z-a]', 'not a valid regular expression'],
    ['(?i)abc', 'not a valid regular expression'],
    ['[0-9]{301}', `at most ${PATTERN_LIMITS.programSize}`],
  ])('given %s, then it cannot run, and says why', (source, why) => {
    const result = compilePattern(source, exact);
    expect(result).toEqual({ ok: false, problem: expect.stringContaining(why) });
  });

  it('names each field that cannot run, and the fields together when their programs add up to more than one definition may hold', () => {
    expect(patternProblems([{ field: 'a', source: '[0-9]+' }, { field: 'b', source: '(x)\\1' }], exact)).toEqual([expect.stringMatching(/^b: a backreference/)]);
    const big = '[0-9]{250}';
    expect(patternProblems([{ field: 'a', source: big }], exact)).toEqual([]);
    expect(patternProblems([{ field: 'a', source: big }, { field: 'b', source: big }, { field: 'c', source: big }], exact)).toEqual([
      expect.stringMatching(new RegExp(`^a, b, c: together too large .* at most ${PATTERN_LIMITS.programSizePerDefinition}$`)),
    ]);
  });
});
