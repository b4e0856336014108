import { describe, expect, it } from 'vitest';
import { boundedJson, jsonProblem, nestedDeeperThan, textNestedDeeperThan } from '../../../src/domain/jsonBounds.js';

/** Values nested `depth` levels: arrays in arrays, or objects in objects. */
const arrays = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const objects = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
const hostileText = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

describe('JSON bounds', () => {
  it('counts a scalar as 0 levels and each array or object as one more', () => {
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan([], 0)).toBe(true);
    expect(nestedDeeperThan({ a: [1, { b: null }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(nestedDeeperThan(objects(32), 32)).toBe(false);
    expect(nestedDeeperThan(objects(33), 32)).toBe(true);
  });

  it('given a value or a text nested 100,000 levels, then it answers without walking the stack', () => {
    expect(nestedDeeperThan(JSON.parse(hostileText), 32)).toBe(true);
    expect(textNestedDeeperThan(hostileText, 32)).toBe(true);
    expect(jsonProblem(JSON.parse(hostileText), { chars: 20_000, depth: 32 })).toBe('nested deeper than 32 levels');
  });

  it('reads a text as JSON does: brackets inside strings, escaped quotes included, do not count', () => {
    expect(textNestedDeeperThan(JSON.stringify({ a: '[[[[{{{{', b: ['\\"[[[[', '\\\\'] }), 2)).toBe(false);
    expect(textNestedDeeperThan(JSON.stringify(arrays(3)), 2)).toBe(true);
    expect(textNestedDeeperThan(JSON.stringify(arrays(2)), 2)).toBe(false);
    expect(textNestedDeeperThan('plain text, not JSON', 0)).toBe(false);
  });

  it('as a body field: within the limits it is the value; past the depth or the size it is an issue naming the rule, never a thrown error', () => {
    const field = boundedJson({ chars: 50, depth: 3 });
    expect(field.parse({ a: [1, 2] })).toEqual({ a: [1, 2] });
    expect(field.safeParse(JSON.parse(hostileText)).error?.issues[0]?.message).toBe('nested deeper than 3 levels');
    expect(field.safeParse('x'.repeat(60)).error?.issues[0]?.message).toBe('at most 50 characters of JSON');
    expect(field.safeParse(undefined).success).toBe(false);
  });
});
