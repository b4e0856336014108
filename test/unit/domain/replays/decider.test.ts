import { describe, expect, it } from 'vitest';
import { replayDecider, type ReplayCommand } from '../../../../src/domain/replays/decider.js';
import type { ReplayEvent } from '../../../../src/domain/replays/events.js';
import { specFor } from '../../../support/gwt.js';

const R1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const OTHER = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const CV = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';

const replay = specFor(replayDecider);
const draft = { basedOnAgentId: null, systemPrompt: 'Be brief.', model: null, temperature: 0.2, useKnowledgeBase: false, handoffMessage: 'A human will answer.' };
const request = {
  replayId: R1,
  companyId: CO,
  requestedBy: 'user:x',
  draft,
  llm: { kind: 'builtin' as const, model: 'builtin' },
  conversations: [{ conversationId: CV, upToRevision: '9', turns: 2 }],
  total: 2,
  estimatedCostMicros: 0,
};
const requested: ReplayEvent = { type: 'ReplayRequested', data: { ...request, at: T0 } };
const answer = (turn: number, messageId: string) => ({
  conversationId: CV,
  turn,
  messageIds: [messageId],
  customerText: `question ${turn}`,
  customerAt: T0,
  recorded: { kind: 'none' as const },
  draft: { status: 'failed' as const, error: 'the language model failed (timeout): slow' },
});
const record = (turn: number, messageId: string, companyId = CO): ReplayCommand => ({ type: 'RecordReplayAnswer', companyId, ...answer(turn, messageId), now: T1 });
const recorded = (turn: number, messageId: string): ReplayEvent => ({ type: 'ReplayAnswerRecorded', data: { ...answer(turn, messageId), at: T1 } });
const cancel: ReplayCommand = { type: 'CancelReplay', companyId: CO, by: 'user:x', now: T1 };
const cancelled: ReplayEvent = { type: 'ReplayCancelled', data: { by: 'user:x', at: T1 } };
const completed: ReplayEvent = { type: 'ReplayCompleted', data: { at: T1 } };

describe('replay decider', () => {
  it('given nothing, when a replay is requested, then it runs with its total', () => {
    const state = replay.given([]).when({ type: 'RequestReplay', ...request, now: T0 }).then([requested]);
    expect(state).toMatchObject({ status: 'running', total: 2, recorded: [] });
  });

  it('refuses a replay with nothing to answer, or a total its conversations do not add up to', () => {
    replay.given([]).when({ type: 'RequestReplay', ...request, conversations: [{ ...request.conversations[0]!, turns: 0 }], total: 0, now: T0 }).thenThrows('VALIDATION_ERROR');
    replay.given([]).when({ type: 'RequestReplay', ...request, total: 3, now: T0 }).thenThrows('VALIDATION_ERROR');
    replay.given([requested]).when({ type: 'RequestReplay', ...request, now: T0 }).thenThrows('CONFLICT');
  });

  it('given a running replay, when an answer lands, then it is recorded; the last one completes the replay', () => {
    replay.given([requested]).when(record(0, M1)).then([recorded(0, M1)]);
    replay.given([requested, recorded(0, M1)]).when(record(1, M2)).then([recorded(1, M2), completed]);
  });

  it('given an answer already recorded, when it lands again (a redelivered job), then nothing is recorded', () => {
    replay.given([requested, recorded(0, M1)]).when(record(0, M1)).then([]);
  });

  it('given a cancelled replay, when an answer lands, then it is not recorded', () => {
    replay.given([requested, cancelled]).when(record(0, M1)).then([]);
  });

  it('cancels a running replay once; cancelling again is a no-op; a completed one cannot be cancelled', () => {
    replay.given([requested]).when(cancel).then([cancelled]);
    replay.given([requested, cancelled]).when(cancel).then([]);
    replay.given([requested, recorded(0, M1), recorded(1, M2), completed]).when(cancel).thenThrows('CONFLICT');
  });

  it('fails a running replay with its reason; a finished one stays as it is', () => {
    const fail: ReplayCommand = { type: 'FailReplay', companyId: CO, reason: 'credits_exhausted', message: 'out of credits', now: T1 };
    const state = replay.given([requested]).when(fail).then([{ type: 'ReplayFailed', data: { reason: 'credits_exhausted', message: 'out of credits', at: T1 } }]);
    expect(state).toMatchObject({ status: 'failed' });
    replay.given([requested, cancelled]).when(fail).then([]);
  });

  it("another company's replay is not found", () => {
    replay.given([requested]).when(record(0, M1, OTHER)).thenThrows('NOT_FOUND');
    replay.given([requested]).when({ ...cancel, companyId: OTHER }).thenThrows('NOT_FOUND');
    replay.given([]).when(cancel).thenThrows('NOT_FOUND');
  });
});
