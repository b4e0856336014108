import type { Document } from 'mongodb';

/**
 * Delete markers (tombstones) of the MongoDB read store, kept out of the indexes queries use and purged.
 *
 * A delete leaves `{_id, _tpos, _del: true, _delAt}`: `_tpos` is the position of the delete, so that an older
 * write arriving later cannot bring the document back (the per-document guard compares both `_pos` and
 * `_tpos`). A live document holds `_pos` and a marker does not, so the query indexes are partial on
 * `{_pos: {$exists: true}}` and every query says so too (MongoDB uses a partial index only for a query that
 * implies its filter): markers cost the indexes nothing, and a sweep sorted on a field no marker has (the
 * pending action calls by `expiresAt`) never walks them. (Markers written before this held `_pos`; they are
 * converted once per collection, see MongoReadStore.)
 *
 * How long a marker must live: as long as a write at a position older than the delete can still reach the
 * collection. On a replica set (production) a batch's documents and its checkpoint commit in one transaction,
 * and a batch computed on a checkpoint that has moved is refused (ProjectionConflictError): an older write can
 * only come from a commit already in flight, which ends within its transaction's lifetime (60 s by default). On
 * a standalone server the checkpoint follows the documents: a crash in between replays the batch when the
 * projector runs again, possibly after an outage. TOMBSTONE_TTL_SECONDS (7 days) covers any commit and any
 * outage an operator would not rebuild after; past it, a standalone store that crashed mid-commit and stayed
 * down longer is rebuilt (`npm run projections:rebuild`), which starts a fresh generation without markers.
 * MongoDB's TTL monitor removes expired markers about once a minute, in the background.
 */
export const TOMBSTONE_TTL_SECONDS = 7 * 24 * 60 * 60;
export const TOMBSTONE_TTL_INDEX = '_delAt_ttl';

/** What every query index is restricted to, and what every query states: live documents only. */
export const LIVE: Document = Object.freeze({ _pos: { $exists: true } });

export function tombstone(position: string, at: Date): Document {
  return { _tpos: position, _del: true, _delAt: at };
}

/** The stored version (a document or a marker) was written before `position`. */
export function writtenBefore(position: string): Document {
  return { $or: [{ _pos: { $lt: position } }, { _tpos: { $lt: position } }] };
}

/** The stored version (a document or a marker) was written at or after `position`. */
export function writtenSince(position: string): Document {
  return { $or: [{ _pos: { $gte: position } }, { _tpos: { $gte: position } }] };
}

/** Markers written before `_tpos` existed (`{_pos, _del: true}`): converted so they leave the query indexes and expire. */
export const LEGACY_TOMBSTONES: Document = Object.freeze({ _del: true, _pos: { $exists: true } });
export const CONVERT_LEGACY_TOMBSTONE: Document[] = [{ $set: { _tpos: '$_pos', _delAt: '$$NOW' } }, { $unset: '_pos' }];

export interface QueryIndex {
  key: Record<string, 1>;
  /** Its own name: an index of the same keys without the partial filter (earlier versions) is dropped by `replaces`. */
  name: string;
  replaces: string;
  partialFilterExpression: Document;
}

/** The index of one declared field list: the fields, then `_id` (the tie-breaker), live documents only. */
export function queryIndex(fields: string[]): QueryIndex {
  const key: Record<string, 1> = {};
  for (const f of fields) key[f] = 1;
  key._id = 1;
  const defaultName = Object.keys(key).map((k) => `${k}_1`).join('_');
  return { key, name: `live_${defaultName}`, replaces: defaultName, partialFilterExpression: LIVE };
}
