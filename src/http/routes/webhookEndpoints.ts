import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadWebhookEndpoint, loadWebhookEndpoints } from '../../commands/webhookEndpoints/streamReads.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  requestWebhookEndpointReplay,
  rotateWebhookEndpointSecret,
  setCreditsLowThreshold,
  updateWebhookEndpoint,
} from '../../commands/webhookEndpoints/webhookEndpoints.js';
import { listWebhookEndpoints } from '../../projections/webhookEndpoints/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  createWebhookEndpointSchema,
  deleteWebhookEndpointSchema,
  getWebhookEndpointSchema,
  getWebhookSettingsSchema,
  listWebhookEndpointsSchema,
  putWebhookSettingsSchema,
  replayWebhookEndpointSchema,
  rotateWebhookEndpointSecretSchema,
  updateWebhookEndpointSchema,
  webhookEndpointView,
} from './webhookEndpoints.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const parseEndpointId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Webhook endpoint');
  return raw.toLowerCase();
};
const actorOf = (auth: { companyId: string; userId: string }) => ({ companyId: auth.companyId, by: `user:${auth.userId}` });

/** The outbound guard's static check (scheme, literal addresses); every delivery checks the resolved address again. */
function checkUrl(services: HttpServices, url: string | undefined): void {
  if (url === undefined) return;
  const verdict = services.checkPlatformUrl(url);
  if (!verdict.ok) throw validationError(`url: ${verdict.reason}`);
}

/** /api/webhook-endpoints (and /api/webhook-settings): where the company's own systems are told what happens. */
export function webhookEndpointRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerEndpointList(app, services);
    registerEndpoint(app, services);
    registerEndpointActions(app, services);
    registerSettings(app, services);
  };
}

function registerEndpointList(app: ZodApp, services: HttpServices): void {
  app.get('/api/webhook-endpoints', { schema: listWebhookEndpointsSchema }, async (request) => {
    const page = await listWebhookEndpoints(services.readStore, authOf(request).companyId, request.query);
    return { endpoints: page.items.map(webhookEndpointView), nextCursor: page.nextCursor };
  });

  app.post('/api/webhook-endpoints', { schema: createWebhookEndpointSchema }, async (request, reply) => {
    checkUrl(services, request.body.url);
    const deps = { ...services.commands, secretBox: services.secretBox };
    const result = await createWebhookEndpoint(deps, actorOf(authOf(request)), request.body);
    await services.waitForProjections(result.position);
    return reply.status(201).send({ endpoint: webhookEndpointView(result.endpoint), secret: result.secret });
  });
}

function registerEndpoint(app: ZodApp, services: HttpServices): void {
  app.get('/api/webhook-endpoints/:id', { schema: getWebhookEndpointSchema }, async (request) => {
    const found = await loadWebhookEndpoint(services.commands.eventStore, authOf(request).companyId, parseEndpointId(request.params.id));
    if (!found) throw notFound('Webhook endpoint');
    return { endpoint: webhookEndpointView(found) };
  });

  app.patch('/api/webhook-endpoints/:id', { schema: updateWebhookEndpointSchema }, async (request) => {
    checkUrl(services, request.body.url);
    const result = await updateWebhookEndpoint(services.commands, actorOf(authOf(request)), parseEndpointId(request.params.id), request.body);
    await services.waitForProjections(result.position);
    return { endpoint: webhookEndpointView(result.endpoint) };
  });

  app.delete('/api/webhook-endpoints/:id', { schema: deleteWebhookEndpointSchema }, async (request, reply) => {
    const result = await deleteWebhookEndpoint(services.commands, actorOf(authOf(request)), parseEndpointId(request.params.id));
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}

function registerEndpointActions(app: ZodApp, services: HttpServices): void {
  app.post('/api/webhook-endpoints/:id/rotate-secret', { schema: rotateWebhookEndpointSecretSchema }, async (request) => {
    const deps = { ...services.commands, secretBox: services.secretBox };
    const result = await rotateWebhookEndpointSecret(deps, actorOf(authOf(request)), parseEndpointId(request.params.id));
    await services.waitForProjections(result.position);
    return { endpoint: webhookEndpointView(result.endpoint), secret: result.secret };
  });

  app.post('/api/webhook-endpoints/:id/replay', { schema: replayWebhookEndpointSchema }, async (request, reply) => {
    const endpointId = parseEndpointId(request.params.id);
    const from = new Date(request.body.from).toISOString();
    await requestWebhookEndpointReplay(services.commands, actorOf(authOf(request)), endpointId, from);
    return reply.status(202).send({ replay: { endpointId, from } });
  });
}

function registerSettings(app: ZodApp, services: HttpServices): void {
  app.get('/api/webhook-settings', { schema: getWebhookSettingsSchema }, async (request) => {
    const state = await loadWebhookEndpoints(services.commands.eventStore, authOf(request).companyId);
    return { settings: { creditsLowThresholdMicros: state.creditsLowThresholdMicros } };
  });

  app.put('/api/webhook-settings', { schema: putWebhookSettingsSchema }, async (request) => {
    const result = await setCreditsLowThreshold(services.commands, actorOf(authOf(request)), request.body.creditsLowThresholdMicros);
    return { settings: { creditsLowThresholdMicros: result.state.creditsLowThresholdMicros } };
  });
}
