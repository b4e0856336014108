import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { silentLogger } from '../../src/ports/logger.js';
import { allProjections } from '../../src/projections/index.js';
import { rebuildProjections } from '../../src/processing/projectionRunner.js';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * GET /api/search?q=&limit=&cursor=: a company's customer messages, AI and human replies and customer names
 * holding every word of q, newest first, with plain-text snippets and match offsets. Another company's
 * messages never appear; any text is a query (never a 500); only an empty or over-long q is refused.
 */

const SECRET = 'whsec_search_0123456789abcdef';
let server: TestServer;
let base: string;
type Company = Awaited<ReturnType<typeof signUp>> & { integrationId: number };
let acme: Company;
let globex: Company;

interface Result {
  conversationId: string;
  integrationId: number;
  connectorType: string | null;
  customerName: string | null;
  kind: 'message' | 'customer';
  message: { id: string; author: string; direction: string; createdAt: string } | null;
  snippet: { text: string; highlights: { start: number; end: number }[]; truncatedStart: boolean; truncatedEnd: boolean };
}

async function company(name: string): Promise<Company> {
  const co = await signUp(server, name);
  const res = await co.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
  expect(res.statusCode).toBe(201);
  return { ...co, integrationId: res.json().integration.id };
}

let messageNo = 0;
async function customerSays(co: Company, clientId: string, text: string, customerName?: string) {
  const body = JSON.stringify({ text, client_id: clientId, channel_id: 1, transport: 'telegram', message_id: `m-${++messageNo}`, ...(customerName ? { client: { name: customerName } } : {}) });
  const res = await fetch(`${base}/api/webhook/msgplatform/${co.integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
  });
  expect(res.status).toBe(200);
}

async function settled() {
  await server.projections.waitForPosition((await server.adapters.eventStore.headPosition())!);
}

async function search(co: Company, query: string) {
  const res = await co.call('GET', `/api/search?${query}`);
  return { status: res.statusCode, body: res.json() as { results: Result[]; nextCursor: string | null } & { error?: { code: string; message: string } } };
}

const marked = (r: Result) => r.snippet.highlights.map((h) => r.snippet.text.slice(h.start, h.end));

let adaConversation: string;

beforeAll(async () => {
  server = await startTestServer();
  base = await server.listen(0, '127.0.0.1');
  acme = await company('Acme');
  globex = await company('Globex');
  await customerSays(acme, 'ada', 'Do you ship to Norway? <b>asap</b>', 'Ada Lovelace');
  await customerSays(acme, 'bob', 'I want a refund', 'Bob Stone');
  await customerSays(globex, 'nils', 'Do you ship to Norway? Same words, other company', 'Nils Norway');
  await settled();
  const list = (await acme.call('GET', '/api/conversations')).json().conversations as { id: string; customer: { clientId: string } }[];
  adaConversation = list.find((c) => c.customer.clientId === 'ada')!.id;
  // A human reply from the dashboard (no apiUrl: stored, then marked as not delivered).
  expect((await acme.call('POST', `/api/conversations/${adaConversation}/messages`, { text: 'Yes, we ship to Norway within 3 days.' })).statusCode).toBe(202);
  await settled();
});
afterAll(async () => server?.close());

describe('GET /api/search', () => {
  it('finds customer messages and human replies holding every word, newest first, with highlighted plain-text snippets', async () => {
    const { status, body } = await search(acme, 'q=ship%20norway');
    expect(status).toBe(200);
    expect(body.nextCursor).toBeNull();
    expect(body.results.map((r) => [r.kind, r.message?.author, r.message?.direction])).toEqual([
      ['message', 'operator', 'outbound'],
      ['message', 'customer', 'inbound'],
    ]);
    const [reply, question] = body.results as [Result, Result];
    expect(question).toEqual({
      conversationId: adaConversation,
      integrationId: acme.integrationId,
      connectorType: 'msgplatform',
      customerName: 'Ada Lovelace',
      kind: 'message',
      message: { id: expect.any(String), author: 'customer', direction: 'inbound', createdAt: expect.any(String) },
      // Customer text comes back as text: markup in it is not interpreted, only offsets mark the matches.
      snippet: { text: 'Do you ship to Norway? <b>asap</b>', highlights: [{ start: 7, end: 11 }, { start: 15, end: 21 }], truncatedStart: false, truncatedEnd: false },
    });
    expect(marked(reply)).toEqual(['ship', 'Norway']);
    expect(reply.conversationId).toBe(adaConversation);
  });

  it('finds a conversation by its customer name', async () => {
    const { body } = await search(acme, 'q=lovelace');
    expect(body.results).toEqual([
      expect.objectContaining({ conversationId: adaConversation, kind: 'customer', customerName: 'Ada Lovelace', message: null, snippet: expect.objectContaining({ text: 'Ada Lovelace', highlights: [{ start: 4, end: 12 }] }) }),
    ]);
  });

  it('never shows another company’s messages or customers, for the same words or theirs', async () => {
    const acmeConversations = new Set(((await acme.call('GET', '/api/conversations')).json().conversations as { id: string }[]).map((c) => c.id));
    const mine = await search(acme, 'q=norway');
    expect(mine.body.results.length).toBe(2);
    for (const r of mine.body.results) expect(acmeConversations.has(r.conversationId)).toBe(true);
    expect((await search(acme, 'q=nils')).body.results).toEqual([]);
    expect((await search(acme, 'q=other%20company')).body.results).toEqual([]);
    const theirs = await search(globex, 'q=norway');
    expect(theirs.body.results.map((r) => [r.kind, r.customerName])).toEqual([
      ['message', 'Nils Norway'],
      ['customer', 'Nils Norway'],
    ]);
    for (const r of theirs.body.results) expect(acmeConversations.has(r.conversationId)).toBe(false);
    expect((await search(globex, 'q=refund')).body.results).toEqual([]);
  });

  it('pages with ?limit= and ?cursor=, every hit once; a cursor of another company or query is 400', async () => {
    for (let i = 1; i <= 5; i++) await customerSays(acme, `invoice-${i}`, `Where is invoice number ${i}?`);
    await settled();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body }: Awaited<ReturnType<typeof search>> = await search(acme, `q=invoice&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(status).toBe(200);
      expect(body.results.length).toBeLessThanOrEqual(2);
      seen.push(...body.results.map((r) => r.snippet.text));
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([5, 4, 3, 2, 1].map((i) => `Where is invoice number ${i}?`));
    expect(pages).toBe(3);

    const first = (await search(acme, 'q=invoice&limit=2')).body.nextCursor!;
    for (const [co, q] of [[globex, 'invoice'], [acme, 'refund']] as const) {
      const res = await search(co, `q=${q}&cursor=${encodeURIComponent(first)}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/cursor/) } });
    }
  });

  it('takes any text as words: query syntax, quotes and SQL never cause an error', async () => {
    const queries = ['"', '""norway', 'ship*', '*', 'NEAR(ship norway)', 'NEAR(', 'text:ship', ':', '(((', ')', 'ship AND', 'OR', 'NOT norway', '-ship', '^ship', "'; DROP TABLE search; --", '{text}: ship', '\\', '😀', 'ß', 'x'.repeat(200)];
    for (const q of queries) {
      const res = await search(acme, `q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(Array.isArray(res.body.results), q).toBe(true);
    }
    // Syntax characters are ignored, the words in between still count; an operator name is just a word.
    expect((await search(acme, `q=${encodeURIComponent('("ship" norway*)')}`)).body.results).toHaveLength(2);
    expect((await search(acme, `q=${encodeURIComponent('NEAR(ship norway)')}`)).body.results).toEqual([]);
    expect((await search(acme, `q=${encodeURIComponent('*')}`)).body.results).toEqual([]);
  });

  it('refuses an empty, blank, missing or over-long q with 400 VALIDATION_ERROR naming it', async () => {
    for (const query of ['q=', 'q=%20%20%20', '', `q=${'a'.repeat(201)}`]) {
      const res = await search(acme, query);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^querystring\.q/) } });
    }
    expect((await search(acme, 'q=norway&limit=0')).status).toBe(400);
    expect((await search(acme, 'q=norway&limit=51')).status).toBe(400);
    expect((await search(acme, 'q=norway&limit=50')).status).toBe(200);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(Object.keys(doc.paths['/api/search'])).toEqual(['get']);
    expect(doc.paths['/api/search'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['cursor', 'limit', 'q']);
  });

  it('needs a bearer token', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/search?q=norway' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
  });

  it('gives the same results after the read models are rebuilt from the events', async () => {
    const before = await Promise.all(['q=norway', 'q=invoice&limit=3', 'q=lovelace'].map((q) => search(acme, q)));
    const result = await rebuildProjections({ eventStore: server.adapters.eventStore, readStore: server.adapters.readStore, projections: allProjections, logger: silentLogger });
    expect(result.generation).toBeGreaterThan(1);
    const after = await Promise.all(['q=norway', 'q=invoice&limit=3', 'q=lovelace'].map((q) => search(acme, q)));
    expect(after.map((r) => r.body.results)).toEqual(before.map((r) => r.body.results));
    expect(after[0]!.body.results.length).toBe(2);
  });
});
