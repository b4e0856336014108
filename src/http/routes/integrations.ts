import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createIntegration } from '../../commands/integrations/createIntegration.js';
import { registerWebhook } from '../../commands/integrations/registerWebhook.js';
import { deleteIntegration, updateIntegration } from '../../commands/integrations/updateIntegration.js';
import { loadCompanyIntegration, type LiveIntegration } from '../../commands/integrations/queries.js';
import { expectActive } from '../../domain/lifecycle.js';
import { connectorType, WEBCHAT_GREETING_MAX_LENGTH } from '../../domain/integrations/events.js';
import { INTEGRATIONS, type IntegrationDoc } from '../../projections/integrations/integrationsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';
import { testMessageRoute } from './testMessage.js';

export const integrationSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  connectorType,
  apiUrl: z.string().nullable(),
  active: z.boolean(),
  agentId: z.string().nullable(),
  hasWebhookSecret: z.boolean(),
  hasApiToken: z.boolean(),
  webhookUrl: z.string(),
  webhookRegistered: z.boolean(),
  webhookRegisteredAt: z.string().nullable(),
  allowedOrigins: z.array(z.string()),
  /** msgplatform without apiUrl: replies are recorded as delivered to the sandbox and sent nowhere. */
  sandbox: z.boolean(),
  greeting: z.string().nullable().describe('webchat: the first message the widget shows a visitor'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const origin = z
  .string()
  .trim()
  .max(300)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v.replace(/\/$/, '');
    } catch {
      return false;
    }
  }, 'must be an origin such as https://shop.example.com')
  .transform((v) => v.replace(/\/$/, ''));

const writable = {
  name: z.string().trim().min(1).max(200),
  apiUrl: z.string().trim().max(2048).nullable(),
  apiToken: z.string().max(2048).nullable(),
  webhookSecret: z.string().min(16, 'must be at least 16 characters').max(512).nullable(),
  active: z.boolean(),
  agentId: z.uuid().nullable(),
  allowedOrigins: z.array(origin).max(50),
  greeting: z
    .string()
    .trim()
    .max(WEBCHAT_GREETING_MAX_LENGTH, `must be at most ${WEBCHAT_GREETING_MAX_LENGTH} characters`)
    // Line breaks are kept (the widget shows them); other control characters have no place in a chat bubble.
    .refine((v) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(v), 'must not contain control characters')
    .nullable(),
};

export const webhookUrlOf = (services: HttpServices, type: string, id: number) => `${services.config.publicBaseUrl}/api/webhook/${type}/${id}`;

export function integrationView(services: HttpServices, i: IntegrationDoc | LiveIntegration): z.infer<typeof integrationSchema> {
  const isDoc = 'hasApiToken' in i;
  return {
    id: i.integrationId,
    name: i.name,
    connectorType: i.connectorType,
    apiUrl: i.apiUrl,
    active: i.active,
    agentId: i.agentId,
    hasWebhookSecret: isDoc ? i.hasWebhookSecret : i.webhookSecret !== null,
    hasApiToken: isDoc ? i.hasApiToken : i.apiToken !== null,
    webhookUrl: webhookUrlOf(services, i.connectorType, i.integrationId),
    webhookRegistered: i.webhookRegisteredAt !== null,
    webhookRegisteredAt: i.webhookRegisteredAt,
    allowedOrigins: i.allowedOrigins,
    sandbox: i.connectorType === 'msgplatform' && !i.apiUrl,
    greeting: i.greeting ?? null,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

const idParams = z.object({ id: z.string().max(20) });
const parseId = (raw: string) => {
  if (!/^\d{1,15}$/.test(raw)) throw notFound('Integration');
  return Number(raw);
};

export function integrationRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const deps = { ...services.commands, secretBox: services.secretBox, platform: services.platform };

  const checkApiUrl = (apiUrl: string | null | undefined) => {
    if (!apiUrl) return;
    const verdict = services.checkPlatformUrl(apiUrl);
    if (!verdict.ok) throw validationError(`apiUrl: ${verdict.reason}`);
  };
  const checkGreeting = (type: string, greeting: string | null | undefined) => {
    if (greeting && type !== 'webchat') throw validationError('greeting: only a webchat integration has a greeting');
  };
  const load = async (companyId: string, id: number) => {
    const integration = await loadCompanyIntegration(services.commands.eventStore, companyId, id);
    if (integration === null) throw notFound('Integration');
    return integration;
  };

  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    await app.register(testMessageRoute(services));

    app.get(
      '/api/integrations',
      {
        schema: {
          tags: ['integrations'],
          security,
          querystring: listQuery,
          response: { 200: z.object({ integrations: z.array(integrationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const page = await services.readStore.find<IntegrationDoc>(INTEGRATIONS, {
          where: { companyId: authOf(request).companyId },
          orderBy: [{ field: 'integrationId', direction: 'asc' }],
          limit: request.query.limit,
          cursor: request.query.cursor,
        });
        return { integrations: page.items.map((d) => integrationView(services, d)), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/integrations',
      {
        schema: {
          tags: ['integrations'],
          security,
          body: z.strictObject({
            name: writable.name,
            connectorType,
            apiUrl: writable.apiUrl.optional(),
            apiToken: writable.apiToken.optional(),
            webhookSecret: writable.webhookSecret.optional(),
            active: writable.active.optional(),
            agentId: writable.agentId.optional(),
            allowedOrigins: writable.allowedOrigins.optional(),
            greeting: writable.greeting.optional(),
          }),
          response: { 201: z.object({ integration: integrationSchema }), ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        checkApiUrl(request.body.apiUrl);
        checkGreeting(request.body.connectorType, request.body.greeting);
        const result = await createIntegration(deps, { ...request.body, companyId: auth.companyId, userId: auth.userId });
        await services.waitForProjections(result.position);
        return reply.status(201).send({ integration: integrationView(services, expectActive(result.state, 'integration')) });
      },
    );

    app.get(
      '/api/integrations/:id',
      { schema: { tags: ['integrations'], security, params: idParams, response: { 200: z.object({ integration: integrationSchema }), ...errorResponses } } },
      async (request) => ({ integration: integrationView(services, await load(authOf(request).companyId, parseId(request.params.id))) }),
    );

    app.patch(
      '/api/integrations/:id',
      {
        schema: {
          tags: ['integrations'],
          security,
          params: idParams,
          body: z.strictObject({
            name: writable.name.optional(),
            apiUrl: writable.apiUrl.optional(),
            apiToken: writable.apiToken.optional(),
            webhookSecret: writable.webhookSecret.optional(),
            active: writable.active.optional(),
            agentId: writable.agentId.optional(),
            allowedOrigins: writable.allowedOrigins.optional(),
            greeting: writable.greeting.optional(),
          }),
          response: { 200: z.object({ integration: integrationSchema }), ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        checkApiUrl(request.body.apiUrl);
        if (request.body.greeting) checkGreeting((await load(auth.companyId, parseId(request.params.id))).connectorType, request.body.greeting);
        const result = await updateIntegration(deps, { companyId: auth.companyId, userId: auth.userId, integrationId: parseId(request.params.id), changes: request.body });
        await services.waitForProjections(result.position);
        return { integration: integrationView(services, expectActive(result.state, 'integration')) };
      },
    );

    app.delete(
      '/api/integrations/:id',
      { schema: { tags: ['integrations'], security, params: idParams, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        const auth = authOf(request);
        const result = await deleteIntegration(deps, { companyId: auth.companyId, userId: auth.userId, integrationId: parseId(request.params.id) });
        await services.waitForProjections(result.position);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/api/integrations/:id/register-webhook',
      {
        schema: {
          tags: ['integrations'],
          security,
          params: idParams,
          response: { 200: z.object({ ok: z.literal(true), webhookRegisteredAt: z.string() }), 502: errorResponses[500], ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const id = parseId(request.params.id);
        const current = await load(auth.companyId, id);
        const result = await registerWebhook(deps, {
          companyId: auth.companyId,
          userId: auth.userId,
          integrationId: id,
          webhookUrl: webhookUrlOf(services, current.connectorType, id),
        });
        await services.waitForProjections(result.position);
        return { ok: true as const, webhookRegisteredAt: result.webhookRegisteredAt };
      },
    );
  };
}
