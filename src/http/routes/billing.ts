import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatMicros } from '../../domain/credits/pricing.js';
import { CREDIT_BALANCES, CREDIT_LEDGER, type CreditBalanceDoc, type LedgerEntryDoc } from '../../projections/credits/creditsProjection.js';
import { PIPELINES, type PipelineDoc } from '../../projections/pipelines/pipelinesProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

export const creditsView = async (services: HttpServices, companyId: string, ledgerLimit = 50, cursor?: string) => {
  const [balance, ledger] = await Promise.all([
    services.readStore.get<CreditBalanceDoc>(CREDIT_BALANCES, companyId),
    services.readStore.find<LedgerEntryDoc>(CREDIT_LEDGER, { where: { companyId }, orderBy: [{ field: 'at', direction: 'desc' }], limit: ledgerLimit, cursor }),
  ]);
  const balanceMicros = balance?.balanceMicros ?? 0;
  return {
    credits: {
      balanceMicros,
      balance: formatMicros(balanceMicros),
      currency: 'USD' as const,
      ledger: ledger.items.map((e) => ({ at: e.at, deltaMicros: e.deltaMicros, reason: e.reason, ...(e.conversationId ? { conversationId: e.conversationId } : {}) })),
    },
    nextCursor: ledger.nextCursor,
  };
};

export const creditsSchema = z.object({
  credits: z.object({
    balanceMicros: z.number().int(),
    balance: z.string(),
    currency: z.literal('USD'),
    ledger: z.array(z.object({ at: z.string(), deltaMicros: z.number().int(), reason: z.string(), conversationId: z.string().optional() })),
  }),
  nextCursor: z.string().nullable(),
});

/** Credits and the sales pipeline: read from their projections. */
export function billingRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get(
      '/api/credits',
      { schema: { tags: ['credits'], security: [{ bearer: [] }], querystring: listQuery, response: { 200: creditsSchema, ...errorResponses } } },
      async (request) => creditsView(services, authOf(request).companyId, request.query.limit, request.query.cursor),
    );

    app.get(
      '/api/pipeline',
      {
        schema: {
          tags: ['pipeline'],
          security: [{ bearer: [] }],
          response: {
            200: z.object({ pipeline: z.object({ id: z.uuid(), stages: z.array(z.object({ id: z.uuid(), name: z.string(), position: z.number().int() })) }) }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const doc = await services.readStore.get<PipelineDoc>(PIPELINES, authOf(request).companyId);
        return { pipeline: { id: doc?.pipelineId ?? authOf(request).companyId, stages: doc?.stages ?? [] } };
      },
    );
  };
}
