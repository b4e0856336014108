import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { loadCreditBalance } from '../../commands/credits/streamReads.js';
import type { CommandDeps } from '../../commands/deps.js';
import { loadState } from '../../commands/handleCommand.js';
import { readReplayTurns, type ReplayTurn } from '../../commands/replays/replayPlan.js';
import { failReplay, recordReplayAnswer, replayAnswerId } from '../../commands/replays/replays.js';
import type { Pricing } from '../../domain/credits/decider.js';
import { answerKey } from '../../domain/replays/state.js';
import { replayDecider, replayStream } from '../../domain/replays/decider.js';
import { REPLAY_LIMITS, replayEvents, type DraftAnswer, type ReplayDraft } from '../../domain/replays/events.js';
import type { Bus, BusSubscription } from '../../ports/bus.js';
import { isLlmError, type LlmPassage, type LlmProvider } from '../../ports/llm.js';
import { noopReplayMetrics, type ReplayMetrics } from '../../ports/metrics.js';
import { AnswerStopped, generateAnswer, recordedFieldsOf } from '../answers/answerGeneration.js';
import { countReplayEvents } from './countReplayEvents.js';
import { answerWithMockedActions, simulatedActions } from '../answers/mockedActions.js';
import { createFairSlots, type FairSlots } from '../../shared/fairness/fairSlots.js';
import { REPLAY_CANCELLED, RUN_AGENT_TESTS, RUN_REPLAY, replayCancelledNotice, runAgentTestsJob, runReplayJob, type RunReplayJob } from './replayJobs.js';
import { runAgentTests } from './agentTestRunner.js';
import { stopTestRun } from '../../commands/agents/testRuns.js';
import type { CompanyLlm } from '../replies/replyDecisions.js';
import { buildPrompt } from '../answers/answerGeneration.js';

export interface ReplayWorkerDeps extends CommandDeps {
  bus: Bus;
  loadLlm(companyId: string): Promise<CompanyLlm>;
  searchKnowledge(companyId: string, query: string, limit: number): Promise<LlmPassage[]>;
  pricing: Pricing;
  llmRetryDelaysMs: number[];
  /** Replayed answers generated at once in this process, and at most this many for one company. */
  concurrency: number;
  perCompanyConcurrency: number;
  maxDeliver?: number;
  backoffMs?: number[];
  /** Replay outcomes, answers and running jobs (Prometheus /metrics); none in tools and some tests. */
  metrics?: ReplayMetrics;
  /** The builtin provider test runs started on it answer with; without it this worker runs no tests. */
  builtinLlm?: LlmProvider;
}

/** How long a job waits for its company's share of the replay slots before stepping aside. */
const SLOT_WAIT_MS = 1000;

type Outcome = 'finished' | 'stopped' | 'deferred' | 'busy';

/**
 * Runs replay evaluations: one job per replayed conversation answers its turns one after the other with the
 * draft (generateAnswer + buildPrompt, as a customer's reply is produced), each turn's prompt built from the
 * conversation's events up to that turn only. Nothing is appended to the conversation and nothing is sent: the
 * answers go to the replay's own stream, once each (deterministic ids), and are charged as they are spent.
 *
 * Replays have their own slots, shared fairly between companies, so an evaluation never takes a worker from a
 * customer's reply. Before every LLM call the replay's status is read again (a cancel stops the next call), and
 * a cancel broadcast aborts the calls in flight.
 */
export async function startReplayWorker(deps: ReplayWorkerDeps): Promise<BusSubscription> {
  const maxDeliver = deps.maxDeliver ?? 5;
  const metrics = deps.metrics ?? noopReplayMetrics;
  const slots = createFairSlots({ total: deps.concurrency, perCompany: deps.perCompanyConcurrency });
  const inFlight = new Map<string, Set<AbortController>>();
  // A conversation's job runs once at a time in this process (a recovery sweep may publish it again).
  const running = new Set<string>();
  // Shutting down: the conversation's job stops between turns (and its call in flight is aborted) and is left
  // unacknowledged, so the bus redelivers it (or the start-up sweep republishes it) and the next process resumes.
  const shutdown = { stopping: false };
  const cancels = await deps.bus.listen<unknown>(REPLAY_CANCELLED, (data) => {
    const notice = replayCancelledNotice.safeParse(data);
    if (notice.success) for (const c of inFlight.get(notice.data.replayId) ?? []) c.abort();
  });
  const subscription = await deps.bus.subscribe<RunReplayJob>(
    RUN_REPLAY,
    { durable: 'replay-runner', concurrency: deps.concurrency * 2, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000] },
    async (message) => {
      const job = runReplayJob.parse(message.data);
      const key = `${job.replayId}:${job.conversationId}`;
      if (running.has(key)) return;
      running.add(key);
      const jobDone = metrics.jobStarted();
      let outcome: Outcome;
      try {
        outcome = await runConversation({ ...deps, metrics }, job, slots, inFlight, shutdown);
      } catch (err) {
        if (message.deliveryCount < maxDeliver || shutdown.stopping) throw err;
        deps.logger.error({ ...job, err, delivery: message.deliveryCount }, 'replay job failed for good');
        const failed = await failReplay(deps, { companyId: job.companyId, replayId: job.replayId, reason: 'job_failed', message: `replaying a conversation failed: ${errorText(err)}` });
        countReplayEvents(metrics, failed.events);
        return;
      } finally {
        running.delete(key);
        jobDone();
      }
      if (outcome === 'deferred') {
        // Its company already uses its share: back of the queue, under a new dedupe id, so others go first.
        await deps.bus.publish(RUN_REPLAY, job, { dedupeId: `${message.dedupeId}:deferred:${Date.now()}` });
      }
      deps.logger.info({ ...job, outcome, delivery: message.deliveryCount }, 'replay job done');
    },
  );
  const tests = deps.builtinLlm ? await subscribeTestRuns({ ...deps, builtinLlm: deps.builtinLlm }, slots, maxDeliver, shutdown) : null;
  return {
    async stop() {
      shutdown.stopping = true;
      for (const controllers of inFlight.values()) for (const c of controllers) c.abort();
      await subscription.stop();
      await cancels.stop();
      await tests?.stop();
    },
  };
}

/**
 * Agent test runs share the replay slots: a run never takes a customer's reply slot. A run whose job fails on
 * every delivery the bus allows is stopped, saying so: a release check waiting on it must not stay running for
 * ever (its gate then counts the required cases left unanswered as failed, and a new check can be started).
 */
async function subscribeTestRuns(deps: ReplayWorkerDeps & { builtinLlm: LlmProvider }, slots: FairSlots, maxDeliver: number, shutdown: { stopping: boolean }): Promise<BusSubscription> {
  return deps.bus.subscribe<unknown>(RUN_AGENT_TESTS, { durable: 'agent-test-runner', concurrency: deps.concurrency, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000] }, async (message) => {
    const job = runAgentTestsJob.parse(message.data);
    let outcome;
    try {
      outcome = await runAgentTests(deps, job, slots);
    } catch (err) {
      if (message.deliveryCount < maxDeliver || shutdown.stopping) throw err;
      deps.logger.error({ ...job, err, delivery: message.deliveryCount }, 'agent test run job failed for good');
      await stopTestRun(deps, { companyId: job.companyId, runId: job.runId, reason: 'job_failed', message: `answering the test cases failed: ${errorText(err)}` });
      return;
    }
    // Its company already uses its share: back of the queue, under a new dedupe id, so others go first.
    if (outcome === 'deferred') await deps.bus.publish(RUN_AGENT_TESTS, job, { dedupeId: `${message.dedupeId}:deferred:${Date.now()}` });
    deps.logger.info({ ...job, outcome, delivery: message.deliveryCount }, 'agent test run job done');
  });
}

async function runConversation(
  deps: ReplayWorkerDeps & { metrics: ReplayMetrics },
  job: RunReplayJob,
  slots: FairSlots,
  inFlight: Map<string, Set<AbortController>>,
  shutdown: { stopping: boolean },
): Promise<Outcome> {
  const interrupted = () => new Error('the replay worker is stopping: the job is left to be redelivered');
  const stream = replayStream(job.replayId);
  const status = async () => (await loadState(deps.eventStore, stream, replayDecider)).state;
  const first = await status();
  if (first.status !== 'running') return 'stopped';
  // The request is the stream's first event: one read, whatever the replay recorded since.
  const [requestedEvent] = await deps.eventStore.readStream(stream, { maxCount: 1 });
  const requested = replayEvents.ReplayRequested.parse(requestedEvent?.data);
  const planned = requested.conversations.find((c) => c.conversationId === job.conversationId);
  if (!planned) return 'stopped';
  const { turns } = await readReplayTurns(deps.eventStore, job.conversationId, { upToRevision: BigInt(planned.upToRevision), maxTurns: REPLAY_LIMITS.turnsPerConversation });

  for (const turn of turns.slice(0, planned.turns)) {
    if (shutdown.stopping) throw interrupted();
    const state = await status();
    if (state.status !== 'running') return 'stopped';
    if (state.recorded.includes(answerKey(job.conversationId, turn.turn))) continue;
    const release = await slots.acquire(job.companyId, SLOT_WAIT_MS);
    if (!release) return 'deferred';
    try {
      const draft = await answerTurn(deps, job, requested.draft, turn, status, inFlight);
      if (draft === 'stopped') {
        if (shutdown.stopping) throw interrupted();
        return 'stopped';
      }
      const appended = await recordReplayAnswer(deps, {
        replayId: job.replayId,
        companyId: job.companyId,
        conversationId: job.conversationId,
        turn: turn.turn,
        messageIds: turn.messageIds,
        customerText: turn.customerText,
        customerAt: turn.customerAt,
        recorded: turn.recorded,
        draft,
      });
      countReplayEvents(deps.metrics, appended.events);
    } finally {
      release();
    }
  }
  return 'finished';
}

async function answerTurn(
  deps: ReplayWorkerDeps & { metrics: ReplayMetrics },
  job: RunReplayJob,
  draft: ReplayDraft,
  turn: ReplayTurn,
  status: () => Promise<{ status: string }>,
  inFlight: Map<string, Set<AbortController>>,
): Promise<DraftAnswer | 'stopped'> {
  const llm = await deps.loadLlm(job.companyId);
  if (llm.kind !== 'builtin' && (await loadCreditBalance(deps.eventStore, job.companyId)) <= 0) {
    const failed = await failReplay(deps, { companyId: job.companyId, replayId: job.replayId, reason: 'credits_exhausted', message: 'The company ran out of credits: the replay stopped' });
    countReplayEvents(deps.metrics, failed.events);
    return 'stopped';
  }
  const controller = new AbortController();
  const controllers = inFlight.get(job.replayId) ?? new Set();
  inFlight.set(job.replayId, controllers.add(controller));
  try {
    // Read again once the call can be aborted: a cancel broadcast before this point is not missed.
    if ((await status()).status !== 'running') return 'stopped';
    const model = draft.model ?? llm.model ?? 'builtin';
    const profile = { agentId: draft.basedOnAgentId ?? job.replayId, companyId: job.companyId, active: true, name: 'draft', ...draft, model };
    const request = {
      companyId: job.companyId,
      provider: llm.provider,
      model,
      agent: draft,
      messages: buildPrompt(profile, turn.history, turn.messageIds),
      question: turn.customerText,
      signal: controller.signal,
    };
    // A replay never reaches a company's endpoint: its actions answer with their sample responses.
    const actions = await simulatedActions(deps.eventStore, job.companyId, draft.actionIds, llm.kind === 'builtin');
    const answerId = replayAnswerId(job.replayId, job.conversationId, turn.turn);
    const answer = actions.length > 0 ? await answerWithMockedActions(deps, request, { actions, answerId }) : await generateAnswer(deps, request);
    if (llm.kind !== 'builtin') {
      await chargeUsage(deps, {
        companyId: job.companyId,
        // Not a customer's reply: no conversation's (nor its integration's or agent's) spend; the replay says where it went.
        conversationId: '',
        replyId: replayAnswerId(job.replayId, job.conversationId, turn.turn),
        replayId: job.replayId,
        model: answer.billed.model,
        inputTokens: answer.billed.inputTokens,
        outputTokens: answer.billed.outputTokens,
        usageSource: answer.billed.usageSource,
      });
    }
    return { status: 'answered', ...recordedFieldsOf(answer) };
  } catch (err) {
    if (controller.signal.aborted) {
      // Cancelled mid-answer: the call was made all the same, and is charged on its estimated usage.
      if (err instanceof AnswerStopped && llm.kind !== 'builtin') {
        await chargeUsage(deps, { companyId: job.companyId, conversationId: '', replyId: replayAnswerId(job.replayId, job.conversationId, turn.turn), replayId: job.replayId, model: err.model, ...err.usage, usageSource: 'estimated' });
      }
      return 'stopped';
    }
    if (!isLlmError(err)) throw err;
    deps.logger.warn({ ...job, turn: turn.turn, err }, 'replayed answer failed');
    return { status: 'failed', error: `the language model failed (${err.kind}): ${err.message}`.slice(0, 500) };
  } finally {
    controllers.delete(controller);
    if (controllers.size === 0) inFlight.delete(job.replayId);
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message.slice(0, 200) : 'unknown error');
