import { z } from 'zod';
import { csatVia } from '../../domain/conversations/csat.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

const dateParam = z.string().max(10).describe('YYYY-MM-DD, a local date in the company timezone');
export const csatQuery = z.strictObject({ from: dateParam.optional(), to: dateParam.optional() });

const figures = {
  requested: z.number().int().describe('surveys sent'),
  responses: z.number().int(),
  average: z.number().nullable().describe('mean rating (1–5), null without answers'),
  scores: z.array(z.number().int()).length(5).describe('answers per rating, 1 to 5'),
};

export const csatReportSchema = {
  tags: ['analytics'],
  security,
  description:
    'Satisfaction survey results (CSAT) from `from` to `to` (local dates in the company timezone, both included, at most 366 days; default the last 30 days): ' +
    'overall, per agent (the agent that answered last in the conversation), per agent version (the version of that agent that wrote its last answer; ' +
    'newest version first per agent; answers to replies stored before versions count for the agent only), per teammate (who owned it when it closed) and per integration. Every role.',
  querystring: csatQuery,
  response: {
    200: z.object({
      timezone: z.string(),
      from: z.string(),
      to: z.string(),
      totals: z.object(figures),
      byAgent: z.array(z.object({ agentId: z.string(), ...figures })),
      byAgentVersion: z.array(z.object({ agentId: z.string(), version: z.number().int().describe('the agent version that wrote the last answer'), ...figures })),
      byTeammate: z.array(z.object({ userId: z.string(), ...figures })),
      byIntegration: z.array(z.object({ integrationId: z.number().int(), ...figures })),
    }),
    ...errorResponses,
  },
};

export const csatResponseSchema = z.object({
  id: z.string().describe('the survey'),
  conversationId: z.string(),
  integrationId: z.number().int(),
  rating: z.number().int(),
  comment: z.string().nullable(),
  via: csatVia,
  agentId: z.string().nullable(),
  agentVersion: z.number().int().nullable().describe('the version of the agent that wrote the last answer; null when unknown'),
  teammateId: z.string().nullable(),
  at: z.string(),
});

export const csatResponsesSchema = {
  tags: ['analytics'],
  security,
  description: "The company's CSAT answers with their comments, newest first; keyset-paginated by `cursor`. Every role.",
  querystring: listQuery,
  response: { 200: z.object({ responses: z.array(csatResponseSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};
