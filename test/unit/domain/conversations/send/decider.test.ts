import { describe, expect, it } from 'vitest';
import { sendDecider } from '../../../../../src/domain/conversations/send/decider.js';
import type { SendEvent } from '../../../../../src/domain/conversations/send/events.js';
import { specFor } from '../../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';
const M = '11111111-1111-4111-8111-111111111111';
const C = '22222222-2222-4222-8222-222222222222';
const accept = (platformMessageId: number | null) =>
  ({ type: 'RecordSendAccepted', messageId: M, conversationId: C, platformMessageId, deliveredTo: 'platform', now: T0 }) as const;
const accepted = (platformMessageId: number | null): SendEvent => ({
  type: 'MessageSendAccepted',
  data: { messageId: M, conversationId: C, platformMessageId, deliveredTo: 'platform', at: T0 },
});

describe('the guard of one outgoing message\u2019s send', () => {
  const send = specFor(sendDecider);

  it('records that the channel accepted the message, with the id it gave', () => {
    const state = send.given([]).when(accept(9001)).then([accepted(9001)]);
    expect(state.accepted).toEqual({ platformMessageId: 9001, deliveredTo: 'platform' });
  });

  it('records nothing for a message accepted before: the first acceptance counts', () => {
    const state = send.given([accepted(9001)]).when(accept(9002)).then([]);
    expect(state.accepted?.platformMessageId).toBe(9001);
  });
});
