import { describe, it } from 'vitest';
import { agentDefaults } from '../../../../src/domain/agents/events.js';
import { emptyHistogram, record } from '../../../../src/projections/analytics/histogram.js';
import { agentExperimentsProjection, emptyCounts } from '../../../../src/projections/agentExperiments/agentExperimentsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const X = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const K1 = '10000000-0000-4000-8000-000000000001';
const K2 = '10000000-0000-4000-8000-000000000002';
const K3 = '10000000-0000-4000-8000-000000000003';
const S = '51515151-5151-4515-8515-515151515151';
const M = '11111111-1111-4111-8111-111111111111';
const R = '33333333-3333-4333-8333-333333333333';
const OWNER = 'user:11111111-1111-4111-8111-111111111111';
const at = (s: number) => `2026-01-01T10:00:${String(s).padStart(2, '0')}.000Z`;
const { active: _a, ...config } = agentDefaults;
const agent = `agent-${A}`;
const conv = (id: string) => `conversation-${id}`;
const meta = { metadata: { companyId: C } };

const started = recorded(
  agent,
  'AgentExperimentStarted',
  { experimentId: X, arms: [{ arm: 'a', version: 1, share: 50, config }, { arm: 'b', version: 2, share: 50, config: { ...config, temperature: 1 } }], holdout: 10, confidenceLevel: 0.95, by: OWNER, at: at(0) },
  meta,
);
const joined = (k: string, arm: 'a' | 'b' | 'holdout', s: number) =>
  recorded(conv(k), 'ExperimentArmAssigned', { experimentId: X, agentId: A, arm, version: arm === 'holdout' ? null : arm === 'a' ? 1 : 2, waitingSince: at(0), at: at(s) });
const replied = (k: string, s: number, over: Record<string, unknown> = {}) =>
  recorded(conv(k), 'AgentReplied', { messageId: R, sessionId: S, agentId: A, text: 'Hi', inReplyTo: [M], model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, handoff: false, at: at(s), ...over });

describe('agentExperiments projection', () => {
  const spec = projectionSpec(agentExperimentsProjection);

  it('given conversations in each arm, counts who joined, who the AI resolved, who was handed off, the first responses and the cost per arm', async () => {
    const a = { ...emptyCounts(), conversations: 1, aiResolved: 1, firstResponse: record(emptyHistogram(), 2000), firstResponseTotalMs: 2000, costMicros: 120 };
    const b = { ...emptyCounts(), conversations: 1, handedOff: 1, firstResponse: record(emptyHistogram(), 3000), firstResponseTotalMs: 3000 };
    const holdout = { ...emptyCounts(), conversations: 1, handedOff: 1, firstResponse: record(emptyHistogram(), 9000), firstResponseTotalMs: 9000 };
    await spec
      .given([
        started,
        // K1 in arm a: answered after 2 s, charged, closed with no person involved: resolved by the AI.
        joined(K1, 'a', 2),
        replied(K1, 2),
        recorded(`credits-${C}`, 'CreditsConsumed', { amountMicros: 120, model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, conversationId: K1, replyId: R, at: at(3) }),
        // Another company's charge naming the same id is not this experiment's cost.
        recorded('credits-dddddddd-dddd-4ddd-8ddd-dddddddddddd', 'CreditsConsumed', { amountMicros: 999, model: 'gpt-4o', inputTokens: 10, outputTokens: 5, conversationId: K1, replyId: M, at: at(3) }),
        recorded(conv(K1), 'AiSessionClosed', { sessionId: S, reason: 'api', action: 'session_close', by: null, at: at(4) }),
        // K2 in arm b: the AI hands off; the close does not make it an AI resolution.
        joined(K2, 'b', 3),
        replied(K2, 3, { handoff: true }),
        recorded(conv(K2), 'AiSessionPaused', { sessionId: S, reason: 'handoff', by: null, at: at(3) }),
        recorded(conv(K2), 'AiSessionClosed', { sessionId: S, reason: 'api', action: 'session_close', by: null, at: at(5) }),
        // K3 in the holdout: its handoff is no response; a person's message after 9 s is.
        joined(K3, 'holdout', 1),
        replied(K3, 1, { handoff: true, handoffCause: 'experiment_holdout', handoffReason: 'experiment holdout', model: 'none', inputTokens: 0, outputTokens: 0 }),
        recorded(conv(K3), 'OperatorMessageSent', { messageId: R, text: 'Hello, I am Kim.', by: OWNER, at: at(9) }),
        recorded(agent, 'AgentExperimentEnded', { experimentId: X, winner: 1, winnerArm: 'a', reason: 'A resolves', by: OWNER, at: at(20) }, meta),
      ])
      .then({
        agentExperiments: [
          {
            id: X,
            agentId: A,
            companyId: C,
            seq: 0,
            status: 'ended',
            arms: [
              { arm: 'a', version: 1, share: 50 },
              { arm: 'b', version: 2, share: 50 },
            ],
            holdout: 10,
            confidenceLevel: 0.95,
            startedAt: at(0),
            startedBy: OWNER,
            endedAt: at(20),
            endedBy: OWNER,
            winner: 1,
            reason: 'A resolves',
            counts: { a, b, holdout },
          },
        ],
      });
  });
});
