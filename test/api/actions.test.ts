import { createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, createAgent, signUp, type Company } from '../support/api.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/** /api/actions: a company's actions, defined and tested by owners and admins, read by every role. */

const SHOP_KEY = 'shop-key-5f1e9c2a7b3d4e6f8a0b1c2d3e4f5a6b';
const OTHER_KEY = 'shop-key-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d';

/** The company's own API: answers an order lookup, and echoes the key it got (as a careless API might). */
interface FakeShop {
  url: string;
  requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

async function startFakeShop(): Promise<FakeShop> {
  const requests: FakeShop['requests'] = [];
  const server: HttpServer = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such order"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'shipped', eta: '2025-01-03', internal: { warehouse: 'B7', margin: 0.31 }, seenKey: req.headers['x-shop-key'] ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let server: TestServer;
let shop: FakeShop;
let acme: Company;
let globex: Company;
const logLines: string[] = [];

beforeAll(async () => {
  shop = await startFakeShop();
  const logs = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  // trace: every log line the service writes is captured and searched for the header values.
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LOG_LEVEL: 'trace' }, logs);
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => {
  await server?.close();
  await shop?.close();
});

const lookup = (overrides: Record<string, unknown> = {}) => ({
  name: 'lookup_order',
  description: 'Finds an order by its number',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string', pattern: '[0-9]{1,10}' }, customer: { type: 'string' } },
    required: ['order_id', 'customer'],
  },
  identity: { customer: 'platform.clientId' },
  method: 'GET',
  urlTemplate: `${shop.url}/orders/{order_id}`,
  headers: [{ name: 'X-Shop-Key', value: SHOP_KEY }],
  responseFields: ['status', 'eta'],
  mode: 'auto',
  sampleResponse: { status: 'shipped', eta: '2025-01-03' },
  ...overrides,
});

async function agentTokenOf(owner: Company): Promise<string> {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('actions-agent'), role: 'agent' });
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent', password: 'agent password' } });
  expect(accepted.statusCode).toBe(200);
  return accepted.json().session.access_token as string;
}

describe('defining actions', () => {
  it('given an owner, when an action is posted, then it is created with its defaults, headers by name only, and reads back the same', async () => {
    const res = await acme.call('POST', '/api/actions', lookup());
    expect(res.statusCode).toBe(201);
    const { action } = res.json();
    expect(action).toMatchObject({
      name: 'lookup_order',
      method: 'GET',
      identity: { customer: 'platform.clientId' },
      headers: [{ name: 'X-Shop-Key', valueSet: true }],
      timeoutMs: 10_000,
      maxResponseChars: 2000,
      mode: 'auto',
      approverRoles: null,
      active: true,
      sampleResponse: { status: 'shipped', eta: '2025-01-03' },
    });
    expect((await acme.call('GET', `/api/actions/${action.id}`)).json().action).toEqual(action);
    expect((await acme.call('GET', '/api/actions')).json()).toEqual({ actions: [action], nextCursor: null });
  });

  it('when PATCHed, then only the fields given change; a header named without a value keeps its value; DELETE removes it (then 404)', async () => {
    const { action } = (await acme.call('POST', '/api/actions', lookup({ name: 'cancel_order', method: 'POST', mode: 'confirm', urlTemplate: `${shop.url}/orders/{order_id}/cancel` }))).json();
    const patched = await acme.call('PATCH', `/api/actions/${action.id}`, { description: 'Cancels an order', timeoutMs: 3000, headers: [{ name: 'X-Shop-Key' }, { name: 'X-Trace', value: 'trace-value-1234' }] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().action).toMatchObject({ description: 'Cancels an order', timeoutMs: 3000, mode: 'confirm', active: true, headers: [{ name: 'X-Shop-Key', valueSet: true }, { name: 'X-Trace', valueSet: true }] });
    const approve = await acme.call('PATCH', `/api/actions/${action.id}`, { mode: 'approve', approverRoles: ['owner', 'admin'], holdingReply: 'A teammate will confirm shortly.', approvalTimeoutMinutes: 30 });
    expect(approve.json().action).toMatchObject({ mode: 'approve', approverRoles: ['owner', 'admin'], approvalTimeoutMinutes: 30, timeoutMs: 3000, description: 'Cancels an order' });
    expect((await acme.call('DELETE', `/api/actions/${action.id}`)).statusCode).toBe(204);
    expect((await acme.call('GET', `/api/actions/${action.id}`)).statusCode).toBe(404);
    expect((await acme.call('GET', '/api/actions')).json().actions.map((a: { name: string }) => a.name)).toEqual(['lookup_order']);
  });

  it('when only the address moves to another host, then 400 VALIDATION_ERROR asks for the header values again and the stored key is never sent there; given again, both change', async () => {
    const elsewhere = shop.url.replace('127.0.0.1', 'localhost');
    const { action } = (await acme.call('POST', '/api/actions', lookup({ name: 'moving_lookup' }))).json();
    const moved = await acme.call('PATCH', `/api/actions/${action.id}`, { urlTemplate: `${elsewhere}/orders/{order_id}` });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^headers: .*another host.*X-Shop-Key.*again/) });
    // Naming the header without its value is no answer either.
    expect((await acme.call('PATCH', `/api/actions/${action.id}`, { urlTemplate: `${elsewhere}/orders/{order_id}`, headers: [{ name: 'X-Shop-Key' }] })).statusCode).toBe(400);
    expect((await acme.call('GET', `/api/actions/${action.id}`)).json().action.urlTemplate).toBe(`${shop.url}/orders/{order_id}`);

    const before = shop.requests.length;
    const again = await acme.call('PATCH', `/api/actions/${action.id}`, { urlTemplate: `${elsewhere}/orders/{order_id}`, headers: [{ name: 'X-Shop-Key', value: OTHER_KEY }] });
    expect(again.statusCode).toBe(200);
    const tested = await acme.call('POST', `/api/actions/${action.id}/test`, { parameters: { order_id: '4411' }, identity: { 'platform.clientId': 'client-77' } });
    expect(tested.json().test.request.url).toBe(`${elsewhere}/orders/4411?customer=client-77`);
    expect(shop.requests.slice(before).map((r) => [r.headers.host, r.headers['x-shop-key']])).toEqual([[new URL(elsewhere).host, OTHER_KEY]]);
    expect((await acme.call('DELETE', `/api/actions/${action.id}`)).statusCode).toBe(204);
  });

  it('when the definition breaks the rules, then 400 VALIDATION_ERROR naming the field', async () => {
    const str = { type: 'string' };
    for (const [body, field] of [
      [lookup({ name: 'has spaces' }), 'name'],
      [lookup({ parameters: { type: 'object', properties: { order_id: { type: 'array' } }, required: [] }, identity: {} }), 'parameters'],
      [lookup({ parameters: { type: 'object', properties: { order_id: { ...str, format: 'email' } }, required: [] }, identity: {} }), 'parameters'],
      [lookup({ parameters: { type: 'object', properties: { order_id: str }, required: ['nope'] }, identity: {} }), 'parameters'],
      [lookup({ urlTemplate: `${shop.url}/orders/{order}` }), 'urlTemplate'],
      [lookup({ urlTemplate: 'https://{order_id}.shop.example/x' }), 'urlTemplate'],
      [lookup({ identity: { customer: 'platform.phone' } }), 'identity'],
      [lookup({ identity: { who: 'webchat.email' } }), 'identity'],
      [lookup({ holdingReply: 'Please wait' }), 'holdingReply'],
      [lookup({ headers: [{ name: 'Host', value: 'evil.example' }] }), 'headers'],
      [lookup({ timeoutMs: 120_000 }), 'timeoutMs'],
      [lookup({ sampleResponse: undefined }), 'sampleResponse'],
      [lookup({ secret: 'x' }), ''],
    ] as const) {
      const res = await acme.call('POST', '/api/actions', body);
      expect(res.statusCode, `${field}: ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining(field) });
    }
  });

  it('when a name is taken, then 409 CONFLICT; the 51st action is 409 QUOTA_EXCEEDED', async () => {
    const dup = await acme.call('POST', '/api/actions', lookup({ name: 'Lookup_Order' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('CONFLICT');
    const initech = await signUp(server, 'Initech');
    for (let i = 0; i < 50; i++) expect((await initech.call('POST', '/api/actions', lookup({ name: `action_${i}` }))).statusCode).toBe(201);
    const over = await initech.call('POST', '/api/actions', lookup({ name: 'one_more' }));
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('QUOTA_EXCEEDED');
  });

  it('the list pages by name with keyset cursors', async () => {
    const hooli = await signUp(server, 'Hooli');
    for (const name of ['charlie', 'alpha', 'bravo']) expect((await hooli.call('POST', '/api/actions', lookup({ name }))).statusCode).toBe(201);
    const first = (await hooli.call('GET', '/api/actions?limit=2')).json();
    expect(first.actions.map((a: { name: string }) => a.name)).toEqual(['alpha', 'bravo']);
    const second = (await hooli.call('GET', `/api/actions?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`)).json();
    expect(second).toMatchObject({ actions: [{ name: 'charlie' }], nextCursor: null });
    expect((await hooli.call('GET', '/api/actions?cursor=nonsense')).statusCode).toBe(400);
  });
});

describe('roles and tenants', () => {
  it('an agent reads actions (200) but may not create, change, delete or test one (403)', async () => {
    const agent = await agentTokenOf(acme);
    const { actions } = (await acme.call('GET', '/api/actions', undefined, agent)).json();
    expect(actions.length).toBeGreaterThan(0);
    const id = actions[0].id as string;
    expect((await acme.call('GET', `/api/actions/${id}`, undefined, agent)).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/api/actions', lookup({ name: 'agent_made' })],
      ['PATCH', `/api/actions/${id}`, { description: 'changed' }],
      ['DELETE', `/api/actions/${id}`],
      ['POST', `/api/actions/${id}/test`, {}],
    ] as const) {
      const res = await acme.call(method, url, body, agent);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
  });

  it("another company's action is 404 on every route, test call included, and not in their list", async () => {
    const { actions } = (await acme.call('GET', '/api/actions')).json();
    const id = actions[0].id as string;
    for (const [method, url, body] of [
      ['GET', `/api/actions/${id}`],
      ['PATCH', `/api/actions/${id}`, { description: 'hijack' }],
      ['DELETE', `/api/actions/${id}`],
      ['POST', `/api/actions/${id}/test`, { identity: { 'platform.clientId': 'c1' } }],
      ['GET', '/api/actions/not-a-uuid'],
    ] as const) {
      const res = await globex.call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await globex.call('GET', '/api/actions')).json().actions).toEqual([]);
    // The same name is free in another company.
    expect((await globex.call('POST', '/api/actions', lookup({ headers: [{ name: 'X-Shop-Key', value: OTHER_KEY }] }))).statusCode).toBe(201);
  });
});

describe('testing an action', () => {
  it('given sample parameters and a tester-given identity, then the real endpoint is called once and the raw and mapped responses come back, without the key', async () => {
    const { actions } = (await acme.call('GET', '/api/actions')).json();
    const id = actions.find((a: { name: string }) => a.name === 'lookup_order').id as string;
    const before = shop.requests.length;
    const res = await acme.call('POST', `/api/actions/${id}/test`, { parameters: { order_id: '4411' }, identity: { 'platform.clientId': 'client-77' } });
    expect(res.statusCode).toBe(200);
    const { test } = res.json();
    expect(test).toMatchObject({ ok: true, status: 200, error: null, request: { method: 'GET', parameters: { order_id: '4411', customer: 'client-77' } } });
    expect(test.request.url).toBe(`${shop.url}/orders/4411?customer=client-77`);
    expect(JSON.parse(test.mapped)).toEqual({ status: 'shipped', eta: '2025-01-03' });
    expect(JSON.parse(test.raw)).toMatchObject({ status: 'shipped', internal: { warehouse: 'B7' }, seenKey: '[hidden]' });
    expect(test.durationMs).toBeGreaterThanOrEqual(0);
    expect(shop.requests.length).toBe(before + 1);
    const sent = shop.requests.at(-1)!;
    expect(sent.headers['x-shop-key']).toBe(SHOP_KEY);
    expect(sent.headers['idempotency-key']).toMatch(/^test-/);
    expect(res.body).not.toContain(SHOP_KEY);
  });

  it('without parameters, a sample is built from the schema; an identity the tester leaves out, or a bad argument, is 400 before any call', async () => {
    const { action } = (await acme.call('POST', '/api/actions', lookup({
      name: 'order_count',
      parameters: { type: 'object', properties: { status: { type: 'string', enum: ['open', 'closed'] }, limit: { type: 'integer', minimum: 5 } }, required: ['status', 'limit'] },
      identity: {},
      urlTemplate: `${shop.url}/orders`,
      responseFields: [],
    }))).json();
    const sampled = (await acme.call('POST', `/api/actions/${action.id}/test`, {})).json().test;
    expect(sampled.request.parameters).toEqual({ status: 'open', limit: 5 });
    expect(shop.requests.at(-1)!.url).toBe('/orders?status=open&limit=5');
    const lookupId = (await acme.call('GET', '/api/actions')).json().actions.find((a: { name: string }) => a.name === 'lookup_order').id as string;
    const before = shop.requests.length;
    for (const body of [{ parameters: { order_id: '4411' } }, { parameters: { order_id: 'abc' }, identity: { 'platform.clientId': 'c' } }, { parameters: { order_id: '1', customer: 'forged' }, identity: { 'platform.clientId': 'c' } }]) {
      const res = await acme.call('POST', `/api/actions/${lookupId}/test`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect(shop.requests.length).toBe(before);
  });

  it('when the endpoint fails, then the test says so in plain words, with the status', async () => {
    const { action } = (await acme.call('POST', '/api/actions', lookup({ name: 'missing_one', urlTemplate: `${shop.url}/missing/{order_id}` }))).json();
    const { test } = (await acme.call('POST', `/api/actions/${action.id}/test`, { parameters: { order_id: '1' }, identity: { 'platform.clientId': 'c' } })).json();
    expect(test).toMatchObject({ ok: false, status: 404, raw: null, mapped: null, error: 'the endpoint answered 404' });
  });
});

describe('secrets', () => {
  it('header values appear in no response, no read model document, no stored event in plain text and no log line', async () => {
    const responses = [(await acme.call('GET', '/api/actions')).body, (await globex.call('GET', '/api/actions')).body];
    for (const { id } of (await acme.call('GET', '/api/actions')).json().actions) responses.push((await acme.call('GET', `/api/actions/${id}`)).body);
    const docs = await server.adapters.readStore.find('actions', { limit: 500 });
    const events = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['ActionCreated', 'ActionUpdated', 'ActionDeleted'] } });
    expect(events.length).toBeGreaterThan(0);
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [SHOP_KEY, OTHER_KEY, 'trace-value-1234']) {
      for (const text of [...responses, JSON.stringify(docs.items), JSON.stringify(events.map((e) => e.data)), logs]) expect(text).not.toContain(secret);
    }
    // Stored sealed, so the caller can still open them.
    expect(JSON.stringify(events.map((e) => e.data))).toContain('"sealedValue":"v1:');
  });
});

describe('the outbound guard at save', () => {
  let strict: TestServer;
  let co: Company;
  beforeAll(async () => {
    strict = await startTestServer({ NODE_ENV: 'production', ALLOW_PRIVATE_PLATFORM_URLS: 'false' });
    co = await signUp(strict, 'Strict');
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('refuses loopback, private, link-local and plain-http addresses on create and on edit', async () => {
    for (const urlTemplate of ['https://127.0.0.1/orders/{order_id}', 'https://10.1.2.3/orders/{order_id}', 'https://[::1]/o/{order_id}', 'https://169.254.169.254/latest/{order_id}', 'http://shop.example.com/orders/{order_id}']) {
      const res = await co.call('POST', '/api/actions', lookup({ urlTemplate }));
      expect(res.statusCode, urlTemplate).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('urlTemplate') });
    }
    const ok = await co.call('POST', '/api/actions', lookup({ urlTemplate: 'https://shop.example.com/orders/{order_id}' }));
    expect(ok.statusCode).toBe(201);
    expect((await co.call('PATCH', `/api/actions/${ok.json().action.id}`, { urlTemplate: 'https://192.168.0.10/orders/{order_id}' })).statusCode).toBe(400);
  });
});

describe("an agent's actions", () => {
  it('given the company\'s actions, when an agent lists them, then it shows them in order; another company\'s action, an unknown or a deleted one is 400', async () => {
    const agentId = await createAgent(acme);
    const mine = (await acme.call('GET', '/api/actions')).json().actions.map((a: { id: string }) => a.id) as string[];
    const theirs = (await globex.call('GET', '/api/actions')).json().actions[0].id as string;
    const patched = await acme.call('PATCH', `/api/agents/${agentId}`, { actionIds: [mine[1], mine[0]] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().agent.actionIds).toEqual([mine[1], mine[0]]);
    expect((await acme.call('GET', `/api/agents/${agentId}`)).json().agent.actionIds).toEqual([mine[1], mine[0]]);
    const listed = (await acme.call('GET', '/api/agents')).json().agents.find((a: { id: string }) => a.id === agentId);
    expect(listed.actionIds).toEqual([mine[1], mine[0]]);
    const { action: gone } = (await acme.call('POST', '/api/actions', lookup({ name: 'soon_gone' }))).json();
    expect((await acme.call('DELETE', `/api/actions/${gone.id}`)).statusCode).toBe(204);
    for (const actionIds of [[theirs], [mine[0], '00000000-0000-4000-8000-000000000000'], [gone.id], [mine[0], mine[0]]]) {
      const res = await acme.call('PATCH', `/api/agents/${agentId}`, { actionIds });
      expect(res.statusCode, JSON.stringify(actionIds)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('actionIds') });
    }
    expect((await acme.call('GET', `/api/agents/${agentId}`)).json().agent.actionIds).toEqual([mine[1], mine[0]]);
    expect((await acme.call('POST', '/api/agents', { name: 'With actions', actionIds: [theirs] })).statusCode).toBe(400);
    const withActions = await acme.call('POST', '/api/agents', { name: 'With actions', actionIds: [mine[0]] });
    expect(withActions.statusCode).toBe(201);
    expect(withActions.json().agent.actionIds).toEqual([mine[0]]);
  });
});

describe("a draft version's actions", () => {
  it('given a draft with actions, then the version lists them and customers keep the published ones until it is published; another company\'s action is 400', async () => {
    const agentId = await createAgent(acme);
    const mine = (await acme.call('GET', '/api/actions')).json().actions[0].id as string;
    const theirs = (await globex.call('GET', '/api/actions')).json().actions[0].id as string;
    const refused = await acme.call('POST', `/api/agents/${agentId}/versions`, { actionIds: [theirs] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toContain('actionIds');
    const draft = await acme.call('POST', `/api/agents/${agentId}/versions`, { actionIds: [mine] });
    expect(draft.statusCode).toBe(201);
    expect(draft.json().version).toMatchObject({ version: 2, changed: ['actionIds'], config: { actionIds: [mine] }, published: false });
    expect((await acme.call('GET', `/api/agents/${agentId}`)).json().agent.actionIds).toEqual([]);
    expect((await acme.call('POST', `/api/agents/${agentId}/versions/2/publish`, {})).statusCode).toBe(200);
    expect((await acme.call('GET', `/api/agents/${agentId}`)).json().agent.actionIds).toEqual([mine]);
  });
});

describe('OpenAPI', () => {
  it('/docs/json documents every actions route', async () => {
    const doc = (await server.app.inject('/docs/json')).json();
    for (const [path, methods] of [
      ['/api/actions', ['get', 'post']],
      ['/api/actions/{id}', ['get', 'patch', 'delete']],
      ['/api/actions/{id}/test', ['post']],
    ] as const) {
      for (const method of methods) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });
});
