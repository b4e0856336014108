import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../src/domain/catalog.js';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import { validatingEventStore } from '../../src/infrastructure/validatingEventStore.js';
import { wireCompany } from '../support/faultFixtures.js';
import { startFakeCompanyApi, type FakeCompanyApi } from '../support/fakeCompanyApi.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { report } from '../support/storeCheck.js';

/**
 * SIGKILL between a recorded action-call attempt and its result (the company's API never answers the call), then a
 * restart on the same data directory. A call that may have reached the endpoint is never made again: the endpoint
 * got it once, the conversation records it as failed with the outcome unknown, and the customer is answered.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-action-'));
let platform: FakePlatform;
let llm: FakeLlm;
let api: FakeCompanyApi;
let proc: ServiceProcess | undefined;

afterAll(async () => {
  await proc?.kill('SIGKILL');
  await Promise.all([platform?.close(), llm?.close(), api?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

const openStore = () => validatingEventStore(new SqliteEventStore(join(dataDir, 'events.sqlite')), eventCatalog);

/** A slot booking (not idempotent) the agent may make, appended while the service is stopped. */
async function defineBooking(companyId: string, agentId: string) {
  const store = openStore();
  try {
    const actionId = randomUUID();
    const at = new Date().toISOString();
    const metadata = { companyId };
    const action = {
      actionId,
      companyId,
      name: 'book_slot',
      description: 'Books a delivery slot.',
      parameters: { type: 'object', properties: { day: { type: 'string' }, client_id: { type: 'string' } }, required: ['day', 'client_id'] },
      identity: { client_id: 'platform.clientId' },
      method: 'POST',
      urlTemplate: `${api.url}/slots`,
      timeoutMs: 30_000,
      responseFields: [],
      maxResponseChars: 2000,
      mode: 'auto',
      sampleResponse: { booked: true },
      approverRoles: null,
      holdingReply: 'Waiting for a teammate.',
      approvalTimeoutMinutes: 60,
      active: true,
      headers: [],
      by: 'user:test',
      at,
    };
    await store.append(`actions-${companyId}`, [{ id: randomUUID(), type: 'ActionCreated', data: action, metadata }], 'any');
    await store.append(`agent-${agentId}`, [{ id: randomUUID(), type: 'AgentUpdated', data: { changes: { actionIds: [actionId] }, at }, metadata }], 'any');
  } finally {
    await store.close();
  }
}

describe('fault: SIGKILL between an action call and its result, then a restart on the same data', () => {
  it('never calls the endpoint twice, records the outcome as unknown, and answers the customer', async () => {
    platform = await startFakePlatform({ token: 'tok-action' });
    api = await startFakeCompanyApi();
    llm = await startFakeLlm({
      reply: (body: ChatCompletionBody) => {
        const last = body.messages?.at(-1);
        if (last?.role === 'tool') return `About your booking: ${String(last.content)}`;
        return { content: null, toolCalls: [{ name: 'book_slot', arguments: '{"day":"Friday"}' }] };
      },
    });
    const port = await freePort();
    const env = { DATA_DIR: dataDir, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0' };
    proc = await startServiceProcess(env, port);
    const co = await wireCompany(proc.base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: llm.url });
    const companyId = (await co.call('GET', '/api/auth/me')).body.company.companyId as string;
    const agentId = (await co.call('GET', '/api/agents')).body.agents[0].id as string;
    await proc.kill('SIGTERM');
    await defineBooking(companyId, agentId);

    // Given the service calling a company API that never answers the first call
    api.hangNext(1);
    proc = await startServiceProcess(env, port);
    expect(await co.post({ clientId: 'c-1', messageId: 'book-1', text: 'Book me a slot on Friday' })).toBe(200);
    await expect.poll(() => api.requests.length, { timeout: 20_000, interval: 50 }).toBe(1);
    // When the service is killed while the call is in flight, and restarted
    await proc.kill('SIGKILL');
    proc = await startServiceProcess(env, port);

    // Then the customer is answered, and the endpoint was called once
    await expect.poll(() => platform.messages().filter((m) => m.client_id === 'c-1').length, { timeout: 30_000, interval: 100 }).toBe(1);
    await new Promise((r) => setTimeout(r, 1000)); // a repeated call would land now
    expect(api.requests).toHaveLength(1);
    await proc.kill('SIGTERM');

    const store = openStore();
    try {
      const all = await store.readAll();
      const calls = all.filter((e) => e.type.startsWith('ActionCall')).map((e) => ({ type: e.type, outcomeUnknown: (e.data as { outcomeUnknown?: boolean }).outcomeUnknown }));
      expect(calls).toEqual([
        { type: 'ActionCallRequested', outcomeUnknown: undefined },
        { type: 'ActionCallStarted', outcomeUnknown: undefined },
        { type: 'ActionCallFailed', outcomeUnknown: true },
      ]);
      const replies = all.filter((e) => e.type === 'AgentReplied');
      expect(replies).toHaveLength(1);
      expect((replies[0]!.data as { text: string }).text).toMatch(/^About your booking: The call failed/);
      expect(api.requests[0]!.headers['idempotency-key']).toBe((all.find((e) => e.type === 'ActionCallStarted')!.data as { callId: string }).callId);
      report('SIGKILL during an action call (endpoint never answered), restart: called once, recorded ActionCallFailed outcomeUnknown, customer answered once');
    } finally {
      await store.close();
    }
  }, 150_000);
});
