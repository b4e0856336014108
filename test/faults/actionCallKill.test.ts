import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import { eventCatalog } from '../../src/domain/catalog.js';
import { conversationStream } from '../../src/domain/conversations/decider.js';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import { encryptingEventStore } from '../../src/infrastructure/personalKeys/encryptingEventStore.js';
import { openSqlitePersonalDataKeys } from '../../src/infrastructure/personalKeys/sqlitePersonalDataKeys.js';
import { validatingEventStore } from '../../src/infrastructure/validatingEventStore.js';
import { wireCompany, type WiredCompany } from '../support/faultFixtures.js';
import { startFakeCompanyApi, type FakeCompanyApi } from '../support/fakeCompanyApi.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { report } from '../support/storeCheck.js';

/**
 * SIGKILL between a recorded action-call attempt and its result (the company's API never answers the call), then a
 * restart on the same data directory. A call that may have reached the endpoint is never made again: the endpoint
 * got it once, the conversation records it as failed with the outcome unknown, and the customer is answered. This
 * holds for a call the model makes at once (auto), one the customer confirmed (run by the reply job of their yes)
 * and one a teammate approved (run by its own resume job, which the embedded bus loses on a restart unless the
 * start-up sweep publishes it again).
 */
const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-action-'));
const env = { DATA_DIR: dataDir, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0' };
let platform: FakePlatform;
let llm: FakeLlm;
let api: FakeCompanyApi;
let proc: ServiceProcess | undefined;
let port: number;
let co: WiredCompany;

/** The model calls the action the customer's words name; once a result is in, it answers with it. */
const TOOL_OF: [RegExp, string, string][] = [
  [/^Book/, 'book_slot', '{"day":"Friday"}'],
  [/^Cancel/, 'cancel_order', '{"order_id":"4411"}'],
  [/^Refund/, 'refund_order', '{"order_id":"4412"}'],
];

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'tok-action' });
  api = await startFakeCompanyApi();
  llm = await startFakeLlm({
    reply: (body: ChatCompletionBody) => {
      const last = body.messages?.at(-1);
      if (last?.role === 'tool') return `About your request: ${String(last.content)}`;
      const tool = TOOL_OF.find(([words]) => words.test(String(last?.content ?? '')));
      return tool ? { content: null, toolCalls: [{ name: tool[1], arguments: tool[2] }] } : 'How can I help?';
    },
  });
  port = await freePort();
  proc = await startServiceProcess(env, port);
  co = await wireCompany(proc.base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: llm.url });
  const agentId = (await co.call('GET', '/api/agents')).body.agents[0].id as string;
  // Not idempotent, all three: a slot booking, an order cancellation the customer confirms, a refund a teammate approves.
  const actionIds = [
    await defineAction('book_slot', 'auto', 'slots', { day: { type: 'string' } }, ['day']),
    await defineAction('cancel_order', 'confirm', 'cancellations', { order_id: { type: 'string' } }, ['order_id']),
    await defineAction('refund_order', 'approve', 'refunds', { order_id: { type: 'string' } }, ['order_id']),
  ];
  expect((await co.call('PATCH', `/api/agents/${agentId}`, { actionIds })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await proc?.kill('SIGKILL');
  await Promise.all([platform?.close(), llm?.close(), api?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

async function defineAction(name: string, mode: string, path: string, properties: Record<string, unknown>, required: string[]): Promise<string> {
  const res = await co.call('POST', '/api/actions', {
    name,
    description: `Makes a ${name.replace('_', ' ')}.`,
    parameters: { type: 'object', properties: { ...properties, client_id: { type: 'string' } }, required: [...required, 'client_id'] },
    identity: { client_id: 'platform.clientId' },
    method: 'POST',
    urlTemplate: `${api.url}/${path}`,
    headers: [],
    timeoutMs: 30_000,
    mode,
    sampleResponse: { done: true },
    ...(mode === 'approve' ? { holdingReply: 'A teammate checks this first.' } : {}),
  });
  expect(res.status).toBe(201);
  return res.body.action.id as string;
}

const openStore = () => validatingEventStore(encryptingEventStore(new SqliteEventStore(join(dataDir, 'events.sqlite')), openSqlitePersonalDataKeys(join(dataDir, 'keys.sqlite'))), eventCatalog);
const sentTo = (clientId: string) => platform.messages().filter((m) => m.client_id === clientId);

/** Waits for the endpoint's request that hangs, kills the service in the middle of it, and starts it again. */
async function killDuringTheCall(requestsBefore: number) {
  await expect.poll(() => api.requests.length, { timeout: 20_000, interval: 50 }).toBe(requestsBefore + 1);
  await proc!.kill('SIGKILL');
  proc = await startServiceProcess(env, port);
}

/** What the conversation of `clientId` recorded, the service stopped (the store is read by this process alone). */
async function recorded(clientId: string) {
  await proc!.kill('SIGTERM');
  const store = openStore();
  try {
    const stream = conversationStream(conversationIdFor(co.integrationId, clientId));
    const all = (await store.readAll()).filter((e) => e.stream === stream);
    return {
      calls: all.filter((e) => e.type.startsWith('Action')).map((e) => ({ type: e.type, outcomeUnknown: (e.data as { outcomeUnknown?: boolean }).outcomeUnknown })),
      replies: all.filter((e) => e.type === 'AgentReplied').map((e) => (e.data as { text: string }).text),
      callId: (all.find((e) => e.type === 'ActionCallStarted')?.data as { callId: string } | undefined)?.callId,
    };
  } finally {
    await store.close();
    proc = await startServiceProcess(env, port);
  }
}

/**
 * After the restart: the customer of `clientId` has `messages` messages (once: none lands later), the endpoint got
 * the one call, and the conversation recorded these call events, the last a failure with the outcome unknown.
 */
async function answeredOnce(clientId: string, messages: number, requestsBefore: number, steps: string[]) {
  await expect.poll(() => sentTo(clientId).length, { timeout: 30_000, interval: 100 }).toBe(messages);
  await new Promise((r) => setTimeout(r, 1000)); // a repeated call or answer would land now
  expect(sentTo(clientId)).toHaveLength(messages);
  expect(api.requests).toHaveLength(requestsBefore + 1);
  const seen = await recorded(clientId);
  expect(seen.calls).toEqual([...steps, 'ActionCallStarted', 'ActionCallFailed'].map((type) => ({ type, outcomeUnknown: type === 'ActionCallFailed' ? true : undefined })));
  expect(api.requests[requestsBefore]!.headers['idempotency-key']).toBe(seen.callId);
  expect(seen.replies.at(-1)).toMatch(/^About your request: The call failed/);
  return seen.replies;
}

describe('fault: SIGKILL between an action call and its result, then a restart on the same data', () => {
  it('auto: never calls the endpoint twice, records the outcome as unknown, and answers the customer', async () => {
    // Given the service calling a company API that never answers the first call
    api.hangNext(1);
    const before = api.requests.length;
    expect(await co.post({ clientId: 'c-1', messageId: 'book-1', text: 'Book me a slot on Friday' })).toBe(200);
    // When the service is killed while the call is in flight, and restarted
    await killDuringTheCall(before);

    // Then the customer is answered, and the endpoint was called once
    expect(await answeredOnce('c-1', 1, before, ['ActionCallRequested'])).toHaveLength(1);
    report('SIGKILL during an action call (endpoint never answered), restart: called once, recorded ActionCallFailed outcomeUnknown, customer answered once');
  }, 150_000);

  it('confirm: a call the customer said yes to is resumed after the restart once, and never made twice', async () => {
    // Given a cancellation the customer was asked to confirm
    expect(await co.post({ clientId: 'c-2', messageId: 'cancel-1', text: 'Cancel order 4411' })).toBe(200);
    await expect.poll(() => sentTo('c-2').length, { timeout: 20_000, interval: 100 }).toBe(1);
    // When they say yes, the company API hangs on the call, and the service is killed and restarted
    api.hangNext(1);
    const before = api.requests.length;
    expect(await co.post({ clientId: 'c-2', messageId: 'cancel-2', text: 'yes' })).toBe(200);
    await killDuringTheCall(before);

    // Then the customer is told how it went, once, and the endpoint got the call once
    expect(await answeredOnce('c-2', 2, before, ['ActionCallRequested', 'ActionConfirmationAsked', 'ActionCallConfirmed'])).toHaveLength(2);
    report('SIGKILL during a confirmed action call, restart: resumed once, called once, customer answered once');
  }, 150_000);

  it('approve: a call a teammate approved is resumed after the restart once, and never made twice', async () => {
    // Given a refund waiting for a teammate (the customer got the holding reply)
    expect(await co.post({ clientId: 'c-3', messageId: 'refund-1', text: 'Refund order 4412' })).toBe(200);
    await expect.poll(() => sentTo('c-3').length, { timeout: 20_000, interval: 100 }).toBe(1);
    const conversationId = conversationIdFor(co.integrationId, 'c-3');
    // The read model may trail the holding reply's delivery: wait for it to show the call.
    const pendingOf = async () => (await co.call('GET', `/api/conversations/${conversationId}`)).body.conversation.pendingAction as { callId: string } | null;
    await expect.poll(pendingOf, { timeout: 20_000, interval: 100 }).not.toBeNull();
    const pending = (await pendingOf())!;
    // When a teammate approves it, the company API hangs on the call, and the service is killed and restarted
    api.hangNext(1);
    const before = api.requests.length;
    expect((await co.call('POST', `/api/conversations/${conversationId}/action-calls/${pending.callId}/approve`)).status).toBe(200);
    await killDuringTheCall(before);

    // Then the customer is told how it went, once, and the endpoint got the call once
    const replies = await answeredOnce('c-3', 2, before, ['ActionCallRequested', 'ActionApprovalRequested', 'ActionCallApproved']);
    expect(replies[0]).toBe('A teammate checks this first.');
    report('SIGKILL during an approved action call, restart: resumed once, called once, customer answered once');
  }, 150_000);
});
