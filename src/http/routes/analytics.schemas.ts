import { z } from 'zod';
import { TIMEZONE_MAX_LENGTH } from '../../domain/company/timezone/events.js';
import { handoffReason } from '../../domain/conversations/state.js';
import { COUNTERS } from '../../projections/analytics/analyticsDay.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

/** Longest range one request may ask for, in days (a leap year). */
export const MAX_ANALYTICS_DAYS = 366;
/** Days shown when no range is given (ending today in the company's timezone). */
export const DEFAULT_ANALYTICS_DAYS = 30;

const dateParam = z.string().max(10).describe('YYYY-MM-DD, a local date in the company timezone');
const query = z.strictObject({
  from: dateParam.optional(),
  to: dateParam.optional(),
  integrationId: z.coerce.number().int().positive().optional(),
  agentId: z.uuid().optional(),
});
export type AnalyticsQuery = z.infer<typeof query>;

const firstResponse = z.object({ count: z.number().int(), p50Ms: z.number().int().nullable(), p90Ms: z.number().int().nullable() });
const series = z.object({
  ...(Object.fromEntries(COUNTERS.map((c) => [c, z.number().int()])) as Record<(typeof COUNTERS)[number], z.ZodNumber>),
  repliesFailed: z.number().int(),
  handoffReasons: z.record(handoffReason, z.number().int()),
  aiFirstResponse: firstResponse,
  humanFirstResponse: firstResponse,
  /** The same first responses split by whether the customer's wait began inside or outside business hours. */
  firstResponseByHours: z.object({
    inHours: z.object({ ai: firstResponse, human: firstResponse }),
    outsideHours: z.object({ ai: firstResponse, human: firstResponse }),
  }),
});
const report = z.object({
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  days: z.array(series.extend({ date: z.string() })),
  totals: series,
});

const timezoneView = z.object({ timezone: z.string() });

export const analyticsSchema = {
  tags: ['analytics'],
  security,
  description:
    `Per-day series for the company, or one integration (integrationId) or agent (agentId), from \`from\` to \`to\` (local dates in the company timezone, both included, at most ${MAX_ANALYTICS_DAYS} days; default the last ${DEFAULT_ANALYTICS_DAYS} days). ` +
    'Every day of the range is present (zeros when nothing happened). First-response percentiles come from a fixed histogram: within ±12 %.',
  querystring: query,
  response: { 200: report, ...errorResponses },
};

export const getTimezoneSchema = { tags: ['settings'], security, response: { 200: timezoneView, ...errorResponses } };

export const setTimezoneSchema = {
  tags: ['settings'],
  security,
  description: 'Sets the IANA timezone analytics bucket days in (default UTC). It applies to events from now on; earlier days keep the timezone they were counted in.',
  body: z.strictObject({ timezone: z.string().trim().min(1).max(TIMEZONE_MAX_LENGTH) }),
  response: { 200: timezoneView, ...errorResponses },
};
