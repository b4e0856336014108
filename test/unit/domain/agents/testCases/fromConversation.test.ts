import { describe, expect, it } from 'vitest';
import { proposeCase, type PastTurn } from '../../../../../src/domain/agents/testCases/fromConversation.js';

/** Given a conversation's turns, when a case is proposed from it, then its script, expectations and reference. */

const CONV = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const DOC = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const agent = (text: string, handoff = false, documentId?: string): PastTurn['recorded'] => ({
  kind: 'agent',
  messageId: 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee',
  text,
  model: 'builtin',
  inputTokens: 0,
  outputTokens: 0,
  handoff,
  ...(documentId ? { provenance: { sources: [{ documentId, title: 'Doc', chunkIndex: 0, score: 1 }], latencyMs: 1, costMicros: 0, usageEstimated: false } } : {}),
});

describe('a case from a conversation', () => {
  it('a person’s answer is the reference, quoted in a judge criterion; the script ends at the turn it answered', () => {
    const turns: PastTurn[] = [
      { customerText: 'Hello', recorded: agent('Hi!') },
      { customerText: 'Can I pay by cheque?', recorded: agent('A person will answer.', true) },
      { customerText: 'Still there?', recorded: { kind: 'operator', text: 'Yes, cheques by post are fine.' } },
      { customerText: 'Thanks', recorded: { kind: 'none' } },
    ];
    expect(proposeCase(CONV, turns)).toEqual({
      turns: ['Hello', 'Can I pay by cheque?', 'Still there?'],
      expect: { judge: 'Gives the customer the same information as this answer from our team: "Yes, cheques by post are fine."' },
      reference: { kind: 'operator', text: 'Yes, cheques by post are fine.', conversationId: CONV },
    });
  });

  it('an AI answer that did not hand off is the reference: answered again, citing its first source', () => {
    expect(proposeCase(CONV, [{ customerText: 'Do you ship to Norway?', recorded: agent('We ship to Norway.', false, DOC) }])).toEqual({
      turns: ['Do you ship to Norway?'],
      expect: { handoff: false, citesDocumentId: DOC },
      reference: { kind: 'agent', text: 'We ship to Norway.', conversationId: CONV },
    });
  });

  it('keeps at most 5 turns; with no reference it expects a handoff', () => {
    const turns: PastTurn[] = Array.from({ length: 7 }, (_, i) => ({ customerText: `q${i}`, recorded: { kind: 'unanswered', reason: 'no agent' } }));
    expect(proposeCase(CONV, turns)).toEqual({ turns: ['q2', 'q3', 'q4', 'q5', 'q6'], expect: { handoff: true } });
  });
});
