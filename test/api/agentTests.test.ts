import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_LIMITS } from '../../src/domain/actions/definition.js';
import { teammateBearer } from '../support/agentFixtures.js';
import { acmeAndGlobex, signUp, type Company } from '../support/api.js';
import { ISO_MS, UUID } from '../support/formats.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * An agent's test cases (docs/api/agents-and-llm.md#test-cases): a customer message or short script with
 * machine-checked expectations. Every role reads and edits them; another company's agent or case is 404.
 */

let server: TestServer;
let acme: Company;
let globex: Company;
beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => server?.close());

const newAgent = async (co: Company) => (await co.call('POST', '/api/agents', { name: 'Ava' })).json().agent.id as string;
const agentRole = (owner: Company) => teammateBearer(server, owner, 'agent', 'Agent Role');
const cheques = { name: 'Cheques', turns: ['Hello', 'Can I pay with a cheque?'], expect: { handoff: true, notContains: [{ kind: 'regex', value: '^yes' }] }, required: true };


describe('test cases', () => {
  it("given a case with a mock for an action, when saved, then it keeps what the action answers in this case", async () => {
    const agentId = await newAgent(acme);
    const created = await acme.call('POST', `/api/agents/${agentId}/test-cases`, { ...cheques, actionMocks: { lookup_order: { status: 'lost' } } });
    expect(created.statusCode).toBe(201);
    expect(created.json().testCase.actionMocks).toEqual({ lookup_order: { status: 'lost' } });
    const badName = await acme.call('POST', `/api/agents/${agentId}/test-cases`, { ...cheques, actionMocks: { 'not a name': 1 } });
    expect(badName.statusCode).toBe(400);
  });

  it('mocks are bounded like a sample response: as big as one in all, or nested as deep, is taken; more, or 100,000 levels, is 400 on create and replace (never 500), as the agent role too', async () => {
    const agentId = await newAgent(acme);
    const bearer = await agentRole(acme);
    const raw = (method: 'POST' | 'PUT', url: string, text: string) => server.app.inject({ method, url, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, payload: text });
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const withMocks = (mocks: string) => JSON.stringify({ ...cheques, actionMocks: { lookup_order: 0 } }).replace('{"lookup_order":0}', mocks);
    const atLimit = `{"lookup_order":"${'x'.repeat(ACTION_LIMITS.sampleResponseChars - '{"lookup_order":""}'.length)}"}`;
    const created = await raw('POST', `/api/agents/${agentId}/test-cases`, withMocks(atLimit));
    expect(created.statusCode, created.body.slice(0, 200)).toBe(201);
    const caseId = created.json().testCase.id as string;
    expect((await raw('PUT', `/api/agents/${agentId}/test-cases/${caseId}`, withMocks(`{"a":${nested(ACTION_LIMITS.jsonDepth)}}`))).statusCode).toBe(200);
    for (const mocks of [
      `{"lookup_order":"${'x'.repeat(ACTION_LIMITS.sampleResponseChars)}"}`,
      `{"a":"${'x'.repeat(ACTION_LIMITS.sampleResponseChars / 2)}","b":"${'x'.repeat(ACTION_LIMITS.sampleResponseChars / 2)}"}`,
      `{"a":${nested(ACTION_LIMITS.jsonDepth + 1)}}`,
      `{"a":${nested(100_000)}}`,
    ]) {
      for (const res of [await raw('POST', `/api/agents/${agentId}/test-cases`, withMocks(mocks)), await raw('PUT', `/api/agents/${agentId}/test-cases/${caseId}`, withMocks(mocks))]) {
        expect(res.statusCode, `${mocks.slice(0, 40)}: ${res.body.slice(0, 200)}`).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('actionMocks') });
      }
    }
    expect((await acme.call('GET', `/api/agents/${agentId}/test-cases`)).json().testCases).toHaveLength(1);
  });

  it('creates, lists (paged), replaces and deletes a case', async () => {
    const agentId = await newAgent(acme);
    const created = await acme.call('POST', `/api/agents/${agentId}/test-cases`, cheques);
    expect(created.statusCode).toBe(201);
    const testCase = created.json().testCase;
    expect(testCase).toEqual({ id: expect.stringMatching(UUID), ...cheques, actionMocks: {}, createdAt: expect.stringMatching(ISO_MS), updatedAt: expect.stringMatching(ISO_MS), updatedBy: `user:${acme.user.id}` });
    const second = (await acme.call('POST', `/api/agents/${agentId}/test-cases`, { name: 'Short', turns: ['Hi'], expect: { maxChars: 200 } })).json().testCase;
    expect(second.required).toBe(false);

    const page1 = (await acme.call('GET', `/api/agents/${agentId}/test-cases?limit=1`)).json();
    expect(page1.testCases.map((c: any) => c.name)).toEqual(['Cheques']);
    const page2 = (await acme.call('GET', `/api/agents/${agentId}/test-cases?limit=1&cursor=${encodeURIComponent(page1.nextCursor)}`)).json();
    expect(page2).toEqual({ testCases: [second], nextCursor: null });

    const replaced = await acme.call('PUT', `/api/agents/${agentId}/test-cases/${testCase.id}`, { ...cheques, expect: { handoff: false, maxChars: 120 } });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().testCase).toMatchObject({ id: testCase.id, expect: { handoff: false, maxChars: 120 }, createdAt: testCase.createdAt });

    expect((await acme.call('DELETE', `/api/agents/${agentId}/test-cases/${testCase.id}`)).statusCode).toBe(204);
    expect((await acme.call('GET', `/api/agents/${agentId}/test-cases`)).json().testCases.map((c: any) => c.id)).toEqual([second.id]);
    expect((await acme.call('DELETE', `/api/agents/${agentId}/test-cases/${testCase.id}`)).statusCode).toBe(404);
    expect((await acme.call('PUT', `/api/agents/${agentId}/test-cases/${testCase.id}`, cheques)).statusCode).toBe(404);
  });

  it('400 VALIDATION_ERROR for a case without turns, a bad regular expression or an unknown expectation', async () => {
    const agentId = await newAgent(acme);
    for (const body of [
      { ...cheques, turns: [] },
      { ...cheques, expect: { contains: [{ kind: 'regex', value: '(unclosed' }] } },
      { ...cheques, expect: { sentiment: 'nice' } },
      { ...cheques, turns: ['1', '2', '3', '4', '5', '6'] },
    ]) {
      const res = await acme.call('POST', `/api/agents/${agentId}/test-cases`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('an agent-role teammate reads and edits test cases', async () => {
    const agentId = await newAgent(acme);
    const bearer = await agentRole(acme);
    const created = await acme.call('POST', `/api/agents/${agentId}/test-cases`, cheques, bearer);
    expect(created.statusCode).toBe(201);
    expect((await acme.call('PUT', `/api/agents/${agentId}/test-cases/${created.json().testCase.id}`, { ...cheques, name: 'Renamed' }, bearer)).statusCode).toBe(200);
    expect((await acme.call('GET', `/api/agents/${agentId}/test-cases`, undefined, bearer)).json().testCases.map((c: any) => c.name)).toEqual(['Renamed']);
  });

  it('another company’s agent and its cases are 404', async () => {
    const agentId = await newAgent(acme);
    const caseId = (await acme.call('POST', `/api/agents/${agentId}/test-cases`, cheques)).json().testCase.id;
    const otherAgent = await newAgent(globex);
    for (const [method, path, body] of [
      ['GET', `/api/agents/${agentId}/test-cases`, undefined],
      ['POST', `/api/agents/${agentId}/test-cases`, cheques],
      ['PUT', `/api/agents/${agentId}/test-cases/${caseId}`, cheques],
      ['DELETE', `/api/agents/${agentId}/test-cases/${caseId}`, undefined],
      // Its own agent does not reach another agent's case.
      ['PUT', `/api/agents/${otherAgent}/test-cases/${caseId}`, cheques],
      ['DELETE', `/api/agents/${otherAgent}/test-cases/${caseId}`, undefined],
    ] as const) {
      const res = await globex.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    expect((await acme.call('GET', `/api/agents/${agentId}/test-cases`)).json().testCases).toHaveLength(1);
  });
});

describe('test runs', () => {
  async function finished(co: Company, agentId: string, runId: string) {
    let run: any;
    await expect
      .poll(
        async () => {
          run = (await co.call('GET', `/api/agents/${agentId}/test-runs/${runId}`)).json().run;
          return run.status;
        },
        { timeout: 10_000 },
      )
      .toBe('finished');
    return run;
  }

  it('answers every case with the chosen version on the builtin provider, checks each expectation, and writes no conversation', async () => {
    const co = await signUp(server, 'Test runs');
    const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'V1 hands off.' })).json().agent.id as string;
    const doc = (await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' })).json().document;
    const shipping = (
      await co.call('POST', `/api/agents/${agentId}/test-cases`, {
        name: 'Shipping',
        turns: ['Do you ship to Norway?'],
        expect: { contains: [{ kind: 'text', value: 'norway' }], handoff: false, citesDocumentId: doc.id, maxChars: 500 },
        required: true,
      })
    ).json().testCase;
    const cheque = (await co.call('POST', `/api/agents/${agentId}/test-cases`, { name: 'Cheque', turns: ['Can I pay with a cheque?'], expect: { handoff: true, contains: [{ kind: 'regex', value: '^V2' }] }, required: true })).json().testCase;
    await co.call('POST', `/api/agents/${agentId}/versions`, { handoffMessage: 'V2 hands off.' });

    const started = await co.call('POST', `/api/agents/${agentId}/test-runs`, { version: 1 });
    expect(started.statusCode).toBe(202);
    expect(started.json().run).toMatchObject({ agentId, version: 1, createdBy: `user:${co.user.id}` });
    const v1 = await finished(co, agentId, started.json().run.id);
    expect(v1).toMatchObject({ passed: 1, failed: 1, requiredFailed: 1 });
    expect(v1.cases).toEqual([
      {
        caseId: shipping.id,
        name: 'Shipping',
        required: true,
        status: 'passed',
        answer: { text: expect.stringContaining('Norway'), handoff: false, documentIds: [doc.id] },
        results: [
          { check: 'contains', expected: '"norway"', passed: true },
          { check: 'noHandoff', expected: 'answers without handing off', passed: true },
          { check: 'cites', expected: doc.id, passed: true },
          { check: 'maxChars', expected: 'at most 500 characters', passed: true },
        ],
      },
      {
        caseId: cheque.id,
        name: 'Cheque',
        required: true,
        status: 'failed',
        answer: { text: 'V1 hands off.', handoff: true, documentIds: [] },
        results: [
          { check: 'contains', expected: '/^V2/', passed: false },
          { check: 'handoff', expected: 'hands off', passed: true },
        ],
      },
    ]);

    // Without a version: the draft (version 2), whose handoff message the case expects.
    const draftRun = (await co.call('POST', `/api/agents/${agentId}/test-runs`, {})).json().run;
    expect(draftRun.version).toBe(2);
    expect(await finished(co, agentId, draftRun.id)).toMatchObject({ passed: 2, failed: 0, requiredFailed: 0 });

    expect((await co.call('GET', '/api/conversations')).json().conversations).toEqual([]);
    expect((await co.call('POST', `/api/agents/${agentId}/test-runs`, { version: 9 })).statusCode).toBe(404);
  });

  it('agents read runs but may not start one; another company’s agent or run is 404', async () => {
    const agentId = await newAgent(acme);
    await acme.call('POST', `/api/agents/${agentId}/test-cases`, cheques);
    const runId = (await acme.call('POST', `/api/agents/${agentId}/test-runs`)).json().run.id as string;
    const bearer = await agentRole(acme);
    expect((await acme.call('POST', `/api/agents/${agentId}/test-runs`, {}, bearer)).statusCode).toBe(403);
    expect((await acme.call('GET', `/api/agents/${agentId}/test-runs/${runId}`, undefined, bearer)).statusCode).toBe(200);
    for (const [method, path] of [
      ['GET', `/api/agents/${agentId}/test-runs/${runId}`],
      ['POST', `/api/agents/${agentId}/test-runs`],
      ['GET', `/api/agents/${await newAgent(globex)}/test-runs/${runId}`],
    ] as const) {
      const res = await globex.call(method, path, method === 'POST' ? {} : undefined);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
  });
});

describe('a case from a conversation', () => {
  it('copies the customer turns and proposes the answer a person gave as the reference, in one step', async () => {
    const agentId = await newAgent(acme);
    const conv = await seedConversation(server.adapters.eventStore, acme.company.companyId, [
      { customer: ['Hello', 'anyone there?'], answer: { agent: 'Hi! How can I help?' } },
      { customer: ['Can I pay with a cheque?'], answer: { operator: 'Yes, cheques by post are fine.' } },
      { customer: ['Thanks'] },
    ]);
    const created = await acme.call('POST', `/api/agents/${agentId}/test-cases/from-conversation`, { conversationId: conv.conversationId, required: true });
    expect(created.statusCode).toBe(201);
    expect(created.json().testCase).toEqual({
      id: expect.stringMatching(UUID),
      name: 'From conversation: Can I pay with a cheque?',
      // A burst answered together is one turn.
      turns: ['Hello\nanyone there?', 'Can I pay with a cheque?'],
      expect: { judge: 'Gives the customer the same information as this answer from our team: "Yes, cheques by post are fine."' },
      required: true,
      reference: { kind: 'operator', text: 'Yes, cheques by post are fine.', conversationId: conv.conversationId },
      actionMocks: {},
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
      updatedBy: `user:${acme.user.id}`,
    });
    // Listed like any case, and the proposal can be replaced by the caller's own expectations.
    expect((await acme.call('GET', `/api/agents/${agentId}/test-cases`)).json().testCases.map((c: any) => c.id)).toEqual([created.json().testCase.id]);
    const own = await acme.call('POST', `/api/agents/${agentId}/test-cases/from-conversation`, { conversationId: conv.conversationId, name: 'Cheques', expect: { handoff: true } });
    expect(own.json().testCase).toMatchObject({ name: 'Cheques', expect: { handoff: true }, required: false });
  });

  it('an agent-role teammate may make one; another company’s conversation is 404', async () => {
    const agentId = await newAgent(acme);
    const bearer = await agentRole(acme);
    const own = await seedConversation(server.adapters.eventStore, acme.company.companyId, [{ customer: ['Do you ship to Norway?'], answer: { agent: 'We do.' } }]);
    const byAgent = await acme.call('POST', `/api/agents/${agentId}/test-cases/from-conversation`, { conversationId: own.conversationId }, bearer);
    expect(byAgent.statusCode).toBe(201);
    expect(byAgent.json().testCase).toMatchObject({ turns: ['Do you ship to Norway?'], expect: { handoff: false }, reference: { kind: 'agent', text: 'We do.' } });

    const theirs = await seedConversation(server.adapters.eventStore, globex.company.companyId, [{ customer: ['Secret question'], answer: { operator: 'Secret answer' } }]);
    const res = await acme.call('POST', `/api/agents/${agentId}/test-cases/from-conversation`, { conversationId: theirs.conversationId });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect(JSON.stringify(res.json())).not.toContain('Secret');
    // Nor through another company's agent.
    expect((await globex.call('POST', `/api/agents/${agentId}/test-cases/from-conversation`, { conversationId: theirs.conversationId })).statusCode).toBe(404);
  });
});
