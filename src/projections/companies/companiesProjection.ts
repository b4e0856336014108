import type { CompanyEvent } from '../../domain/company/company.js';
import type { Doc } from '../../ports/readStore.js';
import type { Projection } from '../projection.js';

export interface CompanyDoc extends Doc {
  companyKey: number;
  companyName: string;
  createdAt: string;
  ownerUserId: string;
}

export const COMPANIES = 'companies';

export const companiesProjection: Projection = {
  name: 'companies',
  collections: [{ name: COMPANIES, indexes: ['companyKey', 'createdAt'] }],
  eventTypes: ['CompanyRegistered'],
  async apply(event, ctx) {
    const e = event as unknown as CompanyEvent;
    if (e.type !== 'CompanyRegistered') return;
    ctx.put(COMPANIES, {
      id: e.data.companyId,
      companyKey: e.data.companyKey,
      companyName: e.data.name,
      createdAt: e.data.createdAt,
      ownerUserId: e.data.ownerUserId,
    } satisfies CompanyDoc);
  },
};
