import { describe, expect, it } from 'vitest';
import { conversationsProjection } from '../../../../src/projections/conversations/conversationsProjection.js';
import { at, conversationEvents } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const CALL = '55555555-5555-4555-8555-555555555555';
const REPLY = '33333333-3333-4333-8333-333333333333';
const HOLD = '44444444-4444-4444-8444-444444444444';
const ACTION = '77777777-7777-4777-8777-777777777777';
const { stream, started } = conversationEvents();
const requested = (mode: 'auto' | 'confirm' | 'approve') =>
  recorded(stream, 'ActionCallRequested', { callId: CALL, replyId: REPLY, actionId: ACTION, actionName: 'cancel_order', mode, arguments: { order_id: '4411' }, at: at(1) });
const approvalRequested = recorded(stream, 'ActionApprovalRequested', { callId: CALL, messageId: HOLD, holdingReply: 'A teammate decides.', approverRoles: ['admin'], expiresAt: at(9), at: at(2) });
const pending = {
  callId: CALL,
  actionId: ACTION,
  actionName: 'cancel_order',
  arguments: { order_id: '4411' },
  requestedAt: at(1),
  mode: 'approve',
  expiresAt: at(9),
  approverRoles: ['admin'],
  holdingReply: 'A teammate decides.',
  prompt: null,
  askedAt: at(2),
};

describe('conversations projection: the pending action', () => {
  const spec = projectionSpec(conversationsProjection);
  it('given an approval asked for, then the conversation shows what will be called with which arguments, until it is decided', async () => {
    await spec.given([started, requested('approve'), approvalRequested]).then({ conversations: [expect.objectContaining({ pendingAction: pending })] });
    await spec
      .given([started, requested('approve'), approvalRequested, recorded(stream, 'ActionCallApproved', { callId: CALL, by: 'user:x', at: at(3) })])
      .then({ conversations: [expect.objectContaining({ pendingAction: null })] });
  });

  it('given an auto call, then nothing waits', async () => {
    await spec.given([started, requested('auto')]).then({ conversations: [expect.not.objectContaining({ pendingAction: expect.anything() })] });
  });
});
