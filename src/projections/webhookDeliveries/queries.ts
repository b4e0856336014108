import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { WEBHOOK_DELIVERIES, type WebhookDeliveryDoc } from './webhookDeliveriesProjection.js';

/** One endpoint's deliveries, the most recently attempted first. */
export function listWebhookDeliveries(readStore: ReadStore, companyId: string, endpointId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<WebhookDeliveryDoc>> {
  return readStore.find<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES, { where: { companyId, endpointId }, orderBy: [{ field: 'seq', direction: 'desc' }], limit: page.limit, cursor: page.cursor ?? null });
}

/** One delivery of the company's endpoint from its log, or null (another company's included). */
export async function getWebhookDelivery(readStore: ReadStore, companyId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDoc | null> {
  const doc = await readStore.get<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES, `${endpointId}:${deliveryId}`);
  return doc && doc.companyId === companyId ? doc : null;
}
