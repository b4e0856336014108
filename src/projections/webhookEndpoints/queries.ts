import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from './webhookEndpointsProjection.js';

/** The company's endpoints, oldest first. */
export function listWebhookEndpoints(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<WebhookEndpointDoc>> {
  return readStore.find<WebhookEndpointDoc>(WEBHOOK_ENDPOINTS, { where: { companyId }, orderBy: [{ field: 'createdAt', direction: 'asc' }], limit: page.limit, cursor: page.cursor ?? null });
}

/** Every active endpoint of every company, a page at a time (what the delivery worker serves). */
export function listActiveWebhookEndpoints(readStore: ReadStore, cursor: string | null): Promise<Page<WebhookEndpointDoc>> {
  return readStore.find<WebhookEndpointDoc>(WEBHOOK_ENDPOINTS, { where: { active: true }, limit: 500, cursor });
}
