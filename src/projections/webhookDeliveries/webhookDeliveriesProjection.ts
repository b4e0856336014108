import { webhookDeliveryEvents } from '../../domain/webhookDeliveries/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext } from '../projection.js';

/**
 * An endpoint's delivery log. The worker records its successes a batch per event (`WebhookDeliveriesSucceeded`), and
 * the log keeps them so: a batch of first deliveries is one document (`BatchDoc`, one write per batch rather than
 * one per delivery), and the rare rest — a failure, its retries, a resend, a test, a replay's second delivery — one
 * document per delivery (`WebhookDeliveryDoc`) holding all its attempts. A delivery is in one place at a time: when
 * one that sits in a batch is attempted again, it leaves the batch for a document of its own.
 *
 * Finding a delivery's batch needs no index per delivery: a batch takes only deliveries newer (higher public event
 * number) than any the log holds for the endpoint (`LogState.maxN`; the others go the per-delivery way), so the
 * batches of an endpoint, numbered 1, 2, 3 …, hold rising, disjoint ranges of numbers, and a binary search of
 * point reads finds the one that holds a number.
 */

/** One delivery of one event to one endpoint: its attempts (the newest RECENT_ATTEMPTS_KEPT) and where it stands. */
export interface WebhookDeliveryDoc extends Doc {
  companyId: string;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  status: 'delivered' | 'retrying' | 'failed';
  attempts: number;
  recentAttempts: { attempt: number; trigger: string; ok: boolean; httpStatus: number | null; latencyMs: number; response: string; at: string }[];
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Position of the latest attempt (with `sub`, its place in its event): the log lists the most recently attempted first. */
  seq: number;
  sub?: number;
}

/** A delivery of a batch: delivered at its first logged attempt, and attempted no more since. */
export interface BatchEntry {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  httpStatus: number | null;
  latencyMs: number;
  response: string;
  at: string;
  /** Its place in its event. */
  i: number;
}

/**
 * Consecutive first deliveries of one `WebhookDeliveriesSucceeded` (at most SUCCESSES_PER_EVENT). `lo`/`hi`: the
 * numbers of its first and last delivery, kept when deliveries leave it. One all of whose deliveries left is
 * kept without `companyId`/`endpointId` (out of the lists) so the numbering of batches stays whole.
 */
export interface BatchDoc extends Doc {
  kind: 'batch';
  companyId?: string;
  endpointId?: string;
  batch: number;
  lo: number;
  hi: number;
  entries: BatchEntry[];
  seq: number;
  sub: number;
}

/** Per endpoint: how many batches, and the highest delivery number the log holds. */
export interface LogState extends Doc {
  batches: number;
  maxN: number;
}

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
export const WEBHOOK_DELIVERY_LOGS = 'webhook_delivery_logs';
export const RECENT_ATTEMPTS_KEPT = 10;

export const batchDocId = (endpointId: string, batch: number) => `${endpointId}:batch:${batch}`;
export const deliveryDocId = (endpointId: string, deliveryId: string) => `${endpointId}:${deliveryId}`;
/** The public event's number of a worker's delivery; null for a test event. */
export const deliveryNumber = (deliveryId: string) => (/^\d{1,15}$/.test(deliveryId) ? Number(deliveryId) : null);
export const isBatch = (doc: Doc): doc is BatchDoc => doc.kind === 'batch';

/** A batch's delivery as the log shows it. */
export const entryAsDelivery = (batch: BatchDoc, e: BatchEntry): WebhookDeliveryDoc => ({
  id: deliveryDocId(batch.endpointId ?? '', e.deliveryId),
  companyId: batch.companyId ?? '',
  endpointId: batch.endpointId ?? '',
  deliveryId: e.deliveryId,
  eventId: e.eventId,
  eventType: e.eventType,
  status: 'delivered',
  attempts: 1,
  recentAttempts: [{ attempt: e.attempt, trigger: 'delivery', ok: true, httpStatus: e.httpStatus, latencyMs: e.latencyMs, response: e.response, at: e.at }],
  nextRetryAt: null,
  createdAt: e.at,
  updatedAt: e.at,
  seq: batch.seq,
  sub: e.i,
});

/** The batch of the endpoint's log that holds delivery `n`, by a binary search of point reads over its batches. */
export async function findInBatches(get: (id: string) => Promise<Doc | null>, endpointId: string, batches: number, n: number): Promise<{ batch: BatchDoc; entry: BatchEntry } | null> {
  let [low, high] = [1, batches];
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    const doc = await get(batchDocId(endpointId, mid));
    if (!doc || !isBatch(doc)) return null;
    if (n < doc.lo) high = mid - 1;
    else if (n > doc.hi) low = mid + 1;
    else {
      const entry = doc.entries.find((e) => e.deliveryId === String(n));
      return entry ? { batch: doc, entry } : null;
    }
  }
  return null;
}

type Attempt = { endpointId: string; companyId: string; deliveryId: string; eventId: string; eventType: string; attempt: number; ok: boolean; httpStatus: number | null; latencyMs: number; response: string; nextRetryAt: string | null; trigger: string; at: string };
type Place = { seq: number; sub: number };

const emptyState = (endpointId: string): LogState => ({ id: endpointId, batches: 0, maxN: 0 });

/** One attempt into its delivery's own document, taking the delivery out of its batch when it was in one. */
async function logAttempt(ctx: ProjectionContext, state: LogState, d: Attempt, place: Place): Promise<LogState> {
  const id = deliveryDocId(d.endpointId, d.deliveryId);
  const n = deliveryNumber(d.deliveryId);
  let doc = await ctx.get<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES, id);
  if (!doc && n !== null && n <= state.maxN) {
    const found = await findInBatches((bid) => ctx.get(WEBHOOK_DELIVERIES, bid), d.endpointId, state.batches, n);
    if (found) {
      const entries = found.batch.entries.filter((e) => e !== found.entry);
      const { companyId: _c, endpointId: _e, ...spent } = found.batch;
      ctx.put(WEBHOOK_DELIVERIES, entries.length > 0 ? { ...found.batch, entries } : { ...spent, entries });
      doc = entryAsDelivery(found.batch, found.entry);
    }
  }
  const attempt = { attempt: d.attempt, trigger: d.trigger, ok: d.ok, httpStatus: d.httpStatus, latencyMs: d.latencyMs, response: d.response, at: d.at };
  ctx.put(WEBHOOK_DELIVERIES, {
    id,
    companyId: d.companyId,
    endpointId: d.endpointId,
    deliveryId: d.deliveryId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.ok ? 'delivered' : d.nextRetryAt ? 'retrying' : 'failed',
    attempts: (doc?.attempts ?? 0) + 1,
    recentAttempts: [attempt, ...(doc?.recentAttempts ?? [])].slice(0, RECENT_ATTEMPTS_KEPT),
    nextRetryAt: d.nextRetryAt,
    createdAt: doc?.createdAt ?? d.at,
    updatedAt: d.at,
    seq: place.seq,
    sub: place.sub,
  } satisfies WebhookDeliveryDoc);
  return n !== null && n > state.maxN ? { ...state, maxN: n } : state;
}

export const webhookDeliveriesProjection = defineProjection(webhookDeliveryEvents, {
  name: 'webhookDeliveries',
  collections: [
    { name: WEBHOOK_DELIVERIES, indexes: [['companyId', 'endpointId', 'seq', 'sub']] },
    { name: WEBHOOK_DELIVERY_LOGS, indexes: [] },
  ],
  eventTypes: ['WebhookDeliveryAttempted', 'WebhookDeliveriesSucceeded'],
  async apply(event, ctx) {
    const { endpointId, companyId } = event.data;
    const before = (await ctx.get<LogState>(WEBHOOK_DELIVERY_LOGS, endpointId)) ?? emptyState(endpointId);
    const seq = Number(event.position);
    let state = before;
    if (event.type === 'WebhookDeliveryAttempted') state = await logAttempt(ctx, state, event.data, { seq, sub: 0 });
    else {
      // A run of deliveries newer than any logged is one batch document; any other goes the per-delivery way.
      let run: BatchEntry[] = [];
      const close = () => {
        if (run.length === 0) return;
        state = { ...state, batches: state.batches + 1 };
        const doc: BatchDoc = { id: batchDocId(endpointId, state.batches), kind: 'batch', companyId, endpointId, batch: state.batches, lo: Number(run[0]!.deliveryId), hi: Number(run.at(-1)!.deliveryId), entries: run, seq, sub: run.at(-1)!.i };
        ctx.put(WEBHOOK_DELIVERIES, doc);
        run = [];
      };
      for (const [i, d] of event.data.deliveries.entries()) {
        const n = deliveryNumber(d.deliveryId);
        if (d.attempt === 1 && n !== null && n > state.maxN) {
          run.push({ ...d, i });
          state = { ...state, maxN: n };
          continue;
        }
        close();
        state = await logAttempt(ctx, state, { ...d, endpointId, companyId, ok: true, nextRetryAt: null, trigger: 'delivery' }, { seq, sub: i });
      }
      close();
    }
    if (state !== before) ctx.put(WEBHOOK_DELIVERY_LOGS, state);
  },
});
