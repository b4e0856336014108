import { z } from 'zod';

/**
 * Size and depth bounds for JSON a company stores as it is (an action's sample response, a test case's mocks) or
 * an endpoint answers. Depth is checked first and without recursion: a 195 KB body can nest 100,000 levels, and
 * anything that walks it recursively (zod's z.json(), JSON.stringify) overflows the call stack, which used to be a
 * 500. Only a value within the depth is measured (JSON.stringify) or handed to zod.
 */

export interface JsonLimits {
  /** Characters of its JSON text. */
  chars: number;
  /** Levels of arrays and objects: a scalar is 0, `[1]` is 1, `{"a":[1]}` is 2. */
  depth: number;
}

/** Whether a parsed value nests arrays and objects deeper than `max` levels; stops at the first path that does. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > max) return true;
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      if (child !== null && typeof child === 'object') pending.push({ value: child, depth });
    }
  }
  return false;
}

/** The same of a JSON text before it is parsed (brackets inside strings do not count); linear in its length. */
export function textNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** What is wrong with a value against the limits, in words (null: nothing). */
export function jsonProblem(value: unknown, limits: JsonLimits): string | null {
  if (nestedDeeperThan(value, limits.depth)) return `nested deeper than ${limits.depth} levels`;
  const text = JSON.stringify(value);
  if (text !== undefined && text.length > limits.chars) return `at most ${limits.chars} characters of JSON`;
  return null;
}

/** Any JSON value within the limits: a body field that is refused with a 400 naming it, never walked past its depth. */
export function boundedJson(limits: JsonLimits) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const problem = jsonProblem(value, limits);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, abort: true });
    })
    .pipe(z.json());
}
