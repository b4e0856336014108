import { webhookLogEvents, type WebhookLogEntry } from '../../domain/webhooks/webhookLog.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

export interface WebhookLogDoc extends Doc, Omit<WebhookLogEntry, 'logId'> {
  logId: string;
  seq: number;
}

export const WEBHOOK_LOGS = 'webhookLogs';
const COUNTERS = 'webhookLogCounters';
/** Newest entries kept per integration; older ones are dropped from the read model. */
export const WEBHOOK_LOGS_KEPT = 1000;

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
    const seq = ((await ctx.get<Doc & { seq: number }>(COUNTERS, counterId))?.seq ?? 0) + 1;
    ctx.put(COUNTERS, { id: counterId, seq });
    // Ids follow the sequence, so the entry falling out of the window is found without a query.
    ctx.put(WEBHOOK_LOGS, { id: `${entry.integrationId}:${seq}`, ...entry, seq } satisfies WebhookLogDoc);
    if (seq > WEBHOOK_LOGS_KEPT) ctx.delete(WEBHOOK_LOGS, `${entry.integrationId}:${seq - WEBHOOK_LOGS_KEPT}`);
  },
});
