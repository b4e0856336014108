import { webhookLogEvents, type WebhookLogEntry } from '../../domain/platformWebhooks/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

export interface WebhookLogDoc extends Doc, Omit<WebhookLogEntry, 'logId'> {
  logId: string;
  seq: number;
}

export const WEBHOOK_LOGS = 'webhookLogs';
const COUNTERS = 'webhookLogCounters';
/** Newest accepted entries (processed, duplicate, ignored) kept per integration; older ones are dropped from the read model. */
export const WEBHOOK_LOGS_KEPT = 1000;
/**
 * Newest rejected entries kept per integration, in a window of their own: anyone can send a rejected delivery,
 * so however many arrive they never push an accepted one out of the read model.
 */
export const REJECTED_WEBHOOK_LOGS_KEPT = 100;

/**
 * Per integration: `seq` orders every entry; `accepted` and `rejected` number the entries of each window.
 * Counters written before the windows were split have `seq` only: every entry so far counts as accepted.
 */
interface Counters extends Doc {
  seq: number;
  accepted?: number;
  rejected?: number;
}

export const webhookLogsProjection = defineProjection(webhookLogEvents, {
  name: 'webhookLogs',
  collections: [
    {
      name: WEBHOOK_LOGS,
      indexes: [
        'companyId',
        'integrationId',
        'seq',
        'outcome',
        'receivedAt',
        // The dashboard's lists, newest first: all integrations, one integration, by outcome (keyset pages).
        ['companyId', 'receivedAt', 'seq'],
        ['companyId', 'integrationId', 'receivedAt', 'seq'],
        ['companyId', 'outcome', 'receivedAt', 'seq'],
        ['companyId', 'integrationId', 'outcome', 'receivedAt', 'seq'],
        ['companyId', 'logId'],
      ],
    },
    { name: COUNTERS, indexes: [] },
  ],
  eventTypes: ['WebhookDeliveryLogged'],
  async apply(event, ctx) {
    const entry = event.data;
    const counterId = String(entry.integrationId);
    const counters = await ctx.get<Counters>(COUNTERS, counterId);
    const seq = (counters?.seq ?? 0) + 1;
    // Ids follow each window's own numbering, so the entry falling out of it is found without a query.
    const window = entry.outcome === 'rejected' ? { name: 'rejected', idPrefix: 'r', kept: REJECTED_WEBHOOK_LOGS_KEPT } as const : { name: 'accepted', idPrefix: '', kept: WEBHOOK_LOGS_KEPT } as const;
    const numbers = { accepted: counters?.accepted ?? counters?.seq ?? 0, rejected: counters?.rejected ?? 0 };
    const n = ++numbers[window.name];
    const idOf = (k: number) => `${entry.integrationId}:${window.idPrefix}${k}`;
    ctx.put(COUNTERS, { id: counterId, seq, ...numbers } satisfies Counters);
    ctx.put(WEBHOOK_LOGS, { id: idOf(n), ...entry, seq } satisfies WebhookLogDoc);
    if (n > window.kept) ctx.delete(WEBHOOK_LOGS, idOf(n - window.kept));
  },
});
