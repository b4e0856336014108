import { z } from 'zod';
import { formatMicros } from '../../domain/credits/decider.js';
import type { CompanyDoc } from '../../projections/companies/companiesProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

const companySchema = z.object({ id: z.number().int(), companyId: z.uuid(), companyName: z.string(), createdAt: z.string(), balanceMicros: z.number().int(), balance: z.string() });

export const companyView = ({ company: c, balanceMicros }: { company: CompanyDoc; balanceMicros: number }): z.infer<typeof companySchema> => ({
  id: c.companyKey,
  companyId: c.id,
  companyName: c.companyName,
  createdAt: c.createdAt,
  balanceMicros,
  balance: formatMicros(balanceMicros),
});

export const listCompaniesSchema = {
  tags: ['admin'],
  security,
  querystring: listQuery,
  response: {
    200: z.object({
      companies: z.array(companySchema),
      nextCursor: z.string().nullable(),
    }),
    ...errorResponses,
  },
};

export const grantCreditsSchema = {
  tags: ['admin'],
  security,
  params: z.object({ id: z.coerce.number().int().positive() }),
  body: z.strictObject({ amountMicros: z.number().int().positive().max(1_000_000_000_000), reason: z.string().trim().min(1).max(200) }),
  response: { 200: z.object({ credits: z.object({ balanceMicros: z.number().int(), balance: z.string() }) }), ...errorResponses },
};
