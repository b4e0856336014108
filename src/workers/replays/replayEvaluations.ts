import { DEFAULT_LLM_CONFIG } from '../../domain/llm/state.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { Bus } from '../../ports/bus.js';
import { REPLAYS, type ReplayDoc } from '../../projections/replays/replaysProjection.js';
import { RUNNING_TEST_RUNS, type RunningTestRunDoc } from '../../projections/runningTestRuns/runningTestRunsProjection.js';
import { RUN_AGENT_TESTS, RUN_REPLAY } from './replayJobs.js';
import { startReplayWorker } from './replayWorker.js';
import { searchPassages } from '../answers/answerGeneration.js';
import { companyLlm } from '../replies/replyWorker.js';
import type { WorkerDeps } from '../../processing/workerDeps.js';

/**
 * The replay worker, fed by the replay reactors' jobs (src/workers/replays/replayReactors.ts):
 *   RUN_REPLAY (one job per conversation) ──replay worker──▶ ReplayAnswerRecorded…
 *   REPLAY_CANCELLED (broadcast) ──▶ every worker aborts the replay's calls in flight
 * With the embedded bus (jobs lost on a restart), running replays' and agent test runs' jobs are published again
 * at start-up; the worker skips the answers already recorded, so a restart resumes where the replay or the run was
 * (and a release check waiting on them finishes).
 */
export async function startReplayEvaluations(deps: WorkerDeps): Promise<{ stop(): Promise<void> }> {
  const { commands, bus, logger, settings } = deps;
  const worker = await startReplayWorker({
    ...commands,
    logger: logger.child({ component: 'replay-worker' }),
    bus,
    loadLlm: companyLlm(deps),
    searchKnowledge: searchPassages(deps.knowledge),
    pricing: deps.pricing,
    llmRetryDelaysMs: settings.llmRetryDelaysMs,
    // Half the reply workers' slots at most: evaluations never crowd out customers' replies.
    concurrency: Math.max(1, Math.floor(settings.workerConcurrency / 2)),
    perCompanyConcurrency: Math.max(1, Math.min(settings.perCompanyConcurrency, Math.floor(settings.workerConcurrency / 4))),
    ...(deps.replayMetrics ? { metrics: deps.replayMetrics } : {}),
    builtinLlm: deps.llmResolver(DEFAULT_LLM_CONFIG),
  });
  if (deps.recoverJobs) {
    await deps.recoverJobs.waitForProjections();
    await republishRunningReplays(deps.readStore, bus);
    await republishRunningTestRuns(deps.readStore, bus);
  }
  return { stop: () => worker.stop() };
}

async function republishRunningReplays(readStore: ReadStore, bus: Bus): Promise<void> {
  let cursor: string | null = null;
  do {
    const page: { items: ReplayDoc[]; nextCursor: string | null } = await readStore.find<ReplayDoc>(REPLAYS, { where: { status: 'running' }, limit: 200, cursor });
    for (const r of page.items) {
      for (const c of r.conversations) {
        await bus.publish(RUN_REPLAY, { replayId: r.id, companyId: r.companyId, conversationId: c.conversationId }, { dedupeId: `recover:${r.id}:${c.conversationId}` });
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
}

async function republishRunningTestRuns(readStore: ReadStore, bus: Bus): Promise<void> {
  let cursor: string | null = null;
  do {
    const page: { items: RunningTestRunDoc[]; nextCursor: string | null } = await readStore.find<RunningTestRunDoc>(RUNNING_TEST_RUNS, { where: {}, limit: 200, cursor });
    for (const r of page.items) await bus.publish(RUN_AGENT_TESTS, { runId: r.id, companyId: r.companyId }, { dedupeId: `recover:${r.id}` });
    cursor = page.nextCursor;
  } while (cursor);
}
