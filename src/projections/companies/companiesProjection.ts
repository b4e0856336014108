import { companyEvents } from '../../domain/company/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

export interface CompanyDoc extends Doc {
  companyKey: number;
  companyName: string;
  createdAt: string;
  ownerUserId: string;
}

export const COMPANIES = 'companies';

export const companiesProjection = defineProjection(companyEvents, {
  name: 'companies',
  collections: [{ name: COMPANIES, indexes: ['companyKey', 'createdAt'] }],
  eventTypes: ['CompanyRegistered'],
  async apply(event, ctx) {
    ctx.put(COMPANIES, {
      id: event.data.companyId,
      companyKey: event.data.companyKey,
      companyName: event.data.name,
      createdAt: event.data.createdAt,
      ownerUserId: event.data.ownerUserId,
    } satisfies CompanyDoc);
  },
});
