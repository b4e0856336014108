import { wakeDueSnooze } from '../../commands/conversations/triage.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { ConversationDoc } from '../../projections/conversations/conversationsProjection.js';
import { snoozesByWakeTime } from '../../projections/conversations/queries.js';
import { startTimedSweep, sweepOnce, type TimedSweep } from '../../processing/timedSweep.js';

export interface SnoozeWakeDeps extends CommandDeps {
  readStore: ReadStore;
  sweepIntervalMs: number;
}

/**
 * The clock of snoozes: a timed sweep of the conversations read model, soonest wake first, that brings each
 * snoozed conversation whose time has passed back to the open queues (ConversationWoke, reason time). The
 * times live in the read model, so a restart loses none; each wake is an idempotent decision on the
 * conversation's own stream, so two instances sweeping at once record it once.
 */
export function startSnoozeWake(deps: SnoozeWakeDeps): { stop(): Promise<void> } {
  return startTimedSweep(snoozeSweep(deps));
}

/** One pass: how many conversations it woke. */
export const sweepDueSnoozes = (deps: SnoozeWakeDeps, settled?: Set<string>) => sweepOnce(snoozeSweep(deps), settled);

function snoozeSweep(deps: SnoozeWakeDeps): TimedSweep<ConversationDoc> {
  return {
    name: 'the snooze sweep',
    intervalMs: deps.sweepIntervalMs,
    logger: deps.logger,
    now: () => deps.clock.now().getTime(),
    page: (limit, cursor) => snoozesByWakeTime(deps.readStore, limit, cursor),
    due: (doc, now) => doc.snoozedUntil !== null && Date.parse(doc.snoozedUntil) <= now,
    // The snooze, not the conversation: a conversation snoozed again later is a new item.
    key: (doc) => `${doc.id}@${doc.snoozedUntil}`,
    companyOf: (doc) => doc.companyId,
    async handle(doc) {
      const result = await wakeDueSnooze(deps, doc.companyId, doc.id);
      return result.events.length === 0 ? 'settled' : 'done';
    },
  };
}
