import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { loadCreditBalance } from '../../commands/credits/streamReads.js';
import type { CommandDeps } from '../../commands/deps.js';
import { handleCommand, loadState } from '../../commands/handleCommand.js';
import { deterministicId } from '../../commands/hashing.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import type { ConversationEvent, HandoffSummary } from '../../domain/conversations/events.js';
import type { Handoff } from '../../domain/conversations/state.js';
import { AI_BACKLOG, companyLlm } from '../replies/replyWorker.js';
import { extractiveSummary, readModelSummary, SUMMARY_TURNS, summaryPrompt } from '../../domain/conversations/handoffSummary.js';
import { billedUsage, estimateUsage, type BilledUsage, type Pricing } from '../../domain/credits/decider.js';
import type { Bus, BusSubscription } from '../../ports/bus.js';
import { BUILTIN_MODEL, isLlmError, promptChars } from '../../ports/llm.js';
import { createFairSlots } from '../../shared/fairness/fairSlots.js';
import { SUMMARIZE_HANDOFF, summarizeHandoffJob, type SummarizeHandoffJob } from './handoffSummaryJobs.js';
import { readRecentHistory } from '../answers/answerGeneration.js';
import type { CompanyLlm } from '../replies/replyDecisions.js';
import type { WorkerDeps } from '../../processing/workerDeps.js';
import { loadRedaction } from '../../commands/settings/streamReads.js';
import { createRedactor } from '../../domain/company/redaction/redact.js';
import { redactsFor } from '../../domain/company/redaction/state.js';

export interface HandoffSummaryDeps extends CommandDeps {
  bus: Bus;
  loadLlm(companyId: string): Promise<CompanyLlm>;
  pricing: Pricing;
  /** Summaries written at once in this process, and at most this many for one company. */
  concurrency: number;
  perCompanyConcurrency: number;
  maxDeliver?: number;
  backoffMs?: number[];
}

/** How long a job waits for its company's share of the slots before going to the back of the queue. */
const SLOT_WAIT_MS = 1000;
/** A summary is a short note: the model is not asked for more. */
const SUMMARY_MAX_TOKENS = 200;

/** The id a handoff's summary is recorded and charged under: the same for every job of that handoff. */
export const handoffSummaryId = (conversationId: string, since: string) => deterministicId(`handoff-summary:${conversationId}:${since}`);

/**
 * Writes the note the person taking over a handoff reads, off the customer's reply path: its own bus subject
 * and its own slots, shared fairly between companies (a company's flood of handoffs holds its share only, and a
 * job that finds its company's share taken steps to the back of the queue). The model's call is charged once
 * per handoff under the summary's id (the `charge-<summaryId>` guard), before the summary is recorded, so a
 * crash between the two cannot lose the charge and a redelivered job cannot charge it twice.
 */
export async function startHandoffSummaryWorker(deps: HandoffSummaryDeps): Promise<BusSubscription> {
  const slots = createFairSlots({ total: deps.concurrency, perCompany: deps.perCompanyConcurrency });
  const maxDeliver = deps.maxDeliver ?? 5;
  return deps.bus.subscribe<SummarizeHandoffJob>(
    SUMMARIZE_HANDOFF,
    { durable: 'handoff-summaries', concurrency: deps.concurrency * 2, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000] },
    async (message) => {
      const job = summarizeHandoffJob.parse(message.data);
      const release = await slots.acquire(job.companyId, SLOT_WAIT_MS);
      if (!release) {
        await deps.bus.publish(SUMMARIZE_HANDOFF, job, { dedupeId: `${message.dedupeId}:deferred:${Date.now()}` });
        return;
      }
      try {
        const outcome = await summarizeHandoff(deps, job);
        deps.logger.info({ ...job, outcome, delivery: message.deliveryCount }, 'handoff summary job done');
      } finally {
        release();
      }
    },
  );
}

export async function summarizeHandoff(deps: HandoffSummaryDeps, job: SummarizeHandoffJob): Promise<'summarized' | 'skipped'> {
  const stream = conversationStream(job.conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  const handoff = state.handoff.handoff;
  if (!handoff || state.summarizedHandoff === handoff.since) return 'skipped';
  // Handed over because the AI was overloaded: the reason says why, and a summary per message would add work
  // (a read and an append each, thousands under a flood) exactly when the processing side has none to spare.
  if (handoff.reason === 'ai_unanswered' && handoff.detail?.startsWith(AI_BACKLOG)) return 'skipped';
  const events = await readRecentHistory(deps.eventStore, stream, { unanswered: [], turns: SUMMARY_TURNS });
  const summaryId = handoffSummaryId(job.conversationId, handoff.since);
  const written = await writeSummary(deps, job, events, handoff, summaryId);
  const result = await handleCommand(
    deps.eventStore,
    stream,
    conversationDecider,
    { type: 'RecordHandoffSummary', summaryId, since: handoff.since, ...written, now: deps.clock.now().toISOString() },
    { metadata: { companyId: job.companyId, actor: 'ai-agent' } },
  );
  return result.events.length > 0 ? 'summarized' : 'skipped';
}

type Written = HandoffSummary & { writtenBy: 'llm' | 'extractive'; model: string; inputTokens: number; outputTokens: number };

/** The company's model writes it (charged), when it has one and credits; else, or when the model fails, it is extracted. */
async function writeSummary(deps: HandoffSummaryDeps, job: SummarizeHandoffJob, events: ConversationEvent[], handoff: Handoff, summaryId: string): Promise<Written> {
  const extracted = extractiveSummary(events, handoff);
  const fallback: Written = { ...extracted, writtenBy: 'extractive', model: BUILTIN_MODEL, inputTokens: 0, outputTokens: 0 };
  // The model just failed to answer: asking it again for a summary would only wait on it a second time.
  if (handoff.reason === 'ai_unanswered') return fallback;
  const llm = await deps.loadLlm(job.companyId);
  if (llm.kind === 'builtin' || !llm.model) return fallback;
  if ((await loadCreditBalance(deps.eventStore, job.companyId)) <= 0) return fallback;
  // Redaction before the model: as for the agent that answered here (its own setting, else the company's).
  const agentId = events.findLast((e) => e.type === 'AgentReplied')?.data.agentId;
  const redactor = redactsFor(await loadRedaction(deps.eventStore, job.companyId), agentId) ? createRedactor() : null;
  const messages = summaryPrompt(events).map((m) => (redactor && m.role === 'user' ? { ...m, content: redactor.redact(m.content) } : m));
  try {
    const answered = await llm.provider.complete({ model: llm.model, messages, temperature: 0, maxTokens: SUMMARY_MAX_TOKENS });
    const response = redactor ? { ...answered, text: redactor.restore(answered.text) } : answered;
    const billed = billedUsage(llm.model, response.usage, estimateUsage(promptChars(messages), response.text.length), deps.pricing);
    await charge(deps, job, summaryId, billed);
    return { ...extracted, ...readModelSummary(response.text, extracted), writtenBy: 'llm', model: billed.model.slice(0, 200), inputTokens: billed.inputTokens, outputTokens: billed.outputTokens };
  } catch (err) {
    if (!isLlmError(err)) throw err;
    deps.logger.warn({ ...job, err }, 'the model could not write a handoff summary: the extracted one is recorded');
    return fallback;
  }
}

function charge(deps: HandoffSummaryDeps, job: SummarizeHandoffJob, summaryId: string, billed: BilledUsage) {
  return chargeUsage(deps, {
    companyId: job.companyId,
    conversationId: job.conversationId,
    replyId: summaryId,
    model: billed.model,
    inputTokens: billed.inputTokens,
    outputTokens: billed.outputTokens,
    usageSource: billed.usageSource,
  });
}

/**
 * The summary worker of a processing thread: a quarter of the reply workers' slots at most (summaries never
 * crowd out customers' replies), and the company's share of them capped like the replays'.
 */
export async function startHandoffSummaries(deps: WorkerDeps): Promise<BusSubscription> {
  const { settings } = deps;
  return startHandoffSummaryWorker({
    ...deps.commands,
    logger: deps.logger.child({ component: 'handoff-summaries' }),
    bus: deps.bus,
    loadLlm: companyLlm(deps),
    pricing: deps.pricing,
    concurrency: Math.max(1, Math.floor(settings.workerConcurrency / 4)),
    perCompanyConcurrency: Math.max(1, Math.min(settings.perCompanyConcurrency, Math.floor(settings.workerConcurrency / 8))),
  });
}
