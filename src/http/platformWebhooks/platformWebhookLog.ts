import type { FastifyRequest } from 'fastify';
import { logWebhook } from '../../commands/platformWebhooks/logWebhook.js';
import type { LiveIntegration } from '../../commands/integrations/streamReads.js';
import type { CommandDeps } from '../../commands/deps.js';
import { loggedPayload, rejectedPayload } from '../../domain/platformWebhooks/payload.js';
import type { WebhookLogEntry } from '../../domain/platformWebhooks/events.js';
import type { WebhookMetrics } from '../../ports/metrics.js';
import type { RateLimiter } from '../../ports/rateLimiter.js';
import { HttpError } from '../errors.js';
import type { PendingWrites } from '../pendingWrites.js';
import { rejectedWebhookLog, unloggedNote } from './rejectedWebhookLog.js';

type EntryFields = Pick<WebhookLogEntry, 'httpStatus' | 'outcome' | 'kind' | 'reason'> & { conversationId?: string | null };

/** The opened webhook secret per sealed value: decrypting (AES-GCM) on every delivery was ~3% of the path's CPU. */
export function secretOpener(open: (sealed: string) => string): (sealed: string) => string {
  const opened = new Map<string, string>();
  return (sealed) => {
    let plain = opened.get(sealed);
    if (plain === undefined) {
      plain = open(sealed);
      // A rotated secret is a new sealed value: the cache only ever grows by rotations, and is bounded.
      if (opened.size >= 1000) opened.delete(opened.keys().next().value!);
      opened.set(sealed, plain);
    }
    return plain;
  };
}

/** Strings that must never reach a log entry, wherever a sender put them: the secret and the signatures received. */
function knownSecrets(headers: FastifyRequest['headers'], secret: string | null): string[] {
  const out: string[] = secret ? [secret] : [];
  for (const name of ['x-webhook-signature', 'x-hub-signature-256']) {
    const v = headers[name];
    for (const s of Array.isArray(v) ? v : v ? [v] : []) out.push(s, s.replace(/^sha256=/i, ''));
  }
  return out;
}

export interface PlatformWebhookLogDeps {
  commands: CommandDeps;
  writes: PendingWrites;
  rateLimiter: RateLimiter;
  metrics: WebhookMetrics;
  openSecret: (sealed: string) => string;
}

/**
 * How one delivery to a known integration is logged: its redacted payload, an entry written after the answer,
 * and rejections, which before the signature verified are logged within the integration's per-minute budget
 * (beyond it counted: metric, one server log line per run, and a note in the next entry that is logged).
 */
export function platformWebhookLogFor(deps: PlatformWebhookLogDeps) {
  const rejectedLog = rejectedWebhookLog(deps.rateLimiter);
  return (request: FastifyRequest, integration: LiveIntegration, body: Buffer, receivedAt: string) => {
    const integrationId = integration.integrationId;
    // Best effort like the entry itself: a payload that cannot be redacted is left out, never logged raw.
    // Until the signature verifies, anyone may be the sender: only a short prefix of the body is kept.
    const payloadOf = (signed: boolean): Pick<WebhookLogEntry, 'payload'> => {
      try {
        const secrets = knownSecrets(request.headers, integration.webhookSecret ? deps.openSecret(integration.webhookSecret) : null);
        return { payload: signed ? loggedPayload(body, request.headers, secrets) : rejectedPayload(body, request.headers, secrets) };
      } catch (err) {
        request.log.warn({ err, integrationId }, 'webhook payload left out of its log entry');
        return {};
      }
    };
    const log = (entry: EntryFields, signed = true) => {
      const written = logWebhook(deps.commands, { integrationId, companyId: integration.companyId, receivedAt, conversationId: null, ...entry, ...payloadOf(signed) }).catch((err) =>
        request.log.error({ err, integrationId }, 'webhook log entry lost'),
      );
      deps.writes.track(written);
      return written;
    };
    const reject = async (status: number, code: string, message: string): Promise<never> => {
      await log({ httpStatus: status, outcome: 'rejected', kind: 'other', reason: `${code}: ${message}` });
      throw new HttpError(status, code, message);
    };
    const rejectUnsigned = async (status: number, code: string, message: string): Promise<never> => {
      const admission = await rejectedLog.admit(integrationId);
      if (admission.log) {
        await log({ httpStatus: status, outcome: 'rejected', kind: 'other', reason: `${code}: ${message}${unloggedNote(admission.unloggedBefore)}` }, false);
      } else {
        deps.metrics.rejectionNotLogged();
        if (admission.firstUnlogged) request.log.warn({ integrationId, code }, 'rejected webhook deliveries over the log limit: counted, not logged');
      }
      throw new HttpError(status, code, message);
    };
    return { payloadOf, log, reject, rejectUnsigned };
  };
}
export type PlatformWebhookLog = ReturnType<ReturnType<typeof platformWebhookLogFor>>;
