import { conversationDecider, conversationStream, type ConversationState } from '../domain/conversations/decider.js';
import type { ConversationEvent } from '../domain/conversations/events.js';
import { creditsDecider, creditsStream } from '../domain/credits/credits.js';
import type { Pricing } from '../domain/credits/pricing.js';
import { chargeUsage } from '../commands/credits/chargeUsage.js';
import { DomainError } from '../domain/errors.js';
import { integrationDecider, integrationStream } from '../domain/integrations/integration.js';
import { handleCommand, loadState, toDomainEvent } from '../commands/handleCommand.js';
import { deterministicId } from '../commands/hashing.js';
import type { CommandDeps } from '../commands/ports.js';
import type { Bus, BusSubscription } from '../ports/bus.js';
import { isLlmError, type LlmMessage, type LlmPassage, type LlmProvider, type LlmResponse } from '../ports/llm.js';
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
  concurrency?: number;
}

const HISTORY_MESSAGES = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Outcome = { result: 'replied' | 'skipped' | 'unanswered' | 'dropped'; reason: string };

export async function startReplyWorker(deps: ReplyWorkerDeps): Promise<BusSubscription> {
  return deps.bus.subscribe<GenerateReplyJob>(
    GENERATE_REPLY,
    { durable: 'reply-generator', concurrency: deps.concurrency ?? 8, maxDeliver: 5, backoffMs: [1000, 5000, 15000] },
    async (message) => {
      const job = generateReplyJob.parse(message.data);
      const outcome = await generateReply(deps, job);
      deps.logger.info({ ...job, ...outcome, delivery: message.deliveryCount }, 'reply job done');
    },
  );
}

/**
 * One reply job per received message. Only the newest unanswered message of a burst generates, after
 * the burst window, and its reply answers every unanswered message together. The reply is appended
 * against the conversation as it was: a human taking over or a close meanwhile drops it.
 */
export async function generateReply(deps: ReplyWorkerDeps, job: GenerateReplyJob): Promise<Outcome> {
  const stream = conversationStream(job.conversationId);
  for (;;) {
    const history = await deps.eventStore.readStream(stream);
    const events = history.map((e) => toDomainEvent<ConversationEvent>(e));
    const state = events.reduce(conversationDecider.evolve, conversationDecider.initialState);
    if (!state.unanswered.includes(job.messageId)) return { result: 'skipped', reason: 'already answered' };
    if (state.unanswered.at(-1) !== job.messageId) return { result: 'skipped', reason: 'a later message of the burst answers it' };
    const received = events.find((e) => e.type === 'MessageReceived' && e.data.messageId === job.messageId);
    const wait = received ? Date.parse(received.data.at) + deps.burstWindowMs - deps.clock.now().getTime() : 0;
    if (wait > 0) {
      await sleep(wait);
      continue;
    }
    return withTyping(deps, job, state, () => answer(deps, job, state, events));
  }
}

async function answer(deps: ReplyWorkerDeps, job: GenerateReplyJob, state: ConversationState, events: ConversationEvent[]): Promise<Outcome> {
  const session = state.session;
  if (!session || session.state !== 'active') return { result: 'skipped', reason: `the AI session is ${session?.state ?? 'missing'}` };
  const unanswered = [...state.unanswered];
  const markUnanswered = (reason: string, handoff: boolean) => command({ type: 'MarkUnanswered', messageIds: unanswered, reason, handoff, now: now(deps) });
  const command = (c: Parameters<typeof conversationDecider.decide>[0]) =>
    handleCommand(deps.eventStore, conversationStream(job.conversationId), conversationDecider, c, { metadata: { companyId: job.companyId, actor: 'ai-agent' } });

  const { state: integration } = await loadState(deps.eventStore, integrationStream(state.integrationId!), integrationDecider);
  if (integration.status !== 'active_record' || !integration.active) {
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
    const { state: credits } = await loadState(deps.eventStore, creditsStream(job.companyId), creditsDecider);
    if (credits.balanceMicros <= 0) {
      // No LLM call without credits: the session waits for a human or a top-up.
      await command({ type: 'PauseSession', reason: 'credits_exhausted', by: null, now: now(deps) });
      await markUnanswered('the company is out of credits', false);
      return { result: 'unanswered', reason: 'credits exhausted' };
    }
  }

  const texts = unanswered.map((id) => textOf(events, id)).filter(Boolean);
  const passages = agent.useKnowledgeBase ? await deps.searchKnowledge(job.companyId, texts.join('\n'), 5) : [];
  const model = agent.model ?? llm.model ?? 'builtin';
  let response: LlmResponse;
  try {
    response = await completeWithRetries(deps, llm.provider, {
      model,
      temperature: agent.temperature,
      messages: buildPrompt(agent, events, unanswered),
      passages,
      handoffMessage: agent.handoffMessage,
    });
  } catch (err) {
    const reason = isLlmError(err) ? `the language model failed (${err.kind}): ${err.message}` : 'the language model failed';
    deps.logger.warn({ ...job, err }, 'LLM failed after retries: message left to a human');
    await markUnanswered(reason, true);
    return { result: 'unanswered', reason };
  }

  const replyId = deterministicId(`reply:${job.messageId}`);
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
async function chargeDropped(deps: ReplyWorkerDeps, job: GenerateReplyJob, llm: CompanyLlm, response: LlmResponse, replyId: string) {
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

async function completeWithRetries(deps: ReplyWorkerDeps, provider: LlmProvider, request: Parameters<LlmProvider['complete']>[0]) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await provider.complete(request);
    } catch (err) {
      const delay = deps.llmRetryDelaysMs[attempt];
      if (!isLlmError(err) || !err.retryable || delay === undefined) throw err;
      deps.logger.warn({ kind: err.kind, attempt: attempt + 1, retryInMs: delay }, 'LLM call failed; retrying');
      await sleep(delay);
    }
  }
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

/** A web chat visitor sees "typing" while an active session's reply is generated (best effort: never fails the job). */
async function withTyping<T>(deps: ReplyWorkerDeps, job: GenerateReplyJob, state: ConversationState, generate: () => Promise<T>): Promise<T> {
  if (state.connectorType !== 'webchat' || state.session?.state !== 'active') return generate();
  const typing = (on: boolean) =>
    deps.bus.broadcast(webchatSubject(job.conversationId), { type: 'typing', on }).catch((err) => deps.logger.warn({ ...job, err }, 'typing notification lost'));
  await typing(true);
  try {
    return await generate();
  } finally {
    await typing(false);
  }
}
