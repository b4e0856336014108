import { loadAgent } from '../../commands/agents/streamReads.js';
import { caseFromConversation, removeTestCase, saveTestCase } from '../../commands/agents/testCases.js';
import { estimateTestRun, loadTestRun, startTestRun, type TestRun } from '../../commands/agents/testRuns.js';
import { AGENT_TEST_CASES, type AgentTestCaseDoc } from '../../projections/agentTestCases/agentTestCasesProjection.js';
import { listAgentTestCases } from '../../projections/agentTestCases/queries.js';
import { authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import { idempotencyKeyOf, markRepeated } from '../idempotencyKey.js';
import type { HttpServices } from '../services.js';
import {
  caseFromConversationSchema,
  createTestCaseSchema,
  deleteTestCaseSchema,
  estimateTestRunSchema,
  getTestRunSchema,
  listTestCasesSchema,
  replaceTestCaseSchema,
  startTestRunSchema,
  testCaseView,
  type TestRunView,
} from './agentTests.schemas.js';
import { parseAgentId } from './agentVersions.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The company's agent id (checked on its stream), or 404. */
async function companyAgentId(services: HttpServices, companyId: string, rawId: string): Promise<string> {
  const agentId = parseAgentId(rawId);
  if (!(await loadAgent(services.commands.eventStore, companyId, agentId))) throw notFound('Agent');
  return agentId;
}

const parseCaseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Test case');
  return raw.toLowerCase();
};

async function caseDoc(services: HttpServices, caseId: string): Promise<AgentTestCaseDoc> {
  const doc = await services.readStore.get<AgentTestCaseDoc>(AGENT_TEST_CASES, caseId);
  if (!doc) throw notFound('Test case');
  return doc;
}

function caseStatus(result: TestRun['checked'][number] | undefined): TestRunView['cases'][number]['status'] {
  if (!result) return 'pending';
  if (!result.passed) return 'failed';
  return result.results.some((r) => r.verdict === 'not_judged') ? 'not_judged' : 'passed';
}

export function testRunView(run: TestRun): TestRunView {
  const { started, finished, stopped } = run;
  const checked = new Map(run.checked.map((c) => [c.caseId, c]));
  const failed = run.checked.filter((c) => !c.passed);
  return {
    id: started.runId,
    agentId: started.agentId,
    version: started.version,
    status: finished ? 'finished' : stopped ? 'stopped' : 'running',
    stopped: stopped ? { reason: stopped.reason, message: stopped.message } : null,
    provider: started.llm?.kind ?? 'builtin',
    model: started.llm?.model ?? 'builtin',
    estimatedCostMicros: started.estimatedCostMicros ?? 0,
    createdAt: started.at,
    createdBy: started.by,
    passed: run.checked.length - failed.length,
    failed: failed.length,
    requiredFailed: failed.filter((c) => started.cases.find((k) => k.caseId === c.caseId)?.required).length,
    cases: started.cases.map(({ caseId, name, required }) => {
      const result = checked.get(caseId);
      return { caseId, name, required, status: caseStatus(result), answer: result?.answer ?? null, results: result?.results ?? [] };
    }),
  };
}

/** /api/agents/:id/test-cases and test-runs: every role reads and edits test cases and reads runs; managers start runs. */
export function registerAgentTests(app: ZodApp, services: HttpServices): void {
  registerTestRuns(app, services);
  app.get('/api/agents/:id/test-cases', { schema: listTestCasesSchema }, async (request) => {
    const agentId = await companyAgentId(services, authOf(request).companyId, request.params.id);
    const page = await listAgentTestCases(services.readStore, agentId, request.query);
    return { testCases: page.items.map(testCaseView), nextCursor: page.nextCursor };
  });

  app.post('/api/agents/:id/test-cases', { schema: createTestCaseSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const result = await saveTestCase(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId, caseId: null, body: request.body });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ testCase: testCaseView(await caseDoc(services, result.caseId)) });
  });

  app.post('/api/agents/:id/test-cases/from-conversation', { schema: caseFromConversationSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const { conversationId, name, required, expect } = request.body;
    const input = { companyId: auth.companyId, userId: auth.userId, agentId, conversationId: conversationId.toLowerCase(), name: name ?? null, required, expect: expect ?? null };
    const result = await caseFromConversation(services.commands, input);
    await services.waitForProjections(result.position);
    return reply.status(201).send({ testCase: testCaseView(await caseDoc(services, result.caseId)) });
  });

  app.put('/api/agents/:id/test-cases/:caseId', { schema: replaceTestCaseSchema }, async (request) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const caseId = parseCaseId(request.params.caseId);
    const result = await saveTestCase(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId, caseId, body: request.body });
    await services.waitForProjections(result.position);
    return { testCase: testCaseView(await caseDoc(services, caseId)) };
  });

  app.delete('/api/agents/:id/test-cases/:caseId', { schema: deleteTestCaseSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const result = await removeTestCase(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId, caseId: parseCaseId(request.params.caseId) });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}

function registerTestRuns(app: ZodApp, services: HttpServices): void {
  const deps = { ...services.commands, pricing: services.config.pricing };
  app.post('/api/agents/:id/test-runs/estimate', { schema: estimateTestRunSchema }, async (request) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const { version, llm, cases, messages, costMicros } = await estimateTestRun(deps, { companyId: auth.companyId, agentId, version: request.body?.version ?? null });
    return { estimate: { version, cases, messages, costMicros, provider: llm.kind, model: llm.model } };
  });

  app.post('/api/agents/:id/test-runs', { schema: startTestRunSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const idempotencyKey = idempotencyKeyOf(request);
    const input = { companyId: auth.companyId, userId: auth.userId, agentId, version: request.body?.version ?? null, confirmedCostMicros: request.body?.confirmedCostMicros ?? 0 };
    const started = await startTestRun(deps, idempotencyKey ? { ...input, idempotencyKey } : input);
    const run = await loadTestRun(services.commands, auth.companyId, started.runId);
    if (!run) throw notFound('Test run');
    return markRepeated(reply, started.repeated).status(202).send({ run: testRunView(run) });
  });

  app.get('/api/agents/:id/test-runs/:runId', { schema: getTestRunSchema }, async (request) => {
    const { companyId } = authOf(request);
    const agentId = await companyAgentId(services, companyId, request.params.id);
    const run = UUID.test(request.params.runId) ? await loadTestRun(services.commands, companyId, request.params.runId.toLowerCase()) : null;
    if (!run || run.started.agentId !== agentId) throw notFound('Test run');
    return { run: testRunView(run) };
  });
}
