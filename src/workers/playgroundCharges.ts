import { chargeUsage } from '../commands/credits/chargeUsage.js';
import type { CommandDeps } from '../commands/deps.js';
import type { Pricing } from '../domain/credits/pricing.js';
import { playgroundIdOfStream } from '../domain/playground/decider.js';
import { type PlaygroundAnswer } from '../domain/playground/events.js';
import type { RecordedEvent } from '../ports/eventStore.js';

/**
 * A playground answer is charged like a customer's reply: from its stored PlaygroundAnswered event by a reactor
 * (so a crash after the answer cannot lose the charge), once per answer id, with no conversation.
 */
export async function chargePlaygroundAnswer(deps: CommandDeps & { pricing: Pricing }, event: RecordedEvent) {
  const answer = event.data as PlaygroundAnswer;
  const companyId = event.metadata.companyId;
  if (!companyId) return;
  await chargeUsage(deps, {
    companyId,
    playgroundSessionId: playgroundIdOfStream(event.stream),
    replyId: answer.answerId,
    model: answer.model,
    inputTokens: answer.inputTokens,
    outputTokens: answer.outputTokens,
  });
}
