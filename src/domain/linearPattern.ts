import { RE2JS } from 're2js';

/**
 * The regular expressions companies write (action parameter patterns, test-case matchers) run on text a model or a
 * customer chose, as do the domain's own that read a model's text (handoffSummary.ts). A backtracking engine
 * (JavaScript's RegExp) can take exponential time on them (`(a+)+b` on 40 a's and a "c" never ends) and stalls
 * every company served by the same thread, so they run on RE2's engine (re2js, a pure-JavaScript port): time
 * linear in the text, no clock involved, the same answer on every machine. What RE2 cannot do in linear time
 * (backreferences, lookahead and lookbehind) is refused when a company's pattern is saved.
 *
 * Linear in the text, but also in the compiled program: `[a-z]{1000}` is a thousand instructions, each stepped on
 * every character in the worst case (measured: about 100 ns per instruction per character). So the program is
 * bounded too, per pattern and per definition (an action, a test case), which bounds the worst case: 600
 * instructions on a 65,536-character answer is a few seconds at most, on a 2,000-character argument a tenth of one.
 *
 * A pattern is also a JavaScript expression: it is written in the syntax the dashboard, the docs and JSON Schema
 * (what the model reads in its tools) use, with the `u` flag. `new RegExp` only compiles it here, to check that
 * syntax; it never runs. `\uXXXX` and `\u{…}` are rewritten to RE2's `\x{…}`; the rest of the shared syntax means
 * the same in both, except that RE2's `.` stops only at "\n" and `\s` is ASCII whitespace.
 */

export const PATTERN_LIMITS = { programSize: 300, programSizePerDefinition: 600 } as const;

/** `multiline`: `^` and `$` match at each line's start and end too (JavaScript's `m` flag). */
export type PatternOptions = { caseInsensitive: boolean; multiline?: boolean };

/**
 * A pattern RE2 runs: `test` finds it anywhere in a text, `testWhole` asks that it match all of the text,
 * `firstGroup` gives what the first group captured in the leftmost match (null: no match).
 */
export interface LinearPattern {
  size: number;
  test(text: string): boolean;
  testWhole(text: string): boolean;
  firstGroup(text: string): string | null;
}

export type CompiledPattern = { ok: true; pattern: LinearPattern } | { ok: false; problem: string };

const UNSUPPORTED = 'is not supported (patterns run on RE2, which matches in linear time)';

/** JavaScript's `\uXXXX` and `\u{X…}` as RE2 writes them; every other escape is copied as it is. */
function toRe2Syntax(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch !== '\\' || i + 1 >= source.length) {
      out += ch;
      continue;
    }
    const next = source[i + 1]!;
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(source.slice(i + 2));
      const four = /^[0-9a-fA-F]{4}/.exec(source.slice(i + 2));
      if (braced) {
        out += `\\x{${braced[1]}}`;
        i += 1 + braced[0].length;
        continue;
      }
      if (four) {
        out += `\\x{${four[0]}}`;
        i += 1 + four[0].length;
        continue;
      }
    }
    out += ch + next;
    i += 1;
  }
  return out;
}

/** RE2's refusal in the company's words: what is not supported, or where the syntax is wrong. */
function re2Problem(message: string): string {
  const detail = message.replace(/^error parsing regexp: /, '');
  if (/`\(\?(<?[=!])/.test(detail)) return `lookahead and lookbehind (?=, ?!, ?<=, ?<!) ${UNSUPPORTED}`;
  if (/invalid escape sequence: `\\([1-9]|k)/.test(detail)) return `a backreference (\\1, \\k<name>) ${UNSUPPORTED}`;
  if (/invalid repeat count/.test(detail)) return `a repeat count above 1000, or repeats nested too deep, ${UNSUPPORTED}`;
  return `not a valid regular expression: ${detail}`;
}

/**
 * Compiles a company's pattern for RE2, or says in plain words why it cannot run (a message the caller prefixes
 * with the field's name). Pure: the same pattern gets the same answer everywhere.
 */
export function compilePattern(source: string, options: PatternOptions): CompiledPattern {
  const translated = toRe2Syntax(source);
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(translated, (options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0) | (options.multiline ? RE2JS.MULTILINE : 0));
  } catch (err) {
    return { ok: false, problem: re2Problem(err instanceof Error ? err.message : String(err)) };
  }
  try {
    new RegExp(source, 'u'); // syntax check only: never run
  } catch {
    return { ok: false, problem: 'not a valid regular expression (JavaScript syntax, unicode mode)' };
  }
  const size = re2.programSize();
  if (size > PATTERN_LIMITS.programSize) {
    return { ok: false, problem: `too large for the pattern engine: ${size} steps, at most ${PATTERN_LIMITS.programSize} (each repetition of a {count} is a step)` };
  }
  const firstGroup = (text: string) => {
    const matcher = re2.matcher(text);
    return matcher.find() ? matcher.group(1) : null;
  };
  return { ok: true, pattern: { size, test: (text) => re2.test(text), testWhole: (text) => re2.testExact(text), firstGroup } };
}

/**
 * The problems of a definition's patterns, each prefixed with its field: every one that cannot run, and the total
 * when together they are larger than a definition may hold.
 */
export function patternProblems(patterns: readonly { field: string; source: string }[], options: PatternOptions): string[] {
  const problems: string[] = [];
  let total = 0;
  for (const { field, source } of patterns) {
    const compiled = compilePattern(source, options);
    if (compiled.ok) total += compiled.pattern.size;
    else problems.push(`${field}: ${compiled.problem}`);
  }
  if (problems.length === 0 && total > PATTERN_LIMITS.programSizePerDefinition) {
    problems.push(`${patterns.map((p) => p.field).join(', ')}: together too large for the pattern engine: ${total} steps, at most ${PATTERN_LIMITS.programSizePerDefinition}`);
  }
  return problems;
}
