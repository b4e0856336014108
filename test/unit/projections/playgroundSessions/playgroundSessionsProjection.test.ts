import { describe, it } from 'vitest';
import { PLAYGROUND_SESSIONS, playgroundSessionsProjection } from '../../../../src/projections/playgroundSessions/playgroundSessionsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const S1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const S2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const AGENT = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const Q1 = '11111111-1111-4111-8111-111111111111';
const Q2 = '22222222-2222-4222-8222-222222222222';
const A1 = '33333333-3333-4333-8333-333333333333';
const T = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const provenance = { sources: [], latencyMs: 12, costMicros: 0, usageEstimated: false };

describe('playground sessions projection', () => {
  it('given a started session with a question answered and one failed, and an untouched one: counts, the first question, and the last activity', async () => {
    const long = `Do you ship   to\nNorway? ${'x'.repeat(200)}`;
    await projectionSpec(playgroundSessionsProjection)
      .given([
        recorded(`playground-${S1}`, 'PlaygroundStarted', { sessionId: S1, companyId: CO, agentId: AGENT, startedBy: 'user:u1', at: T(0) }),
        recorded(`playground-${S2}`, 'PlaygroundStarted', { sessionId: S2, companyId: CO, agentId: AGENT, startedBy: 'user:u2', at: T(1) }),
        recorded(`playground-${S1}`, 'PlaygroundQuestionAsked', { questionId: Q1, text: long, by: 'user:u1', at: T(2) }),
        recorded(`playground-${S1}`, 'PlaygroundAnswered', {
          questionId: Q1,
          answerId: A1,
          text: 'Yes.',
          model: 'builtin',
          inputTokens: 0,
          outputTokens: 0,
          handoff: false,
          provenance,
          at: T(3),
        }),
        recorded(`playground-${S1}`, 'PlaygroundQuestionAsked', { questionId: Q2, text: 'And Sweden?', by: 'user:u1', at: T(4) }),
        recorded(`playground-${S1}`, 'PlaygroundAnswerFailed', { questionId: Q2, reason: 'the language model failed (timeout): slow', at: T(5) }),
      ])
      .then({
        [PLAYGROUND_SESSIONS]: [
          {
            id: S1,
            companyId: CO,
            agentId: AGENT,
            startedBy: 'user:u1',
            startedAt: T(0),
            questionCount: 2,
            firstQuestion: `Do you ship to Norway? ${'x'.repeat(120 - 'Do you ship to Norway? '.length - 1)}…`,
            lastQuestionAt: T(4),
            lastActivityAt: T(5),
          },
          { id: S2, companyId: CO, agentId: AGENT, startedBy: 'user:u2', startedAt: T(1), questionCount: 0, firstQuestion: null, lastQuestionAt: null, lastActivityAt: T(1) },
        ],
      });
  });

  it('events of a session it never saw start are ignored (nothing to attach them to)', async () => {
    await projectionSpec(playgroundSessionsProjection)
      .given([recorded(`playground-${S1}`, 'PlaygroundQuestionAsked', { questionId: Q1, text: 'Hello?', by: 'user:u1', at: T(2) })])
      .then({ [PLAYGROUND_SESSIONS]: [] });
  });
});
