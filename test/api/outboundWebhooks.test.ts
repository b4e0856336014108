import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, signUp, useOpenAiLlm, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { valueOf } from '../support/prometheus.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhookReceiver.js';

/**
 * Outbound webhooks end to end: endpoints on local receivers that verify every delivery with the
 * `standardwebhooks` package. Retries are fast here (WEBHOOK_RETRY_SCHEDULE_MS), the rest is as in production.
 */

const SECRET = 'whsec_outbound_0123456789abcdef';
let server: TestServer;
let base: string;
let llm: FakeLlm;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  llm = await startFakeLlm({ apiKey: 'sk-test', models: ['cheap', 'pricey'], reply: 'We ship everywhere.', usage: { prompt_tokens: 1000, completion_tokens: 5 } });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    WEBHOOK_RETRY_SCHEDULE_MS: '150,150,150',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_POLL_MS: '50',
    // An answer of "cheap" costs about $1, of "pricey" more than a new company's $5.
    LLM_PRICE_TABLE: JSON.stringify({ cheap: { inputMicrosPer1K: 1_000_000, outputMicrosPer1K: 0 }, pricey: { inputMicrosPer1K: 1_000_000_000, outputMicrosPer1K: 0 } }),
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await server?.close();
  await llm?.close();
});

async function receiver(options: Parameters<typeof startWebhookReceiver>[0] = {}) {
  const r = await startWebhookReceiver(options);
  receivers.push(r);
  return r;
}

/** A company with an answering agent behind a sandbox integration; `write` is a customer's message. */
async function company(name: string) {
  const co = await signUp(server, name);
  const agentId = await createAgent(co);
  const integrationId = (await co.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId })).json().integration.id as number;
  const write = (text: string, client = 'c1') => postPlatformWebhook(base, integrationId, SECRET, { text, client_id: `${name}-${client}`, channel_id: 1, transport: 'telegram' });
  return { ...co, write };
}

async function endpoint(co: Company, r: WebhookReceiver, eventTypes: string[]) {
  const res = await co.call('POST', '/api/webhook-endpoints', { url: r.url, eventTypes });
  expect(res.statusCode, res.body).toBe(201);
  r.setSecrets([res.json().secret]);
  return res.json() as { endpoint: { id: string }; secret: string };
}

const texts = (rs: Received[]) => rs.map((r) => r.event.data.text);
const firstOfEach = (rs: Received[]) => rs.filter((r, i) => rs.findIndex((x) => x.id === r.id) === i);

describe('outbound webhooks', () => {
  it('each public event reaches a subscribed endpoint once, signed so the receiver verifies it', async () => {
    const acme = await company('acme-once');
    const all = await receiver();
    await endpoint(acme, all, ['*']);
    await acme.write('Do you ship to Norway?');
    await eventually(() => expect(all.received.map((r) => r.event.type).slice(0, 3)).toEqual(['conversation.started', 'message.received', 'message.answered']), 15_000);
    await new Promise((r) => setTimeout(r, 300));
    // Exactly the company's public events (the feed), each once, in order.
    const feed = (await acme.call('GET', '/api/events?limit=200')).json().events as { id: string; type: string }[];
    expect(all.received.map((r) => r.id)).toEqual(feed.map((e) => e.id));
    for (const r of all.received) {
      expect(r.verifiedWith).toEqual([0]);
      expect(r.id).toBe(r.event.id);
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    }
    expect(all.received[1]!.event.data).toMatchObject({ text: 'Do you ship to Norway?' });
  });

  it('a teammate assigning and closing the conversation gives conversation.assigned and conversation.closed, once each', async () => {
    const acme = await company('acme-close');
    const r = await receiver();
    await endpoint(acme, r, ['conversation.assigned', 'conversation.closed']);
    await acme.write('Please close this');
    const conversationId = await eventually(async () => {
      const list = (await acme.call('GET', '/api/events?types=conversation.started')).json().events;
      expect(list).toHaveLength(1);
      return list[0].data.conversationId as string;
    }, 15_000);
    expect((await acme.call('POST', `/api/conversations/${conversationId}/assign`, { assigneeId: acme.user.id })).statusCode).toBe(200);
    expect((await acme.call('POST', `/api/conversations/${conversationId}/close`, { resolution: 'answered by phone' })).statusCode).toBe(200);
    await eventually(() => expect(r.received.map((x) => x.event.type)).toEqual(['conversation.assigned', 'conversation.closed']), 15_000);
    expect(r.received[0]!.event.data).toMatchObject({ conversationId, assigneeId: acme.user.id, previousAssigneeId: null });
    expect(r.received[1]!.event.data).toMatchObject({ conversationId, reason: 'api', resolution: 'answered by phone', closedBy: `user:${acme.user.id}` });
  });

  it('charges crossing the company\'s threshold give credits.low, and one that spends the rest credits.exhausted', async () => {
    const low = await company('acme-low');
    await useOpenAiLlm(low, llm.url, { apiKey: 'sk-test', model: 'cheap' });
    expect((await low.call('PUT', '/api/webhook-settings', { creditsLowThresholdMicros: 4_500_000 })).statusCode).toBe(200);
    const r = await receiver();
    await endpoint(low, r, ['credits.low', 'credits.exhausted']);
    await low.write('Do you ship to Norway?');
    await eventually(() => expect(r.received.map((x) => x.event.type)).toEqual(['credits.low']), 15_000);
    expect(r.received[0]!.event.data).toMatchObject({ thresholdMicros: 4_500_000, balanceMicros: expect.any(Number) });
    expect(r.received[0]!.event.data.balanceMicros as number).toBeLessThan(4_500_000);

    const spent = await company('acme-spent');
    await useOpenAiLlm(spent, llm.url, { apiKey: 'sk-test', model: 'pricey' });
    const s = await receiver();
    await endpoint(spent, s, ['credits.low', 'credits.exhausted']);
    await spent.write('Do you ship to Norway?');
    await eventually(() => expect(s.received.map((x) => x.event.type)).toEqual(['credits.exhausted']), 15_000);
  });

  it('a new endpoint receives what happens from its creation on, not the company\'s history', async () => {
    const acme = await company('acme-new');
    await acme.write('Before any endpoint');
    await eventually(async () => expect((await acme.call('GET', '/api/events?types=message.received')).json().events).toHaveLength(1), 15_000);
    const r = await receiver();
    await endpoint(acme, r, ['message.received']);
    await acme.write('After the endpoint');
    await eventually(() => expect(texts(r.received)).toEqual(['After the endpoint']), 15_000);
  });

  it('after a rotation both secrets sign for the grace period; a receiver with either one verifies', async () => {
    const acme = await company('acme-rotate');
    const r = await receiver();
    const { endpoint: ep, secret: old } = await endpoint(acme, r, ['message.received']);
    const rotated = (await acme.call('POST', `/api/webhook-endpoints/${ep.id}/rotate-secret`)).json().secret as string;
    r.setSecrets([old, rotated, 'whsec_' + Buffer.alloc(32, 7).toString('base64')]);
    await acme.write('Rotated?');
    await eventually(() => expect(r.received).toHaveLength(1), 15_000);
    expect(r.received[0]!.verifiedWith).toEqual([0, 1]);
    expect(r.received[0]!.signature.split(' ')).toHaveLength(2);
  });

  it('a receiver answering 500 then 200 gets each event again with the same webhook-id, and the conversation\'s order holds', async () => {
    const acme = await company('acme-retry');
    const r = await receiver({ respond: (_r, nth) => (nth === 1 ? 500 : 200) });
    const { endpoint: ep } = await endpoint(acme, r, ['message.received']);
    for (const text of ['one', 'two', 'three']) await acme.write(text);
    await eventually(() => expect(r.received).toHaveLength(6), 15_000);
    // Every event twice in a row (the failure, then its retry), never the next one before it is delivered.
    expect(r.received.map((x) => x.id)).toEqual(firstOfEach(r.received).flatMap((x) => [x.id, x.id]));
    expect(texts(firstOfEach(r.received))).toEqual(['one', 'two', 'three']);
    await eventually(async () => {
      const log = (await acme.call('GET', `/api/webhook-endpoints/${ep.id}/deliveries`)).json().deliveries as { status: string; attempts: number; recentAttempts: { httpStatus: number; response: string }[] }[];
      expect(log).toHaveLength(3);
      for (const d of log) {
        expect(d).toMatchObject({ status: 'delivered', attempts: 2 });
        expect(d.recentAttempts.map((a) => a.httpStatus)).toEqual([200, 500]);
        expect(d.recentAttempts[1]!.response).toBe('nope 500');
      }
    });
    // /metrics counts them per endpoint.
    const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(valueOf(metrics, 'mas_outbound_webhook_attempts', { endpoint: ep.id, outcome: 'delivered' })).toBe(3);
    expect(valueOf(metrics, 'mas_outbound_webhook_attempts', { endpoint: ep.id, outcome: 'failed' })).toBe(3);
    expect(valueOf(metrics, 'mas_outbound_webhook_lag_seconds', { endpoint: ep.id })).toBeGreaterThan(0);
  });

  it('a burst of events of four conversations arrives each once, in order per conversation, at most one delivery in flight per conversation', async () => {
    const acme = await company('acme-burst');
    const r = await receiver({ delayMs: 15 });
    await endpoint(acme, r, ['message.received']);
    const texts_ = Array.from({ length: 40 }, (_, i) => `burst ${i}`);
    await Promise.all([0, 1, 2, 3].map(async (c) => {
      for (const text of texts_.filter((_, i) => i % 4 === c)) await acme.write(text, `c${c}`);
    }));
    await eventually(() => expect(r.received.length).toBeGreaterThanOrEqual(40), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second delivery would land now
    expect(r.received).toHaveLength(40);
    expect(new Set(r.received.map((x) => x.id)).size).toBe(40);
    expect(r.maxInFlight).toBeLessThanOrEqual(4);
    for (let c = 0; c < 4; c++) expect(texts(r.received).filter((t) => texts_.indexOf(String(t)) % 4 === c)).toEqual(texts_.filter((_, i) => i % 4 === c));
  });

  it('when one conversation\'s event fails in a window of several, the others count as delivered and it alone is sent again, in order', async () => {
    const acme = await company('acme-window');
    const r = await receiver({ delayMs: 10, respond: (x, nth) => (String(x.event.data.text).startsWith('flaky') && nth === 1 ? 500 : 200) });
    await endpoint(acme, r, ['message.received']);
    const sent = Array.from({ length: 20 }, (_, i) => `${i % 4 === 2 ? 'flaky' : 'fine'} ${i}`);
    await Promise.all([0, 1, 2, 3].map(async (c) => {
      for (const text of sent.filter((_, i) => i % 4 === c)) await acme.write(text, `c${c}`);
    }));
    await eventually(() => expect(new Set(r.received.filter((x) => x.verifiedWith.length > 0).map((x) => x.id)).size).toBe(20), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const times = (text: string) => r.received.filter((x) => x.event.data.text === text).length;
    for (const text of sent) expect(times(text), text).toBe(text.startsWith('flaky') ? 2 : 1);
    const firsts = firstOfEach(r.received);
    for (let c = 0; c < 4; c++) expect(texts(firsts).filter((t) => sent.indexOf(String(t)) % 4 === c)).toEqual(sent.filter((_, i) => i % 4 === c));
  });

  it('a hanging endpoint delays neither the company\'s healthy endpoint nor another company (measured)', async () => {
    const acme = await company('acme-dead');
    const globex = await company('globex-dead');
    const dead = await receiver({ respond: () => 'hang' });
    const healthy = await receiver();
    const other = await receiver();
    await endpoint(acme, dead, ['message.received']);
    await endpoint(acme, healthy, ['message.received']);
    await endpoint(globex, other, ['message.received']);
    const sent: number[] = [];
    for (let i = 0; i < 4; i++) {
      sent.push(Date.now());
      await acme.write(`acme ${i}`, `c${i}`);
      await globex.write(`globex ${i}`, `c${i}`);
    }
    await eventually(() => {
      expect(healthy.received).toHaveLength(4);
      expect(other.received).toHaveLength(4);
    }, 15_000);
    // Each delivered well within one timeout of the dead endpoint (5 s), while it holds a connection open.
    const lags = [...healthy.received, ...other.received].map((r, i) => r.at - sent[i % 4]!);
    expect(Math.max(...lags)).toBeLessThan(3000);
    expect(dead.received.length).toBeGreaterThanOrEqual(1);
    expect(new Set(dead.received.map((r) => r.id)).size).toBe(1);
  });

  it('a receiver answering 200 with a body over the 64 KiB read cap has the event delivered once: the first bytes kept, no retry', async () => {
    const acme = await company('acme-big-answer');
    const r = await receiver({ okBody: 'x'.repeat(200 * 1024) });
    const { endpoint: ep } = await endpoint(acme, r, ['message.received']);
    await acme.write('A long answer, please');
    const [delivery] = await eventually(async () => {
      const log = (await acme.call('GET', `/api/webhook-endpoints/${ep.id}/deliveries`)).json().deliveries as { status: string; attempts: number; recentAttempts: { httpStatus: number | null; response: string }[] }[];
      expect(log).toHaveLength(1);
      expect(log[0]!.status).toBe('delivered');
      return log;
    }, 15_000);
    expect(delivery).toMatchObject({ attempts: 1, recentAttempts: [{ httpStatus: 200, response: expect.stringMatching(/^x+$/) }] });
    expect(r.received).toHaveLength(1);
    const test = await acme.call('POST', `/api/webhook-endpoints/${ep.id}/test`);
    expect(test.json().attempt).toMatchObject({ ok: true, httpStatus: 200 });
    expect((await acme.call('GET', `/api/webhook-endpoints/${ep.id}`)).json().endpoint.active).toBe(true);
  });

  it('an endpoint failing for the whole schedule is disabled; the company\'s other endpoints get endpoint.disabled', async () => {
    const acme = await company('acme-disable');
    const failing = await receiver({ respond: () => 503 });
    const watcher = await receiver();
    const { endpoint: ep } = await endpoint(acme, failing, ['message.received']);
    await endpoint(acme, watcher, ['endpoint.disabled']);
    await acme.write('Anyone there?');
    const disabled = await eventually(async () => {
      const got = (await acme.call('GET', `/api/webhook-endpoints/${ep.id}`)).json().endpoint;
      expect(got.active).toBe(false);
      return got;
    }, 15_000);
    expect(disabled.disabled.reason).toMatch(/failed/);
    expect(failing.received).toHaveLength(4);
    expect(new Set(failing.received.map((r) => r.id)).size).toBe(1);
    await eventually(() => expect(watcher.received.map((r) => r.event)).toEqual([expect.objectContaining({ type: 'endpoint.disabled', data: expect.objectContaining({ endpointId: ep.id }) })]), 10_000);
    // Turned on again, it resumes where it stopped: the event is delivered, not lost.
    failing.setRespond(() => 200);
    expect((await acme.call('PATCH', `/api/webhook-endpoints/${ep.id}`, { active: true })).statusCode).toBe(200);
    await eventually(() => expect(failing.received.at(-1)!.event.data.text).toBe('Anyone there?'), 10_000);
    await eventually(async () => expect((await acme.call('GET', `/api/webhook-endpoints/${ep.id}/deliveries`)).json().deliveries[0].status).toBe('delivered'));
  });

  it('a replay from a timestamp delivers every matching event since then again, in order', async () => {
    const acme = await company('acme-replay');
    const r = await receiver();
    const { endpoint: ep } = await endpoint(acme, r, ['message.received']);
    await acme.write('before');
    await eventually(() => expect(r.received).toHaveLength(1), 15_000);
    await new Promise((res) => setTimeout(res, 20));
    const from = new Date().toISOString();
    for (const text of ['after 1', 'after 2']) await acme.write(text);
    await eventually(() => expect(texts(r.received)).toEqual(['before', 'after 1', 'after 2']), 15_000);
    const replay = await acme.call('POST', `/api/webhook-endpoints/${ep.id}/replay`, { from });
    expect(replay.statusCode).toBe(202);
    await eventually(() => expect(texts(r.received)).toEqual(['before', 'after 1', 'after 2', 'after 1', 'after 2']), 15_000);
    expect(r.received[3]!.id).toBe(r.received[1]!.id);
  });

  it('"send test event" and a manual resend reach the receiver and the log; another company\'s endpoint and deliveries are 404', async () => {
    const acme = await company('acme-test');
    const globex = await signUp(server, 'globex-test');
    const r = await receiver();
    const { endpoint: ep } = await endpoint(acme, r, ['message.received']);
    const test = await acme.call('POST', `/api/webhook-endpoints/${ep.id}/test`);
    expect(test.statusCode).toBe(200);
    expect(test.json().attempt).toMatchObject({ ok: true, httpStatus: 200, trigger: 'test' });
    expect(r.received[0]!.event).toMatchObject({ type: 'webhook.test', data: { endpointId: ep.id } });
    expect(r.received[0]!.verifiedWith).toEqual([0]);
    await acme.write('resend me');
    await eventually(() => expect(r.received).toHaveLength(2), 15_000);
    const delivery = await eventually(async () => {
      const list = (await acme.call('GET', `/api/webhook-endpoints/${ep.id}/deliveries`)).json().deliveries as { id: string; eventType: string }[];
      const found = list.find((d) => d.eventType === 'message.received');
      expect(found).toBeDefined();
      return found!;
    });
    const resent = await acme.call('POST', `/api/webhook-endpoints/${ep.id}/deliveries/${delivery.id}/resend`);
    expect(resent.json().attempt).toMatchObject({ ok: true, trigger: 'resend', attempt: 2 });
    expect(r.received[2]!.id).toBe(r.received[1]!.id);
    for (const [method, url] of [
      ['GET', `/api/webhook-endpoints/${ep.id}/deliveries`],
      ['POST', `/api/webhook-endpoints/${ep.id}/test`],
      ['POST', `/api/webhook-endpoints/${ep.id}/deliveries/${delivery.id}/resend`],
    ] as const) {
      expect((await globex.call(method, url)).statusCode, url).toBe(404);
    }
    expect((await acme.call('POST', `/api/webhook-endpoints/${ep.id}/deliveries/999999/resend`)).statusCode).toBe(404);
  });
});
