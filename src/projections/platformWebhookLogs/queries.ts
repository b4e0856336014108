import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { WEBHOOK_LOGS, type WebhookLogDoc } from './webhookLogsProjection.js';

/** The company's webhook deliveries, newest first; of one integration or one outcome when given. */
export async function listWebhookLogs(
  readStore: ReadStore,
  companyId: string,
  filter: { integrationId?: number | undefined; outcome?: WebhookLogDoc['outcome'] | undefined },
  page: Pick<FindQuery, 'limit' | 'cursor'>,
): Promise<Page<WebhookLogDoc>> {
  return readStore.find<WebhookLogDoc>(WEBHOOK_LOGS, {
    where: {
      companyId,
      ...(filter.integrationId !== undefined ? { integrationId: filter.integrationId } : {}),
      ...(filter.outcome ? { outcome: filter.outcome } : {}),
    },
    orderBy: [{ field: 'receivedAt', direction: 'desc' }, { field: 'seq', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
}

/** One delivery of the company's, by its log id; null otherwise. */
export async function findCompanyWebhookLog(readStore: ReadStore, companyId: string, logId: string): Promise<WebhookLogDoc | null> {
  const page = await readStore.find<WebhookLogDoc>(WEBHOOK_LOGS, { where: { companyId, logId }, limit: 1 });
  return page.items[0] ?? null;
}
