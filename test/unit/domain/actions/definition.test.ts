import { describe, expect, it } from 'vitest';
import { ACTION_LIMITS, CUT_OFF, mapResponse, TOO_DEEP } from '../../../../src/domain/actions/definition.js';

describe('what the model reads of an answer', () => {
  const def = { responseFields: [], maxResponseChars: 2000 };

  it('given an answer nested 100,000 levels deep, then it reads that the answer could not be read, and nothing throws', () => {
    expect(mapResponse(def, `${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBe(TOO_DEEP);
    expect(mapResponse({ ...def, responseFields: ['status'] }, `{"status":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toBe(TOO_DEEP);
  });

  it('given an answer at the depth, then it is read as usual', () => {
    const atDepth = `${'['.repeat(ACTION_LIMITS.jsonDepth)}1${']'.repeat(ACTION_LIMITS.jsonDepth)}`;
    expect(mapResponse(def, atDepth)).toBe(atDepth);
  });

  it('given the beginning of an answer cut at the size cap, then chosen fields are not read from it (it is no JSON); without fields its beginning is read', () => {
    const beginning = `{"status":"refunded","items":[${'{"sku":"a"},'.repeat(500)}`;
    expect(mapResponse({ ...def, responseFields: ['status'] }, beginning, true)).toBe(CUT_OFF);
    expect(mapResponse({ ...def, maxResponseChars: 100 }, beginning, true)).toBe(`${beginning.slice(0, 99)}…`);
  });
});
