import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_RESULTS_ARE_DATA } from '../../src/infrastructure/llm/openaiLlm.js';
import { ACTION_LIMITS, CONFIRMATION_WINDOW_MINUTES } from '../../src/domain/actions/definition.js';
import type { Company } from '../support/api.js';
import { startFakeCompanyApi, type FakeCompanyApi } from '../support/fakeCompanyApi.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { actionFixtures, callsThenAnswers, lastMessage, offered, type ModelBody } from '../support/actionFixtures.js';
import { seedConversation } from '../support/replayFixtures.js';
import { teammateBearer } from '../support/agentFixtures.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * The reply worker's action loop, end to end: a customer's question, the scripted model calling the company's
 * action, the company's API (a local fake) called through the outbound guard with the identity the service filled,
 * and the answer written from the result. Auto calls run at once; confirm calls ask the customer first and run on
 * an explicit yes only. Identity parameters set by the model, and arguments that break the schema, are refused
 * before any call. One answer makes at most ACTION_LIMITS.callsPerAnswer calls.
 */

let server: TestServer;
let llm: FakeLlm;
/** The service's clock runs this far ahead of the wall clock: a wait's deadline passes without waiting for it. */
let ahead = 0;
let api: FakeCompanyApi;

type Body = ModelBody;
const { companyWithActions, customerWrites, eventsOf, waitForReplies } = actionFixtures({ server: () => server, llm: () => llm, api: () => api });

beforeAll(async () => {
  llm = await startFakeLlm();
  api = await startFakeCompanyApi();
  server = await startTestServer(
    { ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0', LLM_RETRY_DELAYS_MS: '10', ACTION_EXPIRY_SWEEP_INTERVAL_MS: '100' },
    undefined,
    { clock: { now: () => new Date(Date.now() + ahead) } },
  );
});
afterAll(async () => {
  await server?.close();
  await llm?.close();
  await api?.close();
});
beforeEach(() => {
  ahead = 0;
  llm.reset();
  api.requests.length = 0;
  api.respond = () => ({ body: { status: 'shipped', eta: 'Friday', internal: 'warehouse 7' } });
});


describe('auto: a lookup the model calls', () => {
  it('given an order lookup, when the customer asks where order 4411 is, then the API is called once with the identity filled and the answer uses the result', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });

    const id = await customerWrites(integrationId, 'client-4411', 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(api.requests.map((r) => [r.method, r.url])).toEqual([['GET', '/orders/4411?client_id=client-4411']]);
    expect(reply!.data.text).toBe('From our systems: {"status":"shipped","eta":"Friday"}');
    // The model read the mapped response only, as a tool result, with the prompt saying results are data.
    const second = llm.completionRequests[1]!.body as Body;
    expect(JSON.stringify(second.messages)).toContain(TOOL_RESULTS_ARE_DATA);
    expect(JSON.stringify(second.messages)).not.toContain('warehouse 7');
    const events = await eventsOf(co, id);
    const types = events.map((e) => e.type).filter((t) => t.startsWith('ActionCall') || t === 'AgentReplied');
    expect(types).toEqual(['ActionCallRequested', 'ActionCallStarted', 'ActionCallSucceeded', 'AgentReplied']);
    const requested = events.find((e) => e.type === 'ActionCallRequested')!;
    expect(requested.data).toMatchObject({ actionName: 'lookup_order', mode: 'auto', arguments: { order_id: '4411', client_id: '[platform.clientId]' } });
    const started = events.find((e) => e.type === 'ActionCallStarted')!;
    expect(api.requests[0]!.headers['idempotency-key']).toBe(started.data.callId);
    // One reply, charged once for both model rounds.
    const usage = llm.completionRequests.length;
    expect(usage).toBe(2);
    expect(reply!.data.inputTokens).toBeGreaterThan(0);
  });
});

describe('a header value the endpoint echoes back', () => {
  const SHOP_KEY = 'shop-key-echo-7c1f0e9a2b4d';
  const storedEvents = (events: unknown) => JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  /** An order lookup sending X-Shop-Key, against an API that repeats the key it got (as a careless API might). */
  async function echoingLookup() {
    api.respond = (request) => ({ body: { status: `shipped (key ${String(request.headers['x-shop-key'])})`, eta: 'Friday' } });
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    return companyWithActions([{ name: 'lookup_order', headers: [{ name: 'X-Shop-Key', sealedValue: server.services.secretBox.seal(SHOP_KEY) }] } as never]);
  }

  it('given a customer reply that calls it, then the key is [hidden] in the event, the action log (read by the agent role), the prompt and the reply', async () => {
    const { co, integrationId } = await echoingLookup();

    const id = await customerWrites(integrationId, 'client-4411', 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(api.requests[0]!.headers['x-shop-key']).toBe(SHOP_KEY);
    expect(reply!.data.text).toBe('From our systems: {"status":"shipped (key [hidden])","eta":"Friday"}');
    const events = await eventsOf(co, id);
    expect(events.find((e) => e.type === 'ActionCallSucceeded')).toBeDefined();
    expect(JSON.stringify(events)).not.toContain(SHOP_KEY);
    expect(JSON.stringify(llm.completionRequests.map((r) => r.body))).not.toContain(SHOP_KEY);
    const agentRole = await teammateBearer(server, co, 'agent', 'Agent Role');
    await expect.poll(async () => (await co.call('GET', '/api/action-calls', undefined, agentRole)).json().calls.length).toBe(1);
    const log = await co.call('GET', '/api/action-calls', undefined, agentRole);
    expect(log.body).toContain('[hidden]');
    expect(log.body).not.toContain(SHOP_KEY);
    expect(storedEvents(await server.adapters.eventStore.readAll())).not.toContain(SHOP_KEY);
  });

  it('given an owner’s live playground session that calls it, then the answer and the action log show it [hidden]', async () => {
    const { co, agentId } = await echoingLookup();
    const sessionId = (await co.call('POST', `/api/agents/${agentId}/playground`, { actions: 'live' })).json().session.id as string;

    const asked = await co.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Where is order 4411?' });

    expect(asked.statusCode).toBe(200);
    expect(api.requests[0]!.headers['x-shop-key']).toBe(SHOP_KEY);
    expect(asked.json().turn.answer.text).toBe('From our systems: {"status":"shipped (key [hidden])","eta":"Friday"}');
    await expect.poll(async () => (await co.call('GET', '/api/action-calls')).json().calls.length).toBe(1);
    expect((await co.call('GET', '/api/action-calls')).body).not.toContain(SHOP_KEY);
    expect(storedEvents(await server.adapters.eventStore.readAll())).not.toContain(SHOP_KEY);
  });
});

describe('identity the model cannot forge', () => {
  it("given a prompt-injected model that sets the client id itself, when it calls, then the call is refused and another customer's data is never asked for", async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411', client_id: 'someone-else' });

    // The injected instruction reached the model some other way (a pasted text, a document): only its call is seen.
    const id = await customerWrites(integrationId, 'client-a', 'Where is order 4411?');
    await waitForReplies(co, id, 1);

    expect(api.requests).toEqual([]);
    const events = await eventsOf(co, id);
    expect(events.find((e) => e.type === 'ActionCallRejected')?.data.error).toBe('client_id is filled by the service and cannot be given');
    expect(JSON.stringify(events)).not.toContain('someone-else');
    expect(events.some((e) => e.type === 'ActionCallStarted')).toBe(false);
  });
});

describe('schema violations', () => {
  it('given an order number that is not a string, when the model calls, then it is refused before any call and the model is told why', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: 4411 });

    const id = await customerWrites(integrationId, 'client-b', 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(api.requests).toEqual([]);
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionCallRejected')?.data.error).toBe('order_id: must be a string');
    expect(reply!.data.text).toBe('From our systems: Not done: order_id: must be a string.');
  });
});

describe('calls per answer', () => {
  it('given a model that keeps calling, when it answers, then at most the cap is called and the last round offers no action', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = (body: Body) => (offered(body, 'lookup_order') ? { content: null, toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"4411"}' }] } : 'Here is what I found.');

    const id = await customerWrites(integrationId, 'client-c', 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(api.requests).toHaveLength(ACTION_LIMITS.callsPerAnswer);
    expect(reply!.data.text).toBe('Here is what I found.');
    expect(llm.completionRequests).toHaveLength(ACTION_LIMITS.callsPerAnswer + 1);
  });
});

describe('confirm: the customer says yes first', () => {
  const cancelOrder = { name: 'cancel_order', description: 'Cancels an order.', method: 'POST' as const, urlTemplate: `{base}/orders/{order_id}/cancel`, mode: 'confirm' as const, responseFields: ['status'] };

  it('given a cancel action, when the model calls it, then the customer is asked in a fixed sentence and nothing is called; a yes runs it once and the answer uses the result', async () => {
    const { co, integrationId } = await companyWithActions([{ ...cancelOrder, urlTemplate: `${api.url}/orders/{order_id}/cancel` }]);
    llm.reply = callsThenAnswers('cancel_order', { order_id: '4411' });
    api.respond = () => ({ body: { status: 'cancelled' } });

    const id = await customerWrites(integrationId, 'client-d', 'Please cancel order 4411');
    const [asked] = await waitForReplies(co, id, 1);
    expect(asked!.data.text).toBe('Cancel order (order id: 4411)? Reply yes to confirm.');
    expect(api.requests).toEqual([]);

    await customerWrites(integrationId, 'client-d', 'Yes please');
    const [, answered] = await waitForReplies(co, id, 2);

    expect(api.requests.map((r) => [r.method, r.url, r.body])).toEqual([['POST', '/orders/4411/cancel', { client_id: 'client-d' }]]);
    expect(answered!.data.text).toBe('From our systems: {"status":"cancelled"}');
    const types = (await eventsOf(co, id)).map((e) => e.type).filter((t) => t.startsWith('Action') || t === 'AgentReplied');
    expect(types).toEqual(['ActionCallRequested', 'AgentReplied', 'ActionConfirmationAsked', 'ActionCallConfirmed', 'ActionCallStarted', 'ActionCallSucceeded', 'AgentReplied']);
  });

  it('given a confirmation asked, when the customer says no, then nothing is called, the call is declined and the customer is answered', async () => {
    const { co, integrationId } = await companyWithActions([{ ...cancelOrder, urlTemplate: `${api.url}/orders/{order_id}/cancel` }]);
    llm.reply = callsThenAnswers('cancel_order', { order_id: '4411' });

    const id = await customerWrites(integrationId, 'client-e', 'Cancel order 4411');
    await waitForReplies(co, id, 1);
    llm.reply = (body: Body) => (lastMessage(body)?.role === 'tool' ? 'Alright, your order stays as it is.' : 'Something else?');
    await customerWrites(integrationId, 'client-e', 'no');
    const [, answered] = await waitForReplies(co, id, 2);

    expect(api.requests).toEqual([]);
    expect(answered!.data.text).toBe('Alright, your order stays as it is.');
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionCallDeclined')?.data.why).toBe('no');
  });

  it('given a confirmation asked, when the customer writes something else, then the call is declined and the message answered as usual', async () => {
    const { co, integrationId } = await companyWithActions([{ ...cancelOrder, urlTemplate: `${api.url}/orders/{order_id}/cancel` }]);
    llm.reply = callsThenAnswers('cancel_order', { order_id: '4411' });

    const id = await customerWrites(integrationId, 'client-f', 'Cancel order 4411');
    await waitForReplies(co, id, 1);
    llm.reply = 'It ships on Friday.';
    await customerWrites(integrationId, 'client-f', 'Actually, when does it ship?');
    const [, answered] = await waitForReplies(co, id, 2);

    expect(api.requests).toEqual([]);
    expect(answered!.data.text).toBe('It ships on Friday.');
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionCallDeclined')?.data.why).toBe('other_reply');
  });
});

describe('waits that end on the clock', () => {
  it('given a confirmation asked, when the customer stays silent past its window, then the call is declined for silence and never made', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'cancel_order', method: 'POST', urlTemplate: `${api.url}/orders/{order_id}/cancel`, mode: 'confirm' }]);
    llm.reply = callsThenAnswers('cancel_order', { order_id: '4411' });
    const id = await customerWrites(integrationId, 'client-silent', 'Cancel order 4411');
    await waitForReplies(co, id, 1);

    // (Past the window the teammate's access token has expired too: the conversation is read from the store.)
    ahead = (CONFIRMATION_WINDOW_MINUTES + 1) * 60_000;
    const declined = async () => (await server.adapters.eventStore.readStream(`conversation-${id}`)).find((e) => e.type === 'ActionCallDeclined')?.data as { why: string } | undefined;
    await expect.poll(async () => (await declined())?.why, { timeout: 10_000 }).toBe('silence');

    expect(api.requests).toEqual([]);
    ahead = 0;
    expect((await co.call('GET', `/api/conversations/${id}`)).json().conversation.pendingAction).toBeNull();
  });

  it('given an approval asked, when nobody decides within its timeout, then it expires into a handoff and the call is never made', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'refund_order', method: 'POST', urlTemplate: `${api.url}/orders/{order_id}/refund`, mode: 'approve', approvalTimeoutMinutes: 5 }]);
    llm.reply = callsThenAnswers('refund_order', { order_id: '4411' });
    const id = await customerWrites(integrationId, 'client-undecided', 'Refund order 4411');
    await waitForReplies(co, id, 1);

    ahead = 6 * 60_000;
    await expect.poll(async () => (await co.call('GET', `/api/conversations/${id}`)).json().conversation.handoff?.reason, { timeout: 10_000 }).toBe('ai_unanswered');

    const types = (await eventsOf(co, id)).map((e) => e.type);
    expect(types).toContain('ActionApprovalExpired');
    expect(types).not.toContain('ActionCallStarted');
    expect(api.requests).toEqual([]);
  });
});

describe('approve: a teammate decides', () => {
  it('given an approve action, when the model calls it, then the customer gets the holding reply and the call waits, uncalled', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'refund_order', method: 'POST', urlTemplate: `${api.url}/orders/{order_id}/refund`, mode: 'approve' }]);
    llm.reply = callsThenAnswers('refund_order', { order_id: '4411' });

    const id = await customerWrites(integrationId, 'client-g', 'Refund order 4411');
    const [held] = await waitForReplies(co, id, 1);

    expect(held!.data.text).toBe('A teammate needs to approve this first.');
    expect(api.requests).toEqual([]);
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionApprovalRequested')?.data).toMatchObject({ messageId: held!.data.messageId, approverRoles: null });
  });

  /** A company whose customer asked for a refund, held for approval: the call's id. */
  async function heldRefund(clientId: string, headers: { name: string; sealedValue: string }[] = []): Promise<{ co: Company; id: string; callId: string }> {
    const { co, integrationId } = await companyWithActions([{ name: 'refund_order', method: 'POST', urlTemplate: `${api.url}/orders/{order_id}/refund`, mode: 'approve', responseFields: ['status'], headers } as never]);
    llm.reply = callsThenAnswers('refund_order', { order_id: '4411' });
    const id = await customerWrites(integrationId, clientId, 'Refund order 4411');
    await waitForReplies(co, id, 1);
    const callId = (await eventsOf(co, id)).find((e) => e.type === 'ActionApprovalRequested')!.data.callId as string;
    return { co, id, callId };
  }

  /** What the approvals API appends when a teammate decides. */
  const decide = (co: Company, id: string, type: 'ActionCallApproved' | 'ActionCallRefused', callId: string) =>
    server.adapters.eventStore.append(
      `conversation-${id}`,
      [{ id: randomUUID(), type, data: { callId, by: `user:${co.user.id}`, ...(type === 'ActionCallRefused' ? { reason: null } : {}), at: new Date().toISOString() }, metadata: { companyId: co.company.companyId } }],
      'any',
    );

  it('given a held refund, when a teammate approves, then it is called once and the customer is told the result', async () => {
    const { co, id, callId } = await heldRefund('client-h');
    api.respond = () => ({ body: { status: 'refunded' } });

    await decide(co, id, 'ActionCallApproved', callId);
    const [held, followUp] = await waitForReplies(co, id, 2);

    expect(api.requests.map((r) => [r.method, r.url, r.headers['idempotency-key']])).toEqual([['POST', '/orders/4411/refund', callId]]);
    expect(followUp!.data.text).toBe('From our systems: {"status":"refunded"}');
    expect(followUp!.data.inReplyTo).toEqual(held!.data.inReplyTo);
    const types = (await eventsOf(co, id)).map((e) => e.type).filter((t) => t.startsWith('ActionCall'));
    expect(types).toEqual(['ActionCallRequested', 'ActionCallApproved', 'ActionCallStarted', 'ActionCallSucceeded']);
  });

  it('given a held refund whose endpoint echoes its key, when a teammate approves, then the key is [hidden] in the events and the follow-up', async () => {
    const key = 'refund-key-3e8d1a5c9f7b';
    const { co, id, callId } = await heldRefund('client-k', [{ name: 'X-Refund-Key', sealedValue: server.services.secretBox.seal(key) }]);
    api.respond = (request) => ({ body: { status: `refunded with ${String(request.headers['x-refund-key'])}` } });

    await decide(co, id, 'ActionCallApproved', callId);
    const [, followUp] = await waitForReplies(co, id, 2);

    expect(api.requests[0]!.headers['x-refund-key']).toBe(key);
    expect(followUp!.data.text).toBe('From our systems: {"status":"refunded with [hidden]"}');
    expect(JSON.stringify(await eventsOf(co, id))).not.toContain(key);
  });

  it('given a held refund, when a teammate refuses, then nothing is called and the customer is told it could not be done', async () => {
    const { co, id, callId } = await heldRefund('client-i');

    await decide(co, id, 'ActionCallRefused', callId);
    const [, followUp] = await waitForReplies(co, id, 2);

    expect(api.requests).toEqual([]);
    expect(followUp!.data.text).toMatch(/could not be done/);
    expect((await co.call('GET', `/api/conversations/${id}`)).json().conversation.session.state).toBe('active');
  });
  it('given a held refund, when the customer asks for another refund meanwhile, then the second is refused and recorded, the model tells the customer, and the first still waits for the teammate', async () => {
    const { co, id, callId } = await heldRefund('client-j');
    llm.reply = (body: Body) => {
      const last = lastMessage(body);
      if (last?.role === 'tool') return `Sorry: ${String(last.content)}`;
      return { content: null, toolCalls: [{ name: 'refund_order', arguments: JSON.stringify({ order_id: '4412' }) }] };
    };

    const integrationId = (await co.call('GET', '/api/integrations')).json().integrations[0].id as number;
    await customerWrites(integrationId, 'client-j', 'And refund order 4412 too');
    const [, answer] = await waitForReplies(co, id, 2);

    expect(answer!.data.text).toBe("Sorry: Not done: another action is waiting for a teammate's approval: ask again once it is decided.");
    expect(api.requests).toEqual([]);
    const conversation = (await co.call('GET', `/api/conversations/${id}`)).json().conversation;
    expect(conversation.pendingAction).toMatchObject({ callId, mode: 'approve' });
    type Logged = { callId: string; status: string; error: string | null };
    await expect
      .poll(async () => ((await co.call('GET', `/api/action-calls?conversationId=${id}`)).json().calls as Logged[]).map((c) => [c.callId === callId ? 'first' : 'second', c.status, c.error]))
      .toEqual([
        ['second', 'rejected', "another action is waiting for a teammate's approval: ask again once it is decided"],
        ['first', 'waiting_approval', null],
      ]);
    expect((await co.call('POST', `/api/conversations/${id}/action-calls/${callId}/approve`)).statusCode).toBe(200);
    await waitForReplies(co, id, 3);
    expect(api.requests.map((r) => r.url)).toEqual(['/orders/4411/refund']);
  });
});

describe('replays and test runs never reach the endpoint', () => {
  it("given an agent with an order lookup, when a past conversation is replayed with it, then the draft's call is answered by the sample response and the endpoint is never called", async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    const conv = await seedConversation(server.adapters.eventStore, co.company.companyId, [{ customer: ['Where is order 4411?'] }]);
    const draft = { basedOnAgentId: agentId, systemPrompt: 'You are the draft.', temperature: 0, useKnowledgeBase: false };

    const estimate = await co.call('POST', '/api/replays/estimate', { draft, conversationIds: [conv.conversationId] });
    const created = await co.call('POST', '/api/replays', { draft, conversationIds: [conv.conversationId], confirmedCostMicros: estimate.json().estimate.costMicros });
    expect(created.statusCode).toBe(201);
    const replayId = created.json().replay.id as string;
    await expect.poll(async () => (await co.call('GET', `/api/replays/${replayId}`)).json().replay.status, { timeout: 20_000 }).toBe('completed');

    const [answer] = (await co.call('GET', `/api/replays/${replayId}?limit=200`)).json().answers;
    expect(answer.draft).toMatchObject({ status: 'answered', text: 'From our systems: {"status":"sample"}' });
    expect(api.requests).toEqual([]);
  });

  it("given test cases (one with a mock for the lookup), when the agent's tests run, then every case is answered and the endpoint is never called", async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    const cases = [
      { name: 'Lost parcel', turns: ['Where is order 4411?'], expect: { contains: [{ kind: 'text', value: 'lost' }] }, actionMocks: { lookup_order: { status: 'lost' } } },
      { name: 'Sample', turns: ['Where is order 4411?'], expect: { contains: [{ kind: 'text', value: 'sample' }] } },
    ];
    for (const c of cases) expect((await co.call('POST', `/api/agents/${agentId}/test-cases`, c)).statusCode).toBe(201);

    // The company's model answers the cases (a paid run: its estimate is confirmed first) and calls the lookup.
    const estimate = (await co.call('POST', `/api/agents/${agentId}/test-runs/estimate`, {})).json().estimate;
    const started = await co.call('POST', `/api/agents/${agentId}/test-runs`, { confirmedCostMicros: estimate.costMicros });
    expect(started.statusCode).toBe(202);
    const runId = started.json().run.id as string;
    await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/test-runs/${runId}`)).json().run.status, { timeout: 20_000 }).toBe('finished');

    // Each case's lookup answered from its mock, or from the action's sample: never the endpoint.
    const run = (await co.call('GET', `/api/agents/${agentId}/test-runs/${runId}`)).json().run;
    expect((run.cases as { name: string; answer: { text: string } | null }[]).map((c) => [c.name, c.answer?.text])).toEqual([
      ['Lost parcel', expect.stringContaining('"status":"lost"')],
      ['Sample', expect.stringContaining('"status":"sample"')],
    ]);
    expect(run).toMatchObject({ passed: 2, failed: 0 });
    expect((run.cases as { answer: { text: string } | null }[]).map((c) => c.answer?.text)).toEqual(['From our systems: {"status":"lost"}', 'From our systems: {"status":"sample"}']);
    expect(api.requests).toEqual([]);
  });
});

describe('the playground: live or mocked, per session', () => {
  it('given a session started without a choice, when the agent calls an action, then it is mocked: the sample answers and the endpoint is never called', async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });

    const started = await co.call('POST', `/api/agents/${agentId}/playground`);
    expect(started.statusCode).toBe(201);
    expect(started.json().session.actions).toBe('mocked');
    const asked = await co.call('POST', `/api/playground/${started.json().session.id}/messages`, { text: 'Where is order 4411?' });

    expect(asked.statusCode).toBe(200);
    expect(asked.json().turn.answer.text).toBe('From our systems: {"status":"sample"}');
    expect(api.requests).toEqual([]);
  });

  it('given an owner starting a live session, when the agent calls an action, then the endpoint answers', async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order', identity: {}, parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });

    const started = await co.call('POST', `/api/agents/${agentId}/playground`, { actions: 'live' });
    expect(started.statusCode).toBe(201);
    const asked = await co.call('POST', `/api/playground/${started.json().session.id}/messages`, { text: 'Where is order 4411?' });

    expect(asked.json().turn.answer.text).toBe('From our systems: {"status":"shipped","eta":"Friday"}');
    expect(api.requests.map((r) => r.url)).toEqual(['/orders/4411']);
  });

  it('given a live session, when the agent calls an action, then the call is in the action log and the analytics marked as a playground call, and no conversation is written', async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order', identity: {}, parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    const sessionId = (await co.call('POST', `/api/agents/${agentId}/playground`, { actions: 'live' })).json().session.id as string;

    expect((await co.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Where is order 4411?' })).statusCode).toBe(200);

    await expect.poll(async () => (await co.call('GET', '/api/action-calls')).json().calls.length).toBe(1);
    const [call] = (await co.call('GET', '/api/action-calls')).json().calls;
    expect(call).toMatchObject({ actionName: 'lookup_order', conversationId: null, playgroundSessionId: sessionId, status: 'succeeded', httpStatus: 200, mocked: false, arguments: { order_id: '4411' } });
    expect(call.response).toBe('{"status":"shipped","eta":"Friday"}');
    expect(api.requests[0]!.headers['idempotency-key']).toBe(call.callId);
    expect((await co.call('GET', `/api/action-calls/${call.callId}`)).json().call.playgroundSessionId).toBe(sessionId);
    const figures = (await co.call('GET', '/api/analytics/actions')).json().totals;
    expect(figures).toMatchObject({ calls: 1, succeeded: 1, playground: 1 });
    expect((await co.call('GET', '/api/conversations')).json().conversations).toEqual([]);
  });

  it('given a mocked session, when the agent calls an action, then nothing reaches the action log', async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    const sessionId = (await co.call('POST', `/api/agents/${agentId}/playground`)).json().session.id as string;

    expect((await co.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Where is order 4411?' })).json().turn.answer.text).toBe('From our systems: {"status":"sample"}');
    await new Promise((r) => setTimeout(r, 300));
    expect((await co.call('GET', '/api/action-calls')).json().calls).toEqual([]);
  });

  it('given an agent-role teammate, when they start a live session, then it is refused; a mocked one is theirs to use', async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    const invited = await co.call('POST', '/api/team/invitations', { email: `agent-role-${Date.now()}@example.com`, role: 'agent' });
    const token = String(invited.json().invitationUrl).split('#/accept-invitation/')[1];
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Role', password: 'agent password' } });
    const bearer = accepted.json().session.access_token as string;

    const live = await co.call('POST', `/api/agents/${agentId}/playground`, { actions: 'live' }, bearer);
    expect(live.statusCode).toBe(403);
    expect(live.json().error.code).toBe('FORBIDDEN');
    expect((await co.call('POST', `/api/agents/${agentId}/playground`, { actions: 'mocked' }, bearer)).statusCode).toBe(201);
  });

  it("given an owner's live session, when an agent-role teammate asks in it, then it is refused and nothing is called or recorded; the owner's own question still runs", async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order', identity: {}, parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    const bearer = await teammateBearer(server, co, 'agent', 'Agent Role');
    const sessionId = (await co.call('POST', `/api/agents/${agentId}/playground`, { actions: 'live' })).json().session.id as string;

    const asked = await co.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Where is order 4411?' }, bearer);

    expect(asked.statusCode).toBe(403);
    expect(asked.json().error.code).toBe('FORBIDDEN');
    expect(api.requests).toEqual([]);
    expect(llm.completionRequests).toEqual([]);
    expect((await co.call('GET', `/api/playground/${sessionId}`)).json()).toMatchObject({ session: { questionCount: 0 }, turns: [] });
    expect((await co.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Where is order 4411?' })).statusCode).toBe(200);
    expect(api.requests.map((r) => r.url)).toEqual(['/orders/4411']);
  });

  it("given an owner's mocked session, when an agent-role teammate asks in it, then the sample answers", async () => {
    const { co, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });
    const bearer = await teammateBearer(server, co, 'agent', 'Agent Role');
    const sessionId = (await co.call('POST', `/api/agents/${agentId}/playground`)).json().session.id as string;

    const asked = await co.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Where is order 4411?' }, bearer);

    expect(asked.statusCode).toBe(200);
    expect(asked.json().turn.answer.text).toBe('From our systems: {"status":"sample"}');
    expect(api.requests).toEqual([]);
  });
});
