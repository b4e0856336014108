import { actionCallEvents, type ActionCallEventType } from '../domain/conversations/actionCalls.js';
import type { EventStore, RecordedEvent } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { ActionCallMetrics, ActionCallOutcome } from '../ports/metrics.js';
import type { ReadStore } from '../ports/readStore.js';
import { ACTION_CALLS, type ActionCallDoc } from '../projections/actionCalls/actionCallsProjection.js';
import type { EventConsumer } from './eventConsumer.js';
import { isEventOf } from './eventOfType.js';

/** Calls whose action this process remembers from their request; older ones are looked up in the action log. */
export const REMEMBERED_CALLS = 10_000;

const ENDINGS = {
  ActionCallSucceeded: 'succeeded',
  ActionCallFailed: 'failed',
  ActionCallRejected: 'rejected',
  ActionCallDeclined: 'declined',
  ActionCallRefused: 'refused',
  ActionApprovalExpired: 'expired',
} as const satisfies Partial<Record<ActionCallEventType, ActionCallOutcome>>;
const ENDING_TYPES = Object.keys(ENDINGS) as (keyof typeof ENDINGS)[];

/** The call an event ends, how, and how long the call took when it was made; null for any other event. */
function endingOf(event: RecordedEvent): { callId: string; outcome: ActionCallOutcome; durationMs: number | null } | null {
  for (const type of ENDING_TYPES) {
    if (!isEventOf(actionCallEvents, type, event)) continue;
    const data = event.data;
    return { callId: data.callId, outcome: ENDINGS[type], durationMs: 'durationMs' in data ? data.durationMs : null };
  }
  return null;
}

/**
 * Feeds the per-action metrics from the action-call events as they are recorded (from the head at start: the
 * metrics count since the process started), whoever recorded them: the reply worker, an approval, the expiry
 * sweep. A call's end names only its callId; its action comes from the request this process saw (a bounded
 * memory), else from the action log, else it is not counted. Constant cost per event.
 */
export async function watchActionCallMetrics(options: { consumer: EventConsumer; eventStore: EventStore; readStore: ReadStore; metrics: ActionCallMetrics; logger: Logger }): Promise<() => Promise<void>> {
  const { readStore, metrics, logger } = options;
  const actionOf = new Map<string, string>();
  const remember = (callId: string, actionId: string) => {
    actionOf.set(callId, actionId);
    if (actionOf.size > REMEMBERED_CALLS) actionOf.delete(actionOf.keys().next().value!);
  };
  const lookUp = async (callId: string): Promise<string | null> => {
    const known = actionOf.get(callId);
    if (known) return known;
    // Best effort: a metric never holds up the thread's consumer.
    const doc = await readStore.get<ActionCallDoc>(ACTION_CALLS, callId).catch((err: unknown) => void logger.warn({ err }, 'action call metrics: a call could not be looked up'));
    return doc?.actionId ?? null;
  };

  const observe = async (event: RecordedEvent) => {
    if (isEventOf(actionCallEvents, 'ActionCallRequested', event)) return remember(event.data.callId, event.data.actionId);
    const ending = endingOf(event);
    if (!ending) return;
    const actionId = await lookUp(ending.callId);
    actionOf.delete(ending.callId);
    if (actionId) metrics.callEnded(actionId, ending.outcome, ending.durationMs);
  };

  let position = await options.eventStore.headPosition();
  const attached = options.consumer.attach({
    name: 'action-call-metrics',
    filter: { streamPrefixes: ['conversation-'], eventTypes: ['ActionCallRequested', ...ENDING_TYPES] },
    resumeAfter: async () => position,
    handle: async (events, through) => {
      for (const event of events) await observe(event);
      position = through;
    },
  });
  return () => attached.detach();
}
