import { describe, expect, it } from 'vitest';
import { PLAYGROUND_LIMITS, playgroundEvents, type PlaygroundEvent } from '../../../../src/domain/playground/events.js';
import { playgroundDecider } from '../../../../src/domain/playground/decider.js';
import { playgroundTurns } from '../../../../src/domain/playground/turns.js';
import { specFor } from '../../../support/gwt.js';

const S1 = '11111111-1111-4111-8111-111111111111';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const Q1 = '0000000a-0000-4000-8000-000000000001';
const Q2 = '0000000a-0000-4000-8000-000000000002';
const R1 = '0000000b-0000-4000-8000-000000000001';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const T2 = '2026-01-01T00:00:02.000Z';

const playground = specFor(playgroundDecider);
const started: PlaygroundEvent = { type: 'PlaygroundStarted', data: { sessionId: S1, companyId: C1, agentId: A1, startedBy: 'user:u1', at: T0 } };
const asked = (questionId: string, text = 'Do you ship to Norway?'): PlaygroundEvent => ({ type: 'PlaygroundQuestionAsked', data: { questionId, text, by: 'user:u1', at: T1 } });
const provenance = { sources: [{ documentId: 'doc-1', title: 'Shipping', chunkIndex: 0, score: 3.2 }], latencyMs: 12, costMicros: 380, usageEstimated: false };
const answer = { questionId: Q1, answerId: R1, text: 'Yes, within 5 days.', model: 'gpt-4o-mini', inputTokens: 300, outputTokens: 40, handoff: false, provenance };
const answered: PlaygroundEvent = { type: 'PlaygroundAnswered', data: { ...answer, at: T2 } };

describe('playground decider', () => {
  it('given nothing, when a teammate starts a session with an agent, then it is started for their company', () => {
    const state = playground.given([]).when({ type: 'StartPlayground', role: 'agent', sessionId: S1, companyId: C1, agentId: A1, startedBy: 'user:u1', now: T0 }).then([started]);
    expect(state).toMatchObject({ sessionId: S1, companyId: C1, agentId: A1, questions: 0, pending: [] });
    expect(playgroundEvents.PlaygroundStarted.safeParse(started.data).success).toBe(true);
  });

  it('given a started session, when it is started again, then CONFLICT', () => {
    playground.given([started]).when({ type: 'StartPlayground', role: 'agent', sessionId: S1, companyId: C1, agentId: A1, startedBy: 'user:u1', now: T1 }).thenThrows('CONFLICT');
  });

  it('given a started session, when a question is asked, then it is recorded (trimmed) and waits for its answer', () => {
    const state = playground.given([started]).when({ type: 'AskPlaygroundQuestion', role: 'owner', questionId: Q1, text: '  Do you ship to Norway?  ', by: 'user:u1', now: T1 }).then([asked(Q1)]);
    expect(state).toMatchObject({ questions: 1, pending: [Q1] });
  });

  it('given a live session, when an agent-role teammate asks, then FORBIDDEN (live calls are for owners and admins); an owner or admin asks', () => {
    const live: PlaygroundEvent = { type: 'PlaygroundStarted', data: { ...started.data, actions: 'live' } as Extract<PlaygroundEvent, { type: 'PlaygroundStarted' }>['data'] };
    playground.given([live]).when({ type: 'AskPlaygroundQuestion', role: 'agent', questionId: Q1, text: 'Hi', by: 'user:u2', now: T1 }).thenThrows('FORBIDDEN');
    playground.given([live]).when({ type: 'AskPlaygroundQuestion', role: 'admin', questionId: Q1, text: 'Do you ship to Norway?', by: 'user:u1', now: T1 }).then([asked(Q1)]);
    playground.given([live]).when({ type: 'AskPlaygroundQuestion', role: 'owner', questionId: Q1, text: 'Do you ship to Norway?', by: 'user:u1', now: T1 }).then([asked(Q1)]);
  });

  it('given nothing, when an agent-role teammate starts a live session, then FORBIDDEN; an admin starts one', () => {
    playground.given([]).when({ type: 'StartPlayground', role: 'agent', sessionId: S1, companyId: C1, agentId: A1, startedBy: 'user:u1', actions: 'live', now: T0 }).thenThrows('FORBIDDEN');
    playground.given([]).when({ type: 'StartPlayground', role: 'admin', sessionId: S1, companyId: C1, agentId: A1, startedBy: 'user:u1', actions: 'live', now: T0 }).then([{ type: 'PlaygroundStarted', data: { ...started.data, actions: 'live' } as Extract<PlaygroundEvent, { type: 'PlaygroundStarted' }>['data'] }]);
  });

  it('given no session, when a question is asked, then NOT_FOUND', () => {
    playground.given([]).when({ type: 'AskPlaygroundQuestion', role: 'agent', questionId: Q1, text: 'Hi', by: 'user:u1', now: T1 }).thenThrows('NOT_FOUND');
  });

  it('refuses an empty question and one longer than a customer message may be', () => {
    playground.given([started]).when({ type: 'AskPlaygroundQuestion', role: 'agent', questionId: Q1, text: '   ', by: 'user:u1', now: T1 }).thenThrows('VALIDATION_ERROR');
    playground.given([started]).when({ type: 'AskPlaygroundQuestion', role: 'agent', questionId: Q1, text: 'x'.repeat(PLAYGROUND_LIMITS.text + 1), by: 'user:u1', now: T1 }).thenThrows('VALIDATION_ERROR');
    playground.given([started]).when({ type: 'AskPlaygroundQuestion', role: 'agent', questionId: Q1, text: 'x'.repeat(PLAYGROUND_LIMITS.text), by: 'user:u1', now: T1 }).then([asked(Q1, 'x'.repeat(PLAYGROUND_LIMITS.text))]);
  });

  it(`given a session with ${PLAYGROUND_LIMITS.questions} questions, when another is asked, then CONFLICT (start a new session)`, () => {
    const full = Array.from({ length: PLAYGROUND_LIMITS.questions }, (_, i) => asked(`0000000c-0000-4000-8000-${String(i).padStart(12, '0')}`));
    playground.given([started, ...full]).when({ type: 'AskPlaygroundQuestion', role: 'agent', questionId: Q2, text: 'One more', by: 'user:u1', now: T1 }).thenThrows('CONFLICT');
  });

  it('given a waiting question, when its answer is recorded, then PlaygroundAnswered with model, tokens and provenance', () => {
    const state = playground.given([started, asked(Q1)]).when({ type: 'RecordPlaygroundAnswer', ...answer, now: T2 }).then([answered]);
    expect(state.pending).toEqual([]);
    expect(playgroundEvents.PlaygroundAnswered.safeParse(answered.data).success).toBe(true);
  });

  it('given an answered question, when the answer is recorded again (or a late failure), then nothing happens', () => {
    playground.given([started, asked(Q1), answered]).when({ type: 'RecordPlaygroundAnswer', ...answer, now: T2 }).then([]);
    playground.given([started, asked(Q1), answered]).when({ type: 'RecordPlaygroundFailure', questionId: Q1, reason: 'timeout', now: T2 }).then([]);
  });

  it('given a waiting question, when the model fails, then PlaygroundAnswerFailed with the reason, and no answer is recorded after it', () => {
    const failed: PlaygroundEvent = { type: 'PlaygroundAnswerFailed', data: { questionId: Q1, reason: 'the language model failed (timeout)', at: T2 } };
    playground.given([started, asked(Q1)]).when({ type: 'RecordPlaygroundFailure', questionId: Q1, reason: 'the language model failed (timeout)', now: T2 }).then([failed]);
    playground.given([started, asked(Q1), failed]).when({ type: 'RecordPlaygroundAnswer', ...answer, now: T2 }).then([]);
  });

  it('two questions wait at once and are answered in any order', () => {
    const state = playground.given([started, asked(Q1), asked(Q2)]).state;
    expect(state.pending).toEqual([Q1, Q2]);
    const second = { ...answer, questionId: Q2, answerId: '0000000b-0000-4000-8000-000000000002' };
    const after = playground.given([started, asked(Q1), asked(Q2)]).when({ type: 'RecordPlaygroundAnswer', ...second, now: T2 }).then([{ type: 'PlaygroundAnswered', data: { ...second, at: T2 } }]);
    expect(after.pending).toEqual([Q1]);
  });

  it('keeps the state small: questions a crash left waiting are forgotten once newer ones fill the window', () => {
    const many = Array.from({ length: PLAYGROUND_LIMITS.pending + 3 }, (_, i) => asked(`0000000c-0000-4000-8000-${String(i).padStart(12, '0')}`));
    expect(playground.given([started, ...many]).state.pending).toHaveLength(PLAYGROUND_LIMITS.pending);
  });

  it('folds the events into turns: question, then its answer or failure', () => {
    const turns = playgroundTurns([started, asked(Q1), asked(Q2, 'And Sweden?'), answered]);
    expect(turns).toEqual([
      { question: { id: Q1, text: 'Do you ship to Norway?', at: T1 }, answer: { id: R1, text: 'Yes, within 5 days.', model: 'gpt-4o-mini', inputTokens: 300, outputTokens: 40, handoff: false, provenance, at: T2 }, failure: null },
      { question: { id: Q2, text: 'And Sweden?', at: T1 }, answer: null, failure: null },
    ]);
  });
});
