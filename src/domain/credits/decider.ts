import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { CreditEvent } from './events.js';
import { evolveCredits, initialCreditState, type CreditState } from './state.js';

export type CreditCommand =
  | { type: 'GrantCredits'; amountMicros: number; reason: string; grantedBy: string | null; now: string }
  | {
      type: 'ConsumeCredits';
      costMicros: number;
      model: string;
      inputTokens: number;
      outputTokens: number;
      usageSource?: 'reported' | 'estimated';
      conversationId: string;
      /** An agent-playground answer (conversationId is then ''). */
      playgroundSessionId?: string;
      replyId: string;
      replayId?: string;
      testRunId?: string;
      testAnswer?: true;
      now: string;
    };

export const creditsDecider: Decider<CreditCommand, CreditEvent, CreditState> = {
  initialState: initialCreditState,
  evolve: evolveCredits,
  decide(command, state) {
    switch (command.type) {
      case 'GrantCredits':
        if (!Number.isSafeInteger(command.amountMicros) || command.amountMicros <= 0) {
          throw new DomainError('VALIDATION_ERROR', 'amountMicros must be a positive integer');
        }
        return [
          { type: 'CreditsGranted', data: { amountMicros: command.amountMicros, reason: command.reason, grantedBy: command.grantedBy, at: command.now } },
        ];
      case 'ConsumeCredits': {
        if (state.chargedReplies.includes(command.replyId)) return [];
        // The balance never goes below zero: the last reply is charged what is left.
        const amount = Math.min(command.costMicros, Math.max(0, state.balanceMicros));
        return [
          {
            type: 'CreditsConsumed',
            data: {
              amountMicros: amount,
              model: command.model,
              inputTokens: command.inputTokens,
              outputTokens: command.outputTokens,
              ...(command.usageSource ? { usageSource: command.usageSource } : {}),
              conversationId: command.conversationId,
              ...(command.playgroundSessionId !== undefined ? { playgroundSessionId: command.playgroundSessionId } : {}),
              replyId: command.replyId,
              ...(command.replayId ? { replayId: command.replayId } : {}),
              ...(command.testRunId ? { testRunId: command.testRunId } : {}),
              ...(command.testAnswer ? { testAnswer: true as const } : {}),
              at: command.now,
            },
          },
        ];
      }
    }
  },
};

export const creditsStream = (companyId: string) => `credits-${companyId}`;
export const companyIdOfCreditsStream = (stream: string) => stream.slice('credits-'.length);
