import { creditsDecider, creditsStream } from '../../domain/credits/decider.js';
import { costMicros, type Pricing } from '../../domain/credits/pricing.js';
import { handleCommand } from '../handleCommand.js';
import { deterministicId } from '../hashing.js';
import type { CommandDeps } from '../deps.js';

/** What an LLM call answered: a customer's conversation, or a question in the agent playground. */
export type UsageFor = { conversationId: string; playgroundSessionId?: undefined } | { playgroundSessionId: string; conversationId?: undefined };

export type Usage = UsageFor & {
  companyId: string;
  /** The reply (or playground answer) the LLM call produced: charges are idempotent per reply. */
  replyId: string;
  /** A replay evaluation's answer (its replyId is the replayed answer's id; conversationId ''): no customer's reply. */
  replayId?: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
};

/** Charges one LLM call at the model's price; free calls (the builtin provider uses no tokens) leave no entry. */
export async function chargeUsage(deps: CommandDeps & { pricing: Pricing }, usage: Usage) {
  const cost = costMicros(usage.model, usage, deps.pricing.table, deps.pricing.defaultPrice);
  if (cost === 0) return null;
  return handleCommand(
    deps.eventStore,
    creditsStream(usage.companyId),
    chargeOnce(usage.replyId),
    {
      type: 'ConsumeCredits',
      costMicros: cost,
      model: usage.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      // A playground answer has no conversation: '' keeps the event's field a string for every reader.
      conversationId: usage.conversationId ?? '',
      ...(usage.playgroundSessionId !== undefined ? { playgroundSessionId: usage.playgroundSessionId } : {}),
      replyId: usage.replyId,
      ...(usage.replayId ? { replayId: usage.replayId } : {}),
      now: deps.clock.now().toISOString(),
    },
    { metadata: { companyId: usage.companyId, actor: 'ai-agent' }, maxRetries: 50 },
  );
}

/** The charge of one reply has an id derived from the reply: charging it twice appends nothing, however late. */
const chargeOnce = (replyId: string): typeof creditsDecider => ({
  ...creditsDecider,
  decide: (command, state) => creditsDecider.decide(command, state).map((e) => ({ ...e, id: deterministicId(`charge:${replyId}:${e.type}`) })),
});
