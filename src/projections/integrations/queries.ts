import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { INTEGRATIONS, type IntegrationDoc } from './integrationsProjection.js';

/** The company's integrations, by id. */
export async function listIntegrations(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<IntegrationDoc>> {
  return readStore.find<IntegrationDoc>(INTEGRATIONS, {
    where: { companyId },
    orderBy: [{ field: 'integrationId', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
}

/** The integration when it is the company's (and not deleted), from the read model; null otherwise. */
export async function findCompanyIntegration(readStore: ReadStore, companyId: string, integrationId: number): Promise<IntegrationDoc | null> {
  const integration = await readStore.get<IntegrationDoc>(INTEGRATIONS, String(integrationId));
  return integration && integration.companyId === companyId ? integration : null;
}
