import type { PublicEventType } from '../../domain/publicEvents/catalog.js';
import { InvalidCursorError, type ReadStore } from '../../ports/readStore.js';
import { bucketOf, PUBLIC_EVENT_BUCKET, PUBLIC_EVENT_FEEDS, PUBLIC_EVENTS, publicEventDocId, type PublicEventDoc, type PublicEventFeedDoc } from './publicEventsProjection.js';

/** A page reads at most this many buckets, so a rare type in a long history still answers in bounded time. */
export const MAX_BUCKETS_PER_PAGE = 10;

export interface PublicEventPage {
  items: PublicEventDoc[];
  /** Where the next page starts: after the last event looked at, returned even at the end (poll with it). */
  next: number;
  /** More events are stored after `next` (ask again now rather than later). */
  hasMore: boolean;
}

/** The feed cursor: the company's event number the page ended on (opaque to clients). */
export const encodeFeedCursor = (n: number) => Buffer.from(JSON.stringify({ feed: 1, n }), 'utf8').toString('base64url');
export function decodeFeedCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { feed?: unknown; n?: unknown };
    if (parsed.feed === 1 && Number.isSafeInteger(parsed.n) && (parsed.n as number) >= 0) return parsed.n as number;
  } catch {
    // falls through to the refusal
  }
  throw new InvalidCursorError('not a cursor of the events feed');
}

/** The company's last public event number (0 before the first). */
export async function lastPublicEventNumber(readStore: ReadStore, companyId: string): Promise<number> {
  return (await readStore.get<PublicEventFeedDoc>(PUBLIC_EVENT_FEEDS, companyId))?.lastN ?? 0;
}

/**
 * The company's public events numbered after `after`, oldest first, of `types` when given: at most `limit`,
 * from at most MAX_BUCKETS_PER_PAGE buckets (each one indexed query).
 */
export async function listPublicEvents(readStore: ReadStore, companyId: string, query: { after: number; types?: readonly PublicEventType[] | null; limit: number }): Promise<PublicEventPage> {
  const lastN = await lastPublicEventNumber(readStore, companyId);
  const wanted = query.types && query.types.length > 0 ? new Set<string>(query.types) : null;
  const items: PublicEventDoc[] = [];
  let next = query.after;
  for (let bucket = bucketOf(query.after + 1), read = 0; bucket <= bucketOf(lastN) && read < MAX_BUCKETS_PER_PAGE; bucket++, read++) {
    const page = await readStore.find<PublicEventDoc>(PUBLIC_EVENTS, { where: { companyId, bucket }, orderBy: [{ field: 'n', direction: 'asc' }], limit: PUBLIC_EVENT_BUCKET });
    for (const doc of page.items) {
      if (doc.n <= query.after) continue;
      if (!wanted || wanted.has(doc.type)) items.push(doc);
      next = doc.n;
      if (items.length === query.limit) return { items, next, hasMore: next < lastN };
    }
    // A bucket read whole: its last number is seen even when its tail is not stored yet.
    next = Math.max(next, Math.min(lastN, (bucket + 1) * PUBLIC_EVENT_BUCKET - 1));
  }
  return { items, next, hasMore: next < lastN };
}

/** One public event by its number, or null. */
export const getPublicEvent = (readStore: ReadStore, companyId: string, n: number) => readStore.get<PublicEventDoc>(PUBLIC_EVENTS, publicEventDocId(companyId, n));

/**
 * The number of the company's first public event at or after `timestamp` (lastN + 1 when none): a binary search
 * over the numbering, log₂(n) point reads. Public events are numbered in log order, and their timestamps follow it.
 */
export async function firstPublicEventAtOrAfter(readStore: ReadStore, companyId: string, timestamp: string): Promise<number> {
  const lastN = await lastPublicEventNumber(readStore, companyId);
  const at = Date.parse(timestamp);
  let lo = 1;
  let hi = lastN + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const doc = await getPublicEvent(readStore, companyId, mid);
    if (doc && Date.parse(doc.timestamp) >= at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
