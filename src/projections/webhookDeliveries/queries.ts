import { InvalidCursorError, type Doc, type FindQuery, type Page, type ReadStore } from '../../ports/readStore.js';
import {
  deliveryDocId,
  deliveryNumber,
  entryAsDelivery,
  findInBatches,
  isBatch,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DELIVERY_LOGS,
  type BatchDoc,
  type LogState,
  type WebhookDeliveryDoc,
} from './webhookDeliveriesProjection.js';

/**
 * Where a page of the log stopped: after the store's cursor `c`, and, when it stopped inside a batch document, that
 * document (`d`, at `q`) from its deliveries before `u` (their place in their event) on.
 */
interface LogCursor {
  c: string | null;
  d?: string;
  q?: number;
  u?: number;
}

const encode = (cursor: LogCursor) => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

function decode(cursor: string | null | undefined): LogCursor {
  if (!cursor) return { c: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('not a cursor');
  }
  const p = parsed as Partial<LogCursor> | null;
  const valid =
    typeof p === 'object' && p !== null && (p.c === null || typeof p.c === 'string') &&
    (p.d === undefined || (typeof p.d === 'string' && typeof p.q === 'number' && typeof p.u === 'number'));
  if (!valid) throw new InvalidCursorError('not a cursor of this list');
  return p as LogCursor;
}

/** A document's deliveries, the most recent first; those of a batch before `before` (their place) only. */
function deliveriesOf(doc: Doc, before = Infinity): WebhookDeliveryDoc[] {
  if (!isBatch(doc)) return [doc as WebhookDeliveryDoc];
  const out: WebhookDeliveryDoc[] = [];
  for (let k = doc.entries.length - 1; k >= 0; k--) if (doc.entries[k]!.i < before) out.push(entryAsDelivery(doc, doc.entries[k]!));
  return out;
}

/**
 * One endpoint's deliveries, the most recently attempted first, in keyset pages of `limit`. A batch document holds
 * up to SUCCESSES_PER_EVENT deliveries, so a page reads a few documents: doubling reads from the store's cursor (1,
 * 2, 4 … documents) until the page is full, and, when it ends inside a document that was not the last one read,
 * the same read again up to that one, for the store's cursor after it. Bounded by the limit, whatever the log's length.
 */
export async function listWebhookDeliveries(readStore: ReadStore, companyId: string, endpointId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<WebhookDeliveryDoc>> {
  const limit = page.limit ?? 50;
  const from = decode(page.cursor);
  const items: WebhookDeliveryDoc[] = [];
  if (from.d) {
    const doc = await readStore.get<BatchDoc>(WEBHOOK_DELIVERIES, from.d);
    // Gone, or moved (a delivery attempted again leaves its place): nothing of it is left below the cursor.
    if (doc && isBatch(doc) && doc.companyId === companyId && doc.endpointId === endpointId && doc.seq === from.q) {
      const rest = deliveriesOf(doc, from.u);
      items.push(...rest.slice(0, limit));
      if (rest.length > limit) return { items, nextCursor: encode({ ...from, u: items.at(-1)!.sub! }) };
    }
    // Nothing was listed after it.
    if (from.c === null) return { items, nextCursor: null };
  }
  const query = { where: { companyId, endpointId }, orderBy: [{ field: 'seq', direction: 'desc' as const }, { field: 'sub', direction: 'desc' as const }] };
  let cursor = from.c;
  for (let chunk = 1; items.length < limit; chunk = Math.min(chunk * 2, limit)) {
    const docs = await readStore.find<Doc>(WEBHOOK_DELIVERIES, { ...query, cursor, limit: chunk });
    for (const [k, doc] of docs.items.entries()) {
      const rest = deliveriesOf(doc);
      const room = limit - items.length;
      items.push(...rest.slice(0, room));
      if (items.length < limit) continue;
      // Full: the store's cursor after this document, from this read when it was its last, else by reading up to it.
      const after = k === docs.items.length - 1 ? docs.nextCursor : (await readStore.find<Doc>(WEBHOOK_DELIVERIES, { ...query, cursor, limit: k + 1 })).nextCursor;
      if (rest.length > room) return { items, nextCursor: encode({ c: after, d: doc.id, q: doc.seq as number, u: items.at(-1)!.sub! }) };
      return { items, nextCursor: after === null ? null : encode({ c: after }) };
    }
    if (docs.nextCursor === null) return { items, nextCursor: null };
    cursor = docs.nextCursor;
  }
  return { items, nextCursor: encode({ c: cursor }) };
}

/** One delivery of the company's endpoint from its log, or null (another company's included). */
export async function getWebhookDelivery(readStore: ReadStore, companyId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDoc | null> {
  const doc = await readStore.get<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES, deliveryDocId(endpointId, deliveryId));
  if (doc) return doc.companyId === companyId ? doc : null;
  const n = deliveryNumber(deliveryId);
  const state = n === null ? null : await readStore.get<LogState>(WEBHOOK_DELIVERY_LOGS, endpointId);
  if (!state || n === null || n > state.maxN) return null;
  const found = await findInBatches((id) => readStore.get(WEBHOOK_DELIVERIES, id), endpointId, state.batches, n);
  return found && found.batch.companyId === companyId ? entryAsDelivery(found.batch, found.entry) : null;
}
