import { describe, expect, it } from 'vitest';
import { ACTION_LIMITS, mapResponse, TOO_DEEP } from '../../../../src/domain/actions/definition.js';

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
});
