import { Webhook } from 'standardwebhooks';
import { RESPONSE_BYTES_KEPT } from '../../domain/webhookDeliveries/events.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../ports/webhookSender.js';
import { createGuardedPost } from '../net/guardedPost.js';
import type { Resolver } from '../net/ssrfGuard.js';

export interface WebhookSenderOptions {
  allowPrivate: boolean;
  requireHttps: boolean;
  timeoutMs: number;
  resolver?: Resolver;
}

/** Answers larger than this are cut off (only the first bytes are kept anyway). */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Bounded memories: secrets rotate, endpoints come and go. */
const SIGNERS_KEPT = 1000;
const SIGNATURES_KEPT = 10_000;
/**
 * A delivery sent again within this time carries the signature and timestamp it was first signed with: receivers
 * accept a timestamp up to 5 minutes old (Standard Webhooks' tolerance), so this leaves them four.
 */
export const SIGNATURE_REUSE_MS = 60_000;

interface Signed {
  body: string;
  timestamp: number;
  signature: string;
}

/**
 * Deliveries are plain guarded POSTs (`createGuardedPost`): the address is checked when each connection is made (no
 * private addresses unless allowed, https in production), redirects are not followed (a 3xx is a failed attempt),
 * answers are capped, and the whole exchange has one timeout. Each delivery is signed once with the
 * `standardwebhooks` package; an attempt of the same event, body and secrets within SIGNATURE_REUSE_MS (a retry, a
 * window sent again) reuses that signature and its timestamp instead of signing again.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const post = createGuardedPost({ allowPrivate: options.allowPrivate, requireHttps: options.requireHttps, maxResponseBytes: MAX_RESPONSE_BYTES, ...(options.resolver ? { resolver: options.resolver } : {}) });
  // A signer decodes its secret once, not on every delivery.
  const signers = new Map<string, Webhook>();
  const signerOf = (secret: string) => {
    let signer = signers.get(secret);
    if (!signer) {
      if (signers.size >= SIGNERS_KEPT) signers.clear();
      signers.set(secret, (signer = new Webhook(secret)));
    }
    return signer;
  };
  const signed = new Map<string, Signed>();
  const sign = (request: WebhookRequest): Signed => {
    const secrets = request.secrets.join(' ');
    const at = request.timestamp.getTime();
    const key = `${request.id} ${secrets}`;
    const earlier = signed.get(key);
    if (earlier && earlier.body === request.body && at - earlier.timestamp >= 0 && at - earlier.timestamp < SIGNATURE_REUSE_MS) return earlier;
    // Standard Webhooks: several `v1,<signature>` separated by spaces, one per secret, all valid.
    const signature = request.secrets.map((secret) => signerOf(secret).sign(request.id, request.timestamp, request.body)).join(' ');
    const made = { body: request.body, timestamp: at, signature };
    if (signed.size >= SIGNATURES_KEPT) signed.delete(signed.keys().next().value!);
    signed.set(key, made);
    return made;
  };
  return {
    async send(request: WebhookRequest): Promise<WebhookResponse> {
      const { signature, timestamp } = sign(request);
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      try {
        const answer = await post(request.url, {
          body: request.body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'messaging-agent-webhooks/1',
            'webhook-id': request.id,
            'webhook-timestamp': String(Math.floor(timestamp / 1000)),
            'webhook-signature': signature,
          },
          timeoutMs: options.timeoutMs,
        });
        const { status } = answer;
        const redirect = status >= 300 && status < 400;
        const response = redirect ? `redirect not followed (${answer.redirected ? 'to another address' : 'no location'})` : answer.body.subarray(0, RESPONSE_BYTES_KEPT).toString('utf8');
        return { ok: status >= 200 && status < 300, httpStatus: status, latencyMs: latency(), response };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, httpStatus: null, latencyMs: latency(), response: message.slice(0, RESPONSE_BYTES_KEPT) };
      }
    },
  };
}
