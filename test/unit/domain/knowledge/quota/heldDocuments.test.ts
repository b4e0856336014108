import { describe, expect, it } from 'vitest';
import { holdsDocument, noHeldDocuments, withDocument, withoutDocument } from '../../../../../src/domain/knowledge/quota/heldDocuments.js';

const A = 'a1111111-1111-4111-8111-111111111111';
const A2 = 'a1222222-2222-4222-8222-222222222222'; // same bucket as A
const B = 'b2222222-2222-4222-8222-222222222222';

describe('the set of documents a quota counts', () => {
  it('adds and removes ids, and never changes a set it was given (the quota state is cached and re-decided on)', () => {
    const one = withDocument(noHeldDocuments, A);
    const three = withDocument(withDocument(one, A2), B);
    expect([A, A2, B].map((id) => holdsDocument(three, id))).toEqual([true, true, true]);
    expect([A, A2, B].map((id) => holdsDocument(one, id))).toEqual([true, false, false]);
    const less = withoutDocument(three, A);
    expect([A, A2, B].map((id) => holdsDocument(less, id))).toEqual([false, true, true]);
    expect(holdsDocument(three, A)).toBe(true);
    expect(holdsDocument(noHeldDocuments, A)).toBe(false);
  });

  it('adding a held id or removing one not held returns the same set', () => {
    const one = withDocument(noHeldDocuments, A);
    expect(withDocument(one, A)).toBe(one);
    expect(withoutDocument(one, B)).toBe(one);
  });

  it('a change copies one bucket, not every id: after 10,000 adds, one more shares every other bucket', () => {
    let held = noHeldDocuments;
    const ids = Array.from({ length: 10_000 }, (_, i) => `${(i % 256).toString(16).padStart(2, '0')}${String(i).padStart(6, '0')}-0000-4000-8000-000000000000`);
    for (const id of ids) held = withDocument(held, id);
    expect(ids.every((id) => holdsDocument(held, id))).toBe(true);
    const next = withDocument(held, 'ff999999-0000-4000-8000-000000000000');
    expect(next.filter((bucket, i) => bucket !== held[i])).toHaveLength(1);
  });
});
