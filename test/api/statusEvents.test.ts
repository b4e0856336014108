import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_status_events_0123456789';
let server: TestServer;
let base: string;
let integrationId: number;

beforeAll(async () => {
  server = await startTestServer();
  base = await server.listen(0, '127.0.0.1');
  const acme = await signUp(server, 'Status Co');
  integrationId = (await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration.id;
  // The read models stop here: a status event must not depend on them catching up.
  await server.projections.stop();
});
afterAll(async () => {
  await server?.close();
});

async function post(payload: unknown) {
  const body = JSON.stringify(payload);
  const started = Date.now();
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
  });
  return { status: res.status, body: await res.json(), ms: Date.now() - started };
}

const sessionEvents = async (clientId: string) => {
  const all = await server.adapters.eventStore.readAll({ filter: { streamPrefixes: ['conversation-'] } });
  const started = all.find((e) => e.type === 'ConversationStarted' && (e.data as { customer: { clientId: string } }).customer.clientId === clientId)!;
  // The session's own events: each delivery's log entry is stored beside them, and a handoff's summary is written
  // beside them whenever the summary worker gets to it.
  return (await server.adapters.eventStore.readStream(started.stream)).map((e) => e.type).filter((type) => type !== 'WebhookDeliveryLogged' && type !== 'HandoffSummarized');
};

describe('status events find their conversation by the ids its messages carried, without waiting for read models', () => {
  it('given a message with request_id, when close_request arrives right after, then the session is closed', async () => {
    expect((await post({ text: 'Hi', client_id: 'status-1', channel_id: 1, transport: 'telegram', request_id: 9001, dialog_id: 7001 })).status).toBe(200);
    const closed = await post({ hook_type: 'close_request', request_id: 9001 });
    expect(closed.status).toBe(200);
    expect(closed.ms).toBeLessThan(2000);
    expect(await sessionEvents('status-1')).toEqual(['ConversationStarted', 'AiSessionOpened', 'MessageReceived', 'AiSessionClosed']);
  });

  it('given a transfer to a new dialog, when close_dialog names only that dialog, then it is found too', async () => {
    expect((await post({ text: 'Hello', client_id: 'status-2', channel_id: 1, transport: 'telegram', request_id: 9002 })).status).toBe(200);
    expect((await post({ hook_type: 'dialog_transferred', request_id: 9002, dialog_id: 7777 })).status).toBe(200);
    expect((await post({ hook_type: 'close_dialog', request_id: 123456789, dialog_id: 7777 })).status).toBe(200);
    expect(await sessionEvents('status-2')).toEqual(['ConversationStarted', 'AiSessionOpened', 'MessageReceived', 'DialogTransferred', 'AiSessionPaused', 'AiSessionClosed']);
  });

  it('a request id the platform reuses for another customer follows the newest conversation', async () => {
    expect((await post({ text: 'A', client_id: 'status-3a', channel_id: 1, transport: 'telegram', request_id: 9003 })).status).toBe(200);
    expect((await post({ text: 'B', client_id: 'status-3b', channel_id: 1, transport: 'telegram', request_id: 9003 })).status).toBe(200);
    expect((await post({ hook_type: 'close_request', request_id: 9003 })).status).toBe(200);
    expect((await sessionEvents('status-3b')).at(-1)).toBe('AiSessionClosed');
    expect((await sessionEvents('status-3a')).at(-1)).toBe('MessageReceived');
  });
});
