import { lookup } from 'node:dns/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { connectWebchat } from '../support/webchatClient.js';

/**
 * A company chooses its LLM base URL, so the LLM client must not become a way into the service's own
 * network (SSRF): names are checked after DNS resolution on every connection, redirects are never
 * followed, and an error never carries the foreign server's body — a loopback service answering
 * "404 <secret page>" must not have its page read back through POST /api/llm-config/test.
 */

const API_KEY = 'sk-ssrf-test-5b1e0c7d9a2f4e6b8c3d1a0f9e8d7c6b';
const SECRET_BODY = 'INTERNAL-ADMIN-PAGE-a4f1c9e2-do-not-leak';
const ORIGIN = 'http://shop.example';

/**
 * A public-looking name that resolves to a loopback address (DNS rebinding): the strict server resolves it
 * with an injected resolver, so the test needs no DNS and runs the same on every machine.
 */
const LOOPBACK_NAME = 'llm.rebind.example';
const rebindingResolver = async (name: string) =>
  name === LOOPBACK_NAME ? [{ address: '127.0.0.1', family: 4 }] : lookup(name, { all: true, verbatim: true });

const logLines: string[] = [];
const logs = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk));
    done();
  },
});

let strict: TestServer;
let lenient: TestServer;
let fake: FakeLlm;

beforeAll(async () => {
  fake = await startFakeLlm({ apiKey: API_KEY });
  strict = await startTestServer({ LOG_LEVEL: 'trace', LLM_MAX_RETRIES: '0', REPLY_BURST_WINDOW_MS: '50', LLM_RETRY_DELAYS_MS: '' }, logs, { dnsResolver: rebindingResolver });
  lenient = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LOG_LEVEL: 'trace', LLM_MAX_RETRIES: '0' }, logs);
});
afterAll(async () => {
  await strict?.close();
  await lenient?.close();
  await fake?.close();
});

/** A raw HTTP server on 127.0.0.1 that answers every request with `handler`, counting what reached it. */
async function rawServer(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const hits: string[] = [];
  const server: HttpServer = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    hits,
    port,
    url: `http://127.0.0.1:${port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('with private addresses disallowed (the default)', () => {
  it('a host name that resolves to loopback never reaches the loopback service (/test)', async () => {
    const company = await signUp(strict, 'Rebind');
    const baseUrl = fake.url.replace('127.0.0.1', LOOPBACK_NAME);
    const before = fake.requests.length;
    // The name passes the static check (it is not an address and not a local name)...
    const saved = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl, model: 'gpt-4o-mini', apiKey: API_KEY });
    expect(saved.statusCode).toBe(200);
    // ...but the connection is refused once the name resolves to 127.0.0.1.
    const res = await company.call('POST', '/api/llm-config/test');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: { code: 'LLM_ERROR', message: expect.stringMatching(/resolves to an address that is not allowed/) } });
    // Not which address: an admin could map the service's internal host names with it.
    expect(res.body).not.toContain('127.0.0.1');
    expect(res.body).not.toContain(API_KEY);
    expect(fake.requests.length).toBe(before);
  });

  it('the reply pipeline never sends the prompt or the key to it either; the message is left unanswered', async () => {
    const company = await signUp(strict, 'RebindReplies');
    const baseUrl = fake.url.replace('127.0.0.1', LOOPBACK_NAME);
    expect((await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl, model: 'gpt-4o-mini', apiKey: API_KEY })).statusCode).toBe(200);
    const agent = (await company.call('POST', '/api/agents', { name: 'Ava' })).json().agent;
    const integration = (
      await company.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', agentId: agent.id, allowedOrigins: [ORIGIN] })
    ).json().integration;
    const base = await strict.listen(0, '127.0.0.1');
    const before = fake.requests.length;
    const client = await connectWebchat(base, integration.id, { origin: ORIGIN });
    try {
      await client.hello();
      const ack = await client.message('Where is my parcel? PROMPT-MARKER', 'c1');
      expect(ack.type).toBe('ack');
      await expect
        .poll(
          async () => {
            const list = (await company.call('GET', '/api/conversations')).json().conversations;
            if (list.length === 0) return [];
            const events = await strict.adapters.eventStore.readStream(`conversation-${list[0].id}`);
            return events.filter((e) => e.type === 'MessagesUnanswered').map((e) => (e.data as { reason: string }).reason);
          },
          { timeout: 10_000, interval: 100 },
        )
        .toEqual([expect.stringMatching(/loopback/)]);
    } finally {
      await client.close();
    }
    expect(fake.requests.length).toBe(before);
    const stored = (await strict.adapters.eventStore.readAll()).map((e) => JSON.stringify(e.data)).join('\n');
    expect(stored).not.toContain(API_KEY);
    expect(stored).not.toContain(SECRET_BODY);
    expect(logLines.join('')).not.toContain(API_KEY);
  });
});

describe('with private addresses allowed (local LLMs)', () => {
  it('a redirect is never followed: the redirect target gets no request, and the key never goes there', async () => {
    const target = await rawServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}'));
    const redirector = await rawServer((req, res) => res.writeHead(302, { location: `http://127.0.0.1:${target.port}${req.url}` }).end());
    try {
      const company = await signUp(lenient, 'Redirected');
      const res = await company.call('POST', '/api/llm-config/test', { provider: 'openai', baseUrl: redirector.url, model: 'gpt-4o-mini', apiKey: API_KEY });
      expect(res.statusCode).toBe(502);
      expect(res.json()).toEqual({ error: { code: 'LLM_ERROR', message: expect.stringMatching(/302.*redirect/) } });
      expect(redirector.hits.length).toBe(1);
      expect(target.hits).toEqual([]);
    } finally {
      await redirector.close();
      await target.close();
    }
  });

  const foreignAnswers: [string, number, string, string][] = [
    ['a 404 page', 404, 'text/html', `<html><body>${SECRET_BODY}</body></html>`],
    ['a 400 OpenAI-style error', 400, 'application/json', JSON.stringify({ error: { message: SECRET_BODY, type: 'invalid_request_error' } })],
    ['a 500 error', 500, 'application/json', JSON.stringify({ error: { message: SECRET_BODY } })],
    ['a 401 that echoes the key', 401, 'application/json', JSON.stringify({ error: { message: `Incorrect API key provided: ${API_KEY} ${SECRET_BODY}` } })],
    ['a 200 that is not JSON', 200, 'text/plain', SECRET_BODY],
    ['a 200 JSON without choices', 200, 'application/json', JSON.stringify({ detail: SECRET_BODY })],
  ];
  for (const [label, status, type, body] of foreignAnswers) {
    it(`/test never shows the foreign body: ${label}`, async () => {
      const foreign = await rawServer((_req, res) => res.writeHead(status, { 'content-type': type }).end(body));
      try {
        const company = await signUp(lenient, `Foreign ${status}`);
        const res = await company.call('POST', '/api/llm-config/test', { provider: 'openai', baseUrl: foreign.url, model: 'gpt-4o-mini', apiKey: API_KEY });
        expect(res.statusCode).toBe(502);
        expect(res.json()).toEqual({ error: { code: 'LLM_ERROR', message: expect.any(String) } });
        expect(res.body).not.toContain(SECRET_BODY);
        expect(res.body).not.toContain(API_KEY);
        if (status !== 200) expect(res.json().error.message).toContain(`HTTP ${status}`);
        expect(foreign.hits.length).toBe(1);
      } finally {
        await foreign.close();
      }
    });
  }

  it('nothing of the foreign bodies or the key reached the logs', () => {
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(SECRET_BODY);
    expect(log).not.toContain(API_KEY);
  });
});
