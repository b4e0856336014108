import { expect } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { uniqueEmail } from './testServer.js';

/** A public event as the feed lists it. */
export interface FeedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: { conversationId?: string } & Record<string, unknown>;
}

/**
 * A company on a listening service (`base`, a child process or an in-process server) with a msgplatform
 * integration (no agent: each message is also handed off, so public events of several types follow) and one
 * outbound webhook endpoint for every event type at `receiverUrl`. Returns the endpoint's secret (shown once).
 */
export async function companyWithEndpoint(base: string, receiverUrl: string) {
  const call = async (method: string, path: string, body?: unknown, token?: string, at = base) => {
    const res = await fetch(at + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };
  const email = uniqueEmail('hooks');
  expect((await call('POST', '/api/auth/register', { email, password: 'correct horse', companyName: 'Hooks Co' })).status).toBe(201);
  const token = (await call('POST', '/api/auth/login', { email, password: 'correct horse' })).body.session.access_token as string;
  const inboundSecret = `whsec_${Math.random().toString(36).slice(2)}_0123456789`;
  const integration = await call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', webhookSecret: inboundSecret }, token);
  expect(integration.status).toBe(201);
  const integrationId = integration.body.integration.id as number;
  const endpoint = await call('POST', '/api/webhook-endpoints', { url: receiverUrl, eventTypes: ['*'], description: 'fault test' }, token);
  expect(endpoint.status).toBe(201);
  return {
    endpointSecret: endpoint.body.secret as string,
    endpointId: endpoint.body.endpoint.id as string,
    /** Posts a signed customer message (to `at`, default `base`); resolves with the HTTP status, 0 when the connection failed. */
    async post(m: { clientId: string; messageId: string; text: string }, at = base): Promise<number> {
      const raw = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: m.messageId, client_id: m.clientId, channel_id: 1, transport: 'telegram', text: m.text });
      try {
        const res = await fetch(`${at}/api/webhook/msgplatform/${integrationId}`, {
          method: 'POST',
          body: raw,
          headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(raw, inboundSecret) },
        });
        await res.arrayBuffer();
        return res.status;
      } catch {
        return 0;
      }
    },
    /** Every public event of the company, through the feed (GET /api/events), in its order. */
    async feed(at = base): Promise<FeedEvent[]> {
      const events: FeedEvent[] = [];
      let after = '';
      for (;;) {
        const page = await call('GET', `/api/events?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`, undefined, token, at);
        expect(page.status).toBe(200);
        events.push(...(page.body.events as FeedEvent[]));
        if (!page.body.hasMore) return events;
        after = page.body.nextCursor as string;
      }
    },
  };
}
