import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTestRun } from '../../src/commands/agents/testRuns.js';
import { handleCommand } from '../../src/commands/handleCommand.js';
import { agentTestRunStream, testRunDecider } from '../../src/domain/agents/testRuns/decider.js';
import { createInProcessBus } from '../../src/infrastructure/memory/inProcessBus.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { systemClock } from '../../src/ports/clock.js';
import type { LlmProvider } from '../../src/ports/llm.js';
import { silentLogger } from '../../src/ports/logger.js';
import { RUN_AGENT_TESTS } from '../../src/workers/replays/replayJobs.js';
import { startReplayWorker } from '../../src/workers/replays/replayWorker.js';
import { eventually } from '../support/eventually.js';

/**
 * Attack: a test run whose job fails on every delivery (here the company's LLM settings cannot be read). Before,
 * the run stayed "running" for ever and a release check waiting on it answered RELEASE_CHECKS_PENDING for ever;
 * it stops instead, saying why, so its gate reads failed.
 */

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe('attack: a test run job that fails for good', () => {
  it('given a run whose job throws on every delivery, when the bus gives up, then the run is stopped as job_failed with the cause in plain words', async () => {
    const eventStore = new MemoryEventStore();
    const bus = createInProcessBus({ logger: silentLogger });
    const deps = { eventStore, clock: systemClock, logger: silentLogger };
    const worker = await startReplayWorker({
      ...deps,
      bus,
      loadLlm: async () => {
        throw new Error('the LLM settings could not be read');
      },
      searchKnowledge: async () => [],
      pricing: { table: {}, defaultPrice: { inputMicrosPer1K: 0, outputMicrosPer1K: 0 } },
      llmRetryDelaysMs: [],
      concurrency: 1,
      perCompanyConcurrency: 1,
      maxDeliver: 3,
      backoffMs: [5],
      builtinLlm: { free: true } as unknown as LlmProvider,
    });
    stops.push(() => worker.stop());
    const runId = randomUUID();
    const companyId = randomUUID();
    const config = { systemPrompt: 'Be kind.', model: 'gpt-4o-mini', temperature: 0.3, useKnowledgeBase: false, handoffMessage: 'A colleague will reply.' };
    await handleCommand(eventStore, agentTestRunStream(runId), testRunDecider, {
      type: 'StartTestRun',
      runId,
      agentId: randomUUID(),
      companyId,
      version: 2,
      config,
      cases: [{ caseId: randomUUID(), name: 'Hi', turns: ['Hi'], expect: {}, required: true }],
      llm: { kind: 'openai', model: 'gpt-4o-mini' },
      estimatedCostMicros: 0,
      by: null,
      now: new Date().toISOString(),
    });
    await bus.publish(RUN_AGENT_TESTS, { runId, companyId }, { dedupeId: runId });

    const run = await eventually(async () => {
      const r = await loadTestRun(deps, companyId, runId);
      expect(r?.stopped).not.toBeNull();
      return r!;
    }, 5_000);
    expect(run.stopped).toMatchObject({ reason: 'job_failed', message: 'answering the test cases failed: the LLM settings could not be read' });
    expect(run.finished).toBeNull();
  });
});
