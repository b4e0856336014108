import { replayIdOfStream } from '../../domain/replays/decider.js';
import { replayEvents } from '../../domain/replays/events.js';
import { REPLAY_CANCELLED, RUN_REPLAY } from './replayJobs.js';
import { defineReactor } from '../../processing/reactor.js';

/** ReplayRequested ──▶ RUN_REPLAY, one job per conversation; the replay worker evaluates it. */
export const replayJobsReactor = defineReactor(replayEvents, {
  name: 'replay-jobs',
  eventTypes: ['ReplayRequested'],
  start: ({ bus }) =>
    async (event) => {
      const requested = event.data;
      for (const c of requested.conversations) {
        await bus.publish(RUN_REPLAY, { replayId: requested.replayId, companyId: requested.companyId, conversationId: c.conversationId }, { dedupeId: `${event.id}:${c.conversationId}` });
      }
    },
});

/** ReplayCancelled ──▶ broadcast REPLAY_CANCELLED: every replay worker aborts the replay's calls in flight. */
export const replayCancelsReactor = defineReactor(replayEvents, {
  name: 'replay-cancels',
  eventTypes: ['ReplayCancelled'],
  start: ({ bus }) => (event) => bus.broadcast(REPLAY_CANCELLED, { replayId: replayIdOfStream(event.stream) }),
});
