import { Webhook } from 'standardwebhooks';
import { RESPONSE_BYTES_KEPT } from '../../domain/webhookDeliveries/events.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../ports/webhookSender.js';
import { createGuardedFetch } from '../net/guardedFetch.js';
import type { Resolver } from '../net/ssrfGuard.js';

export interface WebhookSenderOptions {
  allowPrivate: boolean;
  requireHttps: boolean;
  timeoutMs: number;
  resolver?: Resolver;
}

/** Answers larger than this are cut off (only the first bytes are kept anyway). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Deliveries go through the platform client's guard (`createGuardedFetch`): the address is checked when the
 * connection is made (no private addresses unless allowed, https in production), redirects are not followed
 * (a 3xx is a failed attempt), answers are capped, and the whole exchange has one timeout.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const guardedFetch = createGuardedFetch({ allowPrivate: options.allowPrivate, requireHttps: options.requireHttps, maxResponseBytes: MAX_RESPONSE_BYTES, ...(options.resolver ? { resolver: options.resolver } : {}) });
  // A signer decodes its secret once, not on every delivery; bounded, as secrets rotate and endpoints come and go.
  const signers = new Map<string, Webhook>();
  const signerOf = (secret: string) => {
    let signer = signers.get(secret);
    if (!signer) {
      if (signers.size >= 1000) signers.clear();
      signers.set(secret, (signer = new Webhook(secret)));
    }
    return signer;
  };
  return {
    async send(request: WebhookRequest): Promise<WebhookResponse> {
      // Standard Webhooks: several `v1,<signature>` separated by spaces, one per secret, all valid.
      const signature = request.secrets.map((secret) => signerOf(secret).sign(request.id, request.timestamp, request.body)).join(' ');
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      try {
        const res = await guardedFetch(request.url, {
          method: 'POST',
          body: request.body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'messaging-agent-webhooks/1',
            'webhook-id': request.id,
            'webhook-timestamp': String(Math.floor(request.timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const text = Buffer.from(await res.arrayBuffer()).subarray(0, RESPONSE_BYTES_KEPT).toString('utf8');
        return { ok: res.status >= 200 && res.status < 300, httpStatus: res.status, latencyMs: latency(), response: res.status >= 300 && res.status < 400 ? `redirect not followed (${res.headers.get('location') ? 'to another address' : 'no location'})` : text };
      } catch (err) {
        const message = err instanceof Error ? (err.name === 'TimeoutError' || err.name === 'AbortError' ? `no answer within ${options.timeoutMs} ms` : err.message) : String(err);
        return { ok: false, httpStatus: null, latencyMs: latency(), response: message.slice(0, RESPONSE_BYTES_KEPT) };
      }
    },
  };
}
