import { describe, expect, it } from 'vitest';
import { encodeCursor, normalizeFind } from '../../src/infrastructure/readStore/find.js';
import { InvalidCursorError } from '../../src/ports/readStore.js';

describe('read store cursors', () => {
  const query = { where: { companyId: 'c1' }, orderBy: [{ field: 'createdAt', direction: 'asc' as const }] };
  const doc = { id: 'a', companyId: 'c1', createdAt: '2025-01-01T00:00:00.000Z' };

  it('a cursor pages the query it came from', () => {
    const cursor = encodeCursor(normalizeFind('agents', query), doc);
    expect(normalizeFind('agents', { ...query, cursor }).after).toEqual([doc.createdAt, 'a']);
  });

  it('another collection with the same filter and order refuses it', () => {
    const cursor = encodeCursor(normalizeFind('agents', query), doc);
    expect(() => normalizeFind('knowledge_documents', { ...query, cursor })).toThrow(InvalidCursorError);
  });

  it('another filter refuses it (another company)', () => {
    const cursor = encodeCursor(normalizeFind('agents', query), doc);
    expect(() => normalizeFind('agents', { ...query, where: { companyId: 'c2' }, cursor })).toThrow(InvalidCursorError);
  });
});
