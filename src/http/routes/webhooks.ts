import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadIntegration } from '../../commands/integrations/queries.js';
import { logWebhook } from '../../commands/webhooks/logWebhook.js';
import { receiveWebhook, type ReceiveWebhookDeps } from '../../commands/webhooks/receiveWebhook.js';
import { classifyWebhookJson } from '../../domain/webhooks/payload.js';
import { loggedPayload, rejectedPayload } from '../../domain/webhooks/redactPayload.js';
import type { WebhookLogEntry } from '../../domain/webhooks/events.js';
import { noopWebhookMetrics, type WebhookOutcome } from '../../ports/metrics.js';
import type { RateLimiter } from '../../ports/rateLimiter.js';
import { CONVERSATION_REFS, refId } from '../../projections/conversationRefs/conversationRefsProjection.js';
import { BODY_LIMIT } from '../app.js';
import { HttpError, notFound } from '../errors.js';
import { isInProcessRequest } from '../inProcessWebhook.js';
import { rejectedWebhookLog, unloggedNote } from '../rejectedWebhookLog.js';
import type { PendingWrites } from '../pendingWrites.js';
import type { HttpServices } from '../services.js';
import { verifyWebhookSignature } from '../webhookSignature.js';
import { errorResponses } from './schemas.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The platform's webhook endpoint. The signature is checked over the exact raw bytes before any
 * parsing, so this scope reads every body as a Buffer. Checks run in API.md's order.
 */
export function webhookRoutes(services: HttpServices, logWrites: PendingWrites, options: { rateLimiter: RateLimiter }): FastifyPluginAsyncZod {
  const deps: ReceiveWebhookDeps = {
    ...services.commands,
    async findConversationByRef(integrationId, ref) {
      // The index is a read model: let it catch up with everything stored before this event arrived.
      // A lookup missed for want of waiting would drop the status event: failing instead lets the platform retry.
      const head = await services.commands.eventStore.headPosition();
      await services.waitForProjectionsOrFail(head);
      for (const [kind, id] of [
        ['request', ref.requestId],
        ['dialog', ref.dialogId],
      ] as const) {
        if (id === undefined) continue;
        const doc = await services.readStore.get<{ id: string; conversationId: string }>(CONVERSATION_REFS, refId(integrationId, kind, id));
        if (doc) return doc.conversationId;
      }
      return null;
    },
  };

  // Decrypting the webhook secret (AES-GCM) on every delivery was ~3% of the webhook path's CPU: the opened
  // secret is kept per sealed value (a rotated secret is a new sealed value), in memory only, bounded.
  const openedSecrets = new Map<string, string>();
  const openSecret = (sealed: string) => {
    let plain = openedSecrets.get(sealed);
    if (plain === undefined) {
      plain = services.secretBox.open(sealed);
      if (openedSecrets.size >= 1000) openedSecrets.delete(openedSecrets.keys().next().value!);
      openedSecrets.set(sealed, plain);
    }
    return plain;
  };

  const metrics = services.webhookMetrics ?? noopWebhookMetrics;
  const rejectedLog = rejectedWebhookLog(options.rateLimiter);
  // What an acknowledged POST did (processed, duplicate, ignored); any other answer is classed by its status.
  const outcomes = new WeakMap<object, WebhookOutcome>();
  /** Strings that must never reach a log entry, wherever a sender put them: the secret and the signatures received. */
  const knownSecrets = (headers: Record<string, string | string[] | undefined>, sealed: string | null) => {
    const out: string[] = [];
    if (sealed) out.push(openSecret(sealed));
    for (const name of ['x-webhook-signature', 'x-hub-signature-256']) {
      const v = headers[name];
      for (const s of Array.isArray(v) ? v : v ? [v] : []) out.push(s, s.replace(/^sha256=/i, ''));
    }
    return out;
  };

  return async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'POST') metrics.webhookHandled(outcomes.get(request) ?? rejectionOutcome(reply.statusCode), reply.elapsedTime / 1000);
    });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));

    const params = z.object({ connectorType: z.string().max(40), integrationId: z.string().max(40) });

    app.get(
      '/api/webhook/:connectorType/:integrationId',
      { schema: { tags: ['webhooks'], params, response: { 200: z.object({ ok: z.literal(true), verified: z.literal(true) }), ...errorResponses } } },
      async (request) => {
        const { connectorType, integrationId } = request.params;
        if (connectorType !== 'msgplatform' || !/^\d{1,15}$/.test(integrationId)) throw notFound('Integration');
        const integration = await loadIntegration(services.commands.eventStore, Number(integrationId));
        if (integration?.connectorType !== connectorType) throw notFound('Integration');
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
      async (request, reply) => {
        const receivedAt = services.commands.clock.now().toISOString();
        const { connectorType, integrationId: rawId } = request.params;
        if (services.config.env === 'production' && request.protocol !== 'https' && !isInProcessRequest(request)) {
          throw new HttpError(403, 'HTTPS_REQUIRED', 'Webhooks are accepted over HTTPS only');
        }
        // webchat integrations use the WebSocket, never this URL.
        if (connectorType !== 'msgplatform' || !/^\d{1,15}$/.test(rawId)) throw notFound('Integration');
        const integrationId = Number(rawId);
        const integration = await loadIntegration(services.commands.eventStore, integrationId);
        if (integration?.connectorType !== connectorType) throw notFound('Integration');

        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Best effort like the entry itself: a payload that cannot be redacted is left out, never logged raw.
        // Until the signature verifies, anyone may be the sender: only a short prefix of the body is kept.
        const payloadOf = (signed: boolean) => {
          try {
            const secrets = knownSecrets(request.headers, integration.webhookSecret);
            return { payload: signed ? loggedPayload(body, request.headers, secrets) : rejectedPayload(body, request.headers, secrets) };
          } catch (err) {
            request.log.warn({ err, integrationId }, 'webhook payload left out of its log entry');
            return {};
          }
        };
        const log = (entry: Pick<WebhookLogEntry, 'httpStatus' | 'outcome' | 'kind' | 'reason'> & { conversationId?: string | null }, signed = true) => {
          const written = logWebhook(services.commands, {
            integrationId,
            companyId: integration.companyId,
            receivedAt,
            conversationId: null,
            ...entry,
            ...payloadOf(signed),
          }).catch((err) => request.log.error({ err, integrationId }, 'webhook log entry lost'));
          logWrites.track(written);
          return written;
        };
        const reject = async (status: number, code: string, message: string): Promise<never> => {
          await log({ httpStatus: status, outcome: 'rejected', kind: 'other', reason: `${code}: ${message}` });
          throw new HttpError(status, code, message);
        };
        // A rejection before the signature verified: logged within the integration's per-minute budget, and
        // beyond it counted (metric, one server log line per run) and told in the next entry that is logged.
        const rejectUnsigned = async (status: number, code: string, message: string): Promise<never> => {
          const admission = await rejectedLog.admit(integrationId);
          if (admission.log) {
            await log({ httpStatus: status, outcome: 'rejected', kind: 'other', reason: `${code}: ${message}${unloggedNote(admission.unloggedBefore)}` }, false);
          } else {
            metrics.rejectionNotLogged();
            if (admission.firstUnlogged) request.log.warn({ integrationId, code }, 'rejected webhook deliveries over the log limit: counted, not logged');
          }
          throw new HttpError(status, code, message);
        };

        if (!integration.webhookSecret) {
          return rejectUnsigned(401, 'WEBHOOK_SECRET_NOT_CONFIGURED', 'This integration has no webhook secret; set one in the dashboard');
        }
        const verdict = verifyWebhookSignature(
          body,
          { 'x-webhook-signature': request.headers['x-webhook-signature'], 'x-hub-signature-256': request.headers['x-hub-signature-256'] },
          openSecret(integration.webhookSecret));
        if (!verdict.ok) return rejectUnsigned(401, 'INVALID_SIGNATURE', `Webhook signature is ${verdict.reason === 'missing' ? 'missing' : 'invalid'}`);
        if (!integration.active) return reject(403, 'INTEGRATION_INACTIVE', 'This integration is not active');

        const contentType = request.headers['content-type'];
        // Some platforms omit the content type: a missing one is read as JSON.
        if (contentType !== undefined && !JSON_TYPE.test(contentType)) return reject(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
        const payload = classifyWebhookJson(body.toString('utf8'));
        if (payload.kind === 'invalid') {
          request.log.warn({ integrationId, issues: payload.issues }, 'signed webhook body is invalid');
          return reject(400, 'VALIDATION_ERROR', payload.issues);
        }

        const outcome = await receiveWebhook(deps, integration, payload, body);
        outcomes.set(request, outcome.outcome);
        // The acknowledgement waits for the message's events, not for its log entry: one fsync less per webhook.
        void log({ httpStatus: 200, outcome: outcome.outcome, kind: outcome.kind, reason: outcome.reason, conversationId: outcome.conversationId });
        return reply.status(200).send({ ok: true as const });
      },
    );
  };
}

function rejectionOutcome(status: number): WebhookOutcome {
  if (status === 404) return 'rejected_not_found';
  if (status === 401) return 'rejected_unauthorized';
  if (status === 403) return 'rejected_forbidden';
  if (status >= 400 && status < 500) return 'rejected_invalid';
  return 'error';
}
