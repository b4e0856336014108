import type { PublicEventType } from '../../domain/publicEvents/catalog.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { PublicEventDoc } from '../../projections/publicEvents/publicEventsProjection.js';
import { listPublicEvents, type PublicEventPage } from '../../projections/publicEvents/queries.js';

/**
 * The newest public events of each company, read once and serialised once for every endpoint of the company.
 * Without it each endpoint read (and parsed) its own copy of every event, a bucket of up to 100 documents at a
 * time, and serialised each event again for each delivery: with 10 endpoints a company's event was read and
 * serialised 10 times. An endpoint at or near the head of its company's events (the common case) takes its pages
 * from here; one further behind (a replay, a long outage) reads the store as before, with bodies of its own.
 *
 * Bounded: each company keeps at most KEPT_PER_COMPANY events, and all companies together at most KEPT_IN_ALL
 * (the companies used longest ago are dropped first), so memory does not grow with the log or the companies.
 */

/** A public event with the JSON body every delivery of it sends (the exact bytes signed). */
export type DeliverableEvent = PublicEventDoc & { body: string };

export interface DeliverablePage {
  items: DeliverableEvent[];
  next: number;
  hasMore: boolean;
}

export interface CompanyEvents {
  /** How many events are held now (all companies): bounded by KEPT_IN_ALL and one company's 2 × KEPT_PER_COMPANY. */
  held(): number;
  page(companyId: string, query: { after: number; types: readonly PublicEventType[] | null; limit: number }): Promise<DeliverablePage>;
}

export const READ_PER_REFILL = 200;
export const KEPT_PER_COMPANY = 1000;
export const KEPT_IN_ALL = 20_000;

interface Held {
  /** Events after `from`, oldest first (numbers ascending, not necessarily contiguous). */
  items: DeliverableEvent[];
  from: number;
  /** Looked at through here: the store's page ended on it. */
  through: number;
  hasMore: boolean;
  refill: Promise<void> | null;
}

const deliverable = (doc: PublicEventDoc): DeliverableEvent => Object.assign(doc, { body: JSON.stringify(doc.event) });

/** The first index whose event is numbered after `n`. */
function firstAfter(items: DeliverableEvent[], n: number): number {
  let [lo, hi] = [0, items.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.n <= n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function createCompanyEvents(readStore: ReadStore): CompanyEvents {
  const companies = new Map<string, Held>();
  let kept = 0;

  const trim = (held: Held) => {
    if (held.items.length > KEPT_PER_COMPANY * 2) {
      const dropped = held.items.splice(0, held.items.length - KEPT_PER_COMPANY);
      held.from = dropped.at(-1)!.n;
      kept -= dropped.length;
    }
    for (const [id, other] of companies) {
      if (kept <= KEPT_IN_ALL || other === held) break;
      companies.delete(id);
      kept -= other.items.length;
    }
  };

  const refill = (companyId: string, held: Held) =>
    (held.refill ??= (async () => {
      try {
        const page = await listPublicEvents(readStore, companyId, { after: held.through, types: null, limit: READ_PER_REFILL });
        if (companies.get(companyId) !== held) return; // dropped meanwhile: its endpoints read it again
        held.items.push(...page.items.map(deliverable));
        kept += page.items.length;
        held.through = page.next;
        held.hasMore = page.hasMore;
        trim(held);
      } finally {
        held.refill = null;
      }
    })());

  return {
    held: () => kept,
    async page(companyId, query) {
      let h = companies.get(companyId);
      // Behind what is held (a replay, an endpoint catching up): the store, as before.
      if (h && query.after < h.from) return fromStore(readStore, companyId, query);
      if (h) companies.delete(companyId); // set again below: the map's order is the order of use
      if (!h || query.after > h.through) {
        // Ahead of what is held: the company's events are held from here on, for the endpoints at the head.
        if (h) kept -= h.items.length;
        h = { items: [], from: query.after, through: query.after, hasMore: false, refill: null };
      }
      companies.set(companyId, h);
      if (query.after === h.through) await refill(companyId, h);
      const wanted = query.types && query.types.length > 0 ? new Set<string>(query.types) : null;
      const items: DeliverableEvent[] = [];
      for (let i = firstAfter(h.items, query.after); i < h.items.length; i++) {
        const event = h.items[i]!;
        if (wanted && !wanted.has(event.type)) continue;
        items.push(event);
        if (items.length === query.limit) return { items, next: event.n, hasMore: true };
      }
      return { items, next: Math.max(query.after, h.through), hasMore: h.hasMore };
    },
  };
}

async function fromStore(readStore: ReadStore, companyId: string, query: { after: number; types: readonly PublicEventType[] | null; limit: number }): Promise<DeliverablePage> {
  const page: PublicEventPage = await listPublicEvents(readStore, companyId, query);
  return { items: page.items.map(deliverable), next: page.next, hasMore: page.hasMore };
}
