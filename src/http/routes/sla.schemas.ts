import { z } from 'zod';
import { SLA_MAX_MINUTES, slaPolicySchema, slaTargetsSchema } from '../../domain/company/slaPolicy/events.js';
import { PRIORITIES } from '../../domain/conversations/triage.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

const targetsBody = z.strictObject(slaTargetsSchema.shape);
const policyBody = z.strictObject({
  enabled: z.boolean(),
  targets: z.strictObject(Object.fromEntries(PRIORITIES.map((p) => [p, targetsBody])) as Record<(typeof PRIORITIES)[number], typeof targetsBody>),
});

export const getSlaPolicySchema = {
  tags: ['settings'],
  security,
  description: 'The company SLA policy: per priority, the first-response, next-response and resolution targets in business minutes (null: not measured). Owners and admins.',
  response: { 200: slaPolicySchema, ...errorResponses },
};

export const setSlaPolicySchema = {
  tags: ['settings'],
  security,
  description:
    `Sets the SLA targets per priority (urgent, high, normal, low), each a whole number of business minutes from 1 to ${SLA_MAX_MINUTES} or null, counted only while the business hours are open. ` +
    'Clocks already running are counted against the new targets from their next event. Owners and admins.',
  body: policyBody,
  response: { 200: slaPolicySchema, ...errorResponses },
};

const counts = z.object({ met: z.number().int(), breached: z.number().int() });
const slaCounts = z.object({ firstResponse: counts, nextResponse: counts, resolution: counts });

export const slaAnalyticsSchema = {
  tags: ['analytics'],
  security,
  description:
    'SLA targets met and breached per local day (the company timezone; the day a clock stopped: a teammate answered, or the conversation was resolved), and their totals. `from`/`to` as in GET /api/analytics. Every role.',
  querystring: z.object({ from: z.string().max(10).optional(), to: z.string().max(10).optional() }),
  response: { 200: z.object({ from: z.string(), to: z.string(), totals: slaCounts, days: z.array(slaCounts.extend({ date: z.string() })) }), ...errorResponses },
};
