import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, signUp, type Company } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

let server: TestServer;
let acme: Company;
let globex: Company;

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => {
  await server?.close();
});

describe('canned replies', () => {
  it('POST creates one (a leading "/" and capitals in the shortcut are normalised); GET reads it back', async () => {
    const res = await acme.call('POST', '/api/canned-replies', { shortcut: '/Greeting', title: 'Greeting', text: 'Hi! How can we help?' });
    expect(res.statusCode).toBe(201);
    const { cannedReply } = res.json();
    expect(cannedReply).toMatchObject({ shortcut: 'greeting', title: 'Greeting', text: 'Hi! How can we help?' });
    expect((await acme.call('GET', `/api/canned-replies/${cannedReply.id}`)).json().cannedReply).toEqual(cannedReply);
  });

  it('a duplicate shortcut is 409 CONFLICT, on create and on rename', async () => {
    const dup = await acme.call('POST', '/api/canned-replies', { shortcut: 'greeting', title: 'Other', text: 'Other' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toEqual({ code: 'CONFLICT', message: expect.stringContaining('/greeting') });
    const other = (await acme.call('POST', '/api/canned-replies', { shortcut: 'thanks', title: 'Thanks', text: 'Thank you!' })).json().cannedReply;
    const rename = await acme.call('PATCH', `/api/canned-replies/${other.id}`, { shortcut: 'greeting' });
    expect(rename.statusCode).toBe(409);
    const ok = await acme.call('PATCH', `/api/canned-replies/${other.id}`, { text: 'Thanks a lot!' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().cannedReply).toMatchObject({ shortcut: 'thanks', text: 'Thanks a lot!' });
  });

  it('bad input is 400 VALIDATION_ERROR naming the field', async () => {
    for (const [body, field] of [
      [{ shortcut: 'two words', title: 't', text: 't' }, 'shortcut'],
      [{ shortcut: 'ok1', title: '', text: 't' }, 'title'],
      [{ shortcut: 'ok2', title: 't', text: 'x'.repeat(4001) }, 'text'],
      [{ shortcut: 'ok3', title: 't' }, 'text'],
      [{ shortcut: 'ok4', title: 't', text: 't', extra: 1 }, ''],
    ] as const) {
      const res = await acme.call('POST', '/api/canned-replies', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
  });

  it('the list pages by shortcut with keyset cursors', async () => {
    await acme.call('POST', '/api/canned-replies', { shortcut: 'address', title: 'Address', text: 'Storgata 1, Oslo' });
    const first = await acme.call('GET', '/api/canned-replies?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().cannedReplies.map((r: { shortcut: string }) => r.shortcut)).toEqual(['address', 'greeting']);
    const second = await acme.call('GET', `/api/canned-replies?limit=2&cursor=${encodeURIComponent(first.json().nextCursor)}`);
    expect(second.json()).toMatchObject({ cannedReplies: [{ shortcut: 'thanks' }], nextCursor: null });
    expect((await acme.call('GET', '/api/canned-replies?cursor=nonsense')).statusCode).toBe(400);
  });

  it("another company sees none of them and gets 404 on each, and may use the same shortcut", async () => {
    const mine = (await acme.call('GET', '/api/canned-replies')).json().cannedReplies[0];
    expect((await globex.call('GET', '/api/canned-replies')).json().cannedReplies).toEqual([]);
    for (const [method, body] of [['GET'], ['PATCH', { text: 'hijack' }], ['DELETE']] as const) {
      const res = await globex.call(method, `/api/canned-replies/${mine.id}`, body);
      expect(res.statusCode, method).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await globex.call('POST', '/api/canned-replies', { shortcut: mine.shortcut, title: 'x', text: 'y' })).statusCode).toBe(201);
  });

  it('DELETE removes one and frees its shortcut', async () => {
    const mine = (await acme.call('GET', '/api/canned-replies')).json().cannedReplies.find((r: { shortcut: string }) => r.shortcut === 'address');
    expect((await acme.call('DELETE', `/api/canned-replies/${mine.id}`)).statusCode).toBe(204);
    expect((await acme.call('GET', `/api/canned-replies/${mine.id}`)).statusCode).toBe(404);
    expect((await acme.call('POST', '/api/canned-replies', { shortcut: 'address', title: 'Address', text: 'New' })).statusCode).toBe(201);
  });

  it('a company keeps at most 200: the next is 409 QUOTA_EXCEEDED', async () => {
    const initech = await signUp(server, 'Initech');
    for (let i = 0; i < 200; i++) {
      const res = await initech.call('POST', '/api/canned-replies', { shortcut: `r${i}`, title: `R${i}`, text: 'x' });
      expect(res.statusCode).toBe(201);
    }
    const over = await initech.call('POST', '/api/canned-replies', { shortcut: 'one-more', title: 'More', text: 'x' });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('QUOTA_EXCEEDED');
  });
});

describe('racing creates', () => {
  it('ten concurrent POSTs of one shortcut over HTTP: exactly one 201, nine 409, one reply stored', async () => {
    const base = await server.listen(0, '127.0.0.1');
    const hooli = await signUp(server, 'Hooli');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${base}/api/canned-replies`, {
          method: 'POST',
          headers: { authorization: `Bearer ${hooli.bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ shortcut: 'refund', title: `Refund ${i}`, text: `Refund text ${i}` }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'CONFLICT')).toBe(true);
    const list = (await hooli.call('GET', '/api/canned-replies')).json().cannedReplies;
    expect(list).toHaveLength(1);
    expect(list[0].title).toBe(results.find((r) => r.status === 201)!.body.cannedReply.title);
  });
});

describe('OpenAPI', () => {
  it('/docs/json documents the customer, canned-reply and knowledge-file routes', async () => {
    const doc = (await server.app.inject('/docs/json')).json();
    for (const [path, methods] of [
      ['/api/customers/{id}', ['get']],
      ['/api/customers/{id}/note', ['put']],
      ['/api/customers/{id}/tags', ['put']],
      ['/api/customers/{id}/conversations', ['get']],
      ['/api/canned-replies', ['get', 'post']],
      ['/api/canned-replies/{id}', ['get', 'patch', 'delete']],
      ['/api/knowledge-base/files', ['post']],
    ] as const) {
      for (const method of methods) expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    expect(doc.paths['/api/conversations/{id}'].get.responses['200'].content['application/json'].schema.properties.conversation.properties.customerId).toBeDefined();
  });
});
