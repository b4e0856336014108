import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { RETENTION_LIMITS, type RetentionEvent } from './events.js';
import { evolveRetention, initialRetentionState, type RetentionState } from './state.js';

export type RetentionCommand = { type: 'SetRetentionPolicy'; conversationDays: number | null; by: string; now: string };

const PREFIX = 'retention-';
export const retentionStream = (companyId: string) => `${PREFIX}${companyId}`;
export const companyIdOfRetentionStream = (stream: string) => (stream.startsWith(PREFIX) ? stream.slice(PREFIX.length) : null);

export const retentionDecider: Decider<RetentionCommand, RetentionEvent, RetentionState> = {
  initialState: initialRetentionState,
  evolve: evolveRetention,
  decide(command, state) {
    const days = command.conversationDays;
    if (days !== null && (!Number.isInteger(days) || days < RETENTION_LIMITS.minDays || days > RETENTION_LIMITS.maxDays)) {
      throw new DomainError('VALIDATION_ERROR', `conversationDays: a whole number of days from ${RETENTION_LIMITS.minDays} to ${RETENTION_LIMITS.maxDays}, or null to keep forever`);
    }
    // Setting what is already set records nothing (a double click, a retried request).
    if (days === state.conversationDays) return [];
    return [{ type: 'RetentionPolicySet', data: { conversationDays: days, by: command.by, at: command.now } }];
  },
};
