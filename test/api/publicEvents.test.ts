import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, createAgent, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** GET /api/events: the company's public events, paged with a cursor a poller keeps. */

const SECRET = 'whsec_feed_0123456789abcdef';
let server: TestServer;
let base: string;
let acme: Company;
let globex: Company;
let integrationId: number;

type FeedEvent = { id: string; type: string; catalogVersion: number; timestamp: string; data: Record<string, unknown> };
type FeedPage = { events: FeedEvent[]; nextCursor: string; hasMore: boolean };

async function feed(co: Company, query = ''): Promise<FeedPage> {
  const res = await co.call('GET', `/api/events${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
let clients = 0;
const customerWrites = (text: string) => postPlatformWebhook(base, integrationId, SECRET, { text, client_id: `feed-${clients++}`, channel_id: 1, transport: 'telegram' });

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
  ({ acme, globex } = await acmeAndGlobex(server));
  const agentId = await createAgent(acme);
  const created = await acme.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId });
  integrationId = created.json().integration.id;
  for (const text of ['Do you ship to Norway?', 'What are your opening hours?', 'Can I pay by card?']) await customerWrites(text);
});
afterAll(async () => {
  await server?.close();
});

describe('GET /api/events', () => {
  it('given three customers who wrote and were answered, then started, received and answered once each, in log order', async () => {
    const page = await eventually(async () => {
      const p = await feed(acme, '?limit=200');
      expect(p.events.filter((e) => e.type === 'message.answered')).toHaveLength(3);
      return p;
    }, 15_000);
    const count = (type: string) => page.events.filter((e) => e.type === type).length;
    expect([count('conversation.started'), count('message.received'), count('message.answered')]).toEqual([3, 3, 3]);
    expect(new Set(page.events.map((e) => e.id)).size).toBe(page.events.length);
    expect(page.events[0]).toMatchObject({ type: 'conversation.started', catalogVersion: 1, data: { integrationId, connectorType: 'msgplatform' } });
    const answered = page.events.find((e) => e.type === 'message.answered')!;
    expect(answered.data).toMatchObject({ conversationId: expect.any(String), answer: expect.any(String), model: expect.any(String), inReplyTo: [expect.any(String)] });
    expect(JSON.stringify(page.events)).not.toMatch(/dedupeKey|inputTokens|costMicros|whsec_/);
    expect(page.hasMore).toBe(false);
  });

  it('pages of two chain to the same list, with nothing twice; the last cursor polls only what comes later', async () => {
    const all = (await feed(acme, '?limit=200')).events.map((e) => e.id);
    const seen: string[] = [];
    let page = await feed(acme, '?limit=2');
    for (;;) {
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events.map((e) => e.id));
      if (!page.hasMore) break;
      page = await feed(acme, `?limit=2&after=${encodeURIComponent(page.nextCursor)}`);
    }
    expect(seen).toEqual(all);
    const tail = page.nextCursor;
    expect((await feed(acme, `?after=${encodeURIComponent(tail)}`)).events).toEqual([]);
    await customerWrites('One more thing: do you gift-wrap?');
    const later = await eventually(async () => {
      const p = await feed(acme, `?after=${encodeURIComponent(tail)}&types=conversation.started,message.received`);
      expect(p.events).toHaveLength(2);
      return p;
    }, 10_000);
    expect(later.events.map((e) => e.type)).toEqual(['conversation.started', 'message.received']);
    expect(later.events[1]!.data).toMatchObject({ text: 'One more thing: do you gift-wrap?' });
  });

  it('filters by type', async () => {
    const page = await feed(acme, '?types=message.received&limit=200');
    expect(page.events.length).toBeGreaterThanOrEqual(3);
    expect(new Set(page.events.map((e) => e.type))).toEqual(new Set(['message.received']));
  });

  it('another company sees none of them; a foreign or broken cursor and an unknown type are 400', async () => {
    expect((await feed(globex, '?limit=200')).events).toEqual([]);
    expect((await acme.call('GET', '/api/events?after=nonsense')).statusCode).toBe(400);
    const bad = await acme.call('GET', '/api/events?types=message.deleted');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('message.deleted') });
  });
});
