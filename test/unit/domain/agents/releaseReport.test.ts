import { describe, expect, it } from 'vitest';
import { compareTurn, currentSide, draftSide } from '../../../../src/domain/agents/releaseReport.js';

/** Given what a turn recorded and what the checked version answered, then the two sides and what changed. */

const DOC_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const DOC_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const source = (documentId: string) => ({ documentId, title: 'Doc', chunkIndex: 0, score: 1 });
const provenance = (costMicros: number, ...docs: string[]) => ({ sources: docs.map(source), latencyMs: 1, costMicros, usageEstimated: false });

describe('release report', () => {
  it('an AI answer against the draft’s: sources added and removed, length and cost deltas', () => {
    const current = currentSide({ kind: 'agent', messageId: DOC_A, text: 'We ship to Norway.', model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, handoff: false, provenance: provenance(30, DOC_A) });
    const draft = draftSide({ status: 'answered', text: 'Yes.', model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 1, handoff: false, provenance: provenance(12, DOC_B) });
    expect(current).toEqual({ kind: 'agent', text: 'We ship to Norway.', handoff: false, documentIds: [DOC_A], chars: 18, costMicros: 30 });
    expect(compareTurn(current, draft)).toEqual({ handoff: 'same', sourcesAdded: [DOC_B], sourcesRemoved: [DOC_A], lengthDelta: -14, costDeltaMicros: -18 });
  });

  it('a person’s answer has no known cost; a turn left to people counts as a handoff; a failed draft answer no longer hands off', () => {
    const operator = currentSide({ kind: 'operator', text: 'Sure.' });
    expect(operator.costMicros).toBeNull();
    const handedOff = draftSide({ status: 'answered', text: 'A person will answer.', model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, provenance: provenance(0) });
    expect(compareTurn(operator, handedOff)).toMatchObject({ handoff: 'now_hands_off', costDeltaMicros: null, lengthDelta: 16 });
    const unanswered = currentSide({ kind: 'unanswered', reason: 'no agent' });
    expect(compareTurn(unanswered, draftSide({ status: 'failed', error: 'timeout' }))).toMatchObject({ handoff: 'no_longer_hands_off', lengthDelta: 0, costDeltaMicros: 0 });
  });
});
