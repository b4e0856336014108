import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpActionCaller } from '../../src/infrastructure/actions/httpActionCaller.js';

let server: http.Server;
let base: string;
const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url?.startsWith('/slow')) return; // never answers
      if (req.url?.startsWith('/redirect')) return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      if (req.url?.startsWith('/fail')) return res.writeHead(503).end('down');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'shipped' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const request = (path: string, extra: Partial<Parameters<ReturnType<typeof createHttpActionCaller>['call']>[0]> = {}) => ({
  method: 'POST' as const,
  url: `${base}${path}`,
  body: { reason: 'late' },
  headers: [{ name: 'Authorization', value: 'Bearer sk-very-secret' }],
  idempotencyKey: 'call-1',
  timeoutMs: 2000,
  ...extra,
});

describe('an action call over HTTP', () => {
  const caller = createHttpActionCaller({ allowPrivate: true, requireHttps: false });

  it('sends the body, the headers and the idempotency key, and returns the answer', async () => {
    const result = await caller.call(request('/orders/1/cancel'));
    expect(result).toMatchObject({ ok: true, status: 200, body: '{"status":"shipped"}' });
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', url: '/orders/1/cancel', body: '{"reason":"late"}' });
    expect(last.headers).toMatchObject({ authorization: 'Bearer sk-very-secret', 'idempotency-key': 'call-1', 'content-type': 'application/json' });
  });

  it.each([
    ['/fail', 'the endpoint answered 503'],
    ['/redirect', 'the endpoint answered with a redirect, which is not followed'],
  ])('given %s, then it fails in plain words without the secret', async (path, error) => {
    const result = await caller.call(request(path));
    expect(result).toMatchObject({ ok: false, error });
    expect(JSON.stringify(result)).not.toContain('sk-very-secret');
  });

  it('given an endpoint that hangs, then it gives up at the timeout', async () => {
    const result = await caller.call(request('/slow', { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, status: null, error: 'no answer within 300 ms' });
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('given a loopback address without the private-address allowance, then it is refused before any connection', async () => {
    const strict = createHttpActionCaller({ allowPrivate: false, requireHttps: false });
    const before = seen.length;
    const result = await strict.call(request('/orders/1'));
    expect(result).toMatchObject({ ok: false, status: null, error: 'the address is not allowed (private, loopback or not https)' });
    expect(seen.length).toBe(before);
  });
});
