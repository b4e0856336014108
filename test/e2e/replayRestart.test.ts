import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * A restart in the middle of a replay: the embedded bus loses its jobs, the running replay's jobs are published
 * again at start-up, and the replay resumes where it was — every turn answered and charged exactly once.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'mas-replay-restart-'));
let server: TestServer | undefined;
let llm: FakeLlm | undefined;
const env = { ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_MAX_RETRIES: '0', WORKER_COMPANY_CONCURRENCY: '1' };

afterAll(async () => {
  await server?.stop();
  await llm?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('resumes a running replay after a restart: each turn answered once', async () => {
  llm = await startFakeLlm({ reply: 'draft answer', delayMs: 150 });
  server = await startTestServer(env, undefined, { dataDir });
  const c = await signUp(server, 'Restart');
  expect((await c.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-r', model: 'gpt-4o-mini' })).statusCode).toBe(200);
  const turns = Array.from({ length: 8 }, (_, i) => ({ customer: [`question ${i}`], answer: { operator: `answer ${i}` } }));
  const conv = await seedConversation(server.adapters.eventStore, c.company.companyId, turns);
  const body = { draft: { systemPrompt: 'Draft.', temperature: 0, useKnowledgeBase: false }, conversationIds: [conv.conversationId] };
  const estimate = (await c.call('POST', '/api/replays/estimate', body)).json().estimate;
  const started = await c.call('POST', '/api/replays', { ...body, confirmedCostMicros: estimate.costMicros });
  expect(started.statusCode).toBe(201);
  const id = started.json().replay.id as string;
  const done = async (s: TestServer) => (await s.adapters.eventStore.readStream(`replay-${id}`)).filter((e) => e.type === 'ReplayAnswerRecorded').length;
  await expect.poll(() => done(server!), { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(2);
  await server.stop();
  const before = await (async () => {
    const s = await startTestServer(env, undefined, { dataDir });
    server = s;
    return s;
  })();
  expect(await done(before)).toBeLessThan(8);
  const login = await before.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: c.email, password: 'correct horse' } });
  const bearer = login.json().session.access_token as string;
  const get = () => before.app.inject({ method: 'GET', url: `/api/replays/${id}?limit=200`, headers: { authorization: `Bearer ${bearer}` } });
  await expect.poll(async () => (await get()).json().replay.status, { timeout: 20_000, interval: 100 }).toBe('completed');
  const result = (await get()).json();
  expect(result.replay.progress).toEqual({ done: 8, total: 8 });
  expect(result.answers.map((a: { turn: number }) => a.turn)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  const events = await before.adapters.eventStore.readStream(`replay-${id}`);
  expect(events.filter((e) => e.type === 'ReplayAnswerRecorded')).toHaveLength(8);
  const charges = (await before.adapters.eventStore.readStream(`credits-${c.company.companyId}`)).filter((e) => (e.data as { replayId?: string }).replayId === id);
  expect(charges).toHaveLength(8);
}, 60_000);
