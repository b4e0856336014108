import { expect } from 'vitest';
import { signWebhookBody } from '../../src/http/webhookSignature.js';

/**
 * Posts `payload` to a msgplatform integration's webhook the way the platform does: the JSON body signed with
 * the integration's secret. The service must take it (200).
 */
export async function postPlatformWebhook(base: string, integrationId: number, secret: string, payload: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, secret) },
  });
  expect(res.status).toBe(200);
}
