import { describe, it } from 'vitest';
import { readMarkerDecider } from '../../../../../src/domain/conversations/readMarker/decider.js';
import { specFor } from '../../../../support/gwt.js';

const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';

describe('Read markers', () => {
  const mark = (customerMessages: number) => ({ type: 'MarkConversationRead' as const, conversationId: CONV, companyId: CO, userId: ANN, customerMessages, now: T2 });
  it('opening a conversation with unseen customer messages records how far it was read', () => {
    specFor(readMarkerDecider).given([]).when(mark(3)).then([{ type: 'ConversationRead', data: { conversationId: CONV, companyId: CO, userId: ANN, customerMessages: 3, at: T2 } }]);
  });
  it('opening it again with nothing new records nothing (no event per view)', () => {
    const read = { type: 'ConversationRead' as const, data: { conversationId: CONV, companyId: CO, userId: ANN, customerMessages: 3, at: T } };
    specFor(readMarkerDecider).given([read]).when(mark(3)).then([]);
    specFor(readMarkerDecider).given([read]).when(mark(2)).then([]);
  });
});
