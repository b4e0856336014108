import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, signUp } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';

/**
 * Attacks on outbound deliveries (docs/api/outbound-webhooks.md): an endpoint deleted while a delivery to it is in
 * flight, and a replay asked for twice at once. Receivers verify every delivery with `standardwebhooks`.
 */

const SECRET = 'whsec_outbound_attacks_0123456789';
let server: TestServer;
let base: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100', WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_POLL_MS: '50' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server?.close();
});

async function company(name: string) {
  const co = await signUp(server, name);
  const agentId = await createAgent(co);
  const integrationId = (await co.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId })).json().integration.id as number;
  const write = (text: string, client = 'c1') => postPlatformWebhook(base, integrationId, SECRET, { text, client_id: `${name}-${client}`, channel_id: 1, transport: 'telegram' });
  const endpoint = async (options: Parameters<typeof startWebhookReceiver>[0] = {}) => {
    const r = await startWebhookReceiver(options);
    receivers.push(r);
    const res = await co.call('POST', '/api/webhook-endpoints', { url: r.url, eventTypes: ['message.received'] });
    expect(res.statusCode, res.body).toBe(201);
    r.setSecrets([res.json().secret]);
    return { receiver: r, id: res.json().endpoint.id as string };
  };
  return { ...co, write, endpoint };
}

describe('attack: outbound deliveries', () => {
  it('given a delivery hanging in flight, when its endpoint is deleted, then nothing more is sent to it, its log is 404, and the company\'s other endpoint goes on', async () => {
    const co = await company('delete-in-flight');
    const doomed = await co.endpoint({ respond: () => 'hang' });
    const healthy = await co.endpoint();
    await co.write('First');
    await eventually(() => expect(doomed.receiver.received.length).toBe(1), 10_000);
    expect((await co.call('DELETE', `/api/webhook-endpoints/${doomed.id}`)).statusCode).toBe(204);
    doomed.receiver.setRespond(() => 200);
    const seenAtDelete = new Set(doomed.receiver.received.map((r) => r.id));
    for (const text of ['Second', 'Third']) await co.write(text);
    await eventually(() => expect(healthy.receiver.received.map((r) => r.event.data.text)).toEqual(['First', 'Second', 'Third']), 10_000);
    // By the time the healthy endpoint has them, the worker has looked at the deleted one's queue too: nothing new went there.
    await eventually(async () => expect((await co.call('GET', `/api/webhook-endpoints/${doomed.id}/deliveries`)).statusCode).toBe(404), 5_000);
    expect(doomed.receiver.received.filter((r) => !seenAtDelete.has(r.id))).toEqual([]);
    expect((await co.call('GET', `/api/webhook-endpoints/${doomed.id}`)).statusCode).toBe(404);
  });

  it('given delivered events, when a replay from the start is asked for twice at once, then every event arrives again in order with its id, and later events once', async () => {
    const co = await company('replay-twice');
    const from = new Date(Date.now() - 1000).toISOString();
    const { receiver, id } = await co.endpoint();
    for (const text of ['One', 'Two', 'Three']) await co.write(text);
    await eventually(() => expect(receiver.received.map((r) => r.event.data.text)).toEqual(['One', 'Two', 'Three']), 10_000);
    const firstIds = receiver.received.map((r) => r.id);
    const replays = await Promise.all([0, 1].map(() => co.call('POST', `/api/webhook-endpoints/${id}/replay`, { from })));
    expect(replays.map((r) => r.statusCode)).toEqual([202, 202]);
    await eventually(() => expect(receiver.received.length).toBeGreaterThanOrEqual(6), 10_000);
    await co.write('Four');
    await eventually(() => expect(receiver.received.at(-1)?.event.data.text).toBe('Four'), 10_000);
    const again = receiver.received.slice(3, -1);
    // At least once each, in order within every pass: the ids are the first delivery's, and nothing else arrives.
    expect(new Set(again.map((r) => r.id))).toEqual(new Set(firstIds));
    for (const r of again) expect(firstIds).toContain(r.id);
    expect(again.length === 3 || again.length === 6).toBe(true);
    for (let i = 0; i < again.length; i += 3) expect(again.slice(i, i + 3).map((r) => r.id)).toEqual(firstIds);
    expect(receiver.received.filter((r) => r.event.data.text === 'Four')).toHaveLength(1);
  });
});
