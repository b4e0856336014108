import { conversationDecider, conversationStream } from '../domain/conversations/decider.js';
import { type ConversationState } from '../domain/conversations/state.js';
import type { ConversationEvent } from '../domain/conversations/events.js';
import type { Pricing, TokenUsage } from '../domain/credits/pricing.js';
import { chargeUsage } from '../commands/credits/chargeUsage.js';
import { DomainError } from '../domain/errors.js';
import { loadCreditBalance } from '../commands/credits/queries.js';
import { loadIntegration } from '../commands/integrations/queries.js';
import { handleCommand, loadState } from '../commands/handleCommand.js';
import { deterministicId } from '../commands/hashing.js';
import type { CommandDeps } from '../commands/deps.js';
import type { Bus, BusSubscription } from '../ports/bus.js';
import { isLlmError, type LlmMessage, type LlmPassage, type LlmProvider } from '../ports/llm.js';
import { AnswerStopped, generateAnswer, type GeneratedAnswer } from './answerGeneration.js';
import { createReplyStream } from './replyStream.js';
import type { AnswerThreshold } from '../domain/answers/evidence.js';
import { noopJobMetrics, type JobMetrics } from '../ports/metrics.js';
import { createFairScheduler, type FairScheduler } from './fairScheduler.js';
import type { ReplyLatency } from './replyLatency.js';
import { readRecentHistory } from './recentHistory.js';
import { GENERATE_REPLY, generateReplyJob, webchatSubject, type GenerateReplyJob } from './jobs.js';

export interface AgentProfile {
  agentId: string;
  companyId: string;
  active: boolean;
  name: string;
  systemPrompt: string;
  model: string | null;
  temperature: number;
  useKnowledgeBase: boolean;
  handoffMessage: string;
  answerThreshold?: AnswerThreshold;
}

export interface CompanyLlm {
  kind: 'builtin' | 'openai';
  provider: LlmProvider;
  model: string | null;
}

export interface ReplyWorkerDeps extends CommandDeps {
  bus: Bus;
  /** The company's agent, or null when missing, deleted or another company's. */
  loadAgent(companyId: string, agentId: string): Promise<AgentProfile | null>;
  loadLlm(companyId: string): Promise<CompanyLlm>;
  searchKnowledge(companyId: string, query: string, limit: number): Promise<LlmPassage[]>;
  pricing: Pricing;
  /** Messages closer together than this are answered once, together. */
  burstWindowMs: number;
  /** Waits between LLM attempts after a retryable failure (the SDK retries too). */
  llmRetryDelaysMs: number[];
  /** Jobs run at once in this process, and at most this many for one company. */
  concurrency?: number;
  perCompanyConcurrency?: number;
  /**
   * Conversations waiting for a reply in this process at most; beyond it the busiest company's newest one is
   * handed to people ("AI backlog"), so memory stays bounded and a quieter company always gets in.
   */
  queueCapacity?: number;
  /** A message still unanswered this long after it arrived goes to people ("AI backlog") instead of a late answer. */
  maxDelayMs?: number;
  /** Deliveries of one job before it fails for good (its messages are then marked unanswered), and the waits between. */
  maxDeliver?: number;
  backoffMs?: number[];
  /** Jobs held per company, waiting or running (the queue-depth metric). */
  jobMetrics?: JobMetrics;
  /** Notes when the messages of each stored reply arrived, for the send worker's latency figure. */
  replyLatency?: ReplyLatency;
}

const HISTORY_MESSAGES = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Outcome = { result: 'replied' | 'skipped' | 'unanswered' | 'dropped' | 'backlog'; reason: string };

/** What the "Needs human" queue shows for messages the AI could not get to in time. */
export const AI_BACKLOG = 'AI backlog';

export interface ReplyWorker extends BusSubscription {
  /** Reply jobs waiting and running in this process, per company. */
  scheduler: FairScheduler;
}

const DEFAULT_MAX_DELAY_MS = 300_000;

export async function startReplyWorker(deps: ReplyWorkerDeps): Promise<ReplyWorker> {
  const maxDeliver = deps.maxDeliver ?? 5;
  const concurrency = deps.concurrency ?? 8;
  const capacity = deps.queueCapacity ?? 10_000;
  const maxDelayMs = deps.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const scheduler = createFairScheduler({
    slots: concurrency,
    perCompany: deps.perCompanyConcurrency ?? Math.max(1, Math.floor((concurrency * 3) / 4)),
    capacity,
    maxDelayMs,
    supersede: true,
    now: () => deps.clock.now().getTime(),
  });
  const metrics = deps.jobMetrics ?? noopJobMetrics;
  metrics.watchBacklog('reply', () => scheduler.backlog());
  const subscription = await deps.bus.subscribe<GenerateReplyJob>(
    GENERATE_REPLY,
    // The bus hands over every job it holds at once, so the order in which they are answered is the scheduler's,
    // per company and conversation in turn, never the bus's arrival order. Besides the queue and the running
    // jobs, the handlers in flight hold jobs in their burst window and jobs being handed to people; the bus
    // must never stop delivering while they do, or a quieter company's job would wait in its FIFO again.
    { durable: 'reply-generator', concurrency: 2 * capacity + concurrency, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000] },
    async (message) => {
      const job = generateReplyJob.parse(message.data);
      const tracker = metrics.jobStarted('reply');
      tracker.waiting(job.companyId);
      // From the moment the job takes the message: the burst wait, the queue and a slow model are all "typing".
      const typing = typingIndicator(deps, job);
      try {
        const receivedAt = await burstWait(deps, job, typing);
        let outcome: Outcome = { result: 'skipped', reason: LATER_MESSAGE };
        const turn = await scheduler.submit({
          companyId: job.companyId,
          lane: job.conversationId,
          since: receivedAt,
          run: async (waitingSince) => {
            tracker.running(job.companyId);
            outcome = await generateReply(deps, job, typing);
            if (outcome.result === 'replied') deps.replyLatency?.replied(replyIdOf(job.messageId), waitingSince);
          },
        });
        if (turn === 'shed-full' || turn === 'shed-late') {
          if (typing.started) await typing.stop();
          const why = turn === 'shed-full' ? `${capacity} conversations were already waiting for an answer` : `no answer within ${Math.round(maxDelayMs / 1000)} s`;
          outcome = await handToPeople(deps, job, `${AI_BACKLOG}: ${why}`);
        }
        metrics.replyFinished(outcome.result);
        deps.logger.info({ ...job, ...outcome, delivery: message.deliveryCount }, 'reply job done');
      } catch (err) {
        if (message.deliveryCount < maxDeliver) throw err;
        metrics.replyFinished('failed');
        // Failing for good: the customer must not wait on a reply that will never come.
        deps.logger.error({ ...job, err, delivery: message.deliveryCount }, 'reply job failed for good: messages marked unanswered');
        await markUnanswered(deps, job, `the reply failed: ${err instanceof Error ? err.message.slice(0, 200) : 'unknown error'}`);
      } finally {
        tracker.done();
      }
    },
  );
  return { scheduler, stop: () => subscription.stop() };
}

/**
 * Messages closer together than the burst window are answered once, together: a job waits (holding no slot)
 * until its message's window has passed. Returns when the message arrived, which the queue's order and its
 * maximum delay count from.
 */
async function burstWait(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing: TypingIndicator): Promise<number> {
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (state.unanswered.includes(job.messageId)) await typing.start(state);
  let receivedAt = job.receivedAt ? Date.parse(job.receivedAt) : Number.NaN;
  // A job published before jobs carried the time: its conversation knows it.
  if (Number.isNaN(receivedAt)) receivedAt = state.lastCustomerMessageAt ? Date.parse(state.lastCustomerMessageAt) : deps.clock.now().getTime();
  const wait = receivedAt + deps.burstWindowMs - deps.clock.now().getTime();
  if (wait > 0) await sleep(wait);
  return receivedAt;
}

/**
 * One reply job per received message. Only the newest unanswered message of a burst generates, after
 * the burst window, and its reply answers every unanswered message together. The reply is appended
 * against the conversation as it was: a human taking over or a close meanwhile drops it.
 *
 * Per message it reads the conversation's cached state (only events appended since) and a bounded tail
 * for the prompt: its cost does not grow with the conversation's length.
 */
export async function generateReply(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing = typingIndicator(deps, job)): Promise<Outcome> {
  let outcome: Outcome | undefined;
  try {
    outcome = await generateReplyOnce(deps, job, typing);
    return outcome;
  } finally {
    // A stored reply ends the typing where it is pushed, with the message (the web chat route); a job that hands
    // the conversation on (a later message) leaves it on; anything else (no answer, a failure) ends it here.
    const handedOn = outcome?.reason === LATER_MESSAGE;
    if (typing.started && outcome?.result !== 'replied' && !handedOn) await typing.stop();
  }
}

const LATER_MESSAGE = 'a later message of the burst answers it';

/** The id of the reply a message's job writes: the same on every delivery, so a retry cannot store it twice. */
const replyIdOf = (messageId: string) => deterministicId(`reply:${messageId}`);

async function generateReplyOnce(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing: TypingIndicator): Promise<Outcome> {
  const stream = conversationStream(job.conversationId);
  for (;;) {
    const { state } = await loadState(deps.eventStore, stream, conversationDecider);
    if (!state.unanswered.includes(job.messageId)) return { result: 'skipped', reason: 'already answered' };
    if (state.unanswered.at(-1) !== job.messageId) return { result: 'skipped', reason: LATER_MESSAGE };
    await typing.start(state);
    // The job waited out its message's burst window before its turn; this only catches clocks that disagree.
    const wait = state.lastCustomerMessageAt ? Date.parse(state.lastCustomerMessageAt) + deps.burstWindowMs - deps.clock.now().getTime() : 0;
    if (wait > 0) {
      await sleep(wait);
      continue;
    }
    const history = await readRecentHistory(deps.eventStore, stream, { unanswered: state.unanswered, turns: HISTORY_MESSAGES });
    return await answerMessages(deps, job, state, history);
  }
}

/**
 * A message the AI cannot get to in time goes to people, if the AI would have answered it at all: a session
 * someone closed or took over, or an integration deleted or switched off meanwhile, records nothing (as when
 * its turn comes).
 */
async function handToPeople(deps: ReplyWorkerDeps, job: GenerateReplyJob, reason: string): Promise<Outcome> {
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (!state.unanswered.includes(job.messageId)) return { result: 'skipped', reason: 'already answered' };
  if (state.session?.state !== 'active') return { result: 'skipped', reason: `the AI session is ${state.session?.state ?? 'missing'}` };
  const integration = state.integrationId === null ? null : await loadIntegration(deps.eventStore, state.integrationId);
  if (integration === null || !integration.active) return { result: 'dropped', reason: 'integration deleted or inactive' };
  await markUnanswered(deps, job, reason);
  return { result: 'backlog', reason };
}

async function markUnanswered(deps: ReplyWorkerDeps, job: GenerateReplyJob, reason: string) {
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (state.unanswered.length === 0) return;
  await handleCommand(
    deps.eventStore,
    conversationStream(job.conversationId),
    conversationDecider,
    { type: 'MarkUnanswered', messageIds: [...state.unanswered], reason: reason.slice(0, 500), handoff: true, now: now(deps) },
    { metadata: { companyId: job.companyId, actor: 'ai-agent' } },
  );
}

async function answerMessages(deps: ReplyWorkerDeps, job: GenerateReplyJob, state: ConversationState, events: ConversationEvent[]): Promise<Outcome> {
  const session = state.session;
  if (!session || session.state !== 'active') return { result: 'skipped', reason: `the AI session is ${session?.state ?? 'missing'}` };
  const unanswered = [...state.unanswered];
  const markUnanswered = (reason: string, handoff: boolean) => command({ type: 'MarkUnanswered', messageIds: unanswered, reason, handoff, now: now(deps) });
  const command = (c: Parameters<typeof conversationDecider.decide>[0]) =>
    handleCommand(deps.eventStore, conversationStream(job.conversationId), conversationDecider, c, { metadata: { companyId: job.companyId, actor: 'ai-agent' } });

  const integration = await loadIntegration(deps.eventStore, state.integrationId!);
  if (integration === null || !integration.active) {
    deps.logger.warn({ ...job, integrationId: state.integrationId }, 'reply job dropped: the integration was deleted or deactivated');
    return { result: 'dropped', reason: 'integration deleted or inactive' };
  }
  const agent = integration.agentId ? await deps.loadAgent(job.companyId, integration.agentId) : null;
  if (!agent || !agent.active) {
    await markUnanswered('no active AI agent is assigned to this integration', false);
    return { result: 'unanswered', reason: 'no active agent' };
  }

  const llm = await deps.loadLlm(job.companyId);
  if (llm.kind !== 'builtin') {
    if ((await loadCreditBalance(deps.eventStore, job.companyId)) <= 0) {
      // No LLM call without credits: the session waits for a human or a top-up.
      await command({ type: 'PauseSession', reason: 'credits_exhausted', by: null, now: now(deps) });
      await markUnanswered('the company is out of credits', false);
      return { result: 'unanswered', reason: 'credits exhausted' };
    }
  }

  const texts = unanswered.map((id) => textOf(events, id)).filter(Boolean);
  const replyId = replyIdOf(job.messageId);
  // A web chat visitor watches the answer being written; a platform customer gets one message, as always
  // (and the builtin provider answers at once: nothing to stream).
  const stream =
    state.connectorType === 'webchat' && llm.kind !== 'builtin' ? createReplyStream({ bus: deps.bus, subject: webchatSubject(job.conversationId), replyId, logger: deps.logger }) : null;
  const takeover = stream ? watchForTakeover(deps, job, session.id) : null;
  let answer: GeneratedAnswer;
  try {
    answer = await generateAnswer(deps, {
      companyId: job.companyId,
      provider: llm.provider,
      model: agent.model ?? llm.model ?? 'builtin',
      agent,
      messages: buildPrompt(agent, events, unanswered),
      question: texts.join('\n'),
      ...(stream && takeover ? { onDelta: stream.push, signal: takeover.signal } : {}),
    });
    await stream?.finish();
  } catch (err) {
    await stream?.cancel();
    if (err instanceof AnswerStopped) {
      // A human took the conversation while the model was still writing: the stream stopped, nothing is stored.
      // The call was made all the same: it is charged on its estimated usage.
      deps.logger.info({ ...job }, 'streamed reply stopped: the AI session was taken over');
      await chargeDropped(deps, job, llm, err, replyId);
      return { result: 'dropped', reason: 'the AI session was taken over while answering' };
    }
    // Anything but the model's own failure (the knowledge search, the store) fails the job: it is redelivered,
    // and only after the last delivery are the messages marked unanswered with what went wrong.
    if (!isLlmError(err)) throw err;
    const reason = `the language model failed (${err.kind}): ${err.message}`;
    deps.logger.warn({ ...job, err }, 'LLM failed after retries: message left to a human');
    await markUnanswered(reason, true);
    return { result: 'unanswered', reason };
  } finally {
    takeover?.stop();
  }
  const { response, provenance } = answer;

  try {
    await command({
      type: 'AppendAgentReply',
      messageId: replyId,
      sessionId: session.id,
      agentId: agent.agentId,
      text: response.text,
      inReplyTo: unanswered,
      model: response.model,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      handoff: response.handoff === true,
      ...(response.handoff && response.handoffReason ? { handoffReason: response.handoffReason } : {}),
      provenance,
      now: now(deps),
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'REPLY_DROPPED') {
      deps.logger.info({ ...job, reason: err.message }, 'reply dropped before sending');
      await chargeDropped(deps, job, llm, response, replyId);
      return { result: 'dropped', reason: err.message };
    }
    throw err;
  }
  return { result: 'replied', reason: response.handoff ? 'handed off to a human' : 'answered' };
}

/**
 * A reply that is stored is charged by the credit-charges reactor, from its AgentReplied event (so a crash
 * cannot lose the charge). A dropped reply still cost an LLM call: it is charged here, once per reply id.
 */
async function chargeDropped(deps: ReplyWorkerDeps, job: GenerateReplyJob, llm: CompanyLlm, response: { model: string; usage: TokenUsage }, replyId: string) {
  if (llm.kind === 'builtin') return;
  await chargeUsage(deps, {
    companyId: job.companyId,
    conversationId: job.conversationId,
    replyId,
    model: response.model,
    inputTokens: response.usage.inputTokens,
    outputTokens: response.usage.outputTokens,
  }).catch((err) => deps.logger.error({ err, ...job, replyId }, 'the LLM usage of a dropped reply was not charged'));
}

function textOf(events: ConversationEvent[], messageId: string): string {
  const e = events.find((x) => x.type === 'MessageReceived' && x.data.messageId === messageId);
  return e?.type === 'MessageReceived' ? e.data.text : '';
}

/** System prompt, then the recent conversation as chat turns, ending with the unanswered customer messages. */
export function buildPrompt(agent: AgentProfile, events: ConversationEvent[], unanswered: string[]): LlmMessage[] {
  const turns: LlmMessage[] = [];
  for (const e of events) {
    if (e.type === 'MessageReceived' && !unanswered.includes(e.data.messageId)) turns.push({ role: 'user', content: e.data.text });
    else if (e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded') turns.push({ role: 'assistant', content: e.data.text });
  }
  const pending = unanswered.map((id) => textOf(events, id)).filter(Boolean);
  return [
    { role: 'system', content: agent.systemPrompt },
    ...turns.slice(-HISTORY_MESSAGES).filter((t) => t.content !== ''),
    { role: 'user', content: pending.join('\n') },
  ];
}

const now = (deps: CommandDeps) => deps.clock.now().toISOString();

/** How often a streamed answer checks that its AI session is still the active one. */
const TAKEOVER_CHECK_MS = 1000;

/**
 * While a reply streams to a visitor, a human taking over (pausing or closing the session) must stop it at
 * once rather than when the model is done. One cached state read per second per streaming reply.
 */
function watchForTakeover(deps: ReplyWorkerDeps, job: GenerateReplyJob, sessionId: string): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  let checking = false;
  const timer = setInterval(() => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider)
      .then(({ state }) => {
        if (state.session?.id !== sessionId || state.session.state !== 'active') controller.abort();
      })
      .catch((err) => deps.logger.warn({ ...job, err }, 'checking the AI session during a streamed reply failed'))
      .finally(() => (checking = false));
  }, TAKEOVER_CHECK_MS);
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

interface TypingIndicator {
  readonly started: boolean;
  start(state: ConversationState): Promise<void>;
  stop(): Promise<void>;
}

/** A web chat visitor sees "typing" while an active session's reply is on its way (best effort: never fails the job). */
function typingIndicator(deps: ReplyWorkerDeps, job: GenerateReplyJob): TypingIndicator {
  let started = false;
  const typing = (on: boolean) =>
    deps.bus.broadcast(webchatSubject(job.conversationId), { type: 'typing', on }).catch((err) => deps.logger.warn({ ...job, err }, 'typing notification lost'));
  return {
    get started() {
      return started;
    },
    async start(state) {
      if (started || state.connectorType !== 'webchat' || state.session?.state !== 'active') return;
      started = true;
      await typing(true);
    },
    stop: () => typing(false),
  };
}
