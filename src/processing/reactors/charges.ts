import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { playgroundIdOfStream } from '../../domain/playground/decider.js';
import { playgroundEvents } from '../../domain/playground/events.js';
import { defineReactor } from '../reactor.js';
import { REACTOR_CONCURRENCY } from './jobs.js';

/**
 * AgentReplied ──▶ ConsumeCredits: the one place a stored reply is charged (so a crash after the reply cannot
 * lose the charge), once per reply id.
 *
 * Charges save their checkpoint after every batch, as before: a crash repeats at most one batch of charges. A
 * second's worth could reach past the credit decider's window of 200 recent reply ids, where only SQLite's
 * unique event ids (not EventStoreDB's) stop a second charge (issue 21 asks for a guard every engine keeps).
 */
export const creditChargesReactor = defineReactor(conversationEvents, {
  name: 'credit-charges',
  eventTypes: ['AgentReplied'],
  concurrency: REACTOR_CONCURRENCY,
  checkpointIntervalMs: 0,
  start: ({ commands, pricing }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      if (!companyId) return;
      const reply = event.data;
      await chargeUsage(
        { ...commands, pricing },
        {
          companyId,
          conversationId: conversationIdOfStream(event.stream),
          replyId: reply.messageId,
          model: reply.model,
          inputTokens: reply.inputTokens,
          outputTokens: reply.outputTokens,
        },
      );
    },
});

/**
 * PlaygroundAnswered ──▶ ConsumeCredits: a playground answer is charged like a customer's reply, from its stored
 * event, once per answer id, with no conversation. Checkpoint after every batch, like the credit charges.
 */
export const playgroundChargesReactor = defineReactor(playgroundEvents, {
  name: 'playground-charges',
  eventTypes: ['PlaygroundAnswered'],
  concurrency: REACTOR_CONCURRENCY,
  checkpointIntervalMs: 0,
  start: ({ commands, pricing }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      if (!companyId) return;
      const answer = event.data;
      await chargeUsage(
        { ...commands, pricing },
        {
          companyId,
          playgroundSessionId: playgroundIdOfStream(event.stream),
          replyId: answer.answerId,
          model: answer.model,
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
        },
      );
    },
});
