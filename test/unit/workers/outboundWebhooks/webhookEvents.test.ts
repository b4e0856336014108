import { describe, expect, it } from 'vitest';
import type { ReadStore } from '../../../../src/ports/readStore.js';
import { bucketOf, PUBLIC_EVENT_FEEDS, type PublicEventDoc } from '../../../../src/projections/publicEvents/publicEventsProjection.js';
import { createCompanyEvents, KEPT_IN_ALL, KEPT_PER_COMPANY } from '../../../../src/workers/outboundWebhooks/webhookEvents.js';

/**
 * The delivery worker's shared view of each company's newest public events: read and serialised once for all
 * of the company's endpoints, bounded in memory. A fake read store counts the documents it hands out.
 */

function fakeStore(events: Record<string, number>) {
  const counted = { documents: 0, finds: 0 };
  const doc = (companyId: string, n: number): PublicEventDoc => ({
    id: `${companyId}:${n}`,
    companyId,
    n,
    bucket: bucketOf(n),
    type: n % 2 === 0 ? 'message.received' : 'conversation.started',
    conversationId: `conv-${n % 3}`,
    timestamp: new Date(1_800_000_000_000 + n).toISOString(),
    event: { id: `evt_${companyId}_${n}`, type: 'message.received', catalogVersion: 1, timestamp: new Date(1_800_000_000_000 + n).toISOString(), data: { n } } as unknown as PublicEventDoc['event'],
  });
  const store = {
    async get(collection: string, id: string) {
      return collection === PUBLIC_EVENT_FEEDS && events[id] !== undefined ? { id, lastN: events[id] } : null;
    },
    async find(_collection: string, query: { where: { companyId: string; bucket: number } }) {
      counted.finds++;
      const { companyId, bucket } = query.where;
      const items: PublicEventDoc[] = [];
      for (let n = Math.max(1, bucket * 100); n < (bucket + 1) * 100 && n <= (events[companyId] ?? 0); n++) items.push(doc(companyId, n));
      counted.documents += items.length;
      return { items, nextCursor: null };
    },
  } as unknown as ReadStore;
  return { store, counted };
}

describe('the company events of webhook deliveries', () => {
  it('given ten endpoints of one company at its head, when each asks for its next page, then the store is read once and all share one body per event', async () => {
    const { store, counted } = fakeStore({ acme: 150 });
    const events = createCompanyEvents(store);
    const pages = [];
    for (let e = 0; e < 10; e++) pages.push(await events.page('acme', { after: 120, types: null, limit: 50 }));
    expect(pages[0]!.items.map((i) => i.n)).toEqual(Array.from({ length: 30 }, (_, i) => 121 + i));
    expect(pages[0]!.items[0]!.body).toBe(JSON.stringify(pages[0]!.items[0]!.event));
    for (const page of pages) expect(page.items[0]).toBe(pages[0]!.items[0]); // the same object, serialised once
    expect(counted.documents).toBe(51); // buckets 1 (100…149) and 2 (150), once for all ten, not ten times
  });

  it('given an endpoint that takes some types, and one behind what is held (a replay), when they ask, then each gets exactly its events in order', async () => {
    const { store } = fakeStore({ acme: 150 });
    const events = createCompanyEvents(store);
    await events.page('acme', { after: 140, types: null, limit: 50 });
    const typed = await events.page('acme', { after: 140, types: ['message.received'], limit: 3 });
    expect(typed.items.map((i) => i.n)).toEqual([142, 144, 146]);
    expect(typed.hasMore).toBe(true);
    const replay = await events.page('acme', { after: 10, types: null, limit: 5 });
    expect(replay.items.map((i) => i.n)).toEqual([11, 12, 13, 14, 15]);
    const atHead = await events.page('acme', { after: 150, types: null, limit: 50 });
    expect(atHead).toMatchObject({ items: [], next: 150, hasMore: false });
  });

  it('given many companies and a long history, when endpoints walk through it, then what is held stays bounded', async () => {
    const companies = Object.fromEntries(Array.from({ length: 30 }, (_, c) => [`c${c}`, 3_000]));
    const { store } = fakeStore(companies);
    const events = createCompanyEvents(store);
    const held = () => events.held();
    for (const companyId of Object.keys(companies)) {
      let after = 0;
      for (;;) {
        const page = await events.page(companyId, { after, types: null, limit: 50 });
        if (page.items.length === 0 && !page.hasMore) break;
        after = page.items.at(-1)?.n ?? page.next;
        expect(held()).toBeLessThanOrEqual(KEPT_IN_ALL + KEPT_PER_COMPANY * 2);
      }
      expect(after).toBe(3_000);
    }
  });
});
