import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { conversationIdFor } from '../../commands/conversations/conversationIds.js';
import { loadCompanyIntegration } from '../../commands/integrations/streamReads.js';
import { authOf } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import { inProcessHeaders, newTestClientId, testMessageBody } from '../platformWebhooks/inProcessWebhook.js';
import type { HttpServices } from '../services.js';
import { signWebhookBody } from '../platformWebhooks/webhookSignature.js';
import { errorBody } from './schemas.js';
import { testMessageSchema } from './testMessage.schemas.js';

/**
 * `POST /api/integrations/:id/test-message {text}`: a customer message as the platform would send it, signed here
 * with the integration's own webhook secret (which never leaves the server) and posted through the real webhook
 * route, so signature check, dedupe, logging and the reply pipeline are exactly those a real message meets.
 * Registered inside the integration routes' scope, so it shares their authentication.
 */
export function testMessageRoute(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/integrations/:id/test-message', { schema: testMessageSchema }, async (request, reply) => {
      const auth = authOf(request);
      const integration = await signingIntegration(services, auth.companyId, request.params.id);
      const clientId = newTestClientId(auth.userId);
      await postThroughWebhook(app, request, integration, services.secretBox.open(integration.webhookSecret), testMessageBody(request.body.text, clientId));
      // The dashboard opens the conversation next: let the read models show it.
      await services.waitForProjections(await services.commands.eventStore.headPosition());
      return reply.status(202).send({ ok: true as const, conversationId: conversationIdFor(integration.integrationId, clientId) });
    });
  };
}

/** The company's messaging-platform integration with the webhook secret a test message is signed with; else the 4xx why not. */
async function signingIntegration(services: HttpServices, companyId: string, rawId: string) {
  if (!/^\d{1,15}$/.test(rawId)) throw notFound('Integration');
  const state = await loadCompanyIntegration(services.commands.eventStore, companyId, Number(rawId));
  if (state === null) throw notFound('Integration');
  if (state.connectorType !== 'msgplatform') {
    throw new HttpError(400, 'not_supported', 'Test messages go through the messaging-platform webhook; try a web chat integration from its widget');
  }
  if (!state.webhookSecret) {
    throw new HttpError(409, 'WEBHOOK_SECRET_NOT_CONFIGURED', 'This integration has no webhook secret to sign the test message with; set one on the integration first');
  }
  return { ...state, webhookSecret: state.webhookSecret };
}

/** Posts the signed body to the integration's own webhook route in-process; a refusal becomes this request's error. */
async function postThroughWebhook(app: FastifyInstance, request: FastifyRequest, integration: { integrationId: number }, secret: string, body: string): Promise<void> {
  const { integrationId } = integration;
  const res = await app.inject({
    method: 'POST',
    url: `/api/webhook/msgplatform/${integrationId}`,
    payload: body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-signature': signWebhookBody(body, secret),
      'x-request-id': String(request.id),
      ...inProcessHeaders(),
    },
  });
  if (res.statusCode !== 200) {
    const error = safeError(res.body);
    request.log.warn({ integrationId, status: res.statusCode, code: error?.code }, 'the webhook refused a test message');
    if (res.statusCode >= 500 || !error) throw new HttpError(500, 'INTERNAL_ERROR', 'The test message could not be stored');
    throw new HttpError(409, error.code, `The webhook refused the test message: ${error.message}`);
  }
}

function safeError(text: string): { code: string; message: string } | null {
  try {
    const parsed = errorBody.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : null;
  } catch {
    return null;
  }
}
