import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { resendDelivery, sendTestEvent } from '../../commands/webhookDeliveries/deliveries.js';
import { loadWebhookEndpoint } from '../../commands/webhookEndpoints/streamReads.js';
import { getPublicEvent } from '../../projections/publicEvents/queries.js';
import { getWebhookDelivery, listWebhookDeliveries } from '../../projections/webhookDeliveries/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { listWebhookDeliveriesSchema, resendWebhookDeliverySchema, sendTestEventSchema, webhookDeliveryView } from './webhookDeliveries.schemas.js';
import { parseEndpointId } from './webhookEndpoints.js';

/** The company's endpoint, from its stream (strongly consistent); 404 otherwise, another company's included. */
async function ownedEndpoint(services: HttpServices, companyId: string, rawId: string) {
  const endpoint = await loadWebhookEndpoint(services.commands.eventStore, companyId, parseEndpointId(rawId));
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

/** An endpoint's delivery log, "Send test event" and the manual resend of one delivery. */
export function webhookDeliveryRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const deps = { ...services.commands, secretBox: services.secretBox, sender: services.webhookSender };

    app.get('/api/webhook-endpoints/:id/deliveries', { schema: listWebhookDeliveriesSchema }, async (request) => {
      const { companyId } = authOf(request);
      const endpoint = await ownedEndpoint(services, companyId, request.params.id);
      const page = await listWebhookDeliveries(services.readStore, companyId, endpoint.id, request.query);
      return { deliveries: page.items.map(webhookDeliveryView), nextCursor: page.nextCursor };
    });

    app.post('/api/webhook-endpoints/:id/test', { schema: sendTestEventSchema }, async (request) => {
      const { companyId } = authOf(request);
      const endpoint = await ownedEndpoint(services, companyId, request.params.id);
      const a = await sendTestEvent(deps, companyId, endpoint);
      return { attempt: { ...a, deliveryId: a.deliveryId, eventId: a.eventId } };
    });

    app.post('/api/webhook-endpoints/:id/deliveries/:deliveryId/resend', { schema: resendWebhookDeliverySchema }, async (request) => {
      const { companyId } = authOf(request);
      const endpoint = await ownedEndpoint(services, companyId, request.params.id);
      const n = /^\d{1,15}$/.test(request.params.deliveryId) ? Number(request.params.deliveryId) : null;
      const doc = n === null ? null : await getPublicEvent(services.readStore, companyId, n);
      if (!doc) throw notFound('Delivery');
      const logged = await getWebhookDelivery(services.readStore, companyId, endpoint.id, String(doc.n));
      const a = await resendDelivery(deps, companyId, endpoint, { n: doc.n, event: doc.event, attemptsSoFar: logged?.attempts ?? 0 });
      return { attempt: { ...a, deliveryId: a.deliveryId, eventId: a.eventId } };
    });
  };
}
