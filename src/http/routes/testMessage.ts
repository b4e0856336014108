import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conversationIdFor } from '../../commands/conversations/conversationIds.js';
import { loadCompanyIntegration } from '../../commands/integrations/queries.js';
import { authOf } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import { inProcessHeaders, testClientId, testMessageBody } from '../inProcessWebhook.js';
import type { HttpServices } from '../services.js';
import { signWebhookBody } from '../webhookSignature.js';
import { errorBody, errorResponses } from './schemas.js';

export const TEST_MESSAGE_MAX_LENGTH = 4000;

/**
 * `POST /api/integrations/:id/test-message {text}`: a customer message as the platform would send it, signed here
 * with the integration's own webhook secret (which never leaves the server) and posted through the real webhook
 * route, so signature check, dedupe, logging and the reply pipeline are exactly those a real message meets.
 * Registered inside the integration routes' scope, so it shares their authentication.
 */
export function testMessageRoute(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/integrations/:id/test-message',
      {
        schema: {
          tags: ['integrations'],
          summary: 'Send a test customer message through the integration’s webhook',
          description:
            'Signs the simple inbound body ({text, client_id, channel_id:"test", transport:"test"}) with the integration’s webhook secret and ' +
            'posts it to its own webhook URL in-process: verification, dedupe and the webhook log are the real ones. The customer is ' +
            '`test-<userId>`, one test conversation per person. 202 with the conversation id once the message is stored; the agent ' +
            'answers asynchronously (without an apiUrl the answer is delivered to the sandbox). 400 `not_supported` for a webchat ' +
            'integration; 409 `WEBHOOK_SECRET_NOT_CONFIGURED` or `INTEGRATION_INACTIVE` when the webhook would refuse it.',
          security: [{ bearer: [] }],
          params: z.object({ id: z.string().max(20) }),
          body: z.strictObject({ text: z.string().trim().min(1, 'must not be empty').max(TEST_MESSAGE_MAX_LENGTH, `must be at most ${TEST_MESSAGE_MAX_LENGTH} characters`) }),
          response: { 202: z.object({ ok: z.literal(true), conversationId: z.uuid() }), 409: errorBody, ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        if (!/^\d{1,15}$/.test(request.params.id)) throw notFound('Integration');
        const integrationId = Number(request.params.id);
        const state = await loadCompanyIntegration(services.commands.eventStore, auth.companyId, integrationId);
        if (state === null) throw notFound('Integration');
        if (state.connectorType !== 'msgplatform') {
          throw new HttpError(400, 'not_supported', 'Test messages go through the messaging-platform webhook; try a web chat integration from its widget');
        }
        if (!state.webhookSecret) {
          throw new HttpError(409, 'WEBHOOK_SECRET_NOT_CONFIGURED', 'This integration has no webhook secret to sign the test message with; set one on the integration first');
        }

        const body = testMessageBody(request.body.text, auth.userId);
        const res = await app.inject({
          method: 'POST',
          url: `/api/webhook/msgplatform/${integrationId}`,
          payload: body,
          headers: {
            'content-type': 'application/json',
            'x-webhook-signature': signWebhookBody(body, services.secretBox.open(state.webhookSecret)),
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
        // The dashboard opens the conversation next: let the read models show it.
        await services.waitForProjections(await services.commands.eventStore.headPosition());
        return reply.status(202).send({ ok: true as const, conversationId: conversationIdFor(integrationId, testClientId(auth.userId)) });
      },
    );
  };
}

function safeError(text: string): { code: string; message: string } | null {
  try {
    const parsed = errorBody.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : null;
  } catch {
    return null;
  }
}
