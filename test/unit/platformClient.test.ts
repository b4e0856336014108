import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/ports/logger.js';
import {
  createPlatformClient,
  PlatformError,
  WEBHOOK_EVENTS,
  type PlatformErrorKind,
} from '../../src/infrastructure/platform/platformClient.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';

const TOKEN = 'plt_0123456789abcdef';
const OUR_URL = 'https://agents.example.com/api/webhook/msgplatform/7';

let platform: FakePlatform;
const extra: FakePlatform[] = [];

beforeEach(async () => {
  platform = await startFakePlatform({ token: TOKEN });
});

afterEach(async () => {
  await platform.close();
  for (const p of extra.splice(0)) await p.close();
});

/** A client for the fake platform on 127.0.0.1, which only allowPrivate can reach. */
function localClient(overrides: Partial<Parameters<typeof createPlatformClient>[0]> = {}) {
  return createPlatformClient({ allowPrivate: true, requireHttps: false, ...overrides });
}

async function platformError(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a PlatformError, the call succeeded');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

function expectSafeMessage(err: PlatformError, ...secrets: string[]) {
  for (const s of secrets) expect(err.message).not.toContain(s);
}

function capturingLogger(lines: unknown[]): Logger {
  const log = (obj: object | string, msg?: string) => lines.push([obj, msg]);
  const logger: Logger = { debug: log, info: log, warn: log, error: log, child: () => logger };
  return logger;
}

describe('registerWebhook: idempotent, one registration per webhook URL', () => {
  it('creates the registration when the platform has none', async () => {
    const client = localClient();
    const r = await client.registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'Agents' });

    expect(r).toEqual({ webhookId: 1, created: true });
    expect(platform.webhooks).toEqual([{ id: 1, name: 'Agents', url: OUR_URL, events: [...WEBHOOK_EVENTS], status: 'active' }]);
    expect(platform.received.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/webhooks', 'POST /v1/webhooks']);
    expect(platform.received[1]!.body).toEqual({
      name: 'Agents',
      url: OUR_URL,
      events: ['inbox', 'outbox', 'close_dialog', 'close_request', 'dialog_transferred'],
    });
  });

  it('re-registering updates the same registration instead of adding a second', async () => {
    const client = localClient();
    await client.registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'Agents' });
    const again = await client.registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'Agents v2' });

    expect(again).toEqual({ webhookId: 1, created: false });
    expect(platform.webhooks).toHaveLength(1);
    expect(platform.webhooks[0]!.name).toBe('Agents v2');
    expect(platform.received.map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /v1/webhooks',
      'POST /v1/webhooks',
      'GET /v1/webhooks',
      'PUT /v1/webhooks/1',
    ]);
  });

  it('leaves other services\' registrations alone', async () => {
    const client = localClient();
    await client.registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: 'https://crm.example.com/hook', name: 'CRM' });
    const r = await client.registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'Agents' });
    expect(r.created).toBe(true);
    expect(platform.webhooks.map((w) => w.url)).toEqual(['https://crm.example.com/hook', OUR_URL]);
  });

  it('sends the raw token as Authorization (no Bearer) and JSON', async () => {
    await localClient().registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'Agents' });
    for (const req of platform.received) expect(req.headers.authorization).toBe(TOKEN);
    expect(platform.received[1]!.headers['content-type']).toBe('application/json');
  });

  it.each([
    ['a path prefix', '/api', ''],
    ['a path prefix with a trailing slash', '/api', '/'],
  ])('joins paths under %s', async (_label, basePath, suffix) => {
    const prefixed = await startFakePlatform({ token: TOKEN, basePath });
    extra.push(prefixed);
    const r = await localClient().registerWebhook({ apiUrl: `${prefixed.url}${suffix}`, apiToken: TOKEN, url: OUR_URL, name: 'A' });
    expect(r.created).toBe(true);
    expect(prefixed.received.map((q) => q.path)).toEqual(['/api/v1/webhooks', '/api/v1/webhooks']);
  });
});

describe('sendMessage: POST /v1/messages with the ids sent back as given', () => {
  it('numeric ids stay numbers in the body', async () => {
    const r = await localClient().sendMessage({
      apiUrl: platform.url,
      apiToken: TOKEN,
      clientId: 51_234_567,
      channelId: 31_337,
      transport: 'telegram',
      text: 'Yes, we ship to Berlin.',
    });
    expect(r).toEqual({ messageId: 1000 });
    expect(platform.messages()).toEqual([
      { client_id: 51_234_567, text: 'Yes, we ship to Berlin.', type: 'to_client', transport: 'telegram', channel_id: 31_337 },
    ]);
    expect(platform.received[0]).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(platform.received[0]!.headers.authorization).toBe(TOKEN);
  });

  it('string ids stay strings in the body', async () => {
    await localClient().sendMessage({
      apiUrl: platform.url,
      apiToken: TOKEN,
      clientId: '51234567',
      channelId: '31337',
      transport: 'whatsapp',
      text: 'Hi',
    });
    expect(platform.messages()[0]).toMatchObject({ client_id: '51234567', channel_id: '31337' });
  });

  it('waitForMessages resolves once the message arrives', async () => {
    const waiting = platform.waitForMessages(1, 2000);
    await localClient().sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' });
    expect(await waiting).toHaveLength(1);
  });
});

describe('failures are PlatformErrors that never echo the body, the token or the query', () => {
  it('a wrong token → refused 401', async () => {
    const err = await platformError(
      localClient().sendMessage({ apiUrl: platform.url, apiToken: 'wrong-token', clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('refused');
    expect(err.status).toBe(401);
    expect(err.message).toBe('platform answered 401 Unauthorized to POST /v1/messages');
    expectSafeMessage(err, 'invalid token', 'wrong-token', 'errors');
  });

  it.each([
    [500, 'refused'],
    [503, 'refused'],
    [404, 'refused'],
  ] as Array<[number, PlatformErrorKind]>)('status %i → %s, with the status kept', async (status, kind) => {
    platform.failNext(1, status, '{"status":"error","errors":{"detail":"db password is hunter2"}}');
    const err = await platformError(
      localClient().registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'A' }),
    );
    expect([err.kind, err.status]).toEqual([kind, status]);
    expectSafeMessage(err, 'hunter2', 'detail');
  });

  it('a 2xx answer with status "error" → refused', async () => {
    platform.failNext(1, 200, '{"status":"error","errors":{"client_id":"unknown client 42"}}');
    const err = await platformError(
      localClient().sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 42, channelId: 2, transport: 't', text: 'x' }),
    );
    expect([err.kind, err.status]).toEqual(['refused', 200]);
    expectSafeMessage(err, 'unknown client');
  });

  it('a 2xx answer that is not JSON → bad_response', async () => {
    platform.failNext(1, 200, '<html>maintenance: call +49 555 0100</html>');
    const err = await platformError(
      localClient().registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'A' }),
    );
    expect([err.kind, err.status]).toEqual(['bad_response', 200]);
    expectSafeMessage(err, 'maintenance', '555');
  });

  it('a 2xx answer without the envelope → bad_response', async () => {
    platform.failNext(1, 200, '{"ok":true}');
    const err = await platformError(
      localClient().sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('bad_response');
  });

  it('an answer over the size cap → bad_response', async () => {
    platform.failNext(1, 200, JSON.stringify({ status: 'success', data: 'x'.repeat(10_000) }));
    const err = await platformError(
      localClient({ maxResponseBytes: 1000 }).sendMessage({
        apiUrl: platform.url,
        apiToken: TOKEN,
        clientId: 1,
        channelId: 2,
        transport: 't',
        text: 'x',
      }),
    );
    expect(err.kind).toBe('bad_response');
    expect(err.message).toContain('exceeds 1000 bytes');
  });

  it('the apiUrl query is forwarded but never appears in the error', async () => {
    const apiUrl = `${platform.url}/?gateway_key=sekrit-query-value`;
    const err = await platformError(
      localClient().sendMessage({ apiUrl, apiToken: 'wrong', clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(platform.received[0]!.path).toBe('/v1/messages?gateway_key=sekrit-query-value');
    expectSafeMessage(err, 'sekrit', 'gateway_key');
  });

  it('an answer slower than timeoutMs → timeout (the production default is 5 s)', async () => {
    platform.delayMs = 2000;
    const started = Date.now();
    const err = await platformError(
      localClient({ timeoutMs: 150 }).sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('platform did not answer POST /v1/messages within 150 ms');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a redirect is not followed', async () => {
    const elsewhere = await startFakePlatform({ token: TOKEN });
    extra.push(elsewhere);
    platform.setRedirect(`${elsewhere.url}/v1/messages`, 307);
    const err = await platformError(
      localClient().sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect([err.kind, err.status]).toEqual(['bad_response', 307]);
    expect(err.message).toContain('redirects are not followed');
    expect(elsewhere.received).toEqual([]);
  });

  it('a closed port → unreachable', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const err = await platformError(
      localClient().sendMessage({ apiUrl: `http://127.0.0.1:${port}`, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe('platform unreachable for POST /v1/messages (ECONNREFUSED: nothing accepts connections at that address)');
  });

  it('a token that cannot be a header value → refused before any request', async () => {
    const err = await platformError(
      localClient().sendMessage({ apiUrl: platform.url, apiToken: 'abc\r\nX-Injected: 1', clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('refused');
    expect(platform.received).toEqual([]);
    const empty = await platformError(
      localClient().sendMessage({ apiUrl: platform.url, apiToken: '', clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(empty.kind).toBe('refused');
  });

  it('logs say what failed without the token', async () => {
    const lines: unknown[] = [];
    const client = localClient({ logger: capturingLogger(lines) });
    await client.sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' });
    await platformError(client.sendMessage({ apiUrl: platform.url, apiToken: `${TOKEN}-bad`, clientId: 1, channelId: 2, transport: 't', text: 'x' }));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});

describe('SSRF: private targets are blocked unless allowPrivate', () => {
  it('the fake platform on 127.0.0.1 is refused when allowPrivate=false, and never contacted', async () => {
    const client = createPlatformClient({ allowPrivate: false, requireHttps: false });
    const err = await platformError(client.registerWebhook({ apiUrl: platform.url, apiToken: TOKEN, url: OUR_URL, name: 'A' }));
    expect(err.kind).toBe('blocked');
    expect(platform.received).toEqual([]);
  });

  it('http is refused when https is required', async () => {
    const client = createPlatformClient({ allowPrivate: true, requireHttps: true });
    const err = await platformError(
      client.sendMessage({ apiUrl: platform.url, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain('https is required');
    expect(platform.received).toEqual([]);
  });

  it('a public-looking name that resolves to 127.0.0.1 is refused at connect time', async () => {
    const port = new URL(platform.url).port;
    const resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const client = createPlatformClient({ allowPrivate: false, requireHttps: false, resolver });
    const err = await platformError(
      client.sendMessage({ apiUrl: `http://platform.example.com:${port}`, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' }),
    );
    expect(err.kind).toBe('blocked');
    // Shown to an admin (register-webhook): the address the name resolves to is not.
    expect(err.message).toMatch(/platform\.example\.com resolves to an address that is not allowed/);
    expect(err.message).not.toContain('127.0.0.1');
    expect(platform.received).toEqual([]);
  });

  it('the same name connects through the guarded lookup when allowPrivate=true', async () => {
    const port = new URL(platform.url).port;
    const resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const client = createPlatformClient({ allowPrivate: true, requireHttps: false, resolver });
    await client.sendMessage({ apiUrl: `http://platform.example.com:${port}`, apiToken: TOKEN, clientId: 1, channelId: 2, transport: 't', text: 'x' });
    expect(platform.messages()).toHaveLength(1);
    expect(platform.received[0]!.headers.host).toBe(`platform.example.com:${port}`);
  });
});
