import { describe, it } from 'vitest';
import { playgroundActionCallDecider } from '../../../../../src/domain/playground/actionCalls/decider.js';
import type { PlaygroundActionCallEvent } from '../../../../../src/domain/playground/actionCalls/events.js';
import { specFor } from '../../../../support/gwt.js';

/** A live playground call, recorded for the action log: the attempt before the HTTP call, the outcome after, each once. */

const spec = specFor(playgroundActionCallDecider);
const CALL = 'ca110000-0000-4000-8000-000000000001';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:00:01.000Z';
const call = {
  callId: CALL,
  companyId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc',
  sessionId: 'dddddddd-dddd-4ddd-8ddd-dddddddddddd',
  answerId: 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee',
  actionId: 'ac000000-0000-4000-8000-000000000001',
  actionName: 'lookup_order',
  mode: 'auto' as const,
  arguments: { order_id: '4411' },
  by: 'user:u1',
};
const started: PlaygroundActionCallEvent = { type: 'PlaygroundActionCallStarted', data: { ...call, at: T } };
const finish = { type: 'FinishPlaygroundActionCall' as const, callId: CALL, ok: true, status: 200, durationMs: 12.4, response: '{"status":"shipped"}', error: null, now: T2 };

describe('a live playground call', () => {
  it('given nothing, when it starts, then the attempt is recorded before the call', () => {
    spec.given([]).when({ type: 'StartPlaygroundActionCall', ...call, now: T }).then([started]);
  });

  it('given it started, when it starts again, then it is refused: that would be a second HTTP call', () => {
    spec.given([started]).when({ type: 'StartPlaygroundActionCall', ...call, now: T2 }).thenThrows('CONFLICT');
  });

  it('given it started, when it finishes, then the outcome is recorded once (whole milliseconds); again, nothing', () => {
    const finished: PlaygroundActionCallEvent = { type: 'PlaygroundActionCallFinished', data: { callId: CALL, ok: true, status: 200, durationMs: 12, response: '{"status":"shipped"}', error: null, at: T2 } };
    spec.given([started]).when(finish).then([finished]);
    spec.given([started, finished]).when(finish).then([]);
  });

  it('given it never started, when an outcome arrives, then nothing is recorded', () => {
    spec.given([]).when(finish).then([]);
  });
});
