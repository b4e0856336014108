import type { ReplayEvent } from '../../domain/replays/events.js';
import type { ReplayMetrics } from '../../ports/metrics.js';

/**
 * Counts what a replay command appended: an answer by its status, a replay's end by its outcome. Called with
 * the events the command itself appended (none on a redelivery), so each is counted once, by whichever process
 * appended it.
 */
export function countReplayEvents(metrics: ReplayMetrics, events: readonly ReplayEvent[]): void {
  for (const e of events) {
    if (e.type === 'ReplayAnswerRecorded') metrics.answerRecorded(e.data.draft.status);
    else if (e.type === 'ReplayCompleted') metrics.replayFinished('completed');
    else if (e.type === 'ReplayFailed') metrics.replayFinished('failed');
    else if (e.type === 'ReplayCancelled') metrics.replayFinished('cancelled');
  }
}
