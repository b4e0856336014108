import { randomUUID } from 'node:crypto';
import { conversationStream } from '../../domain/conversations/decider.js';
import type { Pricing } from '../../domain/credits/decider.js';
import { DomainError } from '../../domain/errors.js';
import { answerKey } from '../../domain/replays/state.js';
import { replayDecider, replayStream, type ReplayCommand } from '../../domain/replays/decider.js';
import type { ReplayConversation, ReplayDraft } from '../../domain/replays/events.js';
import { loadLlmConfig } from '../llm/streamReads.js';
import { handleCommand } from '../handleCommand.js';
import { deterministicId } from '../hashing.js';
import type { CommandDeps } from '../deps.js';
import { firstEventOf, idForKey, startOnce, type IdempotencyKey } from '../idempotentStart.js';
import { estimateTurn, readReplayTurns, type AnsweringLlm } from './replayPlan.js';

/** Estimate, request, record into and cancel a replay evaluation (`replay-<uuid>`); another company's is NOT_FOUND. */

export interface ReplayEstimate {
  llm: AnsweringLlm;
  conversations: ReplayConversation[];
  /** Customer turns to answer (each one LLM call). */
  messages: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/**
 * What a replay of these conversations with this draft would answer and cost, from the conversations as they
 * are now (their revision is kept: the replay reads nothing later). Unknown or another company's conversation: NOT_FOUND.
 */
export async function estimateReplay(
  deps: CommandDeps & { pricing: Pricing },
  input: { companyId: string; draft: ReplayDraft; conversationIds: string[] },
): Promise<ReplayEstimate> {
  const llm = await answeringLlm(deps, input.companyId, input.draft.model);
  const conversations: ReplayConversation[] = [];
  let messages = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  for (const conversationId of new Set(input.conversationIds)) {
    await expectOwnConversation(deps, input.companyId, conversationId);
    const tail = await readReplayTurns(deps.eventStore, conversationId);
    conversations.push({ conversationId, upToRevision: String(tail.revision < 0n ? 0n : tail.revision), turns: tail.turns.length });
    for (const turn of tail.turns) {
      const e = estimateTurn(input.draft, turn, llm, deps.pricing);
      messages++;
      inputTokens += e.inputTokens;
      outputTokens += e.outputTokens;
      cost += e.costMicros;
    }
    // Let other requests run between conversations (each read is a few bounded pages).
    await new Promise((r) => setImmediate(r));
  }
  return { llm, conversations, messages, inputTokens, outputTokens, costMicros: cost };
}

/** The company's provider now, and the model an agent (or draft) with `model` is answered by on it. */
export async function answeringLlm(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, model: string | null): Promise<AnsweringLlm> {
  const config = await loadLlmConfig(deps.eventStore, companyId);
  return { kind: config.provider, model: model ?? config.model ?? 'builtin' };
}

/**
 * A paid run starts only once the user confirmed its cost: a confirmation below the estimate made now (the
 * conversations or cases grew, the price or the model changed) is refused with the new estimate.
 */
export function confirmCost(estimate: { costMicros: number; messages: number }, confirmedCostMicros: number): void {
  if (estimate.costMicros > confirmedCostMicros) {
    throw new DomainError(
      'CONFLICT',
      `The estimated cost is now ${estimate.costMicros} micro-dollars for ${estimate.messages} messages (confirmed ${confirmedCostMicros}): confirm the new estimate`,
    );
  }
}

/** The conversation's first event says whose it is: one read, strongly consistent. */
export async function expectOwnConversation(deps: CommandDeps, companyId: string, conversationId: string) {
  const [first] = await deps.eventStore.readStream(conversationStream(conversationId), { maxCount: 1 });
  if (!first || first.type !== 'ConversationStarted' || (first.data as { companyId?: string }).companyId !== companyId) {
    throw new DomainError('NOT_FOUND', `Conversation ${conversationId} not found`);
  }
}

type ReplayRequest = { companyId: string; userId: string | null; draft: ReplayDraft; conversationIds: string[]; confirmedCostMicros: number };

/**
 * Starts a replay once the user confirmed its cost: the estimate is made again, and a confirmation below it
 * (the conversations grew, the price or the model changed) is refused with the new estimate. Under an
 * idempotency key (idempotentStart.ts) the key names the replay: sent again, it answers with the first one.
 */
export async function requestReplay(deps: CommandDeps & { pricing: Pricing }, input: ReplayRequest & { idempotencyKey?: IdempotencyKey; keyPart?: string }) {
  const key = input.idempotencyKey;
  if (!key) return { ...(await startReplay(deps, input, randomUUID())), repeated: false };
  const replayId = idForKey(input.companyId, input.keyPart ? 'release-check' : 'replay', key.key, input.keyPart);
  let started: Awaited<ReturnType<typeof startReplay>> | null = null;
  const first = () => firstEventOf<{ requestHash?: string }>(deps, replayStream(replayId));
  const repeated = await startOnce(key, first, async () => void (started = await startReplay(deps, input, replayId, key.requestHash)));
  if (started) return { ...(started as Awaited<ReturnType<typeof startReplay>>), repeated };
  return { replayId, estimate: null, position: (await first())?.position ?? null, repeated };
}

async function startReplay(deps: CommandDeps & { pricing: Pricing }, input: ReplayRequest, replayId: string, requestHash?: string) {
  const estimate = await estimateReplay(deps, input);
  confirmCost(estimate, input.confirmedCostMicros);
  const result = await handleCommand(
    deps.eventStore,
    replayStream(replayId),
    replayDecider,
    {
      type: 'RequestReplay',
      replayId,
      companyId: input.companyId,
      requestedBy: input.userId ? `user:${input.userId}` : null,
      draft: input.draft,
      llm: estimate.llm,
      conversations: estimate.conversations.filter((c) => c.turns > 0),
      total: estimate.messages,
      estimatedCostMicros: estimate.costMicros,
      ...(requestHash ? { requestHash } : {}),
      now: deps.clock.now().toISOString(),
    },
    { metadata: { companyId: input.companyId, actor: input.userId ? `user:${input.userId}` : 'api' } },
  );
  return { replayId, estimate, position: result.position };
}

export async function cancelReplay(deps: CommandDeps, input: { companyId: string; userId: string | null; replayId: string }) {
  return handleCommand(
    deps.eventStore,
    replayStream(input.replayId),
    replayDecider,
    { type: 'CancelReplay', companyId: input.companyId, by: input.userId ? `user:${input.userId}` : null, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: input.userId ? `user:${input.userId}` : 'api' } },
  );
}

type RecordInput = Omit<Extract<ReplayCommand, { type: 'RecordReplayAnswer' }>, 'type' | 'now'> & { replayId: string };

/** The id of a replayed answer: the same for every delivery of its job, so it is recorded (and charged) once. */
export const replayAnswerId = (replayId: string, conversationId: string, turn: number) => deterministicId(`replay-answer:${replayId}:${answerKey(conversationId, turn)}`);

export async function recordReplayAnswer(deps: CommandDeps, input: RecordInput) {
  const { replayId, ...answer } = input;
  const id = replayAnswerId(replayId, input.conversationId, input.turn);
  return handleCommand(
    deps.eventStore,
    replayStream(replayId),
    { ...replayDecider, decide: (c, s) => replayDecider.decide(c, s).map((e) => ({ ...e, id: deterministicId(`${id}:${e.type}`) })) },
    { type: 'RecordReplayAnswer' as const, ...answer, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: 'replay' }, maxRetries: 50 },
  );
}

export async function failReplay(deps: CommandDeps, input: { companyId: string; replayId: string; reason: 'credits_exhausted' | 'job_failed'; message: string }) {
  return handleCommand(
    deps.eventStore,
    replayStream(input.replayId),
    replayDecider,
    { type: 'FailReplay', companyId: input.companyId, reason: input.reason, message: input.message, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: 'replay' }, maxRetries: 50 },
  );
}
