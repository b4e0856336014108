import { describe, it } from 'vitest';
import { REPLAY_ANSWERS, REPLAYS, replaysProjection } from '../../../../src/projections/replays/replaysProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const R = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const CV1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const CV2 = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const M = '11111111-1111-4111-8111-111111111111';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const stream = `replay-${R}`;
const draft = { basedOnAgentId: null, systemPrompt: 'Draft', model: null, temperature: 0.2, useKnowledgeBase: false, handoffMessage: 'Soon.' };
const conversations = [
  { conversationId: CV1, upToRevision: '5', turns: 1 },
  { conversationId: CV2, upToRevision: '3', turns: 1 },
];
const provenance = { sources: [], latencyMs: 12, costMicros: 300, usageEstimated: false };
const answered = { status: 'answered' as const, text: 'draft', model: 'gpt-4o-mini', inputTokens: 100, outputTokens: 20, handoff: false, provenance };
const answer = (conversationId: string, draftAnswer: typeof answered | { status: 'failed'; error: string }) =>
  recorded(stream, 'ReplayAnswerRecorded', { conversationId, turn: 0, messageIds: [M], customerText: 'q', customerAt: T0, recorded: { kind: 'none' }, draft: draftAnswer, at: T1 });

describe('replays projection', () => {
  it('progress and spend as answers land; answers in conversation then turn order; the end status', async () => {
    await projectionSpec(replaysProjection)
      .given([
        recorded(stream, 'ReplayRequested', { replayId: R, companyId: CO, requestedBy: 'user:u', draft, llm: { kind: 'openai', model: 'gpt-4o-mini' }, conversations, total: 2, estimatedCostMicros: 900, at: T0 }),
        answer(CV2, answered),
        answer(CV1, { status: 'failed', error: 'timeout' }),
        recorded(stream, 'ReplayCompleted', { at: T1 }),
      ])
      .then({
        [REPLAYS]: [
          {
            id: R,
            companyId: CO,
            status: 'completed',
            requestedBy: 'user:u',
            draft,
            llm: { kind: 'openai', model: 'gpt-4o-mini' },
            conversations,
            total: 2,
            done: 2,
            failedAnswers: 1,
            estimatedCostMicros: 900,
            spentCostMicros: 300,
            inputTokens: 100,
            outputTokens: 20,
            failure: null,
            createdAt: T0,
            updatedAt: T1,
            finishedAt: T1,
          },
        ],
        [REPLAY_ANSWERS]: [
          { id: `${R}:${CV1}:0`, replayId: R, companyId: CO, conversationId: CV1, order: 0, turn: 0, messageIds: [M], customerText: 'q', customerAt: T0, recorded: { kind: 'none' }, draft: { status: 'failed', error: 'timeout' }, at: T1 },
          { id: `${R}:${CV2}:0`, replayId: R, companyId: CO, conversationId: CV2, order: 50, turn: 0, messageIds: [M], customerText: 'q', customerAt: T0, recorded: { kind: 'none' }, draft: answered, at: T1 },
        ],
      });
  });
});
