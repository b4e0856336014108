import { describe, expect, it } from 'vitest';
import { LEGACY_TOMBSTONES, LIVE, TOMBSTONE_TTL_SECONDS, queryIndex, tombstone, writtenBefore, writtenSince } from '../../src/infrastructure/mongodb/tombstones.js';
import { RESERVED_FIELDS } from '../../src/ports/readStore.js';

/**
 * The MongoDB read store's delete markers, checked without a server (the MongoDB contract suite runs them
 * against one): a marker stays out of every query index and expires; the per-document guard still sees it.
 */
describe('MongoDB delete markers', () => {
  it('a marker holds no `_pos`, so the query indexes (partial on `_pos` existing) and the queries (which state it) never meet it', () => {
    const marker = tombstone('00000000000000000042', new Date('2026-01-01T00:00:00Z'));
    expect(marker).toEqual({ _tpos: '00000000000000000042', _del: true, _delAt: new Date('2026-01-01T00:00:00Z') });
    expect(LIVE).toEqual({ _pos: { $exists: true } });
    expect('_pos' in marker).toBe(false);
  });

  it('every query index is the declared fields, then `_id`, restricted to live documents, under its own name (the unrestricted one of earlier versions is replaced)', () => {
    expect(queryIndex(['companyId', 'at'])).toEqual({
      key: { companyId: 1, at: 1, _id: 1 },
      name: 'live_companyId_1_at_1__id_1',
      replaces: 'companyId_1_at_1__id_1',
      partialFilterExpression: { _pos: { $exists: true } },
    });
    expect(Object.keys(queryIndex(['companyId', 'at']).key)).toEqual(['companyId', 'at', '_id']);
  });

  it('the guard compares a write with a document or a marker alike: both positions are consulted', () => {
    expect(writtenBefore('5')).toEqual({ $or: [{ _pos: { $lt: '5' } }, { _tpos: { $lt: '5' } }] });
    expect(writtenSince('5')).toEqual({ $or: [{ _pos: { $gte: '5' } }, { _tpos: { $gte: '5' } }] });
  });

  it('markers expire after 7 days (longer than any commit or outage a store is not rebuilt after); markers of earlier versions are found to convert', () => {
    expect(TOMBSTONE_TTL_SECONDS).toBe(7 * 24 * 3600);
    expect(LEGACY_TOMBSTONES).toEqual({ _del: true, _pos: { $exists: true } });
  });

  it('the store’s own fields are reserved: a read model cannot name one', () => {
    for (const f of ['_pos', '_tpos', '_del', '_delAt']) expect(RESERVED_FIELDS).toContain(f);
  });
});
