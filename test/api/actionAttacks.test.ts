import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approveActionCall, endExpiredWait } from '../../src/commands/conversations/actionApprovals.js';
import { ACTION_LIMITS, CUT_OFF } from '../../src/domain/actions/definition.js';
import { MAX_ACTION_RESPONSE_BYTES } from '../../src/infrastructure/actions/httpActionCaller.js';
import { silentLogger } from '../../src/ports/logger.js';
import { signUp, type Company } from '../support/api.js';
import { actionFixtures, callsThenAnswers, lastMessage, offered, resetActionFakes, type ModelBody } from '../support/actionFixtures.js';
import { startFakeCompanyApi, type FakeCompanyApi } from '../support/fakeCompanyApi.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Actions under attack, end to end: decisions that race (a teammate and the expiry clock, two teammates, a customer
 * who says yes twice), a definition or an agent changed while a call waits, the largest answers the limits allow,
 * and an endpoint that fails, throttles or hangs. Each must record one outcome and reach the endpoint at most once.
 */

let server: TestServer;
let llm: FakeLlm;
let api: FakeCompanyApi;
const { companyWithActions, customerWrites, eventsOf, waitForReplies, setAgentActions } = actionFixtures({ server: () => server, llm: () => llm, api: () => api });

beforeAll(async () => {
  llm = await startFakeLlm();
  api = await startFakeCompanyApi();
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0', LLM_RETRY_DELAYS_MS: '10', ACTION_EXPIRY_SWEEP_INTERVAL_MS: '100' });
});
afterAll(async () => {
  await server?.close();
  await llm?.close();
  await api?.close();
});
beforeEach(() => resetActionFakes(llm, api));

const refund = () => ({ name: 'refund_order', method: 'POST' as const, urlTemplate: `${api.url}/orders/{order_id}/refund`, mode: 'approve' as const, responseFields: ['status'] });
const cancel = () => ({ name: 'cancel_order', method: 'POST' as const, urlTemplate: `${api.url}/orders/{order_id}/cancel`, mode: 'confirm' as const, responseFields: ['status'] });
const decisionsOf = async (co: Company, id: string) =>
  (await eventsOf(co, id)).map((e) => e.type).filter((t) => ['ActionCallApproved', 'ActionCallRefused', 'ActionApprovalExpired', 'ActionCallConfirmed', 'ActionCallDeclined'].includes(t));

/** A customer of `co`'s integration asked for a refund of `order`, held for a teammate: the call. */
async function heldRefund(co: Company, integrationId: number, clientId: string, order = '4411') {
  llm.reply = callsThenAnswers('refund_order', { order_id: order });
  const id = await customerWrites(integrationId, clientId, `Refund order ${order}`);
  await waitForReplies(co, id, 1);
  const asked = (await eventsOf(co, id)).find((e) => e.type === 'ActionApprovalRequested')!;
  return { id, callId: asked.data.callId as string, expiresAt: Date.parse(asked.data.expiresAt as string) };
}

describe('a teammate approves while the clock expires the same call', () => {
  it('given held refunds, when the approval (just before the deadline) and the expiry (just after) are decided at once, then each call has exactly one outcome and the endpoint is called at most once per call', async () => {
    const { co, integrationId } = await companyWithActions([refund()]);
    api.respond = () => ({ body: { status: 'refunded' } });
    const held = [];
    for (let i = 0; i < 10; i++) held.push(await heldRefund(co, integrationId, `client-race-${i}`, `44${i}`));

    await Promise.all(
      held.flatMap(({ id, callId, expiresAt }) => [
        approveActionCall({ eventStore: server.adapters.eventStore, logger: silentLogger, clock: { now: () => new Date(expiresAt - 1) } }, { companyId: co.company.companyId, userId: co.user.id, role: 'owner' }, id, callId).catch((err: Error) => err),
        endExpiredWait({ eventStore: server.adapters.eventStore, logger: silentLogger, clock: { now: () => new Date(expiresAt + 1) } }, id, callId, 'approve'),
      ]),
    );

    let approved = 0;
    for (const { id } of held) {
      const decisions = await decisionsOf(co, id);
      expect(decisions).toHaveLength(1);
      if (decisions[0] === 'ActionCallApproved') {
        approved++;
        await waitForReplies(co, id, 2);
      }
    }
    expect(api.requests.length).toBe(approved);
    expect(new Set(api.requests.map((r) => r.headers['idempotency-key'])).size).toBe(approved);
  });
});

describe('two teammates decide the same call at once', () => {
  it('given a held refund, when one approves and another refuses at the same moment, then one decision wins, the other is 409, and the endpoint is called at most once', async () => {
    const { co, integrationId } = await companyWithActions([refund()]);
    const { id, callId } = await heldRefund(co, integrationId, 'client-two');

    const [a, b] = await Promise.all([
      co.call('POST', `/api/conversations/${id}/action-calls/${callId}/approve`),
      co.call('POST', `/api/conversations/${id}/action-calls/${callId}/refuse`, { reason: 'no' }),
    ]);

    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const decisions = await decisionsOf(co, id);
    expect(decisions).toHaveLength(1);
    await waitForReplies(co, id, 2);
    expect(api.requests).toHaveLength(decisions[0] === 'ActionCallApproved' ? 1 : 0);
  });

  it('given a held refund, when three approvals arrive at once (a double click, a retry), then all are 200, one is recorded and the endpoint is called once', async () => {
    const { co, integrationId } = await companyWithActions([refund()]);
    const { id, callId } = await heldRefund(co, integrationId, 'client-three');

    const answers = await Promise.all([1, 2, 3].map(() => co.call('POST', `/api/conversations/${id}/action-calls/${callId}/approve`)));

    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(await decisionsOf(co, id)).toEqual(['ActionCallApproved']);
    await waitForReplies(co, id, 2);
    expect(api.requests.map((r) => r.url)).toEqual(['/orders/4411/refund']);
  });
});

describe('the customer says yes twice, quickly', () => {
  it('given a confirmation asked, when two "yes" arrive back to back, then the call runs once', async () => {
    const { co, integrationId } = await companyWithActions([cancel()]);
    llm.reply = callsThenAnswers('cancel_order', { order_id: '4411' });
    const id = await customerWrites(integrationId, 'client-yes', 'Cancel order 4411');
    await waitForReplies(co, id, 1);
    llm.reply = (body: ModelBody) => (lastMessage(body)?.role === 'tool' ? `Done: ${String(lastMessage(body)!.content)}` : 'Anything else?');

    await Promise.all([customerWrites(integrationId, 'client-yes', 'yes'), customerWrites(integrationId, 'client-yes', 'yes')]);

    await expect.poll(async () => (await eventsOf(co, id)).filter((e) => e.type === 'AgentReplied').length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(async () => (await eventsOf(co, id)).some((e) => e.type === 'ActionCallSucceeded'), { timeout: 15_000 }).toBe(true);
    expect(api.requests.map((r) => r.url)).toEqual(['/orders/4411/cancel']);
    expect(await decisionsOf(co, id)).toEqual(['ActionCallConfirmed']);
  });
});

describe('an action changed while a call to it waits', () => {
  it('given a held refund, when its address is edited and a teammate then approves, then the edited action is not called: the call is recorded as not made and the customer is told', async () => {
    const { co, integrationId, actionIds } = await companyWithActions([refund()]);
    const { id, callId } = await heldRefund(co, integrationId, 'client-edit');

    const edited = await co.call('PATCH', `/api/actions/${actionIds[0]}`, { urlTemplate: `${api.url}/v2/orders/{order_id}/refund-everything` });
    expect(edited.statusCode).toBe(200);
    expect((await co.call('POST', `/api/conversations/${id}/action-calls/${callId}/approve`)).statusCode).toBe(200);
    const [, followUp] = await waitForReplies(co, id, 2);

    expect(api.requests).toEqual([]);
    const failed = (await eventsOf(co, id)).find((e) => e.type === 'ActionCallFailed');
    expect(failed?.data.error).toMatch(/changed after the call was requested/);
    expect(followUp!.data.text).toBeTruthy();
  });

  it('given a confirmation asked, when the action is deleted and the customer then says yes, then nothing is called', async () => {
    const { co, integrationId, actionIds } = await companyWithActions([cancel()]);
    llm.reply = callsThenAnswers('cancel_order', { order_id: '4411' });
    const id = await customerWrites(integrationId, 'client-deleted', 'Cancel order 4411');
    await waitForReplies(co, id, 1);

    expect((await co.call('DELETE', `/api/actions/${actionIds[0]}`)).statusCode).toBe(204);
    llm.reply = (body: ModelBody) => (lastMessage(body)?.role === 'tool' ? `Sorry: ${String(lastMessage(body)!.content)}` : 'Anything else?');
    await customerWrites(integrationId, 'client-deleted', 'yes');
    const [, answer] = await waitForReplies(co, id, 2);

    expect(api.requests).toEqual([]);
    expect(answer!.data.text).toBe('Sorry: Not done: the action is no longer available.');
  });

  it("given a held refund, when the agent's actions no longer list it and a teammate then approves, then it is not called", async () => {
    const { co, integrationId, agentId } = await companyWithActions([refund()]);
    const { id, callId } = await heldRefund(co, integrationId, 'client-unlisted');

    await setAgentActions(co, agentId, []);
    expect((await co.call('POST', `/api/conversations/${id}/action-calls/${callId}/approve`)).statusCode).toBe(200);
    const [, followUp] = await waitForReplies(co, id, 2);

    expect(api.requests).toEqual([]);
    expect(followUp!.data.text).toBe('Sorry, that could not be done: the action is no longer available.');
  });
});

describe("the agent's actions changed mid-answer", () => {
  it('given an answer under way, when the agent stops listing its lookup during the first model round, then that answer still makes its call (the list is read once per answer) and the next answer is not offered it', async () => {
    const { co, integrationId, agentId } = await companyWithActions([{ name: 'lookup_order' }]);
    let unlisted: Promise<unknown> | null = null;
    const calling = callsThenAnswers('lookup_order', { order_id: '4411' });
    llm.reply = (body: ModelBody) => {
      unlisted ??= setAgentActions(co, agentId, []);
      return calling(body);
    };

    const id = await customerWrites(integrationId, 'client-midway', 'Where is order 4411?');
    await waitForReplies(co, id, 1);
    await unlisted;
    expect(api.requests).toHaveLength(1);

    await customerWrites(integrationId, 'client-midway', 'And order 4412?');
    await waitForReplies(co, id, 2);
    expect(offered(llm.completionRequests.at(-1)!.body as ModelBody, 'lookup_order')).toBe(false);
    expect(api.requests).toHaveLength(1);
  });
});

describe("the model's malformed arguments", () => {
  it.each([
    ['arguments that are not JSON', '{"order_id": 4411', 'the arguments are not a JSON object'],
    ['a number for a string', '{"order_id": 4411}', 'order_id: must be a string'],
    ['an extra property', '{"order_id": "4411", "admin": true}', 'admin is not a parameter'],
    ['an identity parameter smuggled in', '{"order_id": "4411", "client_id": "someone-else"}', 'client_id is filled by the service and cannot be given'],
    ['a path that climbs out of its segment', '{"order_id": ".."}', 'order_id: "." or ".." cannot stand in the address\'s path'],
  ])('given %s, when the model calls, then the call is rejected before any request and the model is told why', async (_what, args, error) => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = (body: ModelBody) =>
      lastMessage(body)?.role === 'tool' ? `Sorry: ${String(lastMessage(body)!.content)}` : { content: null, toolCalls: [{ name: 'lookup_order', arguments: args }] };

    const id = await customerWrites(integrationId, `client-args-${randomUUID().slice(0, 6)}`, 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(api.requests).toEqual([]);
    expect(reply!.data.text).toBe(`Sorry: Not done: ${error}.`);
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionCallRejected')?.data.error).toBe(error);
  });
});

describe('attack: a parameter pattern that backtracks catastrophically ("(a+)+b")', () => {
  const pinned = (name: string) => ({
    ...definition(),
    name,
    parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '(a+)+b' } }, required: ['order_id'] },
  });

  it('given a company\'s action with it, when a test call sends 40 a\'s and a "c", then it is refused at once, and another company is answered meanwhile', async () => {
    const { co } = await companyWithActions([]);
    const other = await signUp(server, 'Globex');
    const created = await co.call('POST', '/api/actions', pinned('pinned_lookup'));
    expect(created.statusCode).toBe(201);

    const started = performance.now();
    const [tested, me] = await Promise.all([
      co.call('POST', `/api/actions/${created.json().action.id}/test`, { parameters: { order_id: `${'a'.repeat(40)}c` } }),
      other.call('GET', '/api/auth/me'),
    ]);
    // A backtracking engine took 21 s at 30 a's and never answered at 40, holding every other request meanwhile.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(me.statusCode).toBe(200);
    expect(tested.statusCode).toBe(400);
    expect(tested.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('order_id: does not match the expected format') });
    expect(api.requests).toEqual([]);
    // The pattern still does its job: a matching value is called.
    const matching = await co.call('POST', `/api/actions/${created.json().action.id}/test`, { parameters: { order_id: `${'a'.repeat(40)}b` } });
    expect(matching.statusCode).toBe(200);
    expect(api.requests).toHaveLength(1);
  });

  it('given an agent with that action, when the model passes 1,999 a\'s and a "c" (the longest argument a call takes), then the call is refused at once and every company is still answered', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '(a+)+b' } }, required: ['order_id'] }, identity: {} }]);
    const others = await companyWithActions([{ name: 'lookup_order' }]);
    llm.reply = (body: ModelBody) =>
      lastMessage(body)?.role === 'tool'
        ? `Sorry: ${String(lastMessage(body)!.content)}`
        : offered(body, 'lookup_order') && JSON.stringify(body).includes('(a+)+b')
          ? { content: null, toolCalls: [{ name: 'lookup_order', arguments: JSON.stringify({ order_id: `${'a'.repeat(1_999)}c` }) }] }
          : 'Hello from the other company.';

    const id = await customerWrites(integrationId, 'client-redos', 'Where is my order?');
    const otherId = await customerWrites(others.integrationId, 'client-bystander', 'Hello?');
    const [reply] = await waitForReplies(co, id, 1);
    const [otherReply] = await waitForReplies(others.co, otherId, 1);

    expect(reply!.data.text).toBe('Sorry: Not done: order_id: does not match the expected format.');
    expect(otherReply!.data.text).toBe('Hello from the other company.');
    expect(api.requests).toEqual([]);
  });

  it('given a pattern with a backreference or a lookahead, when the action is saved, then it is 400 VALIDATION_ERROR naming the parameter, and nothing is saved', async () => {
    const { co } = await companyWithActions([]);
    for (const pattern of ['(a)\\1', '(?=[0-9])\\w+']) {
      const res = await co.call('POST', '/api/actions', { ...pinned('refused_one'), parameters: { type: 'object', properties: { order_id: { type: 'string', pattern } }, required: ['order_id'] } });
      expect(res.statusCode, pattern).toBe(400);
      expect(res.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^parameters\.order_id\.pattern: .*not supported/) });
    }
    expect((await co.call('GET', '/api/actions')).json().actions).toEqual([]);
  });
});

describe('the largest answers the limits allow', () => {
  it('given five calls in one answer each answered with 200 KB, then the model reads at most maxResponseChars of each, and a sixth call is never offered', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order', responseFields: [], maxResponseChars: ACTION_LIMITS.maxResponseChars }]);
    api.respond = () => ({ body: { notes: 'x'.repeat(200_000) } });
    llm.reply = (body: ModelBody) => (offered(body, 'lookup_order') ? { content: null, toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"4411"}' }] } : 'Here is what I found.');

    const id = await customerWrites(integrationId, 'client-big', 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(reply!.data.text).toBe('Here is what I found.');
    expect(api.requests).toHaveLength(ACTION_LIMITS.callsPerAnswer);
    const last = llm.completionRequests.at(-1)!.body as ModelBody;
    // The whole last prompt stays small: five capped results, not five 200 KB answers.
    expect(JSON.stringify(last).length).toBeLessThan(ACTION_LIMITS.callsPerAnswer * (ACTION_LIMITS.maxResponseChars + 1000) + 5000);
    const toolResults = (last.messages ?? []).filter((m) => (m as { role: string }).role === 'tool').map((m) => String((m as { content: unknown }).content));
    expect(toolResults).toHaveLength(ACTION_LIMITS.callsPerAnswer);
    for (const text of toolResults) expect(text.length).toBeLessThanOrEqual(ACTION_LIMITS.maxResponseChars + 200);
    expect(offered(last, 'lookup_order')).toBe(false);
  });
});

describe('an endpoint that fails', () => {
  it.each([
    [500, 'the endpoint answered 500'],
    [429, 'the endpoint answered 429'],
  ])('given a refund endpoint answering %i, when a teammate approves, then it is called once (no automatic retry of a call that changes data), recorded as failed, and the customer is told', async (status, error) => {
    const { co, integrationId } = await companyWithActions([refund()]);
    const { id, callId } = await heldRefund(co, integrationId, `client-${status}`);
    api.respond = () => ({ status, body: { error: 'busy' } });

    expect((await co.call('POST', `/api/conversations/${id}/action-calls/${callId}/approve`)).statusCode).toBe(200);
    await waitForReplies(co, id, 2);

    expect(api.requests).toHaveLength(1);
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionCallFailed')?.data).toMatchObject({ status, error });
  });

  it('given a lookup endpoint that hangs, when the model calls it, then the call gives up at its timeout and the customer still gets an answer', async () => {
    const { co, integrationId } = await companyWithActions([{ name: 'lookup_order', timeoutMs: 500 }]);
    api.hangNext(1);
    llm.reply = callsThenAnswers('lookup_order', { order_id: '4411' });

    const started = Date.now();
    const id = await customerWrites(integrationId, 'client-hang', 'Where is order 4411?');
    const [reply] = await waitForReplies(co, id, 1);

    expect(Date.now() - started).toBeLessThan(10_000);
    expect(reply!.data.text).toBe('From our systems: The call failed: no answer within 500 ms.');
    expect((await eventsOf(co, id)).find((e) => e.type === 'ActionCallFailed')?.data).toMatchObject({ status: null, error: 'no answer within 500 ms' });
    // The slot is free again: the next question is answered with a normal call.
    await customerWrites(integrationId, 'client-hang', 'And now?');
    await waitForReplies(co, id, 2);
    expect(api.requests).toHaveLength(2);
  });
});

describe('endpoint answers the limits do not allow', () => {
  it('given an endpoint answering JSON nested 100,000 levels deep (195 KB), when the action is tested, then the test says so in plain words, never a 500', async () => {
    const { co } = await companyWithActions([]);
    const id = (await co.call('POST', '/api/actions', { ...definition(), responseFields: [] })).json().action.id as string;
    api.respond = () => ({ raw: `${'['.repeat(100_000)}${']'.repeat(100_000)}` });
    const res = await co.call('POST', `/api/actions/${id}/test`, { parameters: { order_id: '4411' } });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.json().test).toMatchObject({ ok: false, status: 200, mapped: null, error: `the answer is nested deeper than ${ACTION_LIMITS.jsonDepth} levels, which the model cannot read` });
    expect(api.requests).toHaveLength(1);
  });

  it('given an endpoint answering 200 with more than the size cap, when the action is tested, then it succeeded (its status decides): the chosen fields could not be read', async () => {
    const { co } = await companyWithActions([]);
    const id = (await co.call('POST', '/api/actions', { ...definition(), method: 'POST', responseFields: ['status'] })).json().action.id as string;
    api.respond = () => ({ raw: `{"status":"refunded","log":"${'x'.repeat(MAX_ACTION_RESPONSE_BYTES)}"}` });
    const res = await co.call('POST', `/api/actions/${id}/test`, { parameters: { order_id: '4411' } });
    expect(res.json().test).toMatchObject({ ok: true, status: 200, mapped: CUT_OFF, error: null });
    expect(api.requests).toHaveLength(1);
  });

  it('given an action with the longest timeout and an endpoint that hangs, when it is tested over HTTP, then the documented answer arrives at the timeout (the connection is not reset first)', async () => {
    const { co } = await companyWithActions([]);
    const id = (await co.call('POST', '/api/actions', { ...definition(), timeoutMs: ACTION_LIMITS.maxTimeoutMs })).json().action.id as string;
    api.hangNext(1);
    const base = await server.listen(0, '127.0.0.1');
    const res = await fetch(`${base}/api/actions/${id}/test`, { method: 'POST', headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ parameters: { order_id: '4411' } }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { test: unknown }).test).toMatchObject({ ok: false, status: null, error: `no answer within ${ACTION_LIMITS.maxTimeoutMs} ms` });
  }, ACTION_LIMITS.maxTimeoutMs + 30_000);
});

describe('malformed definitions at save', () => {
  it.each([
    ['a CR LF in a header value (a second header smuggled in)', { headers: [{ name: 'X-Shop-Key', value: 'k\r\nX-Admin: yes' }] }],
    ['a NUL in a header value', { headers: [{ name: 'X-Shop-Key', value: 'k\u0000' }] }],
    ['a nested object parameter', { parameters: { type: 'object', properties: { order: { type: 'object' } } } }],
    ['an unknown keyword', { parameters: { type: 'object', properties: { order_id: { type: 'string', format: 'uri' } } } }],
    ['51 enum values', { parameters: { type: 'object', properties: { order_id: { type: 'string', enum: Array.from({ length: 51 }, (_, i) => `v${i}`) } } } }],
    ['21 parameters', { parameters: { type: 'object', properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, { type: 'string' }])) } }],
    ['a parameter filling an empty host', { urlTemplate: 'https:///{order_id}' }],
    ['credentials in the address (userinfo)', { urlTemplate: 'http://admin:hunter2@127.0.0.1:9/orders/{order_id}' }],
    ['a minimum above its maximum', { parameters: { type: 'object', properties: { order_id: { type: 'integer', minimum: 10, maximum: 1 } }, required: ['order_id'] } }],
    ['a sample response nested deeper than the limit', { sampleResponse: nested(ACTION_LIMITS.jsonDepth + 1) }],
  ])('given %s, then it is 400 and nothing is saved', async (_what, overrides) => {
    const { co } = await companyWithActions([]);
    const res = await co.call('POST', '/api/actions', { ...definition(), ...overrides });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect((await co.call('GET', '/api/actions')).json().actions).toEqual([]);
  });

  it('given a sample response nested 100,000 levels deep (195 KB), when it is created or patched, then it is 400 naming the field, never a 500', async () => {
    const { co } = await companyWithActions([]);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const created = await rawCall(co, 'POST', '/api/actions', JSON.stringify({ ...definition(), sampleResponse: 0 }).replace('"sampleResponse":0', `"sampleResponse":${deep}`));
    expect(created.statusCode, created.body.slice(0, 200)).toBe(400);
    expect(created.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('sampleResponse') });
    const id = (await co.call('POST', '/api/actions', { ...definition(), sampleResponse: nested(ACTION_LIMITS.jsonDepth) })).json().action.id as string;
    const patched = await rawCall(co, 'PATCH', `/api/actions/${id}`, `{"sampleResponse":${deep}}`);
    expect(patched.statusCode, patched.body.slice(0, 200)).toBe(400);
    expect(patched.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('sampleResponse') });
    expect((await co.call('GET', `/api/actions/${id}`)).json().action.sampleResponse).toEqual(nested(ACTION_LIMITS.jsonDepth));
  });

  it('given every field at its largest allowed size, then it is saved, and a test call with a path of ".." is refused before any call', async () => {
    const { co } = await companyWithActions([]);
    const properties: Record<string, object> = Object.fromEntries(Array.from({ length: ACTION_LIMITS.parameters }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(ACTION_LIMITS.parameterDescription), enum: Array.from({ length: ACTION_LIMITS.enumValues }, (_, j) => `${j}`.padEnd(ACTION_LIMITS.enumValue, 'e')) }]));
    properties.p0 = { type: 'string', description: 'the order' };
    const base = `${api.url}/orders/{p0}?x=`;
    const biggest = {
      ...definition(),
      description: 'd'.repeat(ACTION_LIMITS.description),
      parameters: { type: 'object', properties, required: ['p0'] },
      urlTemplate: base + 'u'.repeat(ACTION_LIMITS.urlTemplate - base.length),
      headers: Array.from({ length: ACTION_LIMITS.headers }, (_, i) => ({ name: `X-Key-${i}`, value: 'v'.repeat(ACTION_LIMITS.headerValue) })),
      responseFields: Array.from({ length: ACTION_LIMITS.responseFields }, (_, i) => `${i}`.padEnd(ACTION_LIMITS.responseFieldPath, 'f')),
    };
    const created = await co.call('POST', '/api/actions', biggest);
    expect(created.statusCode).toBe(201);

    const tested = await co.call('POST', `/api/actions/${created.json().action.id}/test`, { parameters: { p0: '..' } });
    expect(tested.statusCode).toBe(400);
    expect(api.requests).toEqual([]);
  });
});

/** An array holding an array … `depth` levels deep, around one number. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** A request with a body given as text: JSON.stringify cannot write what a hostile client can (100,000 levels). */
const rawCall = (co: Company, method: 'POST' | 'PATCH', url: string, text: string) =>
  server.app.inject({ method, url, headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' }, payload: text });

function definition() {
  return {
    name: `act_${randomUUID().slice(0, 8)}`,
    description: 'Finds an order',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    method: 'GET',
    urlTemplate: `${api.url}/orders/{order_id}`,
    headers: [{ name: 'X-Shop-Key', value: 'shop-key-1' }],
    mode: 'auto',
    sampleResponse: { status: 'shipped' },
  };
}
