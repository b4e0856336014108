import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { loadIntegration, type LiveIntegration } from '../../commands/integrations/streamReads.js';
import { receiveWebhook, type ReceiveWebhookDeps } from '../../commands/platformWebhooks/receiveWebhook.js';
import { classifyWebhookJson } from '../../domain/platformWebhooks/payload.js';
import { noopWebhookMetrics, type WebhookOutcome } from '../../ports/metrics.js';
import type { RateLimiter } from '../../ports/rateLimiter.js';
import { inSpan, SpanKind } from '../../ports/tracing.js';
import type { ConversationRefLookup } from '../../projections/conversationRefs/queries.js';
import { BODY_LIMIT } from '../app.js';
import { HttpError, notFound } from '../errors.js';
import { isInProcessRequest } from '../platformWebhooks/inProcessWebhook.js';
import type { PendingWrites } from '../pendingWrites.js';
import type { HttpServices } from '../services.js';
import { platformWebhookLogFor, secretOpener, type PlatformWebhookLog } from '../platformWebhooks/platformWebhookLog.js';
import { verifyWebhookSignature } from '../platformWebhooks/webhookSignature.js';
import { errorResponses } from './schemas.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const params = z.object({ connectorType: z.string().max(40), integrationId: z.string().max(40) });
type Params = z.infer<typeof params>;

export interface PlatformWebhookRouteOptions {
  rateLimiter: RateLimiter;
  /** Where a status event finds its conversation when no platform-ref stream names it (older conversations). */
  findConversationByRef: ConversationRefLookup;
}

/**
 * The platform's webhook endpoint. The signature is checked over the exact raw bytes before any
 * parsing, so this scope reads every body as a Buffer. Checks run in API.md's order.
 */
export function platformWebhookRoutes(services: HttpServices, logWrites: PendingWrites, options: PlatformWebhookRouteOptions): FastifyPluginAsyncZod {
  const deps: ReceiveWebhookDeps = { ...services.commands, findConversationByRef: options.findConversationByRef };
  const openSecret = secretOpener((sealed) => services.secretBox.open(sealed));
  const metrics = services.webhookMetrics ?? noopWebhookMetrics;
  const deliveryLog = platformWebhookLogFor({ commands: services.commands, writes: logWrites, rateLimiter: options.rateLimiter, metrics, openSecret });
  // What an acknowledged POST did (processed, duplicate, ignored); any other answer is classed by its status.
  const outcomes = new WeakMap<object, WebhookOutcome>();

  /** The msgplatform integration the URL names, or 404 (webchat integrations use the WebSocket, never this URL). */
  const knownIntegration = async ({ connectorType, integrationId }: Params): Promise<LiveIntegration> => {
    if (connectorType !== 'msgplatform' || !/^\d{1,15}$/.test(integrationId)) throw notFound('Integration');
    const integration = await loadIntegration(services.commands.eventStore, Number(integrationId));
    if (integration?.connectorType !== connectorType) throw notFound('Integration');
    return integration;
  };

  return async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'POST') metrics.webhookHandled(outcomes.get(request) ?? rejectionOutcome(reply.statusCode), reply.elapsedTime / 1000);
    });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));

    app.get(
      '/api/webhook/:connectorType/:integrationId',
      { schema: { tags: ['webhooks'], params, response: { 200: z.object({ ok: z.literal(true), verified: z.literal(true) }), ...errorResponses } } },
      async (request) => {
        await knownIntegration(request.params);
        return { ok: true as const, verified: true as const };
      },
    );

    app.post(
      '/api/webhook/:connectorType/:integrationId',
      {
        schema: {
          tags: ['webhooks'],
          description: 'Signed with HMAC-SHA256 of the raw body: header x-webhook-signature or x-hub-signature-256, value sha256=<hex>.',
          params,
          response: { 200: z.object({ ok: z.literal(true) }), 415: errorResponses[400], ...errorResponses },
        },
      },
      // The root of the message's trace (a platform's own traceparent header is not followed: it is not ours to
      // trust, and would let a caller choose what is sampled). Its events carry it on (src/ports/tracing.ts).
      (request, reply) =>
        inSpan(
          'POST /api/webhook/:connectorType/:integrationId',
          { kind: SpanKind.SERVER, traceparent: undefined, attributes: { 'http.request.method': 'POST', 'http.route': '/api/webhook/:connectorType/:integrationId', 'mas.integration_id': request.params.integrationId } },
          async (span) => {
            const sent = await acceptWebhook(request, request.params, reply);
            span.setAttribute('http.response.status_code', reply.statusCode);
            return sent;
          },
        ),
    );

    async function acceptWebhook(request: FastifyRequest, params: Params, reply: FastifyReply) {
      const receivedAt = services.commands.clock.now().toISOString();
      if (services.config.env === 'production' && request.protocol !== 'https' && !isInProcessRequest(request)) {
        throw new HttpError(403, 'HTTPS_REQUIRED', 'Webhooks are accepted over HTTPS only');
      }
      const integration = await knownIntegration(params);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const log = deliveryLog(request, integration, body, receivedAt);
      const payload = await acceptedPayload(request, integration, body, log, openSecret);
      // A delivery that stores events has its log entry appended with them: one commit per webhook.
      const outcome = await receiveWebhook(deps, integration, payload, body, { receivedAt, ...log.payloadOf(true) });
      outcomes.set(request, outcome.outcome);
      // Otherwise (a duplicate, an ignored event) the acknowledgement does not wait for the log entry.
      if (!outcome.logged) void log.log({ httpStatus: 200, outcome: outcome.outcome, kind: outcome.kind, reason: outcome.reason, conversationId: outcome.conversationId });
      return reply.status(200).send({ ok: true as const });
    }
  };
}

/** API.md's checks after the integration is known: secret, signature, active, content type, payload. */
async function acceptedPayload(request: FastifyRequest, integration: LiveIntegration, body: Buffer, log: PlatformWebhookLog, openSecret: (sealed: string) => string) {
  if (!integration.webhookSecret) {
    return log.rejectUnsigned(401, 'WEBHOOK_SECRET_NOT_CONFIGURED', 'This integration has no webhook secret; set one in the dashboard');
  }
  const signatures = { 'x-webhook-signature': request.headers['x-webhook-signature'], 'x-hub-signature-256': request.headers['x-hub-signature-256'] };
  const verdict = verifyWebhookSignature(body, signatures, openSecret(integration.webhookSecret));
  if (!verdict.ok) return log.rejectUnsigned(401, 'INVALID_SIGNATURE', `Webhook signature is ${verdict.reason === 'missing' ? 'missing' : 'invalid'}`);
  if (!integration.active) return log.reject(403, 'INTEGRATION_INACTIVE', 'This integration is not active');
  const contentType = request.headers['content-type'];
  // Some platforms omit the content type: a missing one is read as JSON.
  if (contentType !== undefined && !JSON_TYPE.test(contentType)) return log.reject(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  const payload = classifyWebhookJson(body.toString('utf8'));
  if (payload.kind === 'invalid') {
    request.log.warn({ integrationId: integration.integrationId, issues: payload.issues }, 'signed webhook body is invalid');
    return log.reject(400, 'VALIDATION_ERROR', payload.issues);
  }
  return payload;
}

function rejectionOutcome(status: number): WebhookOutcome {
  if (status === 404) return 'rejected_not_found';
  if (status === 401) return 'rejected_unauthorized';
  if (status === 403) return 'rejected_forbidden';
  if (status >= 400 && status < 500) return 'rejected_invalid';
  return 'error';
}
