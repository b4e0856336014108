import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
// TEMPORARY: '../support/testServer.js' once the lead wired the feature routes into src/server.ts.
import { startTestServer } from '../support/testServer.js';
import type { TestServer } from '../support/testServer.js';

const API_KEY = 'sk-test-8f3a1c9d2b7e4f60a5d1c3b9e7f2a4d6';
const WRONG_KEY = 'sk-wrong-0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b';

let server: TestServer;
let fake: FakeLlm;
let acme: Awaited<ReturnType<typeof signUp>>;
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startFakeLlm({ apiKey: API_KEY });
  const logs = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  // trace: every log line the service can write is captured and searched for the key.
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LOG_LEVEL: 'trace' }, logs);
  acme = await signUp(server, 'Acme');
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const openaiConfig = () => ({ provider: 'openai', baseUrl: fake.url, model: 'gpt-4o-mini', apiKey: API_KEY });

describe('GET /api/llm-config', () => {
  it('a new company uses the builtin provider', async () => {
    const res = await acme.call('GET', '/api/llm-config');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ llmConfig: { provider: 'builtin', baseUrl: null, model: null, hasApiKey: false } });
  });

  it('401 without a token', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/llm-config' })).statusCode).toBe(401);
  });
});

describe('PUT /api/llm-config', () => {
  it('stores an OpenAI-compatible configuration; the key is write-only (hasApiKey)', async () => {
    const res = await acme.call('PUT', '/api/llm-config', openaiConfig());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ llmConfig: { provider: 'openai', baseUrl: fake.url, model: 'gpt-4o-mini', hasApiKey: true } });
    expect(res.body).not.toContain(API_KEY);
    const got = await acme.call('GET', '/api/llm-config');
    expect(got.json()).toEqual(res.json());
    expect(got.body).not.toContain(API_KEY);
  });

  it('an omitted apiKey keeps the stored key; null removes it', async () => {
    const company = await signUp(server, 'KeyKeeper');
    await company.call('PUT', '/api/llm-config', openaiConfig());
    const kept = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: fake.url, model: 'llama3.2' });
    expect(kept.json().llmConfig).toEqual({ provider: 'openai', baseUrl: fake.url, model: 'llama3.2', hasApiKey: true });
    // The kept key still works.
    expect((await company.call('POST', '/api/llm-config/test')).statusCode).toBe(200);
    const cleared = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: fake.url, model: 'llama3.2', apiKey: null });
    expect(cleared.json().llmConfig.hasApiKey).toBe(false);
    const builtin = await company.call('PUT', '/api/llm-config', { provider: 'builtin' });
    expect(builtin.json()).toEqual({ llmConfig: { provider: 'builtin', baseUrl: null, model: null, hasApiKey: false } });
  });

  it('a baseUrl on another host without the key is 400 VALIDATION_ERROR: the stored key is never sent to a new address; with the key (or null) it is saved', async () => {
    const company = await signUp(server, 'KeyMover');
    await company.call('PUT', '/api/llm-config', openaiConfig());
    const elsewhere = fake.url.replace('127.0.0.1', 'localhost');
    const moved = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: elsewhere, model: 'gpt-4o-mini' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^apiKey: .*another host.*again/) });
    expect((await company.call('GET', '/api/llm-config')).json().llmConfig).toMatchObject({ baseUrl: fake.url, hasApiKey: true });
    const again = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: elsewhere, model: 'gpt-4o-mini', apiKey: API_KEY });
    expect(again.json().llmConfig).toEqual({ provider: 'openai', baseUrl: elsewhere, model: 'gpt-4o-mini', hasApiKey: true });
  });

  const bad: [string, unknown][] = [
    ['openai without baseUrl', { provider: 'openai', model: 'gpt-4o-mini' }],
    ['openai without model', { provider: 'openai', baseUrl: 'https://api.openai.com/v1' }],
    ['a baseUrl that is not http(s)', { provider: 'openai', baseUrl: 'ftp://example.com/v1', model: 'm' }],
    ['a baseUrl that is not a URL', { provider: 'openai', baseUrl: 'api.openai.com', model: 'm' }],
    ['credentials in the baseUrl', { provider: 'openai', baseUrl: 'https://u:p@api.openai.com/v1', model: 'm' }],
    ['the cloud metadata address', { provider: 'openai', baseUrl: 'http://169.254.169.254/v1', model: 'm' }],
    ['an unknown provider', { provider: 'anthropic' }],
    ['no provider', { model: 'gpt-4o-mini' }],
    ['an unknown field', { provider: 'builtin', hasApiKey: true }],
    ['an apiKey that is not a string', { provider: 'builtin', apiKey: 42 }],
  ];
  it.each(bad)('400 VALIDATION_ERROR for %s', async (_label, body) => {
    const res = await acme.call('PUT', '/api/llm-config', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it('a company only ever sees and changes its own configuration', async () => {
    const other = await signUp(server, 'Other');
    expect((await other.call('GET', '/api/llm-config')).json().llmConfig).toEqual({ provider: 'builtin', baseUrl: null, model: null, hasApiKey: false });
    await other.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: 'https://llm.example.com/v1', model: 'other-model' });
    expect((await acme.call('GET', '/api/llm-config')).json().llmConfig).toEqual({ provider: 'openai', baseUrl: fake.url, model: 'gpt-4o-mini', hasApiKey: true });
  });
});

describe('POST /api/llm-config/test', () => {
  it('200 {ok, model, latencyMs} against an OpenAI-compatible server, sending the stored key', async () => {
    const company = await signUp(server, 'Tester');
    await company.call('PUT', '/api/llm-config', openaiConfig());
    fake.reset();
    const res = await company.call('POST', '/api/llm-config/test');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ ok: true, model: 'gpt-4o-mini', latencyMs: expect.any(Number) });
    expect(body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(fake.requests.at(-1)?.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('502 LLM_ERROR for a wrong key, without the key in the message (the server echoes it back)', async () => {
    const company = await signUp(server, 'WrongKey');
    await company.call('PUT', '/api/llm-config', { ...openaiConfig(), apiKey: WRONG_KEY });
    const res = await company.call('POST', '/api/llm-config/test');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: { code: 'LLM_ERROR', message: expect.any(String) } });
    expect(res.body).not.toContain(WRONG_KEY);
    expect(res.body).not.toContain(WRONG_KEY.slice(3, 20));
  });

  it('tests unsaved settings from the body without saving them', async () => {
    const company = await signUp(server, 'Unsaved');
    const ok = await company.call('POST', '/api/llm-config/test', openaiConfig());
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ ok: true, model: 'gpt-4o-mini' });
    const wrong = await company.call('POST', '/api/llm-config/test', { ...openaiConfig(), apiKey: WRONG_KEY });
    expect(wrong.statusCode).toBe(502);
    expect(wrong.body).not.toContain(WRONG_KEY);
    expect((await company.call('GET', '/api/llm-config')).json().llmConfig.provider).toBe('builtin');
  });

  it('an omitted apiKey uses the saved key only against the saved baseUrl', async () => {
    const company = await signUp(server, 'Redirect');
    await company.call('PUT', '/api/llm-config', openaiConfig());
    const other = await startFakeLlm();
    try {
      expect((await company.call('POST', '/api/llm-config/test', { provider: 'openai', baseUrl: fake.url, model: 'gpt-4o-mini' })).statusCode).toBe(200);
      const res = await company.call('POST', '/api/llm-config/test', { provider: 'openai', baseUrl: other.url, model: 'gpt-4o-mini' });
      expect(res.statusCode).toBe(200);
      expect(other.requests.map((r) => r.authorization)).not.toContain(`Bearer ${API_KEY}`);
    } finally {
      await other.close();
    }
  });

  it('502 LLM_ERROR when the server cannot be reached', async () => {
    const res = await acme.call('POST', '/api/llm-config/test', { provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKey: API_KEY });
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('LLM_ERROR');
    expect(res.body).not.toContain(API_KEY);
  });

  it('the builtin provider always passes', async () => {
    const company = await signUp(server, 'Builtin');
    const res = await company.call('POST', '/api/llm-config/test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, model: 'builtin', latencyMs: expect.any(Number) });
  });
});

describe('the API key never leaves in plain text', () => {
  it('not in the event store (sealed in LlmConfigured), the SQLite files, or any log line', async () => {
    const events = await server.adapters.eventStore.readAll();
    const configured = events.filter((e) => e.type === 'LlmConfigured');
    expect(configured.length).toBeGreaterThan(0);
    const raw = JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    for (const key of [API_KEY, WRONG_KEY]) expect(raw).not.toContain(key);
    expect(configured.some((e) => typeof (e.data as { apiKey: unknown }).apiKey === 'string' && (e.data as { apiKey: string }).apiKey.startsWith('v1:'))).toBe(true);

    for (const file of readdirSync(server.dataDir)) {
      const bytes = readFileSync(join(server.dataDir, file));
      for (const key of [API_KEY, WRONG_KEY]) expect(bytes.includes(Buffer.from(key)), `${file} holds the key`).toBe(false);
    }

    expect(logLines.length).toBeGreaterThan(0);
    const log = logLines.join('');
    for (const key of [API_KEY, WRONG_KEY]) expect(log).not.toContain(key);
  });
});

describe('base URL address policy', () => {
  it('refuses loopback and private addresses unless ALLOW_PRIVATE_PLATFORM_URLS is set', async () => {
    const strict = await startTestServer();
    try {
      const company = await signUp(strict, 'Strict');
      for (const baseUrl of ['http://127.0.0.1:11434/v1', 'http://10.0.0.5/v1', 'http://localhost:8000/v1']) {
        const res = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl, model: 'm' });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('baseUrl') });
      }
      const ok = await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' });
      expect(ok.statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
