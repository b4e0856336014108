import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setCompanyTimezone } from '../../commands/settings/companyTimezone.js';
import { loadCompanyTimezone } from '../../commands/settings/streamReads.js';
import { addDays, daysBetween, isCalendarDate, localDate } from '../../domain/localDay.js';
import { agentScope, companyScope, integrationScope } from '../../projections/analytics/analyticsDay.js';
import { analyticsReport, analyticsTimezone } from '../../projections/analytics/queries.js';
import { findCompanyAgent } from '../../projections/agents/queries.js';
import { findCompanyIntegration } from '../../projections/integrations/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { analyticsSchema, DEFAULT_ANALYTICS_DAYS, getTimezoneSchema, MAX_ANALYTICS_DAYS, setTimezoneSchema, type AnalyticsQuery } from './analytics.schemas.js';
import type { ZodApp } from './zodApp.js';

/** What a schema cannot check: one scope at most, and dates that exist. */
export function checkQuery(q: Pick<AnalyticsQuery, 'from' | 'to' | 'integrationId' | 'agentId'>): void {
  if (q.integrationId !== undefined && q.agentId !== undefined) throw validationError('Give integrationId or agentId, not both');
  for (const [name, value] of [['from', q.from], ['to', q.to]] as const) {
    if (value !== undefined && !isCalendarDate(value)) throw validationError(`${name}: must be a date written YYYY-MM-DD`);
  }
}

/** The local dates asked for, defaulting to the last DEFAULT_ANALYTICS_DAYS days ending today in `timezone`. */
export function rangeOf(q: Pick<AnalyticsQuery, 'from' | 'to'>, timezone: string, now: Date): { from: string; to: string } {
  const to = q.to ?? (q.from ? addDays(q.from, DEFAULT_ANALYTICS_DAYS - 1) : localDate(now.toISOString(), timezone));
  const from = q.from ?? addDays(to, -(DEFAULT_ANALYTICS_DAYS - 1));
  const days = daysBetween(from, to);
  if (days < 1) throw validationError('from: must not be after to');
  if (days > MAX_ANALYTICS_DAYS) throw validationError(`The range is ${days} days; at most ${MAX_ANALYTICS_DAYS} are allowed`);
  return { from, to };
}

/** The company, or one of its integrations or agents (another company's: 404). */
async function scopeOf(services: HttpServices, companyId: string, q: AnalyticsQuery): Promise<string> {
  if (q.integrationId !== undefined) {
    if (!(await findCompanyIntegration(services.readStore, companyId, q.integrationId))) throw notFound('Integration');
    return integrationScope(q.integrationId);
  }
  if (q.agentId !== undefined) {
    if (!(await findCompanyAgent(services.readStore, companyId, q.agentId))) throw notFound('Agent');
    return agentScope(q.agentId);
  }
  return companyScope;
}

/**
 * GET /api/analytics (every teammate role) and GET/PUT /api/settings/timezone (owners and admins, by the
 * role policy's /api/settings rule).
 */
export function analyticsRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerAnalytics(app, services);
    registerTimezone(app, services);
  };
}

function registerAnalytics(app: ZodApp, services: HttpServices): void {
  app.get('/api/analytics', { schema: analyticsSchema }, async (request) => {
    const { companyId } = authOf(request);
    checkQuery(request.query);
    const timezone = await analyticsTimezone(services.readStore, companyId);
    const { from, to } = rangeOf(request.query, timezone, services.commands.clock.now());
    const scope = await scopeOf(services, companyId, request.query);
    return analyticsReport(services.readStore, { companyId, scope, from, to, timezone });
  });
}

function registerTimezone(app: ZodApp, services: HttpServices): void {
  app.get('/api/settings/timezone', { schema: getTimezoneSchema }, async (request) => ({
    timezone: await loadCompanyTimezone(services.commands.eventStore, authOf(request).companyId),
  }));

  app.put('/api/settings/timezone', { schema: setTimezoneSchema }, async (request) => {
    const auth = authOf(request);
    const result = await setCompanyTimezone(services.commands, { companyId: auth.companyId, userId: auth.userId, timezone: request.body.timezone });
    await services.waitForProjections(result.position);
    return { timezone: result.state.timezone };
  });
}
