import { loadLlmConfig } from '../commands/llm/queries.js';
import { replayIdOfStream } from '../domain/replays/decider.js';
import { replayEvents } from '../domain/replays/events.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import { REPLAYS, type ReplayDoc } from '../projections/replays/replaysProjection.js';
import { startReactor } from './reactor.js';
import { REPLAY_CANCELLED, RUN_REPLAY } from './replayJobs.js';
import { startReplayWorker } from './replayWorker.js';
import { searchPassages } from './answerGeneration.js';
import type { ReplyPipelineDeps } from './replyPipeline.js';

/**
 * Replay evaluations on the processing side:
 *   ReplayRequested ──replay-jobs──▶ RUN_REPLAY (one job per conversation) ──replay worker──▶ ReplayAnswerRecorded…
 *   ReplayCancelled ──replay-cancels──▶ broadcast REPLAY_CANCELLED ──▶ every worker aborts the replay's calls in flight
 * With the embedded bus (jobs lost on a restart), running replays' jobs are published again at start-up; the
 * worker skips the answers already recorded, so a restart resumes where the replay was.
 */
export async function startReplayPipeline(deps: ReplyPipelineDeps): Promise<{ stop(): Promise<void> }> {
  const { commands, readStore, bus, logger } = deps;
  const { eventStore } = commands;
  const reactor = (name: string, eventTypes: string[], react: (event: RecordedEvent) => Promise<void>) =>
    startReactor({ name, eventStore, readStore, eventTypes, logger: logger.child({ component: 'reactor', reactor: name }), react, ...(deps.consumer ? { consumer: deps.consumer } : {}) });

  const reactors = [
    await reactor('replay-jobs', ['ReplayRequested'], async (event) => {
      const requested = replayEvents.ReplayRequested.parse(event.data);
      for (const c of requested.conversations) {
        await bus.publish(RUN_REPLAY, { replayId: requested.replayId, companyId: requested.companyId, conversationId: c.conversationId }, { dedupeId: `${event.id}:${c.conversationId}` });
      }
    }),
    await reactor('replay-cancels', ['ReplayCancelled'], (event) => bus.broadcast(REPLAY_CANCELLED, { replayId: replayIdOfStream(event.stream) })),
  ];

  const worker = deps.workers
    ? await startReplayWorker({
        ...commands,
        logger: logger.child({ component: 'replay-worker' }),
        bus,
        loadLlm: async (companyId) => {
          const llmConfig = await loadLlmConfig(eventStore, companyId);
          return { kind: llmConfig.provider, provider: deps.llmResolver(llmConfig), model: llmConfig.model };
        },
        searchKnowledge: searchPassages(deps.knowledge),
        pricing: deps.pricing,
        llmRetryDelaysMs: deps.settings.llmRetryDelaysMs,
        // Half the reply workers' slots at most: evaluations never crowd out customers' replies.
        concurrency: Math.max(1, Math.floor(deps.settings.workerConcurrency / 2)),
        perCompanyConcurrency: Math.max(1, Math.min(deps.settings.perCompanyConcurrency, Math.floor(deps.settings.workerConcurrency / 4))),
        ...(deps.replayMetrics ? { metrics: deps.replayMetrics } : {}),
      })
    : null;

  if (worker && deps.recoverJobs) {
    await deps.recoverJobs.waitForProjections();
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

  return {
    async stop() {
      for (const r of reactors) await r.stop();
      await worker?.stop();
    },
  };
}
