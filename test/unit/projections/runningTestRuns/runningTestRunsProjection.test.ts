import { describe, it } from 'vitest';
import { runningTestRunsProjection } from '../../../../src/projections/runningTestRuns/runningTestRunsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const R1 = '11111111-1111-4111-8111-111111111111';
const R2 = '22222222-2222-4222-8222-222222222222';
const R3 = '33333333-3333-4333-8333-333333333333';
const K = '44444444-4444-4444-8444-444444444444';
const at = '2026-01-01T10:00:00.000Z';
const config = { systemPrompt: 'Be kind.', model: null, temperature: 0.3, useKnowledgeBase: true, handoffMessage: 'A colleague will reply.' };
const started = (runId: string, cases: unknown[]) => recorded(`agenttestrun-${runId}`, 'AgentTestRunStarted', { runId, agentId: A, companyId: C, version: 1, config, cases, by: null, at });
const oneCase = [{ caseId: K, name: 'Hi', turns: ['Hi'], expect: {}, required: true }];

describe('runningTestRuns projection', () => {
  it('given runs started, finished and stopped, then only the one still answering its cases is listed (what a restart resumes)', async () => {
    await projectionSpec(runningTestRunsProjection)
      .given([
        started(R1, oneCase),
        started(R2, oneCase),
        recorded(`agenttestrun-${R2}`, 'AgentTestRunStopped', { reason: 'job_failed', message: 'answering the test cases failed', at }),
        started(R3, []),
        recorded(`agenttestrun-${R3}`, 'AgentTestRunFinished', { passed: 0, failed: 0, requiredFailed: 0, at }),
      ])
      .then({ runningTestRuns: [{ id: R1, companyId: C }] });
  });
});
