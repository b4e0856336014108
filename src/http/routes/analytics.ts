import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadState } from '../../commands/handleCommand.js';
import { setCompanyTimezone } from '../../commands/settings/companyTimezone.js';
import { addDays, daysBetween, isCalendarDate, localDate } from '../../domain/analytics/localDay.js';
import { companyStream } from '../../domain/company/decider.js';
import { TIMEZONE_MAX_LENGTH } from '../../domain/company/timezone/events.js';
import { timezoneDecider } from '../../domain/company/timezone/decider.js';
import { handoffReason } from '../../domain/conversations/handoff.js';
import { agentScope, companyScope, COUNTERS, integrationScope } from '../../projections/analytics/analyticsDay.js';
import { analyticsReport, analyticsTimezone } from '../../projections/analytics/analyticsQuery.js';
import { AGENTS, type AgentDoc } from '../../projections/agents/agentsProjection.js';
import { INTEGRATIONS, type IntegrationDoc } from '../../projections/integrations/integrationsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses } from './schemas.js';

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

const firstResponse = z.object({ count: z.number().int(), p50Ms: z.number().int().nullable(), p90Ms: z.number().int().nullable() });
const series = z.object({
  ...(Object.fromEntries(COUNTERS.map((c) => [c, z.number().int()])) as Record<(typeof COUNTERS)[number], z.ZodNumber>),
  repliesFailed: z.number().int(),
  handoffReasons: z.record(handoffReason, z.number().int()),
  aiFirstResponse: firstResponse,
  humanFirstResponse: firstResponse,
});
const report = z.object({
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  days: z.array(series.extend({ date: z.string() })),
  totals: series,
});

const timezoneView = z.object({ timezone: z.string() });

/**
 * GET /api/analytics (every teammate role) and GET/PUT /api/settings/timezone (owners and admins, by the
 * role policy's /api/settings rule).
 */
export function analyticsRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];

    app.get(
      '/api/analytics',
      {
        schema: {
          tags: ['analytics'],
          security,
          description:
            `Per-day series for the company, or one integration (integrationId) or agent (agentId), from \`from\` to \`to\` (local dates in the company timezone, both included, at most ${MAX_ANALYTICS_DAYS} days; default the last ${DEFAULT_ANALYTICS_DAYS} days). ` +
            'Every day of the range is present (zeros when nothing happened). First-response percentiles come from a fixed histogram: within ±12 %.',
          querystring: query,
          response: { 200: report, ...errorResponses },
        },
      },
      async (request) => {
        const { companyId } = authOf(request);
        const q = request.query;
        if (q.integrationId !== undefined && q.agentId !== undefined) throw validationError('Give integrationId or agentId, not both');
        for (const [name, value] of [['from', q.from], ['to', q.to]] as const) {
          if (value !== undefined && !isCalendarDate(value)) throw validationError(`${name}: must be a date written YYYY-MM-DD`);
        }
        const timezone = await analyticsTimezone(services.readStore, companyId);
        const to = q.to ?? (q.from ? addDays(q.from, DEFAULT_ANALYTICS_DAYS - 1) : localDate(services.commands.clock.now().toISOString(), timezone));
        const from = q.from ?? addDays(to, -(DEFAULT_ANALYTICS_DAYS - 1));
        const days = daysBetween(from, to);
        if (days < 1) throw validationError('from: must not be after to');
        if (days > MAX_ANALYTICS_DAYS) throw validationError(`The range is ${days} days; at most ${MAX_ANALYTICS_DAYS} are allowed`);

        let scope = companyScope;
        if (q.integrationId !== undefined) {
          const integration = await services.readStore.get<IntegrationDoc>(INTEGRATIONS, String(q.integrationId));
          if (!integration || integration.companyId !== companyId) throw notFound('Integration');
          scope = integrationScope(q.integrationId);
        } else if (q.agentId !== undefined) {
          const agent = await services.readStore.get<AgentDoc>(AGENTS, q.agentId);
          if (!agent || agent.companyId !== companyId) throw notFound('Agent');
          scope = agentScope(q.agentId);
        }
        return analyticsReport(services.readStore, { companyId, scope, from, to, timezone });
      },
    );

    app.get(
      '/api/settings/timezone',
      { schema: { tags: ['settings'], security, response: { 200: timezoneView, ...errorResponses } } },
      async (request) => {
        const { state } = await loadState(services.commands.eventStore, companyStream(authOf(request).companyId), timezoneDecider);
        return { timezone: state.timezone };
      },
    );

    app.put(
      '/api/settings/timezone',
      {
        schema: {
          tags: ['settings'],
          security,
          description: 'Sets the IANA timezone analytics bucket days in (default UTC). It applies to events from now on; earlier days keep the timezone they were counted in.',
          body: z.strictObject({ timezone: z.string().trim().min(1).max(TIMEZONE_MAX_LENGTH) }),
          response: { 200: timezoneView, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const result = await setCompanyTimezone(services.commands, { companyId: auth.companyId, userId: auth.userId, timezone: request.body.timezone });
        await services.waitForProjections(result.position);
        return { timezone: result.state.timezone };
      },
    );
  };
}
