import { chargeUsage, type UsageFor } from '../../commands/credits/chargeUsage.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { Pricing } from '../../domain/credits/decider.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { playgroundIdOfStream } from '../../domain/playground/decider.js';
import { playgroundEvents } from '../../domain/playground/events.js';
import { defineReactor, REACTOR_CONCURRENCY } from '../../processing/reactor.js';

/**
 * AgentReplied ──▶ ConsumeCredits: the one place a stored reply is charged (so a crash after the reply cannot
 * lose the charge), once per reply id.
 *
 * The reply records what it is charged for (generateAnswer's billed usage: the configured model, the reported
 * usage or the estimate when that is more, flagged in provenance.usageEstimated). Charges save their checkpoint
 * after every batch: a crash repeats at most one batch, and chargeUsage's guard (`charge-<replyId>`) recognises
 * a reply charged before however old, on every event store.
 */
export const creditChargesReactor = defineReactor(conversationEvents, {
  name: 'credit-charges',
  eventTypes: ['AgentReplied'],
  concurrency: REACTOR_CONCURRENCY,
  checkpointIntervalMs: 0,
  start: ({ commands, pricing }) =>
    async (event) => {
      const reply = event.data;
      // The handoff message sent because the model failed called no model: nothing to charge.
      if (reply.aiFailed) return;
      await chargeAnswer({ ...commands, pricing }, event.metadata.companyId, { conversationId: conversationIdOfStream(event.stream) }, {
        answerId: reply.messageId,
        ...reply,
      });
    },
});

/**
 * PlaygroundAnswered ──▶ ConsumeCredits: a playground answer is charged like a customer's reply, from its stored
 * event (its billed usage), once per answer id, with no conversation. Checkpoint after every batch, like the
 * credit charges.
 */
export const playgroundChargesReactor = defineReactor(playgroundEvents, {
  name: 'playground-charges',
  eventTypes: ['PlaygroundAnswered'],
  concurrency: REACTOR_CONCURRENCY,
  checkpointIntervalMs: 0,
  start: ({ commands, pricing }) =>
    async (event) => {
      await chargeAnswer({ ...commands, pricing }, event.metadata.companyId, { playgroundSessionId: playgroundIdOfStream(event.stream) }, event.data);
    },
});

interface BilledAnswer {
  answerId: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  provenance?: { usageEstimated?: boolean } | null;
}

/** Charges one stored answer for the usage it records; events without a company (none are written) charge nothing. */
async function chargeAnswer(deps: CommandDeps & { pricing: Pricing }, companyId: string | undefined, where: UsageFor, answer: BilledAnswer): Promise<void> {
  if (!companyId) return;
  await chargeUsage(deps, {
    companyId,
    ...where,
    replyId: answer.answerId,
    model: answer.model,
    inputTokens: answer.inputTokens,
    outputTokens: answer.outputTokens,
    ...(answer.provenance ? { usageSource: answer.provenance.usageEstimated ? 'estimated' : 'reported' } : {}),
  });
}
