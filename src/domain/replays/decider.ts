import type { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { replayEvents, type ReplayEvent } from './events.js';
import { answerKey, evolveReplay, initialReplayState, type ReplayState } from './state.js';

type Requested = z.infer<typeof replayEvents.ReplayRequested>;
type Answer = z.infer<typeof replayEvents.ReplayAnswerRecorded>;

export type ReplayCommand =
  | ({ type: 'RequestReplay' } & Omit<Requested, 'at'> & { now: string })
  | ({ type: 'RecordReplayAnswer'; companyId: string } & Omit<Answer, 'at'> & { now: string })
  | { type: 'FailReplay'; companyId: string; reason: z.infer<typeof replayEvents.ReplayFailed>['reason']; message: string; now: string }
  | { type: 'CancelReplay'; companyId: string; by: string | null; now: string };

const notFound = () => new DomainError('NOT_FOUND', 'Replay not found');

export const replayDecider: Decider<ReplayCommand, ReplayEvent, ReplayState> = {
  initialState: initialReplayState,
  evolve: evolveReplay,
  decide(command, state) {
    if (command.type === 'RequestReplay') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'Replay already exists');
      const { type: _t, now, ...data } = command;
      const turns = data.conversations.reduce((n, c) => n + c.turns, 0);
      if (turns === 0) throw new DomainError('VALIDATION_ERROR', 'The selected conversations have no customer messages to replay');
      if (turns !== data.total) throw new DomainError('VALIDATION_ERROR', `total ${data.total} does not match the conversations' ${turns} turns`);
      const parsed = replayEvents.ReplayRequested.safeParse({ ...data, at: now });
      if (!parsed.success) throw new DomainError('VALIDATION_ERROR', `replay: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return [{ type: 'ReplayRequested', data: parsed.data }];
    }
    // Another company's replay is indistinguishable from a missing one.
    if (state.status === 'none' || state.companyId !== command.companyId) throw notFound();
    switch (command.type) {
      case 'RecordReplayAnswer': {
        // A cancelled, failed or completed replay records nothing more; a redelivered answer is recorded once.
        const key = answerKey(command.conversationId, command.turn);
        if (state.status !== 'running' || state.recorded.includes(key)) return [];
        const { type: _t, companyId: _c, now, ...data } = command;
        const recorded: ReplayEvent = { type: 'ReplayAnswerRecorded', data: { ...data, at: now } };
        return state.recorded.length + 1 >= state.total ? [recorded, { type: 'ReplayCompleted', data: { at: now } }] : [recorded];
      }
      case 'FailReplay':
        if (state.status !== 'running') return [];
        return [{ type: 'ReplayFailed', data: { reason: command.reason, message: command.message.slice(0, 500), at: command.now } }];
      case 'CancelReplay':
        if (state.status === 'cancelled') return [];
        if (state.status !== 'running') throw new DomainError('CONFLICT', `The replay is already ${state.status}`);
        return [{ type: 'ReplayCancelled', data: { by: command.by, at: command.now } }];
    }
  },
};

export const replayStream = (replayId: string) => `replay-${replayId}`;
export const replayIdOfStream = (stream: string) => stream.slice('replay-'.length);
