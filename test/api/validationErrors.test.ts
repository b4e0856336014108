import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorResponse } from '../../src/http/errorHandler.js';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** A 400 names every field that is wrong, so a request is fixed in one round trip, not one field at a time. */
let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer();
  port = Number(new URL(await server.listen(0, '127.0.0.1')).port);
});
afterAll(async () => {
  await server?.close();
});

const register = (payload: unknown) =>
  server.app.inject({ method: 'POST', url: '/api/auth/register', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

describe('VALIDATION_ERROR messages', () => {
  it('given a body with three fields wrong, then the message names all three', async () => {
    const res = await register({ email: 'not-an-email', password: 1234, companyName: 'c'.repeat(201) });
    expect(res.statusCode).toBe(400);
    const { error } = res.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toMatch(/body\.email: /);
    expect(error.message).toMatch(/body\.password: /);
    expect(error.message).toMatch(/body\.companyName: /);
  });

  it('given an empty object, then every missing field is named once', async () => {
    const res = await register({});
    const { message } = (res.json() as { error: { message: string } }).error;
    expect(message.split('; ').map((m) => m.split(':')[0]).sort()).toEqual(['body.companyName', 'body.email', 'body.password']);
  });

  it('given one field wrong, then the message is that field alone (as before)', async () => {
    const res = await register({ email: 'a@example.com', password: 'correct horse', companyName: '' });
    expect((res.json() as { error: { message: string } }).error.message).toMatch(/^body\.companyName: [^;]+$/);
  });
});

/** What the spec says every error looks like, and nothing of fastify's own body (statusCode, error label, FST_ code). */
const specShaped = (code: string) => ({ error: { code, message: expect.any(String) } });
const expectNoFrameworkBody = (text: string) => expect(text).not.toMatch(/FST_|statusCode|"Bad Request"/);

/** Sends raw bytes over a socket and returns all the server answered before it closed the connection. */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (d) => (answer += String(d)));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

describe("framework errors answer the spec's {error:{code,message}}", () => {
  // Regression (issue 21, defect 9): a malformed %-escape answered fastify's own
  // {"error":"Bad Request","code":"FST_ERR_BAD_URL","message":"'/api/integrations/%E0%A4%A' is not a valid url component","statusCode":400}.
  it('a malformed %-escape in the path is 400 VALIDATION_ERROR, signed in or not', async () => {
    const acme = await signUp(server, 'Escapes');
    for (const url of ['/api/integrations/%E0%A4%A', '/api/conversations/%zz', '/api/knowledge-base/documents/%']) {
      const anonymous = await server.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(400);
      expect(anonymous.json(), url).toEqual(specShaped('VALIDATION_ERROR'));
      expectNoFrameworkBody(anonymous.body);
      const signedIn = await acme.call('GET', url);
      expect(signedIn.statusCode, url).toBe(400);
      expect(signedIn.json(), url).toEqual(specShaped('VALIDATION_ERROR'));
    }
  });

  it('a path parameter longer than the router takes (100 characters) matches no route: 404 NOT_FOUND', async () => {
    const res = await server.app.inject({ method: 'GET', url: `/api/conversations/${'a'.repeat(500)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(specShaped('NOT_FOUND'));
  });

  it('a Content-Type no route reads is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'nonsense']) {
      const res = await server.app.inject({ method: 'POST', url: '/api/auth/register', headers: { 'content-type': contentType }, payload: 'email=a@example.com' });
      expect(res.statusCode, contentType).toBe(415);
      expect(res.json(), contentType).toEqual(specShaped('UNSUPPORTED_MEDIA_TYPE'));
    }
  });

  it('a body that is not JSON is 400 VALIDATION_ERROR', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/api/auth/register', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(specShaped('VALIDATION_ERROR'));
  });

  it('a body nested 100,000 levels deep (under 1 MiB) is 400 VALIDATION_ERROR wherever it is put, stored JSON fields included, never a 500', async () => {
    const co = await signUp(server, 'Deep Co');
    const agentId = (await co.call('POST', '/api/agents', { name: 'Ava' })).json().agent.id as string;
    const arrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const objects = `${'{"a":'.repeat(60_000)}1${'}'.repeat(60_000)}`;
    const action = (sample: string) =>
      `{"name":"lookup","description":"d","parameters":{"type":"object","properties":{},"required":[]},"method":"GET","urlTemplate":"https://shop.example.com/o","mode":"auto","sampleResponse":${sample}}`;
    const testCase = (mocks: string) => `{"name":"a","turns":["x"],"expect":{},"actionMocks":${mocks}}`;
    for (const [method, url, body] of [
      ['POST', '/api/actions', action(arrays)],
      ['POST', '/api/actions', action(objects)],
      ['POST', `/api/agents/${agentId}/test-cases`, testCase(`{"lookup":${arrays}}`)],
      ['POST', `/api/agents/${agentId}/test-cases`, testCase(objects)],
      ['POST', '/api/agents', `{"name":${arrays}}`],
      ['PATCH', `/api/agents/${agentId}`, `{"systemPrompt":${objects}}`],
      ['POST', '/api/webhook-endpoints', `{"url":"https://crm.example.com/hooks","eventTypes":${arrays}}`],
      ['POST', '/api/auth/register', `{"email":${arrays}}`],
    ] as const) {
      const res = await server.app.inject({ method, url, headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' }, payload: body });
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 200)}`).toBe(400);
      expect(res.json(), url).toEqual(specShaped('VALIDATION_ERROR'));
    }
  });

  it('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE, whether its length is declared or it is sent chunked', async () => {
    const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024), companyName: 'Big' });
    const declared = await fetch(`http://127.0.0.1:${port}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual(specShaped('PAYLOAD_TOO_LARGE'));
    const chunked = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual(specShaped('PAYLOAD_TOO_LARGE'));
  });

  it('a request that is not HTTP is 400 BAD_REQUEST, and headers over the limit 431 HEADERS_TOO_LARGE, in the spec shape', async () => {
    const garbage = await rawExchange('HELLO THERE\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(garbage)).toEqual(specShaped('BAD_REQUEST'));
    expectNoFrameworkBody(garbage);
    const huge = await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(huge)).toEqual(specShaped('HEADERS_TOO_LARGE'));
  });

  it('a client too slow to send its request is 408 REQUEST_TIMEOUT in the spec shape (the raw answer, as the server writes it)', () => {
    const raw = clientErrorResponse(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))!;
    expect(raw).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(raw)).toEqual(specShaped('REQUEST_TIMEOUT'));
    expect(Number(/Content-Length: (\d+)/.exec(raw)![1])).toBe(Buffer.byteLength(raw.slice(raw.indexOf('\r\n\r\n') + 4)));
    expect(clientErrorResponse(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBeNull();
  });
});
