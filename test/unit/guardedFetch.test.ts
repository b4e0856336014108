import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLlmResolver } from '../../src/infrastructure/llm/llmForCompany.js';
import { createOpenAiLlm } from '../../src/infrastructure/llm/openaiLlm.js';
import { createSecretBox } from '../../src/infrastructure/crypto/secretBox.js';
import { createGuardedFetch } from '../../src/infrastructure/net/guardedFetch.js';
import { createGuardedPost } from '../../src/infrastructure/net/guardedPost.js';
import { createWebhookSender, SIGNATURE_REUSE_MS } from '../../src/infrastructure/outboundWebhooks/webhookSender.js';
import { Webhook } from 'standardwebhooks';
import { ALLOW_PRIVATE_HINT, isSsrfRefusal, type Resolver } from '../../src/infrastructure/net/ssrfGuard.js';
import { LlmError } from '../../src/ports/llm.js';
import { randomBytes } from 'node:crypto';

/**
 * The guarded fetch the LLM client uses (SSRF): names are checked after resolution, on the address that
 * would be dialled; redirects are returned, never followed. A resolver is injected so a name can "resolve"
 * to any address offline; the servers really listen on 127.0.0.1.
 */

const API_KEY = 'sk-guard-test-0f9e8d7c6b5a49382716';
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const hits: { method: string; url: string; authorization: string | undefined; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      handler(req, res);
    });
  });
  let connections = 0;
  server.on('connection', () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const handle = {
    hits,
    port,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(handle);
  return handle;
}

/** Resolves every name to the given addresses, counting the questions. */
function resolverTo(...addresses: string[]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { asked });
}

const ok = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');

describe('createGuardedFetch', () => {
  it('refuses a name that resolves to loopback before connecting: the server gets nothing', async () => {
    const target = await listen(ok);
    const resolver = resolverTo('127.0.0.1');
    const guarded = createGuardedFetch({ allowPrivate: false, requireHttps: false, resolver });
    const err = await guarded(`http://llm.example.test:${target.port}/v1/models`).catch((e: unknown) => e);
    expect(isSsrfRefusal(err)).toBe(true);
    // Which address, or which kind, the name resolves to is not said: an admin could map internal names with it.
    expect((err as Error).message).toMatch(/^llm\.example\.test resolves to an address that is not allowed \(private, loopback, link-local or reserved\)/);
    expect((err as Error).message).not.toContain('127.0.0.1');
    expect(resolver.asked).toEqual(['llm.example.test']);
    expect(target.hits).toEqual([]);
  });

  it.each([
    ['an IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv6 loopback', '::1'],
    ['a private address', '10.1.2.3'],
    ['link-local / metadata', '169.254.169.254'],
    ['unspecified', '0.0.0.0'],
    ['multicast', '224.0.0.1'],
    ['one bad address among good ones', '93.184.216.34'],
  ])('refuses a name resolving to %s', async (label, address) => {
    const target = await listen(ok);
    const addresses = label.startsWith('one bad') ? [address, '127.0.0.1'] : [address];
    const guarded = createGuardedFetch({ allowPrivate: false, requireHttps: false, resolver: resolverTo(...addresses) });
    const err = await guarded(`http://llm.example.test:${target.port}/`).catch((e: unknown) => e);
    expect(isSsrfRefusal(err)).toBe(true);
    expect(target.hits).toEqual([]);
  });

  it('refuses literal loopback/private URLs and local names without any DNS question', async () => {
    const resolver = resolverTo('93.184.216.34');
    const guarded = createGuardedFetch({ allowPrivate: false, requireHttps: false, resolver });
    for (const url of ['http://127.0.0.1:1/', 'http://[::1]:1/', 'http://2130706433/', 'http://localhost:1/', 'http://[::ffff:7f00:1]/']) {
      const err = await guarded(url).catch((e: unknown) => e);
      expect(isSsrfRefusal(err), url).toBe(true);
    }
    expect(resolver.asked).toEqual([]);
  });

  it('requireHttps refuses http', async () => {
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: true });
    const err = await guarded('http://llm.example.com/v1').catch((e: unknown) => e);
    expect(isSsrfRefusal(err)).toBe(true);
    expect((err as Error).message).toMatch(/https is required/);
  });

  it('with private addresses allowed it connects, sending method, headers and body, and returns status, headers and body', async () => {
    const target = await listen((_req, res) => res.writeHead(201, { 'content-type': 'application/json', 'x-test': 'yes' }).end('{"made":1}'));
    const resolver = resolverTo('127.0.0.1');
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: false, resolver });
    const res = await guarded(`http://llm.example.test:${target.port}/v1/things?x=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-test')).toBe('yes');
    expect(await res.json()).toEqual({ made: 1 });
    expect(target.hits).toEqual([{ method: 'POST', url: '/v1/things?x=1', authorization: `Bearer ${API_KEY}`, body: '{"a":1}' }]);
    expect(resolver.asked).toEqual(['llm.example.test']);
  });

  it('never follows a redirect: the 3xx comes back without its body and the target gets nothing', async () => {
    const inside = await listen(ok);
    const redirector = await listen((_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${inside.port}/secret`, 'content-type': 'text/html' }).end('<a href="/secret">moved</a>'),
    );
    // allowPrivate so the redirector itself may be reached: not following is what is under test.
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: false });
    for (const redirect of [undefined, 'follow', 'manual'] as const) {
      const res = await guarded(`http://127.0.0.1:${redirector.port}/v1/models`, redirect ? { redirect } : {});
      expect(res.status).toBe(302);
      expect(await res.text()).toBe('');
    }
    expect(redirector.hits).toHaveLength(3);
    expect(inside.hits).toEqual([]);
  });

  it('aborts through the signal', async () => {
    const slow = await listen((_req, res) => setTimeout(() => res.end('late'), 2_000));
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: false });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const err = await guarded(`http://127.0.0.1:${slow.port}/`, { signal: controller.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('abandons a response over the size limit', async () => {
    const big = await listen((_req, res) => res.end('x'.repeat(10_000)));
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: false, maxResponseBytes: 1_000 });
    await expect(guarded(`http://127.0.0.1:${big.port}/`)).rejects.toThrow(/exceeds 1000 bytes/);
  });

  it('hands an event stream on as it arrives, still capped in total and cut by the signal', async () => {
    const sse = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      const timer = setInterval(() => res.write(`data: ${'x'.repeat(400)}\n\n`), 30);
      res.on('close', () => clearInterval(timer));
    });
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: false, maxResponseBytes: 1_000 });
    const res = await guarded(`http://127.0.0.1:${sse.port}/`);
    const reader = res.body!.getReader();
    // The first event is readable while the server is still writing.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    await expect((async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })()).rejects.toThrow(/exceeds 1000 bytes/);

    const controller = new AbortController();
    const cut = await createGuardedFetch({ allowPrivate: true, requireHttps: false })(`http://127.0.0.1:${sse.port}/`, { signal: controller.signal });
    const cutReader = cut.body!.getReader();
    await cutReader.read();
    controller.abort();
    await expect((async () => {
      for (;;) if ((await cutReader.read()).done) return 'ended';
    })()).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('createGuardedPost (webhook deliveries): the same guard without fetch', () => {
  const post = (options: { allowPrivate: boolean; requireHttps?: boolean; resolver?: Resolver; maxResponseBytes?: number }) =>
    createGuardedPost({ requireHttps: false, maxResponseBytes: 64 * 1024, ...options });
  const request = { headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 2_000 };

  it('given a name that resolves to loopback, when it posts, then it is refused before connecting and the server gets nothing', async () => {
    const target = await listen(ok);
    const resolver = resolverTo('127.0.0.1');
    const err = await post({ allowPrivate: false, resolver })(`http://hooks.example.test:${target.port}/in`, request).catch((e: unknown) => e);
    expect(isSsrfRefusal(err)).toBe(true);
    expect((err as Error).message).toMatch(/^hooks\.example\.test resolves to an address that is not allowed \(private, loopback, link-local or reserved\)/);
    expect((err as Error).message).not.toContain('127.0.0.1');
    expect(resolver.asked).toEqual(['hooks.example.test']);
    expect(target.hits).toEqual([]);
  });

  it.each([
    ['an IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['a private address', ['10.1.2.3']],
    ['link-local / metadata', ['169.254.169.254']],
    ['one bad address among good ones', ['93.184.216.34', '127.0.0.1']],
  ])('given a name resolving to %s, when it posts, then it is refused, in the same words whatever the address', async (_label, addresses) => {
    const target = await listen(ok);
    const err = await post({ allowPrivate: false, resolver: resolverTo(...addresses) })(`http://hooks.example.test:${target.port}/`, request).catch((e: unknown) => e);
    expect(isSsrfRefusal(err)).toBe(true);
    expect((err as Error).message).toBe(`hooks.example.test resolves to an address that is not allowed (private, loopback, link-local or reserved); ${ALLOW_PRIVATE_HINT}`);
    expect(target.hits).toEqual([]);
  });

  it('given literal loopback/private URLs or local names, when it posts, then it refuses them without any DNS question; https is required when asked', async () => {
    const resolver = resolverTo('93.184.216.34');
    for (const url of ['http://127.0.0.1:1/', 'http://[::1]:1/', 'http://2130706433/', 'http://localhost:1/', 'http://[::ffff:7f00:1]/']) {
      expect(isSsrfRefusal(await post({ allowPrivate: false, resolver })(url, request).catch((e: unknown) => e)), url).toBe(true);
    }
    expect(resolver.asked).toEqual([]);
    const err = await post({ allowPrivate: true, requireHttps: true })('http://hooks.example.com/in', request).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/https is required/);
  });

  it('given private addresses allowed, when it posts twice, then headers and body arrive, the answer comes back, and the second reuses the connection', async () => {
    const target = await listen((_req, res) => res.writeHead(201, { 'content-type': 'text/plain' }).end('made'));
    const resolver = resolverTo('127.0.0.1');
    const guarded = post({ allowPrivate: true, resolver });
    const first = await guarded(`http://hooks.example.test:${target.port}/in?x=1`, { ...request, headers: { ...request.headers, authorization: 'Bearer t' } });
    const second = await guarded(`http://hooks.example.test:${target.port}/in?x=1`, request);
    expect([first.status, first.body.toString(), second.status]).toEqual([201, 'made', 201]);
    expect(target.hits[0]).toEqual({ method: 'POST', url: '/in?x=1', authorization: 'Bearer t', body: '{"a":1}' });
    expect(resolver.asked).toEqual(['hooks.example.test']); // one connection, checked once
  });

  it('given many deliveries in flight to one host, when they go out twice, then the second round reuses the sockets of the first', async () => {
    const target = await listen(ok);
    const guarded = post({ allowPrivate: true });
    const round = () => Promise.all(Array.from({ length: 60 }, () => guarded(`http://127.0.0.1:${target.port}/in`, request)));
    await round();
    const afterFirst = target.connections();
    await round();
    expect(target.hits).toHaveLength(120);
    expect(afterFirst).toBeGreaterThan(32); // more in flight at once than the platform client keeps idle
    expect(target.connections()).toBe(afterFirst);
  });

  it('given a redirect, when it posts, then the 3xx comes back without its body and the target gets nothing', async () => {
    const inside = await listen(ok);
    const redirector = await listen((_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${inside.port}/secret` }).end('<a>moved</a>'));
    const answer = await post({ allowPrivate: true })(`http://127.0.0.1:${redirector.port}/in`, request);
    expect(answer).toEqual({ status: 307, body: Buffer.alloc(0), cut: false, redirected: true });
    expect(inside.hits).toEqual([]);
  });

  it('given a server that never answers, when it posts, then it gives up at the timeout', async () => {
    const slow = await listen((_req, res) => setTimeout(() => res.end('late'), 2_000));
    const started = Date.now();
    const err = await post({ allowPrivate: true })(`http://127.0.0.1:${slow.port}/`, { ...request, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'TimeoutError', message: 'no answer within 50 ms' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('given a server that answers more than the cap (or never ends its body), when it posts, then the status comes back with the first bytes, without waiting for the rest', async () => {
    const big = await listen((_req, res) => res.writeHead(200).end('x'.repeat(10_000)));
    expect(await post({ allowPrivate: true, maxResponseBytes: 1_000 })(`http://127.0.0.1:${big.port}/`, request)).toEqual({ status: 200, body: Buffer.from('x'.repeat(1_000)), cut: true, redirected: false });
    const endless = await listen((_req, res) => res.writeHead(500).write('y'.repeat(2_000)));
    expect(await post({ allowPrivate: true, maxResponseBytes: 1_000 })(`http://127.0.0.1:${endless.port}/`, request)).toMatchObject({ status: 500, body: Buffer.from('y'.repeat(1_000)), cut: true });
    const exact = await listen((_req, res) => res.writeHead(200).end('z'.repeat(1_000)));
    expect(await post({ allowPrivate: true, maxResponseBytes: 1_000 })(`http://127.0.0.1:${exact.port}/`, request)).toMatchObject({ status: 200, cut: false });
  });
});

describe('the webhook sender: plain guarded POSTs, signed once per delivery', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const headersOf = (req: IncomingMessage) => Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));

  it('given an endpoint, when a delivery is sent and retried within the reuse window, then both verify with standardwebhooks and carry one signature; after the window it is signed again', async () => {
    const seen: { headers: Record<string, string>; body: string }[] = [];
    const receiver = await listen((req, res) => {
      seen.push({ headers: headersOf(req), body: receiver.hits.at(-1)!.body });
      res.writeHead(204).end();
    });
    const sender = createWebhookSender({ allowPrivate: true, requireHttps: false, timeoutMs: 2_000 });
    const body = JSON.stringify({ id: 'evt_1', type: 'message.received', data: {} });
    const at = new Date();
    const send = (timestamp: Date) => sender.send({ url: `http://127.0.0.1:${receiver.port}/in`, id: 'evt_1', timestamp, body, secrets: [secret] });
    expect(await send(at)).toMatchObject({ ok: true, httpStatus: 204 });
    expect(await send(new Date(at.getTime() + 5_000))).toMatchObject({ ok: true });
    expect(await send(new Date(at.getTime() + SIGNATURE_REUSE_MS + 1_000))).toMatchObject({ ok: true });
    const wh = new Webhook(secret);
    for (const s of seen.slice(0, 2)) expect(() => wh.verify(s.body, s.headers)).not.toThrow();
    expect(seen[1]!.headers['webhook-signature']).toBe(seen[0]!.headers['webhook-signature']);
    expect(seen[1]!.headers['webhook-timestamp']).toBe(seen[0]!.headers['webhook-timestamp']);
    expect(seen[2]!.headers['webhook-timestamp']).toBe(String(Math.floor((at.getTime() + SIGNATURE_REUSE_MS + 1_000) / 1000)));
    expect(seen[2]!.headers['webhook-signature']).toBe(wh.sign('evt_1', new Date(at.getTime() + SIGNATURE_REUSE_MS + 1_000), body));
  });

  it('given a URL whose name resolves to loopback, when a delivery is sent, then it fails as refused and nothing arrives', async () => {
    const target = await listen(ok);
    const sender = createWebhookSender({ allowPrivate: false, requireHttps: false, timeoutMs: 2_000, resolver: resolverTo('127.0.0.1') });
    const result = await sender.send({ url: `http://hooks.example.test:${target.port}/in`, id: 'evt_2', timestamp: new Date(), body: '{}', secrets: [secret] });
    expect(result).toMatchObject({ ok: false, httpStatus: null });
    expect(result.response).toMatch(/resolves to an address that is not allowed/);
    expect(result.response).not.toContain('127.0.0.1');
    expect(target.hits).toEqual([]);
  });
});

describe('the OpenAI-compatible client goes through the guard', () => {
  const messages = [{ role: 'user' as const, content: 'PROMPT-MARKER where is my order?' }];

  it('a base URL whose name resolves to loopback: no request reaches the server, an LlmError that names the reason and not the key', async () => {
    const target = await listen(ok);
    const llm = createOpenAiLlm({
      baseUrl: `http://llm.example.test:${target.port}/v1`,
      apiKey: API_KEY,
      maxRetries: 0,
      network: { allowPrivate: false, resolver: resolverTo('127.0.0.1') },
    });
    const err = await llm.complete({ model: 'gpt-4o-mini', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ kind: 'invalid_request', retryable: false });
    expect((err as LlmError).message).toMatch(/not allowed: .*loopback/);
    expect((err as LlmError).message).not.toContain('127.0.0.1');
    expect((err as LlmError).message).not.toContain(API_KEY);
    const test = await llm.testConnection({ model: 'gpt-4o-mini' });
    expect(test).toMatchObject({ ok: false, error: { kind: 'invalid_request' } });
    expect(target.hits).toEqual([]);
  });

  it('the default policy refuses private addresses (a client built without a policy is not open)', async () => {
    const target = await listen(ok);
    const llm = createOpenAiLlm({ baseUrl: `http://127.0.0.1:${target.port}/v1`, apiKey: API_KEY, maxRetries: 0 });
    await expect(llm.complete({ model: 'gpt-4o-mini', messages })).rejects.toMatchObject({ kind: 'invalid_request' });
    expect(target.hits).toEqual([]);
  });

  it('a public-looking name that redirects to loopback is not followed; the key and prompt never go there', async () => {
    const inside = await listen(ok);
    const redirector = await listen((req, res) => res.writeHead(307, { location: `http://127.0.0.1:${inside.port}${req.url}` }).end());
    // "llm.example.test" resolves to 127.0.0.1 but is allowed here, standing in for a public server.
    const llm = createOpenAiLlm({
      baseUrl: `http://llm.example.test:${redirector.port}/v1`,
      apiKey: API_KEY,
      maxRetries: 2,
      network: { allowPrivate: true, resolver: resolverTo('127.0.0.1') },
    });
    const err = await llm.complete({ model: 'gpt-4o-mini', messages }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'bad_response', retryable: false, status: 307 });
    expect((err as LlmError).message).toMatch(/HTTP 307, a redirect; redirects are not followed/);
    expect(redirector.hits).toHaveLength(1); // not retried either
    expect(inside.hits).toEqual([]);
  });

  it('the company resolver builds clients with the configured policy', async () => {
    const target = await listen(ok);
    const box = createSecretBox(randomBytes(32));
    const config = { provider: 'openai' as const, baseUrl: `http://llm.example.test:${target.port}/v1`, model: 'gpt-4o-mini', sealedApiKey: box.seal(API_KEY) };
    const strict = createLlmResolver({ secretBox: box, maxRetries: 0, network: { allowPrivate: false, resolver: resolverTo('127.0.0.1') } });
    await expect(strict(config).complete({ model: 'gpt-4o-mini', messages })).rejects.toMatchObject({ kind: 'invalid_request' });
    expect(target.hits).toEqual([]);
    const unconfigured = createLlmResolver({ secretBox: box, maxRetries: 0 });
    await expect(
      unconfigured({ ...config, baseUrl: `http://127.0.0.1:${target.port}/v1` }).complete({ model: 'gpt-4o-mini', messages }),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    expect(target.hits).toEqual([]);
  });
});
