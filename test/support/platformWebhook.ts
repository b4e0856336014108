import { expect } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';

/**
 * Posts to a msgplatform integration's webhook the way the platform does: the JSON body (`payload`, or its
 * exact text) signed with `secret`. Resolves with the HTTP status.
 */
export async function sendPlatformWebhook(base: string, integrationId: number, secret: string, payload: Record<string, unknown> | string): Promise<number> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, secret) },
  });
  await res.arrayBuffer();
  return res.status;
}

/** `sendPlatformWebhook`, which the service must take (200). */
export async function postPlatformWebhook(base: string, integrationId: number, secret: string, payload: Record<string, unknown> | string): Promise<void> {
  expect(await sendPlatformWebhook(base, integrationId, secret, payload)).toBe(200);
}
