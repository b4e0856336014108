import { endExpiredWait } from '../../commands/conversations/actionApprovals.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { PendingActionCallDoc } from '../../projections/pendingActionCalls/pendingActionCallsProjection.js';
import { pendingCallsByDeadline } from '../../projections/pendingActionCalls/queries.js';
import { startTimedSweep, sweepOnce, type TimedSweep } from '../../processing/timedSweep.js';

export interface ActionExpiryDeps extends CommandDeps {
  readStore: ReadStore;
  sweepIntervalMs: number;
}

/**
 * The clock of action calls that wait: a timed sweep of the pending-calls read model, earliest deadline first,
 * that ends each wait whose `expiresAt` has passed (an approval expires into a handoff, a confirmation met with
 * silence is declined). The deadlines live in the read model, so a restart loses none; each end is a decision on
 * the conversation's own stream, idempotent, so two instances sweeping at once record it once. A call whose end
 * recorded nothing (decided meanwhile) is settled: skipped until the read model drops it.
 */
export function startActionExpiry(deps: ActionExpiryDeps): { stop(): Promise<void> } {
  return startTimedSweep(expirySweep(deps));
}

/** One pass: how many waits it ended. */
export const sweepExpiredCalls = (deps: ActionExpiryDeps, settled?: Set<string>) => sweepOnce(expirySweep(deps), settled);

function expirySweep(deps: ActionExpiryDeps): TimedSweep<PendingActionCallDoc> {
  return {
    name: 'the action expiry sweep',
    intervalMs: deps.sweepIntervalMs,
    logger: deps.logger,
    now: () => deps.clock.now().getTime(),
    page: (limit, cursor) => pendingCallsByDeadline(deps.readStore, limit, cursor),
    due: (doc, now) => Date.parse(doc.expiresAt) <= now,
    key: (doc) => doc.callId,
    companyOf: (doc) => doc.companyId,
    async handle(doc) {
      const result = await endExpiredWait(deps, doc.conversationId, doc.callId, doc.mode);
      if (result.events.length === 0) return 'settled';
      deps.logger.info({ conversationId: doc.conversationId, callId: doc.callId, mode: doc.mode }, doc.mode === 'approve' ? 'action approval expired: handed off' : 'action confirmation declined for silence');
      return 'done';
    },
  };
}
