import { z } from 'zod';
import { formatMicros } from '../../domain/credits/decider.js';
import type { LedgerEntryDoc } from '../../projections/credits/creditsProjection.js';
import type { Page } from '../../ports/readStore.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

export const creditsSchema = z.object({
  credits: z.object({
    balanceMicros: z.number().int(),
    balance: z.string(),
    currency: z.literal('USD'),
    ledger: z.array(z.object({ at: z.string(), deltaMicros: z.number().int(), reason: z.string(), conversationId: z.string().optional() })),
  }),
  nextCursor: z.string().nullable(),
});

export const creditsView = ({ balanceMicros, ledger }: { balanceMicros: number; ledger: Page<LedgerEntryDoc> }): z.infer<typeof creditsSchema> => ({
  credits: {
    balanceMicros,
    balance: formatMicros(balanceMicros),
    currency: 'USD' as const,
    ledger: ledger.items.map((e) => ({ at: e.at, deltaMicros: e.deltaMicros, reason: e.reason, ...(e.conversationId ? { conversationId: e.conversationId } : {}) })),
  },
  nextCursor: ledger.nextCursor,
});

export const creditsRouteSchema = { tags: ['credits'], security, querystring: listQuery, response: { 200: creditsSchema, ...errorResponses } };

export const pipelineSchema = {
  tags: ['pipeline'],
  security,
  response: {
    200: z.object({ pipeline: z.object({ id: z.uuid(), stages: z.array(z.object({ id: z.uuid(), name: z.string(), position: z.number().int() })) }) }),
    ...errorResponses,
  },
};
