import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/http/app.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { testConfig } from '../support/testConfig.js';

function captureLogs() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

describe('HTTP shell', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('serves /healthz and /readyz, and /readyz is 503 when a dependency is down', async () => {
    let busUp = true;
    const { logger } = captureLogs();
    app = await buildApp({ config: testConfig(), logger, readiness: async () => ({ eventStore: true, bus: busUp }) });
    expect((await app.inject('/healthz')).json()).toEqual({ ok: true });
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true, checks: { eventStore: true, bus: true } });
    busUp = false;
    const notReady = await app.inject('/readyz');
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json().ok).toBe(false);
  });

  it('publishes an OpenAPI 3 document generated from the route schemas at /docs/json', async () => {
    const { logger } = captureLogs();
    app = await buildApp({ config: testConfig(), logger, readiness: async () => ({}) });
    const res = await app.inject('/docs/json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/healthz'].get.responses['200']).toBeDefined();
    expect((await app.inject('/docs')).statusCode).toBeLessThan(400);
  });

  it('answers an unknown route 404 NOT_FOUND in the error shape', async () => {
    const { logger } = captureLogs();
    app = await buildApp({ config: testConfig(), logger, readiness: async () => ({}) });
    const res = await app.inject('/api/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('answers an unexpected failure 500 INTERNAL_ERROR without leaking the stack, and logs it', async () => {
    const { logger, lines } = captureLogs();
    app = await buildApp({
      config: testConfig(),
      logger,
      readiness: async () => ({}),
      features: [
        async (f) => {
          f.get('/boom', async () => {
            throw new Error('database password is hunter2 at /srv/app.ts:12');
          });
        },
      ],
    });
    const res = await app.inject('/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('.ts');
    expect(lines.join('')).toContain('unhandled error');
  });

  it('keeps authorization headers, signatures and tokens out of log lines, and tags each line with the request id', async () => {
    const { logger, lines } = captureLogs();
    app = await buildApp({
      config: testConfig(),
      logger,
      readiness: async () => ({}),
      features: [
        async (f) => {
          f.post('/echo', async (req) => {
            req.log.info({ headers: req.headers, body: req.body }, 'got it');
            return { ok: true };
          });
        },
      ],
    });
    const res = await app.inject({
      method: 'POST',
      url: '/echo?access_token=query-secret-1',
      headers: {
        authorization: 'Bearer very-secret-jwt',
        'x-webhook-signature': 'sha256=abcdef0123',
        'x-request-id': 'req-42',
      },
      payload: { password: 'p4ssw0rd!!', apiKey: 'sk-live-xyz', nested: { webhookSecret: 'whsec_123' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-42');
    const all = lines.join('');
    for (const secret of ['very-secret-jwt', 'abcdef0123', 'query-secret-1', 'p4ssw0rd!!', 'sk-live-xyz', 'whsec_123']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('"reqId":"req-42"');
  });

  it('reads an empty JSON body as no body, so body-less actions work from any client', async () => {
    const { logger } = captureLogs();
    app = await buildApp({
      config: testConfig(),
      logger,
      readiness: async () => ({}),
      features: [async (f) => void f.post('/action', async (req) => ({ body: req.body ?? null }))],
    });
    const res = await app.inject({ method: 'POST', url: '/action', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: null });
  });

  it('rejects malformed JSON and prototype-poisoning keys with 400 VALIDATION_ERROR', async () => {
    const { logger } = captureLogs();
    app = await buildApp({
      config: testConfig(),
      logger,
      readiness: async () => ({}),
      features: [async (f) => void f.post('/echo', async (req) => ({ got: req.body }))],
    });
    for (const payload of ['{"a":', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}']) {
      const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const big = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
