import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createIntegration } from '../../commands/integrations/createIntegration.js';
import { registerWebhook } from '../../commands/integrations/registerWebhook.js';
import { deleteIntegration, updateIntegration } from '../../commands/integrations/updateIntegration.js';
import { rotateIdentitySecret } from '../../commands/integrations/identitySecret.js';
import { loadCompanyIntegration } from '../../commands/integrations/streamReads.js';
import { expectActive } from '../../domain/lifecycle.js';
import { listIntegrations } from '../../projections/integrations/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  createIntegrationSchema,
  deleteIntegrationSchema,
  getIntegrationSchema,
  integrationView,
  listIntegrationsSchema,
  registerWebhookSchema,
  rotateIdentitySecretSchema,
  updateIntegrationSchema,
  webhookUrlOf,
} from './integrations.schemas.js';
import { testMessageRoute } from './testMessage.js';
import type { ZodApp } from './zodApp.js';

const parseId = (raw: string) => {
  if (!/^\d{1,15}$/.test(raw)) throw notFound('Integration');
  return Number(raw);
};

/** What the integration commands need: the command deps, the secret box for its secrets, and the platform client. */
const commandDeps = (services: HttpServices) => ({ ...services.commands, secretBox: services.secretBox, platform: services.platform });

/** The checks a schema cannot make: the apiUrl's address policy (SSRF), and a greeting only on a web chat integration. */
function checkApiUrl(services: HttpServices, apiUrl: string | null | undefined): void {
  if (!apiUrl) return;
  const verdict = services.checkPlatformUrl(apiUrl);
  if (!verdict.ok) throw validationError(`apiUrl: ${verdict.reason}`);
}
function checkGreeting(type: string, greeting: string | null | undefined): void {
  if (greeting && type !== 'webchat') throw validationError('greeting: only a webchat integration has a greeting');
}
/** The pre-chat form is the widget's: a platform's customers never see it. */
function checkPrechatForm(type: string, prechatForm: boolean | undefined): void {
  if (prechatForm && type !== 'webchat') throw validationError('prechatForm: only a webchat integration has a pre-chat form');
}
/** Identity verification is a web chat setting, and checking signatures needs the secret they are made with. */
function checkIdentityVerification(type: string, mode: string | undefined, hasSecret: boolean): void {
  if (mode === undefined || mode === 'off') return;
  if (type !== 'webchat') throw validationError('identityVerification: only a webchat integration verifies visitor identities');
  if (!hasSecret) throw validationError('identityVerification: generate the identity secret first (POST /api/integrations/:id/identity-secret)');
}

/** The company's integration, from its stream (strongly consistent); 404 otherwise. */
async function ownedIntegration(services: HttpServices, companyId: string, id: number) {
  const integration = await loadCompanyIntegration(services.commands.eventStore, companyId, id);
  if (integration === null) throw notFound('Integration');
  return integration;
}

/** GET/POST /api/integrations, GET/PATCH/DELETE /api/integrations/:id, its webhook registration and test message. */
export function integrationRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    await app.register(testMessageRoute(services));
    registerIntegrationList(app, services);
    registerIntegration(app, services);
    registerWebhookRegistration(app, services);
    registerIdentitySecret(app, services);
  };
}

function registerIntegrationList(app: ZodApp, services: HttpServices): void {
  const { publicBaseUrl } = services.config;
  app.get('/api/integrations', { schema: listIntegrationsSchema }, async (request) => {
    const page = await listIntegrations(services.readStore, authOf(request).companyId, request.query);
    return { integrations: page.items.map((d) => integrationView(publicBaseUrl, d)), nextCursor: page.nextCursor };
  });

  app.post('/api/integrations', { schema: createIntegrationSchema }, async (request, reply) => {
    const auth = authOf(request);
    checkApiUrl(services, request.body.apiUrl);
    checkGreeting(request.body.connectorType, request.body.greeting);
    checkIdentityVerification(request.body.connectorType, request.body.identityVerification, false);
    checkPrechatForm(request.body.connectorType, request.body.prechatForm);
    const result = await createIntegration(commandDeps(services), { ...request.body, companyId: auth.companyId, userId: auth.userId });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ integration: integrationView(publicBaseUrl, expectActive(result.state, 'integration')) });
  });
}

function registerIntegration(app: ZodApp, services: HttpServices): void {
  const { publicBaseUrl } = services.config;
  app.get('/api/integrations/:id', { schema: getIntegrationSchema }, async (request) => ({
    integration: integrationView(publicBaseUrl, await ownedIntegration(services, authOf(request).companyId, parseId(request.params.id))),
  }));

  app.patch('/api/integrations/:id', { schema: updateIntegrationSchema }, async (request) => {
    const auth = authOf(request);
    checkApiUrl(services, request.body.apiUrl);
    if (request.body.greeting || request.body.identityVerification || request.body.prechatForm) {
      const current = await ownedIntegration(services, auth.companyId, parseId(request.params.id));
      checkGreeting(current.connectorType, request.body.greeting);
      checkPrechatForm(current.connectorType, request.body.prechatForm);
      checkIdentityVerification(current.connectorType, request.body.identityVerification, Boolean(current.identitySecret));
    }
    const result = await updateIntegration(commandDeps(services), { companyId: auth.companyId, userId: auth.userId, integrationId: parseId(request.params.id), changes: request.body });
    await services.waitForProjections(result.position);
    return { integration: integrationView(publicBaseUrl, expectActive(result.state, 'integration')) };
  });

  app.delete('/api/integrations/:id', { schema: deleteIntegrationSchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await deleteIntegration(commandDeps(services), { companyId: auth.companyId, userId: auth.userId, integrationId: parseId(request.params.id) });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}

function registerWebhookRegistration(app: ZodApp, services: HttpServices): void {
  app.post('/api/integrations/:id/register-webhook', { schema: registerWebhookSchema }, async (request) => {
    const auth = authOf(request);
    const id = parseId(request.params.id);
    const current = await ownedIntegration(services, auth.companyId, id);
    const result = await registerWebhook(commandDeps(services), {
      companyId: auth.companyId,
      userId: auth.userId,
      integrationId: id,
      webhookUrl: webhookUrlOf(services.config.publicBaseUrl, current.connectorType, id),
    });
    await services.waitForProjections(result.position);
    return { ok: true as const, webhookRegisteredAt: result.webhookRegisteredAt };
  });
}

function registerIdentitySecret(app: ZodApp, services: HttpServices): void {
  app.post('/api/integrations/:id/identity-secret', { schema: rotateIdentitySecretSchema }, async (request) => {
    const auth = authOf(request);
    const id = parseId(request.params.id);
    const current = await ownedIntegration(services, auth.companyId, id);
    if (current.connectorType !== 'webchat') throw validationError('Only a webchat integration has an identity secret');
    const result = await rotateIdentitySecret(commandDeps(services), { companyId: auth.companyId, userId: auth.userId, integrationId: id });
    await services.waitForProjections(result.position);
    return { integration: integrationView(services.config.publicBaseUrl, expectActive(result.state, 'integration')), identitySecret: result.secret };
  });
}
