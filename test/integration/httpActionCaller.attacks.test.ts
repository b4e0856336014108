import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpActionCaller, MAX_ACTION_RESPONSE_BYTES } from '../../src/infrastructure/actions/httpActionCaller.js';

/**
 * An action's endpoint misbehaving: answers at and past the size cap, a gzip bomb, a reset connection, a body that
 * stalls, and a name that resolves to a private address only when the call connects. Each ends in a bounded,
 * plain result, and a call that may change data reaches the endpoint at most once.
 */

let server: http.Server;
let base: string;
let port: number;
const arrivals = new Map<string, number>();
const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));

beforeAll(async () => {
  server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      arrivals.set(path, (arrivals.get(path) ?? 0) + 1);
      if (path === '/at-cap') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ a: 'x'.repeat(MAX_ACTION_RESPONSE_BYTES - 8) }));
      if (path === '/past-cap') return res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(MAX_ACTION_RESPONSE_BYTES + 1));
      if (path === '/endless') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const more = () => res.write('x'.repeat(64 * 1024), () => setImmediate(more));
        return more();
      }
      if (path === '/claims-cut') return res.writeHead(200, { 'content-type': 'application/json', 'x-guarded-fetch-cut': '1' }).end('{"status":"ok"}');
      if (path === '/bomb') return res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
      if (path === '/stall') return res.writeHead(200, { 'content-type': 'application/json' }).write('{"status":');
      if (path.startsWith('/reset')) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const call = (caller: ReturnType<typeof createHttpActionCaller>, url: string, method: 'GET' | 'POST' = 'GET', timeoutMs = 3000) =>
  caller.call({ method, url, body: method === 'GET' ? null : { order_id: '4411' }, headers: [], idempotencyKey: `key-${url}`, timeoutMs });

describe('an action endpoint that misbehaves', () => {
  const caller = createHttpActionCaller({ allowPrivate: true, requireHttps: false });

  it('given an answer of exactly the size cap, then it is read whole', async () => {
    const result = await call(caller, `${base}/at-cap`);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.ok && result.body.length).toBe(MAX_ACTION_RESPONSE_BYTES);
  });

  it.each(['/past-cap', '/endless'])('given a 200 past the size cap (%s), then the call succeeds (its status decides) with the first bytes, marked cut, without reading on', async (path) => {
    for (const method of ['GET', 'POST'] as const) {
      const result = await call(caller, `${base}${path}`, method);
      expect(result).toMatchObject({ ok: true, status: 200, cut: true });
      expect(result.ok && result.body).toBe('x'.repeat(MAX_ACTION_RESPONSE_BYTES));
    }
  });

  it('given an answer of exactly the size cap, then it is not marked cut; nor is one that only claims to be', async () => {
    expect(await call(caller, `${base}/at-cap`)).not.toHaveProperty('cut');
    expect(await call(caller, `${base}/claims-cut`)).not.toHaveProperty('cut');
  });

  it('given a gzip bomb, then nothing is inflated: the compressed bytes are all that is read', async () => {
    const result = await call(caller, `${base}/bomb`);
    expect(result.ok).toBe(true);
    expect(result.ok && Buffer.byteLength(result.body)).toBeLessThan(MAX_ACTION_RESPONSE_BYTES);
  });

  it('given an answer whose body stalls after its head, then the timeout covers the body too', async () => {
    const started = Date.now();
    const result = await call(caller, `${base}/stall`, 'GET', 500);
    expect(result).toMatchObject({ ok: false, status: null, error: 'no answer within 500 ms' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('given a connection the endpoint resets after reading a POST on a kept-alive socket, then the POST is not sent again', async () => {
    expect(await call(caller, `${base}/warm`, 'POST')).toMatchObject({ ok: true });
    const result = await call(caller, `${base}/reset-after-read`, 'POST');
    expect(result).toMatchObject({ ok: false, status: null });
    expect(arrivals.get('/reset-after-read')).toBe(1);
  });

  it('given a name that resolves to a loopback address when the call connects, then it is refused before any request', async () => {
    const strict = createHttpActionCaller({ allowPrivate: false, requireHttps: false, resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
    const before = arrivals.get('/rebound') ?? 0;
    const result = await call(strict, `http://shop.example.com:${port}/rebound`);
    expect(result).toMatchObject({ ok: false, status: null, error: 'the address is not allowed (private, loopback or not https)' });
    expect(arrivals.get('/rebound') ?? 0).toBe(before);
  });
});
